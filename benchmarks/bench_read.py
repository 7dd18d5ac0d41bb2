"""Benchmark: reading the checkers of a 1280x720 frame with a known registration.

Runs :class:`vision.reader.BoardReader` (fixed corners, no dice/cube plug-ins) on
real 1280x720 photos from ``../shared/data/boards`` (or a rendered board when
they are absent), on one core (``cv2.setNumThreads(1)``), and prints the median
and 99th percentile of the whole read and of every stage, in milliseconds.

    python benchmarks/bench_read.py [--repeat 200] [--out benchmarks/results/bench_read.json]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.reader import BoardReader  # noqa: E402


def frames() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, image, corners) for the 1280x720 labelled photos, else one rendered frame."""
    data = pathlib.Path(os.environ.get("COMPANION_SHARED_DATA", ROOT.parent / "shared" / "data")) / "boards"
    if not data.is_dir():
        data = ROOT.parent.parent / "shared" / "data" / "boards"
    out = []
    for label in sorted((data / "labels").glob("*.json")) if data.is_dir() else []:
        d = json.loads(label.read_text())
        if tuple(d["size"]) != (1280, 720):
            continue
        img = cv2.imread(str(data / d["file"]))
        c = d["corners"]
        corners = np.array([c["top_left"], c["top_right"], c["bottom_right"], c["bottom_left"]], float)
        out.append((label.stem, img, corners))
    if not out:
        from vision.render_board import BoardState, render_board

        r = render_board(BoardState.starting())
        out.append(("rendered", r.image, r.corners))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=200, help="reads per frame (default 200)")
    ap.add_argument("--out", help="write the figures as JSON here")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    totals: list[float] = []
    cpu: list[float] = []
    stages: dict[str, list[float]] = {}
    names = []
    for name, img, corners in frames():
        names.append(name)
        reader = BoardReader.from_corners(corners, (img.shape[1], img.shape[0]))
        for _ in range(5):  # warm up
            reader.read(img)
        for _ in range(args.repeat):
            c0 = time.process_time()
            t0 = time.perf_counter()
            obs = reader.read(img)
            totals.append((time.perf_counter() - t0) * 1e3)
            cpu.append((time.process_time() - c0) * 1e3)
            for k, v in obs.timings_ms.items():
                stages.setdefault(k, []).append(v)
    med, p99 = float(np.median(totals)), float(np.percentile(totals, 99))
    cmed, cp99 = float(np.median(cpu)), float(np.percentile(cpu, 99))
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    print(f"frames: {', '.join(names)} (1280x720), {args.repeat} reads each, 1 thread, load average {load:.1f}")
    print(f"read with known registration, wall clock: median {med:.2f} ms, p99 {p99:.2f} ms (target: median <= 15 ms)")
    print(f"read with known registration, CPU time:   median {cmed:.2f} ms, p99 {cp99:.2f} ms "
          "(what one core spends; the wall clock includes waiting for a shared CPU)")
    for k, v in stages.items():
        print(f"  {k:22s} median {np.median(v):7.2f} ms   p99 {np.percentile(v, 99):7.2f} ms")
    if args.out:
        result = {
            "frames": names, "repeat": args.repeat, "threads": 1,
            "median_ms": round(med, 3), "p99_ms": round(p99, 3),
            "cpu_median_ms": round(cmed, 3), "cpu_p99_ms": round(cp99, 3), "load_average": round(load, 2),
            "stages": {k: {"median_ms": round(float(np.median(v)), 3), "p99_ms": round(float(np.percentile(v, 99)), 3)}
                       for k, v in stages.items()},
            "machine": platform.platform(), "python": platform.python_version(), "opencv": cv2.__version__,
            "command": "python benchmarks/bench_read.py --repeat %d --out %s" % (args.repeat, args.out),
        }
        pathlib.Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

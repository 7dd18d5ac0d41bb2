"""Benchmark: reading a 1280x720 frame with a known registration.

Runs :class:`vision.reader.BoardReader` (fixed corners) on real 1280x720 photos from
``../shared/data/boards`` (or a rendered board when they are absent), on one core
(``cv2.setNumThreads(1)``), with the learned checker reader (the point network) and, as the
same-run baseline, the classical reader; ``--dice`` adds the dice and cube plug-in
(:class:`vision.dice_plugin.DicePlugin`), the whole frame's reading. The frames are read once
more with the float networks in place of their 8-bit quantizations (:mod:`vision.onnx_model`), as
the same-run baseline of those. Prints, per reader, the median and 99th percentile of the whole
read and of every stage, in milliseconds, each frame's median, and the learned reader's median as
a ratio of the baselines'.

    python benchmarks/bench_read.py [--repeat 200] [--dice] [--networks] [--out benchmarks/results/bench_read.json]

``--networks`` reads the frames once more with the learned reader and prints, per ONNX network,
its runs, patches and milliseconds a frame (where a frame's time goes).
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


#: Reads of each frame before the timed ones (not counted in the figures).
WARM_UP = 5


class NetworkClock:
    """While active (``with NetworkClock() as clock``), every run of an ONNX network
    (:meth:`vision.onnx_model.OnnxNet.run`) is timed: ``clock.runs`` maps a network's file name
    to its (batch size, milliseconds) runs."""

    def __init__(self) -> None:
        self.runs: dict[str, list[tuple[int, float]]] = {}
        self._run = None

    def __enter__(self) -> "NetworkClock":
        from vision.onnx_model import OnnxNet

        self._run = run = OnnxNet.run
        runs = self.runs

        def timed(net, blob):
            t0 = time.perf_counter()
            out = run(net, blob)
            runs.setdefault(net.path.name, []).append((len(blob), (time.perf_counter() - t0) * 1e3))
            return out

        OnnxNet.run = timed
        return self

    def __exit__(self, *exc) -> None:
        from vision.onnx_model import OnnxNet

        OnnxNet.run = self._run


def float_networks(plugin=None, point_model=None):
    """``plugin`` (a :class:`vision.dice_plugin.DicePlugin`) and ``point_model`` (a
    :class:`vision.learned_checkers.PointModel`), each when given, with the float networks in place
    of the 8-bit ones that :func:`vision.onnx_model.load_onnx` loads, as the same-run baseline;
    returns them."""
    from vision.onnx_model import OnnxNet

    if point_model is not None:
        point_model.net = OnnxNet(point_model.path)
    if plugin is None:
        return plugin, point_model
    reader = plugin.reader
    reader.classifier = OnnxNet(reader.models_dir / "dice_classifier.onnx")
    if plugin.tilt is not None:
        plugin.tilt.net = OnnxNet(reader.models_dir / "dice_tilt.onnx")
    if plugin.cube_reader is not None:
        plugin.cube_reader.net = OnnxNet(reader.models_dir / "dice_cube.onnx")
    return plugin, point_model


def measure(make_reader, repeat: int, new_frame=None) -> dict:
    """Read every frame ``repeat`` times with ``make_reader(corners, size)``; wall and CPU times.
    ``new_frame``: called before each read, as ``companion watch`` calls
    :meth:`vision.dice_plugin.DicePlugin.new_frame` (else the plug-in reuses the detector's scan
    of a frame it recognises, and the repeated reads of one photo would skip the detector)."""
    totals: list[float] = []
    cpu: list[float] = []
    stages: dict[str, list[float]] = {}
    per_frame: dict[str, float] = {}
    for name, img, corners in frames():
        reader = make_reader(corners, (img.shape[1], img.shape[0]))
        for _ in range(WARM_UP):
            if new_frame is not None:
                new_frame()
            reader.read(img)
        for _ in range(repeat):
            if new_frame is not None:
                new_frame()
            c0 = time.process_time()
            t0 = time.perf_counter()
            obs = reader.read(img)
            totals.append((time.perf_counter() - t0) * 1e3)
            cpu.append((time.process_time() - c0) * 1e3)
            for k, v in obs.timings_ms.items():
                stages.setdefault(k, []).append(v)
        per_frame[name] = float(np.median(cpu[-repeat:]))
    return {"median_ms": float(np.median(totals)), "p99_ms": float(np.percentile(totals, 99)),
            "per_frame_cpu_median_ms": per_frame,
            "cpu_median_ms": float(np.median(cpu)), "cpu_p99_ms": float(np.percentile(cpu, 99)),
            "stages": {k: {"median_ms": float(np.median(v)), "p99_ms": float(np.percentile(v, 99))}
                       for k, v in stages.items()}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=200, help="reads per frame (default 200)")
    ap.add_argument("--dice", action="store_true", help="also read the dice and the cube (the dice plug-in)")
    ap.add_argument("--networks", action="store_true",
                    help="then read the frames again with the learned reader, timing every network run")
    ap.add_argument("--out", help="write the figures as JSON here")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    from vision.learned_checkers import PointModel

    model = PointModel()
    plugin = None
    if args.dice:
        from vision.dice_plugin import DicePlugin

        plugin = DicePlugin()
    float_plugin, float_model = float_networks(DicePlugin() if args.dice else None, PointModel())

    def make(point_model, plugin=plugin):
        def reader(corners, size):
            r = BoardReader.from_corners(corners, size, point_model=point_model)
            if plugin is not None:
                r.dice_reader, r.cube_reader = plugin.dice, plugin.cube
            return r
        return reader

    new_frame = plugin.new_frame if plugin is not None else None
    results = {"classical (baseline)": measure(make(None), args.repeat, new_frame),
               "learned": measure(make(model), args.repeat, new_frame)}
    results["learned, float networks"] = measure(make(float_model, float_plugin), args.repeat,
                                                 float_plugin.new_frame if float_plugin is not None else None)
    names = [name for name, _, _ in frames()]
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    what = "checkers, dice and cube" if args.dice else "checkers"
    print(f"frames: {', '.join(names)} (1280x720), {args.repeat} reads each, 1 thread, load average {load:.1f}; "
          f"reading {what} with a known registration")
    for name, r in results.items():
        print(f"{name}: wall clock median {r['median_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms; "
              f"CPU time median {r['cpu_median_ms']:.2f} ms, p99 {r['cpu_p99_ms']:.2f} ms")
        print("  per frame, CPU median: " + ", ".join(f"{n} {v:.2f} ms" for n, v in r["per_frame_cpu_median_ms"].items()))
        for k, v in r["stages"].items():
            print(f"  {k:22s} median {v['median_ms']:7.2f} ms   p99 {v['p99_ms']:7.2f} ms")
    networks = {}
    if args.networks:
        with NetworkClock() as clock:
            measure(make(model), args.repeat, new_frame)
        reads = len(names) * (args.repeat + WARM_UP)  # the warm-up reads are timed too
        print(f"networks, learned reader ({reads} reads): runs, patches and milliseconds a frame, milliseconds a patch")
        for name, runs in sorted(clock.runs.items(), key=lambda kv: -sum(ms for _, ms in kv[1])):
            patches, ms = sum(b for b, _ in runs), sum(t for _, t in runs)
            networks[name] = {"runs_per_frame": len(runs) / reads, "patches_per_frame": patches / reads,
                              "ms_per_frame": ms / reads, "ms_per_patch": ms / max(patches, 1)}
            print(f"  {name:28s} {len(runs) / reads:5.2f} runs {patches / reads:6.1f} patches "
                  f"{ms / reads:6.2f} ms   {ms / max(patches, 1):.3f} ms a patch")
    base, learned = results["classical (baseline)"], results["learned"]
    print(f"learned / classical, CPU median: {learned['cpu_median_ms'] / base['cpu_median_ms']:.2f} "
          f"(target: the learned reading of a frame within 15 ms median on one core)")
    f = results["learned, float networks"]
    print(f"learned / learned with the float networks, CPU median: {learned['cpu_median_ms'] / f['cpu_median_ms']:.2f}")
    if args.out:
        result = {
            "frames": names, "repeat": args.repeat, "threads": 1, "dice": args.dice, "load_average": round(load, 2),
            "readers": results, "networks": networks, "machine": platform.platform(), "python": platform.python_version(),
            "opencv": cv2.__version__,
            "command": "python benchmarks/bench_read.py --repeat %d%s%s --out %s" % (
                args.repeat, " --dice" if args.dice else "", " --networks" if args.networks else "", args.out),
        }
        pathlib.Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: borne-off checkers read in the bear-off tray against the inference alone.

Rendered bear-offs (random styles, cameras, light; some with a checker hit while bearing
off, which the inference cannot see) are read twice in the same process: with the tray
(``vision.trays``) and with it disabled (``TraySettings(enabled=False)``, the old
inference). Prints how often ``off`` is exactly right, how often each source was used,
the tray stage's median time, the real photos' ``off`` against their labels, and the
whole read's CPU time on the 1280x720 photos with and without the tray, interleaved in
this process (``--repeat`` reads of each frame each way).

    python benchmarks/bench_trays.py [--boards 60] [--seed 7] [--out benchmarks/results/bench_trays.txt]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.reader import BoardReader  # noqa: E402
from vision.registration import field_from_corners  # noqa: E402
from vision.render_board import STYLES, BoardState, CameraPose, Lighting, render_board  # noqa: E402
from vision.trays import TraySettings  # noqa: E402


def _home(rng: np.random.Generator, n: int) -> list[int]:
    """``n`` checkers spread over a home board's six points, at most 5 a point."""
    pts = [0] * 6
    for _ in range(n):
        free = [i for i in range(6) if pts[i] < 5]
        pts[int(rng.choice(free))] += 1
    return pts


def random_bear_off(rng: np.random.Generator) -> BoardState:
    """Both sides bearing off; one time in four light was hit (one on the bar, dark spread out)."""
    counts = [0] * 24
    hit = rng.random() < 0.25
    light_on = int(rng.integers(1, 15))
    light_pts = _home(rng, light_on - (1 if hit else 0))
    for i, n in enumerate(light_pts):
        counts[i] = n
    if hit:
        dark_on, dark_off = 15, 0
        for p, n in ((13, 8), (19, 4), (21, 3)):
            counts[p - 1] = -n
    else:
        dark_on = int(rng.integers(1, 16))
        dark_off = 15 - dark_on
        for i, n in enumerate(_home(rng, dark_on)):
            counts[23 - i] = -n
    return BoardState.from_counts(counts, bar=(1 if hit else 0, 0), off=(15 - light_on, dark_off))


def _timing(data: pathlib.Path, repeat: int) -> list[str]:
    """CPU ms of a whole read (fixed corners) with the tray read and without, interleaved."""
    import time

    frames = []
    for label in sorted((data / "labels").glob("*.json")):
        d = json.loads(label.read_text())
        if tuple(d["size"]) != (1280, 720):
            continue
        c = d["corners"]
        corners = np.array([c["top_left"], c["top_right"], c["bottom_right"], c["bottom_left"]], float)
        frames.append((cv2.imread(str(data / d["file"])), corners))
    ways = {"with tray": TraySettings(), "without": TraySettings(enabled=False)}
    readers = {k: [BoardReader.from_corners(c, img.shape[1::-1], trays=t) for img, c in frames] for k, t in ways.items()}
    spent: dict[str, list[float]] = {k: [] for k in ways}
    for rep in range(repeat):
        for way in (list(ways) if rep % 2 else list(ways)[::-1]):
            for (img, _), reader in zip(frames, readers[way]):
                t = time.process_time()
                reader.read(img)
                spent[way].append((time.process_time() - t) * 1e3)
    out = [f"whole read, {len(frames)} photos 1280x720 x {repeat} each way, 1 thread, CPU time (interleaved):"]
    for way, v in spent.items():
        out.append(f"  {way:10s} median {np.median(v):.2f} ms  p99 {np.percentile(v, 99):.2f} ms")
    out.append(f"  ratio with/without {np.median(spent['with tray']) / np.median(spent['without']):.3f}; "
               f"load average {os.getloadavg()[0]:.1f}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=60, help="rendered boards (default 60)")
    ap.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    ap.add_argument("--repeat", type=int, default=60, help="timed reads per photo and way (default 60)")
    ap.add_argument("--out", help="write the printed figures here too")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    rng = np.random.default_rng(args.seed)
    lines: list[str] = []
    styles = list(STYLES)
    right = {"trays": 0, "inferred only": 0}
    sources: dict[str, int] = {}
    times: list[float] = []
    learned: dict[str, object] = {}
    for k in range(args.boards):
        style = styles[k % len(styles)]
        light = Lighting(blur=float(rng.uniform(0.3, 1.2)), noise=float(rng.uniform(0, 4)),
                         gradient=float(rng.uniform(0, 0.25)), gradient_deg=float(rng.uniform(0, 360)), jpeg=85)
        pose = CameraPose.looking_down(scale=float(rng.uniform(0.78, 0.86)), tilt=float(rng.uniform(-0.08, 0.08)),
                                       turn_deg=float(rng.uniform(-2, 2)), aspect=STYLES[style].geometry.aspect)
        if style not in learned:  # colours learned once per style from the opening position
            opening = render_board(BoardState.starting(), style)
            learned[style] = BoardReader(field=field_from_corners(opening.corners, (1280, 720))).read_full(
                opening.image).checkers.colour_model
        state = random_bear_off(rng)
        r = render_board(state, style, pose=pose, lighting=light, seed=k)
        field = field_from_corners(r.corners, (1280, 720))
        obs = BoardReader(field=field, colours=learned[style]).read(r.image)
        base = BoardReader(field=field, colours=learned[style], trays=TraySettings(enabled=False)).read(r.image)
        truth = r.truth["off"]
        right["trays"] += obs.off.to_dict() == truth
        right["inferred only"] += base.off.to_dict() == truth
        sources[obs.off_source] = sources.get(obs.off_source, 0) + 1
        times.append(obs.timings_ms.get("trays", 0.0))
    n = args.boards
    lines.append(f"rendered bear-offs: {n} boards, styles {', '.join(styles)}, seed {args.seed} (a quarter with a checker hit)")
    for name, v in right.items():
        lines.append(f"  off exactly right, {name:14s} {v}/{n} ({100 * v / n:.1f}%)")
    lines.append("  off_source: " + ", ".join(f"{k} {v}" for k, v in sorted(sources.items())))
    lines.append(f"  tray stage median {statistics.median(times):.2f} ms")

    data = pathlib.Path(os.environ.get("COMPANION_SHARED_DATA", ROOT.parent / "shared" / "data")) / "boards"
    if not data.is_dir():
        data = ROOT.parent.parent / "shared" / "data" / "boards"
    if data.is_dir():
        ok = total = 0
        for label in sorted((data / "labels").glob("*.json")):
            d = json.loads(label.read_text())
            img = cv2.imread(str(data / d["file"]))
            c = d["corners"]
            corners = np.array([c["top_left"], c["top_right"], c["bottom_right"], c["bottom_left"]], float)
            obs = BoardReader.from_corners(corners, img.shape[1::-1]).read(img)
            want = sum(v for key, v in d.get("off", {}).items() if key != "visible")
            got = obs.off.light + obs.off.dark
            total += 1
            ok += got == want
            lines.append(f"  real {label.stem:12s} off {obs.off.to_dict()} (label total {want}) source {obs.off_source}"
                         f" tray {None if obs.off_trays is None else obs.off_trays.to_dict()}")
        lines.append(f"real photos: off right on {ok}/{total}")
        lines.extend(_timing(data, args.repeat))
    print("\n".join(lines))
    if args.out:
        pathlib.Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

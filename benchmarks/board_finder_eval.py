"""How often does the automatic board finder find the playing field?

Runs :func:`vision.board_finder.find_board` on the labelled photos in
``/work/shared/data/boards`` and on rendered boards of every style under varied
perspective (keystone up to 0.3, turns up to 20 degrees, boards from half the frame
to filling it, some corners cropped), and prints how many it finds within tolerance:
the largest corner error at most ``--tol`` (default 0.05) of the field's mean side
length, the quadrilateral compared in any of its four cyclic orders (the reader
settles which way the rows run). Also prints the median and the 99th percentile of
the finder's time per image (wall clock and CPU).

    python benchmarks/board_finder_eval.py [--rendered 40] [--seed 5] [--tol 0.05]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance (pixels), minimised over the four cyclic orders of ``found``."""
    return min(float(np.linalg.norm(np.roll(found, k, axis=0) - truth, axis=1).max()) for k in range(4))


def side(truth: np.ndarray) -> float:
    """Mean side length of a quadrilateral (pixels)."""
    return float(np.mean(np.linalg.norm(truth - np.roll(truth, 1, axis=0), axis=1)))


def rendered_cases(n: int, seed: int):
    """Yield ``(name, image, corners)`` for ``n`` rendered boards."""
    from vision.render_board import STYLES, CameraPose, Hand, Lighting, random_state, render_board

    rng = np.random.default_rng(seed)
    styles = list(STYLES)
    for i in range(n):
        style = styles[i % len(styles)]
        state = random_state(rng, max_stack=6)
        size = (1280, 720) if rng.random() < 0.7 else (1024, 768)
        pose = CameraPose.looking_down(image_size=size, scale=float(rng.uniform(0.5, 1.02)),
                                       tilt=float(rng.uniform(-0.3, 0.3)), turn_deg=float(rng.uniform(-20, 20)),
                                       aspect=STYLES[style].geometry.aspect,
                                       shift=(float(rng.uniform(-120, 120)), float(rng.uniform(-40, 40))))
        light = Lighting(brightness=float(rng.uniform(0.75, 1.2)), gradient=float(rng.uniform(0, 0.45)),
                         gradient_deg=float(rng.uniform(0, 360)), blur=float(rng.uniform(0, 1.5)),
                         noise=float(rng.uniform(0, 6)), jpeg=int(rng.choice([0, 85, 70])))
        hands = [Hand(at=(float(rng.uniform(0.1, 0.9)), float(rng.choice([0.12, 0.88]))),
                      from_edge="bottom" if rng.random() < 0.5 else "top")] if rng.random() < 0.2 else []
        bg = tuple(int(v) for v in rng.integers(20, 235, 3))
        r = render_board(state, style, pose, light, hands, background=bg, seed=i)
        yield f"rendered_{i:03d}_{style}", r.image, r.corners


def photo_cases(data: pathlib.Path):
    """Yield ``(name, image, corners)`` for the labelled photos."""
    import cv2

    for path in sorted((data / "labels").glob("*.json")):
        label = json.loads(path.read_text())
        c = label["corners"]
        corners = np.array([c["top_left"], c["top_right"], c["bottom_right"], c["bottom_left"]], np.float64)
        yield path.stem, cv2.imread(str(data / label["file"])), corners


def run(cases, tol: float, verbose: bool) -> tuple[int, int, int, list[float], list[float]]:
    """Find the board in every case; returns (found within ``tol``, within ``0.6 * tol``, total,
    wall-clock times in ms, CPU times in ms)."""
    from vision.board_finder import find_board
    from vision.registration import RegistrationError

    found = tight = total = 0
    times, cpu = [], []
    for name, image, truth in cases:
        total += 1
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            q = find_board(image)
            err = corner_error(q, truth)
        except RegistrationError:
            err = float("inf")
        times.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
        ok = err <= tol * side(truth)
        found += ok
        tight += err <= 0.6 * tol * side(truth)
        if verbose:
            print(f"  {'ok  ' if ok else 'MISS'} {name:28s} corner error {err:7.1f} px "
                  f"(tolerance {tol * side(truth):5.1f}) {times[-1]:6.0f} ms")
    return found, tight, total, times, cpu


def main(argv: list[str] | None = None) -> int:
    """Command line; prints the figures."""
    import cv2

    cv2.setNumThreads(1)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=pathlib.Path, default=pathlib.Path("/work/shared/data/boards"))
    ap.add_argument("--rendered", type=int, default=40)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--tol", type=float, default=0.05)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    for title, cases in (("photos", photo_cases(args.data) if args.data.exists() else iter(())),
                         (f"rendered (seed {args.seed})", rendered_cases(args.rendered, args.seed))):
        f, f6, n, t, c = run(cases, args.tol, not args.quiet)
        if n:
            print(f"{title}: found {f}/{n} within {args.tol:.0%}, {f6}/{n} within {0.6 * args.tol:.0%}; "
                  f"finder time median {np.median(t):.0f} ms, p99 {np.percentile(t, 99):.0f} ms "
                  f"(CPU median {np.median(c):.0f} ms, p99 {np.percentile(c, 99):.0f} ms; one thread)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How the reader counts points standing two high (rendered boards, every style).

    python benchmarks/two_high_read.py [--boards 20] [--seed 5]

Each board holds one or two points of 7..11 checkers drawn ``stack="two_high"`` (a
full line, then checkers resting in the dips between two below it), the rest of the
side spread over ordinary points; poses, lighting and styles vary. Prints the two-high
points read right (count and colour), all points read right and boards read right,
for the reader as it is and, as the baseline in the same run, with the second-layer
search off (``two_high_run=0``).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))


def two_high_state(rng: np.random.Generator):
    """A random position with one or two tall points per side (signed counts, light > 0)."""
    from vision.render_board import BoardState

    counts = [0] * 24
    free = list(range(24))
    rng.shuffle(free)
    for sign in (1, -1):
        left = 15
        for _ in range(int(rng.integers(1, 3))):
            n = int(rng.integers(7, 12))
            if n > left:
                break
            counts[free.pop()] = sign * n
            left -= n
        while left > 0:
            n = int(min(left, rng.integers(1, 5)))
            counts[free.pop()] = sign * n
            left -= n
    return BoardState.from_counts(counts)


def _run(args, settings, known, styles, BoardReader, field_from_corners, CameraPose, Lighting, render_board) -> None:
    rng = np.random.default_rng(args.seed)
    tall_ok = tall = pts_ok = boards_ok = 0
    for i in range(args.boards):
        style = styles[i % len(styles)]
        state = two_high_state(rng)
        pose = CameraPose.looking_down(scale=float(rng.uniform(0.75, 0.95)), tilt=float(rng.uniform(-0.1, 0.1)),
                                       turn_deg=float(rng.uniform(-3, 3)), aspect=known[style].geometry.aspect)
        light = Lighting(brightness=float(rng.uniform(0.85, 1.1)), gradient=float(rng.uniform(0, 0.3)),
                         blur=float(rng.uniform(0, 1.0)), noise=float(rng.uniform(0, 4)), jpeg=int(rng.choice([0, 85])))
        r = render_board(state, style, pose, light, stack="two_high", seed=i)
        reader = BoardReader(field=field_from_corners(r.corners, pose.image_size), settings=settings)
        obs = reader.read(r.image).to_dict()
        got = [(p["count"], p["colour"]) for p in obs["points"]]
        want = [(p["count"], p["colour"]) for p in r.truth["points"]]
        ok = sum(g == t for g, t in zip(got, want))
        pts_ok += ok
        boards_ok += ok == 24
        for g, t in zip(got, want):
            if t[0] > 6:
                tall += 1
                tall_ok += g == t
        bad = [(j + 1, t, g) for j, (g, t) in enumerate(zip(got, want)) if g != t]
        if bad:
            print(f"board {i} {style}: point (want, got) {bad}")
    print(f"two-high points right: {tall_ok}/{tall} ({100 * tall_ok / max(1, tall):.1f}%)")
    print(f"points right: {pts_ok}/{24 * args.boards} ({100 * pts_ok / (24 * args.boards):.1f}%)")
    print(f"boards right: {boards_ok}/{args.boards}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=20)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    import dataclasses

    from vision.checkers import CheckerSettings
    from vision.reader import BoardReader
    from vision.registration import field_from_corners
    from vision.render_board import LOW_CONTRAST_STYLES, STYLES, CameraPose, Lighting, render_board

    known = {**STYLES, **LOW_CONTRAST_STYLES}
    styles = list(known)
    for label, settings in (("second layer off (two_high_run=0)", dataclasses.replace(CheckerSettings(), two_high_run=0)),
                            ("reader as it is", CheckerSettings())):
        print(f"== {label}")
        _run(args, settings, known, styles, BoardReader, field_from_corners, CameraPose, Lighting, render_board)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""How often must calibration adapt the point network to a board?

``companion calibrate --learn opening`` keeps the shipped point network when it reads the
frame of the opening position right (:func:`vision.board_learning.learn_board`). This script
renders the opening on boards the network never saw and counts how many it reads as shipped:

- ``--random N`` boards of random colours (field, points, frame, bar, checkers; a checker set
  often the colour of a point or of the field, a rim or none, grain), each under a random
  camera (keystone, turn, size) and light (brightness 0.7-1.2, gradient, blur, noise, JPEG);
- the built-in styles (:data:`vision.render_board.STYLES` and the low-contrast ``ivory``),
  each under eight harsh conditions (blur of 3 and 5 pixels, noise of 25 grey levels,
  brightness 0.35, the board a half and a third of the frame, a gradient of 0.9, JPEG
  quality 10).

- the real photos of ``--data`` (default ``../shared/data/boards``) whose labels show the opening
  position, registered from their labelled corners.

Where the shipped network misreads an opening, the board is learned, and 15 later positions
of that board under the same camera are read with the shipped and with the adapted network
(points right, whole boards right; rendered boards only).

    python benchmarks/calibration_openings.py [--random 40] [--seed 100] [--data DIR]
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

from vision.board_learning import OPENING_COUNTS, BoardLearningError, learn_board  # noqa: E402 - after the path is set
from vision.checkers import CheckerColours  # noqa: E402
from vision.evaluate import _rendered_truth, label_truth, score  # noqa: E402
from vision.learned_checkers import PointModel  # noqa: E402
from vision.reader import BoardReader, load_image  # noqa: E402
from vision.registration import field_from_corners  # noqa: E402
from vision.render_board import (LOW_CONTRAST_STYLES, STYLES, BoardState, BoardStyle, CameraPose,  # noqa: E402
                                 Lighting, random_state, random_style, render_board)

#: The harsh conditions each built-in style's opening is rendered under: camera scale and light.
HARSH = {
    "blur 3 px": (0.85, Lighting(blur=3.0, noise=2, jpeg=80)),
    "blur 5 px": (0.85, Lighting(blur=5.0, noise=2, jpeg=80)),
    "noise 25": (0.85, Lighting(noise=25, jpeg=60)),
    "brightness 0.35": (0.85, Lighting(brightness=0.35, noise=4, jpeg=80)),
    "board half the frame": (0.5, Lighting(noise=2, jpeg=85)),
    "board a third of the frame": (0.35, Lighting(noise=2, jpeg=85)),
    "gradient 0.9": (0.85, Lighting(gradient=0.9, gradient_deg=30, noise=3, jpeg=80)),
    "JPEG quality 10": (0.85, Lighting(noise=3, jpeg=10)),
}


def random_board(rng: np.random.Generator, name: str) -> tuple[BoardStyle, CameraPose, Lighting]:
    """A board of random colours (:func:`vision.render_board.random_style`) under a random camera and light."""
    style = random_style(rng, name)
    pose = CameraPose.looking_down(scale=float(rng.uniform(0.78, 0.92)), tilt=float(rng.uniform(-0.12, 0.12)),
                                   turn_deg=float(rng.uniform(-4, 4)), aspect=style.geometry.aspect)
    lighting = Lighting(brightness=float(rng.uniform(0.7, 1.2)), gradient=float(rng.uniform(0, 0.4)),
                        gradient_deg=float(rng.uniform(0, 360)), blur=float(rng.uniform(0, 1.2)),
                        noise=float(rng.uniform(1, 6)), jpeg=80)
    return style, pose, lighting


def later_positions(style: BoardStyle, pose: CameraPose, lighting: Lighting, field, model: PointModel,
                    learned, rng: np.random.Generator, n: int = 15) -> dict[str, list[int]]:
    """Points right, points, boards right of ``n`` random positions, shipped and adapted."""
    colours = CheckerColours(learned.light, learned.dark)
    readers = {"shipped": BoardReader(field=field, point_model=model, colours=colours),
               "adapted": BoardReader(field=field, point_model=model.with_head(learned.head), colours=colours)}
    out = {k: [0, 0, 0] for k in readers}
    for i in range(n):
        r = render_board(random_state(rng, max_stack=7), style, pose, lighting,
                         stack="two_high" if rng.random() < 0.2 else "overlap", seed=1000 + i,
                         jitter=float(rng.uniform(0, 0.08)))
        truth = _rendered_truth(r)
        for k, reader in readers.items():
            s = score(reader.read_full(r.image).observation.to_dict(), truth)
            out[k][0] += s["point_ok"]
            out[k][1] += s["points"]
            out[k][2] += s["board_ok"]
    return out


def real_openings(data: pathlib.Path) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(name, image, corners)`` of the labelled photos under ``data`` that show the opening
    position (every point's count as in the opening)."""
    want = [OPENING_COUNTS.get(p, 0) for p in range(1, 25)]
    out = []
    for path in sorted((data / "labels").glob("*.json")):
        label = json.loads(path.read_text())
        truth = label_truth(label)
        if [n for n, _ in truth["points"]] == want:
            out.append((path.stem, load_image(data / label["file"]), truth["corners"]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--random", type=int, default=40, help="boards of random colours (default 40)")
    ap.add_argument("--seed", type=int, default=100, help="first random board's seed (default 100)")
    ap.add_argument("--data", type=pathlib.Path, default=ROOT.parent / "shared" / "data" / "boards",
                    help="labelled real photos (default ../shared/data/boards)")
    args = ap.parse_args(argv)
    model = PointModel()
    photos = real_openings(args.data) if (args.data / "labels").is_dir() else []
    for name, image, corners in photos:
        field = field_from_corners(corners, (image.shape[1], image.shape[0]))
        try:
            learned = learn_board(image, field, model)
        except BoardLearningError as exc:
            print(f"real photo {name}: refused: {exc}")
            continue
        print(f"real photo {name}: " + ("read right as shipped, nothing adapted" if learned.head is None else
                                        f"adapted: own compositions {learned.before:.3f} -> {learned.after:.3f}"))
    cases = []
    for s in range(args.seed, args.seed + args.random):
        cases.append((f"random {s}", *random_board(np.random.default_rng(s), f"random{s}"), s))
    for name, style in {**STYLES, **LOW_CONTRAST_STYLES}.items():
        for cond, (scale, lighting) in HARSH.items():
            pose = CameraPose.looking_down(scale=scale, tilt=0.05, aspect=style.geometry.aspect)
            cases.append((f"{name}, {cond}", style, pose, lighting, 3))
    kept = adapted = refused = 0
    for label, style, pose, lighting, seed in cases:
        opening = render_board(BoardState.starting(), style, pose, lighting, seed=seed)
        field = field_from_corners(opening.corners, pose.image_size)
        t0 = time.perf_counter()
        try:
            learned = learn_board(opening.image, field, model)
        except BoardLearningError as exc:
            refused += 1
            print(f"{label}: refused: {exc}")
            continue
        if learned.head is None:
            kept += 1
            continue
        adapted += 1
        later = later_positions(style, pose, lighting, field, model, learned, np.random.default_rng(seed))
        print(f"{label}: adapted in {time.perf_counter() - t0:.0f} s; later positions, points / boards right: "
              + ", ".join(f"{k} {v[0]}/{v[1]} / {v[2]}/15" for k, v in later.items()))
    print(f"openings read right as shipped (nothing adapted): {kept}/{len(cases)} "
          f"({args.random} random boards, {len(cases) - args.random} built-in styles under harsh conditions); "
          f"adapted {adapted}, refused {refused}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

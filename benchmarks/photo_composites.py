"""Positions laid out on a real empty board with real checkers: ``python
benchmarks/photo_composites.py [--data DIR] [--positions 30] [--seed 7] [--calibrate] [--keep DIR] [--json OUT]``.

The labelled photo of an empty board (``empty_board`` in its label; ``test4`` in
``../shared/data/boards``) is the board. Each other labelled photo gives its checkers: the first
five places of every readable point's line (no hand, die or cube near it) are cut out of the
photo's registered top-down field (:func:`vision.registration.warp_field`) as discs of a
checker's size, with their colour (``light`` / ``dark`` as ``companion read`` names them). For
each photo, ``--positions`` random positions (:func:`vision.render_board.random_state`: stacks
up to seven, some checkers on the bar) are laid out with those discs on the empty board's field,
a line of five squeezed closer for a taller stack, a disc taken to the other row turned half a
turn, and only the discs' pixels warped back into the empty board's photo. Each frame is read as
``companion read PHOTO --corners=...`` reads it (the learned reader) and, with ``--calibrate``,
as ``companion calibrate FRAME --corners=... --learn opening`` then ``companion read
--calibration`` read it (the profile made on the opening position laid out the same way).
Prints, per checker photo: points right (count and colour), points misread without being flagged
unreadable, boards right (every point and the bar).

What the figures measure: a real board's field and real checkers of another board, in
positions no photo shows, through the whole reader; no network saw either photo. What they do
not: the checkers' true contact with this board, its light on them, their shadows.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
from typing import Any, Optional

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: Places cut per point line (a line holds five checkers).
LINE = 5


class Discs:
    """One photo's checkers: ``patches[colour]`` list of (h, w, 3) uint8 BGR patches cut from its
    top-down field with their base at the bottom of the patch's row (a checker of the bottom row as
    seen; one of the top row turned half a turn), and ``mask`` the (h, w) float32 alpha of a disc
    in every patch."""

    def __init__(self, mask: np.ndarray) -> None:
        self.mask = mask
        self.patches: dict[str, list[np.ndarray]] = {"light": [], "dark": []}


def disc_mask(w: float, h: float, size: tuple[int, int]) -> np.ndarray:
    """(size[1], size[0]) float32 alpha of an ellipse of diameters ``w`` x ``h`` pixels, centred,
    its edge soft over a pixel."""
    ys, xs = np.mgrid[0:size[1], 0:size[0]].astype(np.float32)
    cx, cy = (size[0] - 1) / 2, (size[1] - 1) / 2
    r = np.sqrt(((xs - cx) / (w / 2)) ** 2 + ((ys - cy) / (h / 2)) ** 2)
    edge = 2.0 / max(w, h)
    return np.clip((1.0 - r) / edge + 0.5, 0.0, 1.0).astype(np.float32)


def centre_disc(top: np.ndarray, at: tuple[float, float], size: tuple[float, float]) -> Optional[tuple[float, float]]:
    """The centre of the checker nearest ``at`` in the top-down field ``top`` ((H, W, 3) uint8
    BGR; ``size`` a checker's (width, height) there): the circle OpenCV's Hough transform finds
    of about a checker's radius within a third of its width, or None (a photo's checkers do not
    lie exactly on the line's places: a cut there would take in the board beside it)."""
    import cv2

    cw, ch = size
    r = 0.25 * (cw + ch)
    x0, y0 = int(max(at[0] - 1.5 * cw, 0)), int(max(at[1] - 1.5 * ch, 0))
    x1, y1 = int(min(at[0] + 1.5 * cw, top.shape[1])), int(min(at[1] + 1.5 * ch, top.shape[0]))
    grey = cv2.GaussianBlur(cv2.cvtColor(top[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY), (3, 3), 0)
    circles = cv2.HoughCircles(grey, cv2.HOUGH_GRADIENT, dp=1, minDist=0.5 * r, param1=80, param2=12,
                               minRadius=int(0.85 * r), maxRadius=int(np.ceil(1.15 * r)))
    if circles is None:
        return None
    best = min(circles[0], key=lambda c: np.hypot(c[0] + x0 - at[0], c[1] + y0 - at[1]))
    x, y = float(best[0] + x0), float(best[1] + y0)
    return (x, y) if np.hypot(x - at[0], y - at[1]) <= cw / 3 else None


def cut_discs(image: np.ndarray, label: dict[str, Any]) -> Discs:
    """The checkers of a labelled photo (see the module's doc)."""
    from vision.evaluate import label_truth
    from vision.registration import field_from_corners, warp_field

    truth = label_truth(label)
    field = field_from_corners(truth["corners"], (image.shape[1], image.shape[0]), validate=False)
    top = warp_field(image, field)
    cw, ch = field.checker_size
    size = (int(np.ceil(cw)) + 2, int(np.ceil(ch)) + 2)
    objects = [d["xy"] for d in label.get("dice") or []] + ([label["cube"]["xy"]] if label.get("cube") else [])
    near_object = field.to_field(np.array(objects, float).reshape(-1, 2)) if objects else np.zeros((0, 2))
    out = Discs(disc_mask(cw, ch, size))
    for p in range(1, 25):
        n, colour = truth["points"][p - 1]
        if not n or p in truth["occluded"] or colour is None:
            continue
        g = field.point(p)
        for i in range(min(n, LINE) if n <= LINE else 1):
            cx, cy = g.centre_x, g.base_y + g.direction * (i + 0.5) * ch
            if len(near_object) and np.min(np.hypot(near_object[:, 0] - cx, near_object[:, 1] - cy)) < 1.5 * cw:
                continue
            found = centre_disc(top, (cx, cy), (cw, ch))
            if found is None:
                continue
            cx, cy = found
            x0, y0 = int(round(cx - size[0] / 2)), int(round(cy - size[1] / 2))
            if x0 < 0 or y0 < 0 or x0 + size[0] > top.shape[1] or y0 + size[1] > top.shape[0]:
                continue
            patch = top[y0:y0 + size[1], x0:x0 + size[0]].copy()
            if g.direction > 0:  # a top-row checker: turned to stand as the bottom row's do
                patch = patch[::-1, ::-1].copy()
            out.patches[colour].append(patch)
    return out


def labelled_photos(data: pathlib.Path) -> list[tuple[str, dict[str, Any], np.ndarray]]:
    """``(name, label, image)`` of each labelled photo under ``data`` (``labels/*.json`` and the
    images they name) that can be read and has its field's corners labelled, by name; the
    image (H, W, 3) uint8 BGR."""
    import cv2

    labels = sorted((data / "labels").glob("*.json")) if (data / "labels").is_dir() else []
    loaded = []
    for path in labels:
        label = json.loads(path.read_text())
        image = cv2.imread(str(data / label.get("file", "")))
        if image is not None and "corners" in label:
            loaded.append((path.stem, label, image))
    return loaded


def empty_board(loaded: list[tuple[str, dict[str, Any], np.ndarray]]) -> Optional[tuple[str, np.ndarray, np.ndarray, Any]]:
    """The first photo of ``loaded`` (:func:`labelled_photos`) labelled ``empty_board``:
    ``(name, image, corners, field)``, its (4, 2) labelled field corners (image pixels) and
    :class:`vision.registration.Field`; None when there is none."""
    from vision.evaluate import label_truth
    from vision.registration import field_from_corners

    boards = [x for x in loaded if x[1].get("empty_board")]
    if not boards:
        return None
    name, label, image = boards[0]
    corners = np.asarray(label_truth(label)["corners"], float)
    return name, image, corners, field_from_corners(corners, (image.shape[1], image.shape[0]), validate=False)


def lay_out(board: np.ndarray, field: Any, state: Any, discs: Discs, rng: np.random.Generator) -> np.ndarray:
    """``state`` (:class:`vision.render_board.BoardState`) laid out with ``discs`` on ``board``
    ((H, W, 3) uint8 BGR, the empty board's photo registered as ``field``): a new image."""
    import cv2

    from vision.registration import warp_field

    top = warp_field(board, field).astype(np.float32)
    alpha = np.zeros(top.shape[:2], np.float32)
    cw, ch = field.checker_size

    def paste(cx: float, cy: float, colour: str, turned: bool) -> None:
        patch, mask = discs.patches[colour][int(rng.integers(len(discs.patches[colour])))], discs.mask
        if turned:  # the disc is centred in its patch: its mask turns into itself
            patch = patch[::-1, ::-1]
        h, w = mask.shape
        x0, y0 = int(round(cx - w / 2)), int(round(cy - h / 2))
        xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + w, top.shape[1]), min(y0 + h, top.shape[0])
        if xa >= xb or ya >= yb:
            return
        m = mask[ya - y0:yb - y0, xa - x0:xb - x0, None]
        top[ya:yb, xa:xb] = top[ya:yb, xa:xb] * (1 - m) + patch[ya - y0:yb - y0, xa - x0:xb - x0] * m
        alpha[ya:yb, xa:xb] = np.maximum(alpha[ya:yb, xa:xb], m[..., 0])

    for p, (n, colour) in enumerate(state.points, start=1):
        if not n:
            continue
        g = field.point(p)
        step = ch if n <= LINE else ch * (LINE - 1) / (n - 1)
        for i in range(n):
            paste(g.centre_x, g.base_y + g.direction * (0.5 * ch + i * step), colour, g.direction > 0)
    mid = field.size[1] / 2
    bx = 0.5 * (field.bar_x0 + field.bar_x1)
    for colour, n in state.bar:
        sign = -1 if colour == "light" else 1  # light above the middle, dark below
        for i in range(n):
            paste(bx, mid + sign * (0.8 * ch + i * ch), colour, sign < 0)
    size = tuple(field.image_size)
    back = cv2.warpPerspective(top, field.inverse, size, flags=cv2.INTER_LINEAR)
    a = cv2.warpPerspective(alpha, field.inverse, size, flags=cv2.INTER_LINEAR)[..., None]
    return np.clip(board * (1 - a) + back * a, 0, 255).astype(np.uint8)


def score(obs: Any, state: Any) -> dict[str, int]:
    """Points right (count, and colour where there are checkers), misread without an
    unreadable flag, and the board right (every point and the bar) of ``obs``
    (:class:`companion.observation.Observation`) against ``state``, as
    :func:`vision.evaluate.score` scores them."""
    from vision.evaluate import score as evaluate_score

    s = evaluate_score(obs.to_dict(), {"points": list(state.points), "bar": dict(state.bar), "occluded": set()})
    return {"points": s["points"], "right": s["point_ok"], "unflagged": s["silent_misses"], "boards": 1,
            "boards_right": int(s["board_ok"])}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit code (2 when there is nothing to compose)."""
    import cv2

    from vision.reader import BoardReader
    from vision.render_board import BoardState, random_state

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = pathlib.Path(os.environ.get("COMPANION_SHARED_DATA", ROOT.parent / "shared" / "data")) / "boards"
    ap.add_argument("--data", type=pathlib.Path, default=default, help="labelled board photos (images/, labels/)")
    ap.add_argument("--positions", type=int, default=30, help="positions per checker photo")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--calibrate", action="store_true", help="also read with a profile made on the opening")
    ap.add_argument("--keep", type=pathlib.Path, default=None, help="write every frame made into this folder")
    ap.add_argument("--json", type=pathlib.Path, default=None, help="write the figures here")
    args = ap.parse_args(argv)
    if args.positions < 1:
        print("error: --positions must be at least 1", file=sys.stderr)
        return 2
    loaded = labelled_photos(args.data)
    found = empty_board(loaded)
    if found is None:
        print(f"error: no labelled empty board under {args.data}", file=sys.stderr)
        return 2
    board_name, board, corners, field = found
    reader = BoardReader(field=field)
    rows = []
    for name, label, image in loaded:
        if label.get("empty_board"):
            continue
        discs = cut_discs(image, label)
        if not discs.patches["light"] or not discs.patches["dark"]:
            print(f"{name}: not both checker sets readable, skipped")
            continue
        rng = np.random.default_rng(args.seed)
        row: dict[str, Any] = {"checkers": name, "discs": {k: len(v) for k, v in discs.patches.items()}}
        calibrated = None
        if args.calibrate:
            from vision.calibrate import CalibrationError, calibrate_board

            opening = lay_out(board, field, BoardState.starting(), discs, rng)
            try:
                from vision.learned_checkers import PointModel

                profile, _, learned = calibrate_board(opening, corners=corners, learn="opening")
                model = PointModel()
                if learned is not None and learned.head is not None:
                    model = model.with_head(learned.head)
                calibrated = BoardReader.from_profile(profile, (board.shape[1], board.shape[0]), point_model=model)
                row["calibration"] = "adapted" if learned is not None and learned.head is not None else "kept"
            except CalibrationError as exc:
                row["calibration"] = f"refused: {exc}"
        figures = {"as read": {}, "calibrated": {}}
        for k in range(args.positions):
            state = random_state(rng)
            frame = lay_out(board, field, state, discs, rng)
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(args.keep / f"{name}_{k:03d}.jpg"), frame)
            for mode, r in (("as read", reader), ("calibrated", calibrated)):
                if r is None:
                    continue
                for key, v in score(r.read(frame), state).items():
                    figures[mode][key] = figures[mode].get(key, 0) + v
        row.update(figures)
        rows.append(row)
        line = f"{name} on {board_name} ({row['discs']['light']}+{row['discs']['dark']} discs): "
        for mode in ("as read", "calibrated"):
            f = figures[mode]
            if f:
                line += (f"{mode} points {f['right']}/{f['points']}, misread unflagged {f['unflagged']}, "
                         f"boards {f['boards_right']}/{f['boards']}; ")
        if "calibration" in row:
            line += f"calibration {row['calibration']}"
        print(line, flush=True)
    for mode in ("as read", "calibrated"):
        sel = [r[mode] for r in rows if r[mode]]
        if sel:
            t = {k: sum(f[k] for f in sel) for k in sel[0]}
            print(f"all, {mode}: points {t['right']}/{t['points']} ({100 * t['right'] / t['points']:.2f}%), "
                  f"misread unflagged {t['unflagged']}, boards {t['boards_right']}/{t['boards']}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"command": "python benchmarks/photo_composites.py " + " ".join(argv or sys.argv[1:]),
                                         "board": board_name, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

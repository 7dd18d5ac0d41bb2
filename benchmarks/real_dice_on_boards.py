"""Real dice on real boards: ``python benchmarks/real_dice_on_boards.py [--boards DIR] [--dice DIR]
[--rolls 12] [--seed 3] [--fold 0] [--models DIR] [--json OUT] [--keep DIR]``.

Each die of the held-out fold (fold 0, :meth:`vision.dice_data.LabelledImage.fold`; none of the
networks that read a registered board was trained on it) of the nell-byler photos (coloured,
marbled and translucent dice photographed top-down on a grey card) is cut out of its photo
(:func:`vision.dice_cutouts.cut_die`: OpenCV's GrabCut inside its labelled box, holes filled) and
pasted (:func:`vision.dice_cutouts.paste_die`), turned and scaled, onto the labelled real board
photos of ``--boards`` (default ``../shared/data/boards``), which no network was trained on, as
rolls of two dice of one photo lying flat with a soft shadow. Per photo and for each of
``--rolls`` rolls, three frames are made with the same two dice:

- ``apart``: both dice in the open, 1.5-4 sides apart;
- ``touching``: the two dice side by side, face to face, their cut-outs 0-2 pixels apart (a
  cut-out may keep a rim of the grey card, so some pairs lie a little apart);
- ``by a checker``: one die against the end of a stack (0-2 pixels from its last checker), the
  other in the open;

the dice's side drawn from 0.3-0.8 of a checker's diameter (travel to jumbo dice), every die clear
of the stacks the label gives, the bar, the field's edges, points under a hand or a cup, and the
photo's own dice and cube. Each frame is read as ``companion read PHOTO --corners=...`` reads it
(:class:`vision.dice_plugin.DicePlugin`, the board registered from its labelled corners) and
again as a calibrated board reads it (``calibrated``): with the board's die-like marks learned
from the bare photo as ``companion calibrate`` learns them (:func:`vision.board_marks.find_marks`; the
label's checkers given as calibration gives the opening's, so a checker's printed mark moves with it)
and the dice's size known as ``--learn-dice`` gives it (``die_scale``: their side over the
board's die, :func:`vision.dice_size.board_die_px`; taken from the pasted dice, since the photos'
own dice, of other sizes, would enter a measurement). Prints, per kind of
frame and per band of dice size: dice read at all (located), dice read with the right value,
rolls read exactly (both dice with their values), pasted flat dice called cocked, and false dice
(a die read where no die lies, the photo's own dice excepted); then the dice read right per photo.

What the figures measure: real dice of many makers and materials against real boards' fields,
checkers and light; what they do not: a die's true contact with the board, its own reflections of
the board, the board's light on it (the dice keep the light of their photo) and cocked dice.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import sys
from typing import Any, Optional

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: The kinds of frames made of each roll, in order.
KINDS = ("apart", "touching", "by a checker")
#: Bands of the dice's side over a checker's diameter the figures are split by.
BANDS = ((0.3, 0.45), (0.45, 0.65), (0.65, 0.8))


class Board:
    """A labelled real board photo and where a die may lie on it: ``image`` (H, W, 3) uint8 BGR,
    ``field`` (:class:`vision.registration.Field` from its labelled corners), ``own_dice`` (N, 2)
    image centres of the photo's dice. Places are tested in the canonical field against the
    stacks of its label, the bar, the field's edge, the points a hand or cup covers (and their
    neighbours) and the photo's dice and cube."""

    def __init__(self, image: np.ndarray, label: dict[str, Any]) -> None:
        from vision.evaluate import label_truth
        from vision.registration import field_from_corners

        truth = label_truth(label)
        self.image = image
        self.name = pathlib.Path(label.get("file", "photo")).stem
        self.field = field_from_corners(truth["corners"], (image.shape[1], image.shape[0]), validate=False)
        cw, ch = self.field.checker_size
        self.checker = (cw, ch)
        self.stacks = []  # (point, x centre, base y, direction, count)
        self.blocked = []  # field rectangles ((x0, y0, x1, y1), the stack's point or None)
        covered = set()
        for p in truth["occluded"]:
            covered |= {q for q in (p - 1, p, p + 1) if (q - 1) // 12 == (p - 1) // 12}
        for p in range(1, 25):
            g = self.field.point(p)
            n = truth["points"][p - 1][0]
            if p in covered:
                self.blocked.append(((g.x0 - 0.2 * cw, 0.0, g.x1 + 0.2 * cw, float(self.field.size[1])), None))
                continue
            if n:
                reach = (min(n, 5) + (1 if n > 5 else 0)) * ch
                y_end = g.base_y + g.direction * reach
                self.blocked.append(((g.x0, min(g.base_y, y_end), g.x1, max(g.base_y, y_end)), p))
                if n <= 5:
                    self.stacks.append((p, g.centre_x, g.base_y, g.direction, n))
        self.blocked.append(((self.field.bar_x0, 0.0, self.field.bar_x1, float(self.field.size[1])), None))
        own = [d["xy"] for d in label.get("dice") or []]
        self.own_dice = np.array(own, float).reshape(-1, 2)
        cube = (label.get("cube") or {}).get("xy")
        self.objects = self.field.to_field(np.array(own + ([cube] if cube else []), float).reshape(-1, 2))

    def px_per_unit(self, at: np.ndarray) -> float:
        """Image pixels per canonical field unit (x) near the field point ``at`` (2,)."""
        a = self.field.to_image(np.array([at, at + (10.0, 0.0)]))
        return float(np.linalg.norm(a[1] - a[0])) / 10.0

    def free(self, at: np.ndarray, radius: float, ignore: Optional[int] = None) -> bool:
        """True when a die of ``radius`` field units (x) centred at the field point ``at`` lies on the
        field, clear of every blocked rectangle (``ignore``: a stack's point whose end it leans
        on), its objects and the bar."""
        x, y = float(at[0]), float(at[1])
        rx, ry = radius, radius * self.checker[1] / self.checker[0]
        if not (rx <= x <= self.field.size[0] - rx and ry <= y <= self.field.size[1] - ry):
            return False
        for (x0, y0, x1, y1), point in self.blocked:
            if x + rx > x0 and x - rx < x1 and y + ry > y0 and y - ry < y1 and (ignore is None or point != ignore):
                return False
        if len(self.objects):
            d = np.hypot(self.objects[:, 0] - x, (self.objects[:, 1] - y) * self.checker[0] / self.checker[1])
            if (d < radius + 1.2 * self.checker[0]).any():
                return False
        return True


def _open_spot(board: Board, rng: np.random.Generator, radius: float, tries: int = 300) -> Optional[np.ndarray]:
    fw, fh = board.field.size
    for _ in range(tries):
        at = np.array([rng.uniform(0, fw), rng.uniform(0, fh)])
        if board.free(at, radius):
            return at
    return None


def place_roll(board: Board, kind: str, ratio: float, yaws: tuple[float, float], rng: np.random.Generator,
               tries: int = 200) -> Optional[list[tuple[tuple[float, float], float, float]]]:
    """Two dice's ``(image centre, side in pixels, yaw degrees)`` on ``board`` for a frame of
    ``kind`` (:data:`KINDS`), the dice's side ``ratio`` times a checker's diameter; None when
    there is no room for them."""
    cw = board.checker[0]
    side_u = ratio * cw
    radius = 0.75 * side_u  # half the diagonal, and a little
    for _ in range(tries):
        if kind == "by a checker":
            if not board.stacks:
                return None
            p, cx, base, direction, n = board.stacks[int(rng.integers(len(board.stacks)))]
            ch = board.checker[1]
            # the die's half extent along the point, turned by its yaw, and a gap of 0-2 pixels
            half = 0.5 * side_u * (abs(math.cos(math.radians(yaws[0]))) + abs(math.sin(math.radians(yaws[0]))))
            gap = rng.uniform(0, 2) / board.px_per_unit(np.array([cx, base]))
            half_y = half * board.checker[1] / board.checker[0]
            first = np.array([cx + rng.uniform(-0.15, 0.15) * cw, base + direction * (n * ch + half_y + gap)])
            if not board.free(first, radius, ignore=p):
                continue
        else:
            first = _open_spot(board, rng, radius)
            if first is None:
                return None
        img1 = board.field.to_image(first)[0]
        scale = board.px_per_unit(first)
        side_px = side_u * scale
        if kind == "touching":
            yaw = yaws[0]
            theta = math.radians(-yaw + 90 * int(rng.integers(4)))
            img2 = img1 + (side_px + rng.uniform(0, 2)) * np.array([math.cos(theta), math.sin(theta)])
            second_yaw = yaw + rng.uniform(-4, 4)
        else:
            angle = rng.uniform(0, 2 * math.pi)
            img2 = img1 + rng.uniform(1.5, 4.0) * side_px * np.array([math.cos(angle), math.sin(angle)])
            second_yaw = yaws[1]
        second = board.field.to_field(img2[None])[0]
        if kind != "touching" and not board.free(second, radius):
            continue
        if kind == "touching" and not board.free(second, 0.55 * side_u):
            continue
        if board.field.half_of(float(first[0])) != board.field.half_of(float(second[0])) and kind != "by a checker":
            continue
        return [((float(img1[0]), float(img1[1])), side_px, yaws[0]),
                ((float(img2[0]), float(img2[1])), side_u * board.px_per_unit(second), second_yaw)]
    return None


def score_frame(dice: list, truth: list[tuple[tuple[float, float], float, int]], own: np.ndarray) -> dict[str, int]:
    """``located`` (pasted dice read, whatever their value), ``found`` (read with their value),
    ``cocked`` (pasted dice called cocked), ``exact`` (1 when both are read with their values), ``false`` (dice read near neither a pasted
    die nor one of the photo's own dice ``own`` (N, 2)) of one frame's readings ``dice``
    (:class:`vision.dice.DieReading`) against ``truth`` ((centre, side px, value) per pasted die)."""
    from vision.evaluate_dice import match

    pc = np.array([d.center for d in dice], float).reshape(-1, 2)
    gc = np.array([t[0] for t in truth], float).reshape(-1, 2)
    sides = np.array([t[1] for t in truth], float)
    pairs = match(pc, gc, sides, radius=0.6)
    found = sum(dice[i].value == truth[j][2] for i, j in pairs)
    cocked = sum(bool(dice[i].cocked) for i, j in pairs)
    rest = [i for i in range(len(dice)) if i not in {i for i, _ in pairs}]
    false = 0
    for i in rest:
        near_own = len(own) and np.min(np.hypot(*(own - pc[i]).T)) < 0.6 * float(sides.max()) * 2
        false += not near_own
    return {"located": len(pairs), "found": int(found), "cocked": int(cocked), "exact": int(found == len(truth) and len(pairs) == len(truth)),
            "false": int(false)}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit code (2 when there is nothing to read)."""
    import cv2

    from vision.board_marks import find_marks
    from vision.dice_cutouts import cut_dice, paste_die
    from vision.dice_data import DatasetError, load_dataset, with_die_boxes
    from vision.dice_plugin import DicePlugin
    from vision.dice_size import board_die_px

    shared = pathlib.Path(os.environ.get("COMPANION_SHARED_DATA", ROOT.parent / "shared" / "data"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=pathlib.Path, default=shared / "boards", help="labelled board photos")
    ap.add_argument("--dice", type=pathlib.Path, default=shared / "dice", help="labelled dice photos")
    ap.add_argument("--rolls", type=int, default=12, help="rolls per board photo")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--fold", type=int, choices=(0, 1), default=0,
                    help="the dice photos' fold to paste: 0 (default) held out of every network; 1, the fold the "
                         "networks were trained on, for choosing settings without reading fold 0")
    ap.add_argument("--models", type=pathlib.Path, default=None, help="folder with the ONNX models (default the shipped ones)")
    ap.add_argument("--json", type=pathlib.Path, default=None, help="write every frame's figures here")
    ap.add_argument("--keep", type=pathlib.Path, default=None, help="write every frame made into this folder")
    args = ap.parse_args(argv)
    if args.rolls < 1:
        print("error: --rolls must be at least 1", file=sys.stderr)
        return 2
    # GrabCut draws from OpenCV's random number generator: seeded as in a fresh process, the same
    # dice are cut out whatever ran before in this one (0 sets OpenCV's initial state)
    cv2.setRNGSeed(0)
    try:
        cut = cut_dice([it for it in with_die_boxes(load_dataset(args.dice / "nell-byler")) if it.fold() == args.fold])
    except DatasetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    labels = sorted((args.boards / "labels").glob("*.json")) if (args.boards / "labels").is_dir() else []
    if not cut or not labels:
        print(f"error: no {'dice' if not cut else 'labelled board photos'} to read", file=sys.stderr)
        return 2
    by_source: dict[str, list[Any]] = {}
    for d in cut:
        by_source.setdefault(d.source, []).append(d)
    print(f"{len(cut)} {'held-out' if args.fold == 0 else 'training-fold'} dice cut out of {len(by_source)} photos")
    try:
        DicePlugin(args.models)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    rows = []
    for label_path in labels:
        label = json.loads(label_path.read_text())
        image = cv2.imread(str(args.boards / label.get("file", "")))
        if image is None or "corners" not in label:
            continue
        board = Board(image, label)
        ch = board.checker[1]
        on_board = [(cx, base + direction * (i + 0.5) * ch) for _, cx, base, direction, n in board.stacks
                    for i in range(min(n, 5))]
        marks = find_marks([image], board.field, DicePlugin(args.models).reader, board_die_px(board.field, image.shape),
                           checkers=on_board)
        for r in range(args.rolls):
            source = list(by_source)[int(rng.integers(len(by_source)))]
            pool = by_source[source]
            pair = [pool[int(k)] for k in rng.choice(len(pool), 2, replace=len(pool) < 2)]
            ratio = float(rng.uniform(0.3, 0.8))
            yaws = (float(rng.uniform(0, 90)), float(rng.uniform(0, 90)))
            frames = {}
            for kind in KINDS:
                spots = place_roll(board, kind, ratio, yaws, rng)
                if spots is None:
                    continue
                frame = image.copy()
                for die, (centre, side, yaw) in zip(pair, spots):
                    paste_die(frame, die, centre, side, yaw)
                frames[kind] = (frame, [(centre, side, die.value) for die, (centre, side, _) in zip(pair, spots)])
            if "apart" not in frames:
                continue
            scale = frames["apart"][1][0][1] / board_die_px(board.field, image.shape)
            for kind, (frame, truth) in frames.items():
                row = {"photo": board.name, "roll": r, "kind": kind, "ratio": ratio, "source": source,
                       "values": [t[2] for t in truth], "die_scale": scale}
                if args.keep:
                    args.keep.mkdir(parents=True, exist_ok=True)
                    cv2.imwrite(str(args.keep / f"{board.name}_{r:02d}_{kind.replace(' ', '_')}.jpg"), frame)
                for mode, die_scale, known in (("as read", None, None), ("calibrated", scale, marks)):
                    plugin = DicePlugin(args.models, die_scale=die_scale, marks=known)
                    row[mode] = score_frame(plugin.dice(frame, board.field), truth, board.own_dice)
                rows.append(row)
        print(f"{board.name}: {sum(r['photo'] == board.name for r in rows)} frames", flush=True)
    for mode in ("as read", "calibrated"):
        print(f"\n{mode}: kind / dice side band: dice located, dice right, rolls exact, flat dice called cocked, "
              "false dice")
        for kind in KINDS:
            for lo, hi in (*BANDS, (0.3, 0.8)):
                sel = [r for r in rows if r["kind"] == kind and lo <= r["ratio"] < hi + (hi == 0.8)]
                if not sel:
                    continue
                f = {k: sum(r[mode][k] for r in sel) for k in ("located", "found", "exact", "cocked", "false")}
                print(f"  {kind:13s} {lo:.2f}-{hi:.2f}: {f['located']}, {f['found']}/{2 * len(sel)}, {f['exact']}/{len(sel)}, "
                      f"{f['cocked']}, {f['false']}")
    photos = sorted({r["photo"] for r in rows})
    print("\nper photo, dice right as read / calibrated: " + ", ".join(
        f"{p} {sum(r['as read']['found'] for r in rows if r['photo'] == p)}/"
        f"{sum(r['calibrated']['found'] for r in rows if r['photo'] == p)} of "
        f"{sum(len(r['values']) for r in rows if r['photo'] == p)}" for p in photos))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"command": "python benchmarks/real_dice_on_boards.py " + " ".join(argv or sys.argv[1:]),
                                         "frames": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Whole games on a real board photo with real checkers, through ``companion watch``: ``python
benchmarks/photo_games.py [--data DIR] [--games 1] [--first 600] [--checkers NAME...]
[--die-to-checker R] [--empty] [--keep DIR] [--json OUT]``.

The board is the labelled photo of an empty board (``empty_board`` in its label; ``test4`` in
``../shared/data/boards``: an oblique product photo, red and black points on a beige field); the
checkers are cut out of each other labelled photo as discs (``photo_composites.cut_discs``), one
checker photo's discs a game. The board's photo is rectified and seen again by a camera of the
game's own (``companion.demo.game_camera``: above the board, tilted, turned, off centre), as a
user's camera above the table sees it (:class:`PhotoBoard`). Each game is a scripted game of ``bench_rendered_games.game_script``
(illegal plays and corrections, cocked rolls, doubles, takes and drops, hands over the board while
checkers move), laid out scene by scene on the photo by :class:`PhotoBoard` (a checker that stays
where it is keeps its disc from scene to scene), its dice thrown anywhere in their half
(``companion.demo.render_scene`` with ``dice_scatter``: on points, against checkers and each
other, flat on top of a checker), drawn by ``vision.render_dice`` (the demo's red and white dice;
cocked dice lean 30 degrees) with the cube on the frame left of the field, and hands drawn over
them (:func:`vision.render_board.draw_hands`). A corrupt file and a half-size frame are slipped
in. The game is then calibrated as a user would calibrate it (``companion calibrate FRAME0
--corners=... --learn opening``; with ``--empty``, a frame of the empty board given too), its still
scenes read one by one with that profile, and its frames watched (``companion watch --calibration``)
and judged against the script, as ``bench_rendered_games.py --calibrate`` does for rendered boards.

What the figures measure: a real board's field, light and camera with real checkers of another
board, over whole games, through the whole product; no network saw either photo. What they do
not: the checkers' true contact with this board, its light on them and on the dice, the height of
the board's frame seen from another camera, a camera that moves, real dice and real hands.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_rendered_games import calibrate, game_script, judge_game, new_totals, report, slip_in_bad_frames, still_frames  # noqa: E402
from photo_composites import LINE, Discs, cut_discs, empty_board, labelled_photos  # noqa: E402

#: The rectified view of the board reaches this fraction of the field's width beyond its edges.
MARGIN = 0.15
#: The table's colour (BGR) where the board's photo does not reach.
TABLE = (90, 70, 50)


class PhotoBoard:
    """Draws a board state on a real empty board's photo with real checkers, seen by another
    camera, as a ``painter`` of :func:`companion.demo.render_scene`. ``board`` (H, W, 3) uint8 BGR
    registered as ``field`` (:class:`vision.registration.Field`) is rectified once to a view from
    straight above (the canonical field and :data:`MARGIN` of its width around it: the board's
    frame; what the photo does not show is the table's colour), the checkers ``discs``
    (:class:`photo_composites.Discs`) are laid out on that view, and the view is projected into a
    frame of ``pose`` (``vision.render_board.CameraPose``: a camera above the board, tilted and
    turned, the field where ``pose.corners`` puts it). A checker's disc is chosen by its colour,
    point and place in the stack, so checkers that stay where they are look the same from one
    scene to the next; stacks of more than :data:`photo_composites.LINE` are squeezed into the
    line, bar checkers stand on the bar above (light) and below (dark) the middle.
    ``checker_diameter``: a checker's width in canonical field units; ``checker_aspect``: its
    height over its width there."""

    def __init__(self, board: np.ndarray, field: Any, discs: Discs, pose: Any, seed: int = 0) -> None:
        import cv2

        self.field = field
        self.discs = discs
        self.pose = pose
        self.seed = seed
        self.checker_diameter = float(field.checker_size[0])
        self.checker_aspect = float(field.checker_size[1] / field.checker_size[0])
        self.margin = m = int(round(MARGIN * field.size[0]))
        shift = np.array([[1.0, 0, m], [0, 1.0, m], [0, 0, 1.0]])
        self.top = cv2.warpPerspective(board, shift @ field.homography, (field.size[0] + 2 * m, field.size[1] + 2 * m),
                                       flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=TABLE)
        w, h = field.size
        canon = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        self.field_to_image = cv2.getPerspectiveTransform(canon, np.array(pose.corners, np.float32)).astype(np.float64)

    def _disc(self, colour: str, point: int, place: int) -> np.ndarray:
        pool = self.discs.patches[colour]
        return pool[(self.seed * 7919 + point * 31 + place * 7) % len(pool)]

    def __call__(self, state: Any, seed: int = 0) -> Any:
        """``state`` (:class:`vision.render_board.BoardState`) on the photo: a
        :class:`vision.render_board.RenderedBoard` (its ``truth`` empty, its ``checkers`` the
        image centres of the checkers laid out); ``seed`` is not used (the discs are fixed)."""
        import cv2

        from vision.render_board import RenderedBoard

        field, m = self.field, self.margin
        top = self.top.astype(np.float32)
        cw, ch = field.checker_size
        mask = self.discs.mask
        placed: list[tuple[float, float, str, int]] = []

        def paste(cx: float, cy: float, colour: str, turned: bool, patch: np.ndarray, point: int) -> None:
            if turned:  # the disc is centred in its patch: its mask turns into itself
                patch = patch[::-1, ::-1]
            h, w = mask.shape
            x0, y0 = int(round(cx + m - w / 2)), int(round(cy + m - h / 2))
            xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + w, top.shape[1]), min(y0 + h, top.shape[0])
            if xa >= xb or ya >= yb:
                return
            a = mask[ya - y0:yb - y0, xa - x0:xb - x0, None]
            top[ya:yb, xa:xb] = top[ya:yb, xa:xb] * (1 - a) + patch[ya - y0:yb - y0, xa - x0:xb - x0] * a
            placed.append((cx, cy, colour, point))

        for p, (n, colour) in enumerate(state.points, start=1):
            g = field.point(p)
            step = ch if n <= LINE else ch * (LINE - 1) / (n - 1)
            for i in range(n):
                paste(g.centre_x, g.base_y + g.direction * (0.5 * ch + i * step), colour, g.direction > 0,
                      self._disc(colour, p, i), p)
        mid = field.size[1] / 2
        bx = 0.5 * (field.bar_x0 + field.bar_x1)
        for colour, n in state.bar:
            sign = -1 if colour == "light" else 1  # light above the middle, dark below
            for i in range(n):
                paste(bx, mid + sign * (0.8 * ch + i * ch), colour, sign < 0, self._disc(colour, 0, i), 0)
        unshift = np.array([[1.0, 0, -m], [0, 1.0, -m], [0, 0, 1.0]])
        image = cv2.warpPerspective(np.clip(top, 0, 255).astype(np.uint8), self.field_to_image @ unshift,
                                    tuple(self.pose.image_size), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_CONSTANT, borderValue=TABLE)
        h = self.field_to_image
        at = np.array([(x, y, 1.0) for x, y, _, _ in placed], float).reshape(-1, 3) @ h.T
        checkers = tuple((float(v[0] / v[2]), float(v[1] / v[2]), c, p) for v, (_, _, c, p) in zip(at, placed))
        return RenderedBoard(image=image, truth={}, corners=np.array(self.pose.corners, float), field_to_image=h,
                             checkers=checkers, hand_mask=np.zeros(image.shape[:2], bool))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit code (2 when there is nothing to compose)."""
    import cv2

    from companion.demo import DEMO_LAYOUT, demo_corners_arg, game_camera, render_script
    from vision.render_board import BoardState

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = pathlib.Path(os.environ.get("COMPANION_SHARED_DATA", ROOT.parent / "shared" / "data")) / "boards"
    ap.add_argument("--data", type=pathlib.Path, default=default, help="labelled board photos (images/, labels/)")
    ap.add_argument("--games", type=int, default=1, help="games per checker photo")
    ap.add_argument("--first", type=int, default=600, help="first game number (seed 1000 + N), one after another")
    ap.add_argument("--die-to-checker", type=float, default=None, metavar="R",
                    help="dice whose side is R times a checker's diameter (default: the demo's, 1/20 of the field)")
    ap.add_argument("--checkers", nargs="+", default=None, metavar="NAME",
                    help="only the checkers of these photos (label names, e.g. test8)")
    ap.add_argument("--empty", action="store_true", help="give calibration a frame of the empty board too (companion calibrate --empty)")
    ap.add_argument("--keep", type=pathlib.Path, default=None, help="keep each game's frames and events here")
    ap.add_argument("--json", default=None, help="write the figures here")
    args = ap.parse_args(argv)
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return 2
    loaded = labelled_photos(args.data)
    found = empty_board(loaded)
    if found is None:
        print(f"error: no labelled empty board under {args.data}", file=sys.stderr)
        return 2
    board_name, board, _, field = found
    totals = new_totals()
    differing: list = []
    all_differ: list = []
    g = args.first - 1
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or pathlib.Path(tmp)
        for name, label, image in loaded:
            if label.get("empty_board") or (args.checkers and name not in args.checkers):
                continue
            discs = cut_discs(image, label)
            if not discs.patches["light"] or not discs.patches["dark"]:
                print(f"{name}: not both checker sets readable, skipped")
                continue
            for _ in range(args.games):
                g += 1
                script = game_script(g)
                folder = root / f"game{g}_{name}"
                pose = game_camera(1000 + g)[0]
                corners_arg = demo_corners_arg(pose=pose)
                painter = PhotoBoard(board, field, discs, pose, seed=g)
                render_script(script, folder, die_to_checker=args.die_to_checker, dice_scatter=1000 + g, painter=painter)
                frames = slip_in_bad_frames(folder)
                empty = folder.parent / f"game{g}_{name}_empty.png"
                if args.empty:  # the empty board as this camera sees it
                    cv2.imwrite(str(empty), painter(BoardState(((0, None),) * 24, (("light", 0), ("dark", 0)),
                                                               (("light", 0), ("dark", 0)))).image)
                profile = root / f"game{g}_{name}.json"
                refused = calibrate(frames[0], corners_arg, profile, "--learn", "opening",
                                    *(["--empty", str(empty)] if args.empty else []))
                totals["games"] += 1
                if refused:
                    differing.append(f"game {g} ({name}'s checkers): calibration refused: {refused}")
                    print(differing[-1], flush=True)
                    continue
                still = still_frames(script, folder, profile, DEMO_LAYOUT, corners_arg)
                for k, v in still.items():
                    totals[k] += v
                judge_game(script, folder, ["--calibration", str(profile)], True, totals, differing, all_differ,
                           len(frames) + 2, f"game {g}", {"game": g, "checkers": name, "board": board_name},
                           keep=args.keep is not None)
    report(totals, differing, all_differ, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())

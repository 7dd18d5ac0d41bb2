"""A roll (and the cube) on a rendered board, flat or cocked, with the truth for
:mod:`vision.cocked`; and the cocked-dice evaluation on such boards.

Boards come from :mod:`vision.render_board`, dice and cubes from :mod:`vision.render_dice`.
A roll may be cocked: tilted (leaning on a checker, the rail or the bar, balanced on an edge),
on the bar, off the board, or in the wrong half.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Optional, Sequence

import numpy as np

from vision.render_dice import (CUBE_STYLES, CUBE_VALUES, DIE_STYLES, CubeLook, DieStyle, RenderedCube, RenderedDie,
                               RenderError, draw_cube, draw_die, style_as_under)

__all__ = ["RenderedRoll", "COCKED_KINDS", "LEAN_KINDS", "BoardScene", "random_board_scene",
           "lean_direction", "render_roll_on_board", "evaluate_cocked_rendered"]


@dataclasses.dataclass(frozen=True)
class RenderedRoll:
    """A board frame with a roll on it: ``image`` (H, W, 3) uint8 BGR, ``field``
    (:class:`vision.registration.Field`), ``roller`` (``"top"``/``"bottom"``: the image side of the
    player who rolled), ``dice`` (:class:`RenderedDie` truth, ``cocked``/``reason`` under the
    USBGF 2017 rules: a die flat on a checker is fine), ``cube`` (:class:`RenderedCube` or None),
    ``checkers`` ``(x, y, radius)`` image pixels, ``board_style`` the board's
    :data:`vision.render_board.STYLES` name."""

    image: np.ndarray
    field: Any
    roller: str
    dice: tuple[RenderedDie, ...]
    cube: Optional[RenderedCube]
    checkers: tuple[tuple[float, float, float], ...]
    board_style: str = ""


COCKED_KINDS = ("tilted", "on_bar", "off_board", "wrong_half")
#: How a tilted die is held up: ``"free"`` (on a corner or a small object), ``"checker"`` (one side
#: on a checker beside it), ``"rail"`` (against the field's edge or the bar), ``"edge"`` (balanced
#: on an edge, 40..50 degrees about an axis along one of its edges).
LEAN_KINDS = ("free", "checker", "rail", "edge")


@dataclasses.dataclass(frozen=True)
class BoardScene:
    """A rendered board ready for dice: ``image`` (H, W, 3) uint8 BGR (drawn into), ``field``
    (:class:`vision.registration.Field`), ``field_to_image`` (3, 3) homography from the canonical
    field, ``checkers`` ``(x, y, radius)`` image pixels (points and bar), ``die_units`` /
    ``die_px`` the die side in field units / image pixels, ``cam_height`` the camera's height above
    the image centre in pixels (``math.inf``: straight down, no parallax)."""

    image: np.ndarray
    field: Any
    field_to_image: np.ndarray
    checkers: tuple[tuple[float, float, float], ...]
    die_units: float
    die_px: float
    cam_height: float
    style: str = ""

    def to_image(self, fx: float, fy: float) -> tuple[float, float]:
        """Canonical field units -> image pixels."""
        p = self.field_to_image @ np.array([fx, fy, 1.0])
        return float(p[0] / p[2]), float(p[1] / p[2])

    def parallax(self, x: float, y: float) -> tuple[float, float]:
        """Image shift per unit of height (in die sides) at image pixel ``(x, y)``: away from the
        image centre, in proportion to the distance over the camera's height."""
        if not math.isfinite(self.cam_height):
            return 0.0, 0.0
        h, w = self.image.shape[:2]
        return (x - w / 2) / self.cam_height, (y - h / 2) / self.cam_height


def random_board_scene(rng: np.random.Generator,
                       die_to_checker: Optional[tuple[float, float]] = None, wide: bool = False) -> BoardScene:
    """A random board (:func:`vision.render_board.render_board`: random state, style, camera and
    lighting) at 1280x720 and a camera 1..2.5 image widths above it (straight down one time in six).

    The die's side is drawn uniformly from ``die_to_checker`` (low, high) times a checker's
    diameter (0.3: small travel dice; 0.8: jumbo dice); None: 1/30 of the field's width times
    0.85..1.2 (16 mm dice on a tournament board, 0.38..0.54 of a checker's diameter).
    ``wide``: the board is of random colours half the time (:func:`vision.render_board.random_style`),
    else a built-in style, and carries marks real boards carry: letters on the checkers, a maker's
    print on the field (:func:`vision.render_board.random_marks`); off, the built-in styles as they
    are, drawn from the same random numbers as always."""
    from vision.registration import field_from_corners
    from vision.render_board import STYLES, CameraPose, Lighting, random_marks, random_state, random_style, render_board

    style: Any = list(STYLES)[int(rng.integers(len(STYLES)))]
    if wide:
        style = random_marks(rng, random_style(rng) if rng.random() < 0.5 else STYLES[style])
    pose = CameraPose.looking_down(scale=float(rng.uniform(0.75, 0.92)), tilt=float(rng.uniform(-0.08, 0.08)),
                                   turn_deg=float(rng.uniform(-4, 4)),
                                   shift=(float(rng.uniform(-40, 40)), float(rng.uniform(-15, 15))))
    lighting = Lighting(brightness=float(rng.uniform(0.8, 1.15)), gradient=float(rng.uniform(0, 0.3)),
                        gradient_deg=float(rng.uniform(0, 360)), noise=float(rng.uniform(0, 4)),
                        blur=float(rng.uniform(0, 0.8)))
    board = render_board(random_state(rng), style=style, pose=pose, lighting=lighting, seed=int(rng.integers(1 << 30)))
    image = board.image
    h, w = image.shape[:2]
    field = field_from_corners(board.corners, (w, h))
    fw, fh = field.size
    f2i = np.asarray(board.field_to_image, dtype=np.float64)

    def to_img(x: float, y: float) -> np.ndarray:
        p = f2i @ np.array([x, y, 1.0])
        return p[:2] / p[2]

    px_per_unit = float(np.linalg.norm(to_img(fw / 2 + 10, fh / 2) - to_img(fw / 2, fh / 2))) / 10
    checker_r = field.checker_size[0] / 2 * px_per_unit
    checkers = tuple((x, y, checker_r) for x, y, _, p in board.checkers if 1 <= p <= 24 or p == 0)
    if die_to_checker is None:
        die_units = fw / 30.0 * float(rng.uniform(0.85, 1.2))
    else:
        die_units = field.checker_size[0] * float(rng.uniform(*die_to_checker))
    cam_height = math.inf if rng.random() < 1 / 6 else float(rng.uniform(1.0, 2.5)) * w
    return BoardScene(image, field, f2i, checkers, die_units, die_units * px_per_unit, cam_height,
                      style if isinstance(style, str) else style.name)


def lean_direction(toward: tuple[float, float]) -> float:
    """``tilt_dir_deg`` for :func:`draw_die` that raises the die's side facing the image direction
    ``toward`` (x right, y down; need not be unit length): the die leans on whatever lies there."""
    return math.degrees(math.atan2(-toward[0], -toward[1]))


def _lean_pose(rng: np.random.Generator, scene: BoardScene, lean: str, half: str, tilt_range: tuple[float, float],
               placed: Sequence[tuple[float, float]]) -> Optional[tuple[float, float, float, float, float]]:
    """``(x, y, tilt_deg, tilt_dir_deg, yaw_deg)`` for a die in ``half`` of the field held up as
    ``lean`` (:data:`LEAN_KINDS`), or None when there is no room for it."""
    field, s = scene.field, scene.die_px
    fw, fh = field.size
    u = scene.die_units
    lo, hi = tilt_range
    x0, x1 = (field.bar_x1, fw) if half == "right" else (0.0, field.bar_x0)
    h, w = scene.image.shape[:2]

    def free(x: float, y: float, margin: float) -> bool:
        if not (s < x < w - s and s < y < h - s):
            return False
        if any(math.hypot(x - a, y - b) < 1.8 * s for a, b in placed):
            return False
        return all(math.hypot(x - cx, y - cy) > r + margin for cx, cy, r in scene.checkers)

    yaw = float(rng.uniform(0, 360))
    for _ in range(100):
        if lean == "checker":
            mine = [c for c in scene.checkers
                    if field.image_half(field.to_field(np.array([[c[0], c[1]]]))[0][0]) == half]
            if not mine:
                return None
            cx, cy, r = mine[int(rng.integers(len(mine)))]
            a = rng.uniform(0, 2 * math.pi)
            x, y = cx + math.cos(a) * (r + 0.3 * s), cy + math.sin(a) * (r + 0.3 * s)
            # the die's side rests on the checker: only checkers at the die's own side may touch it
            others = [c for c in scene.checkers if c[:2] != (cx, cy)]
            if not (s < x < w - s and s < y < h - s) or any(math.hypot(x - a_, y - b_) < 1.8 * s for a_, b_ in placed) \
                    or any(math.hypot(x - ox, y - oy) < orr + 0.45 * s for ox, oy, orr in others):
                continue
            fx, fy = field.to_field(np.array([[x, y]]))[0]
            if field.image_half(fx) != half or not (u / 2 < fy < fh - u / 2):
                continue
            tilt = float(rng.uniform(max(lo, 8.0), min(hi, 28.0))) if hi > 8 else float(rng.uniform(lo, hi))
            return x, y, tilt, lean_direction((cx - x, cy - y)), yaw
        if lean == "rail":
            side = int(rng.integers(4))
            d = rng.uniform(0.5, 0.75) * u
            if side == 0:  # the far edge (top of the field)
                fx, fy, tx, ty = rng.uniform(x0 + u, x1 - u), d, 0.0, -1.0
            elif side == 1:  # the near edge
                fx, fy, tx, ty = rng.uniform(x0 + u, x1 - u), fh - d, 0.0, 1.0
            elif side == 2:  # the outer edge
                fx, fy, tx, ty = (fw - d, rng.uniform(u, fh - u), 1.0, 0.0) if half == "right" else \
                    (d, rng.uniform(u, fh - u), -1.0, 0.0)
            else:  # against the bar
                fx, fy, tx, ty = (x0 + d, rng.uniform(u, fh - u), -1.0, 0.0) if half == "right" else \
                    (x1 - d, rng.uniform(u, fh - u), 1.0, 0.0)
            x, y = scene.to_image(fx, fy)
            if not free(x, y, 0.75 * s):
                continue
            ex, ey = scene.to_image(fx + tx, fy + ty)
            return x, y, float(rng.uniform(lo, hi)), lean_direction((ex - x, ey - y)), yaw
        fx, fy = rng.uniform(x0 + u, x1 - u), rng.uniform(u, fh - u)
        x, y = scene.to_image(fx, fy)
        if not free(x, y, 0.75 * s):
            continue
        if lean == "edge":
            # about an axis along one of the die's edges (the yaw), 40..50 degrees when the range allows
            tilt = float(rng.uniform(max(lo, 40.0), min(hi, 50.0))) if hi >= 40 else float(rng.uniform(lo, hi))
            return x, y, tilt, yaw + 90.0 * int(rng.integers(4)), yaw
        return x, y, float(rng.uniform(lo, hi)), float(rng.uniform(0, 360)), yaw
    return None


def render_roll_on_board(rng: np.random.Generator, *, cocked_prob: float = 0.5,
                         kinds: Sequence[str] = COCKED_KINDS, on_checker_prob: float = 0.15,
                         tilt_range: tuple[float, float] = (8.0, 45.0),
                         cube_prob: float = 0.7, leans: Sequence[str] = LEAN_KINDS,
                         die_to_checker: Optional[tuple[float, float]] = None,
                         dice_styles: Sequence[DieStyle] = DIE_STYLES, wide: bool = False,
                         under_share: float = 0.0) -> RenderedRoll:
    """A random board (:func:`random_board_scene`) with a two-dice roll of the roller: with
    probability ``cocked_prob`` one die is cocked for a reason drawn from ``kinds``; a
    ``"tilted"`` die is tilted by ``tilt_range`` degrees and held up as one of ``leans``
    (:data:`LEAN_KINDS`: leaning on a checker or the rail, balanced on an edge, or free); a flat
    die rests on a checker with probability ``on_checker_prob``; a cube (half of them with a random
    :class:`CubeLook`) lies centred or on a player's side. ``die_to_checker``: the dice's size
    range (:func:`random_board_scene`); ``dice_styles``: the kinds of dice the roll's style is
    drawn from (one kind left out of training, or the only kind of an evaluation); ``wide``: the
    board of any colours and marks (:func:`random_board_scene`); ``under_share``: the chance that a
    die is the colour of what it lies on (:func:`vision.render_dice.style_as_under`). At their
    defaults the two draw no random numbers: a seed renders the roll it renders without them."""
    scene = random_board_scene(rng, die_to_checker, wide)
    image, field, checkers = scene.image, scene.field, scene.checkers
    h, w = image.shape[:2]
    fw, fh = field.size
    die_units, die_px = scene.die_units, scene.die_px
    checker_r = checkers[0][2] if checkers else die_px
    to_img = scene.to_image
    roller = "bottom" if rng.random() < 0.5 else "top"
    right = "right" if roller == "bottom" else "left"
    placed: list[tuple[float, float]] = []

    def clear_of_checkers(x: float, y: float, margin: float) -> bool:
        return all(math.hypot(x - cx, y - cy) > checker_r + margin for cx, cy, _ in checkers)

    def spot(kind: str) -> tuple[float, float, bool]:
        """Image position for a die of this kind; third item: resting on a checker."""
        for attempt in range(200):
            if kind in ("flat", "checker"):
                half = right
            elif kind == "wrong_half":
                half = "left" if right == "right" else "right"
            else:
                half = None
            if half is not None:
                x0, x1 = (field.bar_x1 + die_units, fw - die_units) if half == "right" else (die_units, field.bar_x0 - die_units)
                fx, fy = rng.uniform(x0, x1), rng.uniform(die_units, fh - die_units)
            elif kind == "on_bar":
                fx, fy = (field.bar_x0 + field.bar_x1) / 2, rng.uniform(fh * 0.1, fh * 0.9)
            else:  # off_board: on the frame beside the field, or below/above it
                side = int(rng.integers(3))
                if side == 0:
                    fx, fy = rng.choice([-1, 1]) * rng.uniform(0.04, 0.09) * fw + (0 if rng.random() < 0.5 else fw), rng.uniform(0.1, 0.9) * fh
                else:
                    fx, fy = rng.uniform(0.1, 0.9) * fw, (-1 if side == 1 else fh + 1) + (-1 if side == 1 else 1) * rng.uniform(0.03, 0.06) * fh
                if 0 <= fx < fw and 0 <= fy < fh:
                    continue
            x, y = to_img(fx, fy)
            if not (die_px < x < w - die_px and die_px < y < h - die_px):
                continue
            if any(math.hypot(x - a_, y - b_) < 1.8 * die_px for a_, b_ in placed):
                continue
            if kind == "checker":
                near = [c for c in checkers if math.hypot(x - c[0], y - c[1]) < 0.3 * checker_r]
                if not near:
                    continue
                return near[0][0], near[0][1], True
            if not clear_of_checkers(x, y, die_px * 0.75):
                continue
            return x, y, False
        raise RenderError(f"no room for a {kind} die")

    cocked_index = int(rng.integers(2)) if rng.random() < cocked_prob else -1
    truth = []
    style = dice_styles[int(rng.integers(len(dice_styles)))]
    for i in range(2):
        kind = str(rng.choice(list(kinds))) if i == cocked_index else "flat"
        if kind == "flat" and rng.random() < on_checker_prob and any(
                field.image_half(field.to_field(np.array([[c[0], c[1]]]))[0][0]) == right for c in checkers):
            kind = "checker"
        tilt, tilt_dir, yaw, on_chk = 0.0, float(rng.uniform(0, 360)), float(rng.uniform(0, 360)), False
        pose = None
        if kind == "tilted":
            lean = str(rng.choice(list(leans)))
            pose = _lean_pose(rng, scene, lean, right, tilt_range, placed)
            if pose is None and lean != "free":
                pose = _lean_pose(rng, scene, "free", right, tilt_range, placed)
        if pose is not None:
            x, y, tilt, tilt_dir, yaw = pose
        else:
            if kind == "tilted":
                kind = "flat"
            try:
                x, y, on_chk = spot(kind)
            except RenderError:
                x, y, on_chk = spot("flat")
                kind = "flat"
        reason = None if kind in ("flat", "checker") else kind
        die_style = style
        if under_share and rng.random() < under_share:
            die_style = style_as_under(rng, image[int(np.clip(y, 0, h - 1)), int(np.clip(x, 0, w - 1))])
        d = draw_die(image, (x, y), die_px, int(rng.integers(1, 7)), yaw_deg=yaw, tilt_deg=tilt,
                     tilt_dir_deg=tilt_dir, style=die_style, parallax=scene.parallax(x, y), reason=reason)
        d = dataclasses.replace(d, on_checker=on_chk)
        placed.append((x, y))
        truth.append(d)
    cube = None
    if rng.random() < cube_prob:
        place = str(rng.choice(["centre", "top", "bottom"]))
        fx = (field.bar_x0 + field.bar_x1) / 2
        fy = {"centre": 0.5, "top": 0.08, "bottom": 0.92}[place] * fh
        x, y = to_img(fx, fy)
        if all(math.hypot(x - a_, y - b_) > 2 * die_px for a_, b_ in placed):
            value = 64 if place == "centre" else int(rng.choice(CUBE_VALUES))
            cstyle = CUBE_STYLES[int(rng.integers(len(CUBE_STYLES)))]
            # a cube's size does not follow the dice's: 0.55..0.9 of a checker (large tournament cubes) beside dice of any size
            side = die_px * float(rng.uniform(1.2, 1.6)) if die_to_checker is None else 2 * checker_r * float(rng.uniform(0.55, 0.9))
            cube = draw_cube(image, (x, y), side, value, yaw_deg=rng.uniform(-20, 20),
                             style=cstyle, parallax=scene.parallax(x, y), place=place,
                             look=CubeLook.random(rng, cstyle) if rng.random() < 0.5 else CubeLook())
    return RenderedRoll(image, field, roller, tuple(truth), cube, checkers, scene.style)


def evaluate_cocked_rendered(n: int, reader: Any, seed: int = 1234, **kwargs: Any) -> dict[str, Any]:
    """Score dice reading and the cocked rule on ``n`` rendered boards (:func:`render_roll_on_board`).

    Returns counts and ``recall``/``precision`` of cocked calls over matched dice, per-reason
    catches, ``value_accuracy`` and ``found_rate``, cube value/place accuracy and false cubes (a cube
    reported on a board without one), and ``rolls``: the verdict per roll as the referee gives it
    (:mod:`companion.referee`; both dice are rolled again when one is cocked, USBGF rules 2017): a
    roll is called cocked when a die is judged cocked or when exactly one die is seen
    (``die_not_seen``: the other off the board or not flat); ``recall`` over rolls with a cocked
    die, ``precision`` over rolls called cocked; ``flat_exact``: flat rolls read exactly (both dice
    found with their values, neither called cocked, nothing else read as a die);
    ``flat_exact_by``: {"board_style" | "dice_style": {name: [flat rolls read exactly, flat rolls]}}.
    """
    from vision.cocked import TiltModel, judge_scan
    from vision.cube import CubeReader, cube_from_scan

    rng = np.random.default_rng(seed)
    try:
        tilt = TiltModel(getattr(reader, "models_dir", None))
    except FileNotFoundError:
        tilt = None
    try:
        cube_reader = CubeReader(getattr(reader, "models_dir", None))
    except FileNotFoundError:
        cube_reader = None
    tp = fp = fn = tn = 0
    found = correct = total = false = 0
    per_reason: dict[str, dict[str, int]] = {}
    cube_total = cube_found = cube_value = cube_place = cube_false = 0
    tilt_bins: dict[str, list[int]] = {}
    rolls = {"cocked": 0, "caught": 0, "flat": 0, "flat_called_cocked": 0, "caught_by_die_not_seen": 0,
             "flat_exact": 0}
    flat_by: dict[str, dict[str, list[int]]] = {}
    for _ in range(n):
        roll = render_roll_on_board(rng, **kwargs)
        cands, probs = reader.scan(roll.image, roll.field)
        judged = judge_scan(roll.image, cands, probs, reader, roll.field, roller=roll.roller, tilt_model=tilt)
        used = set()
        right = 0
        for t in roll.dice:
            total += 1
            best, bd = None, 0.6 * t.size
            for i, d in enumerate(judged):
                dd = math.hypot(d.center[0] - t.center[0], d.center[1] - t.center[1])
                if i not in used and dd < bd:
                    best, bd = i, dd
            key = t.reason or ("flat_on_checker" if t.on_checker else "flat")
            r = per_reason.setdefault(key, {"total": 0, "caught": 0, "found": 0})
            r["total"] += 1
            if best is None:
                fn += t.cocked
                continue
            used.add(best)
            d = judged[best]
            found += 1
            r["found"] += 1
            correct += d.value == t.value
            right += d.value == t.value and d.cocked == t.cocked
            if t.cocked:
                tp += d.cocked; fn += not d.cocked
                r["caught"] += d.cocked
                if t.reason == "tilted":
                    b = f"{int(t.tilt_deg // 10 * 10)}-{int(t.tilt_deg // 10 * 10 + 10)}"
                    tilt_bins.setdefault(b, [0, 0])
                    tilt_bins[b][0] += 1; tilt_bins[b][1] += d.cocked
            else:
                fp += d.cocked; tn += not d.cocked
                r["caught"] += d.cocked  # flat dice "caught" = wrongly called cocked
        false += len(judged) - len(used)
        called = any(d.cocked for d in judged) or len(judged) == 1
        if any(t.cocked for t in roll.dice):
            rolls["cocked"] += 1
            rolls["caught"] += called
            rolls["caught_by_die_not_seen"] += called and not any(d.cocked for d in judged)
        else:
            rolls["flat"] += 1
            rolls["flat_called_cocked"] += called
            exact = right == len(roll.dice) == len(judged)
            rolls["flat_exact"] += exact
            for key, name in (("board_style", roll.board_style), ("dice_style", roll.dice[0].style)):
                row = flat_by.setdefault(key, {}).setdefault(name, [0, 0])
                row[0] += exact
                row[1] += 1
        cr = None if cube_reader is None else cube_from_scan(roll.image, cands, probs, roll.field, cube_reader, reader)
        if roll.cube is None and cr is not None:
            cube_false += 1
        if roll.cube is not None and cube_reader is not None:
            cube_total += 1
            if cr is not None and math.hypot(cr.center[0] - roll.cube.center[0], cr.center[1] - roll.cube.center[1]) < roll.cube.size:
                cube_found += 1
                cube_value += cr.value == roll.cube.value
                cube_place += cr.place == roll.cube.place
    return {
        "boards": n, "dice": total, "cocked": tp + fn, "found": found, "false_dice": false,
        "found_rate": found / total if total else None,
        "value_accuracy": correct / found if found else None,
        "true_positive": tp, "false_positive": fp, "false_negative": fn, "true_negative": tn,
        "recall": tp / (tp + fn) if tp + fn else None,
        "precision": tp / (tp + fp) if tp + fp else None,
        "per_reason": per_reason,
        "tilt_bins_total_caught": tilt_bins,
        "rolls": {**rolls, "recall": rolls["caught"] / rolls["cocked"] if rolls["cocked"] else None,
                  "precision": (rolls["caught"] / (rolls["caught"] + rolls["flat_called_cocked"])
                                if rolls["caught"] + rolls["flat_called_cocked"] else None)},
        "flat_exact_by": flat_by,
        "cube": {"boards_with_cube": cube_total, "found": cube_found, "value_correct": cube_value,
                 "place_correct": cube_place, "false_cubes": cube_false, "boards_without_cube": n - cube_total},
    }

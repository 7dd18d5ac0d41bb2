"""Two dice lying against each other on a rendered board, with the same dice well apart and one
die alone on the same board, for measuring whether touching dice are read as two dice
(:func:`evaluate_touching`).

Boards come from :func:`vision.render_roll.random_board_scene`, dice from
:func:`vision.render_dice.draw_die`. The dice's footprints (their bottom faces on the board) are
``gap`` 0..2 pixels apart, each die turned at its own yaw, sides 0.3..0.8 of a checker's diameter;
the pair lies on the field clear of the checkers (on the points or between them) or over the
checkers (resting on them).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from vision.render_dice import DIE_STYLES, DieStyle, RenderedDie, RenderError, draw_die
from vision.render_roll import random_board_scene

__all__ = ["TouchingScene", "PLACES", "footprint", "footprint_gap", "touching_offset", "render_touching",
           "evaluate_touching", "format_touching"]

#: Where a pair lies: ``"field"`` on the playing field clear of the checkers, ``"checker"`` its
#: middle on a checker (the dice rest on the checkers around it).
PLACES = ("field", "checker")


@dataclasses.dataclass(frozen=True)
class TouchingScene:
    """One board drawn four times: ``touching`` (H, W, 3) uint8 BGR with two dice whose
    footprints are ``gap`` pixels apart, ``apart`` with the same two dice (sizes, yaws, values)
    two to four sides farther apart, ``single`` with the first die alone, ``empty`` without dice; ``truth_*`` the
    :class:`RenderedDie` of each image; ``field`` (:class:`vision.registration.Field`),
    ``place`` (:data:`PLACES`), ``size_ratio`` the dice's side over a checker's diameter."""

    touching: np.ndarray
    apart: np.ndarray
    single: np.ndarray
    empty: np.ndarray
    truth_touching: tuple[RenderedDie, ...]
    truth_apart: tuple[RenderedDie, ...]
    truth_single: tuple[RenderedDie, ...]
    field: Any
    place: str
    gap: float
    size_ratio: float


def footprint(center: tuple[float, float], size: float, yaw_deg: float) -> np.ndarray:
    """(4, 2) image corners (pixels, in order round the square) of the bottom face of a flat die
    drawn by :func:`vision.render_dice.draw_die` at ``center`` with side ``size`` and ``yaw_deg``
    (straight down, no parallax: x right, y down the image)."""
    y = math.radians(yaw_deg)
    c, s = math.cos(y), math.sin(y)
    square = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    x = square[:, 0] * c - square[:, 1] * s
    up = square[:, 0] * s + square[:, 1] * c
    return np.stack([center[0] + size * x, center[1] - size * up], axis=1)


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = float(np.clip(np.dot(p - a, ab) / max(float(np.dot(ab, ab)), 1e-12), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * ab)))


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether the convex polygons ``a`` and ``b`` ((N, 2), (M, 2)) overlap (separating axes)."""
    for poly in (a, b):
        for i in range(len(poly)):
            edge = poly[(i + 1) % len(poly)] - poly[i]
            normal = np.array([-edge[1], edge[0]])
            pa, pb = a @ normal, b @ normal
            if pa.max() <= pb.min() or pb.max() <= pa.min():
                return False
    return True


def footprint_gap(a: np.ndarray, b: np.ndarray) -> float:
    """The shortest distance (pixels) between the convex polygons ``a`` and ``b`` ((N, 2), (M, 2)
    corners in order); 0 when they overlap."""
    if _overlap(a, b):
        return 0.0
    best = math.inf
    for p, q in ((a, b), (b, a)):
        for v in p:
            for i in range(len(q)):
                best = min(best, _segment_distance(v, q[i], q[(i + 1) % len(q)]))
    return best


def touching_offset(size: float, yaw_a: float, yaw_b: float, direction_deg: float, gap: float) -> tuple[float, float]:
    """Image offset (pixels) from die A's centre to die B's, both of side ``size`` and at their
    yaws (degrees), along ``direction_deg`` (0 right, 90 down the image), such that their
    footprints (:func:`footprint`) are ``gap`` >= 0 pixels apart. Found by bisection to 0.01 pixel.
    Raises ``ValueError`` for a negative gap or a side not above 0."""
    if gap < 0 or not size > 0:
        raise ValueError(f"need gap >= 0 and size > 0, got gap {gap}, size {size}")
    ux, uy = math.cos(math.radians(direction_deg)), math.sin(math.radians(direction_deg))
    fa = footprint((0.0, 0.0), size, yaw_a)

    def gap_at(d: float) -> float:
        return footprint_gap(fa, footprint((d * ux, d * uy), size, yaw_b))

    lo, hi = 0.0, 2.0 * size + gap + 1.0
    while hi - lo > 0.01:
        mid = (lo + hi) / 2
        if gap_at(mid) > gap:
            hi = mid
        else:
            lo = mid
    return hi * ux, hi * uy


def render_touching(rng: np.random.Generator, *, gap_range: tuple[float, float] = (0.0, 2.0),
                    size_range: tuple[float, float] = (0.3, 0.8), places: Sequence[str] = PLACES,
                    dice_styles: Sequence[DieStyle] = DIE_STYLES) -> TouchingScene:
    """A random board (:func:`vision.render_roll.random_board_scene`) with two flat dice of one
    style (drawn from ``dice_styles``), each at its own random yaw and value, footprints ``gap_range`` pixels apart, sides
    ``size_ratio`` (drawn from ``size_range``) times a checker's diameter, lying as one of
    ``places``; the same dice drawn apart and the first alone on copies of the board.
    Raises :class:`vision.render_dice.RenderError` when no spot for the pair is found on the board
    (rare; draw again)."""
    scene = random_board_scene(rng)
    h, w = scene.image.shape[:2]
    field = scene.field
    fw, fh = field.size
    checker_d = 2 * scene.checkers[0][2] if scene.checkers else 2 * scene.die_px
    ratio = float(rng.uniform(*size_range))
    size = ratio * checker_d
    style = dice_styles[int(rng.integers(len(dice_styles)))]
    place = str(rng.choice(list(places)))
    if place == "checker" and not scene.checkers:
        place = "field"
    gap = float(rng.uniform(*gap_range))
    values = [int(rng.integers(1, 7)) for _ in range(2)]
    yaws = [float(rng.uniform(0, 360)) for _ in range(2)]

    def on_field(x: float, y: float) -> bool:
        if not (size < x < w - size and size < y < h - size):
            return False
        fx, fy = field.to_field(np.array([[x, y]]))[0]
        u = size / max(scene.die_px, 1e-6) * scene.die_units
        return u / 2 < fx < fw - u / 2 and u / 2 < fy < fh - u / 2 and not field.bar_x0 - u / 2 < fx < field.bar_x1 + u / 2

    def clear(x: float, y: float) -> bool:
        return all(math.hypot(x - cx, y - cy) > r + 0.75 * size for cx, cy, r in scene.checkers)

    def spot_ok(centres: Sequence[tuple[float, float]]) -> bool:
        return all(on_field(x, y) for x, y in centres) and (place == "checker" or all(clear(x, y) for x, y in centres))

    for _ in range(300):
        direction = float(rng.uniform(0, 360))
        dx, dy = touching_offset(size, yaws[0], yaws[1], direction, gap)
        if place == "checker":
            cx, cy, _ = scene.checkers[int(rng.integers(len(scene.checkers)))]
        else:
            cx, cy = scene.to_image(float(rng.uniform(0, fw)), float(rng.uniform(0, fh)))
        a = (cx - dx / 2, cy - dy / 2)
        b = (cx + dx / 2, cy + dy / 2)
        far = float(rng.uniform(2.0, 4.0)) * size
        b_apart = (a[0] + dx + far * math.cos(math.radians(direction)), a[1] + dy + far * math.sin(math.radians(direction)))
        if spot_ok([a, b, b_apart]):
            break
    else:
        raise RenderError("no room for two touching dice")

    def draw(centres: Sequence[tuple[float, float]]) -> tuple[np.ndarray, tuple[RenderedDie, ...]]:
        image = scene.image.copy()
        truth = tuple(draw_die(image, c, size, v, yaw_deg=yaw, style=style, parallax=scene.parallax(*c))
                      for c, v, yaw in zip(centres, values, yaws))
        return image, truth

    touching, t_touching = draw([a, b])
    apart, t_apart = draw([a, b_apart])
    single, t_single = draw([a])
    return TouchingScene(touching, apart, single, scene.image.copy(), t_touching, t_apart, t_single, field, place, gap, ratio)


def _exact(read: Sequence[Any], truth: Sequence[RenderedDie]) -> tuple[bool, bool]:
    """(as many dice read as drawn, and each drawn die matched one to one by a reading within half
    its side with its value)."""
    if len(read) != len(truth):
        return False, False
    free = list(read)
    for t in truth:
        near = [d for d in free if math.hypot(d.center[0] - t.center[0], d.center[1] - t.center[1]) < 0.5 * t.size
                and d.value == t.value]
        if not near:
            return True, False
        free.remove(near[0])
    return True, True


def evaluate_touching(n: int, reads: Mapping[str, Callable[[np.ndarray, Any], Sequence[Any]]], seed: int = 2600,
                      calibrations: Optional[Mapping[str, Callable[[TouchingScene], None]]] = None,
                      **kwargs: Any) -> dict[str, dict[str, Any]]:
    """Read ``n`` :func:`render_touching` scenes (``kwargs`` passed on; seeded by ``seed``) with
    each of ``reads`` (name -> ``read(image, field) -> list[DieReading]``) and count, per reader,
    for the touching pair, the same pair apart, the single die and the board without dice: ``count`` frames with exactly as
    many dice read as drawn and ``exact`` those whose every die is matched with its value (centre
    within half a side); also per place and per size band (side over a checker's diameter:
    0.30-0.45, 0.45-0.65, 0.65-0.80). A board with no room for the pair is drawn again
    (``redrawn`` counts them). ``calibrations``: name -> a function called with each scene before
    that reader reads it (a calibration learned on the scene's ``apart`` frame, say). Returns
    name -> counts (:func:`format_touching` prints them)."""
    rng = np.random.default_rng(seed)
    kinds = ("touching", "apart", "single", "empty")
    out = {name: {"scenes": 0, "redrawn": 0, **{k: {"count": 0, "exact": 0} for k in kinds},
                  "by_place": {}, "by_size": {}} for name in reads}
    done = 0
    while done < n:
        try:
            sc = render_touching(rng, **kwargs)
        except RenderError:
            for res in out.values():
                res["redrawn"] += 1
            continue
        done += 1
        band = "0.30-0.45" if sc.size_ratio < 0.45 else ("0.45-0.65" if sc.size_ratio < 0.65 else "0.65-0.80")
        for name, read in reads.items():
            if calibrations and name in calibrations:
                calibrations[name](sc)
            res = out[name]
            res["scenes"] += 1
            for kind, image, truth in zip(kinds, (sc.touching, sc.apart, sc.single, sc.empty),
                                          (sc.truth_touching, sc.truth_apart, sc.truth_single, ())):
                count, exact = _exact(read(image, sc.field), truth)
                res[kind]["count"] += count
                res[kind]["exact"] += exact
                for table, key in (("by_place", sc.place), ("by_size", band)):
                    row = res[table].setdefault(key, {k: {"scenes": 0, "exact": 0} for k in kinds})
                    row[kind]["scenes"] += 1
                    row[kind]["exact"] += exact
    return out


def format_touching(name: str, res: dict[str, Any]) -> str:
    """The lines one reader's result of :func:`evaluate_touching` is printed as."""
    n = res["scenes"]
    lines = [f"== {name}: {n} boards ({res['redrawn']} redrawn for lack of room)"]
    for kind in ("touching", "apart", "single", "empty"):
        r = res[kind]
        lines.append(f"  {kind:8s} exactly right {r['exact']:4d}/{n} ({100 * r['exact'] / max(n, 1):5.1f}%)  "
                     f"right number of dice {r['count']:4d}/{n}")
    for table in ("by_place", "by_size"):
        for key, row in sorted(res[table].items()):
            cells = "  ".join(f"{k} {row[k]['exact']}/{row[k]['scenes']}" for k in ("touching", "apart", "single", "empty"))
            lines.append(f"  {table[3:]} {key:9s} {cells}")
    return "\n".join(lines)

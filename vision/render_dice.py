"""Synthetic dice and doubling cubes, flat or cocked, drawn onto any image, with ground truth.

A die is a unit cube with rounded-looking faces (a face texture: body colour and pips, or the
cube's numbers) posed in 3-D (yaw about the vertical, then a tilt about a horizontal axis), seen by
an orthographic camera whose view may lean by ``oblique`` (the image y shift per unit of height,
0 straight down). Visible faces are drawn back to front with Lambert shading, after a soft shadow.

- :func:`draw_die` / :func:`draw_cube` draw one onto an image (in place) and return a
  :class:`RenderedDie` / :class:`RenderedCube` with the ground truth.
- :func:`render_roll_on_board` puts a roll (and the cube) on a board from
  :mod:`vision.render_board`, flat or cocked (tilted, on the bar, on the rail or off the board,
  in the wrong half, on a checker) and returns the truth for :mod:`vision.cocked`.
- :func:`synthetic_training_images` makes plain-background photos of many dice (training aid).

Tilts: ``tilt_deg`` 0 is flat; a few degrees leans on something; 45 is balanced on an edge.
The value of a tilted die is the face that points most upwards.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Optional, Sequence

import numpy as np

from vision.backgrounds import random_background
from vision.render_distractors import draw_distractors

BGR = tuple[int, int, int]

#: Pip positions on a face, in face units (0..1, y down).
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)),
}

CUBE_VALUES = (2, 4, 8, 16, 32, 64)


class RenderError(ValueError):
    """A die or cube that cannot be drawn (bad value, size or position)."""


@dataclasses.dataclass(frozen=True)
class DieStyle:
    """Colours of a die (BGR uint8 triples); ``alpha`` < 1 for translucent dice; ``marble``: a
    second body colour swirled through the first in veins (marbled dice), their pattern drawn from
    ``marble_seed``; ``ghost`` 0..1: how strongly the hidden faces' pips show through a
    translucent die's faces (blurred: the opposite face's mirrored and smaller, the side faces'
    squeezed along the edges, as on smoky translucent dice; 0: not at all)."""

    name: str
    body: BGR
    pips: BGR
    alpha: float = 1.0
    pip_scale: float = 1.0
    marble: Optional[BGR] = None
    marble_seed: int = 0
    ghost: float = 0.0


DIE_STYLES: tuple[DieStyle, ...] = (
    DieStyle("white", (235, 238, 240), (25, 25, 25)),
    DieStyle("ivory", (200, 228, 240), (30, 30, 40)),
    DieStyle("black", (30, 30, 32), (235, 235, 235)),
    DieStyle("red", (40, 40, 190), (240, 240, 240)),
    DieStyle("green", (60, 140, 40), (240, 240, 240)),
    DieStyle("blue", (150, 70, 30), (240, 240, 240)),
    DieStyle("yellow", (40, 200, 230), (20, 20, 20)),
    DieStyle("translucent-red", (50, 40, 200), (245, 245, 245), alpha=0.8),
    DieStyle("gold", (60, 160, 200), (20, 20, 20), pip_scale=0.85),
    DieStyle("brown", (40, 70, 110), (230, 240, 245)),
)

CUBE_STYLES: tuple[DieStyle, ...] = (
    DieStyle("cube-white", (230, 235, 238), (30, 30, 30)),
    DieStyle("cube-ivory", (195, 225, 238), (20, 20, 120)),
    DieStyle("cube-black", (35, 35, 35), (230, 230, 230)),
    DieStyle("cube-gold", (70, 170, 210), (25, 25, 25)),
)


@dataclasses.dataclass(frozen=True)
class RenderedDie:
    """Ground truth of one drawn die: ``value`` 1..6 (the face most upwards), ``center`` of the top
    face and ``box`` of the whole die in image pixels, ``size`` the die's side in pixels,
    ``tilt_deg`` (0 flat), ``cocked`` and ``reason`` (``None``, ``"tilted"``, ``"on_bar"``,
    ``"off_board"``, ``"wrong_half"``, ``"on_checker"``), ``style`` name."""

    value: int
    center: tuple[float, float]
    box: tuple[float, float, float, float]
    size: float
    tilt_deg: float = 0.0
    cocked: bool = False
    reason: Optional[str] = None
    style: str = "white"
    on_checker: bool = False


@dataclasses.dataclass(frozen=True)
class RenderedCube:
    """Ground truth of the drawn doubling cube: ``value`` on top, ``center`` (image pixels),
    ``place`` (``"centre"``, ``"top"``, ``"bottom"``), ``size`` in pixels."""

    value: int
    center: tuple[float, float]
    place: str
    size: float


# ----------------------------------------------------------------------------- textures
def die_face_texture(value: int, style: DieStyle, side: int = 64) -> np.ndarray:
    """(side, side, 3) uint8 BGR face of a die showing ``value`` pips (1..6)."""
    import cv2

    if value not in PIPS:
        raise RenderError(f"a die face shows 1..6 pips, not {value}")
    tex = np.empty((side, side, 3), np.uint8)
    tex[:] = style.body
    if style.marble is not None:
        # veins: where a smooth random field crosses a few levels, the second colour shows
        field = np.random.default_rng(style.marble_seed * 6 + value).random((6, 6)).astype(np.float32)
        field = cv2.resize(field, (side, side), interpolation=cv2.INTER_CUBIC)
        veins = (0.5 + 0.5 * np.cos(field * 4.0 * math.pi)) ** 3
        tex[:] = np.clip(np.array(style.body, np.float32) * (1 - veins[..., None])
                         + np.array(style.marble, np.float32) * veins[..., None], 0, 255).astype(np.uint8)
    r = max(int(round(side * 0.085 * style.pip_scale)), 1)
    if style.ghost > 0:
        _ghost_pips(tex, value, style, r)
    for fx, fy in PIPS[value]:
        cv2.circle(tex, (int(round(fx * side)), int(round(fy * side))), r, style.pips, -1, cv2.LINE_AA)
    return tex


def _ghost_pips(tex: np.ndarray, value: int, style: DieStyle, r: int) -> None:
    """Blend into ``tex`` (side x side x 3 uint8, in place) the hidden faces' pips as a translucent
    die shows them behind the face of ``value``: the opposite face's (7 - value) mirrored and
    shrunk towards the centre, the four side faces' squeezed into bands along the edges, blurred,
    at ``style.ghost`` strength."""
    import cv2

    side = tex.shape[0]
    mask = np.zeros((side, side), np.float32)
    for fx, fy in PIPS[7 - value]:
        x, y = 0.5 + 0.72 * (0.5 - fx), 0.5 + 0.72 * (fy - 0.5)
        cv2.circle(mask, (int(round(x * side)), int(round(y * side))), max(int(round(r * 0.85)), 1), 1.0, -1,
                   cv2.LINE_AA)
    sides = [v for v in (1, 2, 3, 4, 5, 6) if v not in (value, 7 - value)]
    for k, v in enumerate(sides):  # edges: top, right, bottom, left
        for fx, fy in PIPS[v]:
            along, depth = fx, 0.04 + 0.16 * fy
            x, y = [(along, depth), (1 - depth, along), (1 - along, 1 - depth), (depth, 1 - along)][k]
            axes = (max(int(round(r * 0.9)), 1), max(int(round(r * 0.35)), 1))
            cv2.ellipse(mask, (int(round(x * side)), int(round(y * side))), axes if k % 2 == 0 else axes[::-1],
                        0, 0, 360, 0.6, -1, cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), side * 0.03) * style.ghost
    out = tex.astype(np.float32) * (1 - mask[..., None]) + np.array(style.pips, np.float32) * mask[..., None]
    tex[:] = np.clip(out, 0, 255).astype(np.uint8)


@dataclasses.dataclass(frozen=True)
class CubeLook:
    """How a doubling cube's faces are printed: ``font`` (an OpenCV Hershey font), ``weight``
    (stroke thickness relative to the face), ``disc`` (BGR of a disc behind the number, or None),
    ``logo`` (the 64 face carries a maker's logo instead of the number: letters in a frame),
    ``scale`` (size of the number relative to the default), ``rim`` (BGR of a band along the face's
    edges, or None)."""

    font: int = 2  # cv2.FONT_HERSHEY_DUPLEX
    weight: float = 1.0
    disc: Optional[BGR] = None
    logo: Optional[str] = None
    scale: float = 1.0
    rim: Optional[BGR] = None

    @classmethod
    def random(cls, rng: np.random.Generator, style: "DieStyle") -> "CubeLook":
        """A random look: one of five fonts, thin to bold, small to large, a disc behind the
        numbers one time in three, a logo on the 64 face one time in three, a rim one time in four."""
        import cv2

        font = int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
                               cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN]))
        disc = None
        if rng.random() < 0.35:
            body = np.array(style.body, float)
            disc = tuple(int(v) for v in np.clip(255 - body + rng.normal(0, 30, 3), 0, 255)) \
                if rng.random() < 0.5 else tuple(int(v) for v in rng.integers(0, 256, 3))
        logo = None
        if rng.random() < 0.35:
            letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
            logo = "".join(letters[int(i)] for i in rng.integers(len(letters), size=int(rng.integers(1, 4))))
        rim = None
        if rng.random() < 0.25:
            rim = tuple(int(v) for v in np.clip(np.array(style.body, float) + rng.choice([-1, 1]) * rng.uniform(40, 120)
                                                + rng.normal(0, 20, 3), 0, 255))
        return cls(font, float(rng.uniform(0.4, 1.5)), disc, logo, float(rng.uniform(0.6, 1.1)), rim)


def cube_face_texture(value: int, style: DieStyle, side: int = 64, look: CubeLook = CubeLook()) -> np.ndarray:
    """(side, side, 3) uint8 BGR face of a doubling cube showing ``value`` (2..64) as ``look``
    prints it (the 64 face may carry a logo instead)."""
    import cv2

    if value not in CUBE_VALUES:
        raise RenderError(f"a cube face shows one of {CUBE_VALUES}, not {value}")
    tex = np.empty((side, side, 3), np.uint8)
    tex[:] = style.body
    ink = style.pips
    if look.disc is not None:
        cv2.circle(tex, (side // 2, side // 2), int(side * 0.4), look.disc, -1, cv2.LINE_AA)
        ink = tuple(int(v) for v in (np.array(style.body) if np.abs(np.array(look.disc, float) - style.body).sum() > 150
                                     else np.array(style.pips)))
    if look.rim is not None:
        cv2.rectangle(tex, (0, 0), (side - 1, side - 1), look.rim, max(int(side * 0.09), 1))
    text = str(value)
    font = look.font
    thick = max(int(round(side / 22 * look.weight)), 1)
    if value == 64 and look.logo:
        text = look.logo
        cv2.rectangle(tex, (int(side * 0.12), int(side * 0.12)), (int(side * 0.88), int(side * 0.88)), ink,
                      max(thick // 2, 1), cv2.LINE_AA)
    box = side * (0.5 if len(text) == 1 else 0.72) * look.scale
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = min(box / max(tw, 1), box / max(th, 1) * 0.9)
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(tex, text, ((side - tw) // 2, (side + th) // 2), font, scale, ink, thick, cv2.LINE_AA)
    return tex


# ----------------------------------------------------------------------------- 3-D pose
def _rotation(yaw_deg: float, tilt_deg: float, tilt_dir_deg: float) -> np.ndarray:
    """(3, 3) rotation: yaw about z, then tilt about the horizontal axis at ``tilt_dir_deg``."""
    y = math.radians(yaw_deg)
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    t = math.radians(tilt_deg)
    d = math.radians(tilt_dir_deg)
    axis = np.array([math.cos(d), math.sin(d), 0.0])
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    rt = np.eye(3) + math.sin(t) * k + (1 - math.cos(t)) * (k @ k)
    return rt @ rz


# face: (normal, u axis, v axis) in the die's frame; the top face is +z
_FACES = (
    (np.array([0, 0, 1.0]), np.array([1.0, 0, 0]), np.array([0, -1.0, 0])),
    (np.array([0, 0, -1.0]), np.array([1.0, 0, 0]), np.array([0, 1.0, 0])),
    (np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), np.array([0, 0, -1.0])),
    (np.array([-1.0, 0, 0]), np.array([0, -1.0, 0]), np.array([0, 0, -1.0])),
    (np.array([0, 1.0, 0]), np.array([-1.0, 0, 0]), np.array([0, 0, -1.0])),
    (np.array([0, -1.0, 0]), np.array([1.0, 0, 0]), np.array([0, 0, -1.0])),
)


def _side_values(top: int, faces: Sequence[int]) -> list[int]:
    """Values for the six faces (top, bottom, +x, -x, +y, -y) given the top one."""
    if faces is CUBE_VALUES:
        i = CUBE_VALUES.index(top)
        opposite = CUBE_VALUES[(i + 3) % 6]
        rest = [v for v in CUBE_VALUES if v not in (top, opposite)]
        return [top, opposite, rest[0], rest[2], rest[1], rest[3]]
    rest = [v for v in (1, 2, 3, 4, 5, 6) if v not in (top, 7 - top)]
    a, b = rest[0], rest[1] if rest[1] != 7 - rest[0] else rest[2]
    return [top, 7 - top, a, 7 - a, b, 7 - b]


def _draw_body(image: np.ndarray, center: tuple[float, float], size: float, textures: list[np.ndarray],
               rot: np.ndarray, style: DieStyle, parallax: tuple[float, float], light: np.ndarray,
               shadow: float) -> tuple[tuple[float, float], tuple[float, float, float, float], int]:
    """Draw the posed cube; returns (image centre of the most upward face, box, index of that face).

    ``parallax`` ``(px, py)``: image shift of a point per unit of height (in die sides), away from
    the camera's principal point; the camera looks along ``(-px, py, 1)`` in the die's world frame
    (x right, y up the image, z up)."""
    import cv2

    h, w = image.shape[:2]
    # lowest corner rests on the plane z = 0
    corners = np.array([[sx, sy, sz] for sx in (-.5, .5) for sy in (-.5, .5) for sz in (-.5, .5)]) @ rot.T
    lift = -corners[:, 2].min()

    def project(p: np.ndarray) -> np.ndarray:
        p = np.atleast_2d(p)
        x = center[0] + size * p[:, 0]
        x = x + size * parallax[0] * (p[:, 2] + lift)
        y = center[1] - size * p[:, 1] + size * parallax[1] * (p[:, 2] + lift)
        return np.stack([x, y], axis=1)

    # soft shadow on the plane
    if shadow > 0:
        base = corners.copy(); base[:, 2] = -lift
        pts = project(base + np.array([0.12, -0.12, 0]))
        hull = cv2.convexHull(pts.astype(np.float32))
        x0, y0 = np.floor(pts.min(0) - size * 0.4).astype(int)
        x1, y1 = np.ceil(pts.max(0) + size * 0.4).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 > x0 and y1 > y0:
            mask = np.zeros((y1 - y0, x1 - x0), np.float32)
            cv2.fillConvexPoly(mask, (hull.reshape(-1, 2) - [x0, y0]).astype(np.int32), 1.0, cv2.LINE_AA)
            mask = cv2.GaussianBlur(mask, (0, 0), max(size * 0.08, 0.8)) * shadow
            roi = image[y0:y1, x0:x1].astype(np.float32)
            image[y0:y1, x0:x1] = np.clip(roi * (1 - mask[..., None]), 0, 255).astype(np.uint8)
    order = []
    view = np.array([-parallax[0], parallax[1], 1.0])
    for i, (n, u, v) in enumerate(_FACES):
        nw = rot @ n
        if float(nw @ view) <= 1e-6:
            continue
        centre3 = rot @ (n * 0.5)
        order.append((float(centre3 @ view), i, nw))
    order.sort()
    top_idx = max(range(6), key=lambda i: (rot @ _FACES[i][0])[2])
    top_center = (0.0, 0.0)
    all_pts = []
    for _, i, nw in order:
        n, u, v = _FACES[i]
        c = n * 0.5
        quad3 = np.array([c - u / 2 - v / 2, c + u / 2 - v / 2, c + u / 2 + v / 2, c - u / 2 + v / 2]) @ rot.T
        quad = project(quad3)
        all_pts.append(quad)
        tex = textures[i]
        s = tex.shape[0]
        src = np.float32([[0, 0], [s, 0], [s, s], [0, s]])
        x0, y0 = np.floor(quad.min(0)).astype(int) - 1
        x1, y1 = np.ceil(quad.max(0)).astype(int) + 2
        x0c, y0c, x1c, y1c = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1c <= x0c or y1c <= y0c:
            continue
        m = cv2.getPerspectiveTransform(src, np.float32(quad - [x0c, y0c]))
        shade = 0.45 + 0.55 * max(float(nw @ light), 0.0)
        face = cv2.warpPerspective(tex, m, (x1c - x0c, y1c - y0c), flags=cv2.INTER_AREA)
        mask = np.zeros((y1c - y0c, x1c - x0c), np.float32)
        cv2.fillConvexPoly(mask, np.round((quad - [x0c, y0c]) * 4).astype(np.int32), 1.0, cv2.LINE_AA, shift=2)
        mask *= style.alpha
        roi = image[y0c:y1c, x0c:x1c].astype(np.float32)
        out = roi * (1 - mask[..., None]) + face.astype(np.float32) * shade * mask[..., None]
        image[y0c:y1c, x0c:x1c] = np.clip(out, 0, 255).astype(np.uint8)
        if i == top_idx:
            top_center = tuple(quad.mean(0).tolist())
    pts = np.concatenate(all_pts) if all_pts else project(corners)
    box = (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))
    return top_center, box, top_idx


_LIGHT = np.array([0.25, 0.35, 0.9]) / np.linalg.norm([0.25, 0.35, 0.9])


def draw_die(image: np.ndarray, center: tuple[float, float], size: float, value: int, *,
             yaw_deg: float = 0.0, tilt_deg: float = 0.0, tilt_dir_deg: float = 0.0,
             style: DieStyle = DIE_STYLES[0], oblique: float = 0.0, shadow: float = 0.35,
             reason: Optional[str] = None, parallax: Optional[tuple[float, float]] = None) -> RenderedDie:
    """Draw a die on ``image`` ((H, W, 3) uint8 BGR, modified in place) and return its truth.

    ``center``: where the die's centre of mass projects (image pixels); ``size``: side in pixels
    (> 2); ``value``: 1..6 on the face that ends up most upwards; ``tilt_deg`` 0..45 leans the die
    (cocked when > 0). ``oblique``: the camera leans so higher points shift up the image by
    ``oblique`` per unit of height; ``parallax`` ``(px, py)`` gives that shift as an image vector
    instead (away from the principal point of a camera above the board). Raises
    :class:`RenderError` for a bad value or size.
    """
    if value not in PIPS:
        raise RenderError(f"a die shows 1..6, not {value}")
    if not size > 2:
        raise RenderError(f"die size must exceed 2 pixels, got {size}")
    values = _side_values(value, (1, 2, 3, 4, 5, 6))
    textures = [die_face_texture(v, style) for v in values]
    rot = _rotation(yaw_deg, tilt_deg, tilt_dir_deg)
    par = parallax if parallax is not None else (0.0, -oblique)
    top_center, box, top_idx = _draw_body(image, center, size, textures, rot, style, par, _LIGHT, shadow)
    cocked = reason is not None or tilt_deg > 0
    return RenderedDie(values[top_idx], top_center, box, size, tilt_deg, cocked,
                       reason if reason is not None else ("tilted" if tilt_deg > 0 else None), style.name)


def draw_cube(image: np.ndarray, center: tuple[float, float], size: float, value: int, *,
              yaw_deg: float = 0.0, style: DieStyle = CUBE_STYLES[0], oblique: float = 0.0,
              place: str = "centre", shadow: float = 0.35,
              parallax: Optional[tuple[float, float]] = None, look: CubeLook = CubeLook()) -> RenderedCube:
    """Draw a doubling cube lying flat with ``value`` (2..64) on top; ``size`` side in pixels;
    ``look`` how its faces are printed (:class:`CubeLook`). Raises :class:`RenderError` for a bad
    value or size."""
    if value not in CUBE_VALUES:
        raise RenderError(f"a cube shows one of {CUBE_VALUES}, not {value}")
    if not size > 2:
        raise RenderError(f"cube size must exceed 2 pixels, got {size}")
    values = _side_values(value, CUBE_VALUES)
    textures = [cube_face_texture(v, style, look=look) for v in values]
    rot = _rotation(yaw_deg, 0.0, 0.0)
    par = parallax if parallax is not None else (0.0, -oblique)
    top_center, _, _ = _draw_body(image, center, size, textures, rot, style, par, _LIGHT, shadow)
    return RenderedCube(value, top_center, place, size)


# ----------------------------------------------------------------------------- training aids
def synthetic_training_images(n: int, rng: np.random.Generator, backgrounds: Sequence[np.ndarray] = (),
                              cube_prob: float = 0.5, marbled: float = 0.0,
                              translucent: float = 0.0, distractors: float = 0.0) -> list[tuple[np.ndarray, Any]]:
    """``n`` synthetic photos of scattered dice (flat and tilted, every style) and sometimes a cube,
    on random table backgrounds or copies of ``backgrounds``; returns ``[(image, LabelledImage)]``
    (:class:`vision.dice_data.LabelledImage`, dataset ``"synthetic"``). 30% of the dice get
    random colours, and this share of those (``marbled``, 0..1) veins of a third colour
    (:class:`DieStyle` ``marble``), and the share ``translucent`` (0..1) of those a translucent,
    often dark body through which the hidden faces' pips show (:class:`DieStyle` ``ghost``);
    the share ``distractors`` (0..1) of the photos also gets 1-6 marks that are not dice (printed
    text, checkers with icons, scales, symbols, a clock's digits:
    :func:`vision.render_distractors.draw_distractors`,
    drawn first, the dice kept off them; ``LabelledImage.distractor_boxes``);
    0, 0 and 0 draw exactly what the shipped detector was trained on. Raises ValueError for a
    share outside 0..1."""
    for share in (marbled, translucent, distractors):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"a share is 0..1, not {share}")
    import pathlib

    from vision.dice_data import LabelledImage

    out = []
    for k in range(n):
        if len(backgrounds) and rng.random() < 0.5:
            img = backgrounds[int(rng.integers(len(backgrounds)))].copy()
        else:
            img = random_background(rng, (int(rng.choice([640, 800])), int(rng.choice([480, 640]))))
        h, w = img.shape[:2]
        size = float(np.exp(rng.uniform(np.log(18), np.log(70))))
        oblique = float(rng.uniform(0, 0.35)) if rng.random() < 0.5 else 0.0
        taken: list[tuple[float, float, float]] = []
        boxes, values, cboxes, cvalues = [], [], [], []

        def free_spot(s: float) -> Optional[tuple[float, float]]:
            for _ in range(30):
                x, y = rng.uniform(s, w - s), rng.uniform(s, h - s)
                if all(math.hypot(x - a, y - b) > 1.3 * (s + r) / 2 + 2 for a, b, r in taken):
                    return x, y
            return None

        dboxes = np.zeros((0, 4))
        if distractors > 0 and rng.random() < distractors:
            spots = [(float(rng.uniform(size, w - size)), float(rng.uniform(size, h - size)))
                     for _ in range(int(rng.integers(1, 7)))]
            dboxes, radii = draw_distractors(img, rng, size, spots)
            taken += [(x, y, 1.6 * r) for (x, y), r in zip(spots, radii)]

        if rng.random() < cube_prob:
            cs = size * rng.uniform(1.1, 1.5)
            spot = free_spot(cs)
            if spot:
                st = CUBE_STYLES[int(rng.integers(len(CUBE_STYLES)))]
                cube = draw_cube(img, spot, cs, int(rng.choice(CUBE_VALUES)), yaw_deg=rng.uniform(0, 360),
                                 style=st, oblique=oblique)
                taken.append((spot[0], spot[1], cs * 1.3))
                cx, cy = cube.center
                cboxes.append((cx - cs / 2, cy - cs / 2, cx + cs / 2, cy + cs / 2))
                cvalues.append(cube.value)
        for _ in range(int(rng.integers(1, 9))):
            s = size * rng.uniform(0.9, 1.1)
            spot = free_spot(s)
            if spot is None:
                break
            style = DIE_STYLES[int(rng.integers(len(DIE_STYLES)))]
            if rng.random() < 0.3:
                style = DieStyle("random", tuple(int(v) for v in rng.integers(0, 256, 3)),
                                 tuple(int(v) for v in rng.integers(0, 256, 3)),
                                 pip_scale=float(rng.uniform(0.75, 1.2)))
                if marbled > 0 and rng.random() < marbled:
                    style = dataclasses.replace(style, marble=tuple(int(v) for v in rng.integers(0, 256, 3)),
                                                marble_seed=int(rng.integers(1 << 30)))
                if translucent > 0 and rng.random() < translucent:
                    body = np.array(style.body, np.float64) * (rng.uniform(0.15, 0.6) if rng.random() < 0.6 else 1.0)
                    style = dataclasses.replace(style, body=tuple(int(v) for v in body),
                                                alpha=float(rng.uniform(0.75, 0.95)),
                                                ghost=float(rng.uniform(0.2, 0.65)))
            tilt = float(rng.uniform(3, 40)) if rng.random() < 0.25 else 0.0
            d = draw_die(img, spot, s, int(rng.integers(1, 7)), yaw_deg=rng.uniform(0, 360), tilt_deg=tilt,
                         tilt_dir_deg=rng.uniform(0, 360), style=style, oblique=oblique)
            taken.append((spot[0], spot[1], s * 1.4))
            cx, cy = d.center
            boxes.append((cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2))
            values.append(d.value)
        item = LabelledImage("synthetic", pathlib.Path(f"synthetic_{k}.png"),
                             np.asarray(boxes, np.float64).reshape(-1, 4), np.asarray(values, np.int64), (w, h),
                             np.asarray(cboxes, np.float64).reshape(-1, 4), np.asarray(cvalues, np.int64),
                             dboxes)
        out.append((img, item))
    return out


# ----------------------------------------------------------------------------- dice on boards
@dataclasses.dataclass(frozen=True)
class RenderedRoll:
    """A board frame with a roll on it: ``image`` (H, W, 3) uint8 BGR, ``field``
    (:class:`vision.registration.Field`), ``roller`` (``"top"``/``"bottom"``: the image side of the
    player who rolled), ``dice`` (:class:`RenderedDie` truth, ``cocked``/``reason`` under the
    USBGF 2017 rules: a die flat on a checker is fine), ``cube`` (:class:`RenderedCube` or None),
    ``checkers`` ``(x, y, radius)`` image pixels."""

    image: np.ndarray
    field: Any
    roller: str
    dice: tuple[RenderedDie, ...]
    cube: Optional[RenderedCube]
    checkers: tuple[tuple[float, float, float], ...]


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


def random_board_scene(rng: np.random.Generator) -> BoardScene:
    """A random board (:func:`vision.render_board.render_board`: random state, style, camera and
    lighting) at 1280x720 with a die size of about 1/30 of the field's width (16 mm dice on a
    tournament board) and a camera 1..2.5 image widths above it (straight down one time in six)."""
    from vision.registration import field_from_corners
    from vision.render_board import STYLES, CameraPose, Lighting, random_state, render_board

    style = list(STYLES)[int(rng.integers(len(STYLES)))]
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
    die_units = fw / 30.0 * float(rng.uniform(0.85, 1.2))
    cam_height = math.inf if rng.random() < 1 / 6 else float(rng.uniform(1.0, 2.5)) * w
    return BoardScene(image, field, f2i, checkers, die_units, die_units * px_per_unit, cam_height)


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
                         cube_prob: float = 0.7, leans: Sequence[str] = LEAN_KINDS) -> RenderedRoll:
    """A random board (:func:`random_board_scene`) with a two-dice roll of the roller: with
    probability ``cocked_prob`` one die is cocked for a reason drawn from ``kinds``; a
    ``"tilted"`` die is tilted by ``tilt_range`` degrees and held up as one of ``leans``
    (:data:`LEAN_KINDS`: leaning on a checker or the rail, balanced on an edge, or free); a flat
    die rests on a checker with probability ``on_checker_prob``; a cube (half of them with a random
    :class:`CubeLook`) lies centred or on a player's side."""
    scene = random_board_scene(rng)
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
    style = DIE_STYLES[int(rng.integers(len(DIE_STYLES)))]
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
        d = draw_die(image, (x, y), die_px, int(rng.integers(1, 7)), yaw_deg=yaw, tilt_deg=tilt,
                     tilt_dir_deg=tilt_dir, style=style, parallax=scene.parallax(x, y), reason=reason)
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
            cube = draw_cube(image, (x, y), die_px * float(rng.uniform(1.2, 1.6)), value, yaw_deg=rng.uniform(-20, 20),
                             style=cstyle, parallax=scene.parallax(x, y), place=place,
                             look=CubeLook.random(rng, cstyle) if rng.random() < 0.5 else CubeLook())
    return RenderedRoll(image, field, roller, tuple(truth), cube, checkers)


def evaluate_cocked_rendered(n: int, reader: Any, seed: int = 1234, **kwargs: Any) -> dict[str, Any]:
    """Score dice reading and the cocked rule on ``n`` rendered boards (:func:`render_roll_on_board`).

    Returns counts and ``recall``/``precision`` of cocked calls over matched dice, per-reason
    catches, ``value_accuracy`` and ``found_rate``, cube value/place accuracy and false cubes (a cube
    reported on a board without one), and ``rolls``: the verdict per roll as the referee gives it
    (:mod:`companion.referee`; both dice are rolled again when one is cocked, USBGF rules 2017): a
    roll is called cocked when a die is judged cocked or when exactly one die is seen
    (``die_not_seen``: the other off the board or not flat); ``recall`` over rolls with a cocked
    die, ``precision`` over rolls called cocked.
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
    rolls = {"cocked": 0, "caught": 0, "flat": 0, "flat_called_cocked": 0, "caught_by_die_not_seen": 0}
    for _ in range(n):
        roll = render_roll_on_board(rng, **kwargs)
        cands, probs = reader.scan(roll.image, roll.field)
        judged = judge_scan(roll.image, cands, probs, reader, roll.field, roller=roll.roller, tilt_model=tilt)
        used = set()
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
        cr = None if cube_reader is None else cube_from_scan(roll.image, cands, probs, roll.field, cube_reader)
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
        "cube": {"boards_with_cube": cube_total, "found": cube_found, "value_correct": cube_value,
                 "place_correct": cube_place, "false_cubes": cube_false, "boards_without_cube": n - cube_total},
    }

"""Synthetic dice and doubling cubes, flat or cocked, drawn onto any image, with ground truth.

A die is a unit cube with rounded-looking faces (a face texture: body colour and pips, or the
cube's numbers) posed in 3-D (yaw about the vertical, then a tilt about a horizontal axis), seen by
an orthographic camera whose view may lean by ``oblique`` (the image y shift per unit of height,
0 straight down). Visible faces are drawn back to front with Lambert shading, after a soft shadow.

- :func:`draw_die` / :func:`draw_cube` draw one onto an image (in place) and return a
  :class:`RenderedDie` / :class:`RenderedCube` with the ground truth.
- :func:`vision.render_roll.render_roll_on_board` puts a roll (and the cube) on a rendered board,
  flat or cocked, with the truth for :mod:`vision.cocked`.
- :func:`vision.dice_photos.synthetic_training_images` makes plain-background photos of many
  dice (training aid).

Tilts: ``tilt_deg`` 0 is flat; a few degrees leans on something; 45 is balanced on an edge.
The value of a tilted die is the face that points most upwards.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Optional, Sequence

import numpy as np


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


def style_as_under(rng: np.random.Generator, under: np.ndarray) -> DieStyle:
    """A die the colour of what it lies on (a red die on a red point): the body ``under`` ((3,)
    BGR, jittered a little, the colour under the die), the pips black or white, whichever stands
    out, at 0.85-1.15 of their usual size. Dice of the point's colour are the detector's hardest
    case: the die's outline is lost and its pips stand alone."""
    body = tuple(int(v) for v in np.clip(np.asarray(under, float) + rng.normal(0, 8, 3), 0, 255))
    pips = (20, 20, 20) if float(np.mean(body)) > 110 else (240, 240, 240)
    return DieStyle("as-under", body, pips, pip_scale=float(rng.uniform(0.85, 1.15)))  # type: ignore[arg-type]


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


def draw_die_on_board(image: np.ndarray, field_to_image: np.ndarray, at: tuple[float, float], side: float,
                      value: int, *, aspect: float = 1.0, **pose) -> RenderedDie:
    """Draw a die lying in the board's plane of a photo (a real board seen obliquely), in place:
    the frame around the die is rectified (OpenCV's ``warpPerspective``) to a view from straight
    above, the die drawn there by :func:`draw_die` (its shadow on the board's own pixels) and the
    view warped back over the die's footprint only. A flat die's top face therefore lands in the
    board's perspective, as a real one's does, where :func:`draw_die` on the photo itself would
    draw a square of the image. ``image`` (H, W, 3) uint8 BGR; ``field_to_image`` (3, 3)
    homography from canonical field units (``vision.registration.FIELD_WIDTH`` x
    ``FIELD_HEIGHT``) to image pixels; ``at`` the die's centre and ``side`` its side, in
    canonical field units (``side`` measured along the field's width); ``aspect``: canonical y
    units a length of one x unit spans on the board (a checker's height over its width in the
    canonical field); ``pose``: :func:`draw_die`'s keywords (``yaw_deg``, ``tilt_deg``,
    ``style``...). Returns the :class:`RenderedDie` with its centre and box in image pixels.
    Raises :class:`RenderError` as :func:`draw_die` does."""
    import cv2

    if not side > 0:
        raise RenderError(f"die side must be positive, got {side}")
    h = np.asarray(field_to_image, np.float64)

    def to_image(x: float, y: float) -> np.ndarray:
        v = h @ np.array([x, y, 1.0])
        return v[:2] / v[2]

    # pixels per field unit in the rectified view: about the die's own scale in the photo, twice
    px = 2.0 * max(float(np.linalg.norm(to_image(at[0] + side, at[1]) - to_image(at[0], at[1]))),
                   float(np.linalg.norm(to_image(at[0], at[1] + side * aspect) - to_image(at[0], at[1])))) / side
    half = 1.6 * side  # the view reaches the die's shadow and a leaning die's sides
    n = max(8, int(math.ceil(2 * half * px)))
    # view pixel (u, v) -> field (at - half + u / px, at - half * aspect + v * aspect / px)
    view_to_field = np.array([[1 / px, 0, at[0] - half], [0, aspect / px, at[1] - half * aspect], [0, 0, 1]])
    view_to_image = h @ view_to_field
    view = cv2.warpPerspective(image, np.linalg.inv(view_to_image), (n, n), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    before = view.copy()
    die = draw_die(view, (n / 2, n / 2), side * px, value, **pose)
    changed = (cv2.absdiff(view, before).max(axis=2) > 0).astype(np.uint8) * 255
    changed = cv2.dilate(changed, np.ones((3, 3), np.uint8))
    size = (image.shape[1], image.shape[0])
    back = cv2.warpPerspective(view, view_to_image, size, flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(changed, view_to_image, size, flags=cv2.INTER_LINEAR)[..., None].astype(np.float32) / 255
    image[:] = np.clip(image * (1 - mask) + back * mask, 0, 255).astype(np.uint8)

    def view_point(p: tuple[float, float]) -> tuple[float, float]:
        v = view_to_image @ np.array([p[0], p[1], 1.0])
        return float(v[0] / v[2]), float(v[1] / v[2])

    corners = np.array([view_point((die.box[0], die.box[1])), view_point((die.box[2], die.box[1])),
                        view_point((die.box[2], die.box[3])), view_point((die.box[0], die.box[3]))])
    box = (float(corners[:, 0].min()), float(corners[:, 1].min()), float(corners[:, 0].max()), float(corners[:, 1].max()))
    c, r = die.center, die.size / 2  # the die's side in the photo: the square root of its top face's area there
    face = np.array([view_point((c[0] + dx * r, c[1] + dy * r)) for dx, dy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    return dataclasses.replace(die, center=view_point(die.center), box=box,
                               size=float(np.sqrt(abs(cv2.contourArea(face.astype(np.float32))))))

"""Synthetic backgammon boards with ground truth, for tests and demo recordings.

:func:`render_board` draws a board state (checkers per point, bar, off) in a
board style (:data:`STYLES`), seen by a camera (:class:`CameraPose`: where the
playing field's corners land in the image, i.e. perspective), under
:class:`Lighting` (gradient, shadows, blur, noise), optionally with hands or arms
over it (:class:`Hand`). It returns a :class:`RenderedBoard`: the (H, W, 3) uint8
BGR image and the ground truth in the shape of ``companion read --json``
(``Observation.to_dict()``), plus the field's corners and the field -> image
homography so other renderers (dice, cube) can draw at field positions.

Point numbering is that of ``companion read`` (see ``companion/observation.py``).
Checkers of a point stand in a line from the point's base; a point holds five in
a line, more are drawn overlapping (``stack="overlap"``, the line is squeezed) or
standing two high (``stack="two_high"``: after a full line, each further checker rests in
the dip between two below it, half a checker along the point).

Example::

    from vision.render_board import BoardState, render_board
    out = render_board(BoardState.starting(), style="tournament")
    cv2.imwrite("board.png", out.image); print(out.truth["points"][0])
"""

from __future__ import annotations

import dataclasses
import math
import types
from typing import Any, Literal, Optional, Sequence

import numpy as np

from companion.observation import Colour
from vision.registration import FIELD_HEIGHT, FIELD_WIDTH, BoardGeometry

BGR = tuple[int, int, int]


class RenderError(ValueError):
    """A board state or rendering option that cannot be drawn."""


@dataclasses.dataclass(frozen=True)
class BoardStyle:
    """Colours (BGR) and proportions of one kind of board.

    ``field``: playing surface; ``points``: the two alternating point colours (the
    top row's leftmost point gets the first); ``bar`` and ``frame``: wood/leather
    around; ``light``/``dark``: checker body colours; ``rim``: checker rim colour or
    ``None`` (a darker shade of the body); ``geometry``: the proportions shared with the
    reader (:class:`~vision.registration.BoardGeometry`); ``texture``: amplitude of the
    field's grain (0 = flat); ``checker_mark``: letters embossed on every checker's face ("" none),
    drawn at ``mark_shade`` times the body's colour; ``field_print``: a maker's name printed
    across each half of the field between the points' tips, beside a square logo, in
    ``print_colour`` ("" none). Marks and prints are what real boards carry and what a die
    detector must not take for a die.
    """

    name: str
    field: BGR
    points: tuple[BGR, BGR]
    bar: BGR
    frame: BGR
    light: BGR
    dark: BGR
    rim: Optional[BGR] = None
    geometry: BoardGeometry = BoardGeometry()
    texture: float = 0.0
    checker_mark: str = ""
    mark_shade: float = 0.75
    field_print: str = ""
    print_colour: BGR = (30, 30, 30)


#: Built-in styles; several put dark checkers on dark points and light on light.
STYLES: types.MappingProxyType[str, BoardStyle] = types.MappingProxyType({
    "tournament": BoardStyle("tournament", field=(215, 235, 240), points=((25, 25, 25), (40, 30, 200)),
                             bar=(30, 30, 30), frame=(20, 20, 20), light=(235, 240, 242), dark=(22, 22, 22),
                             rim=(170, 170, 170), geometry=BoardGeometry(bar_width=0.05, aspect=1.08)),
    "walnut": BoardStyle("walnut", field=(40, 90, 150), points=((235, 240, 240), (20, 20, 20)),
                         bar=(30, 65, 110), frame=(25, 55, 95), light=(225, 232, 236), dark=(35, 25, 120),
                         geometry=BoardGeometry(bar_width=0.075, aspect=1.09), texture=12.0),
    "fmgammon": BoardStyle("fmgammon", field=(205, 215, 220), points=((25, 25, 25), (60, 140, 200)),
                           bar=(40, 50, 60), frame=(30, 40, 55), light=(215, 215, 210), dark=(40, 150, 210),
                           rim=(120, 120, 120), geometry=BoardGeometry(bar_width=0.05, aspect=1.13)),
    "green": BoardStyle("green", field=(60, 120, 40), points=((200, 225, 235), (30, 40, 130)),
                        bar=(30, 50, 30), frame=(20, 35, 60), light=(210, 230, 240), dark=(30, 40, 125),
                        geometry=BoardGeometry(bar_width=0.07, aspect=1.1), texture=6.0),
    "felt": BoardStyle("felt", field=(120, 175, 200), points=((40, 30, 70), (60, 90, 80)),
                       bar=(25, 25, 25), frame=(20, 20, 20), light=(40, 50, 205), dark=(45, 45, 45),
                       geometry=BoardGeometry(bar_width=0.08, aspect=1.07), texture=10.0),
})

#: Styles drawn on request and in ``python -m vision.evaluate --synthetic`` but kept out of
#: :data:`STYLES` (whose order other renderers draw from): ivory checkers on ivory
#: points with only a faint rim, the low-contrast case.
LOW_CONTRAST_STYLES: types.MappingProxyType[str, BoardStyle] = types.MappingProxyType({
    "ivory": BoardStyle("ivory", field=(45, 100, 160), points=((30, 30, 110), (228, 236, 240)),
                        bar=(35, 70, 115), frame=(25, 55, 95), light=(226, 234, 238), dark=(40, 40, 45),
                        rim=(206, 214, 218), geometry=BoardGeometry(bar_width=0.07, aspect=1.09), texture=8.0),
})


@dataclasses.dataclass(frozen=True)
class BoardState:
    """What is on the board, in ``companion read`` terms.

    ``points``: 24 ``(count, colour)`` pairs for points 1..24 (colour ``"light"``/
    ``"dark"``, ``None`` when count is 0); ``bar`` and ``off``: ``{"light": n, "dark": n}``.
    """

    points: tuple[tuple[int, Optional[Colour]], ...]
    bar: tuple[tuple[str, int], ...] = (("light", 0), ("dark", 0))
    off: tuple[tuple[str, int], ...] = (("light", 0), ("dark", 0))

    def __post_init__(self) -> None:
        if len(self.points) != 24:
            raise RenderError(f"a board state needs 24 points, got {len(self.points)}")
        for i, (n, c) in enumerate(self.points, start=1):
            if not 0 <= n <= 15 or (n > 0) != (c in ("light", "dark")):
                raise RenderError(f"point {i}: bad entry ({n}, {c!r})")
        totals = {"light": 0, "dark": 0}
        for n, c in self.points:
            if c:
                totals[c] += n
        for side in (self.bar, self.off):
            for c, n in side:
                totals[c] += n
        if totals["light"] > 15 or totals["dark"] > 15:
            raise RenderError(f"more than 15 checkers of a colour: {totals}")

    @classmethod
    def from_counts(cls, counts: Sequence[int], bar: tuple[int, int] = (0, 0),
                    off: tuple[int, int] = (0, 0)) -> "BoardState":
        """From 24 signed counts (points 1..24; > 0 light, < 0 dark); ``bar``/``off`` as (light, dark)."""
        pts = tuple((abs(int(n)), None if n == 0 else ("light" if n > 0 else "dark")) for n in counts)
        return cls(pts, (("light", bar[0]), ("dark", bar[1])), (("light", off[0]), ("dark", off[1])))  # type: ignore[arg-type]

    @classmethod
    def starting(cls) -> "BoardState":
        """The opening position: light is the player whose home board is points 1-6."""
        c = [0] * 24
        for p, n in ((24, 2), (13, 5), (8, 3), (6, 5)):
            c[p - 1] += n
        for p, n in ((1, 2), (12, 5), (17, 3), (19, 5)):
            c[p - 1] -= n
        return cls.from_counts(c)

    def bar_count(self, colour: str) -> int:
        """Checkers of ``colour`` on the bar."""
        return dict(self.bar).get(colour, 0)

    def off_count(self, colour: str) -> int:
        """Checkers of ``colour`` borne off."""
        return dict(self.off).get(colour, 0)


@dataclasses.dataclass(frozen=True)
class CameraPose:
    """Where the camera puts the board: the image size and the playing field's four
    corners in the image (TL, TR, BR, BL, pixels; may lie outside the image).

    :meth:`looking_down` builds one from a tilt (keystone), a turn and a scale.
    """

    image_size: tuple[int, int] = (1280, 720)
    corners: tuple[tuple[float, float], ...] = ((330, 40), (950, 40), (950, 680), (330, 680))

    @classmethod
    def looking_down(cls, image_size: tuple[int, int] = (1280, 720), scale: float = 0.85,
                     tilt: float = 0.0, turn_deg: float = 0.0, shift: tuple[float, float] = (0.0, 0.0),
                     aspect: float = 1.08) -> "CameraPose":
        """A camera above the board: the field fills ``scale`` of the image height,
        ``tilt`` in -0.3..0.3 narrows the top edge (keystone, > 0) or the bottom (< 0),
        ``turn_deg`` turns the board in the image, ``shift`` moves it (pixels)."""
        w, h = image_size
        fh = scale * h
        fw = fh * aspect
        cx, cy = w / 2 + shift[0], h / 2 + shift[1]
        top = fw / 2 * (1 - tilt)
        bottom = fw / 2 * (1 + tilt)
        pts = np.array([[-top, -fh / 2], [top, -fh / 2], [bottom, fh / 2], [-bottom, fh / 2]])
        a = math.radians(turn_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        pts = pts @ rot.T + [cx, cy]
        return cls(image_size, tuple((float(x), float(y)) for x, y in pts))


@dataclasses.dataclass(frozen=True)
class Lighting:
    """Light and sensor effects: ``brightness`` (gain, 1 = none), ``gradient``
    (0..1, strength of a linear falloff across the image along ``gradient_deg``),
    ``shadows`` (checker drop shadows, 0..1), ``blur`` (Gaussian sigma, pixels),
    ``noise`` (Gaussian sigma, grey levels), ``jpeg`` (quality 1..100 or 0 for none)."""

    brightness: float = 1.0
    gradient: float = 0.0
    gradient_deg: float = 0.0
    shadows: float = 0.5
    blur: float = 0.0
    noise: float = 0.0
    jpeg: int = 0


@dataclasses.dataclass(frozen=True)
class Hand:
    """A hand (and arm) over the board: ``at`` is the palm centre in field fractions
    (0..1 across, 0..1 down the canonical field), the arm runs from the image edge
    ``from_edge`` (``"bottom"``, ``"top"``, ``"left"``, ``"right"``); ``size`` scales the
    palm (1 = about two points wide); ``colour`` BGR skin or sleeve tone."""

    at: tuple[float, float] = (0.7, 0.85)
    from_edge: Literal["bottom", "top", "left", "right"] = "bottom"
    size: float = 1.0
    colour: BGR = (120, 150, 200)


@dataclasses.dataclass(frozen=True)
class RenderedBoard:
    """A rendered frame and its truth.

    ``image``: (H, W, 3) uint8 BGR. ``truth``: dict shaped like
    ``Observation.to_dict()`` (``points``, ``bar``, ``off``, ``off_visible``,
    ``unreadable_points``, ``occluded``). ``corners``: (4, 2) float64 field corners in
    the image (TL, TR, BR, BL). ``field_to_image``: (3, 3) float64 homography from the
    canonical field (``FIELD_WIDTH`` x ``FIELD_HEIGHT``) to image pixels.
    ``checkers``: one ``(x, y, colour, point)`` per drawn checker (image pixels;
    ``point`` 0 for the bar, 25 for off). ``hand_mask``: (H, W) bool, True under hands.
    """

    image: np.ndarray
    truth: dict[str, Any]
    corners: np.ndarray
    field_to_image: np.ndarray
    checkers: tuple[tuple[float, float, str, int], ...]
    hand_mask: np.ndarray

    @property
    def corners_arg(self) -> str:
        """The corners as the ``--corners`` argument of ``companion read``."""
        return ",".join(f"{v:.2f}" for v in self.corners.ravel())


# Rendering works on a canvas twice the canonical field size, with a frame around it.
_S = 2.0
_MARGIN = 0.12  # frame + trays, fraction of the field width on each side


def _shade(c: BGR, f: float) -> BGR:
    return tuple(int(max(0, min(255, v * f))) for v in c)  # type: ignore[return-value]


def _checker_positions(state: BoardState, geometry: BoardGeometry, stack: str, jitter: float = 0.0,
                       rng: Optional[np.random.Generator] = None) -> list[tuple[float, float, str, int, int]]:
    """Checker centres in canonical field pixels: (x, y, colour, point, layer).

    ``jitter``: sloppy placement, as a fraction of a point's width: each checker is
    moved sideways by up to that much and its line gets gaps of up to half that."""
    w, h = FIELD_WIDTH, FIELD_HEIGHT
    bar_x0 = 0.5 * w * (1 - geometry.bar_width)
    bar_x1 = 0.5 * w * (1 + geometry.bar_width)
    pw = bar_x0 / 6
    dw = pw * geometry.checker_diameter
    dh = dw * (h / w) * geometry.aspect
    max_line = 0.5 * h - 0.1 * dh  # a point's line may reach just short of the middle
    per_line = max(1, int(max_line // dh))
    out = []
    for p, (n, colour) in enumerate(state.points, start=1):
        if n == 0:
            continue
        if p <= 12:
            col, base, direction = 12 - p, float(h), -1
        else:
            col, base, direction = p - 13, 0.0, 1
        x0 = col * pw if col < 6 else bar_x1 + (col - 6) * pw
        cx = x0 + pw / 2
        margin = geometry.edge_margin * pw
        if stack == "two_high" and n > per_line:
            # As players build them: the first line from the base, then each further
            # checker resting in the dip between two below it (half a checker along).
            layer, slot = 0, 0
            for k in range(n):
                y = base + direction * (margin + dh / 2 + (slot + 0.5 * layer) * dh)
                out.append((cx, y, colour, p, layer))
                slot += 1
                if slot >= per_line - layer:
                    layer, slot = layer + 1, 0
        else:
            pitch = dh if n <= per_line else (max_line - dh - margin) / (n - 1)
            gap = 0.0
            for k in range(n):
                dx = 0.0
                if jitter > 0 and rng is not None:
                    dx = float(rng.uniform(-jitter, jitter)) * pw
                    if n < per_line:
                        gap += float(rng.uniform(0, 0.5 * jitter)) * pw
                out.append((cx + dx, base + direction * (margin + dh / 2 + k * pitch + gap), colour, p, 0))
    # Bar: light checkers in the top half's middle-ish, dark in the bottom half (as players put them).
    bx = 0.5 * (bar_x0 + bar_x1)
    for colour, sign in (("light", -1), ("dark", 1)):
        n = state.bar_count(colour)
        for k in range(n):
            y = h / 2 + sign * (0.6 * dh + k * dh * 0.98)
            out.append((bx, y, colour, 0, 0))
    return out


def render_board(
    state: BoardState,
    style: str | BoardStyle = "tournament",
    pose: Optional[CameraPose] = None,
    lighting: Optional[Lighting] = None,
    hands: Sequence[Hand] = (),
    stack: Literal["overlap", "two_high"] = "overlap",
    background: BGR = (90, 70, 50),
    seed: int = 0,
    jitter: float = 0.0,
) -> RenderedBoard:
    """Draw ``state`` and return the image with its ground truth (:class:`RenderedBoard`).

    ``style``: a :data:`STYLES` or :data:`LOW_CONTRAST_STYLES` name or a :class:`BoardStyle`; ``pose``: the camera
    (default: straight above, field 85% of a 1280x720 frame); ``lighting``;
    ``hands``: hands/arms over the board; ``stack``: how points with more than fit
    in a line are drawn; ``background``: the table's colour; ``seed``: noise and
    texture seed; ``jitter``: sloppy placement (checkers off their point's centre line
    by up to this fraction of a point's width, small gaps between them). Points whose
    checkers (or first checker slot) a hand covers are
    listed in ``truth["unreadable_points"]``. Off checkers are drawn in the trays
    beside the field (``off_visible`` true). Raises :class:`RenderError` for an
    unknown style.
    """
    import cv2

    if isinstance(style, str):
        known = {**STYLES, **LOW_CONTRAST_STYLES}
        if style not in known:
            raise RenderError(f"unknown board style {style!r}; choose from {', '.join(known)}")
        style = known[style]
    pose = pose or CameraPose.looking_down(aspect=style.geometry.aspect)
    lighting = lighting or Lighting()
    rng = np.random.default_rng(seed)
    g = style.geometry

    fw, fh = FIELD_WIDTH, FIELD_HEIGHT
    m = int(round(_MARGIN * fw * _S))
    cw, ch = int(fw * _S) + 2 * m, int(fh * _S) + int(0.08 * fh * _S) * 2
    my = (ch - int(fh * _S)) // 2
    canvas = np.zeros((ch, cw, 3), np.uint8)
    canvas[:] = style.frame

    def to_canvas(x: float, y: float) -> tuple[int, int]:
        return int(round(m + x * _S)), int(round(my + y * _S))

    # Playing field with texture.
    x0c, y0c = to_canvas(0, 0)
    x1c, y1c = to_canvas(fw, fh)
    field = np.empty((y1c - y0c, x1c - x0c, 3), np.float32)
    field[:] = style.field
    if style.texture > 0:
        grain = rng.normal(0, 1, (field.shape[0], max(2, field.shape[1] // 8))).astype(np.float32)
        grain = cv2.resize(cv2.GaussianBlur(grain, (0, 0), 3), (field.shape[1], field.shape[0]))
        field += grain[:, :, None] * style.texture
    canvas[y0c:y1c, x0c:x1c] = np.clip(field, 0, 255).astype(np.uint8)

    bar_x0 = 0.5 * fw * (1 - g.bar_width)
    bar_x1 = 0.5 * fw * (1 + g.bar_width)
    pw = bar_x0 / 6
    plen = g.point_length * fh
    for col in range(12):
        px0 = col * pw if col < 6 else bar_x1 + (col - 6) * pw
        for row in ("top", "bottom"):
            colour = style.points[(col + (0 if row == "top" else 1)) % 2]
            base = 0.0 if row == "top" else float(fh)
            tip = plen if row == "top" else fh - plen
            tri = np.array([to_canvas(px0 + 0.03 * pw, base), to_canvas(px0 + 0.97 * pw, base),
                            to_canvas(px0 + pw / 2, tip)], np.int32)
            cv2.fillConvexPoly(canvas, tri, colour, lineType=cv2.LINE_AA)
    bx0, by0 = to_canvas(bar_x0, 0)
    bx1, by1 = to_canvas(bar_x1, fh)
    canvas[by0:by1, bx0:bx1] = style.bar
    if style.field_print:
        _print_on_field(canvas, style, to_canvas, bar_x0, bar_x1)
    # Trays beside the field.
    for tx in (m // 6, cw - m + m // 6):
        cv2.rectangle(canvas, (tx, my), (tx + int(m * 0.66), my + int(fh * _S)), _shade(style.bar, 0.8), -1)

    # Checkers.
    dw = pw * g.checker_diameter
    dh = dw * (fh / fw) * g.aspect
    rx, ry = dw / 2 * _S, dh / 2 * _S
    positions = _checker_positions(state, g, stack, jitter, rng)
    shadow_layer = np.zeros((ch, cw), np.float32)
    for x, y, colour, _p, layer in positions:
        cx, cy = to_canvas(x, y)
        off = int(round(0.08 * rx))
        cv2.ellipse(shadow_layer, (cx + off, cy + off), (int(rx), int(ry)), 0, 0, 360, 1.0, -1, cv2.LINE_AA)
    if lighting.shadows > 0:
        shadow_layer = cv2.GaussianBlur(shadow_layer, (0, 0), max(1.0, 0.12 * rx))
        canvas = (canvas.astype(np.float32) * (1 - 0.45 * lighting.shadows * shadow_layer[:, :, None])).astype(np.uint8)
    drawn = []
    for x, y, colour, p, layer in sorted(positions, key=lambda t: t[4]):
        body = style.light if colour == "light" else style.dark
        rim = style.rim or _shade(body, 0.7 if colour == "light" else 1.6)
        lift = layer * 0.12 * rx  # a checker standing on another looks nearer the camera
        cx, cy = to_canvas(x, y)
        cx, cy = int(cx - lift), int(cy - lift)
        cv2.ellipse(canvas, (cx, cy), (int(rx), int(ry)), 0, 0, 360, rim, -1, cv2.LINE_AA)
        cv2.ellipse(canvas, (cx, cy), (int(rx * 0.88), int(ry * 0.88)), 0, 0, 360, body, -1, cv2.LINE_AA)
        cv2.ellipse(canvas, (cx, cy), (int(rx * 0.6), int(ry * 0.6)), 0, 0, 360, _shade(body, 0.93 if colour == "light" else 1.25), 2, cv2.LINE_AA)
        cv2.ellipse(canvas, (cx - int(rx * 0.25), cy - int(ry * 0.25)), (int(rx * 0.25), int(ry * 0.18)), -30, 0, 360,
                    _shade(body, 1.06 if colour == "light" else 1.5), -1, cv2.LINE_AA)
        if style.checker_mark:
            _mark_checker(canvas, (cx, cy), rx, ry, style.checker_mark, _shade(body, style.mark_shade))
        drawn.append((x, y, colour, p))
    # Off checkers: edge-on stacks in the right-hand tray (light top, dark bottom).
    for colour, top in (("light", True), ("dark", False)):
        n = state.off_count(colour)
        body = style.light if colour == "light" else style.dark
        tx = cw - m + m // 6
        for k in range(n):
            yy = my + (int(0.05 * fh * _S) + k * int(0.025 * fh * _S) if top else int(fh * _S) - int(0.05 * fh * _S) - k * int(0.025 * fh * _S))
            cv2.rectangle(canvas, (tx + 3, yy), (tx + int(m * 0.66) - 3, yy + int(0.02 * fh * _S)), body, -1)
            drawn.append((fw + 0.5 * _MARGIN * fw, (yy - my) / _S, colour, 25))

    # Canvas -> image.
    img_w, img_h = pose.image_size
    field_img = np.array(pose.corners, dtype=np.float64)
    field_canon = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], dtype=np.float64)
    f2i = cv2.getPerspectiveTransform(field_canon.astype(np.float32), field_img.astype(np.float32)).astype(np.float64)
    canvas_to_field = np.array([[1 / _S, 0, -m / _S], [0, 1 / _S, -my / _S], [0, 0, 1]])
    c2i = f2i @ canvas_to_field
    image = np.empty((img_h, img_w, 3), np.uint8)
    image[:] = background
    table_noise = rng.normal(0, 4, (img_h, img_w, 1)).astype(np.float32)
    image = np.clip(image.astype(np.float32) + table_noise, 0, 255).astype(np.uint8)
    image = cv2.warpPerspective(canvas, c2i, (img_w, img_h), dst=image, flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_TRANSPARENT)

    # Hands.
    image, hand_mask = draw_hands(image, f2i, hands, pw)

    # Light and sensor.
    out = image.astype(np.float32) * lighting.brightness
    if lighting.gradient > 0:
        a = math.radians(lighting.gradient_deg)
        yy, xx = np.mgrid[0:img_h, 0:img_w].astype(np.float32)
        t = ((xx - img_w / 2) * math.cos(a) + (yy - img_h / 2) * math.sin(a)) / (0.5 * math.hypot(img_w, img_h))
        out *= 1.0 - lighting.gradient * np.clip((t[:, :, None] + 1) / 2, 0, 1)
    if lighting.blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), lighting.blur)
    if lighting.noise > 0:
        out += rng.normal(0, lighting.noise, out.shape).astype(np.float32)
    image = np.clip(out, 0, 255).astype(np.uint8)
    if lighting.jpeg:
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(lighting.jpeg)])
        image = cv2.imdecode(buf, cv2.IMREAD_COLOR)

    # Truth.
    covered = hand_mask > 0
    unreadable = []
    slot_h = dh
    for p, (n, _c) in enumerate(state.points, start=1):
        col = 12 - p if p <= 12 else p - 13
        px0 = col * pw if col < 6 else bar_x1 + (col - 6) * pw
        extent = max(n, 1) * slot_h + 0.5 * slot_h
        if n > 5:
            extent = 0.5 * fh
        ys = np.linspace(2, min(extent, 0.5 * fh - 2), 12)
        xs = np.linspace(px0 + 0.15 * pw, px0 + 0.85 * pw, 5)
        gx, gy = np.meshgrid(xs, ys)
        gy = gy if p > 12 else fh - gy
        pts = _apply(f2i, np.stack([gx.ravel(), gy.ravel()], axis=1))
        inside = (pts[:, 0] >= 0) & (pts[:, 0] < img_w) & (pts[:, 1] >= 0) & (pts[:, 1] < img_h)
        hit = np.zeros(len(pts), bool)
        hit[inside] = covered[pts[inside, 1].astype(int), pts[inside, 0].astype(int)]
        if hit.mean() > 0.04:
            unreadable.append(p)
    truth = {
        "points": [{"point": p, "count": n, "colour": c} for p, (n, c) in enumerate(state.points, start=1)],
        "bar": {"light": state.bar_count("light"), "dark": state.bar_count("dark")},
        "off": {"light": state.off_count("light"), "dark": state.off_count("dark")},
        "off_visible": True,
        "unreadable_points": unreadable,
        "occluded": bool(hands),
    }
    checkers = tuple((*_apply(f2i, np.array([[x, y]]))[0], c, p) for x, y, c, p in drawn)
    return RenderedBoard(image, truth, field_img, f2i, tuple((float(a), float(b), c, p) for a, b, c, p in checkers),
                         covered)



def draw_hands(image: np.ndarray, field_to_image: np.ndarray, hands: Sequence[Hand],
               point_width: float) -> tuple[np.ndarray, np.ndarray]:
    """``image`` ((H, W, 3) uint8 BGR, not changed) with ``hands`` drawn over it: a palm, five
    fingers and an arm in a sleeve reaching in from the image's edge. ``field_to_image``: (3, 3)
    homography from the canonical field (``FIELD_WIDTH`` x ``FIELD_HEIGHT``) to image pixels;
    ``point_width``: a point's width in canonical field units (a palm of ``size`` 1 is about
    two points wide). Returns the new image and its (H, W) uint8 mask, 255 under the hands."""
    import cv2

    img_h, img_w = image.shape[:2]
    f2i = field_to_image
    fw, fh = FIELD_WIDTH, FIELD_HEIGHT
    pw = point_width
    hand_mask = np.zeros((img_h, img_w), np.uint8)
    hand_layer = image.copy()
    for hand in hands:
        cx, cy = _apply(f2i, np.array([[hand.at[0] * fw, hand.at[1] * fh]]))[0]
        unit = np.linalg.norm(_apply(f2i, np.array([[pw, 0.0]]))[0] - _apply(f2i, np.array([[0.0, 0.0]]))[0])
        r = hand.size * unit * 1.1
        edge = {"bottom": (cx, img_h + r), "top": (cx, -r), "left": (-r, cy), "right": (img_w + r, cy)}[hand.from_edge]
        cv2.line(hand_mask, (int(cx), int(cy)), (int(edge[0]), int(edge[1])), 255, int(1.3 * r))
        cv2.ellipse(hand_mask, (int(cx), int(cy)), (int(r), int(r * 1.2)), 0, 0, 360, 255, -1)
        ang = math.atan2(cy - edge[1], cx - edge[0])
        for k in range(-2, 3):  # fingers
            a = ang + k * 0.28
            fx, fy = cx + math.cos(a) * r * 1.9, cy + math.sin(a) * r * 1.9
            cv2.line(hand_mask, (int(cx), int(cy)), (int(fx), int(fy)), 255, max(2, int(0.32 * r)))
        sleeve = np.zeros_like(hand_mask)
        cv2.line(sleeve, (int(cx + (edge[0] - cx) * 0.45), int(cy + (edge[1] - cy) * 0.45)),
                 (int(edge[0]), int(edge[1])), 255, int(1.5 * r))
        hand_layer[hand_mask > 0] = hand.colour
        hand_layer[sleeve > 0] = (40, 30, 30)
        hand_mask |= sleeve
    if hands:
        soft = cv2.GaussianBlur(hand_mask.astype(np.float32) / 255, (0, 0), 2)[:, :, None]
        image = (image * (1 - soft) + hand_layer * soft).astype(np.uint8)
    return image, hand_mask

def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    homog = np.hstack([pts, np.ones((len(pts), 1))]) @ h.T
    return homog[:, :2] / homog[:, 2:3]


def _text_fit(text: str, width: float, thickness: int) -> float:
    """The ``cv2.FONT_HERSHEY_SIMPLEX`` scale at which ``text`` is ``width`` canvas pixels wide."""
    import cv2

    w0 = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 1.0, thickness)[0][0]
    return width / max(w0, 1)


def _put_centred(canvas: np.ndarray, text: str, centre: tuple[float, float], width: float, colour: BGR,
                 thickness: int) -> None:
    """``text`` written ``width`` canvas pixels wide, centred on ``centre``."""
    import cv2

    scale = _text_fit(text, width, thickness)
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    org = (int(round(centre[0] - tw / 2)), int(round(centre[1] + th / 2)))
    cv2.putText(canvas, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thickness, cv2.LINE_AA)


def _mark_checker(canvas: np.ndarray, centre: tuple[int, int], rx: float, ry: float, mark: str, colour: BGR) -> None:
    """An embossed mark on a checker's face: ``mark`` in ``colour``, about half the face wide,
    inside a thin ring (canvas pixels)."""
    import cv2

    cv2.ellipse(canvas, centre, (int(rx * 0.55), int(ry * 0.55)), 0, 0, 360, colour, max(1, int(rx * 0.06)), cv2.LINE_AA)
    _put_centred(canvas, mark, centre, rx * (0.45 if len(mark) == 1 else 0.75), colour, max(1, int(rx * 0.1)))


def _print_on_field(canvas: np.ndarray, style: BoardStyle, to_canvas, bar_x0: float, bar_x1: float) -> None:
    """The maker's print: in each half, at the field's mid-height, a square logo (the first two
    letters of the maker's name, ``field_print`` without its ``www.``, in the field's colour on
    ``print_colour``, 0.08 of the field's height) and the whole print beside it, 0.6 of the half's
    width (canvas pixels through ``to_canvas``)."""
    fw, fh = FIELD_WIDTH, FIELD_HEIGHT
    for x0, x1 in ((0.0, bar_x0), (bar_x1, fw)):
        width = (x1 - x0) * 0.6
        side = fh * 0.08
        left = x0 + ((x1 - x0) - width - side * 1.3) / 2
        ly = fh / 2
        (ax, ay), (bx, by) = to_canvas(left, ly - side / 2), to_canvas(left + side, ly + side / 2)
        canvas[ay:by, ax:bx] = style.print_colour
        brand = style.field_print.removeprefix("www.")[:2].upper()
        _put_centred(canvas, brand, ((ax + bx) / 2, (ay + by) / 2), (bx - ax) * 0.7, style.field,
                     max(1, int((bx - ax) * 0.08)))
        cx, cy = to_canvas(left + side * 1.3 + width / 2, ly)
        _put_centred(canvas, style.field_print, (cx, cy), to_canvas(width, 0)[0] - to_canvas(0, 0)[0],
                     style.print_colour, 1)


def random_style(rng: np.random.Generator, name: str = "random", marks: bool = False) -> BoardStyle:
    """A board of random colours (any pairing: checkers may share their point's or the field's
    colour), proportions and grain; ``marks``: with letters embossed on the checkers (two boards
    in three) and a maker's print on the field (one in two), as :class:`BoardStyle` describes."""
    def colour() -> BGR:
        return tuple(int(v) for v in rng.integers(15, 245, 3))  # type: ignore[return-value]

    p1, p2, field = colour(), colour(), colour()
    light = p1 if rng.random() < 0.4 else colour()
    dark = p2 if rng.random() < 0.4 else (field if rng.random() < 0.2 else colour())
    style = BoardStyle(name, field=field, points=(p1, p2), bar=colour(), frame=colour(), light=light, dark=dark,
                       rim=None if rng.random() < 0.5 else colour(),
                       geometry=BoardGeometry(bar_width=float(rng.uniform(0.05, 0.08)),
                                              aspect=float(rng.uniform(1.05, 1.13))),
                       texture=float(rng.uniform(0, 14)))
    return random_marks(rng, style) if marks else style


def random_marks(rng: np.random.Generator, style: BoardStyle) -> BoardStyle:
    """``style`` with random marks: letters embossed on the checkers (two boards in three, one or
    two letters, darker or lighter than the body) and a maker's print on the field (one in two),
    as :class:`BoardStyle` describes them."""
    letters = "ABCDEFGHKLMNPRSTUVWXZ"

    def word(n: int) -> str:
        return "".join(letters[int(k)] for k in rng.integers(len(letters), size=n))

    mark = word(int(rng.integers(1, 3))) if rng.random() < 2 / 3 else ""
    printed = ("www." + word(int(rng.integers(5, 10))).lower() + ".com") if rng.random() < 0.5 else ""
    shade = float(rng.uniform(0.55, 0.85)) if rng.random() < 0.5 else float(rng.uniform(1.15, 1.5))
    ink = tuple(int(v) for v in rng.integers(15, 245, 3))
    return dataclasses.replace(style, checker_mark=mark, mark_shade=shade, field_print=printed,
                               print_colour=ink)  # type: ignore[arg-type]


def random_state(rng: np.random.Generator, max_stack: int = 7, bar_prob: float = 0.3) -> BoardState:
    """A random plausible board state (15 checkers a side, some on the bar or off).

    ``rng``: a NumPy generator; ``max_stack``: the tallest point it makes.
    """
    counts = [0] * 24
    owner: list[Optional[str]] = [None] * 24
    bar = {"light": 0, "dark": 0}
    off = {"light": 0, "dark": 0}
    for colour in ("light", "dark"):
        left = 15
        if rng.random() < bar_prob:
            k = int(rng.integers(1, 3))
            bar[colour] = k
            left -= k
        if rng.random() < 0.2:
            k = int(rng.integers(1, 5))
            off[colour] = k
            left -= k
        while left > 0:
            p = int(rng.integers(0, 24))
            if owner[p] not in (None, colour) or counts[p] >= max_stack:
                continue
            owner[p] = colour
            counts[p] += 1
            left -= 1
    pts = tuple((counts[i], owner[i] if counts[i] else None) for i in range(24))
    return BoardState(pts, (("light", bar["light"]), ("dark", bar["dark"])), (("light", off["light"]), ("dark", off["dark"])))  # type: ignore[arg-type]

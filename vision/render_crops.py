"""Synthetic point crops with their labels: the training data of the learned checker reader,
and the board-independent part of what calibration adapts it with (:mod:`vision.board_learning`).

Each sample is what :func:`vision.point_crops.point_crops` cuts out of a registered frame:
one point's column, base at the top, (CROP_HEIGHT, CROP_WIDTH, 3) uint8 BGR, and its label,
the number of checkers on the point (0..15) or :data:`HIDDEN` when a hand, an arm or a cup
covers the place where the checkers stand.

The world drawn is wide on purpose, so that the reader learns checkers rather than one board:
fields of flat paint, wood grain, felt, leather or cloth; points painted, printed or inlaid,
in any pair of colours (checkers may share the colour of their point or of the field);
checkers of plastic, wood, marble, mother-of-pearl, metal or struck metal (rings in relief, like
a coin), with rims, grooves, logos, marks of another colour (a star, a ring, a cross, letters), a
visible thickness and a drop shadow (dark checkers on dark points of another hue, navy on black,
among the pairings); neighbours' checkers at the crop's edges; stacks in a
line, overlapping past a full line or two high; dice lying on checkers or on the empty point;
hands and sleeves; lighting gradients, white balance, specular highlights, blur, noise and JPEG;
and a registration a few percent off (shift, scale, rotation, shear).

Everything is drawn at twice the crop's size and shrunk (area averaging) for smooth edges.
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from vision.point_crops import CROP_HEIGHT, CROP_SCALE, CROP_WIDTH
from vision.registration import FIELD_HEIGHT, FIELD_WIDTH

#: Label of a crop whose checkers a hand or an object hides.
HIDDEN = 16
#: Number of classes: counts 0..15 and HIDDEN.
CLASSES = 17

_K = 2  # drawing scale


def _rand_colour(rng: np.random.Generator, dark: Optional[bool] = None) -> np.ndarray:
    """A random BGR colour (float32), optionally dark or light."""
    import cv2

    if dark is None:
        v = rng.uniform(20, 245)
    else:
        v = rng.uniform(10, 90) if dark else rng.uniform(150, 250)
    s = rng.choice([rng.uniform(0, 40), rng.uniform(40, 230)])
    h = rng.uniform(0, 180)
    hsv = np.uint8([[[h, s, v]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _palette(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Colours of one board: field, two point colours, two checker sets."""
    field = _rand_colour(rng)
    p1, p2 = _rand_colour(rng), _rand_colour(rng)
    light, dark = _rand_colour(rng, dark=False), _rand_colour(rng, dark=True)
    r = rng.random()
    # The hard pairings on purpose: checkers the colour of a point or of the field.
    if r < 0.15:
        dark = p1 + rng.normal(0, 8, 3).astype(np.float32)
    elif r < 0.3:
        light = p2 + rng.normal(0, 8, 3).astype(np.float32)
    elif r < 0.4:
        light = field + rng.normal(0, 10, 3).astype(np.float32)
    elif r < 0.5:
        dark = field + rng.normal(0, 10, 3).astype(np.float32)
    elif r < 0.6:  # dark checkers of another hue on dark points (navy on black), or light on light
        if rng.random() < 0.6:
            p1, dark = _rand_colour(rng, dark=True), _rand_colour(rng, dark=True)
        else:
            p2, light = _rand_colour(rng, dark=False), _rand_colour(rng, dark=False)
    return {"field": field, "p1": p1, "p2": p2, "light": light, "dark": dark}


def _texture(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """A (h, w) float32 zero-mean texture: grain, wood streaks, felt, leather or cloth weave."""
    import cv2

    h, w = shape
    kind = rng.integers(0, 5)
    if kind == 0:
        return np.zeros(shape, np.float32)
    if kind == 1:  # wood: streaks along a direction
        n = rng.normal(0, 1, (h, max(2, w // 6))).astype(np.float32)
        t = cv2.resize(cv2.GaussianBlur(n, (0, 0), 1.5), (w, h))
        if rng.random() < 0.5:
            t = cv2.resize(cv2.GaussianBlur(rng.normal(0, 1, (max(2, h // 6), w)).astype(np.float32), (0, 0), 1.5), (w, h))
        return t * rng.uniform(4, 16)
    if kind == 2:  # felt / fine grain
        return cv2.GaussianBlur(rng.normal(0, 1, shape).astype(np.float32), (0, 0), rng.uniform(0.6, 1.5)) * rng.uniform(4, 12)
    if kind == 3:  # leather: blotches
        n = cv2.GaussianBlur(rng.normal(0, 1, shape).astype(np.float32), (0, 0), rng.uniform(3, 8))
        return n / (n.std() + 1e-6) * rng.uniform(3, 10)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)  # cloth weave
    p = rng.uniform(2.5, 5)
    return (np.sin(xx * 2 * math.pi / p) * np.sin(yy * 2 * math.pi / p)).astype(np.float32) * rng.uniform(3, 9)


def _draw_checker(img: np.ndarray, cx: float, cy: float, rx: float, ry: float, body: np.ndarray,
                  look: dict, rng: np.random.Generator, light_dir: tuple[float, float]) -> None:
    """One checker onto ``img`` (float32 BGR at drawing scale): thickness, rim, grooves, material."""
    import cv2

    tx, ty = look["thick"]
    side = np.clip(body * look["side_shade"], 0, 255)
    centre = (int(round(cx * 16)), int(round(cy * 16)))
    axes = (int(round(rx * 16)), int(round(ry * 16)))
    if tx or ty:
        below = (int(round((cx + tx) * 16)), int(round((cy + ty) * 16)))
        cv2.ellipse(img, below, axes, 0, 0, 360, side.tolist(), -1, cv2.LINE_AA, 4)
        quad = np.array([[cx - rx, cy], [cx + rx, cy], [cx + rx + tx, cy + ty], [cx - rx + tx, cy + ty]]) * 16
        cv2.fillConvexPoly(img, quad.astype(np.int32), side.tolist(), cv2.LINE_AA, 4)
    rim = np.clip(body * look["rim_shade"], 0, 255)
    cv2.ellipse(img, centre, axes, 0, 0, 360, rim.tolist(), -1, cv2.LINE_AA, 4)
    inner = (int(axes[0] * look["rim_w"]), int(axes[1] * look["rim_w"]))
    cv2.ellipse(img, centre, inner, 0, 0, 360, body.tolist(), -1, cv2.LINE_AA, 4)
    x0, y0 = int(max(0, cx - rx)), int(max(0, cy - ry))
    x1, y1 = int(min(img.shape[1], cx + rx + 1)), int(min(img.shape[0], cy + ry + 1))
    if x1 > x0 and y1 > y0:
        mat = look["material"]
        if mat != "plastic":
            m = np.zeros((y1 - y0, x1 - x0), np.float32)
            cv2.ellipse(m, (int((cx - x0) * 16), int((cy - y0) * 16)), inner, 0, 0, 360, 1.0, -1, cv2.LINE_AA, 4)
            if mat == "marble":
                t = cv2.GaussianBlur(rng.normal(0, 1, m.shape).astype(np.float32), (0, 0), 1.2)
                t = np.abs(np.sin(t * 3)) * 40 - 20
            elif mat == "wood":
                yy = np.arange(m.shape[0], dtype=np.float32)[:, None]
                t = np.sin(yy * rng.uniform(0.5, 1.5) + rng.normal(0, 0.8, m.shape).astype(np.float32)) * 14
            elif mat == "pearl":
                t = cv2.GaussianBlur(rng.normal(0, 1, m.shape).astype(np.float32), (0, 0), 2) * 25
            elif mat == "metal":  # a bright band
                yy, xx = np.mgrid[0:m.shape[0], 0:m.shape[1]].astype(np.float32)
                t = np.cos((xx - yy) / max(rx, 1) * 2) * 35
            else:  # struck metal, like a coin: bright and dark rings in relief, lit from one side
                yy, xx = np.mgrid[0:m.shape[0], 0:m.shape[1]].astype(np.float32)
                rr = np.hypot((xx - (cx - x0)) / max(rx, 1), (yy - (cy - y0)) / max(ry, 1))
                side = ((xx - (cx - x0)) * light_dir[0] + (yy - (cy - y0)) * light_dir[1]) / max(rx, 1)
                t = (np.cos(rr * rng.uniform(8, 16)) * rng.uniform(30, 70) + side * rng.uniform(20, 60)
                     + rng.normal(0, 12, m.shape).astype(np.float32))
            img[y0:y1, x0:x1] += (m * t)[:, :, None]
    for g in look["grooves"]:
        ax = (int(axes[0] * g), int(axes[1] * g))
        col = np.clip(body * look["groove_shade"], 0, 255)
        cv2.ellipse(img, centre, ax, 0, 0, 360, col.tolist(), max(1, int(rx * 0.06)), cv2.LINE_AA, 4)
    if look["logo"]:
        col = np.clip(body * rng.uniform(0.6, 1.4), 0, 255)
        cv2.ellipse(img, centre, (int(axes[0] * 0.3), int(axes[1] * 0.3)), 0, 0, 360, col.tolist(), -1, cv2.LINE_AA, 4)
    if look["emblem"] is not None:
        _draw_emblem(img, cx, cy, rx, ry, look["emblem"], rng)
    if look["shine"] > 0:  # a specular highlight towards the light
        hx, hy = cx + light_dir[0] * rx * 0.45, cy + light_dir[1] * ry * 0.45
        spot = np.zeros(img.shape[:2], np.float32)
        cv2.ellipse(spot, (int(hx * 16), int(hy * 16)), (int(rx * 4), int(ry * 3)), rng.uniform(0, 180), 0, 360, 1.0, -1,
                    cv2.LINE_AA, 4)
        spot = cv2.GaussianBlur(spot, (0, 0), max(1.0, rx * 0.15))
        img += spot[:, :, None] * look["shine"]


def _emblem(rng: np.random.Generator) -> dict:
    """A mark on a checker's face in a colour of its own (a white star on navy, a gold ring, a
    cross or a maker's letters): its shape, colour, size over the face and turn."""
    return {"shape": str(rng.choice(["star", "ring", "cross", "letters"])), "colour": _rand_colour(rng),
            "size": float(rng.uniform(0.35, 0.8)), "turn": float(rng.uniform(0, 2 * math.pi)),
            "text": "".join(rng.choice(list("ABCDGHKMRSW")) for _ in range(int(rng.integers(1, 4))))}


def _draw_emblem(img: np.ndarray, cx: float, cy: float, rx: float, ry: float, emblem: dict,
                 rng: np.random.Generator) -> None:
    """:func:`_emblem`'s mark onto ``img`` (float32 BGR at drawing scale), centred on a checker's
    face of radii ``rx`` x ``ry`` pixels; its colour a little off from checker to checker."""
    import cv2

    col = np.clip(emblem["colour"] + rng.normal(0, 6, 3), 0, 255).tolist()
    sx, sy = rx * emblem["size"], ry * emblem["size"]
    shape = emblem["shape"]
    if shape == "star":
        k = np.arange(10)
        r = np.where(k % 2 == 0, 1.0, 0.42)
        a = emblem["turn"] + k * math.pi / 5
        pts = np.stack([cx + sx * r * np.cos(a), cy + sy * r * np.sin(a)], axis=1) * 16
        cv2.fillPoly(img, [pts.astype(np.int32)], col, cv2.LINE_AA, 4)
    elif shape == "ring":
        cv2.ellipse(img, (int(cx * 16), int(cy * 16)), (int(sx * 16), int(sy * 16)), 0, 0, 360, col,
                    max(1, int(rx * 0.12)), cv2.LINE_AA, 4)
    elif shape == "cross":
        for a in (emblem["turn"], emblem["turn"] + math.pi / 2):
            d = np.array([math.cos(a) * sx, math.sin(a) * sy])
            cv2.line(img, (int((cx - d[0]) * 16), int((cy - d[1]) * 16)), (int((cx + d[0]) * 16), int((cy + d[1]) * 16)),
                     col, max(1, int(rx * 0.18)), cv2.LINE_AA, 4)
    else:
        scale = max(0.2, sx / 14)
        (tw, th), _ = cv2.getTextSize(emblem["text"], cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        ink = np.zeros(img.shape[:2], np.uint8)
        cv2.putText(ink, emblem["text"], (int(cx - tw / 2), int(cy + th / 2)), cv2.FONT_HERSHEY_SIMPLEX, scale, 255,
                    max(1, int(rx * 0.1)), cv2.LINE_AA)
        a = (ink.astype(np.float32) / 255)[:, :, None]
        img[:] = img * (1 - a) + np.float32(col) * a


def _look(rng: np.random.Generator) -> dict:
    """How one checker set is made: material, rim, grooves, a logo or a mark of another colour
    (:func:`_emblem`), shine, thickness seen by the camera."""
    tilt = rng.uniform(0, 0.18)
    ang = rng.uniform(0, 2 * math.pi)
    return {
        "material": rng.choice(["plastic", "plastic", "plastic", "wood", "marble", "pearl", "metal", "coin"]),
        "rim_shade": rng.choice([rng.uniform(0.55, 0.9), rng.uniform(1.1, 1.6)]),
        "rim_w": rng.uniform(0.72, 0.95),
        "grooves": list(rng.uniform(0.3, 0.8, rng.integers(0, 3))),
        "groove_shade": rng.uniform(0.6, 1.3),
        "logo": rng.random() < 0.15,
        "emblem": _emblem(rng) if rng.random() < 0.2 else None,
        "shine": rng.choice([0.0, rng.uniform(20, 90)]),
        "side_shade": rng.uniform(0.45, 0.85),
        "thick_frac": (tilt * math.cos(ang), abs(tilt * math.sin(ang))),
    }


def _stack_positions(n: int, dh: float, half: float, mode: str, margin: float, rng: np.random.Generator,
                     sloppy: float, dw: float) -> list[tuple[float, float, int]]:
    """Centres (dx from the column centre, y from the base, layer) of ``n`` checkers in crop pixels."""
    max_line = half - 0.1 * dh
    per_line = max(1, int(max_line // dh))
    out = []
    if mode == "two_high" and n > per_line:
        layer, slot = 0, 0
        for _ in range(n):
            out.append((0.0, margin + dh / 2 + (slot + 0.5 * layer) * dh, layer))
            slot += 1
            if slot >= per_line - layer:
                layer, slot = layer + 1, 0
                if per_line - layer <= 0:
                    layer, slot = 0, 0
        return out
    if n <= per_line:
        pitch = dh * rng.uniform(0.96, 1.04)
    else:
        pitch = (max_line - dh - margin) / max(n - 1, 1) * rng.uniform(0.85, 1.0)
    gap = 0.0
    for k in range(n):
        dx = rng.uniform(-sloppy, sloppy) * dw
        if n <= per_line and sloppy > 0:
            gap += rng.uniform(0, 0.3 * sloppy) * dh
        out.append((dx, margin + dh / 2 + k * pitch + gap, 0))
    return out


def draw_hand(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A hand, arm, sleeve or cup over part of ``img`` ((h, w, 3) float32 BGR, changed in place);
    returns its (h, w) float32 coverage in 0..1."""
    import cv2

    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.float32)
    kind = rng.integers(0, 3)
    if kind == 0:  # an arm crossing
        a = rng.uniform(0, math.pi)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        d = np.array([math.cos(a), math.sin(a)]) * 2 * h
        cv2.line(mask, (int(cx - d[0]), int(cy - d[1])), (int(cx + d[0]), int(cy + d[1])), 1.0, int(rng.uniform(0.5, 1.6) * w))
    elif kind == 1:  # a palm with fingers
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.4, 1.0) * w
        cv2.ellipse(mask, (int(cx), int(cy)), (int(r), int(r * 1.2)), rng.uniform(0, 180), 0, 360, 1.0, -1)
        for _ in range(rng.integers(2, 6)):
            a = rng.uniform(0, 2 * math.pi)
            cv2.line(mask, (int(cx), int(cy)), (int(cx + math.cos(a) * 2 * r), int(cy + math.sin(a) * 2 * r)), 1.0,
                     max(2, int(0.35 * r)))
    else:  # a cup
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.5, 1.2) * w
        cv2.circle(mask, (int(cx), int(cy)), int(r), 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.5)
    skin = np.array([rng.uniform(60, 200), rng.uniform(90, 210), rng.uniform(130, 240)], np.float32)
    if kind == 2 or rng.random() < 0.3:
        skin = _rand_colour(rng)
    shade = _texture(rng, (h, w))
    layer = skin[None, None, :] + shade[:, :, None] + rng.normal(0, 3, (h, w, 1)).astype(np.float32)
    img[:] = img * (1 - mask[:, :, None]) + layer * mask[:, :, None]
    return mask


def render_crop(rng: np.random.Generator, count: Optional[int] = None, bar: bool = False) -> tuple[np.ndarray, int]:
    """One synthetic crop and its label.

    ``count``: the checkers on the point (0..15), random when ``None``; ``bar``: a crop of
    one half of the bar (:func:`vision.point_crops.bar_crops`: the bar's band between the
    innermost points, the field's middle on row 0, checkers standing anywhere along it)
    instead of a point. Returns ((CROP_HEIGHT, CROP_WIDTH, 3) uint8 BGR, label 0..15 or
    :data:`HIDDEN`).
    """
    import cv2

    if count is None:
        count = int(rng.choice(16, p=_BAR_P if bar else _COUNT_P))
    K = _K
    W, H = CROP_WIDTH * K, CROP_HEIGHT * K
    pal = _palette(rng)
    # Geometry of this board at crop scale (registration off by a few percent).
    bar_w = rng.uniform(0.03, 0.11)
    pw = FIELD_WIDTH * (1 - bar_w) / 12 * CROP_SCALE * rng.uniform(0.94, 1.06) * K
    cd = rng.uniform(0.82, 1.0)
    dw = pw * cd
    aspect = rng.uniform(0.95, 1.2)
    dh = dw * (FIELD_HEIGHT / FIELD_WIDTH) * aspect
    half = H * rng.uniform(0.97, 1.03)
    margin = rng.uniform(-0.02, 0.08) * dh
    cx = W / 2 + rng.uniform(-0.1, 0.1) * pw
    # Field and points.
    img = np.empty((H, W, 3), np.float32)
    img[:] = pal["field"]
    img += _texture(rng, (H, W))[:, :, None]
    plen = FIELD_HEIGHT * rng.uniform(0.36, 0.46) * CROP_SCALE * K
    mine = rng.random() < 0.5
    tri_w = rng.uniform(0.85, 1.02)
    # Points come straight-sided, or narrowing fast from a wide base (a dark bulb at the base that
    # looks like a checker to a careless eye), or slowly; their base corners sharp or rounded.
    bend = float(rng.choice([1.0, rng.uniform(1.2, 2.6), rng.uniform(0.6, 0.9)], p=[0.5, 0.35, 0.15]))
    round_base = rng.random() < 0.3
    outline = rng.random() < 0.25
    bw = FIELD_WIDTH * bar_w * CROP_SCALE * K
    if bar and rng.random() < 0.75:  # the bar: a raised strip of the frame's wood, leather or paint
        band = bw * rng.uniform(0.8, 1.1)
        x0, x1 = max(0, int(round(cx - band / 2))), min(W, int(round(cx + band / 2)))
        img[:, x0:x1] = _rand_colour(rng, dark=bool(rng.random() < 0.5))
        img[:, x0:x1] += _texture(rng, (H, x1 - x0))[:, :, None]
        if rng.random() < 0.3:  # the hinge down its middle
            hx = int(round(cx + rng.uniform(-0.05, 0.05) * band))
            img[:, max(0, hx - K // 2):hx + K // 2 + 1] *= rng.uniform(0.3, 0.8)
    for k in ((-1, 1) if bar else (-1, 0, 1)):
        col = pal["p1"] if (k % 2 == 0) == mine else pal["p2"]
        x = cx + k * ((bw + pw) / 2 if bar else pw)
        t = np.linspace(0.0, 1.0, 24)
        half_w = pw * tri_w / 2 * (1 - t) ** bend
        if round_base:  # the base corners rounded off over the first tenth
            half_w = half_w * np.minimum(1.0, 0.8 + 0.2 * np.sqrt(np.minimum(t / 0.1, 1.0)))
        side = np.stack([x + half_w, t * plen], axis=1)
        tri = np.concatenate([side, side[::-1] * [-1, 1] + [2 * x, 0]]) * 16
        cv2.fillPoly(img, [tri.astype(np.int32)], col.tolist(), cv2.LINE_AA, 4)
        if outline:
            cv2.polylines(img, [tri.astype(np.int32)], True, (col * rng.uniform(0.5, 1.5)).clip(0, 255).tolist(), K,
                          cv2.LINE_AA, 4)
    if rng.random() < 0.3:  # printed or inlaid points carry their own grain
        img += _texture(rng, (H, W))[:, :, None] * 0.5
    if rng.random() < 0.2:  # a maker's name or logo printed on the field, either way up
        ink = np.zeros((H, W), np.uint8)
        text = "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz.fim")) for _ in range(int(rng.integers(2, 8))))
        cv2.putText(ink, text, (int(rng.uniform(-0.5, 0.3) * W), int(rng.uniform(0.35, 1.0) * H)),
                    cv2.FONT_HERSHEY_SIMPLEX, rng.uniform(0.3, 0.9) * K / 2, 255, int(rng.integers(1, 3)), cv2.LINE_AA)
        if rng.random() < 0.5:
            ink = cv2.rotate(ink, cv2.ROTATE_180)
        a = (ink.astype(np.float32) / 255)[:, :, None]
        img[:] = img * (1 - a) + _rand_colour(rng) * a
    # Checkers: neighbours first (partly in view), then the point's own; each with a drop shadow.
    looks = {"light": _look(rng), "dark": _look(rng)}
    light_dir = (math.cos(a := rng.uniform(0, 2 * math.pi)), math.sin(a))
    sloppy = rng.choice([0.0, rng.uniform(0.0, 0.12)])
    mode = "two_high" if rng.random() < 0.25 else "overlap"
    shadow = rng.uniform(0, 0.6)
    sdx, sdy = rng.uniform(-0.12, 0.12) * dw, rng.uniform(-0.12, 0.12) * dh
    thick_scale = rng.uniform(0.5, 1.5)

    def draw_stack(x: float, n: int, colour: str) -> None:
        look = dict(looks[colour])
        fx, fy = look["thick_frac"]
        look["thick"] = (fx * dw * thick_scale, fy * dh * thick_scale)
        pos = _stack_positions(n, dh, half, mode, margin, rng, sloppy, dw)
        if shadow > 0:
            sh = np.zeros((H, W), np.float32)
            for dx, y, layer in pos:
                cv2.ellipse(sh, (int((x + dx + sdx) * 16), int((y + sdy) * 16)), (int(dw / 2 * 16), int(dh / 2 * 16)), 0,
                            0, 360, 1.0, -1, cv2.LINE_AA, 4)
            sh = cv2.GaussianBlur(sh, (0, 0), max(1.0, 0.15 * dw))
            img[:] = img * (1 - shadow * sh[:, :, None])
        body = pal[colour] + rng.normal(0, 4, 3).astype(np.float32)
        for dx, y, layer in sorted(pos, key=lambda t: t[2]):
            lift = layer * 0.1 * dw
            _draw_checker(img, x + dx - lift, y - lift, dw / 2, dh / 2, body, look, rng, light_dir)

    for k in (-1, 1):
        if not bar and rng.random() < 0.6:
            draw_stack(cx + k * pw, int(rng.choice(16, p=_COUNT_P)), rng.choice(["light", "dark"]))
    colour = rng.choice(["light", "dark"])
    if count:
        draw_stack(cx, count, colour)
    label = count
    if rng.random() < 0.12 and hand_over(img, rng, cx, dw, count, margin, dh):
        label = HIDDEN
    # Light and sensor.
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    g = rng.uniform(0, 0.5)
    a = rng.uniform(0, 2 * math.pi)
    ramp = 1 - g * (0.5 + 0.5 * ((xx / W - 0.5) * math.cos(a) + (yy / H - 0.5) * math.sin(a)))
    img *= ramp[:, :, None] * rng.uniform(0.6, 1.35)
    img *= rng.uniform(0.85, 1.15, 3).astype(np.float32)[None, None, :]  # white balance
    # Registration a few percent off and a camera not straight above: a small affine.
    ang = rng.uniform(-2, 2)
    sc = rng.uniform(0.95, 1.05)
    m = cv2.getRotationMatrix2D((W / 2, 0), ang, sc)
    m[0, 1] += rng.uniform(-0.04, 0.04)
    m[0, 2] += rng.uniform(-0.08, 0.08) * pw
    m[1, 2] += rng.uniform(-0.04, 0.04) * dh
    img = cv2.warpAffine(img, m, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    # Corners a little off: the field's edge (the frame around it) shows above the base, or the
    # base is cut a little short.
    r = rng.random()
    if r < 0.45:
        band = int(round(rng.uniform(0.0, 0.3) * dh))
        if band > 0:
            frame = _rand_colour(rng, dark=bool(rng.random() < 0.6))
            img[band:] = img[:H - band].copy()
            img[:band] = frame + _texture(rng, (band, W))[:, :, None]
    elif r < 0.65:
        cut = int(round(rng.uniform(0.0, 0.2) * dh))
        if cut > 0:
            img[:H - cut] = img[cut:].copy()
    if rng.random() < 0.5:
        img = img[:, ::-1]
    out = cv2.resize(img, (CROP_WIDTH, CROP_HEIGHT), interpolation=cv2.INTER_AREA)
    die_box = None
    if rng.random() < 0.2:
        out = np.clip(out, 0, 255).astype(np.uint8)
        die_box = die_on(out, rng, dw / K, count, margin / K, dh / K)
        out = out.astype(np.float32)
    b = rng.choice([0.0, rng.uniform(0.3, 1.2)])
    if b > 0:
        out = cv2.GaussianBlur(out, (0, 0), b)
    out += rng.normal(0, rng.uniform(0, 6), out.shape).astype(np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(40, 95))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    cover_like_reader(out, rng, die_box, dw / K)
    return out, label


def cover_like_reader(img: np.ndarray, rng: np.random.Generator, die_box: Optional[tuple[float, float, float, float]],
                      dw: float) -> None:
    """Cover a crop the way the reader covers what the dice plug-ins find
    (:func:`vision.point_crops.cover_boxes`): ``img`` (h, w, 3) uint8 BGR, changed in place.

    A drawn die (``die_box``, crop pixels) is covered 3 times in 4, with a box a little
    loose, tight or off (a found die's box is not exact); the other times it stays (a die
    the plug-in missed). A crop without a die gets a die-sized cover 1 time in 30 (a
    false find, the cube's box reaching in). ``dw``: a checker's width in crop pixels.
    """
    from vision.point_crops import cover_box

    if die_box is not None:
        if rng.random() >= 0.75:
            return
        x0, y0, x1, y1 = die_box
        sx, sy = x1 - x0, y1 - y0
        g = rng.uniform(-0.05, 0.3, 4) * np.array([sx, sy, sx, sy])
        d = rng.uniform(-0.1, 0.1, 2) * np.array([sx, sy])
        cover_box(img, (x0 - g[0] + d[0], y0 - g[1] + d[1], x1 + g[2] + d[0], y1 + g[3] + d[1]))
    elif rng.random() < 1 / 30:
        h, w = img.shape[:2]
        side = dw * rng.uniform(0.4, 1.0)
        x, y = w / 2 + rng.uniform(-0.4, 0.4) * dw, rng.uniform(0, h)
        cover_box(img, (x - side / 2, y - side / 2, x + side / 2, y + side / 2))


def hand_over(img: np.ndarray, rng: np.random.Generator, cx: float, dw: float, count: int, margin: float,
              dh: float) -> bool:
    """Draw a hand, arm or cup (:func:`draw_hand`) over a crop ((h, w, 3) float32 BGR, changed in
    place) whose point, centred at ``cx``, holds ``count`` checkers ``dw`` x ``dh`` pixels from
    ``margin`` below its base; True when it covers the place where they stand (and the first
    free place after them) by more than 4%: the point cannot be read."""
    h = img.shape[0]
    cover = draw_hand(img, rng)
    extent = min(h, int(margin + max(count, 1) * dh + 0.5 * dh)) if count <= 6 else h
    x0, x1 = int(cx - dw / 2), int(cx + dw / 2)
    area = cover[:extent, max(0, x0):x1]
    return bool(area.size and float((area > 0.5).mean()) > 0.04)


def die_on(img: np.ndarray, rng: np.random.Generator, dw: float, count: int, margin: float,
           dh: float) -> tuple[float, float, float, float]:
    """Draw one flat die (:func:`vision.render_dice.draw_die`, a random style, 0.3 to 0.8 of a
    checker's width ``dw``) on a crop ((h, w, 3) uint8 BGR, changed in place): on one of its
    ``count`` checkers or anywhere on the point. It changes no label: a die is no checker and
    hides none. Returns the die's box ``(x0, y0, x1, y1)`` in crop pixels."""
    from vision.render_dice import DIE_STYLES, draw_die

    h, w = img.shape[:2]
    side = max(3.0, dw * rng.uniform(0.3, 0.8))
    if count and rng.random() < 0.5:
        k = int(rng.integers(0, min(count, 6)))
        y = margin + dh / 2 + k * dh
    else:
        y = rng.uniform(0.05, 0.95) * h
    x = w / 2 + rng.uniform(-0.3, 0.3) * dw
    style = DIE_STYLES[int(rng.integers(len(DIE_STYLES)))]
    return draw_die(img, (x, min(y, h - 2)), side, int(rng.integers(1, 7)), yaw_deg=float(rng.uniform(0, 90)),
                    style=style).box


def count_prior(bar: bool = False) -> np.ndarray:
    """How often each count 0..15 is drawn: (16,) float64 summing to 1 (for a point, or for a
    half of the bar)."""
    return _BAR_P if bar else _COUNT_P


#: How often each count is drawn: low counts are common in play, tall stacks rarer.
_COUNT_P = np.array([24, 16, 14, 11, 9, 8, 5, 3.5, 2.5, 2, 1.5, 1.2, 1, 0.8, 0.7, 0.6], np.float64)
_COUNT_P = _COUNT_P / _COUNT_P.sum()
#: The same for a half of the bar: mostly empty, rarely more than three.
_BAR_P = np.array([40, 25, 15, 8, 4, 3, 2, 1, 0.5, 0.5, 0.3, 0.2, 0.2, 0.1, 0.1, 0.1], np.float64)
_BAR_P = _BAR_P / _BAR_P.sum()
#: Share of bar crops in the training data.
BAR_SHARE = 0.12


def make_crops(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` synthetic crops: ((n, CROP_HEIGHT, CROP_WIDTH, 3) uint8 BGR, (n,) int64 labels)."""
    rng = np.random.default_rng(seed)
    xs = np.empty((n, CROP_HEIGHT, CROP_WIDTH, 3), np.uint8)
    ys = np.empty(n, np.int64)
    for i in range(n):
        xs[i], ys[i] = render_crop(rng, bar=bool(rng.random() < BAR_SHARE))
    return xs, ys

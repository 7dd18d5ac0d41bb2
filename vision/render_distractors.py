"""Printed marks and checkers that are not dice, drawn onto synthetic training photos.

A photo of a board holds things a dice reader may take for a die: a checker (a disc with a rim)
and its printed or embossed icon (a ring round a dot reads like a one), a maker's text on the
frame ("www.f" read as a five), a printed scale (tick marks read as a four), small printed
symbols, the digits of a game clock's display. :func:`draw_distractors` draws such marks, about a die's size, onto an image and returns
boxes on them, which training samples as "not a die" patches
(:class:`vision.dice_data.LabelledImage` ``distractor_boxes``). No square outline round dots is
ever drawn: that is a die.
"""

from __future__ import annotations

import math
import string
from typing import Callable

import numpy as np

from vision.backgrounds import random_background

#: The kinds of marks :func:`draw_distractors` draws.
KINDS = ("text", "checker", "scale", "symbol", "display")

_TEXT_CHARS = string.ascii_letters + "..:/-&"


def draw_distractors(image: np.ndarray, rng: np.random.Generator, die_side: float,
                     centres: list[tuple[float, float]]) -> tuple[np.ndarray, list[float]]:
    """Draw one mark (a random kind of :data:`KINDS`) at each of ``centres`` (image pixels) onto
    ``image`` ((H, W, 3) uint8 BGR, in place), sized for dice of ``die_side`` pixels, each turned
    by a random angle. Returns the boxes to read as "not a die" ((M, 4) float64 ``x0, y0, x1, y1``,
    about a die's side, on the marks) and each mark's radius (pixels: how far it reaches from its
    centre, to keep dice off it). Raises ValueError for a ``die_side`` under 4 pixels."""
    if die_side < 4:
        raise ValueError(f"a die side of {die_side} pixels is too small to draw marks for")
    boxes: list[tuple[float, float, float, float]] = []
    radii: list[float] = []
    for cx, cy in centres:
        kind = KINDS[int(rng.integers(len(KINDS)))]
        canvas, mask, spots = _MARKS[kind](rng, die_side)
        radii.append(canvas.shape[0] / 2)
        _paste_turned(image, canvas, mask, (cx, cy), float(rng.uniform(0, 360)), rng, spots, die_side, boxes)
    return np.asarray(boxes, np.float64).reshape(-1, 4), radii


def marks_photos(n: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``n`` (480, 640, 3) uint8 BGR photos holding no die: a random table background
    (:func:`vision.backgrounds.random_background`) with six marks sized for dice of 18-60 pixels
    (a dice reader's false dice on them; ``benchmarks/dice_marks.py``)."""
    out = []
    for _ in range(n):
        img = random_background(rng, (640, 480))
        side = float(np.exp(rng.uniform(np.log(18), np.log(60))))
        spots = [(float(rng.uniform(2 * side, 640 - 2 * side)), float(rng.uniform(2 * side, 480 - 2 * side)))
                 for _ in range(6)]
        draw_distractors(img, rng, side, spots)
        out.append(img)
    return out


def _colour(rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, 256, 3).astype(np.float32)


def _text(rng: np.random.Generator, side: float) -> tuple[np.ndarray, np.ndarray, list[tuple[float, float]]]:
    """A short word (letters, dots, slashes) whose letters are 0.3-0.9 die sides high."""
    import cv2

    font = int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
                           cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX]))
    word = "".join(rng.choice(list(_TEXT_CHARS), int(rng.integers(2, 7))))
    height = side * rng.uniform(0.3, 0.9)
    scale = height / max(cv2.getTextSize("H", font, 1.0, 1)[0][1], 1)
    thick = max(1, int(round(scale * rng.uniform(1.0, 2.5))))
    (tw, th), base = cv2.getTextSize(word, font, scale, thick)
    n = int(math.ceil(max(tw, th + base) * 1.5)) + 4
    mask = np.zeros((n, n), np.uint8)
    x0, y0 = (n - tw) // 2, (n + th) // 2
    cv2.putText(mask, word, (x0, y0), font, scale, 255, thick, cv2.LINE_AA)
    spots = [(x0 + tw * f, y0 - th / 2) for f in rng.uniform(0.15, 0.85, 1 + int(tw > 2 * side))]
    return _ink(rng, mask), mask, spots


def _checker(rng: np.random.Generator, side: float) -> tuple[np.ndarray, np.ndarray, list[tuple[float, float]]]:
    """A checker seen from above: a disc 1-1.8 die sides across, a rim ring, often an icon at its
    centre (a dot, a ring, a ring round a dot, a cross)."""
    import cv2

    r = side * rng.uniform(0.5, 0.9)
    n = int(math.ceil(2 * r)) + 6
    c = (n // 2, n // 2)
    body = _colour(rng)
    canvas = np.empty((n, n, 3), np.float32)
    canvas[:] = body
    mask = np.zeros((n, n), np.uint8)
    cv2.circle(mask, c, int(round(r)), 255, -1, cv2.LINE_AA)
    shade = body + rng.choice([-1, 1]) * rng.uniform(30, 90)
    rim = max(1, int(round(r * rng.uniform(0.04, 0.12))))
    cv2.circle(canvas, c, int(round(r * rng.uniform(0.7, 0.9))), tuple(float(v) for v in shade), rim, cv2.LINE_AA)
    icon = int(rng.integers(5))
    ink = tuple(float(v) for v in (body + rng.choice([-1, 1]) * rng.uniform(60, 140)))
    if icon in (0, 2):
        cv2.circle(canvas, c, max(1, int(round(r * rng.uniform(0.08, 0.2)))), ink, -1, cv2.LINE_AA)
    if icon in (1, 2):
        cv2.circle(canvas, c, int(round(r * rng.uniform(0.3, 0.5))), ink, max(1, rim), cv2.LINE_AA)
    if icon == 3:
        a = int(round(r * rng.uniform(0.2, 0.4)))
        cv2.line(canvas, (c[0] - a, c[1]), (c[0] + a, c[1]), ink, max(1, rim), cv2.LINE_AA)
        cv2.line(canvas, (c[0], c[1] - a), (c[0], c[1] + a), ink, max(1, rim), cv2.LINE_AA)
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    if rng.random() < 0.35:  # metal (brass, gold, steel): turned rings catch the light
        rr = np.hypot(xx - c[0], yy - c[1]) / max(r, 1)
        canvas *= (0.8 + 0.35 * np.sin(2 * math.pi * rr * rng.uniform(1.5, 3.5) + rng.uniform(0, 6)))[..., None]
        hx, hy = c[0] + r * rng.uniform(-0.5, 0.5), c[1] + r * rng.uniform(-0.5, 0.5)
        canvas += (120 * np.exp(-((xx - hx) ** 2 + (yy - hy) ** 2) / (2 * (0.25 * r) ** 2)))[..., None]
    # lit from one side
    ang = rng.uniform(0, 2 * math.pi)
    canvas += (((xx - c[0]) * math.cos(ang) + (yy - c[1]) * math.sin(ang)) / max(r, 1) * rng.uniform(0, 25))[..., None]
    return np.clip(canvas, 0, 255).astype(np.uint8), mask, [(float(c[0]), float(c[1]))]


def _scale(rng: np.random.Generator, side: float) -> tuple[np.ndarray, np.ndarray, list[tuple[float, float]]]:
    """A printed scale: a line 2-4 die sides long with tick marks every 0.15-0.35 die sides,
    every fifth longer."""
    import cv2

    length = side * rng.uniform(2, 4)
    n = int(math.ceil(length)) + 6
    mask = np.zeros((n, n), np.uint8)
    y = n // 2
    x0 = (n - length) / 2
    thick = max(1, int(round(side * rng.uniform(0.03, 0.08))))
    cv2.line(mask, (int(x0), y), (int(x0 + length), y), 255, thick, cv2.LINE_AA)
    step = side * rng.uniform(0.15, 0.35)
    k, x = 0, x0
    while x <= x0 + length:
        h = side * (0.35 if k % 5 == 0 else 0.18)
        cv2.line(mask, (int(round(x)), y), (int(round(x)), int(round(y - h))), 255, thick, cv2.LINE_AA)
        x += step
        k += 1
    spots = [(x0 + length * f, y - side * 0.15) for f in rng.uniform(0.2, 0.8, 2)]
    return _ink(rng, mask), mask, spots


def _symbol(rng: np.random.Generator, side: float) -> tuple[np.ndarray, np.ndarray, list[tuple[float, float]]]:
    """A printed symbol about a die's size: a star, a ring round a dot, a triangle, an arrow or a
    cross."""
    import cv2

    r = side * rng.uniform(0.3, 0.6)
    n = int(math.ceil(2 * r)) + 6
    c = np.array([n / 2, n / 2])
    mask = np.zeros((n, n), np.uint8)
    thick = max(1, int(round(side * rng.uniform(0.04, 0.12))))
    kind = int(rng.integers(5))
    if kind == 0:
        ang = np.arange(10) * math.pi / 5
        rad = np.where(np.arange(10) % 2 == 0, r, r * 0.45)
        pts = np.stack([c[0] + rad * np.sin(ang), c[1] - rad * np.cos(ang)], 1)
        cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 255, cv2.LINE_AA)
    elif kind == 1:
        cv2.circle(mask, (int(c[0]), int(c[1])), int(round(r)), 255, thick, cv2.LINE_AA)
        cv2.circle(mask, (int(c[0]), int(c[1])), max(1, int(round(r * 0.25))), 255, -1, cv2.LINE_AA)
    elif kind == 2:
        ang = np.arange(3) * 2 * math.pi / 3
        pts = np.stack([c[0] + r * np.sin(ang), c[1] - r * np.cos(ang)], 1)
        cv2.polylines(mask, [np.round(pts).astype(np.int32)], True, 255, thick, cv2.LINE_AA)
    elif kind == 3:
        cv2.arrowedLine(mask, (int(c[0] - r), int(c[1])), (int(c[0] + r), int(c[1])), 255, thick,
                        cv2.LINE_AA, tipLength=0.4)
    else:
        a = int(round(r))
        cv2.line(mask, (int(c[0]) - a, int(c[1]) - a), (int(c[0]) + a, int(c[1]) + a), 255, thick, cv2.LINE_AA)
        cv2.line(mask, (int(c[0]) - a, int(c[1]) + a), (int(c[0]) + a, int(c[1]) - a), 255, thick, cv2.LINE_AA)
    return _ink(rng, mask), mask, [(float(c[0]), float(c[1]))]


#: Segments (a top, b top right, c bottom right, d bottom, e bottom left, f top left, g middle)
#: of each digit on a seven-segment display.
_SEGMENTS = ("abcdef", "bc", "abdeg", "abcdg", "bcfg", "acdfg", "acdefg", "abc", "abcdefg", "abcdfg")
#: Each segment's ends in a digit's box (x, y in 0..1 of its width and height, y down).
_SEGMENT_ENDS = {"a": ((0, 0), (1, 0)), "b": ((1, 0), (1, 0.5)), "c": ((1, 0.5), (1, 1)), "d": ((0, 1), (1, 1)),
                 "e": ((0, 0.5), (0, 1)), "f": ((0, 0), (0, 0.5)), "g": ((0, 0.5), (1, 0.5))}


def _display(rng: np.random.Generator, side: float) -> tuple[np.ndarray, np.ndarray, list[tuple[float, float]]]:
    """A game clock's display: 3-4 seven-segment digits 0.4-1.0 die sides high, often a colon,
    dark on a light panel or lit on a dark one."""
    import cv2

    h = side * rng.uniform(0.4, 1.0)
    wd = h * 0.55
    count = int(rng.integers(3, 5))  # a panel about twice as wide as high: not a cube's square face
    gap = wd * 0.45
    total = count * wd + (count - 1) * gap
    n = int(math.ceil(total * 1.3)) + 6
    ink_c = _colour(rng)
    panel = np.clip(255 - ink_c + rng.normal(0, 30, 3), 0, 255)
    canvas = np.empty((n, n, 3), np.float32)
    canvas[:] = panel
    mask = np.zeros((n, n), np.uint8)
    x0, y0 = (n - total) / 2, (n - h) / 2
    pad = h * 0.2
    cv2.rectangle(mask, (int(x0 - pad), int(y0 - pad)), (int(x0 + total + pad), int(y0 + h + pad)), 255, -1)
    if rng.random() < 0.3:  # digits alone, no panel
        mask[:] = 0
    digits = np.zeros((n, n), np.uint8)
    thick = max(1, int(round(h * 0.12)))
    for k in range(count):
        left = x0 + k * (wd + gap)
        for seg in _SEGMENTS[int(rng.integers(10))]:
            (ax, ay), (bx, by) = _SEGMENT_ENDS[seg]
            cv2.line(digits, (int(round(left + ax * wd)), int(round(y0 + ay * h))),
                     (int(round(left + bx * wd)), int(round(y0 + by * h))), 255, thick, cv2.LINE_AA)
        if k == count // 2 - 1 and count >= 3 and rng.random() < 0.6:
            cx = int(round(left + wd + gap / 2))
            for fy in (0.3, 0.7):
                cv2.circle(digits, (cx, int(round(y0 + fy * h))), max(1, thick // 2), 255, -1, cv2.LINE_AA)
    a = digits.astype(np.float32)[..., None] / 255.0
    canvas = canvas * (1 - a) + ink_c * a
    mask = np.maximum(mask, digits)
    spots = [(x0 + total * f, y0 + h / 2) for f in rng.uniform(0.15, 0.85, 1 + int(total > 1.5 * side))]
    return np.clip(canvas, 0, 255).astype(np.uint8), mask, spots


def _ink(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """A canvas of one ink colour the shape of ``mask``."""
    canvas = np.empty(mask.shape + (3,), np.uint8)
    canvas[:] = _colour(rng).astype(np.uint8)
    return canvas


_MARKS: dict[str, Callable[[np.random.Generator, float], tuple[np.ndarray, np.ndarray, list[tuple[float, float]]]]] = {
    "text": _text, "checker": _checker, "scale": _scale, "symbol": _symbol, "display": _display,
}


def _paste_turned(image: np.ndarray, canvas: np.ndarray, mask: np.ndarray, centre: tuple[float, float],
                  angle: float, rng: np.random.Generator, spots: list[tuple[float, float]], side: float,
                  boxes: list[tuple[float, float, float, float]]) -> None:
    """Blend ``canvas`` through ``mask`` onto ``image`` centred at ``centre``, turned by ``angle``
    degrees (slightly blurred, as a photo shows print); append a box a die's side wide at each of
    ``spots`` (canvas pixels) that lands inside the image."""
    import cv2

    n = canvas.shape[0]
    rot = cv2.getRotationMatrix2D((n / 2, n / 2), angle, 1.0)
    rot[:, 2] += (centre[0] - n / 2, centre[1] - n / 2)
    h, w = image.shape[:2]
    ink = cv2.warpAffine(canvas, rot, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    alpha = cv2.warpAffine(mask, rot, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32) / 255.0
    if rng.random() < 0.5:
        alpha = cv2.GaussianBlur(alpha, (0, 0), max(0.3, side * 0.02))
    alpha *= rng.uniform(0.7, 1.0)
    a = alpha[..., None]
    image[:] = np.clip(image * (1 - a) + ink * a, 0, 255).astype(np.uint8)
    for sx, sy in spots:
        x, y = rot[:, :2] @ np.array([sx, sy]) + rot[:, 2]
        s = side * rng.uniform(0.85, 1.2)
        if 0 <= x < w and 0 <= y < h:
            boxes.append((x - s / 2, y - s / 2, x + s / 2, y + s / 2))

"""Hinges on a rendered board's bar: a folding board's two metal hinges, whose screw heads and
knuckle read like a die's pips at a small die's size, drawn onto a rendered board picture so the
dice networks learn that they are not dice (:func:`vision.dice_cutouts.real_dice_boards`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: Metal colours (BGR) of the hinges: brass, steel, chrome, black.
METALS = ((70, 165, 205), (175, 178, 182), (215, 215, 220), (45, 45, 50))


def draw_bar_hinges(image: np.ndarray, field: Any, rng: np.random.Generator) -> list[tuple[float, float, float, float]]:
    """Draw two hinges across the bar of the registered board ``field``
    (:class:`vision.registration.Field`) onto ``image`` ((H, W, 3) uint8 BGR, changed in place):
    plates of 0.35-0.8 of the bar's width and 7-14% of the field's height, one in each end of the
    bar, each two leaves of one metal (:data:`METALS`, shaded) split by a darker knuckle, with two
    or three screw heads on each leaf (a slot across most of them). Returns each hinge's image
    box ``(x0, y0, x1, y1)`` in pixels."""
    import cv2

    fw, fh = field.size
    cx = (field.bar_x0 + field.bar_x1) / 2
    bw = field.bar_x1 - field.bar_x0
    metal = np.array(METALS[int(rng.integers(len(METALS)))], float) * rng.uniform(0.85, 1.1)
    pw, ph = bw * float(rng.uniform(0.35, 0.8)), fh * float(rng.uniform(0.07, 0.14))
    screws = int(rng.integers(2, 4))
    slotted = rng.random() < 0.7
    boxes = []
    for y in (fh * float(rng.uniform(0.12, 0.3)), fh * float(rng.uniform(0.7, 0.88))):
        plate = field.to_image(np.array([[cx - pw / 2, y - ph / 2], [cx + pw / 2, y - ph / 2],
                                         [cx + pw / 2, y + ph / 2], [cx - pw / 2, y + ph / 2]]))
        px_per_unit = float(np.linalg.norm(plate[1] - plate[0])) / pw
        x0, y0 = np.floor(plate.min(0)).astype(int) - 2
        x1, y1 = np.ceil(plate.max(0)).astype(int) + 3
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, image.shape[1]), min(y1, image.shape[0])
        if x1 <= x0 or y1 <= y0:
            continue
        layer = image[y0:y1, x0:x1].copy()
        local = plate - (x0, y0)
        for k, (a, b) in enumerate(((local[0], local[3]), (local[1], local[2]))):
            mid_top, mid_bottom = (local[0] + local[1]) / 2, (local[3] + local[2]) / 2
            leaf = np.array([a, mid_top, mid_bottom, b] if k == 0 else [mid_top, a, b, mid_bottom])
            shade = metal * (1.0 + (0.08 if k == 0 else -0.06))
            cv2.fillConvexPoly(layer, np.round(leaf * 4).astype(np.int32), tuple(float(v) for v in np.clip(shade, 0, 255)),
                               lineType=cv2.LINE_AA, shift=2)
        edge = tuple(float(v) for v in np.clip(metal * 0.55, 0, 255))
        cv2.polylines(layer, [np.round(local * 4).astype(np.int32)], True, edge, 1, cv2.LINE_AA, shift=2)
        knuckle_w = max(int(round(0.1 * pw * px_per_unit)), 1)
        top, bottom = (local[0] + local[1]) / 2, (local[3] + local[2]) / 2
        cv2.line(layer, tuple(int(v) for v in np.round(top)), tuple(int(v) for v in np.round(bottom)), edge, knuckle_w,
                 cv2.LINE_AA)
        radius = max(0.11 * pw * px_per_unit, 1.0)
        for side in (-1, 1):
            for j in range(screws):
                fy = y - ph / 2 + ph * (j + 0.5) / screws
                at = field.to_image(np.array([[cx + side * pw / 4, fy]]))[0] - (x0, y0)
                head = tuple(float(v) for v in np.clip(metal * rng.uniform(0.6, 1.25), 0, 255))
                c = (int(round(at[0] * 4)), int(round(at[1] * 4)))
                cv2.circle(layer, c, int(round(radius * 4)), head, -1, cv2.LINE_AA, shift=2)
                cv2.circle(layer, c, int(round(radius * 4)), edge, 1, cv2.LINE_AA, shift=2)
                if slotted:
                    t = rng.uniform(0, math.pi)
                    d = np.array([math.cos(t), math.sin(t)]) * radius * 0.8
                    cv2.line(layer, tuple(int(v) for v in np.round(at - d)), tuple(int(v) for v in np.round(at + d)),
                             edge, 1, cv2.LINE_AA)
        layer = cv2.GaussianBlur(layer, (0, 0), float(rng.uniform(0.4, 0.9)))
        noise = rng.normal(0, 3, layer.shape)
        image[y0:y1, x0:x1] = np.clip(layer + noise, 0, 255).astype(np.uint8)
        boxes.append((float(plate[:, 0].min()), float(plate[:, 1].min()), float(plate[:, 0].max()), float(plate[:, 1].max())))
    return boxes

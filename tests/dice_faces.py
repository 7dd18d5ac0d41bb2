"""Die faces drawn as a camera sees them, flat or at an angle, for the pip tests."""

from __future__ import annotations

import cv2
import numpy as np

#: pip places of each value on a face of side 1, centred
LAYOUT = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
          4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
          6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def draw_face(img, center, side, value, squash):
    """Draw a white face of ``value`` centred at ``center``, ``side`` pixels wide and
    ``side * squash`` high, its pips ellipses squashed alike (a face seen at an angle)."""
    cx, cy = center
    h = side * squash
    cv2.rectangle(img, (int(cx - side / 2), int(cy - h / 2)), (int(cx + side / 2), int(cy + h / 2)), (232, 236, 238), -1)
    r = 0.09 * side
    for px, py in LAYOUT[value]:
        x, y = cx + 0.27 * side * px, cy + 0.27 * h * py
        cv2.ellipse(img, (int(round(x * 16)), int(round(y * 16))), (int(r * 16), int(r * squash * 16)), 0, 0, 360,
                    (25, 25, 25), -1, cv2.LINE_AA, shift=4)


def table(size=400):
    """A plain table, (size, size, 3) uint8 BGR."""
    return np.full((size, size, 3), (70, 120, 170), np.uint8)

"""ArUco markers pasted outside a rendered board's field corners, for the tests of registration
from markers (``companion calibrate --aruco`` and the calibration page's starting corners)."""

from __future__ import annotations

import cv2
import numpy as np


def with_aruco(rendered, size=48):
    """``rendered.image`` ((H, W, 3) uint8 BGR) with DICT_4X4_50 markers 0-3 (``size`` pixels, a
    white quiet zone around each) outside the field corners ``rendered.corners`` (TL, TR, BR, BL),
    each marker's inner corner on its field corner. Returns a new image."""
    img = rendered.image.copy()
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    offsets = [(-size, -size), (0, -size), (0, 0), (-size, 0)]  # outside each field corner
    for mid, ((x, y), (dx, dy)) in enumerate(zip(rendered.corners, offsets)):
        marker = cv2.aruco.generateImageMarker(dictionary, mid, size)
        x0, y0 = int(round(x)) + dx, int(round(y)) + dy
        pad = np.full((size + 12, size + 12), 255, np.uint8)  # quiet zone
        pad[6:-6, 6:-6] = marker
        px, py = x0 - 6 + (6 if dx == 0 else -6), y0 - 6 + (6 if dy == 0 else -6)
        img[py:py + size + 12, px:px + size + 12] = pad[:, :, None]
    return img

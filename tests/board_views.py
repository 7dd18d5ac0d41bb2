"""A rendered board photographed from another side, for the orientation tests."""

from __future__ import annotations

import cv2
import numpy as np


def seen_from(image, corners, orientation):
    """``image`` ((H, W, 3) uint8 BGR, rendered with the reference player's home board at the
    bottom right) and its field ``corners`` ((4, 2) pixels: top-left, top-right, bottom-right,
    bottom-left) as a camera on another side sees them: ``orientation`` is where that player's
    home board then lies ("bottom-right" unchanged, "top-left" a half turn, "bottom-left"
    mirrored left/right, "top-right" mirrored top/bottom). Returns ``(image, corners)``, the
    image contiguous and the corners again in top-left, top-right, bottom-right, bottom-left order."""
    h, w = image.shape[:2]
    c = np.asarray(corners, dtype=np.float64)
    if orientation == "top-left":  # half turn
        image = cv2.rotate(image, cv2.ROTATE_180)
        c = np.array([[w - 1 - x, h - 1 - y] for x, y in c])[[2, 3, 0, 1]]
    elif orientation == "bottom-left":  # mirrored left/right
        image = cv2.flip(image, 1)
        c = np.array([[w - 1 - x, y] for x, y in c])[[1, 0, 3, 2]]
    elif orientation == "top-right":  # mirrored top/bottom
        image = cv2.flip(image, 0)
        c = np.array([[x, h - 1 - y] for x, y in c])[[3, 2, 1, 0]]
    return np.ascontiguousarray(image), c

"""Table-like backgrounds for synthetic photos (dice, cubes and distractor marks).

OpenCV is imported inside the function that needs it.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["random_background"]


def random_background(rng: np.random.Generator, size: tuple[int, int] = (640, 480)) -> np.ndarray:
    """A (H, W, 3) uint8 BGR table-like background: plain, gradient, wood grain, felt or cloth."""
    import cv2

    w, h = size
    base = rng.integers(20, 236, size=3).astype(np.float32)
    kind = int(rng.integers(4))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == 0:
        img = np.broadcast_to(base, (h, w, 3)).copy()
    elif kind == 1:
        ang = rng.uniform(0, 2 * math.pi)
        g = (xx * math.cos(ang) + yy * math.sin(ang)) / max(w, h)
        img = base + (g[..., None] * rng.uniform(-80, 80))
    elif kind == 2:  # wood grain
        f = rng.uniform(0.02, 0.08)
        g = np.sin(yy * f + 3 * np.sin(xx * 0.01 + rng.uniform(0, 6)))
        img = base + g[..., None] * rng.uniform(8, 30)
    else:  # felt / cloth noise
        n = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), rng.uniform(0.8, 3))
        img = base + n[..., None] * rng.uniform(10, 40)
    return np.clip(img, 0, 255).astype(np.uint8)

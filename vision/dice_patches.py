"""Image preparation shared by the dice models at run time and in training.

Keeping the crop and the network input in one place guarantees the models see at run time
exactly what they saw in training.
"""

from __future__ import annotations

import math

import numpy as np

#: Side of the square patch (pixels) the tilt and cube networks read.
PATCH = 32
#: Side of the square patch (pixels) the shipped value classifiers read (for one trained with
#: another ``--cls-patch``, set ``DiceSettings.value_patch``).
VALUE_PATCH = 32
#: The patch covers this many times the die's size (its side, in image pixels).
PATCH_CONTEXT = 1.25
#: The doubling cube's patch covers this many times its side (1.2 against 1.5: a large cube's small
#: digits keep more pixels of the 32-pixel patch; cube values right on validation boards
#: ``render_roll_on_board`` seed 4242 124 -> 134 of 140, ``benchmarks/dice_sizes.py --seed 6100
#: --boards 100`` 340 -> 360 of 398, each network trained by the same recipe).
CUBE_CONTEXT = 1.2
#: Stride (input pixels per output cell) of the detector's heatmaps.
STRIDE = 4
#: The detector is trained for dice of about this side (pixels at its input).
DETECT_DIE_PX = 22.0


def crop_patch(image_bgr: np.ndarray, center: tuple[float, float], size: float,
               angle_deg: float = 0.0, patch: int = PATCH,
               context: float = PATCH_CONTEXT) -> np.ndarray:
    """A square (patch, patch, 3) uint8 crop centred on ``center`` (image pixels, float) covering
    ``context * size`` pixels, rotated by ``angle_deg`` (degrees, counter-clockwise).

    Pixels outside the image repeat the border. Raises ``ValueError`` if ``size`` <= 0.
    """
    import cv2

    if not size > 0:
        raise ValueError(f"die size must be positive, got {size}")
    scale = patch / (context * size)
    a = math.radians(angle_deg)
    c, s = math.cos(a) * scale, math.sin(a) * scale
    cx, cy = center
    # Map image -> patch: rotate/scale about the centre, then move it to the patch centre.
    m = np.array([[c, s, patch / 2 - (c * cx + s * cy)],
                  [-s, c, patch / 2 - (-s * cx + c * cy)]], dtype=np.float64)
    interp = cv2.INTER_AREA if scale < 0.5 else cv2.INTER_LINEAR
    if scale < 0.5:
        # INTER_AREA is not supported by warpAffine; pre-blur to avoid aliasing instead.
        k = int(1 / scale) | 1
        x0 = int(max(cx - context * size, 0)); x1 = int(min(cx + context * size + 1, image_bgr.shape[1]))
        y0 = int(max(cy - context * size, 0)); y1 = int(min(cy + context * size + 1, image_bgr.shape[0]))
        if x1 > x0 and y1 > y0:
            region = cv2.blur(image_bgr[y0:y1, x0:x1], (k, k))
            m[0, 2] += c * x0 + s * y0
            m[1, 2] += -s * x0 + c * y0
            return cv2.warpAffine(region, m, (patch, patch), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
        interp = cv2.INTER_LINEAR
    return cv2.warpAffine(image_bgr, m, (patch, patch), flags=interp,
                          borderMode=cv2.BORDER_REPLICATE)


def patches_blob(patches: list[np.ndarray]) -> np.ndarray:
    """(N, 3, P, P) float32 network input from (P, P, 3) uint8 BGR patches: (x - 128) / 64
    (``cv2.dnn.blobFromImages``: the same values as the numpy formula, in one pass).
    Raises ``ValueError`` when ``patches`` is empty."""
    import cv2

    if len(patches) == 0:
        raise ValueError("no patches")
    return cv2.dnn.blobFromImages(list(patches), 1 / 64.0, mean=(128.0, 128.0, 128.0))


def detector_blob(image_bgr: np.ndarray) -> np.ndarray:
    """(1, 3, H', W') float32 detector input: the image padded (edge-replicated) so both sides
    are multiples of 8, scaled as (x - 128) / 64."""
    import cv2

    h, w = image_bgr.shape[:2]
    ph, pw = (-h) % 8, (-w) % 8
    if ph or pw:
        image_bgr = cv2.copyMakeBorder(image_bgr, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    # (x - 128) * (1 / 64) is exact in float32: the same values as (x - 128) / 64, in one pass
    return cv2.dnn.blobFromImage(image_bgr, 1 / 64.0, mean=(128.0, 128.0, 128.0))

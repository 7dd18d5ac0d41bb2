"""Where a die's top face is: the centre of a one's pip, the mean of another face's pips.

The detector places a die's centre between its top face and its body when the die is seen at an
angle. A one's single pip sits at the centre of its top face, so for a die read as 1 the pip's
centre is the top face's centre (to about a pixel): :func:`pip_centre` finds it. Labelled data
that boxes a one by its pip alone (matteop65) is matched only within half the pip box, which a
centre off by a third of the die misses.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable, Optional, Sequence

import numpy as np

from companion.observation import DieReading


#: dice larger than this (pixels) are searched in a copy of their surroundings shrunk to this
#: side: the pip is as clear there, and a 12-megapixel photo's 400-pixel die took a tenth of its
#: reading time at full size
SEARCH_SIDE = 128.0
#: a top face's centre found more than this many sides below its reading is not believed (a die
#: cut by the photo's edge loses its upper pips)
BELOW = 0.1
#: a top face's pips are rounder than the other faces' pips around them by at least this
ROUNDER = 0.03


def pip_centre(image_bgr: np.ndarray, center: tuple[float, float], side: float) -> Optional[tuple[float, float]]:
    """The centre (x, y), in image pixels, of the single pip of a one whose die is read at
    ``center`` with side ``side`` (pixels), or None when no single clear pip is found there.

    ``image_bgr``: (H, W, 3) uint8 BGR. The pip is the blob that differs most in colour from the
    die (the median colour around ``center``), inside a third of the side from ``center``, of a
    pip's area (0.04 to 0.22 of the side in radius), not touching the edge of the search window
    (the table, the die's own edge). Its centre is the contrast-weighted centroid of the blob.
    Dice bigger than :data:`SEARCH_SIDE` pixels are searched in a shrunk copy of their surroundings.
    Raises ``ValueError`` for a side that is not positive.
    """
    if not side > 0:
        raise ValueError(f"die side must be positive, got {side}")
    if side > SEARCH_SIDE:
        return _shrunk_pip_centre(image_bgr, center, side)
    return _pip_centre_at(image_bgr, center, side)


def _pip_centre_at(image_bgr: np.ndarray, center: tuple[float, float], side: float) -> Optional[tuple[float, float]]:
    """:func:`pip_centre` searched at the image's own resolution."""
    import cv2

    h, w = image_bgr.shape[:2]
    half = max(int(math.ceil(0.55 * side)), 4)
    cx, cy = center
    x0, y0 = int(round(cx)) - half, int(round(cy)) - half
    xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + 2 * half + 1, w), min(y0 + 2 * half + 1, h)
    if xb - xa < 8 or yb - ya < 8:
        return None
    crop = image_bgr[ya:yb, xa:xb].astype(np.float32)
    yy, xx = np.mgrid[ya:yb, xa:xb].astype(np.float32)
    r2 = (xx - cx) ** 2 + (yy - cy) ** 2
    core = r2 <= (0.3 * side) ** 2
    if core.sum() < 9:
        return None
    colour = np.median(crop[core], axis=0)
    contrast = np.sqrt(((crop - colour) ** 2).sum(axis=2))
    sigma = max(0.03 * side, 0.5)
    contrast = cv2.GaussianBlur(contrast, (0, 0), sigma)
    inner = r2 <= (side / 3) ** 2
    peak = float(contrast[inner].max()) if inner.any() else 0.0
    if peak < 40.0:
        return None
    mask = (contrast >= 0.5 * peak).astype(np.uint8)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    lo, hi = math.pi * (0.04 * side) ** 2, math.pi * (0.22 * side) ** 2
    best, best_score = None, 0.0
    ch, cw = mask.shape
    for k in range(1, n):
        x, y, bw, bh, area = stats[k]
        if x == 0 or y == 0 or x + bw >= cw or y + bh >= ch or not lo <= area <= hi:
            continue
        px, py = cents[k][0] + xa, cents[k][1] + ya
        d2 = (px - cx) ** 2 + (py - cy) ** 2
        if d2 > (side / 3) ** 2:
            continue
        sel = labels == k
        score = float(contrast[sel].mean()) * math.exp(-d2 / (2 * (0.2 * side) ** 2))
        if score > best_score:
            wts = contrast[sel]
            best = (float((xx[sel] * wts).sum() / wts.sum()), float((yy[sel] * wts).sum() / wts.sum()))
            best_score = score
    return best


def _shrunk_pip_centre(image_bgr: np.ndarray, center: tuple[float, float], side: float) -> Optional[tuple[float, float]]:
    """:func:`pip_centre` of a die bigger than :data:`SEARCH_SIDE`, searched in its surroundings
    shrunk (area average) until the die is that big; the pip's centre in full-image pixels."""
    import cv2

    h, w = image_bgr.shape[:2]
    k = SEARCH_SIDE / side
    half = int(math.ceil(0.6 * side))
    cx, cy = center
    xa, ya = max(int(round(cx)) - half, 0), max(int(round(cy)) - half, 0)
    xb, yb = min(int(round(cx)) + half + 1, w), min(int(round(cy)) + half + 1, h)
    if xb - xa < 8 or yb - ya < 8:
        return None
    small = cv2.resize(image_bgr[ya:yb, xa:xb], (max(int(round((xb - xa) * k)), 1), max(int(round((yb - ya) * k)), 1)),
                       interpolation=cv2.INTER_AREA)
    kx, ky = small.shape[1] / (xb - xa), small.shape[0] / (yb - ya)
    # pixel centres: full-image x maps to (x - xa + 0.5) * kx - 0.5 in the shrunk copy
    got = _pip_centre_at(small, ((cx - xa + 0.5) * kx - 0.5, (cy - ya + 0.5) * ky - 0.5), side * math.sqrt(kx * ky))
    if got is None:
        return None
    return ((got[0] + 0.5) / kx - 0.5 + xa, (got[1] + 0.5) / ky - 0.5 + ya)


def face_centre(image_bgr: np.ndarray, center: tuple[float, float], side: float,
                value: int, pips: Optional[Callable[..., list]] = None) -> Optional[tuple[float, float]]:
    """The centre (x, y), in image pixels, of the top face of a die of value ``value`` read at
    ``center`` with side ``side`` (pixels), or None.

    ``image_bgr``: (H, W, 3) uint8 BGR. The top face's pips are the ``value`` pips
    (:func:`vision.pips.face_pips`) that are at once the roundest and the uppermost in the image:
    a die seen at an angle shows below its top face a front face whose pips are flatter (and, to a
    side, a side face's); seen from above, a die shows its top face only. Their mean is the face's
    centre (every pip layout is symmetric about it). None when fewer pips are found or the
    roundest are not the uppermost. ``pips``: :func:`vision.pips.face_pips` (default) or a memo
    of it for this image. Raises ``ValueError`` for a side that is not positive.
    """
    from vision.pips import face_pips

    found = (pips or face_pips)(image_bgr, center, side)
    if value < 1 or len(found) < value:
        return None
    roundest = sorted(range(len(found)), key=lambda k: -found[k].roundness)[:value]
    uppermost = sorted(range(len(found)), key=lambda k: found[k].center[1])[:value]
    if set(roundest) != set(uppermost):
        return None
    others = [p.roundness for k, p in enumerate(found) if k not in roundest]
    if others and min(found[k].roundness for k in roundest) < max(others) + ROUNDER:
        return None
    xs, ys = zip(*(found[k].center for k in roundest))
    return float(np.mean(xs)), float(np.mean(ys))


def on_top_faces(image_bgr: np.ndarray, dice: Sequence[DieReading], reach: float,
                 pips: Optional[Callable[..., list]] = None) -> list[DieReading]:
    """``dice`` (readings of ``image_bgr``, (H, W, 3) uint8 BGR, with boxes) with each die of value
    2..6 whose top face's centre (:func:`face_centre`) lies within ``reach`` sides of its reading's
    centre, and not more than :data:`BELOW` sides lower, moved there; its box (the outline as
    detected) is kept. Ones are left to
    :func:`pip_centre`. ``pips`` as in :func:`face_centre`. Order kept."""
    out = []
    for die in dice:
        side = float(die.box[2] - die.box[0]) if die.box is not None else 0.0
        if die.value >= 2 and side > 0:
            at = face_centre(image_bgr, die.center, side, die.value, pips)
            # a top face lies above (an oblique die's outline reaches below it) or on its reading
            if at is not None and math.dist(at, die.center) < reach * side and at[1] - die.center[1] < BELOW * side:
                die = dataclasses.replace(die, center=at)
        out.append(die)
    return out

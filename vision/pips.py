"""A die face's pips as blobs: where they are and how round they look.

A round pip seen at an angle is an ellipse squashed along the line of sight, so the ratio of its
axes tells how a face is turned to the camera (:mod:`vision.front_faces`), and the mean of a
face's pip centres is the face's centre, whatever its value (every pip layout is symmetric about
it; :func:`vision.top_face.face_centre`); counted, they are a second reading of a face's value
(:func:`agreed_by_pips`).
"""

from __future__ import annotations

import dataclasses
import math
from functools import lru_cache
from typing import Any, Callable, Optional, Sequence

import numpy as np

from companion.observation import DieReading

#: pips are searched within this many sides of a reading's centre
REACH = 0.5
#: dice larger than this (pixels) are measured in a shrunk copy (shapes do not change)
MEASURE_SIDE = 96.0


@dataclasses.dataclass(frozen=True)
class Pip:
    """One pip blob: ``center`` (x, y) in image pixels, ``roundness`` the ratio of its minor to its
    major axis (1.0 round, from the blob's second moments), ``area`` in image pixels."""

    center: tuple[float, float]
    roundness: float
    area: float


def face_pips(image_bgr: np.ndarray, center: tuple[float, float], side: float) -> list[Pip]:
    """The pip blobs of the face read at ``center`` (x, y, pixels) with side ``side`` (pixels).

    ``image_bgr``: (H, W, 3) uint8 BGR. Pips are the blobs within :data:`REACH` sides of
    ``center`` that differ in colour from the face (its median colour within 0.3 sides) by at
    least half the strongest difference there (at least 40 levels), of a pip's area (radius
    0.03-0.2 sides), not reaching the edge of the 1.2-side window searched (the table, another
    die). Dice over :data:`MEASURE_SIDE` pixels are measured in a shrunk copy. Pips a few pixels
    across measure rounder than they are (blur, pixels: a 0.5 ellipse of a 48-pixel die measures
    about 0.6-0.7).
    An empty list when the face has no clear pips or lies off the image. Raises ``ValueError``
    for a side that is not positive.
    """
    import cv2

    if not side > 0:
        raise ValueError(f"die side must be positive, got {side}")
    h, w = image_bgr.shape[:2]
    half = max(int(math.ceil(0.6 * side)), 4)
    cx, cy = center
    xa, ya = max(int(round(cx)) - half, 0), max(int(round(cy)) - half, 0)
    xb, yb = min(int(round(cx)) + half + 1, w), min(int(round(cy)) + half + 1, h)
    if xb - xa < 8 or yb - ya < 8:
        return []
    crop = image_bgr[ya:yb, xa:xb]
    k = min(1.0, MEASURE_SIDE / side)
    if k < 1.0:
        crop = cv2.resize(crop, (max(int(round((xb - xa) * k)), 1), max(int(round((yb - ya) * k)), 1)),
                          interpolation=cv2.INTER_AREA)
    kx, ky = crop.shape[1] / (xb - xa), crop.shape[0] / (yb - ya)
    s = side * math.sqrt(kx * ky)
    crop = crop.astype(np.float32)
    lx, ly = (cx - xa + 0.5) * kx - 0.5, (cy - ya + 0.5) * ky - 0.5
    r2 = (np.arange(crop.shape[1], dtype=np.float32)[None, :] - lx) ** 2 \
        + (np.arange(crop.shape[0], dtype=np.float32)[:, None] - ly) ** 2
    core = r2 <= (0.3 * s) ** 2
    inner = r2 <= (REACH * s) ** 2
    if core.sum() < 9:
        return []
    colour = np.median(crop[core], axis=0)
    contrast = np.sqrt(((crop - colour) ** 2).sum(axis=2))
    contrast = cv2.GaussianBlur(contrast, (0, 0), max(0.015 * s, 0.5))
    peak = float(np.percentile(contrast[inner], 99))
    if peak < 40.0:
        return []
    mask = (contrast >= 0.5 * peak).astype(np.uint8)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    lo, hi = math.pi * (0.03 * s) ** 2, math.pi * (0.2 * s) ** 2
    ch, cw = mask.shape
    out = []
    for j in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[j])
        # a blob reaching the search window's edge is the table or another die, not a pip
        if x == 0 or y == 0 or x + bw >= cw or y + bh >= ch or not max(lo, 3.0) <= area <= hi:
            continue
        if (cents[j][0] - lx) ** 2 + (cents[j][1] - ly) ** 2 > (REACH * s) ** 2:
            continue
        m = cv2.moments((labels[y:y + bh, x:x + bw] == j).astype(np.uint8), binaryImage=True)
        # second moments of the blob's pixels (each a unit square: + 1/12 on the diagonal)
        a, b, c = m["mu20"] / m["m00"] + 1 / 12, m["mu11"] / m["m00"], m["mu02"] / m["m00"] + 1 / 12
        spread = math.hypot((a - c) / 2, b)  # the 2x2 covariance's eigenvalues: mean -+ spread
        mx, my = x + m["m10"] / m["m00"], y + m["m01"] / m["m00"]
        out.append(Pip(center=(float((mx + 0.5) / kx - 0.5 + xa), float((my + 0.5) / ky - 0.5 + ya)),
                       roundness=math.sqrt(max((a + c) / 2 - spread, 0.0) / ((a + c) / 2 + spread)), area=area / (kx * ky)))
    return out


@dataclasses.dataclass(frozen=True)
class Face:
    """A die face read by its own pips: ``pips`` (as many as its value), ``roundness`` their
    median roundness, ``center`` (x, y) the mean of their centres in image pixels (every pip
    layout is symmetric about its face's centre)."""

    pips: tuple[Pip, ...]
    roundness: float
    center: tuple[float, float]


def read_face(image_bgr: np.ndarray, center: tuple[float, float], side: float, value: int,
              pips: Callable[..., list[Pip]] = face_pips) -> Optional[Face]:
    """The face of value ``value`` read at ``center`` (x, y, pixels) with side ``side`` (pixels) of
    ``image_bgr`` ((H, W, 3) uint8 BGR), or None unless :func:`face_pips` finds exactly ``value``
    pips there (``pips``: :func:`face_pips` or a memo of it for one image). Raises ``ValueError``
    for a side that is not positive."""
    found = pips(image_bgr, center, side)
    if len(found) != value:
        return None
    mean = np.mean([p.center for p in found], axis=0)
    return Face(pips=tuple(found), roundness=float(np.median([p.roundness for p in found])),
                center=(float(mean[0]), float(mean[1])))


def agreed_by_pips(image_bgr: np.ndarray, cands: Sequence[Any], probs: np.ndarray, dice: Sequence[DieReading],
                   min_value: float, min_peak: float) -> list[DieReading]:
    """Readings for candidates the classifier turned down but whose pips agree with it.

    ``cands`` (:class:`vision.dice.Candidate`: ``center``, ``size`` in pixels, ``score`` the
    detector peak) and ``probs`` ((N, 8): values 1..6, not a die, cube) as the reader's scan
    gives them; ``dice`` the readings already accepted (a candidate whose square overlaps one's
    box is skipped: a part of a die read, or the die again). A candidate whose detector peak is
    at least ``min_peak`` and whose most likely value v (2..6) is at least ``min_value`` probable
    becomes a die of value v, confidence P(v), when exactly v pips are found around it
    (:func:`face_pips`): two independent readings of one face agree.
    A classifier that never saw a kind of dice turns them down though the detector finds them
    (vision/models/README.md). ``image_bgr``: (H, W, 3) uint8 BGR.
    """
    out: list[DieReading] = []
    for cand, p in zip(cands, probs):
        v = int(np.argmax(p[:6])) + 1
        # a one's single blob is no second reading: any spot agrees with it
        if v < 2 or cand.score < min_peak or p[v - 1] < min_value:
            continue
        if any(_overlap(cand, d) for d in list(dice) + out):
            continue
        if len(face_pips(image_bgr, cand.center, cand.size)) != v:
            continue
        half = cand.size / 2
        x, y = cand.center
        out.append(DieReading(value=v, center=(x, y), box=(x - half, y - half, x + half, y + half),
                              confidence=float(p[v - 1])))
    return out


def _overlap(cand: Any, die: DieReading) -> bool:
    """True when the square of side ``cand.size`` around ``cand.center`` overlaps ``die``'s box
    (or, without a box, lies within half a side of its centre)."""
    h = cand.size / 2
    if die.box is None:
        return math.dist(cand.center, die.center) < h
    x0, y0, x1, y1 = die.box
    cx, cy = cand.center
    return cx - h < x1 and cx + h > x0 and cy - h < y1 and cy + h > y0


def pips_memo(image_bgr: np.ndarray) -> Callable[..., list[Pip]]:
    """:func:`face_pips` for ``image_bgr`` ((H, W, 3) uint8 BGR) alone, each centre and side
    measured once (the rules of one free photo ask for the same faces again); the first argument
    of a call is ignored."""

    @lru_cache(maxsize=None)
    def memo(cx: float, cy: float, side: float) -> tuple[Pip, ...]:
        return tuple(face_pips(image_bgr, (cx, cy), side))

    def pips(_image: Any, center: tuple[float, float], side: float) -> list[Pip]:
        return list(memo(float(center[0]), float(center[1]), float(side)))

    return pips

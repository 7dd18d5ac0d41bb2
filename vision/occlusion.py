"""Hands, arms and dice cups over the board: which points cannot be read.

An occluder is a large blob on the canonical field that the empty board does not
explain (its colour is far from the field's, the bar's and both point colours) and
that the checkers do not explain either (far from both checker colours and outside
every checker found). Points whose reading zone (from the base to the middle of
the board) an occluder covers are unreadable: their counts are not to be trusted.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np


def find_occluders(lab: np.ndarray, centres: np.ndarray, widths: np.ndarray, bases: np.ndarray, dirs: np.ndarray,
                   dh: float, checkers: Sequence[Any], colours: Optional[Any], settings: Any,
                   halves: tuple[float, float]) -> tuple[Optional[np.ndarray], tuple[int, ...]]:
    """Find occluders on a Lab field (work scale).

    ``lab``: (h, w, 3) float32 Lab; ``centres``/``widths``/``bases``/``dirs``: (24,)
    column geometry at the same scale; ``dh``: a checker's height in pixels;
    ``checkers``: the :class:`~vision.checkers.Checker` list found (their discs are
    explained); ``colours``: a :class:`~vision.checkers.CheckerColours` or ``None``;
    ``settings``: :class:`~vision.checkers.CheckerSettings` (``occluder_min_area``,
    ``colour_min``); ``halves``: inner half edges as fractions of the width.
    Returns ``(mask, unreadable_points)``: (h, w) bool mask of occluders (``None`` when
    none) and the sorted point numbers they cover.
    """
    import cv2

    h, w = lab.shape[:2]
    small = cv2.resize(lab, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    # The empty board's palette: dominant colours of the field (k-means on a sample).
    sample = small[::2, ::2].reshape(-1, 3).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    k = 5
    _, labels, centres_k = cv2.kmeans(sample, k, None, criteria, 1, cv2.KMEANS_PP_CENTERS)
    share = np.bincount(labels.ravel(), minlength=k) / len(labels)
    palette = [c for c, s_ in zip(centres_k, share) if s_ >= 0.06]
    if colours is not None:
        palette += [np.array(colours.light, np.float32), np.array(colours.dark, np.float32)]
    palette += [np.array(c.lab, np.float32) for c in checkers]
    pal = np.array(palette, np.float32)
    flat = small.reshape(-1, 3)
    dist = np.full(len(flat), np.inf, np.float32)
    for c in pal:
        dist = np.minimum(dist, np.linalg.norm(flat - c, axis=1))
    unexplained = (dist > 1.5 * settings.colour_min).reshape(sh, sw).astype(np.uint8)
    # Checker discs are explained whatever their colour.
    r = max(1, int(round(0.55 * dh / 2)))
    for c in checkers:
        cv2.circle(unexplained, (int(round(c.x / 2)), int(round(c.y / 2))), r, 0, -1)
    unexplained = cv2.morphologyEx(unexplained, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    unexplained = cv2.morphologyEx(unexplained, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, lab_img, stats, _ = cv2.connectedComponentsWithStats(unexplained, connectivity=8)
    min_area = settings.occluder_min_area * np.pi * (dh / 4) ** 2
    mask = np.zeros((sh, sw), bool)
    for i in range(1, n):
        if stats[i, cv2.CC_STAT_AREA] >= min_area:
            mask |= lab_img == i
    if not mask.any():
        return None, ()
    unreadable = []
    hh = sh // 2
    for i in range(24):
        x0 = int(max(0, (centres[i] - 0.5 * widths[i]) / 2))
        x1 = int(min(sw, (centres[i] + 0.5 * widths[i]) / 2 + 1))
        if dirs[i] > 0:
            zone = mask[0:hh, x0:x1]
        else:
            zone = mask[sh - hh:sh, x0:x1]
        if zone.size and zone.mean() > 0.04:
            unreadable.append(i + 1)
    full = cv2.resize(mask.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST).astype(bool)
    return full, tuple(unreadable)

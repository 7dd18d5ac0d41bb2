"""Hands, arms and dice cups over the board: which points cannot be read.

Each point's column (base to the board's middle) is compared with the *empty
template* of its colour class (the per-pixel median of the points of that colour
that hold no checker, see :mod:`vision.checkers`). A pixel is unexplained when it
differs from the template, is not inside a checker counted on that point, and
is not near either checker colour, nor the template in another light (a shadow
scales lightness and chroma alike: ``settings.occluder_shade``). A point whose
reading zone is unexplained over more than ``settings.occluder_fraction`` of its
area, in a blob larger than a checker (``settings.occluder_min_area`` checker
areas, so dice do not count) that is thick somewhere in the point's own column
(``settings.occluder_thick``: a tray's wall or a seam is a thin streak), is
unreadable: whatever was counted there is not to be trusted.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

#: OpenCV 8-bit Lab of black: a shadow scales lightness and chroma about it.
LAB_BLACK = np.array([0.0, 128.0, 128.0], np.float32)


def find_occluders(strips: np.ndarray, templates: Sequence[np.ndarray], classes: np.ndarray, counts: Sequence[int],
                   dh: float, colours: Optional[Any], settings: Any, centres: np.ndarray, dirs: np.ndarray,
                   shape: tuple[int, int]) -> tuple[Optional[np.ndarray], tuple[int, ...]]:
    """Find occluders.

    ``strips``: (24, hh, ws, 3) float32 Lab columns, base first; ``templates``: two
    (hh, ws, 3) empty templates; ``classes``: (24,) 0/1 class of each point;
    ``counts``: checkers counted per point; ``dh``: checker height (pixels);
    ``colours``: :class:`~vision.checkers.CheckerColours` or ``None``; ``settings``:
    :class:`~vision.checkers.CheckerSettings`; ``centres``/``dirs``: (24,) column
    centre x and direction (+1 top row, -1 bottom row); ``shape``: (h, w) of the field.
    Returns ``(mask, unreadable)``: an (h, w) bool mask of unexplained pixels in
    unreadable columns (``None`` when there are none) and the sorted point numbers.
    """
    import cv2

    # Half resolution is plenty for hands and cups.
    strips = strips[:, ::2, ::2]
    templates = [t[::2, ::2] for t in templates]
    dh = dh / 2
    n, hh, ws, _ = strips.shape
    thr = settings.colour_min * settings.occluder_colour
    u0, u1 = int(round(0.15 * ws)), int(round(0.85 * ws))  # column edges are often off by a pixel or two
    shade = getattr(settings, "occluder_shade", 0.0)
    # Only the inner part of each column is judged; pixels near the template (most of
    # them) are explained at once, the other tests run on the rest alone.
    inner = np.ascontiguousarray(strips[:, :, u0:u1])  # (n, hh, wu, 3)
    tmpl = np.stack([np.ascontiguousarray(t[:, u0:u1]) for t in templates])[np.asarray(classes, np.intp)]
    diff = inner - tmpl
    cand = np.einsum("nhwc,nhwc->nhw", diff, diff) > thr * thr
    pi, yi, xi = np.nonzero(cand)
    pix = inner[pi, yi, xi]  # (m, 3)
    keep = np.ones(len(pi), bool)
    if shade > 0 and len(pi):
        # A shadow (or a highlight) scales a colour, lightness and chroma alike
        # (brightness distortion, Horprasert et al. 1999): a pixel that is the
        # template times k, k within [1 - shade, 1 / (1 - shade)], up to a small
        # residual, is the empty point in another light, not a hand.
        keep &= ~_shaded(pix, tmpl[pi, yi, xi], shade, 0.5 * thr)
    counted = np.rint(np.asarray(counts, np.float64) * dh).astype(np.intp)[pi] > yi  # over a counted checker
    if colours is not None:
        for c in (colours.light, colours.dark):
            dc = np.linalg.norm(pix - np.asarray(c, np.float32), axis=1)
            keep &= dc > np.where(counted, thr * settings.occluder_on_checkers, thr)
    else:
        keep &= ~counted
    unexplained = np.zeros((n, hh, ws), bool)
    unexplained[pi[keep], yi[keep], xi[keep] + u0] = True
    area_min = settings.occluder_min_area * np.pi * (dh / 2) ** 2
    # Thin streaks (a frame's wall or a seam inside a column, a point's edge a pixel off)
    # are no hand: some of the column's own part of a hand (a tenth of the least blob)
    # must be ``settings.occluder_thick`` checker heights thick.
    k = max(3, int(round(getattr(settings, "occluder_thick", 0.0) * dh)) | 1)
    kernel = np.ones((k, k), np.uint8)
    unreadable = []
    for i in range(n):
        # The zone that decides the count: every counted slot and the next one (a stack
        # continues only from its base, so an empty base with a cup above it is still 0).
        zone = int(min(hh, round((counts[i] + 1) * dh)))
        u = unexplained[i, :zone].astype(np.uint8)
        u = cv2.morphologyEx(u, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        if u.sum() < settings.occluder_fraction * zone * (u1 - u0):
            continue
        # Its size: the blob may run on along the column and into the neighbouring
        # columns of the same row (a hand and its arm are large; a die is not).
        col = unexplained[i].astype(np.uint8)
        biggest = _biggest_blob(cv2.morphologyEx(col, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)))
        thick = _biggest_blob(cv2.morphologyEx(col, cv2.MORPH_OPEN, kernel)) if kernel.shape[0] > 3 else biggest
        near = [j for j in (i - 1, i + 1) if 0 <= j < n and dirs[j] == dirs[i]]
        spill = sum(int(unexplained[j].sum()) for j in near)
        if thick >= 0.1 * area_min and biggest >= 0.3 * area_min and biggest + spill >= area_min:
            unreadable.append(i + 1)
    if not unreadable:
        return None, ()
    unexplained = np.repeat(np.repeat(unexplained, 2, axis=1), 2, axis=2)[:, :2 * hh, :2 * ws]
    hh, ws = unexplained.shape[1:3]
    h, w = shape
    mask = np.zeros((h, w), bool)
    for p in unreadable:
        i = p - 1
        x0 = int(round(centres[i] - ws / 2))
        x0 = min(max(0, x0), w - ws)
        block = unexplained[i]
        if dirs[i] > 0:
            mask[0:hh, x0:x0 + ws] |= block
        else:
            mask[h - 1:h - 1 - hh:-1, x0:x0 + ws] |= block
    return mask, tuple(unreadable)


def _biggest_blob(mask: np.ndarray) -> int:
    """Pixels in the largest 8-connected region of a (h, w) uint8 0/1 mask (0 if none)."""
    import cv2

    n_blobs, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    return int(stats[1:, cv2.CC_STAT_AREA].max()) if n_blobs > 1 else 0


def _shaded(pix: np.ndarray, ref: np.ndarray, shade: float, residual: float) -> np.ndarray:
    """Which pixels are ``ref`` in another light: (..., 3) float32 Lab ``pix`` against
    ``ref`` ((..., 3) or (3,)); the colour about black (L, a - 128, b - 128) scaled by
    the best k within [1 - ``shade``, 1 / (1 - ``shade``)] lies within ``residual`` Lab
    units. Returns a bool array of ``pix``'s shape without its last axis."""
    pv = pix - LAB_BLACK
    tv = np.broadcast_to(np.asarray(ref, np.float32) - LAB_BLACK, pv.shape)
    k = np.clip((pv * tv).sum(axis=-1) / np.maximum((tv * tv).sum(axis=-1), 1.0), 1.0 - shade, 1.0 / (1.0 - shade))
    return np.linalg.norm(pv - k[..., None] * tv, axis=-1) <= residual

"""Per-point crops of a registered board, the input of the learned checker reader.

A frame is warped once to the canonical field at a small scale (:data:`CROP_SCALE` of
``FIELD_WIDTH`` x ``FIELD_HEIGHT``), and each of the 24 points becomes one
(:data:`CROP_HEIGHT`, :data:`CROP_WIDTH`, 3) uint8 BGR crop: the point's column, a
little wider than the point, from the point's base to the middle of the field, turned
so that the base is the crop's top row (bottom-row points are flipped upside down).
Every point therefore looks alike to the network whatever its row. The bar gives two more
crops of the same size (:func:`bar_crops`), one per half, the field's middle on row 0.

The dice and the cube the dice plug-ins find are covered with a flat grey
(:data:`COVER_GREY`, :func:`cover_boxes`) before the crops are cut: the network is trained
on crops covered the same way (:func:`vision.render_crops.cover_like_reader`), so a die on
an empty point is not read as a checker.

Example::

    crops = point_crops(frame, field)      # (24, CROP_HEIGHT, CROP_WIDTH, 3) uint8
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from vision.registration import FIELD_HEIGHT, FIELD_WIDTH, Field, RegistrationError

#: The small canonical field the crops are cut from: this fraction of the canonical size.
CROP_SCALE = 0.4
#: Crop size in pixels: 1.4 points wide (at the default geometry), half the field high.
CROP_WIDTH = 28
CROP_HEIGHT = int(round(FIELD_HEIGHT * CROP_SCALE / 2))
#: Border added around the small field so that the outer points' crops fit (pixels).
_PAD = CROP_WIDTH // 2
#: The grey (each BGR channel) that covers a die or the cube in the crops.
COVER_GREY = 128
#: A found object's box is grown by this fraction of its side on every side before it is covered.
COVER_GROW = 0.05
#: A warp samples without averaging: a frame is first halved (a Gaussian pyramid's step) until
#: no more than this factor is left to the warp.
_MAX_WARP_SHRINK = 1.6


def small_field(image_bgr: np.ndarray, field: Field) -> np.ndarray:
    """The canonical field at :data:`CROP_SCALE`, with a replicated border of ``_PAD`` pixels.

    ``image_bgr``: (H, W, 3) uint8 BGR frame of ``field.image_size``. Returns
    (FIELD_HEIGHT*s + 2*pad, FIELD_WIDTH*s + 2*pad, 3) uint8 BGR. Raises
    :class:`~vision.registration.RegistrationError` when the frame's size differs from the
    registration's.
    """
    import cv2

    h, w = image_bgr.shape[:2]
    if (w, h) != tuple(field.image_size):
        raise RegistrationError(f"frame is {w}x{h} but the registration is for "
                                f"{field.image_size[0]}x{field.image_size[1]}")
    s = CROP_SCALE
    out_w, out_h = int(round(FIELD_WIDTH * s)), int(round(FIELD_HEIGHT * s))
    if field.camera is not None:
        from vision.registration import warp_field

        full = warp_field(image_bgr, field)
        small = cv2.resize(full, (out_w, out_h), interpolation=cv2.INTER_AREA)
        return cv2.copyMakeBorder(small, _PAD, _PAD, _PAD, _PAD, cv2.BORDER_REPLICATE)
    hs = np.array([[s, 0, _PAD], [0, s, _PAD], [0, 0, 1.0]]) @ field.homography
    corners = np.asarray(field.corners, np.float64)
    span = max(np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[2] - corners[3]))
    shrink = span / out_w
    while shrink > _MAX_WARP_SHRINK:  # halve (Gaussian pyramid) until the warp's share is small
        image_bgr = cv2.pyrDown(image_bgr)
        shrink /= 2.0
    if image_bgr.shape[:2] != (h, w):
        hs = hs @ np.diag([w / image_bgr.shape[1], h / image_bgr.shape[0], 1.0])
    return cv2.warpPerspective(image_bgr, hs, (out_w + 2 * _PAD, out_h + 2 * _PAD), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def crops_from_small_field(small: np.ndarray, field: Field) -> np.ndarray:
    """Cut the 24 point crops out of :func:`small_field`'s picture.

    Returns (24, CROP_HEIGHT, CROP_WIDTH, 3) uint8 BGR, points 1..24 in order, each with
    the point's base on row 0.
    """
    out = np.empty((24, CROP_HEIGHT, CROP_WIDTH, 3), np.uint8)
    top = _PAD
    bottom = _PAD + 2 * CROP_HEIGHT
    for g in field.points():
        x = int(round(g.centre_x * CROP_SCALE)) + _PAD - CROP_WIDTH // 2
        if g.row == "top":
            out[g.point - 1] = small[top:top + CROP_HEIGHT, x:x + CROP_WIDTH]
        else:
            out[g.point - 1] = small[bottom - CROP_HEIGHT:bottom, x:x + CROP_WIDTH][::-1]
    return out


def point_crops(image_bgr: np.ndarray, field: Field) -> np.ndarray:
    """The 24 point crops of a frame: (24, CROP_HEIGHT, CROP_WIDTH, 3) uint8 BGR, points
    1..24 in order (``companion read`` numbering), the base of each point on row 0.

    ``image_bgr``: (H, W, 3) uint8 BGR frame; ``field``: its registration. Raises
    :class:`~vision.registration.RegistrationError` for a frame of another size.
    """
    return crops_from_small_field(small_field(image_bgr, field), field)


def bar_crops_from_small_field(small: np.ndarray, field: Field) -> np.ndarray:
    """The bar's two halves from :func:`small_field`'s picture: (2, CROP_HEIGHT, CROP_WIDTH, 3)
    uint8 BGR, index 0 the top half and 1 the bottom half, the field's middle on row 0."""
    x = int(round(0.5 * (field.bar_x0 + field.bar_x1) * CROP_SCALE)) + _PAD - CROP_WIDTH // 2
    mid = _PAD + CROP_HEIGHT
    top = small[mid - CROP_HEIGHT:mid, x:x + CROP_WIDTH][::-1]
    bottom = small[mid:mid + CROP_HEIGHT, x:x + CROP_WIDTH]
    return np.stack([top, bottom])


def bar_crops(image_bgr: np.ndarray, field: Field) -> np.ndarray:
    """The bar's two half crops of a frame (see :func:`bar_crops_from_small_field`)."""
    return bar_crops_from_small_field(small_field(image_bgr, field), field)


def _columns_reached(field: Field, rect: tuple[float, float, float, float]) -> list:
    """The points (``PointGeometry``) whose column the field rectangle ``rect`` overlaps in its
    half of the field's height (where a stack of that point can reach)."""
    fx0, fy0, fx1, fy1 = rect
    mid = 0.5 * field.size[1]
    out = []
    for g in field.points():
        rows = (0.0, mid) if g.row == "top" else (mid, float(field.size[1]))
        if g.x0 < fx1 and fx0 < g.x1 and rows[0] < fy1 and fy0 < rows[1]:
            out.append(g)
    return out


def points_under(field: Field, boxes) -> frozenset:
    """The points a reading of ``field`` may get wrong because of the objects in ``boxes``
    (image-pixel boxes ``(x0, y0, x1, y1)``, e.g. dice): each box, grown by
    :data:`COVER_GROW` and carried to the field, reaches the points (1..24, the
    :func:`point_crops` numbering) whose column it overlaps in its half of the field's height
    (where a stack of that point can reach), and ``"bar"`` when it overlaps the bar.
    Returns a frozenset of ints and possibly ``"bar"``; boxes that do not map are skipped."""
    out: set = set()
    for box in boxes:
        rect = _on_field(field, box)
        if rect is None:
            continue
        out.update(g.point for g in _columns_reached(field, rect))
        if field.bar_x0 < rect[2] and rect[0] < field.bar_x1:
            out.add("bar")
    return frozenset(out)


#: Checkers a point holds in one line from its base; more overlap or stand two high.
LINE_PLACES = 5


def places_under(field: Field, boxes) -> dict:
    """Where along each point the objects in ``boxes`` (image-pixel boxes ``(x0, y0, x1, y1)``,
    e.g. dice) lie: point (1..24, the :func:`point_crops` numbering) -> the frozenset of checker
    places (0 the first from the point's base .. :data:`LINE_PLACES` - 1 the last of a line) that
    a box, grown by :data:`COVER_GROW` and carried to the field, overlaps, a place being a
    checker's height (``field.checker_size``) along the point after the geometry's edge margin.
    A point that :func:`points_under` gives but no place of which a box overlaps (a box beyond a
    line's end) maps to an empty set. Boxes that do not map are skipped."""
    out: dict = {}
    step = field.checker_size[1]
    margin = field.geometry.edge_margin * field.point_width
    for box in boxes:
        rect = _on_field(field, box)
        if rect is None:
            continue
        for g in _columns_reached(field, rect):
            near, far = ((rect[1] - g.base_y, rect[3] - g.base_y) if g.direction > 0
                         else (g.base_y - rect[3], g.base_y - rect[1]))
            places = {k for k in range(LINE_PLACES) if near < margin + (k + 1) * step and margin + k * step < far}
            out[g.point] = out.get(g.point, frozenset()) | frozenset(places)
    return out


def cover_box(img: np.ndarray, box: tuple[float, float, float, float]) -> None:
    """Fill the axis-aligned ``box`` ``(x0, y0, x1, y1)`` (pixels, clipped to the picture) of
    ``img`` ((h, w, 3) uint8 or float32 BGR, changed in place) with :data:`COVER_GREY`."""
    h, w = img.shape[:2]
    x0, y0 = max(0, int(np.floor(box[0]))), max(0, int(np.floor(box[1])))
    x1, y1 = min(w, int(np.ceil(box[2]))), min(h, int(np.ceil(box[3])))
    if x1 > x0 and y1 > y0:
        img[y0:y1, x0:x1] = COVER_GREY


def cover_boxes(small: np.ndarray, field: Field, boxes) -> np.ndarray:
    """:func:`small_field`'s picture with the dice and the cube covered.

    ``small``: the small field, (h, w, 3) uint8 BGR; ``boxes``: image-pixel boxes
    ``(x0, y0, x1, y1)`` of the objects found in the frame (a die's, the cube's). Each box,
    grown by :data:`COVER_GROW`, is carried to the field and the bounding rectangle of
    where it lands is filled with :data:`COVER_GREY`. Returns a copy (``small`` itself
    when there is nothing to cover).
    """
    if not boxes:
        return small
    out = small.copy()
    for box in boxes:
        rect = _on_field(field, box)
        if rect is not None:
            cover_box(out, tuple(v * CROP_SCALE + _PAD for v in rect))
    return out


def _on_field(field: Field, box) -> Optional[tuple[float, float, float, float]]:
    """The image-pixel ``box`` ``(x0, y0, x1, y1)``, grown by :data:`COVER_GROW`, carried to
    the canonical field: the bounding rectangle ``(x0, y0, x1, y1)`` of where it lands, or
    None when it does not map."""
    x0, y0, x1, y1 = (float(v) for v in box)
    gx, gy = COVER_GROW * (x1 - x0), COVER_GROW * (y1 - y0)
    quad = np.array([[x0 - gx, y0 - gy], [x1 + gx, y0 - gy], [x1 + gx, y1 + gy], [x0 - gx, y1 + gy]])
    pts = field.to_field(quad)
    if not np.all(np.isfinite(pts)):
        return None
    return float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max())

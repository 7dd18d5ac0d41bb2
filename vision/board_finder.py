"""Automatic board detection: where is the playing field in a photo?

Candidates are quadrilaterals from OpenCV's contour tools (Canny edges and Otsu
colour thresholds, ``findContours`` + ``approxPolyDP`` / ``minAreaRect``), pairs of
side-by-side quadrilaterals joined across the bar (boards whose two halves stand
apart), quadrilaterals bounded by long near-horizontal and near-vertical lines
(``HoughLinesP``: a field edged by a groove need not close a contour), and
quadrilaterals from two families of long straight lines in any direction (OpenCV's
line segment detector, collinear segments merged; steep perspective and turned
boards), ranked by how much of their sides detected segments cover. Each
candidate, in both of its possible row directions, is warped to a small canonical
field and scored by the board's signature (:func:`board_score`): in the band where
the points are narrow each of the 24 point columns shows its point's colour in its
middle and the field's colour at its edges, neighbouring points alternate, and the
bar is one colour along its length (photos without a board score below 0.2; boards
0.5-1). The signature tolerates a side pushed out onto the frame or pulled in over
the points, so near-ties are settled by where the sides sit (:func:`_edge_score`):
the points' bases touch the long edges, so just inside them the colour changes from
column to column and just outside it does not. Finally each side of the winner is
moved within about 4% to where that edge evidence is clearly strongest
(:func:`_refine_sides`).
"""

from __future__ import annotations

import numpy as np

from vision.registration_error import RegistrationError

#: Least board signature score accepted (see :func:`board_score`).
MIN_SCORE = 0.35
_W, _H = 160, 150
#: Signature scores this close to the best count as a tie, settled by :func:`_edge_score`.
_TIE = 0.15


def _order(quad: np.ndarray) -> np.ndarray:
    """Four points -> TL, TR, BR, BL (clockwise on screen, starting top-left)."""
    q = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    c = q.mean(axis=0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]  # clockwise on screen (y down), starting from the left
    start = int(np.argmin(q[:, 0] + q[:, 1]))
    return np.roll(q, -start, axis=0)


def board_score(image_bgr: np.ndarray, corners: np.ndarray) -> float:
    """The board signature of a candidate field (about 0 for non-boards, 0.5-1 for boards).

    ``corners``: (4, 2) image-order corners. Measures, over the 24 point columns in
    the band 22-38% of the way from each edge, how much the column's middle differs
    from its edges (relative to the image's contrast), how well the point colours
    alternate and how even the bar's colour is along its length, for a few bar
    widths (the best counts). Returns a float.
    """
    import cv2

    return _lab_score(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2LAB), corners)


def _lab_score(image_lab: np.ndarray, corners: np.ndarray, size: tuple[int, int] = (_W, _H)) -> float:
    """:func:`board_score` on an image already converted to 8-bit Lab (``cv2.COLOR_BGR2LAB``),
    so that many candidates share one colour conversion. ``size``: the canonical
    field's (width, height) in pixels; a smaller one gives a quick, rougher score."""
    import cv2

    _W, _H = size  # noqa: N806

    dst = np.array([[0, 0], [_W, 0], [_W, _H], [0, _H]], np.float32)
    hmat = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    lab = cv2.warpPerspective(image_lab, hmat, (_W, _H), flags=cv2.INTER_AREA).astype(np.float32)
    flat = lab.reshape(-1, 3)
    scale = max(20.0, float(np.percentile(np.linalg.norm(flat[::4] - flat.mean(0), axis=1), 90)))
    r0, r1 = int(0.22 * _H), int(0.38 * _H)
    s0 = int(0.62 * _H)
    n = min(r1 - r0, int(0.78 * _H) - s0)
    halves = np.stack([lab[r0:r0 + n], lab[s0:s0 + n]])  # (2, rows, W, 3): top and bottom bands
    bars = (0.04, 0.07, 0.1)
    b0 = np.array([0.5 * _W * (1 - b) for b in bars])
    b1 = np.array([0.5 * _W * (1 + b) for b in bars])
    pw = b0 / 6
    c = np.arange(12)
    x0 = np.where(c[None] < 6, c[None] * pw[:, None], b1[:, None] + (c[None] - 6) * pw[:, None])  # (3, 12)
    mid = np.clip(np.rint(x0 + pw[:, None] / 2).astype(int), 1, _W - 2)
    left = np.clip(np.rint(x0).astype(int), 0, _W - 1)
    right = np.clip(np.rint(x0 + pw[:, None]).astype(int) - 1, 0, _W - 1)
    # (2, rows, k, 3 bars, 12, 3) -> medians over rows and k: (3 bars, 2, 12, 3)
    cm = halves[:, :, np.stack([mid - 1, mid, mid + 1])]
    em = halves[:, :, np.stack([left, right])]
    mids = np.median(cm.transpose(3, 0, 1, 2, 4, 5).reshape(3, 2, -1, 12, 3), axis=2)
    edges = np.median(em.transpose(3, 0, 1, 2, 4, 5).reshape(3, 2, -1, 12, 3), axis=2)
    contrast = np.linalg.norm(mids - edges, axis=3).reshape(3, 24)
    c_score = np.median(np.clip(contrast / (0.6 * scale), 0, 1), axis=1)
    d1 = np.linalg.norm(mids[:, :, 1:] - mids[:, :, :-1], axis=3).mean(axis=(1, 2))
    d2 = np.linalg.norm(mids[:, :, 2:] - mids[:, :, :-2], axis=3).mean(axis=(1, 2))
    alt = np.clip((d1 - d2) / np.maximum(d1, 1e-3), 0, 1)
    edge_sd = np.linalg.norm(np.std(edges.reshape(3, 24, 3), axis=1), axis=1) / scale
    best = 0.0
    for t in range(3):
        # The bar: one colour from top to bottom (the points change along a column).
        bar_band = lab[:, int(round(b0[t] + 0.25 * (b1[t] - b0[t]))):int(round(b1[t] - 0.25 * (b1[t] - b0[t]))) + 1]
        med = np.median(bar_band, axis=0)
        mad = float(np.median(np.linalg.norm(bar_band - med[None], axis=2)))
        bar_ok = float(np.clip(1.0 - mad / (0.5 * scale), 0, 1))
        best = max(best, float(c_score[t]) * (0.5 + 0.5 * float(alt[t])) * float(np.clip(1.2 - edge_sd[t], 0, 1))
                   * (0.5 + 0.5 * bar_ok))
    return best


def _margin_warp(image_lab: np.ndarray, corners: np.ndarray, fw: int, fh: int,
                 margin: float) -> tuple[np.ndarray, np.ndarray, int, int, float]:
    """Warp a candidate field to ``fw`` x ``fh`` with ``margin`` (fraction) of its
    surroundings on every side. Returns (float32 Lab canvas, image -> canvas homography,
    x margin, y margin, colour scale of the field)."""
    import cv2

    mx, my = int(round(margin * fw)), int(round(margin * fh))
    dst = np.array([[mx, my], [mx + fw, my], [mx + fw, my + fh], [mx, my + fh]], np.float32)
    hmat = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    lab = cv2.warpPerspective(image_lab, hmat, (fw + 2 * mx, fh + 2 * my), flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    field = lab[my:my + fh, mx:mx + fw].reshape(-1, 3)
    scale = max(20.0, float(np.percentile(np.linalg.norm(field[::4] - field.mean(0), axis=1), 90)))
    return lab, hmat, mx, my, scale


def _side_terms(lab: np.ndarray, scale: float, top: int, bottom: int, left: int, right: int,
                reach: int = 0) -> list[np.ndarray]:
    """Edge evidence (0..1) for each side of a field whose edges lie at canvas rows ``top``,
    ``bottom`` and columns ``left``, ``right`` of ``lab`` ((h, w, 3) float32 Lab), for the
    side moved by each offset in ``-reach..reach`` pixels (``reach`` is cut to what the
    canvas allows). Returns four arrays (top, bottom, left, right) indexed by offset + reach.

    Long sides: the colour change from point column to point column (median over the 11
    neighbouring pairs not across the bar, of band means) in a band just inside, times one
    minus the same just outside. Short sides: the spread of a strip's colour along its
    length (70th percentile over ten stretches) just inside, times one minus it just outside.
    """
    fw, fh = right - left, bottom - top
    b, g = max(2, int(0.035 * fh)), max(1, int(0.005 * fh))
    bw, gw = max(2, int(0.03 * fw)), max(1, int(0.005 * fw))
    room = min(top, left, lab.shape[0] - bottom, lab.shape[1] - right) - max(b, bw) - max(g, gw) - 1
    reach = max(0, min(reach, room))
    ks = np.arange(-reach, reach + 1)
    pw = fw * 0.94 / 12
    idx = np.arange(12)
    centres = left + np.clip(np.rint((idx + 0.5) * pw + (idx >= 6) * 0.06 * fw).astype(int), 0, fw - 1)
    rows = np.concatenate([np.zeros((1, 12, 3), np.float64), np.cumsum(lab[:, centres], axis=0, dtype=np.float64)])

    def across(r0: np.ndarray) -> np.ndarray:  # bands r0..r0+b for every offset
        cols = (rows[r0 + b] - rows[r0]) / b  # (k, 12, 3)
        d = np.delete(np.linalg.norm(np.diff(cols, axis=1), axis=2), 5, axis=1)  # not across the bar
        return np.clip(np.median(d, axis=1) / (0.35 * scale), 0, 1)

    n = fh // 10 * 10
    cols_cum = np.concatenate([np.zeros((n, 1, 3)), np.cumsum(lab[top:top + n], axis=1, dtype=np.float64)], axis=1)

    def along(c0: np.ndarray) -> np.ndarray:  # strips c0..c0+bw for every offset
        strip = (cols_cum[:, c0 + bw] - cols_cum[:, c0]) / bw  # (n, k, 3)
        prof = strip.reshape(10, n // 10, len(c0), 3).mean(axis=1)  # (10, k, 3)
        spread = np.linalg.norm(prof - np.median(prof, axis=0), axis=2)
        return np.clip(np.percentile(spread, 70, axis=0) / (0.35 * scale), 0, 1)

    return [across(top + ks + g) * (1 - across(top + ks - g - b)),
            across(bottom + ks - g - b) * (1 - across(bottom + ks + g)),
            along(left + ks + gw) * (1 - along(left + ks - gw - bw)),
            along(right + ks - gw - bw) * (1 - along(right + ks + gw))]


def _combine(parts: list[float]) -> float:
    return float(0.5 * np.mean(parts) + 0.5 * min(parts))


def _edge_score(image_lab: np.ndarray, corners: np.ndarray) -> float:
    """How exactly a candidate's sides sit on the field's edges (0..1).

    The points' bases touch the two long edges: a thin band just inside each changes
    colour from point column to point column while the band just outside (frame,
    table) does not; along the two short edges a strip just inside changes colour
    from a point's base to its tip while the strip just outside does not. A side
    pushed out onto the frame fails the inside test, one pulled in over the points
    fails the outside test. ``image_lab``: 8-bit Lab image; ``corners``: (4, 2)
    candidate corners with the point rows along TL-TR and BL-BR.
    """
    lab, _, mx, my, scale = _margin_warp(image_lab, corners, _W, _H, 0.05)
    terms = _side_terms(lab, scale, my, my + _H, mx, mx + _W)
    return _combine([float(a[len(a) // 2]) for a in terms])


def _candidates(img: np.ndarray) -> list[np.ndarray]:
    import cv2

    h, w = img.shape[:2]
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    masks = []
    for lo, hi in ((30, 90), (60, 160), (100, 250)):
        e = cv2.Canny(blur, lo, hi)
        masks.append(cv2.dilate(e, np.ones((3, 3), np.uint8)))
    lab = cv2.cvtColor(cv2.GaussianBlur(img, (7, 7), 0), cv2.COLOR_BGR2LAB)
    for ch in range(3):
        _, t = cv2.threshold(lab[:, :, ch], 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        masks += [t, 255 - t]
    quads: list[np.ndarray] = []
    min_area = 0.06 * w * h
    for m in masks:
        contours, _ = cv2.findContours(m, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for cnt in contours:
            area = cv2.contourArea(cnt)
            if area < min_area:
                continue
            hull = cv2.convexHull(cnt)
            peri = cv2.arcLength(hull, True)
            for eps in (0.02, 0.04):
                approx = cv2.approxPolyDP(hull, eps * peri, True)
                if len(approx) == 4 and cv2.isContourConvex(approx):
                    quads.append(_order(approx.reshape(4, 2)))
                    break
            rect = cv2.boxPoints(cv2.minAreaRect(cnt))
            quads.append(_order(rect))
    # Halves standing apart: join two quads of similar height side by side.
    halves = [q for q in quads if cv2.contourArea(q.astype(np.float32)) < 0.5 * w * h]
    joined = []
    for i, a in enumerate(halves[:60]):
        for b in halves[i + 1:60]:
            left, right = (a, b) if a[:, 0].mean() < b[:, 0].mean() else (b, a)
            ha = np.linalg.norm(left[3] - left[0])
            hb = np.linalg.norm(right[2] - right[1])
            gap = np.linalg.norm(right[0] - left[1])
            wl = np.linalg.norm(left[1] - left[0])
            if abs(ha - hb) < 0.1 * max(ha, hb) and gap < 0.3 * wl and wl > 0.2 * ha:
                joined.append(np.array([left[0], right[1], right[2], left[3]]))
    return quads + joined + _line_quads(gray) + _segment_quads(gray)


def _line_quads(gray: np.ndarray, keep: int = 9) -> list[np.ndarray]:
    """Quadrilaterals bounded by pairs of long near-horizontal and near-vertical lines
    (``cv2.HoughLinesP`` on Canny edges): a field edged by a groove or a frame need
    not form a closed contour."""
    import cv2

    h, w = gray.shape[:2]
    edges = cv2.Canny(cv2.GaussianBlur(gray, (5, 5), 0), 50, 150)
    lines = cv2.HoughLinesP(edges, 1, np.pi / 180, threshold=60, minLineLength=int(0.2 * min(h, w)), maxLineGap=8)
    if lines is None:
        return []
    groups: dict[str, list[tuple[float, float, float, np.ndarray]]] = {"h": [], "v": []}
    cx, cy = w / 2, h / 2
    for x0, y0, x1, y1 in lines.reshape(-1, 4).astype(np.float64):
        ang = np.degrees(np.arctan2(y1 - y0, x1 - x0)) % 180
        length = float(np.hypot(x1 - x0, y1 - y0))
        if ang < 25 or ang > 155:
            kind, off = "h", y0 + (y1 - y0) * (cx - x0) / (x1 - x0 if x1 != x0 else 1e-9)
        elif 65 < ang < 115:
            kind, off = "v", x0 + (x1 - x0) * (cy - y0) / (y1 - y0 if y1 != y0 else 1e-9)
        else:
            continue
        groups[kind].append((float(off), ang, length, np.array([x0, y0, x1, y1])))
    merged: dict[str, list[np.ndarray]] = {}
    for kind, items in groups.items():
        items.sort(key=lambda t: -t[2])
        chosen: list[tuple[float, float, np.ndarray]] = []
        for off, ang, _, seg in items:
            if all(abs(off - o) > 6 or abs(ang - a) > 4 for o, a, _ in chosen):
                chosen.append((off, ang, seg))
            if len(chosen) >= keep:
                break
        merged[kind] = [seg for _, _, seg in sorted(chosen, key=lambda t: t[0])]

    def meet(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
        x1, y1, x2, y2 = a
        x3, y3, x4, y4 = b
        den = (x1 - x2) * (y3 - y4) - (y1 - y2) * (x3 - x4)
        if abs(den) < 1e-9:
            return None
        t = ((x1 - x3) * (y3 - y4) - (y1 - y3) * (x3 - x4)) / den
        return np.array([x1 + t * (x2 - x1), y1 + t * (y2 - y1)])

    quads = []
    hs, vs = merged.get("h", []), merged.get("v", [])
    for i in range(len(hs)):
        for j in range(i + 1, len(hs)):
            for k in range(len(vs)):
                for m in range(k + 1, len(vs)):
                    pts = [meet(hs[i], vs[k]), meet(hs[i], vs[m]), meet(hs[j], vs[m]), meet(hs[j], vs[k])]
                    if any(p is None for p in pts):
                        continue
                    q = np.array(pts)
                    width = np.linalg.norm(q[1] - q[0])
                    height = np.linalg.norm(q[3] - q[0])
                    if height < 1 or not 0.7 < width / height < 1.8:
                        continue
                    if cv2.contourArea(q.astype(np.float32)) < 0.12 * w * h:
                        continue
                    if np.any(q < -0.1 * max(w, h)) or np.any(q[:, 0] > 1.1 * w) or np.any(q[:, 1] > 1.1 * h):
                        continue
                    quads.append(q)
    return quads


def _segment_lines(gray: np.ndarray, keep: int = 12) -> list[list[tuple[np.ndarray, np.ndarray, list[tuple[float, float]]]]]:
    """Long straight lines from OpenCV's line segment detector (``cv2.createLineSegmentDetector``),
    collinear segments merged, in two families: up to ``keep`` lines near the direction of
    the best-supported line and up to ``keep`` across it (the points' edges crowd one
    direction), most supported first. Each line is (point on it (2,), unit direction (2,),
    covered intervals along the direction from the point)."""
    import cv2

    h, w = gray.shape[:2]
    segs = cv2.createLineSegmentDetector().detect(gray)[0]
    if segs is None:
        return [[], []]
    segs = segs.reshape(-1, 4).astype(np.float64)
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    order = np.argsort(-length)
    order = order[length[order] >= 0.03 * min(h, w)]
    # Each line: [point, direction, endpoints, weights, support]; refitted (weighted
    # principal axis of its segments' endpoints) as segments join, longest first.
    lines: list[list] = []
    for i in order:
        p0, p1 = segs[i, :2], segs[i, 2:]
        for ln in lines:
            pt, d = ln[0], ln[1]
            # Off the line by under 3 px, more far along it (a short line's direction is rough).
            if abs((p0[0] - pt[0]) * d[1] - (p0[1] - pt[1]) * d[0]) < 3.0 + 0.02 * abs(np.dot(p0 - pt, d)) and \
                    abs((p1[0] - pt[0]) * d[1] - (p1[1] - pt[1]) * d[0]) < 3.0 + 0.02 * abs(np.dot(p1 - pt, d)):
                ln[2] += [p0, p1]
                ln[3] += [length[i], length[i]]
                ln[4] += length[i]
                pts, wts = np.array(ln[2]), np.array(ln[3])
                ln[0] = (pts * wts[:, None]).sum(axis=0) / wts.sum()
                cov = ((pts - ln[0]) * wts[:, None]).T @ (pts - ln[0])
                ln[1] = np.linalg.eigh(cov)[1][:, -1]
                break
        else:
            lines.append([(p0 + p1) / 2, (p1 - p0) / length[i], [p0, p1], [length[i], length[i]], float(length[i])])
    for ln in lines:  # covered intervals along the final line
        t = [float(np.dot(p - ln[0], ln[1])) for p in ln[2]]
        ln[2] = [tuple(sorted((t[k], t[k + 1]))) for k in range(0, len(t), 2)]
        ln[3] = ln[4]
    lines = [ln for ln in lines if ln[3] >= 0.12 * min(h, w)]
    lines.sort(key=lambda ln: -ln[3])
    if not lines:
        return [[], []]
    d0 = lines[0][1]
    near = [ln for ln in lines if abs(float(np.dot(ln[1], d0))) >= np.cos(np.radians(45))]
    across = [ln for ln in lines if abs(float(np.dot(ln[1], d0))) < np.cos(np.radians(45))]
    return [[(ln[0], ln[1], ln[2]) for ln in fam[:keep]] for fam in (near, across)]


def _segment_quads(gray: np.ndarray, keep: int = 24) -> list[np.ndarray]:
    """Quadrilaterals from two families of long straight lines (any direction, so steep
    perspective and turned boards too): a pair of roughly parallel lines from each family,
    ranked by how much of the four sides between the corners detected segments cover
    (mean plus half the least); the best ``keep``, image-order corners."""
    h, w = gray.shape[:2]
    fams = _segment_lines(gray)
    if min(len(f) for f in fams) < 2:
        return []
    step = 2.0
    reach = 1.5 * float(np.hypot(h, w))
    nbin = int(2 * reach / step) + 2

    def family(lines):
        pts = np.array([ln[0] for ln in lines])
        dirs = np.array([ln[1] for ln in lines])
        cum = np.zeros((len(lines), nbin + 1))
        for r, (_, _, iv) in enumerate(lines):
            occ = np.zeros(nbin)
            for lo, hi in iv:
                occ[max(0, int((lo + reach) / step)):max(0, int((hi + reach) / step))] = 1
            cum[r, 1:] = np.cumsum(occ)
        n = len(lines)
        i, j = np.triu_indices(n, 1)
        cosang = np.abs(np.sum(dirs[i] * dirs[j], axis=1))
        sep = np.abs((pts[j, 0] - pts[i, 0]) * dirs[i, 1] - (pts[j, 1] - pts[i, 1]) * dirs[i, 0])
        ok = (cosang >= np.cos(np.radians(30))) & (sep >= 0.2 * min(h, w))
        return pts, dirs, cum, np.stack([i[ok], j[ok]], axis=1)

    pa, da, ca, pairs_a = family(fams[0])
    pb, db, cb, pairs_b = family(fams[1])
    if not len(pairs_a) or not len(pairs_b):
        return []
    # Crossings of every A line with every B line: X[a, b] = pa + ta * da = pb + tb * db.
    den = da[:, None, 0] * db[None, :, 1] - da[:, None, 1] * db[None, :, 0]
    den = np.where(np.abs(den) < 1e-6, 1e-6, den)
    dx = pb[None, :, 0] - pa[:, None, 0]
    dy = pb[None, :, 1] - pa[:, None, 1]
    ta = (dx * db[None, :, 1] - dy * db[None, :, 0]) / den
    tb = (dx * da[:, None, 1] - dy * da[:, None, 0]) / den
    xy = pa[:, None, :] + ta[..., None] * da[:, None, :]  # (nA, nB, 2)
    i, j = pairs_a[:, 0][:, None], pairs_a[:, 1][:, None]
    k, m = pairs_b[:, 0][None, :], pairs_b[:, 1][None, :]
    quad = np.stack([xy[i, k], xy[i, m], xy[j, m], xy[j, k]], axis=2)  # (PA, PB, 4, 2)
    lim = 0.15 * max(h, w)
    inside = ((quad >= -lim).all(axis=(2, 3)) & (quad[..., 0] <= w + lim).all(axis=2)
              & (quad[..., 1] <= h + lim).all(axis=2))
    nxt = np.roll(quad, -1, axis=2)
    area = 0.5 * np.abs((quad[..., 0] * nxt[..., 1] - quad[..., 1] * nxt[..., 0]).sum(axis=2))
    e = nxt - quad
    e2 = np.roll(e, -1, axis=2)
    turn = e[..., 0] * e2[..., 1] - e[..., 1] * e2[..., 0]
    convex = (turn > 0).all(axis=2) | (turn < 0).all(axis=2)
    side = np.linalg.norm(e, axis=3)
    ratio = (side[..., 0] + side[..., 2]) / np.maximum(side[..., 1] + side[..., 3], 1e-6)
    usable = inside & convex & (area >= 0.08 * w * h) & (ratio > 0.45) & (ratio < 2.2)
    if not usable.any():
        return []

    def cover(cum, line, t0, t1):
        lo, hi = np.minimum(t0, t1), np.maximum(t0, t1)
        a = np.clip(((lo + reach) / step).astype(int), 0, nbin)
        b = np.clip(((hi + reach) / step).astype(int), 0, nbin)
        return (cum[line, b] - cum[line, a]) / np.maximum(b - a, 1)

    cov = np.stack([cover(ca, i, ta[i, k], ta[i, m]), cover(cb, m, tb[i, m], tb[j, m]),
                    cover(ca, j, ta[j, m], ta[j, k]), cover(cb, k, tb[j, k], tb[i, k])], axis=2)
    rank = np.where(usable, cov.mean(axis=2) + 0.5 * cov.min(axis=2), -1.0).ravel()
    best = np.argsort(-rank)[:keep]
    flat = quad.reshape(-1, 4, 2)
    return [_order(flat[b]) for b in best if rank[b] >= 0]


def _quick_scores(image_lab: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """A rough board signature for many candidates at once: (N,) float in 0..1.

    ``image_lab``: (h, w, 3) uint8 Lab (blurred); ``quads``: (N, 4, 2) image-order
    corners. In the bands 22-38% of the way in from each long edge, each of the 24
    point columns' middle is compared with its two edges (the points' colour against
    the field's) and neighbouring columns' middles must alternate, as in
    :func:`board_score`, from pixels sampled through each candidate's homography
    (no warp).
    """
    import cv2

    h, w = image_lab.shape[:2]
    pw = 0.5 * (1 - 0.07) / 6
    x0 = np.concatenate([np.arange(6) * pw, 0.5 * (1 + 0.07) + np.arange(6) * pw])  # (12,)
    xs = np.stack([x0 + 0.5 * pw, x0 + 0.06 * pw, x0 + 0.94 * pw])  # middle, left edge, right edge
    ys = np.concatenate([np.linspace(0.22, 0.38, 4), np.linspace(0.62, 0.78, 4)])  # (8,)
    gx, gy = np.broadcast_to(xs[:, None, :], (3, 8, 12)), np.broadcast_to(ys[None, :, None], (3, 8, 12))
    unit = np.stack([gx.ravel(), gy.ravel(), np.ones(gx.size)])  # (3, P)
    src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    hs = np.stack([cv2.getPerspectiveTransform(src, q.astype(np.float32)) for q in quads])  # (N, 3, 3)
    p = hs @ unit  # (N, 3, P)
    z = np.where(np.abs(p[:, 2]) < 1e-9, 1e-9, p[:, 2])
    xi = np.clip(np.rint(p[:, 0] / z), 0, w - 1).astype(np.intp)
    yi = np.clip(np.rint(p[:, 1] / z), 0, h - 1).astype(np.intp)
    v = image_lab[yi, xi].astype(np.float32).reshape(len(quads), 3, 2, 4, 12, 3).mean(axis=3)  # (N, 3, 2, 12, 3)
    mids, edges = v[:, 0].reshape(-1, 24, 3), 0.5 * (v[:, 1] + v[:, 2]).reshape(-1, 24, 3)
    allv = v.reshape(len(quads), -1, 3)
    scale = np.maximum(20.0, np.percentile(np.linalg.norm(allv - allv.mean(axis=1, keepdims=True), axis=2), 90, axis=1))
    contrast = np.linalg.norm(mids - edges, axis=2)  # (N, 24)
    c_score = np.median(np.clip(contrast / (0.6 * scale[:, None]), 0, 1), axis=1)
    m = mids.reshape(-1, 2, 12, 3)
    d1 = np.linalg.norm(m[:, :, 1:] - m[:, :, :-1], axis=3).mean(axis=(1, 2))
    d2 = np.linalg.norm(m[:, :, 2:] - m[:, :, :-2], axis=3).mean(axis=(1, 2))
    alt = np.clip((d1 - d2) / np.maximum(d1, 1e-3), 0, 1)
    return c_score * (0.5 + 0.5 * alt)


def find_board(image_bgr: np.ndarray, shortlist: int = 24, refine: bool = True) -> np.ndarray:
    """Find the playing field; returns (4, 2) float64 image-order corners.

    ``image_bgr``: (H, W, 3) uint8 BGR. Works on a copy at most 640 pixels wide. Every
    candidate gets a quick signature (:func:`_quick_scores`); the best ``shortlist``
    are scored by the board signature (:func:`board_score`); among those within
    ``_TIE`` of the best, the one maximising signature x (0.3 + 0.7 x :func:`_edge_score`)
    wins; with ``refine`` its sides are then moved onto the field's edges
    (:func:`_refine_sides`). Raises :class:`~vision.registration_error.RegistrationError` (a ``ValueError``) when
    nothing scores ``MIN_SCORE`` or more.
    """
    import cv2

    h, w = image_bgr.shape[:2]
    s = min(1.0, 640.0 / max(h, w))
    img = cv2.resize(image_bgr, (int(round(w * s)), int(round(h * s))), interpolation=cv2.INTER_AREA) if s < 1 else image_bgr
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)
    seen: list[np.ndarray] = []
    for q in _candidates(img):
        if any(np.abs(q - o).max() < 4 for o in seen):
            continue
        seen.append(q)
    both = [cand for q in seen for cand in (q, np.array([q[3], q[0], q[1], q[2]]))]
    if len(both) > shortlist:
        # A quick signature from a few hundred sampled pixels per candidate shortlists
        # the candidates that get the full one.
        quick = _quick_scores(cv2.GaussianBlur(lab, (5, 5), 0), np.array(both))
        both = [both[i] for i in np.argsort(-quick, kind="stable")[:shortlist]]
    scored = sorted(((_lab_score(lab, cand), cand) for cand in both), key=lambda t: -t[0])
    if not scored or scored[0][0] < MIN_SCORE:
        raise RegistrationError("no board found in the image (give --corners or a --calibration profile)")
    # Among near-equal candidates (the signature tolerates a side on the frame's outer edge
    # or across the points' bases), the one whose sides sit on the field's edges.
    close = [(sc, q) for sc, q in scored[:40] if sc >= scored[0][0] - _TIE]
    best_q = max(close, key=lambda t: t[0] * (0.3 + 0.7 * _edge_score(lab, t[1])))[1]
    if refine:
        best_q = _refine_sides(lab, best_q)
    return best_q / s


def _refine_sides(image_lab: np.ndarray, corners: np.ndarray, reach: int = 6, rounds: int = 2,
                  gain: float = 0.2) -> np.ndarray:
    """Move each side of a found field to where its edge evidence (:func:`_side_terms`)
    is strongest, within ``reach`` pixels of the 160 x 150 canonical field (about 4%),
    ``rounds`` times; a side moves only when its evidence there beats its evidence where it
    is by ``gain`` (0..1), and a move is kept only when the whole edge score
    (:func:`_edge_score`) and the signature (:func:`_lab_score`) do not drop.
    ``corners``: (4, 2) image-order corners. Returns (4, 2) float64."""
    import cv2

    q = np.asarray(corners, np.float64)
    best = _lab_score(image_lab, q) * (0.3 + 0.7 * _edge_score(image_lab, q))
    for _ in range(rounds):
        lab, hmat, mx, my, scale = _margin_warp(image_lab, q, _W, _H, 0.08)
        terms = _side_terms(lab, scale, my, my + _H, mx, mx + _W, reach)
        # A side moves only where its edge evidence is clearly stronger than where it is.
        shift = [int(np.argmax(t)) - len(t) // 2 if float(t.max() - t[len(t) // 2]) >= gain else 0 for t in terms]
        if not any(shift):
            break
        t, b, l, r = my + shift[0], my + _H + shift[1], mx + shift[2], mx + _W + shift[3]
        canvas = np.array([[[l, t], [r, t], [r, b], [l, b]]], np.float64)
        moved = cv2.perspectiveTransform(canvas, np.linalg.inv(hmat))[0]
        score = _lab_score(image_lab, moved) * (0.3 + 0.7 * _edge_score(image_lab, moved))
        if score < best:
            break
        q, best = moved, score
    return q

"""Automatic board detection: where is the playing field in a photo?

Candidates are quadrilaterals from OpenCV's contour tools (Canny edges and Otsu
colour thresholds, ``findContours`` + ``approxPolyDP`` / ``minAreaRect``), pairs of
side-by-side quadrilaterals joined across the bar (boards whose two halves stand
apart), and quadrilaterals bounded by long near-horizontal and near-vertical lines
(``HoughLinesP``: a field edged by a groove need not close a contour). Each
candidate, in both of its possible row directions, is warped to a small canonical
field and scored by the board's signature (:func:`board_score`): in the band where
the points are narrow each of the 24 point columns shows its point's colour in its
middle and the field's colour at its edges, neighbouring points alternate, and the
bar is one colour along its length. The best candidate above ``MIN_SCORE`` wins
(photos without a board score below 0.2; boards 0.5-1).
"""

from __future__ import annotations

import numpy as np

from vision.registration import RegistrationError

#: Least board signature score accepted (see :func:`board_score`).
MIN_SCORE = 0.35
_W, _H = 160, 150
#: Signature scores this close to the best count as a tie, settled by :func:`_edge_score`.
_TIE = 0.08


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


def _lab_score(image_lab: np.ndarray, corners: np.ndarray) -> float:
    """:func:`board_score` on an image already converted to 8-bit Lab (``cv2.COLOR_BGR2LAB``),
    so that many candidates share one colour conversion."""
    import cv2

    dst = np.array([[0, 0], [_W, 0], [_W, _H], [0, _H]], np.float32)
    hmat = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    lab = cv2.warpPerspective(image_lab, hmat, (_W, _H), flags=cv2.INTER_AREA).astype(np.float32)
    flat = lab.reshape(-1, 3)
    scale = max(20.0, float(np.percentile(np.linalg.norm(flat[::4] - flat.mean(0), axis=1), 90)))
    bands = np.concatenate([lab[int(0.22 * _H):int(0.38 * _H)], lab[int(0.62 * _H):int(0.78 * _H)]], axis=0)
    half = bands.shape[0] // 2
    best = 0.0
    for bar in (0.04, 0.07, 0.1):
        b0, b1 = 0.5 * _W * (1 - bar), 0.5 * _W * (1 + bar)
        pw = b0 / 6
        x0 = np.array([c * pw if c < 6 else b1 + (c - 6) * pw for c in range(12)])
        mid = np.clip(np.rint(x0 + pw / 2).astype(int), 1, _W - 2)
        left = np.clip(np.rint(x0).astype(int), 0, _W - 1)
        right = np.clip(np.rint(x0 + pw).astype(int) - 1, 0, _W - 1)
        mids, edges = [], []
        for rows in (bands[:half], bands[half:]):
            c = np.concatenate([rows[:, mid - 1], rows[:, mid], rows[:, mid + 1]], axis=0)  # (3r, 12, 3)
            e = np.concatenate([rows[:, left], rows[:, right]], axis=0)
            mids.append(np.median(c, axis=0))
            edges.append(np.median(e, axis=0))
        mids_a, edges_a = np.concatenate(mids), np.concatenate(edges)  # (24, 3)
        contrast = np.linalg.norm(mids_a - edges_a, axis=1)
        c_score = float(np.median(np.clip(contrast / (0.6 * scale), 0, 1)))
        rows_m = mids_a.reshape(2, 12, 3)
        d1 = np.linalg.norm(rows_m[:, 1:] - rows_m[:, :-1], axis=2).mean()
        d2 = np.linalg.norm(rows_m[:, 2:] - rows_m[:, :-2], axis=2).mean()
        alt = float(np.clip((d1 - d2) / max(d1, 1e-3), 0, 1))
        edge_sd = float(np.linalg.norm(np.std(edges_a, axis=0)) / scale)
        # The bar: one colour from top to bottom (the points change along a column).
        bar_band = lab[:, int(round(b0 + 0.25 * (b1 - b0))):int(round(b1 - 0.25 * (b1 - b0))) + 1]
        med = np.median(bar_band, axis=0)
        mad = float(np.median(np.linalg.norm(bar_band - med[None], axis=2)))
        bar_ok = float(np.clip(1.0 - mad / (0.5 * scale), 0, 1))
        best = max(best, c_score * (0.5 + 0.5 * alt) * float(np.clip(1.2 - edge_sd, 0, 1)) * (0.5 + 0.5 * bar_ok))
    return best


def _edge_score(image_lab: np.ndarray, corners: np.ndarray) -> float:
    """How well a candidate's sides sit on the field's edges (0..1): the points' bases
    touch the two long edges, so a thin band just inside each of them changes colour
    from point column to point column (a frame or table band is one colour along its
    length); along the two short edges the colour changes from base to tip (a frame
    strip does not). ``image_lab``: 8-bit Lab image; ``corners``: (4, 2) candidate corners
    with the point rows along TL-TR and BL-BR."""
    import cv2

    dst = np.array([[0, 0], [_W, 0], [_W, _H], [0, _H]], np.float32)
    hmat = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    lab = cv2.warpPerspective(image_lab, hmat, (_W, _H), flags=cv2.INTER_AREA).astype(np.float32)
    flat = lab.reshape(-1, 3)
    scale = max(20.0, float(np.percentile(np.linalg.norm(flat[::4] - flat.mean(0), axis=1), 90)))
    pw = _W * 0.94 / 12
    idx = np.arange(12)
    centres = np.clip(np.rint((idx + 0.5) * pw + (idx >= 6) * 0.06 * _W).astype(int), 0, _W - 1)
    parts = []
    for r0, r1 in ((0.015, 0.07), (0.93, 0.985)):
        band = lab[int(r0 * _H):int(r1 * _H) + 1]
        cols = np.median(band[:, centres], axis=0)  # (12, 3)
        d = np.linalg.norm(np.diff(cols, axis=0), axis=1)
        d = np.delete(d, 5)  # across the bar
        parts.append(float(np.clip(np.median(d) / (0.35 * scale), 0, 1)))
    for c0, c1 in ((0.01, 0.035), (0.965, 0.99)):
        strip = lab[:, int(c0 * _W):int(c1 * _W) + 1].mean(axis=1)  # (H, 3)
        prof = strip.reshape(10, _H // 10, 3).mean(axis=1)
        spread = np.linalg.norm(prof - np.median(prof, axis=0), axis=1)
        parts.append(float(np.clip(np.percentile(spread, 70) / (0.35 * scale), 0, 1)))
    return float(0.5 * np.mean(parts) + 0.5 * min(parts))


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


def _segment_lines(gray: np.ndarray, keep: int = 12) -> list[tuple[np.ndarray, np.ndarray, list[tuple[float, float]]]]:
    """Long straight lines from OpenCV's line segment detector (``cv2.createLineSegmentDetector``):
    collinear segments merged. Returns up to ``keep`` lines, most supported first, each as
    (point on the line (2,), unit direction (2,), covered intervals along the direction)."""
    import cv2

    h, w = gray.shape[:2]
    segs = cv2.createLineSegmentDetector().detect(gray)[0]
    if segs is None:
        return []
    segs = segs.reshape(-1, 4).astype(np.float64)
    length = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    order = np.argsort(-length)
    order = order[length[order] >= 0.03 * min(h, w)]
    lines: list[list] = []  # [point, direction, intervals, support]
    for i in order:
        p0, p1 = segs[i, :2], segs[i, 2:]
        for ln in lines:
            pt, d = ln[0], ln[1]
            nrm = np.array([-d[1], d[0]])
            if abs(np.dot(p0 - pt, nrm)) < 3.0 and abs(np.dot(p1 - pt, nrm)) < 3.0:
                t0, t1 = sorted((float(np.dot(p0 - pt, d)), float(np.dot(p1 - pt, d))))
                ln[2].append((t0, t1))
                ln[3] += t1 - t0
                break
        else:
            d = (p1 - p0) / length[i]
            lines.append([p0.copy(), d, [(0.0, float(length[i]))], float(length[i])])
    lines = [ln for ln in lines if ln[3] >= 0.12 * min(h, w)]
    lines.sort(key=lambda ln: -ln[3])
    if not lines:
        return []
    # Two families (the points' edges crowd one direction): the best ``keep`` lines near the
    # strongest line's direction and the best ``keep`` across it.
    d0 = lines[0][1]
    near = [ln for ln in lines if abs(float(np.dot(ln[1], d0))) >= np.cos(np.radians(45))]
    across = [ln for ln in lines if abs(float(np.dot(ln[1], d0))) < np.cos(np.radians(45))]
    return [(ln[0], ln[1], ln[2]) for ln in near[:keep] + across[:keep]]


def _coverage(line: tuple[np.ndarray, np.ndarray, list[tuple[float, float]]], a: np.ndarray, b: np.ndarray) -> float:
    """Fraction of the side from ``a`` to ``b`` (on ``line``) covered by its detected segments."""
    pt, d, iv = line
    t0, t1 = sorted((float(np.dot(a - pt, d)), float(np.dot(b - pt, d))))
    if t1 - t0 < 1:
        return 0.0
    cuts = sorted((max(lo, t0), min(hi, t1)) for lo, hi in iv if hi > t0 and lo < t1)
    total, end = 0.0, t0
    for lo, hi in cuts:
        lo = max(lo, end)
        if hi > lo:
            total += hi - lo
            end = hi
    return total / (t1 - t0)


def _segment_quads(gray: np.ndarray, keep: int = 24) -> list[np.ndarray]:
    """Quadrilaterals from two families of long straight lines (any direction, so steep
    perspective and turned boards too): pairs of roughly parallel lines, two pairs crossing,
    ranked by how much of their four sides detected segments cover; the best ``keep``."""
    import cv2

    h, w = gray.shape[:2]
    lines = _segment_lines(gray)
    n = len(lines)
    ang = np.array([np.degrees(np.arctan2(d[1], d[0])) % 180 for _, d, _ in lines])
    pairs = []
    for i in range(n):
        for j in range(i + 1, n):
            da = abs(ang[i] - ang[j])
            da = min(da, 180 - da)
            if da > 30:
                continue
            pi, di = lines[i][0], lines[i][1]
            sep = abs(np.dot(lines[j][0] - pi, np.array([-di[1], di[0]])))
            if sep < 0.2 * min(h, w):
                continue
            mean = np.degrees(np.arctan2(di[1] + np.sign(np.dot(di, lines[j][1])) * lines[j][1][1],
                                         di[0] + np.sign(np.dot(di, lines[j][1])) * lines[j][1][0])) % 180
            pairs.append((i, j, mean))

    def meet(a: int, b: int) -> np.ndarray | None:
        (p, d), (q, e) = lines[a][:2], lines[b][:2]
        den = d[0] * e[1] - d[1] * e[0]
        if abs(den) < 1e-6:
            return None
        t = ((q[0] - p[0]) * e[1] - (q[1] - p[1]) * e[0]) / den
        return p + t * d

    out: list[tuple[float, np.ndarray]] = []
    lim = 0.15 * max(h, w)
    for a in range(len(pairs)):
        i, j, ma = pairs[a]
        for b in range(a + 1, len(pairs)):
            k, m, mb = pairs[b]
            dm = abs(ma - mb)
            if min(dm, 180 - dm) < 45 or len({i, j, k, m}) < 4:
                continue
            pts = [meet(i, k), meet(i, m), meet(j, m), meet(j, k)]
            if any(p is None for p in pts):
                continue
            q = np.array(pts)
            if np.any(q < -lim) or np.any(q[:, 0] > w + lim) or np.any(q[:, 1] > h + lim):
                continue
            area = abs(cv2.contourArea(q.astype(np.float32)))
            if area < 0.08 * w * h or not cv2.isContourConvex(q.astype(np.float32)):
                continue
            s1 = 0.5 * (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3]))
            s2 = 0.5 * (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1]))
            if not 0.45 < s1 / max(s2, 1e-6) < 2.2:
                continue
            cov = [_coverage(lines[i], q[0], q[1]), _coverage(lines[m], q[1], q[2]),
                   _coverage(lines[j], q[2], q[3]), _coverage(lines[k], q[3], q[0])]
            out.append((float(np.mean(cov)) + 0.5 * min(cov), _order(q)))
    out.sort(key=lambda t: -t[0])
    return [q for _, q in out[:keep]]


def find_board(image_bgr: np.ndarray) -> np.ndarray:
    """Find the playing field; returns (4, 2) float64 image-order corners.

    ``image_bgr``: (H, W, 3) uint8 BGR. Works on a copy at most 640 pixels wide; the
    best-scoring candidate (:func:`board_score`) wins. Raises
    :class:`~vision.registration.RegistrationError` when nothing scores as a board.
    """
    import cv2

    h, w = image_bgr.shape[:2]
    s = min(1.0, 640.0 / max(h, w))
    img = cv2.resize(image_bgr, (int(round(w * s)), int(round(h * s))), interpolation=cv2.INTER_AREA) if s < 1 else image_bgr
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)
    scored: list[tuple[float, np.ndarray]] = []
    seen: list[np.ndarray] = []
    for q in _candidates(img):
        if any(np.abs(q - o).max() < 4 for o in seen):
            continue
        seen.append(q)
        for cand in (q, np.array([q[3], q[0], q[1], q[2]])):
            scored.append((_lab_score(lab, cand), cand))
    scored.sort(key=lambda t: -t[0])
    top: list[tuple[float, np.ndarray]] = []
    for sc, q in scored:
        if all(np.abs(q - o).max() > 0.03 * max(img.shape[:2]) for _, o in top):
            top.append((sc, q))
        if len(top) >= 4:
            break
    best, best_q = (top[0][0], top[0][1]) if top else (0.0, None)
    if best_q is not None and best >= MIN_SCORE:
        # Among near-equal candidates (the signature tolerates a side on the frame's outer
        # edge or on the points' tips), the one whose sides sit on the field's edges.
        close = [(sc, q) for sc, q in scored[:40] if sc >= best - _TIE]
        best_q = max(close, key=lambda t: t[0] * (0.5 + 0.5 * _edge_score(lab, t[1])))[1]
    if best_q is None or best < MIN_SCORE:
        raise RegistrationError("no board found in the image (give --corners or a --calibration profile)")
    return best_q / s

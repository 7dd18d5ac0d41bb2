"""Reading the checkers on a registered board: count and colour per point, and the bar.

Works on the canonical top-down field (:mod:`vision.registration`), at a reduced
working scale for speed. The method, stage by stage:

1. **Columns.** The two halves' outer edges are the field's edges; their inner
   edges (where the bar gap starts) are fitted per frame from the points' tips
   (:func:`fit_halves`), so boards with wide or narrow bars need no setting.
2. **Circle evidence.** A checker is a disc about one point wide. For each point,
   candidate centres run along the point's centre line; at each the edge strength
   *across* the disc's outline (the radial colour gradient, Lab) is sampled on the
   arc that faces the board's middle (the *far arc*) and on the arc facing the base
   (the *near arc*), taking the best of a few radii and sideways shifts. The median
   over an arc's angles rejects straight edges (the triangle's sides, the field's
   edge), which cross only a few angles. Rims, shadows and outlines make dark
   checkers on dark points and light on light points visible.
3. **Stacks.** Checkers stand in a line from the point's base, touching or
   overlapping. The count is the length of the chain of arc peaks that starts at the
   base with spacings between ``min_pitch`` and ``max_pitch`` checker heights.
4. **Colours.** Each checker's inner-disc colour (Lab) is taken; the two checker sets
   are the two clusters (k-means, k=2) or the learned colours of a profile
   (:class:`CheckerColours`); ``light`` is the one with the higher lightness.
5. **Bar.** The same chain search runs along the bar's centre line from the middle
   outwards (checkers on the bar sit on either side of the middle).
6. **Occlusion.** Hands, arms and cups are large blobs explained neither by the
   empty board's colours (field, the two point colours, the bar) nor by the
   checker colours; points whose reading zone they cover are unreadable
   (:func:`find_occluders`).

Thresholds live in :class:`CheckerSettings` (profiles can override them).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Optional, Sequence

import numpy as np

from vision.registration import Field


class CheckerReadError(ValueError):
    """The field image cannot be read (wrong shape or type)."""


@dataclasses.dataclass(frozen=True)
class CheckerSettings:
    """Tunable numbers of the checker reader (documented in ``calibration/README.md``).

    ``work_scale``: the field is read at this fraction of the canonical size.
    ``checker_diameter``: a checker's diameter / a point's width.
    ``edge_min``: lowest arc score (Lab gradient units) that can be a checker;
    ``edge_noise_k``: the arc threshold is also at least this many times the frame's
    typical arc score on empty board. ``first_min``/``first_max``: where the first
    checker's centre may lie, in checker heights from the base.
    ``min_pitch``/``max_pitch``: spacing of checkers in a stack, in checker heights;
    below ``touch`` checker heights they overlap (only the near arc shows).
    ``colour_split``: least Lab distance between the two checker clusters for the
    frame to hold two colours. ``occluder_min_area``: least occluder blob area in
    checker areas. ``fit_halves``: fit the bar gap per frame (else use the geometry).
    """

    work_scale: float = 0.5
    checker_diameter: float = 0.98
    edge_min: float = 12.0
    edge_noise_k: float = 3.0
    first_min: float = 0.2
    first_max: float = 0.95
    min_pitch: float = 0.5
    touch: float = 0.8
    max_pitch: float = 1.35
    colour_split: float = 25.0
    occluder_min_area: float = 1.5
    occluder_fraction: float = 0.12
    occluder_colour: float = 1.0
    occluder_on_checkers: float = 1.6
    colour_min: float = 32.0
    diff_percentile: float = 35.0
    slot_weak: float = 1.0
    base_margin: float = 0.0
    fit_halves: bool = True

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form for a profile."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CheckerSettings":
        """From a profile dict; unknown keys raise ``ValueError``."""
        names = {f.name: f for f in dataclasses.fields(cls)}
        unknown = set(data) - set(names)
        if unknown:
            raise ValueError(f"unknown checker setting(s): {', '.join(sorted(unknown))}")
        out = {}
        for k, v in data.items():
            out[k] = bool(v) if names[k].type in ("bool", bool) else float(v)
        return cls(**out)


@dataclasses.dataclass(frozen=True)
class CheckerColours:
    """The two checker sets' colours, OpenCV 8-bit Lab (L, a, b), learned from a frame."""

    light: tuple[float, float, float]
    dark: tuple[float, float, float]

    def to_dict(self) -> dict[str, list[float]]:
        """``{"light": [L, a, b], "dark": [L, a, b]}`` (OpenCV 8-bit Lab)."""
        return {"light": [round(float(v), 1) for v in self.light], "dark": [round(float(v), 1) for v in self.dark]}

    @classmethod
    def from_dict(cls, data: dict[str, Sequence[float]]) -> "CheckerColours":
        """Inverse of :meth:`to_dict`; raises ``ValueError`` on bad data."""
        try:
            light = tuple(float(v) for v in data["light"])
            dark = tuple(float(v) for v in data["dark"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"bad checker colours: {exc}") from None
        if len(light) != 3 or len(dark) != 3:
            raise ValueError("checker colours need three Lab values each")
        return cls(light, dark)  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True)
class Checker:
    """One checker found: ``x``, ``y`` canonical field pixels, ``lab`` its inner colour,
    ``score`` its arc score, ``place`` 1..24 (point) or 0 (bar), ``colour`` once known."""

    x: float
    y: float
    lab: tuple[float, float, float]
    score: float
    place: int
    colour: Optional[str] = None


@dataclasses.dataclass(frozen=True)
class CheckerReading:
    """The checkers of one frame.

    ``counts``: 24 ints (points 1..24); ``colours``: 24 of ``"light"``/``"dark"``/``None``;
    ``bar``: ``{"light": n, "dark": n}``; ``checkers``: every :class:`Checker` found;
    ``unreadable``: points an occluder covers; ``occluded``: any occluder on the field;
    ``occluder_mask``: (h, w) bool at the working scale; ``colours``: the colours used;
    ``halves``: the fitted inner half edges (canonical px); ``timings_ms``: per stage.
    """

    counts: tuple[int, ...]
    colours: tuple[Optional[str], ...]
    bar: dict[str, int]
    checkers: tuple[Checker, ...]
    unreadable: tuple[int, ...]
    occluded: bool
    occluder_mask: Optional[np.ndarray]
    colour_model: Optional[CheckerColours]
    halves: tuple[float, float]
    timings_ms: dict[str, float]


@dataclasses.dataclass(frozen=True)
class _Columns:
    centres: np.ndarray  # (24,) x at work scale
    widths: np.ndarray  # (24,)
    bases: np.ndarray  # (24,) base y
    dirs: np.ndarray  # (24,) +1 / -1


def _lab(field_bgr: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.cvtColor(cv2.GaussianBlur(field_bgr, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)


def fit_halves(lab: np.ndarray, lo_frac: float = 0.40) -> tuple[float, float]:
    """Fit the inner edges of the two halves (where the bar gap starts and ends).

    ``lab``: (h, w, 3) float32 Lab field at any scale. The points' narrow tips stand
    out from the field's colour; the six point centres of each half are fitted to
    that profile. Returns ``(left_half_end, right_half_start)`` as fractions of the
    field's width.
    """
    h, w = lab.shape[:2]
    field_colour = np.median(lab[int(0.45 * h):int(0.55 * h), ::2].reshape(-1, 3), axis=0)
    band = np.concatenate([lab[int(0.2 * h):int(0.36 * h)], lab[int(0.64 * h):int(0.8 * h)]], axis=0)
    prof = np.linalg.norm(band - field_colour, axis=-1).mean(axis=0)
    xs = np.arange(w, dtype=np.float64)
    ks = np.arange(6) + 0.5
    lo = np.arange(lo_frac * w, 0.5 * w, 0.25)
    sl = [np.interp(ks * b / 6, xs, prof).sum() for b in lo]
    hi = np.arange(0.5 * w, (1 - lo_frac) * w, 0.25)
    sr = [np.interp(b + ks * (w - b) / 6, xs, prof).sum() for b in hi]
    return float(lo[int(np.argmax(sl))] / w), float(hi[int(np.argmax(sr))] / w)


def _columns(w: int, h: int, left_end: float, right_start: float) -> _Columns:
    b0, b1 = left_end * w, right_start * w
    centres, widths, bases, dirs = [], [], [], []
    for p in range(1, 25):
        if p <= 12:
            col, base, d = 12 - p, float(h - 1), -1
        else:
            col, base, d = p - 13, 0.0, 1
        if col < 6:
            pw = b0 / 6
            x0 = col * pw
        else:
            pw = (w - b1) / 6
            x0 = b1 + (col - 6) * pw
        centres.append(x0 + pw / 2)
        widths.append(pw)
        bases.append(base)
        dirs.append(d)
    return _Columns(np.array(centres), np.array(widths), np.array(bases), np.array(dirs, dtype=np.float64))


def _refine_centres(lab: np.ndarray, cols: _Columns, field_colour: np.ndarray) -> _Columns:
    """Move each column's centre onto its point: the centroid, across the column, of the
    colour difference from the field in the band where points are narrow (30-65% of the
    way to the middle). Shifts are limited to a quarter of a point's width."""
    h, w = lab.shape[:2]
    hh = h // 2
    centres = cols.centres.copy()
    for i in range(24):
        pw = cols.widths[i]
        x0 = int(max(0, round(cols.centres[i] - 0.75 * pw)))
        x1 = int(min(w, round(cols.centres[i] + 0.75 * pw)))
        v0, v1 = int(0.3 * hh), int(0.65 * hh)
        if cols.dirs[i] > 0:
            band = lab[v0:v1, x0:x1]
        else:
            band = lab[h - v1:h - v0, x0:x1]
        prof = np.linalg.norm(band - field_colour, axis=2).mean(axis=0)
        prof = np.clip(prof - np.percentile(prof, 30), 0, None)
        if prof.sum() <= 1e-3:
            continue
        xs = np.arange(x0, x1, dtype=np.float64)
        c = float((prof * xs).sum() / prof.sum())
        centres[i] = float(np.clip(c, cols.centres[i] - 0.25 * pw, cols.centres[i] + 0.25 * pw))
    return dataclasses.replace(cols, centres=centres)


def _gradients(lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    import cv2

    gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3) * 0.125
    gy = cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3) * 0.125
    return gx, gy


def _arc_scores(gx: np.ndarray, gy: np.ndarray, cx: np.ndarray, cy: np.ndarray, rx: float, ry: float,
                direction: np.ndarray, angles_deg: np.ndarray, radii=(0.86, 0.95, 1.04), shifts=(-1.0, 0.0, 1.0),
                percentile: float = 30.0) -> np.ndarray:
    """Median-over-angles radial gradient on an arc, best radius per angle, best sideways shift.

    ``cx``, ``cy``: (N,) centres; ``direction``: (N,) +1/-1 flips the arc vertically.
    Returns (N,) float32.
    """
    h, w = gx.shape[:2]
    a = np.deg2rad(angles_deg)
    ca, sa = np.cos(a)[None, :], np.sin(a)[None, :]
    ny = sa * direction[:, None]
    nx = np.broadcast_to(ca, ny.shape)
    best = None
    for s in shifts:
        per_angle = None
        for rr in radii:
            xs = cx[:, None] + s * rx * 0.12 + ca * rx * rr
            ys = cy[:, None] + ny * ry * rr
            xi = np.clip(np.rint(xs).astype(np.int32), 0, w - 1)
            yi = np.clip(np.rint(ys).astype(np.int32), 0, h - 1)
            g = gx[yi, xi] * nx[..., None] + gy[yi, xi] * ny[..., None]
            mag = np.sqrt((g * g).sum(-1))
            per_angle = mag if per_angle is None else np.maximum(per_angle, mag)
        score = np.percentile(per_angle, percentile, axis=1)
        best = score if best is None else np.maximum(best, score)
    return best.astype(np.float32)


def _peaks(s: np.ndarray, win: int, thr: float) -> list[int]:
    out: list[int] = []
    n = len(s)
    for i in range(n):
        if s[i] < thr:
            continue
        lo, hi = max(0, i - win), min(n, i + win + 1)
        if s[i] >= s[lo:hi].max() and (not out or i - out[-1] > win):
            out.append(i)
    return out


def read_checkers(field_bgr: np.ndarray, field: Field, settings: CheckerSettings = CheckerSettings(),
                  colours: Optional[CheckerColours] = None, occlusion: bool = True) -> CheckerReading:
    """Read every point and the bar from a warped field.

    ``field_bgr``: (h, w, 3) uint8 BGR canonical field at ``settings.work_scale``
    (see :func:`warp_for_reading`); ``field``: its registration (for the geometry
    proportions); ``colours``: learned checker colours or ``None`` to cluster them
    from this frame; ``occlusion``: look for hands/arms/cups.
    Returns a :class:`CheckerReading`. Raises :class:`CheckerReadError` on a bad image.
    """
    import cv2

    if not isinstance(field_bgr, np.ndarray) or field_bgr.ndim != 3 or field_bgr.shape[2] != 3 or field_bgr.dtype != np.uint8:
        raise CheckerReadError("expected an (h, w, 3) uint8 BGR field image")
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    h, w = field_bgr.shape[:2]
    lab = _lab(field_bgr)
    gx, gy = _gradients(lab)
    t1 = time.perf_counter()
    timings["features"] = (t1 - t0) * 1e3

    if settings.fit_halves:
        left_end, right_start = fit_halves(lab)
    else:
        bw = field.geometry.bar_width
        left_end, right_start = 0.5 * (1 - bw), 0.5 * (1 + bw)
    cols = _columns(w, h, left_end, right_start)
    # cols = _refine_centres(lab, cols, np.median(lab[int(0.45 * h):int(0.55 * h), ::2].reshape(-1, 3), axis=0))
    pw = float(np.median(cols.widths))
    rx = 0.5 * pw * settings.checker_diameter
    ry = rx * (field.size[1] / field.size[0]) * field.geometry.aspect
    dh = 2 * ry
    t2 = time.perf_counter()
    timings["geometry"] = (t2 - t1) * 1e3

    # Arc profiles along every point's centre line (from the base to the middle).
    nv = int(0.5 * h)
    vs = np.arange(nv, dtype=np.float32)
    cx = np.repeat(cols.centres, nv)
    direction = np.repeat(cols.dirs, nv)
    cy = np.repeat(cols.bases, nv) + direction * np.tile(vs, 24)
    far = _arc_scores(gx, gy, cx, cy, rx, ry, direction, np.arange(20, 161, 10)).reshape(24, nv)
    near = _arc_scores(gx, gy, cx, cy, rx, ry, direction, np.arange(230, 311, 10)).reshape(24, nv)
    noise = float(np.median(far))
    thr = max(settings.edge_min, settings.edge_noise_k * noise)
    t3 = time.perf_counter()
    timings["arcs"] = (t3 - t2) * 1e3

    # Inner-disc colour (box mean) along the centre lines.
    k = max(3, int(round(rx * 0.9)) | 1)
    inner = cv2.blur(lab, (k, k))

    board = _board_colours(inner, cols, h, settings)
    ev = _slot_evidence(far, lab, cols, board, rx, dh, thr, settings)
    checkers: list[Checker] = []
    for i in range(24):
        e = ev["evidence"][i]
        n = _stack_count(e, settings)
        for k in range(n):
            v = ev["v"][k]
            x = float(cols.centres[i])
            y = float(cols.bases[i] + cols.dirs[i] * v)
            c = inner[int(np.clip(round(y), 0, h - 1)), int(np.clip(round(x), 0, w - 1))]
            checkers.append(Checker(x, y, (float(c[0]), float(c[1]), float(c[2])), float(e[k]), i + 1))
    t4 = time.perf_counter()
    timings["points"] = (t4 - t3) * 1e3

    # The bar: chains from the middle outwards along the bar's centre line.
    bx = 0.5 * (left_end + right_start) * w
    half = int(0.5 * h)
    win = max(2, int(round(settings.min_pitch * dh * 0.9)))
    for d in (-1.0, 1.0):
        ys = np.arange(half, dtype=np.float32)
        cyb = half + d * ys
        dirs = np.full(half, d, dtype=np.float64)
        cxb = np.full(half, bx)
        farb = _arc_scores(gx, gy, cxb, cyb, rx, ry, -dirs, np.arange(50, 131, 10))  # arc facing the middle
        nearb = _arc_scores(gx, gy, cxb, cyb, rx, ry, -dirs, np.arange(230, 311, 10))
        comb = np.maximum(farb, nearb)
        cands = _peaks(comb, win, thr * 1.2)
        chain = []
        for v in cands:
            if not chain:
                if v <= 2.5 * dh:
                    chain = [v]
                continue
            if settings.min_pitch * dh <= v - chain[-1] <= settings.max_pitch * dh:
                chain.append(v)
        for v in chain:
            y = float(half + d * v)
            c = inner[int(np.clip(round(y), 0, h - 1)), int(round(bx))]
            checkers.append(Checker(float(bx), y, (float(c[0]), float(c[1]), float(c[2])), float(comb[v]), 0))
    t5 = time.perf_counter()
    timings["bar"] = (t5 - t4) * 1e3

    # Colours.
    labelled, model = classify_colours(checkers, colours, settings)
    counts = [0] * 24
    votes: list[dict[str, int]] = [{"light": 0, "dark": 0} for _ in range(24)]
    bar = {"light": 0, "dark": 0}
    for c in labelled:
        if c.place == 0:
            bar[c.colour or "dark"] += 1
        else:
            counts[c.place - 1] += 1
            votes[c.place - 1][c.colour or "dark"] += 1
    point_colours: list[Optional[str]] = []
    for i in range(24):
        if counts[i] == 0:
            point_colours.append(None)
        else:
            point_colours.append("light" if votes[i]["light"] >= votes[i]["dark"] else "dark")
    t6 = time.perf_counter()
    timings["colours"] = (t6 - t5) * 1e3

    unreadable: tuple[int, ...] = ()
    occluded = False
    mask = None
    if occlusion:
        from vision.occlusion import find_occluders

        mask, unreadable = find_occluders(ev["strips"], ev["templates"], board["class"], counts, dh, model,
                                          settings, cols.centres, cols.dirs, (h, w))
        occluded = bool(mask is not None and mask.any())
    timings["occlusion"] = (time.perf_counter() - t6) * 1e3

    return CheckerReading(
        counts=tuple(counts),
        colours=tuple(point_colours),
        bar=bar,
        checkers=tuple(labelled),
        unreadable=tuple(unreadable),
        occluded=occluded,
        occluder_mask=mask,
        colour_model=model,
        halves=(left_end * field.size[0], right_start * field.size[0]),
        timings_ms=timings,
    )


def _board_colours(inner: np.ndarray, cols: _Columns, h: int, settings: CheckerSettings) -> dict[str, Any]:
    """The empty board's colours (Lab): the field, and each column's point colour,
    from medians over the columns of a class (so checkers on a few points do not matter),
    and the points' length (where the centre line turns from point to field colour)."""
    hh = int(0.5 * h)
    field = np.median(inner[int(0.44 * h):int(0.56 * h), ::2].reshape(-1, 3), axis=0)
    # Centre-line colours of every column, from the base to the middle: (24, hh, 3).
    vs = np.arange(hh)
    ys = (cols.bases[:, None] + cols.dirs[:, None] * vs[None, :]).astype(np.int32)
    xs = np.repeat(np.rint(cols.centres).astype(np.int32)[:, None], hh, axis=1)
    line = inner[ys, xs]
    # Column classes: the top row's leftmost point and every other one, the bottom row shifted.
    cls = np.array([(12 - p) % 2 == 1 if p <= 12 else (p - 13) % 2 == 0 for p in range(1, 25)])
    point_colour = np.zeros((2, 3), np.float32)
    lengths = []
    for c in (0, 1):
        sel = line[cls == bool(c)]
        prof = np.median(sel, axis=0)  # (hh, 3) the class's typical centre line
        d = np.linalg.norm(prof - field, axis=1)
        # The point colour: the median colour over the span where it differs most from the field.
        lo, hi = int(0.15 * hh), int(0.6 * hh)
        point_colour[c] = np.median(prof[lo:hi], axis=0)
        dd = np.linalg.norm(prof - point_colour[c], axis=1)
        # Length: first place past 0.5*hh where the line is nearer the field than the point colour.
        length = hh
        for v in range(int(0.5 * hh), hh):
            if d[v] < dd[v]:
                length = v
                break
        lengths.append(length)
    return {"field": field, "point": point_colour, "class": cls.astype(np.int32), "length": np.array(lengths, float)}


def _strips(lab: np.ndarray, cols: _Columns, hh: int) -> tuple[np.ndarray, int]:
    """Every point's column as a strip from its base to the middle: (24, hh, ws, 3)
    float32, row 0 at the base (the bottom row flipped), ws the common strip width."""
    h, w = lab.shape[:2]
    ws = int(round(float(np.median(cols.widths))))
    out = np.empty((24, hh, ws, 3), np.float32)
    for i in range(24):
        x0 = int(round(cols.centres[i] - ws / 2))
        x0 = min(max(0, x0), w - ws)
        if cols.dirs[i] > 0:
            out[i] = lab[0:hh, x0:x0 + ws]
        else:
            out[i] = lab[h - 1:h - 1 - hh:-1, x0:x0 + ws]
    return out, ws


def _slot_evidence(far: np.ndarray, lab: np.ndarray, cols: _Columns, board: dict[str, Any], rx: float, dh: float,
                   thr: float, settings: CheckerSettings) -> dict[str, Any]:
    """Evidence (>1: a checker) for checker slots 0..K-1 of every point: (24, K).

    Two cues, each divided by its threshold, the stronger kept: the far-arc edge score
    near the slot, and how much the slot's disc differs from the *empty-point template*
    of its class (the per-pixel median of the 12 points of that colour, base-aligned;
    points whose centre line does not show the point colour are left out of it).
    """
    hh = far.shape[1]
    n_slots = max(1, int((hh + 0.3 * dh) // dh))
    vk = settings.base_margin * dh + (np.arange(n_slots) + 0.5) * dh
    win = max(1, int(round(0.2 * dh)))
    strips, ws = _strips(lab, cols, hh)
    cls = board["class"]
    # Arc evidence per slot first: it decides which points may serve as empty templates.
    arc = np.zeros((24, n_slots), np.float32)
    for k, v in enumerate(vk):
        lo_v, hi_v = int(max(0, v - win)), int(min(hh, v + win + 1))
        arc[:, k] = far[:, lo_v:hi_v].max(axis=1) / thr
    # A checker at a slot implies checkers below it: occupied-by-arcs = any arc from here up.
    arc_occ = np.flip(np.maximum.accumulate(np.flip(arc >= 1.0, axis=1), axis=1), axis=1)
    r_in = 0.8 * rx
    yy, xx = np.mgrid[-int(r_in):int(r_in) + 1, 0:ws]
    disc = ((xx - (ws - 1) / 2) ** 2 + yy ** 2) <= r_in ** 2
    diff = np.zeros((24, n_slots), np.float32)
    for k, v in enumerate(vk):
        y0 = int(round(v)) - int(r_in)
        rows = np.arange(y0, y0 + disc.shape[0])
        ok = (rows >= 0) & (rows < hh)
        band = strips[:, rows[ok]]  # (24, r, ws, 3)
        mask = disc[ok]
        for c in (0, 1):
            idx = np.nonzero(cls == c)[0]
            free = idx[~arc_occ[idx, k]]
            ref = idx if len(free) < 3 else free
            template = np.median(band[ref], axis=0)
            for i in idx:
                d = np.linalg.norm(band[i] - template, axis=2)[mask]
                diff[i, k] = float(np.percentile(d, settings.diff_percentile)) / settings.colour_min if d.size else 0.0
    ev = np.maximum(arc, diff)
    # Whole-length empty templates (points with no arc evidence at all), for occlusion.
    full = []
    for c in (0, 1):
        idx = np.nonzero(cls == c)[0]
        free = idx[~arc_occ[idx, 0]]
        full.append(np.median(strips[idx if len(free) < 3 else free], axis=0))
    return {"evidence": ev, "v": vk, "arc": arc, "diff": diff, "strips": strips, "templates": full}


def _stack_count(e: np.ndarray, settings: CheckerSettings) -> int:
    """Checkers in a line from the base given per-slot evidence ``e`` (K,): the longest
    run from slot 0 whose slots all reach ``settings.slot_weak`` and whose last slot
    (and the first) reach 1."""
    n = 0
    for k, v in enumerate(e):
        if v < settings.slot_weak:
            break
        if v >= 1.0:
            n = k + 1
    if n and e[0] < 1.0 and (len(e) < 2 or e[1] < 1.0):
        return 0
    return n


def classify_colours(checkers: Sequence[Checker], colours: Optional[CheckerColours],
                     settings: CheckerSettings) -> tuple[list[Checker], Optional[CheckerColours]]:
    """Give every checker ``"light"`` or ``"dark"``.

    With learned ``colours``: the nearest in Lab. Without: k-means (k=2,
    ``cv2.kmeans``) on the checkers' Lab colours; when the two clusters lie closer
    than ``settings.colour_split`` the frame holds one colour, decided by lightness
    (L >= 128 is light). Returns the labelled checkers and the colour model used.
    """
    import cv2

    if not checkers:
        return [], colours
    data = np.array([c.lab for c in checkers], dtype=np.float32)
    if colours is None:
        if len(checkers) >= 2:
            criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.1)
            # Start from the darkest and the lightest checker for a deterministic result.
            init = np.zeros(len(data), np.int32)
            init[data[:, 0] >= 0.5 * (data[:, 0].min() + data[:, 0].max())] = 1
            _, labels, centres = cv2.kmeans(data, 2, init.reshape(-1, 1), criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS)
            labels = labels.ravel()
            if np.linalg.norm(centres[0] - centres[1]) >= settings.colour_split:
                light_idx = int(np.argmax(centres[:, 0]))
                model = CheckerColours(tuple(centres[light_idx]), tuple(centres[1 - light_idx]))  # type: ignore[arg-type]
                names = ["light" if lab_ == light_idx else "dark" for lab_ in labels]
                return [dataclasses.replace(c, colour=n) for c, n in zip(checkers, names)], model
        mean_l = float(data[:, 0].mean())
        name = "light" if mean_l >= 128 else "dark"
        return [dataclasses.replace(c, colour=name) for c in checkers], None
    light = np.array(colours.light, dtype=np.float32)
    dark = np.array(colours.dark, dtype=np.float32)
    dl = np.linalg.norm(data - light, axis=1)
    dd = np.linalg.norm(data - dark, axis=1)
    return [dataclasses.replace(c, colour="light" if a <= b else "dark") for c, a, b in zip(checkers, dl, dd)], colours


def warp_for_reading(image_bgr: np.ndarray, field: Field, settings: CheckerSettings = CheckerSettings(),
                     maps: Optional[tuple[np.ndarray, np.ndarray]] = None) -> np.ndarray:
    """Warp a frame straight to the reader's working scale.

    ``image_bgr``: (H, W, 3) uint8 BGR of ``field.image_size``. Returns
    (round(FIELD_HEIGHT*s), round(FIELD_WIDTH*s), 3) uint8 with s = ``settings.work_scale``.
    """
    import cv2

    s = settings.work_scale
    size = (int(round(field.size[0] * s)), int(round(field.size[1] * s)))
    if field.camera is None and maps is None:
        hs = np.diag([s, s, 1.0]) @ field.homography
        return cv2.warpPerspective(image_bgr, hs, size, flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)
    from vision.registration import warp_field

    full = warp_field(image_bgr, field, maps)
    return cv2.resize(full, size, interpolation=cv2.INTER_AREA)

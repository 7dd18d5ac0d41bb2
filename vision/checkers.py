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
    lightness_weight: float = 0.5
    colour_reject: float = 45.0
    bar_min_width: float = 0.8
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

    # The bar: runs of checker evidence along the bar's centre line.
    bx = 0.5 * (left_end + right_start) * w
    bar_checkers = _bar_checkers(lab, gx, gy, inner, bx, rx, ry, dh, thr, settings)
    t5 = time.perf_counter()
    timings["bar"] = (t5 - t4) * 1e3

    # Colours: one colour per point; two clusters over the points; outliers rejected.
    labelled, model = classify_colours(checkers + bar_checkers, colours, settings)
    counts = [0] * 24
    point_colours: list[Optional[str]] = [None] * 24
    bar = {"light": 0, "dark": 0}
    for c in labelled:
        if c.colour is None:
            continue
        if c.place == 0:
            bar[c.colour] += 1
        else:
            counts[c.place - 1] += 1
            point_colours[c.place - 1] = c.colour
    labelled = [c for c in labelled if c.colour is not None]
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


def _bar_checkers(lab: np.ndarray, gx: np.ndarray, gy: np.ndarray, inner: np.ndarray, bx: float, rx: float,
                  ry: float, dh: float, thr: float, settings: CheckerSettings) -> list[Checker]:
    """Checkers on the bar.

    Along the bar's centre line, a checker-sized disc that differs from the empty bar
    (the strip's per-column median along its length) marks a checker; a run of length
    L holds ``round((L - 0.6 r) / dh) + 1`` checkers. Each must be about a checker
    wide (at least ``settings.bar_min_width`` checker diameters differ from the empty
    bar across it), which rules out hinges and the bar's own fittings.
    """
    h, w = lab.shape[:2]
    ws = int(round(3 * rx))
    x0 = int(np.clip(round(bx - ws / 2), 0, w - ws))
    strip = lab[:, x0:x0 + ws]
    profile = np.median(strip, axis=0)
    d_img = np.linalg.norm(strip - profile[None], axis=2)
    r_in = 0.8 * rx
    ri = int(r_in)
    yy, xx = np.mgrid[-ri:ri + 1, 0:ws]
    disc = ((xx - (ws - 1) / 2) ** 2 + yy ** 2) <= r_in ** 2
    diff = np.zeros(h, np.float32)
    for y in range(ri, h - ri):
        diff[y] = np.percentile(d_img[y - ri:y + ri + 1][disc], settings.diff_percentile) / settings.colour_min
    e = diff >= 1.0
    out: list[Checker] = []
    y = 0
    while y < h:
        if not e[y]:
            y += 1
            continue
        start = y
        while y < h and e[y]:
            y += 1
        length = y - start
        if length < 0.15 * dh:
            continue
        n = max(1, int(round((length - 0.6 * rx) / dh)) + 1)
        first = start + 0.5 * length - 0.5 * (n - 1) * dh
        for k in range(n):
            cy = first + k * dh
            r0, r1 = int(max(0, cy - 0.4 * ry)), int(min(h, cy + 0.4 * ry + 1))
            across = np.median(d_img[r0:r1], axis=0) > 0.6 * settings.colour_min
            mid = ws // 2
            left = mid
            while left > 0 and across[left - 1]:
                left -= 1
            right = mid
            while right < ws - 1 and across[right + 1]:
                right += 1
            width = (right - left + 1) if across[mid] else 0
            if width < settings.bar_min_width * 2 * rx:
                continue
            c = inner[int(np.clip(round(cy), 0, h - 1)), int(round(bx))]
            out.append(Checker(float(bx), float(cy), (float(c[0]), float(c[1]), float(c[2])),
                               float(diff[int(np.clip(cy, 0, h - 1))]), 0))
    return out


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


def _weighted(lab: np.ndarray, settings: CheckerSettings) -> np.ndarray:
    return np.asarray(lab, np.float32) * np.array([settings.lightness_weight, 1.5, 1.5], np.float32)


def classify_colours(checkers: Sequence[Checker], colours: Optional[CheckerColours],
                     settings: CheckerSettings) -> tuple[list[Checker], Optional[CheckerColours]]:
    """Give every checker ``"light"``, ``"dark"`` or ``None`` (rejected: not a checker).

    A point holds one colour: each point's colour is the median of its checkers' inner
    colours (Lab, lightness weighted by ``settings.lightness_weight`` and chroma by
    1.5, so gold tells from silver). The two checker colours are the learned
    ``colours`` or a weighted 2-means over the points (``cv2.kmeans``; each point
    weighted by its count, bar checkers by one); the lighter centre is ``light``.
    A point or bar checker farther than ``settings.colour_reject`` from both centres
    is rejected, and a stack stops at its first checker that departs from the
    point's colour by more than that. With fewer than two colours apart by
    ``settings.colour_split``, all are one colour, by lightness (L >= 128: light).
    Returns the checkers (same order) and the colour model used (``None`` when one colour).
    """
    import cv2

    if not checkers:
        return [], colours
    groups: dict[tuple[int, int], list[int]] = {}
    for idx, c in enumerate(checkers):
        key = (c.place, idx if c.place == 0 else 0)  # bar checkers stand alone
        groups.setdefault(key, []).append(idx)
    keys = list(groups)
    feats = np.array([np.median([checkers[i].lab for i in groups[k]], axis=0) for k in keys], np.float32)
    weights = np.array([len(groups[k]) for k in keys], np.float32)
    wf = _weighted(feats, settings)

    def centres_from(model: CheckerColours) -> np.ndarray:
        return _weighted(np.array([model.light, model.dark], np.float32), settings)

    model = colours
    if model is None:
        if len(keys) >= 2:
            # Weighted 2-means (repeat the rows by weight), started from darkest/lightest.
            rows = np.repeat(wf, weights.astype(int), axis=0)
            labs = np.repeat(feats, weights.astype(int), axis=0)
            init = (labs[:, 0] >= 0.5 * (labs[:, 0].min() + labs[:, 0].max())).astype(np.int32)
            if 0 < init.sum() < len(init):
                crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.1)
                _, lab_idx, cen = cv2.kmeans(rows, 2, init.reshape(-1, 1), crit, 1, cv2.KMEANS_USE_INITIAL_LABELS)
                lab_idx = lab_idx.ravel()
                if np.linalg.norm(cen[0] - cen[1]) >= settings.colour_split:
                    # Refit without outliers, in Lab.
                    d = np.linalg.norm(rows - cen[lab_idx], axis=1)
                    keep = d <= settings.colour_reject
                    lab_c = []
                    for j in (0, 1):
                        sel = keep & (lab_idx == j)
                        lab_c.append(np.median(labs[sel], axis=0) if sel.any() else np.median(labs[lab_idx == j], axis=0))
                    light_j = int(np.argmax([lab_c[0][0], lab_c[1][0]]))
                    model = CheckerColours(tuple(float(v) for v in lab_c[light_j]),  # type: ignore[arg-type]
                                           tuple(float(v) for v in lab_c[1 - light_j]))
        if model is None:
            name = "light" if float(np.average(feats[:, 0], weights=weights)) >= 128 else "dark"
            return [dataclasses.replace(c, colour=name) for c in checkers], None
    cen = centres_from(model)
    out = list(checkers)
    for key, f in zip(keys, wf):
        d = np.linalg.norm(cen - f, axis=1)
        j = int(np.argmin(d))
        name = ("light", "dark")[j] if d[j] <= settings.colour_reject else None
        members = groups[key]
        stop = False
        for i in members:  # in stack order, base first
            own = float(np.linalg.norm(_weighted(checkers[i].lab, settings) - f))
            if name is None or stop or (own > settings.colour_reject and
                                        float(np.linalg.norm(_weighted(checkers[i].lab, settings) - cen[j])) > settings.colour_reject):
                stop = True
                out[i] = dataclasses.replace(checkers[i], colour=None)
            else:
                out[i] = dataclasses.replace(checkers[i], colour=name)
    return out, model


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

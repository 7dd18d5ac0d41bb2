"""Reading the checkers on a registered board: count and colour per point, and the bar.

Works on the canonical top-down field (:mod:`vision.registration`), at a reduced
working scale (``CheckerSettings.work_scale``) for speed. Stage by stage:

1. **Columns.** Each row's two halves of six points are fitted to the points'
   narrow tips (:func:`fit_halves`): the bar gap, and the outer edges within a few
   per cent of the field's edges, so wide and narrow bars and slightly-off corners
   need no setting. For a fixed
   camera this is done once per registration.
2. **Slots.** Checkers stand in a line from a point's base, about one point wide;
   slot k is the k-th checker place (k = 0 at the base, up to the board's middle).
3. **Outline evidence.** At each slot the edge strength *across* a checker-sized
   ellipse (the radial Lab gradient) is sampled on the arc facing the board's middle,
   at a few radii and slot offsets; its 30th percentile over the arc's angles is high
   only for an outline running along most of the arc, not for the straight sides of
   a point or the field's edge. Rims, shadows and outlines make dark checkers on dark
   points and light ones on light points visible. Checkers are rarely placed dead
   centre: a near miss just above a line whose top checker shows its outline is
   looked at again a little to either side (``offcentre_shift``).
4. **Template evidence.** The twelve points of one colour look alike when empty. Per
   slot, the points without an outline whose middle shows their point colour give an
   empty template (per-pixel median); a slot whose disc differs from it over most of
   its area (``diff_percentile``) holds something. The threshold adapts to how well
   the empty points match their template (``colour_floor`` .. ``colour_min``). A shadow
   or a brighter patch scales a disc's colour by one factor: the template scaled to
   fit may explain a difference away (``slot_shade``); it never adds one.
5. **Stacks.** A point's count is the run of slots from the base whose evidence (the
   stronger cue) reaches 1; a faint slot inside a stack is bridged (``slot_weak``).
   A line of ``two_high_run`` or more may carry a second layer: a checker resting
   in the dip between two below it shows its whole outline where a plain line
   shows none and fills the waist between them (:func:`_second_layer`).
6. **Colours.** A point holds one colour: its checkers' median inner colour. The two
   sets are the learned colours of a profile (:class:`CheckerColours`) or two robust
   medoids over the points; ``light`` is the lighter. Points and bar checkers far
   from both (dice, shadows) are dropped (:func:`classify_colours`).
7. **Bar.** Runs along the bar's own band that differ from the empty bar, or show a
   checker's outline; hinge pairs mirrored about the middle are dropped.
8. **Occlusion.** Hands, arms and cups: large, thick blobs that neither the empty
   templates (in any light) nor the checker colours explain, over a point's counted
   checkers or the slot after them, make the point unreadable (:mod:`vision.occlusion`);
   so does, while a side has more than 15, a line holding a clearly light and a
   clearly dark checker (a point holds one colour: a sleeve or its shadow lies over it).

Dice: given the dice's boxes (``dice_mask``, from the dice plug-in), the pixels
under a die give no outline and no template difference; a slot a die covers is
judged on the rest of its disc (or a wider ring), takes its point's colour, and is
counted when a checker stands beyond it (checkers do not float).

Thresholds live in :class:`CheckerSettings` (profiles can override them; every one
is documented in ``calibration/README.md``).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Optional, Sequence

import numpy as np

from vision.medoids import two_medoids
from vision.occlusion import LAB_BLACK
from vision.registration import Field


class CheckerReadError(ValueError):
    """The field image cannot be read (wrong shape or type)."""


@dataclasses.dataclass(frozen=True)
class CheckerSettings:
    """Tunable numbers of the checker reader; ``calibration/README.md`` documents each.

    Lengths are in checker heights, colour distances in OpenCV 8-bit Lab units,
    edge strengths in Lab gradient units (Sobel / 8).
    """

    work_scale: float = 0.5
    checker_diameter: float = 0.98
    edge_min: float = 6.0
    shapeless_run: int = 3
    arc_same_radius: bool = True
    shapeless_arc: float = 0.7
    sleeve_arc: float = 0.3
    tall_edge_min: float = 8.0
    colour_split: float = 25.0
    occluder_min_area: float = 1.5
    occluder_fraction: float = 0.12
    occluder_colour: float = 1.0
    occluder_on_checkers: float = 1.6
    colour_min: float = 32.0
    diff_percentile: float = 35.0
    lightness_weight: float = 0.5
    colour_reject: float = 45.0
    bar_percentile: float = 15.0
    hinge_diff_max: float = 3.0
    slot_weak: float = 0.7
    template_colour: float = 0.5
    colour_floor: float = 18.0
    colour_noise_k: float = 4.0
    base_margin: float = 0.0
    fit_halves: bool = True
    size_search: tuple[float, ...] = (0.94, 1.0, 1.06)
    size_margin: float = 0.02
    offcentre_shift: float = 0.1
    offcentre_floor: float = 0.5
    mixed_ratio: float = 0.5
    occluder_shade: float = 0.3
    occluder_thick: float = 0.4
    slot_shade: float = 0.3
    arc_noise_k: float = 3.0
    arc_floor: float = 2.0
    quiet_slots: int = 3
    two_high_run: int = 5
    two_high_edge: float = 3.0
    two_high_ratio: float = 1.5

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
        try:
            for k, v in data.items():
                kind = names[k].type
                if kind in ("bool", bool):
                    out[k] = bool(v)
                elif kind in ("int", int):
                    out[k] = int(v)
                elif str(kind).startswith("tuple"):
                    out[k] = tuple(float(x) for x in v)
                else:
                    out[k] = float(v)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"bad checker setting: {exc}") from None
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
    ``score`` its evidence (>= 1), ``place`` 1..24 (point) or 0 (bar), ``colour`` once
    known, ``outlined`` whether its own outline was seen (not only its colour), ``arc``
    its outline evidence (1: the threshold)."""

    x: float
    y: float
    lab: tuple[float, float, float]
    score: float
    place: int
    colour: Optional[str] = None
    outlined: bool = True
    arc: float = 1.0


@dataclasses.dataclass(frozen=True)
class CheckerReading:
    """The checkers of one frame.

    ``counts``: 24 ints (points 1..24); ``colours``: 24 of ``"light"``/``"dark"``/``None``;
    ``bar``: ``{"light": n, "dark": n}``; ``checkers``: every :class:`Checker` found;
    ``unreadable``: points an occluder covers; ``occluded``: any occluder on the field;
    ``occluder_mask``: (h, w) bool at the working scale; ``colours``: the colours used;
    ``halves``: where each row's halves lie (8 fractions of the field's width, see
    :func:`fit_halves`) and ``diameter``
    the checker size used (a point's width); pass them back as ``halves=`` and
    ``diameter=`` for later frames of a fixed camera; ``timings_ms``: per stage.
    """

    counts: tuple[int, ...]
    colours: tuple[Optional[str], ...]
    bar: dict[str, int]
    checkers: tuple[Checker, ...]
    unreadable: tuple[int, ...]
    occluded: bool
    occluder_mask: Optional[np.ndarray]
    colour_model: Optional[CheckerColours]
    halves: tuple[float, ...]
    diameter: float
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


def fit_halves(lab: np.ndarray, lo_frac: float = 0.40, edge_slack: float = 0.015) -> tuple[float, ...]:
    """Fit where each row's two halves of six points lie.

    ``lab``: (h, w, 3) float32 Lab field at any scale. The points' narrow tips stand
    out from the field's colour; per row (the band 20-36% of the way in from its
    edge), the six point centres of each half are fitted to that profile, with the
    half's outer edge free within ``edge_slack`` of the field's edge (corners are
    rarely exact) and its inner edge (the bar gap) between ``lo_frac`` and the middle.
    Returns 8 fractions of the field's width: top row (left start, left end, right
    start, right end), then the bottom row.
    """
    h, w = lab.shape[:2]
    field_colour = np.median(lab[int(0.45 * h):int(0.55 * h), ::2].reshape(-1, 3), axis=0)
    xs = np.arange(w, dtype=np.float64)
    ks = (np.arange(6) + 0.5) / 6.0
    step = 0.5
    outer = np.arange(-edge_slack * w, edge_slack * w + 1e-9, step)
    inner = np.arange(lo_frac * w, 0.5 * w, step)
    out: list[float] = []
    for y0, y1 in ((0.2, 0.36), (0.64, 0.8)):
        band = lab[int(y0 * h):int(y1 * h)]
        prof = np.linalg.norm(band - field_colour, axis=-1).mean(axis=0)
        # Left half: starts at a (near 0), ends at b (the bar gap).
        a, b = np.meshgrid(outer, inner, indexing="ij")
        score = np.interp(a[..., None] + (b - a)[..., None] * ks, xs, prof).sum(axis=-1)
        ia, ib = np.unravel_index(int(np.argmax(score)), score.shape)
        # Right half: starts at c (the bar gap), ends at d (near w).
        c, d = np.meshgrid(w - inner, w - outer, indexing="ij")
        score = np.interp(c[..., None] + (d - c)[..., None] * ks, xs, prof).sum(axis=-1)
        ic, id_ = np.unravel_index(int(np.argmax(score)), score.shape)
        out += [float(outer[ia] / w), float(inner[ib] / w), float((w - inner[ic]) / w), float((w - outer[id_]) / w)]
    return tuple(out)


def _columns(w: int, h: int, halves: Sequence[float]) -> _Columns:
    centres, widths, bases, dirs = [], [], [], []
    for p in range(1, 25):
        if p <= 12:
            col, base, d = 12 - p, float(h - 1), -1
            a, b0, b1, e = (v * w for v in halves[4:8])
        else:
            col, base, d = p - 13, 0.0, 1
            a, b0, b1, e = (v * w for v in halves[0:4])
        if col < 6:
            pw = (b0 - a) / 6
            x0 = a + col * pw
        else:
            pw = (e - b1) / 6
            x0 = b1 + (col - 6) * pw
        centres.append(x0 + pw / 2)
        widths.append(pw)
        bases.append(base)
        dirs.append(d)
    return _Columns(np.array(centres), np.array(widths), np.array(bases), np.array(dirs, dtype=np.float64))


def _slot_arcs(gx: np.ndarray, gy: np.ndarray, cols: _Columns, rx: float, ry: float, dh: float, h: int,
               settings: CheckerSettings, same_radius: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Far-arc outline scores at every point's slots: (24, K) float32 (best of five
    offsets within a fifth of a checker of each slot centre), and the slot centres (K,)."""
    nv = int(0.5 * h)
    n_slots = max(1, int((nv + 0.3 * dh) // dh))
    vk = settings.base_margin * dh + (np.arange(n_slots) + 0.5) * dh
    offsets = np.linspace(-0.2 * dh, 0.2 * dh, 5)
    vv = (vk[:, None] + offsets[None, :]).ravel()
    m = len(vv)
    cx = np.repeat(cols.centres, m)
    direction = np.repeat(cols.dirs, m)
    cy = np.repeat(cols.bases, m) + direction * np.tile(vv, 24)
    far = _arc_scores(gx, gy, cx, cy, rx, ry, direction, np.arange(20, 161, 10), same_radius=same_radius)
    return far.reshape(24, n_slots, len(offsets)).max(axis=2), vk


def _gradients(lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sobel derivatives of the Lab field, (h, w, 3) int16 each, in 1/8 Lab units
    (exact for the 8-bit Lab image; samples are scaled when they are used)."""
    import cv2

    lab8 = np.clip(lab, 0, 255).astype(np.uint8)
    return cv2.Sobel(lab8, cv2.CV_16S, 1, 0, ksize=3), cv2.Sobel(lab8, cv2.CV_16S, 0, 1, ksize=3)


def _arc_scores(gx: np.ndarray, gy: np.ndarray, cx: np.ndarray, cy: np.ndarray, rx: float, ry: float,
                direction: np.ndarray, angles_deg: np.ndarray, radii=(0.86, 0.95, 1.04),
                percentile: float = 30.0, same_radius: bool = False) -> np.ndarray:
    """Edge strength across an arc of a checker-sized ellipse, for many centres.

    At each angle the radial component of the Lab gradient (``gx``, ``gy``: (h, w, 3)
    float32) is taken at a few radii (the best one kept); the arc's score is the
    ``percentile`` over its angles, so an outline must run along most of the arc
    (a straight edge crosses only a few angles). ``cx``, ``cy``: (N,) centres;
    ``direction``: (N,) +1/-1 flips the arc vertically. Returns (N,) float32.
    """
    h, w = gx.shape[:2]
    a = np.deg2rad(np.asarray(angles_deg, np.float64))
    rr = np.asarray(radii, np.float64)
    ca = np.cos(a)[None, :, None]
    ny = np.sin(a)[None, :, None] * direction[:, None, None]  # (N, A, 1)
    xs = cx[:, None, None] + ca * rx * rr[None, None, :]
    ys = cy[:, None, None] + ny * ry * rr[None, None, :]
    xi = np.clip(np.rint(xs).astype(np.int32), 0, w - 1)
    yi = np.clip(np.rint(ys).astype(np.int32), 0, h - 1)
    nyb = np.broadcast_to(ny, xi.shape)[..., None]
    g = gx[yi, xi] * (0.125 * ca[..., None]) + gy[yi, xi] * (0.125 * nyb)  # (N, A, R, 3), Lab units
    mag = np.sqrt((g * g).sum(-1))  # (N, A, R)
    if not same_radius:
        per_angle = mag.max(axis=2)  # (N, A)
        q = int(round(percentile / 100.0 * (per_angle.shape[1] - 1)))
        return np.partition(per_angle, q, axis=1)[:, q].astype(np.float32)
    # One radius for the whole arc (a circle), the best of the radii.
    q = int(round(percentile / 100.0 * (mag.shape[1] - 1)))
    return np.partition(mag, q, axis=1)[:, q, :].max(axis=1).astype(np.float32)


def read_checkers(field_bgr: np.ndarray, field: Field, settings: CheckerSettings = CheckerSettings(),
                  colours: Optional[CheckerColours] = None, occlusion: bool = True,
                  halves: Optional[Sequence[float]] = None, diameter: Optional[float] = None,
                  dice_mask: Optional[np.ndarray] = None) -> CheckerReading:
    """Read every point and the bar from a warped field.

    ``field_bgr``: (h, w, 3) uint8 BGR canonical field at ``settings.work_scale``
    (see :func:`warp_for_reading`); ``field``: its registration (for the geometry
    proportions); ``colours``: learned checker colours or ``None`` to cluster them
    from this frame; ``occlusion``: look for hands/arms/cups; ``dice_mask``: (h, w)
    bool, True where dice (or the cube) lie (see :func:`dice_mask_from_boxes`): those
    pixels give no checker evidence (no outline, no difference from the empty
    point) and no checker colour, so a die neither adds a checker nor hides one.
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
    if dice_mask is not None:
        if dice_mask.shape != (h, w):
            raise CheckerReadError(f"dice mask is {dice_mask.shape}, the field image {(h, w)}")
        dice_mask = dice_mask.astype(bool)
        if not dice_mask.any():
            dice_mask = None
        else:
            # A die's own edges (and its rim) are no checker outline.
            gx[dice_mask] = 0
            gy[dice_mask] = 0
    t1 = time.perf_counter()
    timings["features"] = (t1 - t0) * 1e3

    if halves is not None:
        fitted = tuple(halves)
    elif settings.fit_halves:
        fitted = fit_halves(lab)
    else:
        bw = field.geometry.bar_width
        fitted = (0.0, 0.5 * (1 - bw), 0.5 * (1 + bw), 1.0) * 2
    cols = _columns(w, h, fitted)
    left_end = 0.5 * (fitted[1] + fitted[5])
    right_start = 0.5 * (fitted[2] + fitted[6])
    pw = float(np.median(cols.widths))
    t2 = time.perf_counter()
    timings["geometry"] = (t2 - t1) * 1e3

    # Outline evidence at the slots, for the checker size that fits best.
    if diameter is None:
        sizes = [settings.checker_diameter * f for f in settings.size_search] or [settings.checker_diameter]
    else:
        sizes = [diameter]
    best = None
    for size in sizes:
        rx = 0.5 * pw * size
        ry = rx * (field.size[1] / field.size[0]) * field.geometry.aspect
        dh = 2 * ry
        if len(sizes) == 1:  # the size is known (a fixed camera): no search
            far, vk = _slot_arcs(gx, gy, cols, rx, ry, dh, h, settings, same_radius=settings.arc_same_radius)
            best = (0.0, size, rx, ry, dh, far, vk)
            break
        far, vk = _slot_arcs(gx, gy, cols, rx, ry, dh, h, settings, same_radius=False)
        support = float(np.minimum(far / settings.tall_edge_min, 3.0).sum())
        # The nominal size is kept unless another fits clearly better (``size_margin``):
        # a die or a stray edge must not flip the stacks' pitch.
        bonus = 1.0 + (settings.size_margin if size == settings.checker_diameter else 0.0)
        if best is None or support * bonus > best[0] * (1.0 + 1e-6):
            best = (support * bonus, size, rx, ry, dh, far, vk)
    _, used_diameter, rx, ry, dh, far, vk = best
    if settings.arc_same_radius and len(sizes) > 1:
        far, vk = _slot_arcs(gx, gy, cols, rx, ry, dh, h, settings, same_radius=True)
    thr = settings.edge_min
    t3 = time.perf_counter()
    timings["arcs"] = (t3 - t2) * 1e3

    # Inner-disc colour (box mean) along the centre lines.
    k = max(3, int(round(rx * 0.9)) | 1)
    inner = cv2.blur(lab, (k, k))

    classes = _point_classes()
    ev = _slot_evidence(far, lab, cols, classes, rx, dh, thr, settings, dice_mask)
    checkers: list[Checker] = []
    for i in range(24):
        e = ev["evidence"][i]
        n = _stack_count(e, settings, ev["covered"][i])
        while (settings.offcentre_shift > 0 and n < len(e) and e[n] >= settings.offcentre_floor
               and ev["covered"][i, n] < 0.2 and (n == 0 or ev["arc"][i, n - 1] >= 1.0)):
            # Checkers are rarely placed dead centre: a near miss at the slot after the
            # run is looked at again a little to either side, when the run's top checker
            # shows its own outline (a line seen by colour alone may be a sleeve).
            shifted = _offcentre_arc(gx, gy, cols, i, float(ev["v"][n]), rx, ry, dh, pw, settings) / thr
            if shifted < 1.0:
                break
            ev["arc"][i, n] = max(float(ev["arc"][i, n]), shifted)
            e[n] = max(float(e[n]), shifted)
            n = _stack_count(e, settings, ev["covered"][i])
        places = list(ev["v"][:n])
        upper: list[float] = []
        tall = []
        if n == len(e):  # the line reaches the middle: checkers may overlap (up to 15)
            tall = _tall_stack(gx, gy, inner, cols, i, rx, ry, dh, h, settings)
            places = tall or places
        if not tall and settings.two_high_run > 0 and n >= settings.two_high_run:
            # A full line may carry more checkers resting in the dips between two below.
            upper = _second_layer(gx, gy, lab, inner, cols, i, places, rx, ry, dh, pw, settings)
            places = places + upper
        first = len(checkers)
        hidden = []
        for k, v in enumerate(places):
            x = float(cols.centres[i])
            y = float(cols.bases[i] + cols.dirs[i] * v)
            c = inner[int(np.clip(round(y), 0, h - 1)), int(np.clip(round(x), 0, w - 1))]
            kk = min(k, len(e) - 1)
            if dice_mask is not None:
                c = _uncovered_colour(lab, dice_mask, x, y, rx, c)
                if ev["covered"][i, kk] >= 0.5:
                    hidden.append(len(checkers))
            checkers.append(Checker(x, y, (float(c[0]), float(c[1]), float(c[2])), max(1.0, float(e[kk])), i + 1,
                                    outlined=bool(ev["arc"][i, kk] >= 1.0), arc=float(ev["arc"][i, kk])))
        seen = [j for j in range(first, len(checkers)) if j not in hidden]
        if hidden and seen:
            # A checker mostly under a die has its point's colour (one colour per point).
            c = np.median(np.array([checkers[j].lab for j in seen]), axis=0)
            for j in hidden:
                checkers[j] = dataclasses.replace(checkers[j], lab=(float(c[0]), float(c[1]), float(c[2])))
    t4 = time.perf_counter()
    timings["points"] = (t4 - t3) * 1e3

    # The bar: runs of checker evidence along the bar's centre line.
    bx = 0.5 * (left_end + right_start) * w
    bar_checkers = _bar_checkers(lab, gx, gy, inner, bx, (right_start - left_end) * w, rx, ry, dh, settings)
    t5 = time.perf_counter()
    timings["bar"] = (t5 - t4) * 1e3

    # Colours: one colour per point; two clusters over the points; outliers rejected.
    labelled, model = classify_colours(checkers + bar_checkers, colours, settings)
    counts, point_colours, bar = _tally(labelled)
    t6 = time.perf_counter()
    timings["colours"] = (t6 - t5) * 1e3

    unreadable: tuple[int, ...] = ()
    occluded = False
    mask = None
    if occlusion:
        from vision.occlusion import find_occluders

        mask, unreadable = find_occluders(ev["strips"], ev["templates"], classes, counts, dh, model,
                                          settings, cols.centres, cols.dirs, (h, w))
        # A long "stack" without a single checker outline is a sleeve or an arm lying
        # along the point, not checkers (a real line shows at least its top's edge).
        shapeless = [i + 1 for i in range(24)
                     if ev["arc"].shape[1] >= settings.shapeless_run and counts[i] >= settings.shapeless_run
                     and float(ev["arc"][i, :min(counts[i], ev["arc"].shape[1])].max()) < settings.shapeless_arc]
        if shapeless:
            unreadable = tuple(sorted(set(unreadable) | set(shapeless)))
        # A point holds one colour: while a side has more than 15 checkers, a line with a
        # clearly light and a clearly dark checker is a hand, a sleeve or its shadow over
        # part of it (with 15 or fewer it may as well be a die on a checker).
        counted = [c for c in labelled if c.colour is not None and c.place not in set(unreadable)]
        over = any(sum(c.colour == side for c in counted) > 15 for side in ("light", "dark"))
        mixed = _mixed_points(counted, model, settings) if over else []
        if mixed:
            unreadable = tuple(sorted(set(unreadable) | set(mixed)))
        occluded = bool(unreadable)
        # More than 15 of a side: a long line seen mostly by colour alone (no round
        # edges) is the likelier misread (a sleeve along the point) than checkers
        # with outlines elsewhere: that point becomes unreadable.
        sleeves = _colour_only_lines(labelled, set(unreadable), settings)
        if sleeves:
            unreadable = tuple(sorted(set(unreadable) | set(sleeves)))
            occluded = True
    # A side has 15 checkers: an excess on the readable points and the bar is a misread.
    labelled = _at_most_fifteen(labelled, set(unreadable))
    counts, point_colours, bar = _tally(labelled)
    labelled = [c for c in labelled if c.colour is not None]
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
        halves=fitted,
        diameter=used_diameter,
        timings_ms=timings,
    )


def _offcentre_arc(gx: np.ndarray, gy: np.ndarray, cols: _Columns, i: int, v: float, rx: float, ry: float,
                   dh: float, pw: float, settings: CheckerSettings) -> float:
    """The far-arc outline score (Lab gradient units, as :func:`_arc_scores`) of a
    checker ``v`` pixels from point ``i``'s base placed off the point's centre line:
    the best over horizontal shifts of +-``settings.offcentre_shift`` point widths and
    vertical shifts within a fifth of a checker."""
    sx = settings.offcentre_shift * pw
    xs = np.array([-sx, sx])
    ys = np.linspace(-0.2 * dh, 0.2 * dh, 5)
    cx = np.repeat(cols.centres[i] + xs, len(ys))
    cy = np.tile(cols.bases[i] + cols.dirs[i] * (v + ys), len(xs))
    d = np.full(len(cx), cols.dirs[i])
    return float(_arc_scores(gx, gy, cx, cy, rx, ry, d, np.arange(20, 161, 10), same_radius=True).max())


def _point_classes() -> np.ndarray:
    """(24,) int32: which of the two point colours each point has (0/1). Neighbouring
    points alternate; the top row's leftmost point (13) and the bottom row's second
    from the left (11) share a colour (every board is painted this way)."""
    return np.array([(12 - p) % 2 == 1 if p <= 12 else (p - 13) % 2 == 0 for p in range(1, 25)], np.int32)


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


def _uncovered_colour(lab: np.ndarray, mask: np.ndarray, x: float, y: float, r: float,
                      default: np.ndarray) -> np.ndarray:
    """Mean Lab colour (3,) of the disc (0.95 ``r``, inside the rim) at (``x``, ``y``)
    outside ``mask`` (a die on the checker); ``default`` when the disc is clear or
    (almost) all covered."""
    h, w = mask.shape
    ri = max(1, int(0.95 * r))
    x0, x1 = max(0, int(x) - ri), min(w, int(x) + ri + 1)
    y0, y1 = max(0, int(y) - ri), min(h, int(y) + ri + 1)
    m = mask[y0:y1, x0:x1]
    if not m.any():
        return default
    yy, xx = np.mgrid[y0:y1, x0:x1]
    keep = (((xx - x) ** 2 + (yy - y) ** 2) <= ri * ri) & ~m
    if keep.sum() < 4:
        return default
    return lab[y0:y1, x0:x1][keep].mean(axis=0)


def dice_mask_from_boxes(boxes: Sequence[Sequence[float]], field: Field, shape: tuple[int, int],
                         scale: float, grow: float = 0.05) -> np.ndarray:
    """Where dice lie on the working field: (h, w) bool for ``shape`` (h, w).

    ``boxes``: image-pixel boxes ``(x0, y0, x1, y1)`` (a die's or the cube's);
    ``field``: the registration; ``scale``: the working scale
    (``CheckerSettings.work_scale``); ``grow``: each box is grown by this fraction of
    its side on every side (rounded corners, shadow, a loose box).
    """
    import cv2

    mask = np.zeros(shape, np.uint8)
    for box in boxes:
        x0, y0, x1, y1 = (float(v) for v in box)
        gx_, gy_ = grow * (x1 - x0), grow * (y1 - y0)
        quad = np.array([[x0 - gx_, y0 - gy_], [x1 + gx_, y0 - gy_], [x1 + gx_, y1 + gy_], [x0 - gx_, y1 + gy_]])
        pts = field.to_field(quad) * scale
        if not np.all(np.isfinite(pts)):
            continue
        cv2.fillConvexPoly(mask, np.round(pts).astype(np.int32), 1)
    return mask.astype(bool)


def _slot_evidence(far: np.ndarray, lab: np.ndarray, cols: _Columns, cls: np.ndarray, rx: float, dh: float,
                   thr: float, settings: CheckerSettings, dice_mask: Optional[np.ndarray] = None) -> dict[str, Any]:
    """Evidence (>1: a checker) for checker slots 0..K-1 of every point: (24, K).

    Two cues, each divided by its threshold, the stronger kept: the far-arc edge score
    near the slot, and how much the slot's disc differs from the *empty-point template*
    of its class (the per-pixel median of the 12 points of that colour, base-aligned;
    points whose centre line does not show the point colour are left out of it).
    A third cue for the first ``settings.quiet_slots`` slots: the outline against the
    board's own edge noise at that slot (a checker of its point's colour).
    """
    hh = lab.shape[0] // 2
    n_slots = far.shape[1]
    vk = settings.base_margin * dh + (np.arange(n_slots) + 0.5) * dh
    strips, ws = _strips(lab, cols, hh)
    dstrips = None
    if dice_mask is not None:
        dstrips = _strips(np.repeat(dice_mask[..., None], 3, axis=2).astype(np.float32), cols, hh)[0][..., 0] > 0.5
    # Arc evidence per slot first: it decides which points may serve as empty templates.
    arc = (far / thr).astype(np.float32)
    # A checker at a slot implies checkers below it: occupied-by-arcs = any arc from here up.
    arc_occ = np.flip(np.maximum.accumulate(np.flip(arc >= 1.0, axis=1), axis=1), axis=1)
    r_in = 0.8 * rx
    yy, xx = np.mgrid[-int(r_in):int(r_in) + 1, 0:ws]
    disc = ((xx - (ws - 1) / 2) ** 2 + yy ** 2) <= r_in ** 2
    diff = np.zeros((24, n_slots), np.float32)
    covered_frac = np.zeros((24, n_slots), np.float32)
    quiet = np.zeros((24, n_slots), np.float32)
    # Each class's point colour: the middle of the points a little past their base
    # (2.5-3.5 checkers out, where few stacks reach), median over the class.
    c0, c1 = int(2.5 * dh), int(min(hh, 3.5 * dh))
    mid = strips[:, c0:c1, ws // 2 - 1:ws // 2 + 2].reshape(24, -1, 3).mean(axis=1)
    point_colour = [np.median(mid[cls == c], axis=0) for c in (0, 1)]
    centre_mask = (((xx - (ws - 1) / 2) ** 2 + yy ** 2) <= (0.35 * rx) ** 2)
    r_out = 0.95 * rx
    yw, xw = np.mgrid[-int(r_out):int(r_out) + 1, 0:ws]
    wide = ((xw - (ws - 1) / 2) ** 2 + yw ** 2) <= r_out ** 2
    for k, v in enumerate(vk):
        y0 = int(round(v)) - int(r_in)
        rows = np.arange(y0, y0 + disc.shape[0])
        ok = (rows >= 0) & (rows < hh)
        band = strips[:, rows[ok]]  # (24, r, ws, 3)
        mask = disc[ok]
        pix = band[:, mask]  # (24, n, 3)
        centre = pix[:, centre_mask[ok][mask]].mean(axis=1)  # (24, 3) the slot's middle colour
        for c in (0, 1):
            idx = np.nonzero(cls == c)[0]
            # Empty points of this colour look alike: keep those without an outline
            # whose middle shows the point's own colour (seen where checkers are rare).
            free = idx[~arc_occ[idx, k]]
            if len(free) < 3:
                free = idx
            dist = np.linalg.norm(centre[free] - point_colour[c], axis=1)
            ref = free[dist <= settings.template_colour * settings.colour_min]
            if len(ref) < 3:
                ref = free[np.argsort(dist)[:3]]
                if float(dist.min()) > settings.colour_min:
                    # Beyond the points' tips no free point shows the point's colour: the
                    # empty look is what most free points share, the half of them nearest
                    # their median (a hand or a shadow over some is left out).
                    typical = np.linalg.norm(centre[free] - np.median(centre[free], axis=0), axis=1)
                    ref = free[np.argsort(typical)[:max(3, (len(free) + 1) // 2)]]
            template = np.median(pix[ref], axis=0)  # (n, 3)
            diff_c = pix[idx] - template[None]  # (len(idx), n, 3)
            d = np.sqrt(np.einsum("mnc,mnc->mn", diff_c, diff_c))  # (len(idx), n)
            q = int(round(settings.diff_percentile / 100.0 * (d.shape[1] - 1)))
            raw = np.partition(d, q, axis=1)[:, q]
            shaded = None
            if settings.slot_shade > 0:
                # A shadow or a brighter patch scales a whole disc's colour (about
                # black) by one factor: the template scaled to the disc (the median of
                # the per-pixel best factors, within [1 - slot_shade, 1 / (1 -
                # slot_shade)]) may explain it better. With
                # tv = template - black, disc - g * template = diff + (1 - g) * tv.
                tv = template - LAB_BLACK
                ratio = 1.0 + np.einsum("mnc,nc->mn", diff_c, tv) / np.maximum(np.einsum("nc,nc->n", tv, tv), 1.0)
                gain = np.clip(np.median(ratio, axis=1), 1.0 - settings.slot_shade, 1.0 / (1.0 - settings.slot_shade))
                dark = np.nonzero(np.abs(gain - 1.0) > 1e-3)[0]
                if len(dark):
                    dd = diff_c[dark] + (1.0 - gain[dark])[:, None, None] * tv[None]
                    shaded = (dark, np.partition(np.sqrt(np.einsum("mnc,mnc->mn", dd, dd)), q, axis=1)[:, q])
            if dstrips is not None:
                # Pixels under a die are no evidence: the percentile over the rest of
                # the disc, or of a slightly wider one when the die hides most of it (a
                # checker shows its ring around a die lying on it; an empty point its
                # own colour around a die).
                covered = dstrips[idx][:, rows[ok]][:, mask]  # (len(idx), n)
                covered_frac[idx, k] = covered.mean(axis=1)
                touched = np.nonzero(covered.any(axis=1))[0]
                if len(touched):
                    rows_w = np.arange(int(round(v)) - int(r_out), int(round(v)) + int(r_out) + 1)
                    ok_w = (rows_w >= 0) & (rows_w < hh)
                    disc_w = wide[ok_w]
                    pix_w = strips[idx][:, rows_w[ok_w]][:, disc_w]  # (len(idx), n_w, 3)
                    cov_w = dstrips[idx][:, rows_w[ok_w]][:, disc_w]
                    tmpl_w = np.median(pix_w[np.searchsorted(idx, ref)], axis=0)
                    for j in touched:
                        rest = d[j][~covered[j]]
                        if len(rest) < 0.5 * d.shape[1]:
                            # Most of the inner disc is hidden: the wider ring instead.
                            rest = np.sqrt(((pix_w[j][~cov_w[j]] - tmpl_w[~cov_w[j]]) ** 2).sum(-1))
                        if len(rest) < 0.25 * pix_w.shape[1]:
                            raw[j] = 0.0
                        else:
                            qj = int(round(settings.diff_percentile / 100.0 * (len(rest) - 1)))
                            raw[j] = np.partition(rest, qj)[qj]
            # On a clean board the empty points match their template closely: the
            # threshold drops towards ``colour_floor`` (dark checkers on dark points).
            noise = float(np.median(raw[np.searchsorted(idx, ref)]))
            tau = float(np.clip(settings.colour_noise_k * noise, settings.colour_floor, settings.colour_min))
            if shaded is not None:
                # The threshold stays the one of the unshaded comparison; shading only
                # ever explains a difference away (not where a die lies: that disc was
                # judged on its uncovered pixels above).
                dark, low = shaded
                if dstrips is not None:
                    clear = ~dstrips[idx[dark]][:, rows[ok]][:, mask].any(axis=1)
                    dark, low = dark[clear], low[clear]
                raw = raw.copy()
                raw[dark] = np.minimum(raw[dark], low)
            diff[idx, k] = raw / tau
    if settings.arc_noise_k > 0:
        # A light checker on a light point (or dark on dark) shows only a faint rim and
        # no colour difference, yet flat paint shows almost no edge on the same arc: near
        # the base, the outline is also measured against the board's own edge noise
        # there (the third lowest score of the 24 points: most points may hold a
        # checker of their own colour).
        # Further out only on a line seen so far by this cue alone (a point's colour
        # is its checkers' colour all along it).
        for k in range(min(settings.quiet_slots, n_slots)):
            noise = float(np.partition(far[:, k], 2)[2])
            quiet[:, k] = far[:, k] / float(np.clip(settings.arc_noise_k * noise, settings.arc_floor, thr))
            if k > 0:
                alone = (quiet[:, k - 1] >= 1.0) & (arc[:, k - 1] < 1.0) & (diff[:, k - 1] < 1.0)
                quiet[~alone, k] = 0.0
    ev = np.maximum(np.maximum(arc, diff), quiet)
    # Whole-length empty templates (points with no arc evidence at all), for occlusion.
    full = []
    for c in (0, 1):
        idx = np.nonzero(cls == c)[0]
        free = idx[~arc_occ[idx, 0]]
        full.append(np.median(strips[idx if len(free) < 3 else free], axis=0))
    return {"evidence": ev, "v": vk, "arc": arc, "diff": diff, "strips": strips, "templates": full,
            "covered": covered_frac}


def _bar_checkers(lab: np.ndarray, gx: np.ndarray, gy: np.ndarray, inner: np.ndarray, bx: float, gap: float,
                  rx: float, ry: float, dh: float, settings: CheckerSettings) -> list[Checker]:
    """Checkers on the bar.

    Only the bar's own band is looked at (a checker on the bar covers its whole width
    where it lies; the points beside it do not matter). Along the band, a checker-high
    window that differs from the empty bar (the band's per-column median along its
    length) over at least ``100 - settings.bar_percentile`` % of its pixels marks a
    checker (small fittings cover less of the band); a run of length L holds about
    L / dh checkers. Runs mirrored about the board's middle and alike in colour and
    size are the bar's hinges and are dropped.
    """
    from numpy.lib.stride_tricks import sliding_window_view

    h, w = lab.shape[:2]
    hb = int(max(2, min(0.8 * rx, 0.5 * gap - 1)))
    x0 = int(np.clip(round(bx) - hb, 0, w - 2 * hb - 1))
    strip = lab[:, x0:x0 + 2 * hb + 1]
    profile = np.median(strip, axis=0)
    d_img = np.linalg.norm(strip - profile[None], axis=2)
    ri = max(1, int(0.6 * ry))
    windows = sliding_window_view(d_img, (2 * ri + 1, 2 * hb + 1))[:, 0].reshape(h - 2 * ri, -1)
    q = int(round(settings.bar_percentile / 100.0 * (windows.shape[1] - 1)))
    diff = np.zeros(h, np.float32)
    diff[ri:h - ri] = np.partition(windows, q, axis=1)[:, q] / settings.colour_min
    e = diff >= 1.0
    runs = []
    y = 0
    while y < h:
        if not e[y]:
            y += 1
            continue
        start = y
        while y < h and e[y]:
            y += 1
        if y - start >= 0.15 * dh:
            runs.append((start, y))
    # A checker the colour of the bar shows by its outline: the arcs above and below
    # its centre (they stay inside the bar's band). Each peak clear of the runs is one.
    ys = np.arange(0, h, 2, dtype=np.float64)
    cxs = np.full(len(ys), bx)
    down = np.ones(len(ys))
    ring = np.minimum(_arc_scores(gx, gy, cxs, ys, rx, ry, down, np.arange(50, 131, 10)),
                      _arc_scores(gx, gy, cxs, ys, rx, ry, down, np.arange(230, 311, 10))) / settings.edge_min
    win = max(1, int(0.35 * dh / 2))
    for i in range(len(ys)):
        y = int(ys[i])
        if ring[i] < 1.0 or ring[i] < ring[max(0, i - win):i + win + 1].max():
            continue
        if any(a - 0.5 * dh <= y <= b + 0.5 * dh for a, b in runs):
            continue
        runs.append((int(max(0, y - ri)), int(min(h, y + ri + 1))))
    runs.sort()
    # Hinges come in pairs mirrored about the board's middle: a run answered at the
    # mirrored place by at least a third of its strength (either cue; a hand or a checker
    # may half hide the other hinge) and alike in colour is a hinge. Runs across the
    # middle are kept.
    strength = np.maximum(diff, np.interp(np.arange(h), ys, ring))
    hinge = set()
    for i, (a, b) in enumerate(runs):
        if a <= (h - 1) / 2 <= b:
            continue
        ma, mb = int(max(0, h - 1 - b - 0.2 * dh)), int(min(h, h - b + (b - a) + 0.2 * dh))
        own = float(strength[a:b].max()) if b > a else 0.0
        if mb > ma and float(strength[ma:mb].max()) >= 0.35 * own:
            here = np.median(strip[a:b].reshape(-1, 3), axis=0)
            there = np.median(strip[ma:mb].reshape(-1, 3), axis=0)
            # An outline in the bar's own colour has no colour to compare: its mirror must
            # not be a clear checker of another colour either.
            outline_only = float(diff[a:b].max()) < 1.0 and float(diff[ma:mb].max()) < settings.hinge_diff_max
            if outline_only or np.linalg.norm(here - there) < settings.colour_min:  # hinges look alike
                hinge.add(i)
    out: list[Checker] = []
    for i, (start, end) in enumerate(runs):
        if i in hinge:
            continue
        length = end - start
        n = max(1, int(round((length + 2 * ri - 1.6 * ry) / dh)) + 1)
        first = start + 0.5 * length - 0.5 * (n - 1) * dh
        for k in range(n):
            cy = first + k * dh
            c = inner[int(np.clip(round(cy), 0, h - 1)), int(round(bx))]
            out.append(Checker(float(bx), float(cy), (float(c[0]), float(c[1]), float(c[2])),
                               float(diff[int(np.clip(cy, 0, h - 1))]), 0))
    return out


def _tall_stack(gx: np.ndarray, gy: np.ndarray, inner: np.ndarray, cols: _Columns, i: int, rx: float, ry: float,
                dh: float, h: int, settings: CheckerSettings) -> list[float]:
    """Checker places along a point whose line reaches the board's middle.

    Overlapping checkers each show outlines across the line (near and far arcs peak
    at every checker). The outline peaks (at least 0.3 checker apart) give the
    spacing; when near and far agree on a spacing clearly less than a checker, the
    count is the span over the spacing, plus one (at most 15), provided the line keeps
    one colour all along. Returns the checker centres (distances from the base) or ``[]`` when the line
    does not overlap.
    """
    hh = int(0.5 * h)
    v = np.arange(hh, dtype=np.float64)
    cy = cols.bases[i] + cols.dirs[i] * v
    cx = np.full(hh, cols.centres[i])
    d = np.full(hh, cols.dirs[i])
    found = []
    for angles in (np.arange(200, 341, 10), np.arange(20, 161, 10)):
        score = _arc_scores(gx, gy, cx, cy, rx, ry, d, angles) / settings.tall_edge_min
        order = np.argsort(-score)
        peaks: list[int] = []
        for j in order:
            if score[j] < 1.0:
                break
            if j < 0.3 * dh or any(abs(j - q) < 0.3 * dh for q in peaks):
                continue
            peaks.append(int(j))
        peaks.sort()
        if len(peaks) < 3:
            return []
        spacing = float(np.median(np.diff(peaks)))
        if spacing >= 0.85 * dh:  # checkers side by side: not an overlapping line
            return []
        found.append((peaks, spacing))
    (near, s_near), (far, s_far) = found
    # Overlap shows on both sides of every checker's outline alike; rims or emblems
    # that double the peaks on one side only do not count.
    if max(s_near, s_far) >= 0.85 * dh or abs(s_near - s_far) > 0.3 * max(s_near, s_far):
        return []
    spacing = 0.5 * (s_near + s_far)
    span = max(near[-1], far[-1]) - min(near[0], far[0])
    n = int(min(15, round(span / spacing) + 1))
    if n <= int((hh + 0.3 * dh) // dh):
        return []
    step = span / max(1, n - 1)
    places = [0.5 * dh + k * step for k in range(n)]
    # One colour all along (a hand at the end of a line is not more checkers).
    ys = np.clip(np.rint(cols.bases[i] + cols.dirs[i] * np.array(places)).astype(int), 0, inner.shape[0] - 1)
    x = int(np.clip(round(cols.centres[i]), 0, inner.shape[1] - 1))
    labs = _weighted(inner[ys, x], settings)
    if np.linalg.norm(labs - np.median(labs, axis=0), axis=1).max() > settings.colour_reject:
        return []
    return places


def _both_arcs(gx: np.ndarray, gy: np.ndarray, cols: _Columns, i: int, vs: np.ndarray, rx: float, ry: float,
               dh: float, pw: float) -> np.ndarray:
    """The weaker of the near and far arc outline scores (Lab gradient units) of a
    checker centred ``vs`` (N,) pixels from point ``i``'s base, each the best over
    shifts of a tenth of a point's width across and a tenth of a checker along: (N,)."""
    dxs = np.array([-0.1, 0.0, 0.1]) * pw
    dys = np.array([-0.1, 0.0, 0.1]) * dh
    m = len(dxs) * len(dys)
    cx = np.tile(np.repeat(cols.centres[i] + dxs, len(dys)), len(vs))
    vv = (vs[:, None] + np.tile(dys, len(dxs))[None, :]).ravel()
    cy = cols.bases[i] + cols.dirs[i] * vv
    d = np.full(len(cx), cols.dirs[i])
    far = _arc_scores(gx, gy, cx, cy, rx, ry, d, np.arange(20, 161, 10), same_radius=True)
    near = _arc_scores(gx, gy, cx, cy, rx, ry, d, np.arange(200, 341, 10), same_radius=True)
    return np.minimum(far, near).reshape(len(vs), m).max(axis=1)


def _second_layer(gx: np.ndarray, gy: np.ndarray, lab: np.ndarray, inner: np.ndarray, cols: _Columns, i: int,
                  places: Sequence[float], rx: float, ry: float, dh: float, pw: float,
                  settings: CheckerSettings) -> list[float]:
    """Checkers standing on a line (two high): their distances from the base.

    A checker put on a full line rests in the dip between two below it, half a
    checker along the point from the line's slots, and lies whole on top: its
    outline shows all round, both the arc facing the base and the one facing the
    middle, at a place where a single line shows none (between two slot centres, the
    two lower checkers' outlines meet in a point and cross it). Each dip of the line
    ``places`` (distances from the base, base first) whose near and far arcs both
    reach ``settings.two_high_edge`` (Lab gradient units; best of small
    shifts: a lifted checker looks nearer the camera) and whose inner colour is the
    line's (within ``settings.colour_reject``) holds one, provided the waist two
    checkers side by side leave at their dip is filled (see ``calibration/README.md``)
    and its outline is ``settings.two_high_ratio`` times those centred on the two slots
    below. ``lab``: (h, w, 3) float32 Lab field; ``inner``: its box-blurred copy.
    Returns ``[]`` on a plain line.
    """
    if len(places) < 2:
        return []
    h, w = inner.shape[:2]
    slots = np.asarray(places, np.float64)
    dips = 0.5 * (slots[:-1] + slots[1:])
    # Two round checkers side by side leave a waist at their dip: 0.8 of a radius off
    # the line's centre the point (or field) shows there, checker beside the slots.
    # A checker lying on the dip fills that waist (looked for within a quarter checker
    # of the dip: the line's pitch is known only so well).
    side = np.array([-0.8, 0.8]) * rx
    xs = np.clip(np.rint(cols.centres[i] + side).astype(int), 1, w - 2)

    def flank(vs: np.ndarray) -> np.ndarray:
        ys = np.clip(np.rint(cols.bases[i] + cols.dirs[i] * vs).astype(int), 1, h - 2)
        out = np.zeros((len(vs), 3), np.float32)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                out += lab[ys[:, None] + dy, xs[None, :] + dx].mean(axis=1)
        return _weighted(out / 9.0, settings)

    at_slots = np.median(flank(slots), axis=0)
    near_dip = (dips[:, None] + np.linspace(-0.25, 0.25, 7)[None, :] * dh).ravel()
    gap = np.linalg.norm(flank(near_dip) - at_slots, axis=1).reshape(len(dips), -1).max(axis=1)
    cand = np.nonzero(gap <= settings.colour_min)[0]
    if len(cand) == 0:
        return []
    # On a plain line the outlines centre on the slots; a checker on top hides the
    # outlines of the two below it: its own must be the stronger.
    vs = np.concatenate([dips[cand], slots[cand], slots[cand + 1]])
    sc = _both_arcs(gx, gy, cols, i, vs, rx, ry, dh, pw) / settings.two_high_edge
    m = len(cand)
    at_dip, beside = sc[:m], np.maximum(sc[m:2 * m], sc[2 * m:])
    both = np.zeros(len(dips))
    both[cand] = np.where(at_dip >= settings.two_high_ratio * beside, at_dip, 0.0)
    found = [float(v) for v, s in zip(dips, both) if s >= 1.0]
    if not found:
        return []
    x = int(np.clip(round(cols.centres[i]), 0, w - 1))
    ys = np.clip(np.rint(cols.bases[i] + cols.dirs[i] * np.asarray(list(places) + found)).astype(int), 0, h - 1)
    labs = _weighted(inner[ys, x], settings)
    line = np.median(labs[:len(places)], axis=0)
    return [v for v, c in zip(found, labs[len(places):]) if np.linalg.norm(c - line) <= settings.colour_reject]


def _tally(checkers: Sequence[Checker]) -> tuple[list[int], list[Optional[str]], dict[str, int]]:
    """Counts and colours per point, and the bar, from labelled checkers (``None`` colour skipped)."""
    counts = [0] * 24
    colours: list[Optional[str]] = [None] * 24
    bar = {"light": 0, "dark": 0}
    for c in checkers:
        if c.colour is None:
            continue
        if c.place == 0:
            bar[c.colour] += 1
        else:
            counts[c.place - 1] += 1
            colours[c.place - 1] = c.colour
    return counts, colours, bar


def _at_most_fifteen(checkers: list[Checker], unreadable: set[int] = frozenset()) -> list[Checker]:  # type: ignore[assignment]
    """A side has 15 checkers: while more of a colour were found on the readable points
    and the bar, the weakest removable one goes (the top checker of a stack, or one on
    the bar), those without an outline first, then by evidence score. Unreadable points (a hand may be counted as
    checkers there) are left out of the count and never trimmed."""
    out = list(checkers)
    for colour in ("light", "dark"):
        while sum(1 for c in out if c.colour == colour and c.place not in unreadable) > 15:
            tops: dict[int, int] = {}
            candidates = []
            for idx, c in enumerate(out):
                if c.colour != colour or c.place in unreadable:
                    continue
                if c.place == 0:
                    candidates.append(idx)
                else:
                    tops[c.place] = idx  # stack order: the last one seen is the top
            candidates += list(tops.values())
            # Colour-only evidence goes before a seen outline (a sleeve or a shadow
            # gives colour, rarely a checker's round edge); then the weakest score.
            weakest = min(candidates, key=lambda j: (out[j].outlined, out[j].score))
            out[weakest] = dataclasses.replace(out[weakest], colour=None)
    return out


def _mixed_points(checkers: Sequence[Checker], model: Optional[CheckerColours],
                  settings: CheckerSettings) -> list[int]:
    """Points (1..24) whose line holds a checker clearly of each set: its (weighted
    Lab) distance to one set's colour below ``settings.mixed_ratio`` times that to the
    other, for both sets. ``checkers``: the checkers counted (their colour given,
    see :func:`classify_colours`); ``model``: the two colours (``None``: one set in view, nothing is mixed)."""
    if model is None:
        return []
    cen = _weighted(np.array([model.light, model.dark], np.float32), settings)
    sides: dict[int, set[int]] = {}
    for c in checkers:
        if c.place == 0:
            continue
        d = np.linalg.norm(cen - _weighted(c.lab, settings), axis=1)
        j = int(np.argmin(d))
        if d[j] < settings.mixed_ratio * d[1 - j]:
            sides.setdefault(c.place, set()).add(j)
    return sorted(p for p, s in sides.items() if len(s) == 2)


def _colour_only_lines(checkers: Sequence[Checker], unreadable: set[int], settings: CheckerSettings) -> list[int]:
    """Points to call unreadable while a side has more than 15 checkers on the readable
    points and the bar: lines of at least ``settings.shapeless_run`` checkers of that
    side of which at most a third show an outline and whose median outline evidence
    is below ``settings.sleeve_arc`` (a dark stack on a dark point still shows faint
    rims; cloth shows none), fewest outlines first, until the side is down to 15 (or
    none is left)."""
    out: list[int] = []
    for colour in ("light", "dark"):
        mine = [c for c in checkers if c.colour == colour and c.place not in unreadable]
        total = len(mine)
        if total <= 15:
            continue
        lines: dict[int, list[Checker]] = {}
        for c in mine:
            if c.place:
                lines.setdefault(c.place, []).append(c)
        suspects = sorted((sum(c.outlined for c in line) / len(line), p, len(line)) for p, line in lines.items()
                          if len(line) >= settings.shapeless_run and sum(c.outlined for c in line) * 3 <= len(line)
                          and float(np.median([c.arc for c in line])) < settings.sleeve_arc)
        for _, p, n in suspects:
            if total <= 15:
                break
            out.append(p)
            total -= n
    return out


def _stack_count(e: np.ndarray, settings: CheckerSettings, covered: Optional[np.ndarray] = None) -> int:
    """Checkers in a line from the base given per-slot evidence ``e`` (K,): the longest
    run from slot 0 of slots reaching 1; one or two slots reaching only
    ``settings.slot_weak`` are bridged when the run ends in one reaching 1 (faint
    checkers inside a stack), unless a
    die covers a fifth of it or more (``covered``: (K,) fractions; a die's remains are
    no faint checker); a slot a die covers is bridged whatever its evidence when the
    next one reaches 1 (checkers stand in a line from the base: one is under the die)."""
    n = 0
    k = 0
    while k < len(e):
        if e[k] >= 1.0:
            n = k + 1
        elif covered is not None and covered[k] >= 0.2 and k + 1 < len(e) and e[k + 1] >= 1.0:
            pass  # a die hides this slot but a checker stands beyond it: checkers do not float
        elif e[k] >= settings.slot_weak and (covered is None or covered[k] < 0.2) and _weak_run_ends_strong(
                e, k, settings.slot_weak, covered):
            pass
        else:
            break
        k += 1
    return n


def _weak_run_ends_strong(e: np.ndarray, k: int, weak: float, covered: Optional[np.ndarray]) -> bool:
    """Whether slots ``k``.. of ``e`` stay at or above ``weak`` (and clear of dice)
    until one reaches 1 within two slots: faint checkers inside a stack that goes on
    (a longer faint run is more likely an unevenly lit empty point)."""
    for j in range(k + 1, min(len(e), k + 3)):  # at most two faint ones in a row
        if e[j] >= 1.0:
            return True
        if e[j] < weak or (covered is not None and covered[j] >= 0.2):
            return False
    return False


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
    if not checkers:
        return [], colours
    groups: dict[tuple[int, int], list[int]] = {}
    for idx, c in enumerate(checkers):
        key = (c.place, idx if c.place == 0 else 0)  # bar checkers stand alone
        groups.setdefault(key, []).append(idx)
    keys = list(groups)
    feats = np.array([np.median([checkers[i].lab for i in groups[k]], axis=0) for k in keys], np.float32)
    # Checkers seen by their outline weigh fully; colour-only ones (a hand or a cup can
    # pass for a line of them) a quarter, so they cannot pull a cluster their way.
    weights = np.array([sum(1.0 if checkers[i].outlined else 0.25 for i in groups[k]) for k in keys], np.float32)
    wf = _weighted(feats, settings)

    def centres_from(model: CheckerColours) -> np.ndarray:
        return _weighted(np.array([model.light, model.dark], np.float32), settings)

    model = None
    if len(keys) >= 2:
        # Two medoids under a truncated loss: a stray detection (a die, a shadow)
        # costs at most ``colour_reject`` and cannot drag a centre towards it.
        a, b, dmat = two_medoids(wf, weights, settings.colour_reject)
        if dmat[a, b] >= settings.colour_split:
            lab_c = []
            for j in (a, b):
                other = b if j == a else a
                sel = (dmat[j] <= dmat[other]) & (dmat[j] <= settings.colour_reject)
                lab_c.append(np.median(np.repeat(feats[sel], np.maximum(1, np.rint(weights[sel] * 4)).astype(int), axis=0), axis=0))
            if colours is not None:
                # Learned colours name the two clusters (the light set may be the darker
                # one in this frame's light); the clusters follow this frame's lighting.
                learned = centres_from(colours)
                got = _weighted(np.array(lab_c, np.float32), settings)
                straight = np.linalg.norm(got[0] - learned[0]) + np.linalg.norm(got[1] - learned[1])
                swapped = np.linalg.norm(got[0] - learned[1]) + np.linalg.norm(got[1] - learned[0])
                light_j = 0 if straight <= swapped else 1
            else:
                light_j = int(np.argmax([lab_c[0][0], lab_c[1][0]]))
            model = CheckerColours(tuple(float(v) for v in lab_c[light_j]),  # type: ignore[arg-type]
                                   tuple(float(v) for v in lab_c[1 - light_j]))
    if model is None:
        if colours is not None:
            model = colours  # one set in view: the learned colours decide
        else:
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


#: Most the perspective warp itself may shrink a frame (beyond, it is shrunk first).
MAX_WARP_SHRINK = 2.5


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
        # A warp samples without averaging: from a much larger picture, shrink it first
        # (area averaging) so that no more than ``MAX_WARP_SHRINK`` is left to the warp.
        corners = np.asarray(field.corners, np.float64)
        span = max(np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[2] - corners[3]))
        shrink = span / size[0]
        if shrink > MAX_WARP_SHRINK:
            f = MAX_WARP_SHRINK / shrink
            small = cv2.resize(image_bgr, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            fx = small.shape[1] / image_bgr.shape[1]
            fy = small.shape[0] / image_bgr.shape[0]
            hs = hs @ np.diag([1.0 / fx, 1.0 / fy, 1.0])
            image_bgr = small
        return cv2.warpPerspective(image_bgr, hs, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    from vision.registration import warp_field

    full = warp_field(image_bgr, field, maps)
    return cv2.resize(full, size, interpolation=cv2.INTER_AREA)

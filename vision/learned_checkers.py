"""The learned checker reader: one small network reads every point, colours come from the board.

Each of the 24 points and the bar's two halves are cut out of the registered frame
(:mod:`vision.point_crops`) and read by one network (``vision/models/point_counter.onnx``, :class:`vision.training.nets.PointCounter`,
run by onnxruntime on the CPU): a probability for each count 0..15 and for "hidden"
(a hand or an object over the checkers). Which side a point's checkers belong to is not a
matter of one point: the colour of each occupied point's first checker is sampled and the
board's two checker colours are found over all points (or taken from the profile), the
lighter set being ``light``.

:func:`read_board` returns a :class:`BoardDistribution`: per point and bar half a
:class:`PointDistribution`, the probability of each (side, count) and the most likely entry;
:func:`to_checker_reading` turns it into the classical reader's shape for the rest of the pipeline.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import pathlib
from typing import Any, Optional, Sequence

import numpy as np

from vision.medoids import two_medoids
from vision.point_crops import CROP_SCALE

#: The shipped network.
MODEL_PATH = pathlib.Path(__file__).resolve().parent / "models" / "point_counter.onnx"
#: Class index of "hidden" in the network's output.
HIDDEN = 16


def standardise(crops: np.ndarray) -> np.ndarray:
    """(N, H, W, 3) uint8 BGR crops -> (N, 3, H, W) float32 network input: each crop's channels
    centred on their own mean and divided by their own spread plus 8 grey levels."""
    n, h, w, c = crops.shape
    # One row per crop and channel, contiguous: the statistics run along rows.
    z = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32).reshape(n * c, h * w)
    z -= z.mean(axis=1, keepdims=True)
    std = np.sqrt(np.einsum("ij,ij->i", z, z) / (h * w))[:, None]
    z *= 1.0 / (std + 8.0)
    return z.reshape(n, c, h, w)


@dataclasses.dataclass(frozen=True)
class PointDistribution:
    """What one point holds, in probabilities.

    ``counts``: (16,) float, P(count = k) for k = 0..15 given the point can be seen;
    ``hidden``: P(a hand or object hides the checkers); ``light``: P(the checkers are light
    | there are some), 0..1; ``die_on_first``: a found die or the cube covers most of the place
    where the point's first checker stands (:func:`first_place_covered`). ``count`` and
    ``colour``: the most likely reading; ``confidence``: its probability (hidden excluded).
    """

    point: int
    counts: tuple[float, ...]
    hidden: float
    light: float
    die_on_first: bool = False

    @property
    def count(self) -> int:
        """The most likely number of checkers."""
        return int(np.argmax(self.counts))

    @property
    def colour(self) -> Optional[str]:
        """``"light"``/``"dark"`` for the most likely side, ``None`` when the point is empty."""
        if self.count == 0:
            return None
        return "light" if self.light >= 0.5 else "dark"

    @property
    def confidence(self) -> float:
        """Probability of the most likely (side, count)."""
        c = self.count
        if c == 0:
            return float(self.counts[0])
        return float(self.counts[c] * max(self.light, 1.0 - self.light))

    def signed(self) -> dict[int, float]:
        """P of each signed count (> 0 light, < 0 dark, 0 empty), hidden left out."""
        out = {0: float(self.counts[0])}
        for k in range(1, 16):
            out[k] = float(self.counts[k] * self.light)
            out[-k] = float(self.counts[k] * (1.0 - self.light))
        return out


def head_path(model_path: pathlib.Path | str) -> pathlib.Path:
    """Where the head of the network at ``model_path`` lies: ``<stem>.head.npz`` beside it."""
    p = pathlib.Path(model_path)
    return p.with_name(p.stem + ".head.npz")


@dataclasses.dataclass
class PointHead:
    """The point network's last two layers, in numpy: features (N, F) -> ReLU(features @ w1.T
    + b1) @ w2.T + b2 -> (N, 17) logits (counts 0..15, hidden). ``w1`` (64, F), ``b1`` (64,),
    ``w2`` (17, 64), ``b2`` (17,), float32. The shipped head lies beside the network
    (:func:`head_path`); calibration stores a board's adapted head beside its profile
    (:mod:`vision.board_learning`)."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def logits(self, features: np.ndarray) -> np.ndarray:
        """(N, F) float32 -> (N, 17) float32 logits."""
        h = np.maximum(features @ self.w1.T + self.b1, 0.0)
        return h @ self.w2.T + self.b2

    def save(self, path: pathlib.Path | str) -> pathlib.Path:
        """Write the four arrays to ``path`` (.npz); returns the path."""
        p = pathlib.Path(path)
        np.savez(p, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2)
        return p

    @classmethod
    def load(cls, path: pathlib.Path | str) -> "PointHead":
        """Read a head written by :meth:`save`; raises ``ValueError`` with the reason for a
        missing, unreadable or malformed file."""
        p = pathlib.Path(path)
        try:
            with np.load(p) as d:
                head = cls(*(np.asarray(d[k], np.float32) for k in ("w1", "b1", "w2", "b2")))
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"cannot read the point network's head {p}: {exc}") from None
        if (head.w1.ndim != 2 or head.b1.shape != (head.w1.shape[0],) or head.w2.shape != (17, head.w1.shape[0])
                or head.b2.shape != (17,)):
            raise ValueError(f"the point network's head {p} has the wrong shapes")
        return head


class PointModel:
    """The point network: its body run by onnxruntime (:mod:`vision.onnx_model`), its head (:class:`PointHead`) in numpy.

    ``path``: the body's ONNX file (default :data:`MODEL_PATH`); ``head``: a head to use
    instead of the shipped one (a board's adapted head). ``blas``: the threadpoolctl controller
    of the BLAS libraries loaded when the model was made (numpy's among them), which
    :meth:`probabilities` limits to one thread (``None``, with a warning in the log, when
    threadpoolctl is not installed). Raises ``FileNotFoundError`` when a
    file is missing, ``ValueError`` for a bad head or an ONNX file that is not a readable
    network.
    """

    def __init__(self, path: pathlib.Path | str = MODEL_PATH, head: Optional[PointHead] = None) -> None:
        from vision.onnx_model import load_onnx

        p = pathlib.Path(path)
        if not p.is_file():
            raise FileNotFoundError(f"no point network at {p}")
        if head is None and not head_path(p).is_file():
            raise FileNotFoundError(f"no point network head at {head_path(p)}")
        self.path = p
        self.net = load_onnx(p)
        self.shipped_head = PointHead.load(head_path(p))
        self.head = head or self.shipped_head
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # an install older than this dependency: it reads, slower on a busy machine
            logging.getLogger(__name__).warning(
                "threadpoolctl is not installed (pip install -e . installs it): numpy's BLAS runs the point "
                "network's head on all its threads, slower when the cores are busy")
            self.blas = None
        else:
            self.blas = ThreadpoolController()

    def with_head(self, head: Optional[PointHead]) -> "PointModel":
        """The same network with another head (``None``: the shipped one); shares the body."""
        other = object.__new__(PointModel)
        other.path, other.net, other.shipped_head, other.blas = self.path, self.net, self.shipped_head, self.blas
        other.head = head or self.shipped_head
        return other

    def features(self, crops: np.ndarray) -> np.ndarray:
        """(N, H, W, 3) uint8 BGR crops -> (N, F) float32 features (the body's output)."""
        return self.net.run(standardise(crops))

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """(N, H, W, 3) uint8 BGR crops -> (N, 17) float64 softmax: counts 0..15, hidden.

        The head's matrix product runs on one BLAS thread: numpy's BLAS would wake a thread per
        core for it, and on a machine whose cores are busy (the camera, the dashboard, other
        programs) waiting for those threads made a frame's reading 1.5-2.4 times slower
        (``benchmarks/bench_busy.py``: 80.7-119.5 against 48.9-54.2 ms)."""
        features = self.features(crops)
        with self.one_blas_thread():
            logits = self.head.logits(features)
        return softmax(logits)

    def one_blas_thread(self):
        """A context in which the BLAS libraries known to :attr:`blas` run on one thread (nothing
        changes without threadpoolctl)."""
        return self.blas.limit(limits=1, user_api="blas") if self.blas is not None else contextlib.nullcontext()


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax of (N, C) logits, float64."""
    z = np.asarray(z, np.float64)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


#: Radius (times a checker's diameter) of the first checker's disc sampled when a die or the cube
#: hides the window at its centre.
DISC_RADIUS = 0.45


def first_checker_colours(crops: np.ndarray, diameter_px: float, counts: Optional[np.ndarray] = None) -> np.ndarray:
    """Median OpenCV 8-bit Lab of the place where each point's first checker stands.

    ``crops``: (N, H, W, 3) uint8 BGR (base on row 0); ``diameter_px``: a checker's height in
    crop pixels; ``counts``: (N,) the most likely counts, or ``None``. Returns (N, 3)
    float32: a window half a checker wide around the first checker's centre (its rim and the
    point around it left out). Pixels covered by a found die or the cube
    (:data:`vision.point_crops.COVER_GREY`) are left out: when they hide most of the window,
    the next of the first three checkers that ``counts`` says are there is sampled instead;
    when fewer than 4 pixels of those windows show (a die on a lone checker), what shows of
    the first checker's disc (radius :data:`DISC_RADIUS`, its rim included), else the window.
    """
    import cv2

    from vision.point_crops import COVER_GREY

    n, h, w = crops.shape[:3]
    lab_all = cv2.cvtColor(crops.reshape(-1, w, 3), cv2.COLOR_BGR2LAB).reshape(crops.shape)
    rows0, cols0 = checker_window(diameter_px, w)
    out = np.median(lab_all[:, rows0, cols0].reshape(n, -1, 3), axis=1).astype(np.float32)
    covered = (crops[:, rows0, cols0] == COVER_GREY).all(axis=3).any(axis=(1, 2))
    if covered.any():
        yy, xx = np.mgrid[0:h, 0:w]
        disc = (yy - diameter_px * 0.5) ** 2 + (xx - w // 2) ** 2 <= (diameter_px * DISC_RADIUS) ** 2
    for i in np.flatnonzero(covered):  # a die or the cube covers some of the window
        shown_i = ~(crops[i] == COVER_GREY).all(axis=2)
        best = None
        for k in range(max(1, min(3, int(counts[i]) if counts is not None else 1))):
            rows, cols = checker_window(diameter_px, w, k)
            if k and rows.stop > h:
                break
            shown = shown_i[rows, cols]
            if best is None or shown.mean() > best[1].mean():
                best = (lab_all[i, rows, cols], shown)
            if shown.mean() >= 0.3:
                break
        lab, shown = best[0].reshape(-1, 3), best[1].reshape(-1)
        if shown.sum() < 4:  # the window is hidden: what shows of the first checker's disc
            disc_lab, disc_shown = lab_all[i][disc], shown_i[disc]
            if disc_shown.sum() >= 4:
                lab, shown = disc_lab, disc_shown
        out[i] = np.median(lab[shown] if shown.sum() >= 4 else lab, axis=0)
    return out


def checker_window(diameter_px: float, width: int, k: int = 0) -> tuple[slice, slice]:
    """(rows, columns) of the window half a checker wide around the centre of the ``k``-th
    checker of a line (0: the first, at the base) in a crop ``width`` pixels wide, base on row 0;
    ``diameter_px``: a checker's height in crop pixels."""
    r = max(2, int(round(diameter_px * 0.25)))
    cy, cx = int(round(diameter_px * (0.5 + k))), width // 2
    return slice(max(0, cy - r), cy + r + 1), slice(max(0, cx - r), cx + r + 1)


def first_place_covered(crops: np.ndarray, diameter_px: float) -> np.ndarray:
    """(N,) bool: a found die or the cube (:data:`vision.point_crops.COVER_GREY`) covers at
    least half of the window at the place of each crop's first checker
    (:func:`checker_window`). ``crops``: (N, H, W, 3) uint8 BGR (base on row 0);
    ``diameter_px``: a checker's height in crop pixels."""
    from vision.point_crops import COVER_GREY

    rows, cols = checker_window(diameter_px, crops.shape[2])
    return (crops[:, rows, cols] == COVER_GREY).all(axis=3).mean(axis=(1, 2)) >= 0.5


def _weighted(lab: np.ndarray) -> np.ndarray:
    # Lightness counts half: light falls unevenly over a board, hue and chroma less so.
    return np.asarray(lab, np.float32) * np.array([0.5, 1.5, 1.5], np.float32)


def side_probabilities(colours: np.ndarray, occupied: np.ndarray, weights: np.ndarray,
                       learned: Optional[tuple[Sequence[float], Sequence[float]]] = None,
                       spread: float = 12.0) -> tuple[np.ndarray, Optional[tuple[np.ndarray, np.ndarray]]]:
    """P(light) for each point from its first checker's colour.

    ``colours``: (N, 3) Lab; ``occupied``: (N,) bool, the points with checkers; ``weights``:
    (N,) how much each occupied point counts (its probability of holding checkers);
    ``learned``: the profile's (light, dark) Lab colours, else ``None``. The two sets are found
    in the frame itself (two weighted medoids at least 25 weighted Lab units apart). Without
    ``learned`` the lighter one is light. With it, each point is placed by the learned colours,
    except a point they place at less than :data:`SURE_SIDE` (a checker paler or darker in this
    frame's light than at calibration): that one is placed by the frame's own two sets, each
    named after the learned colour it lies nearer, when they lie nearer different ones (not one
    set's checkers told apart by a mark or a highlight) and place it more surely (a strong light
    gradient pulls the frame's own sets apart by lightness). ``spread``: distance scale (weighted Lab
    units) of the soft assignment. Returns ((N,) float P(light), the (light, dark) centres:
    the learned ones, the frame's own without them, or ``None`` when only one set is in view and
    nothing was learned).
    """
    wf = _weighted(colours)
    unit = _weighted(np.ones(3))

    def soft(c: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        dl = np.linalg.norm(wf - c[0], axis=1)
        dd = np.linalg.norm(wf - c[1], axis=1)
        z = np.clip((dd ** 2 - dl ** 2) / (2 * spread ** 2), -30, 30)
        return 1.0 / (1.0 + np.exp(-z))

    if learned is not None:
        centres = (_weighted(np.array(learned[0], np.float32)), _weighted(np.array(learned[1], np.float32)))
        p = soft(centres)
        unsure = np.abs(p - 0.5) < SURE_SIDE - 0.5
        # the frame's own sets are sought only when a point needs them (a frame's usual case: none)
        found = _frame_sets(wf, occupied, weights) if unsure.any() else None
        if found is not None:
            light_a = [np.linalg.norm(c - centres[0]) < np.linalg.norm(c - centres[1]) for c in found]
            if light_a[0] != light_a[1]:
                in_frame = soft(found if light_a[0] else (found[1], found[0]))
                p = np.where(unsure & (np.abs(in_frame - 0.5) > np.abs(p - 0.5)), in_frame, p)
        return np.clip(p, 1e-4, 1 - 1e-4), (centres[0] / unit, centres[1] / unit)
    found = _frame_sets(wf, occupied, weights)
    if found is None:
        # One set in view and nothing learned: light or dark by lightness alone.
        p = np.where(colours[:, 0] >= 128, 0.99, 0.01)
        return p.astype(np.float64), None
    centres = found if found[0][0] >= found[1][0] else (found[1], found[0])
    return np.clip(soft(centres), 1e-4, 1 - 1e-4), (centres[0] / unit, centres[1] / unit)


def _frame_sets(wf: np.ndarray, occupied: np.ndarray, weights: np.ndarray) -> Optional[tuple[np.ndarray, np.ndarray]]:
    """The two checker sets of one frame: the weighted-Lab centres (unordered) of two weighted
    medoids of the occupied points' colours ``wf`` (N, 3), refined to medians of their members,
    or ``None`` when fewer than two points are occupied or the two lie under 25 units apart."""
    idx = np.flatnonzero(occupied)
    if len(idx) < 2:
        return None
    sub = wf[idx]
    a, b, d = two_medoids(sub, weights[idx], 60.0)
    if d[a, b] < 25.0:
        return None
    ca, cb = sub[a], sub[b]
    for _ in range(3):  # refine the medoids to weighted medians of their members
        near_a = np.linalg.norm(sub - ca, axis=1) <= np.linalg.norm(sub - cb, axis=1)
        ca = np.median(sub[near_a], axis=0)
        cb = np.median(sub[~near_a], axis=0) if (~near_a).any() else cb
    return ca, cb


#: With a profile's colours, a point whose checker they place in one set at this probability or
#: more keeps that set; a point they leave less sure is placed by the two sets found in the
#: frame itself (named after the learned colours they lie nearer) where those place it more surely.
SURE_SIDE = 0.9


def bar_colours(crops: np.ndarray, diameter_px: float, counts: np.ndarray,
                centres: Optional[tuple[Sequence[float], Sequence[float]]] = None) -> np.ndarray:
    """Lab colour of the checkers in each bar crop: checkers on the bar stand anywhere along
    it, so windows half a checker wide are sampled every half checker from the middle out to
    where the most likely count reaches. Without ``centres`` the window least like the bar
    itself (farthest from the crop's own median colour at its far end) is taken; with the two
    checker sets' Lab colours ``centres`` (light, dark), the window most like a checker rather
    than the bar (its distance to the bar minus its distance to the nearer set), so that a hand
    or a die reaching into the crop is not taken for the checker. ``crops``: (2, H, W, 3) uint8
    BGR; ``counts``: (2,) the most likely counts. Returns (2, 3) float32 Lab."""
    import cv2

    out = np.zeros((len(crops), 3), np.float32)
    h, w = crops.shape[1:3]
    r = max(2, int(round(diameter_px * 0.25)))
    cx = w // 2
    sets = None if centres is None else [_weighted(np.asarray(c, np.float32)) for c in centres]
    for i, crop in enumerate(crops):
        lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
        far = _weighted(np.median(lab[h - int(diameter_px):, cx - r:cx + r + 1].reshape(-1, 3), axis=0))
        reach = min(h - r, int((max(int(counts[i]), 1) + 2.5) * diameter_px))
        ys = range(int(diameter_px * 0.5), reach, max(1, int(diameter_px * 0.5)))
        if not len(ys):  # no window fits: the crop's first checker's place
            out[i] = np.median(lab[:int(diameter_px), cx - r:cx + r + 1].reshape(-1, 3), axis=0)
            continue
        # every window's median in one call: (windows, pixels, 3)
        windows = np.stack([lab[y - r:y + r + 1, cx - r:cx + r + 1].reshape(-1, 3) for y in ys])
        medians = np.median(windows, axis=1)
        wm = _weighted(medians)
        d = np.linalg.norm(wm - far, axis=1)
        if sets is not None:
            d = d - np.min([np.linalg.norm(wm - c, axis=1) for c in sets], axis=0)
        out[i] = medians[int(np.argmax(d))]  # the first of equal distances, as a scan from the middle out
    return out


@dataclasses.dataclass(frozen=True)
class BoardDistribution:
    """The learned reading of a board: ``points`` (24 :class:`PointDistribution`, points
    1..24), ``bar`` (2 :class:`PointDistribution` with ``point`` 0: the bar's top and bottom
    halves), ``colours``: the (light, dark) OpenCV Lab colours used, or ``None`` when one set
    was in view and none was learned."""

    points: tuple[PointDistribution, ...]
    bar: tuple[PointDistribution, ...]
    colours: Optional[tuple[tuple[float, ...], tuple[float, ...]]]


def read_board(small: np.ndarray, field: Any, model: PointModel,
               learned: Optional[tuple[Sequence[float], Sequence[float]]] = None) -> BoardDistribution:
    """Read the points and the bar of one frame.

    ``small``: :func:`vision.point_crops.small_field` of the frame; ``field``: its
    :class:`~vision.registration.Field`; ``learned``: the profile's checker colours (Lab
    light, dark) or ``None``. One network pass over 26 crops.
    """
    from vision.point_crops import bar_crops_from_small_field, crops_from_small_field

    crops = np.concatenate([crops_from_small_field(small, field), bar_crops_from_small_field(small, field)])
    p = model.probabilities(crops)
    seen = np.maximum(1.0 - p[:, HIDDEN], 1e-9)
    counts = p[:, :16] / seen[:, None]
    occupied_p = 1.0 - counts[:, 0]
    dh = field.checker_size[1] * CROP_SCALE
    colours = np.concatenate([first_checker_colours(crops[:24], dh, counts[:24].argmax(1)), bar_colours(crops[24:], dh, counts[24:].argmax(1))])
    occupied = occupied_p > 0.5
    light, used = side_probabilities(colours, occupied, occupied_p, learned)
    if used is not None and occupied[24:].any():  # the bar's checkers again, now that the sets are known
        colours[24:] = bar_colours(crops[24:], dh, counts[24:].argmax(1), used)
        light, used = side_probabilities(colours, occupied, occupied_p, used)
    covered = np.concatenate([first_place_covered(crops[:24], dh), np.zeros(len(crops) - 24, bool)])
    dists = [PointDistribution(i + 1 if i < 24 else 0, tuple(float(v) for v in counts[i]), float(p[i, HIDDEN]),
                               float(light[i]), bool(covered[i])) for i in range(len(crops))]
    colours_used = None if used is None else (tuple(float(v) for v in used[0]), tuple(float(v) for v in used[1]))
    return BoardDistribution(tuple(dists[:24]), tuple(dists[24:]), colours_used)


#: Below this probability of its most likely count a point is reported unreadable.
UNSURE_BELOW = 0.4
#: A point read as empty or as one checker while a die covers its first checker's place
#: (``PointDistribution.die_on_first``) is reported unreadable below this probability: the die
#: may hide a lone checker, or lie on the empty point where one would stand, and the network
#: reads such points less surely (rendered crops with a die there: 28% of the empty points read
#: as one checker, most of them below 0.9). Chosen on the validation boards
#: (``python -m vision.evaluate --synthetic 60 --seed 37 --synthetic-dice --dice model``, and
#: seed 31): points misread without a flag 2 -> 1 and 2 -> 1 at 0.8, with 4 and 6 more points
#: flagged; 0.9 flagged 8 on seed 37 and found no more misreads.
UNSURE_UNDER_DIE = 0.8


def unsure(d: PointDistribution, unsure_below: float = UNSURE_BELOW) -> bool:
    """True when a hand or an object hides the place (P(hidden) >= 0.5), when its most likely
    count has a probability below ``unsure_below``, or when a die covers the first checker's
    place of a point read as empty or one checker below :data:`UNSURE_UNDER_DIE`."""
    if d.hidden >= 0.5 or max(d.counts) < unsure_below:
        return True
    return d.die_on_first and d.count <= 1 and max(d.counts) < UNSURE_UNDER_DIE


def unreadable_points(board: BoardDistribution, unsure_below: float = UNSURE_BELOW) -> tuple[int, ...]:
    """Points 1..24 that are :func:`unsure`."""
    return tuple(d.point for d in board.points if unsure(d, unsure_below))


def bar_unreadable(board: BoardDistribution, unsure_below: float = UNSURE_BELOW) -> bool:
    """True when either half of the bar is :func:`unsure` (an arm across the bar)."""
    return any(unsure(d, unsure_below) for d in board.bar)


def to_checker_reading(board: BoardDistribution, field: Any, work_scale: float,
                       timings_ms: Optional[dict[str, float]] = None) -> Any:
    """The :class:`~vision.checkers.CheckerReading` shape of a learned reading (what
    :func:`vision.reader.build_observation` and the annotation take): the most likely count
    and colour per point; each checker placed where it most likely stands (a line from the
    point's base, squeezed to the board's middle past a full line) at ``work_scale`` of the
    canonical field; the colour model from ``board.colours``. Points and halves of the bar that
    are :func:`unsure` count no checkers; either makes the reading ``occluded``."""
    from vision.checkers import Checker, CheckerColours, CheckerReading

    unreadable = unreadable_points(board)
    counts = tuple(0 if d.point in unreadable else d.count for d in board.points)
    colours = tuple(None if c == 0 else d.colour for c, d in zip(counts, board.points))
    dw, dh = field.checker_size
    half = field.size[1] / 2.0
    checkers = []
    for d, n, colour in zip(board.points, counts, colours):
        if not n:
            continue
        g = field.point(d.point)
        pitch = dh if n * dh <= half else (half - dh) / max(n - 1, 1)
        for k in range(n):
            y = g.base_y + g.direction * (dh / 2 + k * pitch)
            checkers.append(Checker(g.centre_x * work_scale, y * work_scale, (0.0, 0.0, 0.0), 1.0, d.point, colour))
    bx = 0.5 * (field.bar_x0 + field.bar_x1)
    bar = {"light": 0, "dark": 0}
    for d, sign in zip(board.bar, (-1, 1)):
        if unsure(d):  # a half of the bar the reading cannot vouch for counts nothing
            continue
        if d.count:
            bar[d.colour] += d.count  # type: ignore[index]
        for k in range(d.count):
            y = half + sign * (dh / 2 + k * dh)
            checkers.append(Checker(bx * work_scale, y * work_scale, (0.0, 0.0, 0.0), 1.0, 0, d.colour))
    model = None if board.colours is None else CheckerColours(board.colours[0], board.colours[1])  # type: ignore[arg-type]
    return CheckerReading(counts=counts, colours=colours, bar=bar, checkers=tuple(checkers),
                          unreadable=unreadable, occluded=bool(unreadable) or bar_unreadable(board),
                          occluder_mask=None, colour_model=model,
                          halves=(), diameter=float(dw), timings_ms=dict(timings_ms or {}))

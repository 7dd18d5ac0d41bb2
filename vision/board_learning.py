"""Calibration learns the user's board: the point network adapted to one board from one frame.

The frame is first read as shipped. When the shipped network reads the opening right (every
point's count and colour, nothing hidden, the bar empty) and surely (every count at
:data:`SURE_OPENING` or more), nothing is adapted: on rendered boards
of six styles and on thrown-dice games a head adapted to a board it already read right read
no point better and some whole boards and games worse (``benchmarks/RESULTS.md``, "Board
reading"). Otherwise the board teaches the reader.

Over the opening position every checker's place is known. :func:`cut_parts` cuts this board's
own empty points (the 16 the opening leaves empty, and the bar's two halves) and its own
checkers (each set's, from the stacks of the opening) out of the frame's point crops
(:mod:`vision.point_crops`); :func:`compose` lays them out again as thousands of positions of
this very board: stacks of 0 to 15 in a line, squeezed past a full line or two high, with
the light changed, hands over them and dice on them. :func:`adapt_head` then fits the point
network's two last layers (:class:`PointHead`, numpy) to those crops, with the network's own
synthetic world mixed in so that nothing it knew is lost, pulled towards the shipped weights.
No torch: the adaptation runs where the companion runs, within a minute or two on two cores.

The adapted head is stored beside the profile (``<profile>.points.npz``) and used by
``companion read`` and ``companion watch --calibration``.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Optional

import numpy as np

from vision.learned_checkers import HIDDEN, PointHead, PointModel, first_checker_colours
from vision.point_crops import CROP_HEIGHT, CROP_SCALE, CROP_WIDTH

#: The opening position: checkers per point (reference numbering), both players.
OPENING_COUNTS = {1: 2, 6: 5, 8: 3, 12: 5, 13: 5, 17: 3, 19: 5, 24: 2}
#: The points of the player whose home board holds points 1-6 ("near") in the opening.
OPENING_NEAR = (6, 8, 13, 24)


#: Points that must disagree with the opening, read before learning, to refuse a frame at once.
EARLY_REFUSAL = 8
#: An opening read right as shipped is learned all the same when one of its points' counts is
#: read at a probability below this: the network is right on 99.6% of the held-back synthetic
#: crops it reads at 0.9 or more (``vision/models/train_logs/point_counter.txt``), and a board
#: whose opening it reads less surely is a board it reads less surely in other positions
#: (``benchmarks/photo_composites.py``: gold checkers on a red and black board read right in the
#: opening at 0.80, misread in 22 of 30 other positions).
SURE_OPENING = 0.9


class BoardLearningError(ValueError):
    """The frame cannot teach the reader this board (e.g. it is not the opening position)."""


@dataclasses.dataclass
class BoardParts:
    """Pieces of one board cut from a frame of the opening position.

    ``empty``: (E, H, W, 3) uint8 BGR crops of empty points (base on row 0); ``bar``: (2, H, W, 3)
    the bar's halves; ``checkers``: per set (``"near"``, ``"far"``) a list of (h, w, 3) uint8
    BGR patches, one checker each, with ``mask`` (h, w) float32 its disc; ``dh``/``dw``: a
    checker's height and width in crop pixels.
    """

    empty: np.ndarray
    bar: np.ndarray
    checkers: dict[str, list[np.ndarray]]
    mask: np.ndarray
    dh: float
    dw: float


def cut_parts(crops: np.ndarray, bar: np.ndarray, checker_size: tuple[float, float],
              counts: Optional[dict[int, tuple[int, str]]] = None, skip: frozenset = frozenset()) -> BoardParts:
    """Cut the empty points and the checkers of a known position out of its crops.

    ``crops``: (24, H, W, 3) uint8 BGR point crops of a frame; ``bar``: (B, H, W, 3) its bar
    crops (B may be 0: a bar with checkers on it gives none); ``checker_size``: (width, height)
    of a checker in canonical field pixels (``Field.checker_size``). ``counts``: the position
    the frame shows, point (1..24) -> (checkers, set ``"near"`` or ``"far"``), points absent
    empty; default the opening position (:data:`OPENING_COUNTS`, :data:`OPENING_NEAR` near).
    ``skip``: points whose crops are not used (a hand or a die over them). A point's checkers
    are cut from its line's places (base on row 0, one checker's height each), at most a line's.
    ``empty`` holds no crop when every point is taken or skipped.
    """
    import cv2

    if counts is None:
        counts = {p: (n, "near" if p in OPENING_NEAR else "far") for p, n in OPENING_COUNTS.items()}
    dw, dh = checker_size[0] * CROP_SCALE, checker_size[1] * CROP_SCALE
    per_line = int(CROP_HEIGHT // dh)
    empty = crops[[p - 1 for p in range(1, 25) if counts.get(p, (0, ""))[0] == 0 and p not in skip]]
    ph, pw = int(round(dh)), int(round(dw))
    mask = np.zeros((ph, pw), np.float32)
    cv2.ellipse(mask, (pw * 8, ph * 8), (int(pw * 8 * 0.96), int(ph * 8 * 0.96)), 0, 0, 360, 1.0, -1, cv2.LINE_AA, 4)
    x0 = CROP_WIDTH // 2 - pw // 2
    sets: dict[str, list[np.ndarray]] = {"near": [], "far": []}
    for p, (n, side) in counts.items():
        if p in skip:
            continue
        for k in range(min(n, per_line)):
            y0 = int(round(k * dh))
            patch = crops[p - 1, y0:y0 + ph, x0:x0 + pw]
            if patch.shape[:2] == (ph, pw):
                sets[side].append(patch.copy())
    return BoardParts(empty, bar.copy(), sets, mask, dh, dw)


def _paste(img: np.ndarray, patch: np.ndarray, mask: np.ndarray, cx: float, cy: float) -> None:
    """Alpha-paste ``patch`` (its disc ``mask``) centred at (cx, cy) into float32 ``img``."""
    ph, pw = mask.shape
    x0, y0 = int(round(cx - pw / 2)), int(round(cy - ph / 2))
    xa, ya = max(0, x0), max(0, y0)
    xb, yb = min(img.shape[1], x0 + pw), min(img.shape[0], y0 + ph)
    if xb <= xa or yb <= ya:
        return
    m = mask[ya - y0:yb - y0, xa - x0:xb - x0, None]
    img[ya:yb, xa:xb] = img[ya:yb, xa:xb] * (1 - m) + patch[ya - y0:yb - y0, xa - x0:xb - x0] * m


def compose(parts: BoardParts, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` crops of positions of this board: ((n, H, W, 3) uint8 BGR, (n,) int64 labels 0..15
    or :data:`~vision.learned_checkers.HIDDEN`)."""
    import cv2

    from vision.render_crops import count_prior, cover_like_reader, die_on, hand_over

    xs = np.empty((n, CROP_HEIGHT, CROP_WIDTH, 3), np.uint8)
    ys = np.empty(n, np.int64)
    dh, dw = parts.dh, parts.dw
    half = CROP_HEIGHT
    per_line = max(1, int((half - 0.1 * dh) // dh))
    for i in range(n):
        on_bar = rng.random() < 0.12 and len(parts.bar) > 0
        count = int(rng.choice(16, p=count_prior(on_bar)))
        bg = (parts.bar if on_bar else parts.empty)[int(rng.integers(len(parts.bar) if on_bar else len(parts.empty)))]
        img = bg.astype(np.float32)
        if rng.random() < 0.5:
            img = img[:, ::-1].copy()
        side = "near" if rng.random() < 0.5 else "far"
        pool = parts.checkers[side] or parts.checkers["near"] or parts.checkers["far"]
        margin = rng.uniform(0.0, 1.5) * dh if on_bar else rng.uniform(-0.03, 0.06) * dh
        mode = "two_high" if (count > per_line and rng.random() < 0.3) else "line"
        if count <= per_line:
            pitch = dh * rng.uniform(0.97, 1.05)
        else:
            pitch = (half - dh - margin) / max(count - 1, 1) * rng.uniform(0.88, 1.0)
        cx0 = CROP_WIDTH / 2 + rng.uniform(-0.06, 0.06) * dw
        layer, slot = 0, 0
        for k in range(count):
            patch = pool[int(rng.integers(len(pool)))].astype(np.float32)
            if rng.random() < 0.5:
                patch = patch[:, ::-1]
            if mode == "two_high":
                y = margin + dh / 2 + (slot + 0.5 * layer) * dh
                slot += 1
                if slot >= per_line - layer:
                    layer, slot = layer + 1, 0
            else:
                y = margin + dh / 2 + k * pitch
            _paste(img, patch * rng.uniform(0.95, 1.05), parts.mask, cx0 + rng.uniform(-0.04, 0.04) * dw, y)
        label = count
        die_box = die_on(img, rng, dw, count, margin, dh) if rng.random() < 0.1 else None
        if rng.random() < 0.1 and hand_over(img, rng, CROP_WIDTH / 2, dw, count, margin, dh):
            label = HIDDEN
        # The light of another hour: gain, a gradient, white balance; the sensor: blur, noise, JPEG.
        yy = np.linspace(-0.5, 0.5, CROP_HEIGHT, dtype=np.float32)[:, None, None]
        img *= rng.uniform(0.75, 1.25) * (1 + rng.uniform(-0.3, 0.3) * yy) * rng.uniform(0.9, 1.1, 3).astype(np.float32)
        m = np.float32([[1, 0, rng.uniform(-1.5, 1.5)], [0, 1, rng.uniform(-2, 2)]])
        img = cv2.warpAffine(img, m, (CROP_WIDTH, CROP_HEIGHT), borderMode=cv2.BORDER_REFLECT)
        if rng.random() < 0.3:
            img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0))
        img += rng.normal(0, rng.uniform(0, 5), img.shape).astype(np.float32)
        out = np.clip(img, 0, 255).astype(np.uint8)
        if rng.random() < 0.3:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(50, 95))])
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        cover_like_reader(out, rng, die_box, dw)
        xs[i], ys[i] = out, label
    return xs, ys


def crop_features(model: PointModel, crops: np.ndarray, batch: int = 256) -> np.ndarray:
    """The point network's features of (N, H, W, 3) uint8 BGR point crops, ``batch`` at a time:
    (N, F) float32, what a :class:`PointHead` reads."""
    return np.concatenate([model.features(crops[i:i + batch]) for i in range(0, len(crops), batch)])


def adapt_head(start: PointHead, features: np.ndarray, labels: np.ndarray, weights: np.ndarray, epochs: int = 12,
               lr: float = 1e-3, pull: float = 1e-3, seed: int = 0,
               progress: Optional[Callable[[float], None]] = None) -> PointHead:
    """Fit a :class:`PointHead` to ``features`` (N, F) float32 and ``labels`` (N,) int, each
    sample weighted by ``weights`` (N,), from ``start``: Adam on the cross-entropy in batches of
    256 for ``epochs`` passes, plus ``pull`` times the squared distance to ``start``'s weights
    (so that what the shipped head knew and the board does not show stays). ``progress`` is
    called with the fraction done."""
    rng = np.random.default_rng(seed)
    params = [a.astype(np.float64).copy() for a in (start.w1, start.b1, start.w2, start.b2)]
    origin = [p.copy() for p in params]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    f64 = features.astype(np.float64)
    n = len(labels)
    steps = epochs * int(np.ceil(n / 256))
    t = 0
    for _epoch in range(epochs):
        order = rng.permutation(n)
        for i in range(0, n, 256):
            idx = order[i:i + 256]
            x, y, wt = f64[idx], labels[idx], weights[idx]
            w1, b1, w2, b2 = params
            pre = x @ w1.T + b1
            h = np.maximum(pre, 0.0)
            z = h @ w2.T + b2
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(y)), y] -= 1.0
            dz = p * (wt / wt.sum())[:, None]
            dh = (dz @ w2) * (pre > 0)
            grads = [dh.T @ x, dh.sum(0), dz.T @ h, dz.sum(0)]
            t += 1
            for j, g in enumerate(grads):
                g = g + pull * (params[j] - origin[j])
                m[j] = 0.9 * m[j] + 0.1 * g
                v[j] = 0.999 * v[j] + 0.001 * g * g
                params[j] -= lr * (m[j] / (1 - 0.9 ** t)) / (np.sqrt(v[j] / (1 - 0.999 ** t)) + 1e-8)
            if progress is not None and t % 10 == 0:
                progress(t / steps)
    return PointHead(*(p.astype(np.float32) for p in params))


def adapt_to_parts(model: PointModel, parts: BoardParts, samples: int = 6000, generic: int = 2000, seed: int = 0,
                   progress: Optional[Callable[[str, float], None]] = None) -> tuple[PointHead, float, float]:
    """The point network's head adapted to one board (:func:`adapt_head`): ``samples``
    compositions of its ``parts`` (:func:`compose`; a tenth held back), with ``generic``
    synthetic crops of other boards (:mod:`vision.render_crops`) mixed in at half weight.
    Returns the head and the accuracy of the shipped and of the adapted head on the held-back
    compositions. ``progress(stage, fraction)`` is called along the way."""
    from vision.render_crops import make_crops

    say = progress or (lambda stage, f: None)
    say("composing this board", 0.0)
    rng = np.random.default_rng(seed)
    bx, by = compose(parts, samples, rng)
    say("composing this board", 1.0)
    gx, gy = make_crops(generic, seed + 17)
    say("reading the compositions", 0.0)
    fb = crop_features(model, bx)
    fg = crop_features(model, gx)
    say("reading the compositions", 1.0)
    hold = max(1, samples // 10)
    feats = np.concatenate([fb[hold:], fg])
    labels = np.concatenate([by[hold:], gy])
    weights = np.concatenate([np.ones(samples - hold), np.full(generic, 0.5)])
    # numpy's BLAS on one thread, as the reading runs it: on a machine whose cores are busy (the
    # camera and the dashboard of a running watch) its threads cost more than they give
    # (benchmarks/bench_busy.py, adapt_head over 7,400 samples, 4 epochs: both cores busy 3.19 ->
    # 1.75 s; idle 0.82 -> 1.11 s)
    with model.one_blas_thread():
        before = float((model.shipped_head.logits(fb[:hold]).argmax(1) == by[:hold]).mean())
        head = adapt_head(model.shipped_head, feats, labels, weights, seed=seed,
                          progress=lambda f: say("learning this board", f))
        after = float((head.logits(fb[:hold]).argmax(1) == by[:hold]).mean())
    return head, before, after


@dataclasses.dataclass(frozen=True)
class LearnedBoard:
    """What calibration learned of a board: ``head`` (the adapted :class:`PointHead`, or
    ``None`` when the shipped network read the opening right and nothing was adapted), the two
    checker sets' colours (OpenCV Lab ``light``, ``dark``), ``near_colour``: the colour of the
    player whose home board holds points 1-6, and the figures of the adaptation: accuracy of
    the shipped and the adapted head on held-back compositions of this board (``before``,
    ``after``; ``None`` without an adaptation), and the calibration's duration ``seconds``."""

    head: Optional[PointHead]
    light: tuple[float, float, float]
    dark: tuple[float, float, float]
    near_colour: str
    before: Optional[float]
    after: Optional[float]
    seconds: float


def learn_board(image_bgr: np.ndarray, field, model: PointModel, empty_bgr: Optional[np.ndarray] = None,
                samples: int = 6000, generic: int = 2000, seed: int = 0,
                progress: Optional[Callable[[str, float], None]] = None) -> LearnedBoard:
    """Teach the point network this board from a frame of the opening position, when it
    needs teaching.

    The frame is read first with the shipped head; when it reads the opening right and surely
    (:func:`check_opening` finds no point that disagrees or is read below
    :data:`SURE_OPENING`), the colours are learned and the head
    is kept (``head`` ``None``). Otherwise the head is adapted and must then read the frame back
    (when the shipped head read it right, only unsurely, and the adapted one does not, the
    shipped head is kept).

    ``image_bgr``: (H, W, 3) uint8 BGR frame of the opening position, ``field`` its
    registration; ``empty_bgr``: optionally a frame of the same board, empty, same camera;
    ``samples``: compositions of this board; ``generic``: synthetic crops of other boards
    (:mod:`vision.render_crops`) mixed in. ``progress(stage, fraction)`` is called along the way.
    Raises :class:`BoardLearningError` when the frame does not show the opening position (read
    before learning, :data:`EARLY_REFUSAL` points or more disagree; or the adapted reader reads
    it back and some point disagrees; the points are named) or its two checker sets look alike.
    """
    from vision.learned_checkers import side_probabilities
    from vision.point_crops import bar_crops_from_small_field, crops_from_small_field, small_field

    t0 = time.perf_counter()
    say = progress or (lambda stage, f: None)
    small = small_field(image_bgr, field)
    crops = crops_from_small_field(small, field)
    bar = bar_crops_from_small_field(small, field)
    parts = cut_parts(crops, bar, field.checker_size)
    if empty_bgr is not None:
        e_small = small_field(empty_bgr, field)
        parts.empty = np.concatenate([parts.empty, crops_from_small_field(e_small, field)])
        parts.bar = np.concatenate([parts.bar, bar_crops_from_small_field(e_small, field)])
    # The two sets' colours, from the first checkers of the opening's stacks.
    lab = first_checker_colours(crops, parts.dh)
    near = np.median([lab[p - 1] for p in OPENING_NEAR], axis=0)
    far = np.median([lab[p - 1] for p in OPENING_COUNTS if p not in OPENING_NEAR], axis=0)
    probe = np.stack([near, far])
    _, centres = side_probabilities(probe, np.ones(2, bool), np.ones(2))
    if centres is None:
        raise BoardLearningError("the two checker sets look alike: is the board in the opening position, "
                                 "with both sets in view?")
    near_colour = "light" if near[0] >= far[0] else "dark"
    light, dark = (near, far) if near_colour == "light" else (far, near)
    as_read = LearnedBoard(None, tuple(float(v) for v in light), tuple(float(v) for v in dark),  # type: ignore[arg-type]
                           near_colour, None, None, 0.0)
    disagree, unsure = _opening_flags(image_bgr, field, model.with_head(None), as_read, SURE_OPENING)
    if len(disagree) >= EARLY_REFUSAL:
        # Far from the opening even before learning: not worth a minute of learning.
        raise BoardLearningError("the frame does not show the opening position; points " + ", ".join(disagree))
    if not disagree and not unsure:
        say("read as shipped", 1.0)
        return dataclasses.replace(as_read, seconds=time.perf_counter() - t0)
    head, before, after = adapt_to_parts(model, parts, samples, generic, seed, say)
    learned = LearnedBoard(head, tuple(float(v) for v in light), tuple(float(v) for v in dark),  # type: ignore[arg-type]
                           near_colour, before, after, time.perf_counter() - t0)
    read_right = not disagree
    disagree = check_opening(image_bgr, field, model.with_head(head), learned)
    if disagree and read_right:
        # learned only because the opening was read unsurely: the shipped head read it right
        return dataclasses.replace(as_read, seconds=time.perf_counter() - t0)
    if disagree:
        raise BoardLearningError("the frame does not read as the opening position after learning; points "
                                 + ", ".join(disagree))
    return learned


def check_opening(image_bgr: np.ndarray, field, model: PointModel, learned: LearnedBoard,
                  sure: float = 0.0) -> list[str]:
    """Read the frame with the adapted network and the learned colours; returns the points
    that disagree with the opening position as ``"6 (read 4 dark, want 5 light)"``, then those
    read right whose count's probability is below ``sure`` as ``"13 (read 5 dark at 0.79)"``."""
    disagree, unsure = _opening_flags(image_bgr, field, model, learned, sure)
    return disagree + unsure


def _opening_flags(image_bgr: np.ndarray, field, model: PointModel, learned: LearnedBoard,
                   sure: float) -> tuple[list[str], list[str]]:
    """:func:`check_opening`'s two lists from one reading: the points that disagree, and those
    read right below ``sure``."""
    from vision.learned_checkers import read_board
    from vision.point_crops import small_field

    board = read_board(small_field(image_bgr, field), field, model, (learned.light, learned.dark))
    far_colour = "dark" if learned.near_colour == "light" else "light"
    disagree, unsure = [], []
    for d in board.points:
        n = OPENING_COUNTS.get(d.point, 0)
        want = None if n == 0 else (learned.near_colour if d.point in OPENING_NEAR else far_colour)
        if (d.count, d.colour) != (n, want) or d.hidden >= 0.5:
            got = "hidden" if d.hidden >= 0.5 else (f"{d.count} {d.colour}" if d.count else "empty")
            disagree.append(f"{d.point} (read {got}, want {f'{n} {want}' if n else 'empty'})")
        elif d.counts[d.count] < sure:
            unsure.append(f"{d.point} (read {f'{n} {want}' if n else 'empty'} at {d.counts[d.count]:.2f})")
    for d in board.bar:
        if d.count:
            disagree.append(f"bar (read {d.count} {d.colour}, want empty)")
    return disagree, unsure


def learned_line(learned: LearnedBoard) -> str:
    """What calibration says of a :class:`LearnedBoard`, one line: the board learned (how long,
    and its own compositions read right before and after), or its opening read right as shipped."""
    if learned.head is None:
        return "read this board's opening right as shipped: nothing to learn, the shipped reader kept"
    return (f"learned this board in {learned.seconds:.0f} s: its own compositions read right "
            f"{100 * (learned.before or 0.0):.1f}% -> {100 * (learned.after or 0.0):.1f}%")

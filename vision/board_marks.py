"""The board's own marks that look like a die, learned at calibration.

Some boards carry things the value classifier can take for a die: hinge screws on the bar (a
dark dot on a plate reads as a one of small dice), a printed logo, a checker's printed mark.
``companion calibrate`` scans its frame (and the empty board's frame, when given) for dice at
every size a game may search them at (:func:`find_marks`) and remembers each spot the dice
detector picks out that is not read as a die, with a grey patch of what lies there. While
reading a frame of that board (:meth:`vision.dice.DiceReader.scan`), a candidate read as a die
on such a spot is taken for "not a die" only while the spot still looks as it did
(:meth:`BoardMarks.covered`: normalised cross-correlation of the patches, which light changes
scale and shift but do not lower): a die that lands there, or a hand over it, changes the patch,
and the die is read as before. A die of the calibration frame read surely at several sizes
(:data:`SURE`, :data:`SURE_AT`) is not a mark: the players' dice may lie on the board when it
is calibrated.

A mark printed on a checker (a star, a logo: ``on_checker``, the mark lies on a checker of the
calibration frame) goes where its checker goes and turns with it: a candidate read as a die
anywhere is "not a die" when the middle of its spot, the checker's disc, looks as the mark's
did at some turn (:data:`CHECKER_MATCH`, :data:`TURNS`) and the candidate is boxed about as large
as the print (:data:`CHECKER_SIZE`); the point under the checker, and so the patch's rim,
changes as the checker moves.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
from typing import Any, Sequence

import numpy as np

#: Side of a mark's stored grey patch, pixels.
PATCH = 16
#: A mark's patch covers this many times the side of the die it was read as.
CONTEXT = 1.5
#: How far a mark may lie from where it was learned and still be found (times its side): the
#: registration of a frame found per frame moves by a pixel or two.
SHIFT = 0.25
#: A candidate within this many times its own (or the mark's, the larger) side of a mark is
#: tested against it.
NEAR = 0.6
#: Readings of one place at calibration whose sides differ more than this many times are two
#: marks: a checker's print read whole, and a spot of it (a highlight, a point of the star) read
#: as a small die, which a die landing on it must change.
SAME_SIZE = 1.6
#: The spot still looks as at calibration when the patches' normalised cross-correlation
#: reaches this.
MATCH = 0.8
#: A patch whose grey levels vary less than this (standard deviation) is blank: no mark.
MIN_CONTRAST = 4.0
#: Candidates of the calibration frame whose values together reach this are die-like enough to
#: remember.
DIE_LIKE = 0.2
#: The sizes (times the board's die) the calibration frame is scanned at: the range of the
#: dice's learned size (:data:`vision.dice_size.SCALE_RANGE`); a mark such as a hinge screw
#: reads as a die at one or two of them only.
SCALES = (0.5, 0.6, 0.7, 0.85, 1.0, 1.2, 1.4, 1.7, 2.0)
#: A place of the calibration frame read as a value this probable ...
SURE = 0.9
#: ... at this many of :data:`SCALES` or more is a die lying there, not a mark (the real dice of
#: the nine board photos: 5-8 sizes; their hinge screws: one).
SURE_AT = 3
#: Candidates read as dice (values together at least this) are tested against the marks.
TESTED = 0.3
#: A mark within this many checker widths of a checker's centre of the calibration frame lies on
#: that checker ...
ON_CHECKER = 0.5
#: ... and is the checker's own print when it is read at this many checker widths or more (a
#: star or logo covers the checker's face; a smaller die-like spot on a checker is taken for
#: where it lies: a disc a die wide has too little in it to tell a print from a die).
CHECKER_PRINT = 0.75
#: A candidate shows a checker's print when their discs' correlation reaches this and it is boxed
#: at least :data:`CHECKER_SIZE` times the print's side. Chosen on game 602 of
#: ``benchmarks/photo_games.py`` (hough_test5's navy checkers with a white star: a moved checker
#: read as a die, boxed 0.73-1.03 times its print, correlates 0.87-0.95 at best) and on the real
#: dice of the training fold pasted on the real photos (``benchmarks/real_dice_on_boards.py
#: --fold 1``, the label's checkers known: real dice boxed 0.6 times a print or more correlate
#: 0.85 at most; at 0.8 and any size, 8 of the 581 dice read calibrated were lost).
CHECKER_MATCH = 0.86
CHECKER_SIZE = 0.7
#: The turns (degrees) a checker's mark is compared at.
TURNS = tuple(range(0, 360, 45))
#: The disc compared: this fraction of a checker's radius (clear of its rim and the point).
DISC = 0.8


class BoardMarksError(ValueError):
    """A profile's ``board_marks`` that cannot be read."""


@dataclasses.dataclass(frozen=True, eq=False)
class Mark:
    """One spot of the board that looks like a die: ``center`` canonical field pixels (x, y),
    ``scale`` its side over the board's die (:func:`vision.dice_size.board_die_px`), ``patch``
    (:data:`PATCH`, :data:`PATCH`) uint8 grey, :data:`CONTEXT` times its side; ``on_checker``: it
    is printed on a checker, which moves (see the module's doc)."""

    center: tuple[float, float]
    scale: float
    patch: np.ndarray
    on_checker: bool = False

    @functools.cached_property
    def turned_discs(self) -> np.ndarray:
        """(len(:data:`TURNS`), pixels) float64: the disc of :func:`_disc` of ``patch`` turned by
        each of :data:`TURNS`, less its mean, each row of unit norm (a blank disc's row is zero);
        computed once, for :func:`_checker_correlation`."""
        import cv2

        c = (PATCH - 1) / 2
        disc = _disc()
        rows = []
        for turn in TURNS:
            m = cv2.getRotationMatrix2D((c, c), float(turn), 1.0)
            t = cv2.warpAffine(self.patch.astype(np.float32), m, (PATCH, PATCH), borderMode=cv2.BORDER_REPLICATE)[disc]
            t = t.astype(np.float64) - t.mean()
            norm = float(np.sqrt((t * t).sum()))
            rows.append(t / norm if norm > 0 else t)
        return np.array(rows)


@dataclasses.dataclass(frozen=True)
class BoardMarks:
    """The die-like marks of one board (:func:`find_marks`); stored in the profile
    (``board_marks``, :meth:`to_dict`)."""

    marks: tuple[Mark, ...] = ()

    def __len__(self) -> int:
        return len(self.marks)

    def covered(self, image_bgr: np.ndarray, field: Any, die_px: float,
                dice: Sequence[tuple[tuple[float, float], float]]) -> list[bool]:
        """For each die ``(center, side)`` (image pixels) of ``dice``: whether it lies on a mark
        whose spot in ``image_bgr`` ((H, W, 3) uint8 BGR, registered as ``field``, whose
        tournament die is ``die_px`` pixels: :func:`vision.dice_size.board_die_px`) still looks
        as at calibration (correlation at least :data:`MATCH` within :data:`SHIFT` of its
        side), or on the spot of a checker whose mark it shows (``on_checker`` marks, anywhere:
        :func:`_checker_correlation` at least :data:`CHECKER_MATCH`, boxed at :data:`CHECKER_SIZE`
        of the mark's side or more). The marks are placed in
        the image once for all of ``dice``."""
        if not self.marks or not dice:
            return [False] * len(dice)
        at = field.to_image(np.array([m.center for m in self.marks], np.float64))
        out = []
        for center, side in dice:
            hit = False
            for mark, xy in zip(self.marks, at):
                mark_side = mark.scale * die_px
                if mark.on_checker:
                    hit = (side >= CHECKER_SIZE * mark_side
                           and _checker_correlation(image_bgr, center, mark_side, mark) >= CHECKER_MATCH)
                elif np.hypot(xy[0] - center[0], xy[1] - center[1]) <= NEAR * max(side, mark_side):
                    hit = _correlation(image_bgr, (float(xy[0]), float(xy[1])), mark_side, mark.patch) >= MATCH
                if hit:
                    break
            out.append(hit)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"patch": 16, "marks": [{"x", "y", "scale", "grey"[, "on_checker"]}]}``,
        ``x``, ``y`` canonical field pixels, ``grey`` the patch's bytes in base64, row by row,
        ``on_checker`` true for a checker's mark (absent: false)."""
        return {"patch": PATCH, "marks": [
            {"x": round(float(m.center[0]), 2), "y": round(float(m.center[1]), 2), "scale": round(float(m.scale), 4),
             "grey": base64.b64encode(np.ascontiguousarray(m.patch, np.uint8).tobytes()).decode("ascii"),
             **({"on_checker": True} if m.on_checker else {})}
            for m in self.marks]}

    @classmethod
    def from_dict(cls, data: Any) -> "BoardMarks":
        """From :meth:`to_dict`'s form; raises :class:`BoardMarksError` with the reason."""
        try:
            if int(data["patch"]) != PATCH:
                raise BoardMarksError(f"board_marks patches must be {PATCH} pixels, got {data['patch']}: "
                                      "calibrate again")
            marks = []
            for m in data["marks"]:
                grey = np.frombuffer(base64.b64decode(m["grey"], validate=True), np.uint8)
                if grey.size != PATCH * PATCH:
                    raise BoardMarksError(f"a board mark's patch has {grey.size} bytes, not {PATCH * PATCH}")
                center, scale = (float(m["x"]), float(m["y"])), float(m["scale"])
                if not (np.isfinite(center).all() and np.isfinite(scale) and scale > 0):
                    raise BoardMarksError("a board mark's place or size is not a positive finite number")
                on_checker = m.get("on_checker", False)
                if not isinstance(on_checker, bool):
                    raise BoardMarksError("a board mark's on_checker must be true or false")
                marks.append(Mark(center, scale, grey.reshape(PATCH, PATCH).copy(), on_checker))
            return cls(tuple(marks))
        except BoardMarksError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise BoardMarksError(f"bad board_marks: {exc}") from None


def grey_patch(image_bgr: np.ndarray, center: tuple[float, float], side: float, pad: int = 0) -> np.ndarray:
    """(PATCH + 2 pad, PATCH + 2 pad) float32 grey crop of ``image_bgr`` ((H, W, 3) uint8 BGR)
    centred on ``center`` (image pixels) covering :data:`CONTEXT` times ``side`` pixels in its
    central :data:`PATCH` pixels (:func:`vision.dice_patches.crop_patch`); outside the image the
    border repeats."""
    import cv2

    from vision.dice_patches import crop_patch

    n = PATCH + 2 * pad
    crop = crop_patch(image_bgr, center, side, patch=n, context=CONTEXT * n / PATCH)
    return cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)


def _correlation(image_bgr: np.ndarray, center: tuple[float, float], side: float, patch: np.ndarray) -> float:
    """The best normalised cross-correlation of ``patch`` (a mark's) within :data:`SHIFT` times
    ``side`` of ``center`` in ``image_bgr``; -1 where the frame's spot is blank."""
    import cv2

    pad = max(int(round(SHIFT * PATCH / CONTEXT)), 1)
    spot = grey_patch(image_bgr, center, side, pad)
    if float(spot.std()) < MIN_CONTRAST / 2:
        return -1.0
    return float(cv2.matchTemplate(spot, patch.astype(np.float32), cv2.TM_CCOEFF_NORMED).max())


def _disc() -> np.ndarray:
    """(PATCH, PATCH) bool: the disc in the middle of a mark's patch that a checker's print is
    compared on (:data:`DISC` of the checker's radius)."""
    c = (PATCH - 1) / 2
    yy, xx = np.mgrid[0:PATCH, 0:PATCH]
    return np.hypot(yy - c, xx - c) <= DISC * PATCH / CONTEXT / 2


def _checker_correlation(image_bgr: np.ndarray, center: tuple[float, float], side: float, mark: Mark) -> float:
    """The best normalised cross-correlation between the disc in the middle of a checker's
    ``mark`` (:attr:`Mark.turned_discs`: turned by each of :data:`TURNS`; the checker ``side``
    image pixels wide) and the disc around ``center`` (image pixels) of ``image_bgr`` shifted by
    up to :data:`SHIFT` of ``side``; -1 where the frame's disc is blank."""
    pad = max(int(round(SHIFT * PATCH / CONTEXT)), 1)
    spot = grey_patch(image_bgr, center, side, pad)
    disc = _disc()
    n = 2 * pad + 1
    # every shift's disc of the frame, as rows: (n * n, pixels)
    windows = np.lib.stride_tricks.sliding_window_view(spot, (PATCH, PATCH))[:n, :n].reshape(n * n, PATCH, PATCH)
    s = windows[:, disc].astype(np.float64)
    s -= s.mean(axis=1, keepdims=True)
    s_norm = np.sqrt((s * s).sum(axis=1))
    if float(s_norm.max()) < MIN_CONTRAST / 2 * np.sqrt(disc.sum()):
        return -1.0
    return float(((s @ mark.turned_discs.T) / (s_norm[:, None] + 1e-9)).max())


def _same_place(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two readings of :func:`find_marks` (``x``, ``y``, ``side``: image pixels) lie at one
    place: within :data:`NEAR` of the larger side."""
    return bool(np.hypot(a["x"] - b["x"], a["y"] - b["y"]) < NEAR * max(a["side"], b["side"]))


def _same_spot(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two readings of :func:`find_marks` are of one thing: at one place
    (:func:`_same_place`), their sides within :data:`SAME_SIZE` of each other."""
    return _same_place(a, b) and max(a["side"], b["side"]) <= SAME_SIZE * min(a["side"], b["side"])


def find_marks(frames: Sequence[np.ndarray], field: Any, reader: Any, die_px: float,
               scales: Sequence[float] = SCALES,
               checkers: Sequence[tuple[float, float]] = ()) -> BoardMarks:
    """The die-like marks of the board registered as ``field`` in ``frames`` (each (H, W, 3)
    uint8 BGR: the calibration frame, and the empty board's when there is one, of one size).
    Each frame is scanned (:meth:`vision.dice.DiceReader.scan` of ``reader``, without its
    marks) for dice of the board's die (``die_px`` pixels, :func:`vision.dice_size.board_die_px`)
    times each of ``scales``; the candidates whose values together
    reach :data:`DIE_LIKE` (the cube's column not the likeliest) are grouped by place and size
    (:data:`SAME_SIZE`: a checker's print and a spot of it are two), and each group is a mark, at
    its most die-like reading, unless its place is read as a value at :data:`SURE` at
    :data:`SURE_AT` sizes or more (a die lying there), or its patch is blank
    (:data:`MIN_CONTRAST`). A mark may lie under the cube, which reads at some sizes as a die:
    :meth:`vision.dice.DiceReader.unmark` keeps the cube's reading. ``checkers``: the canonical
    field centres of the checkers of the first frame (the opening's, when calibration knows it);
    a mark within :data:`ON_CHECKER` of a checker's width of one, read at :data:`CHECKER_PRINT`
    of a checker's width or more, is ``on_checker``."""
    die = die_px
    marks: list[Mark] = []
    saved, reader.marks = getattr(reader, "marks", None), None
    try:
        for frame in frames:
            spots: list[dict[str, Any]] = []  # the most die-like reading of a place, and its sizes read surely
            for s in scales:
                cands, probs = reader.scan(frame, field, die * s)
                for c, p in zip(cands, probs):
                    values = p[:6]
                    if values.sum() < DIE_LIKE or np.argmax(p) == 7:
                        continue
                    x, y = c.outline_center or c.center
                    spot = next((sp for sp in spots if _same_spot({"x": x, "y": y, "side": c.size}, sp)), None)
                    if spot is None:
                        spot = {"x": x, "y": y, "side": c.size, "best": -1.0, "sure": set()}
                        spots.append(spot)
                    if values.max() >= SURE:
                        spot["sure"].add(s)
                    if values.sum() > spot["best"]:
                        spot.update(x=x, y=y, side=c.size, best=float(values.sum()))
            kept: list[dict[str, Any]] = []  # a thing read at several sizes is one spot, its most die-like reading
            for sp in sorted(spots, key=lambda sp: -sp["best"]):
                same = next((k for k in kept if _same_spot(sp, k)), None)
                if same is None:
                    kept.append(sp)
                else:
                    same["sure"] |= sp["sure"]
            for sp in kept:
                # a die lying there, read surely at several sizes, however it was boxed at each
                sure = set().union(*(k["sure"] for k in kept if _same_place(sp, k)))
                if len(sure) >= SURE_AT:
                    continue
                grey = grey_patch(frame, (sp["x"], sp["y"]), sp["side"])
                if float(grey.std()) < MIN_CONTRAST:
                    continue
                fx, fy = field.to_field(np.array([[sp["x"], sp["y"]]], np.float64))[0]
                cw = field.checker_size[0]
                ends = field.to_image(np.array([[fx - cw / 2, fy], [fx + cw / 2, fy]], np.float64))
                on_checker = (frame is frames[0] and sp["side"] >= CHECKER_PRINT * float(np.linalg.norm(ends[1] - ends[0]))
                              and any(np.hypot(fx - cx, fy - cy) <= ON_CHECKER * cw for cx, cy in checkers))
                marks.append(Mark((float(fx), float(fy)), float(sp["side"] / die),
                                  np.clip(np.round(grey), 0, 255).astype(np.uint8), on_checker))
    finally:
        reader.marks = saved
    return BoardMarks(tuple(marks))

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
"""

from __future__ import annotations

import base64
import dataclasses
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


class BoardMarksError(ValueError):
    """A profile's ``board_marks`` that cannot be read."""


@dataclasses.dataclass(frozen=True, eq=False)
class Mark:
    """One spot of the board that looks like a die: ``center`` canonical field pixels (x, y),
    ``scale`` its side over the board's die (:func:`vision.dice_size.board_die_px`), ``patch``
    (:data:`PATCH`, :data:`PATCH`) uint8 grey, :data:`CONTEXT` times its side."""

    center: tuple[float, float]
    scale: float
    patch: np.ndarray


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
        side). The marks are placed in the image once for all of ``dice``."""
        if not self.marks or not dice:
            return [False] * len(dice)
        at = field.to_image(np.array([m.center for m in self.marks], np.float64))
        out = []
        for center, side in dice:
            hit = False
            for mark, xy in zip(self.marks, at):
                mark_side = mark.scale * die_px
                if np.hypot(xy[0] - center[0], xy[1] - center[1]) > NEAR * max(side, mark_side):
                    continue
                if _correlation(image_bgr, (float(xy[0]), float(xy[1])), mark_side, mark.patch) >= MATCH:
                    hit = True
                    break
            out.append(hit)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"patch": 16, "marks": [{"x", "y", "scale", "grey"}]}``, ``x``, ``y``
        canonical field pixels, ``grey`` the patch's bytes in base64, row by row."""
        return {"patch": PATCH, "marks": [
            {"x": round(float(m.center[0]), 2), "y": round(float(m.center[1]), 2), "scale": round(float(m.scale), 4),
             "grey": base64.b64encode(np.ascontiguousarray(m.patch, np.uint8).tobytes()).decode("ascii")}
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
                marks.append(Mark(center, scale, grey.reshape(PATCH, PATCH).copy()))
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


def find_marks(frames: Sequence[np.ndarray], field: Any, reader: Any, die_px: float,
               scales: Sequence[float] = SCALES) -> BoardMarks:
    """The die-like marks of the board registered as ``field`` in ``frames`` (each (H, W, 3)
    uint8 BGR: the calibration frame, and the empty board's when there is one, of one size).
    Each frame is scanned (:meth:`vision.dice.DiceReader.scan` of ``reader``, without its
    marks) for dice of the board's die (``die_px`` pixels, :func:`vision.dice_size.board_die_px`)
    times each of ``scales``; the candidates whose values together
    reach :data:`DIE_LIKE` (the cube's column not the likeliest) are grouped by place, and each
    place is a mark, at its most die-like reading, unless it is read as a value at :data:`SURE`
    at :data:`SURE_AT` sizes or more (a die lying there), or its patch is blank
    (:data:`MIN_CONTRAST`). A mark may lie under the cube, which reads at some sizes as a die:
    :meth:`vision.dice.DiceReader.unmark` keeps the cube's reading."""
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
                    spot = next((sp for sp in spots
                                 if np.hypot(x - sp["x"], y - sp["y"]) < NEAR * max(c.size, sp["side"])), None)
                    if spot is None:
                        spot = {"x": x, "y": y, "side": c.size, "best": -1.0, "sure": set()}
                        spots.append(spot)
                    if values.max() >= SURE:
                        spot["sure"].add(s)
                    if values.sum() > spot["best"]:
                        spot.update(x=x, y=y, side=c.size, best=float(values.sum()))
            kept: list[dict[str, Any]] = []  # a place read at several sizes is one spot, its most die-like reading
            for sp in sorted(spots, key=lambda sp: -sp["best"]):
                same = next((k for k in kept
                             if np.hypot(sp["x"] - k["x"], sp["y"] - k["y"]) < NEAR * max(sp["side"], k["side"])), None)
                if same is None:
                    kept.append(sp)
                else:
                    same["sure"] |= sp["sure"]
            for sp in kept:
                if len(sp["sure"]) >= SURE_AT:
                    continue
                grey = grey_patch(frame, (sp["x"], sp["y"]), sp["side"])
                if float(grey.std()) < MIN_CONTRAST:
                    continue
                fx, fy = field.to_field(np.array([[sp["x"], sp["y"]]], np.float64))[0]
                marks.append(Mark((float(fx), float(fy)), float(sp["side"] / die),
                                  np.clip(np.round(grey), 0, 255).astype(np.uint8)))
    finally:
        reader.marks = saved
    return BoardMarks(tuple(marks))

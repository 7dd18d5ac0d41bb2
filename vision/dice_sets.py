"""Whose dice: the two players' sets of dice told apart by colour (a board profile's ``dice_sets``).

Each player often has a cup and a pair of dice of his own colour; the pair not being rolled may
lie in view (on the rail, in a tray, beside the board). Which set belongs to whom is part of the
board profile: the body colour of the dice of the player sitting at the bottom of the
image and of the one at the top, OpenCV 8-bit Lab. Every die read is given the ``owner`` whose
colour is nearer (:func:`with_owners`); the referee then takes the roll from the roller's set only
and leaves the other set's dice alone (they are not the roll, and not cocked where they lie).

``companion calibrate ... --learn-dice`` learns the two colours from a frame with each player's
dice on his own side of the board (:func:`learn_dice_sets`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, Optional, Sequence

import numpy as np

from companion.observation import DieReading

Side = Literal["bottom", "top"]
#: Weights of (L, a, b) in the colour distance: a shadow or a lamp changes a die's lightness far
#: more than its hue, so lightness counts half.
LAB_WEIGHTS = (0.5, 1.0, 1.0)
#: Two sets closer than this (weighted OpenCV 8-bit Lab units) cannot be told apart: white and
#: ivory dice differ by about 15 in b, white and red by over 60 in a.
MIN_APART = 12.0
#: The central part of a die's box whose colour is measured (a fraction of its side): the box
#: frames the die's outline, its corners may hold the board.
INNER = 0.6


class DiceSetsError(ValueError):
    """Dice sets that cannot be learned or read (a side without dice, sets alike, bad numbers)."""


@dataclasses.dataclass(frozen=True)
class DiceSets:
    """The body colours (OpenCV 8-bit Lab ``(L, a, b)``, each 0..255) of the dice of the player
    at the ``bottom`` of the image and of the one at the ``top``."""

    bottom: tuple[float, float, float]
    top: tuple[float, float, float]

    def __post_init__(self) -> None:
        for side in ("bottom", "top"):
            lab = getattr(self, side)
            if len(lab) != 3 or not all(np.isfinite(v) and 0 <= v <= 255 for v in lab):
                raise DiceSetsError(f"dice set {side}: three Lab values 0..255 expected, got {list(lab)}")
        apart = colour_distance(self.bottom, self.top)
        if apart < MIN_APART:
            raise DiceSetsError(f"the two sets of dice look alike (colour distance {apart:.1f}, at least "
                                f"{MIN_APART:g} needed): they cannot be told apart by colour")

    def owner(self, lab: Sequence[float]) -> Side:
        """``"bottom"`` or ``"top"``: the set whose colour is nearer the die colour ``lab``."""
        return "bottom" if colour_distance(lab, self.bottom) <= colour_distance(lab, self.top) else "top"

    def to_dict(self) -> dict[str, list[float]]:
        """``{"bottom": [L, a, b], "top": [L, a, b]}`` (OpenCV 8-bit Lab), as in a profile."""
        return {"bottom": [round(float(v), 1) for v in self.bottom], "top": [round(float(v), 1) for v in self.top]}

    @classmethod
    def from_dict(cls, data: Any) -> "DiceSets":
        """Inverse of :meth:`to_dict`; raises :class:`DiceSetsError` on bad data."""
        try:
            bottom = tuple(float(v) for v in data["bottom"])
            top = tuple(float(v) for v in data["top"])
        except (KeyError, TypeError, ValueError) as exc:
            raise DiceSetsError(f"bad dice_sets (expected {{\"bottom\": [L, a, b], \"top\": [L, a, b]}}): {exc}") from None
        return cls(bottom, top)  # type: ignore[arg-type]


def colour_distance(a: Sequence[float], b: Sequence[float]) -> float:
    """Weighted Euclidean distance (:data:`LAB_WEIGHTS`) of two OpenCV 8-bit Lab colours."""
    d = (np.asarray(a, float) - np.asarray(b, float)) * LAB_WEIGHTS
    return float(np.sqrt((d * d).sum()))


def die_colour(image_bgr: np.ndarray, die: DieReading) -> Optional[tuple[float, float, float]]:
    """The body colour of ``die`` in ``image_bgr`` ((H, W, 3) uint8 BGR): the per-channel median,
    OpenCV 8-bit Lab, of the central :data:`INNER` of its box (pips cover less than half of a
    face, so the median is the body's). ``None`` when the die has no box or it lies outside the
    image."""
    import cv2

    if die.box is None:
        return None
    x0, y0, x1, y1 = die.box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    half = max(INNER * max(x1 - x0, y1 - y0) / 2, 1.0)
    h, w = image_bgr.shape[:2]
    c0, c1 = int(max(round(cx - half), 0)), int(min(round(cx + half) + 1, w))
    r0, r1 = int(max(round(cy - half), 0)), int(min(round(cy + half) + 1, h))
    if c1 <= c0 or r1 <= r0:
        return None
    lab = cv2.cvtColor(np.ascontiguousarray(image_bgr[r0:r1, c0:c1]), cv2.COLOR_BGR2LAB).reshape(-1, 3)
    m = np.median(lab, axis=0)
    return (float(m[0]), float(m[1]), float(m[2]))


def with_owners(image_bgr: np.ndarray, dice: Sequence[DieReading], sets: Optional[DiceSets]) -> list[DieReading]:
    """``dice`` with ``owner`` set to the side (``"bottom"``/``"top"``) of the set each die's colour
    (:func:`die_colour`) is nearer; unchanged (owner ``None``) without ``sets`` or for a die
    whose colour cannot be measured. ``image_bgr``: (H, W, 3) uint8 BGR."""
    if sets is None:
        return list(dice)
    out = []
    for d in dice:
        lab = die_colour(image_bgr, d)
        out.append(d if lab is None else dataclasses.replace(d, owner=sets.owner(lab)))
    return out


def image_side(center: tuple[float, float], field: Any = None, image_size: Optional[tuple[int, int]] = None) -> Side:
    """``"bottom"`` or ``"top"``: the image half (of the registered ``field``'s middle, else of the
    image's height ``image_size`` ``(width, height)``) holding image pixel ``center``.
    Raises ``ValueError`` when neither is given."""
    if field is not None:
        mid = field.to_image(np.array([[field.size[0] / 2, field.size[1] / 2]], dtype=np.float64))[0][1]
    elif image_size is not None:
        mid = image_size[1] / 2
    else:
        raise ValueError("image_side needs a field or the image size")
    return "top" if center[1] < mid else "bottom"


def learn_dice_sets(image_bgr: np.ndarray, dice: Sequence[DieReading], field: Any = None) -> DiceSets:
    """The two sets' colours from a frame ((H, W, 3) uint8 BGR) where each player's dice lie on his
    own side: the median colour (:func:`die_colour`) of the ``dice`` in the bottom half of the
    board (:func:`image_side`; the image's without a ``field``) and of those in the top half.
    Raises :class:`DiceSetsError` when a half holds no die, or the two colours are alike."""
    h, w = image_bgr.shape[:2]
    found: dict[str, list[tuple[float, float, float]]] = {"bottom": [], "top": []}
    for d in dice:
        lab = die_colour(image_bgr, d)
        if lab is not None:
            found[image_side(d.center, field, (w, h))].append(lab)
    missing = [side for side, labs in found.items() if not labs]
    if missing:
        raise DiceSetsError(f"no die seen in the {' and '.join(missing)} half: put each player's dice on his own "
                            f"side of the board to learn the two sets ({len(dice)} dice seen)")
    bottom, top = (tuple(float(v) for v in np.median(np.array(found[s]), axis=0)) for s in ("bottom", "top"))
    return DiceSets(bottom, top)  # type: ignore[arg-type]


"""Front faces of dice seen at an angle: a side face is not the roll.

A die photographed from the side shows its top face and, below it in the image, the face turned
to the camera. Only the top face counts (DESIGN.md), but a front face has pips too, and a reader
of patches reads it as a second die below the first, or, when the top face is a one (a single
pip, weak beside the front face's pips), as the die itself.

The two faces are told apart by their pips. A face's round pips are seen as ellipses squashed
along the camera's line of sight: a top face's by sin(elevation), a front face's by
cos(elevation); faces seen from straight above have round pips. A reading is a front face when

* its pips, counted as its value, are squashed (:data:`FLAT`), and
* the die's top face lies just above it: a reading whose own pips are counted as its value,
  squashed too (:data:`ABOVE`) and at right angles to it (:data:`PERPENDICULAR`: two dice one
  behind the other are squashed alike), its pips 0.3-1.3 sides higher and within half a side
  across; or, with no reading there, a single pip that the classifier, re-reading it, calls a
  one (:func:`top_face_above`).

A reading that took in a one's pip and the front face below it together (its uppermost pip
clearly the roundest, the others squashed) becomes the one when the classifier, re-reading the
pip, calls it a one (:func:`one_in_view`).

So the rule acts on dice seen from about 37 to 58 degrees of elevation and leaves top-down
photos alone. Measured on both folds of the labelled photos, each read by models that never
saw it (vision/models/README.md): all 8 false dice of matteop65 were front faces (6 read
beside their die are dropped; 2 dice read as their front face are read as the ones they show), no
true die lost; nell-byler's and the board photos' readings do not change. matteop65 read by
models trained without it (a proxy for dice and cameras no model saw): 13 front faces dropped or
read as their ones, no true die lost.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable, Optional, Sequence

import numpy as np

from companion.observation import DieReading
from vision.pips import Face, Pip, face_pips, read_face

#: a face whose pips' median minor/major axis ratio is in this range is seen at an angle
FLAT = (0.35, 0.8)
#: the face above must have pips at most this round (it is seen at the same angle)
ABOVE = 0.85
#: where the die's top face may lie, in sides of the lower reading's box: up, and across
REACH_UP = (0.5, 1.3)
REACH_ACROSS = 0.5
#: the two faces of one die are about as wide: boxes' sides at most this many times apart
SIDE_RATIO = 2.0
#: faces at right angles: their roundness squared sums to at most this (sin^2 + cos^2 = 1)
PERPENDICULAR = 1.05
#: a front face's pips lie this far below its top face's, in sides
PIP_REACH = (0.3, 1.3)
#: a one's pip, read together with its front face, is rounder than that face's pips by this
ONE_ROUNDER = 0.1
#: where a one's pip is searched above a front face, in sides above its centre
ONE_ABOVE = 0.75


def one_die(top: Face, front: Face, side: float, perpendicular: bool = True) -> bool:
    """True when ``front`` can be the front face of the die whose top face is ``top`` (faces of a
    die of ``side`` pixels): ``front`` seen at an angle (roundness in :data:`FLAT`), ``top`` too
    (from ``FLAT[0]`` to :data:`ABOVE`), the two at right angles (roundness squared summing to at most
    :data:`PERPENDICULAR`: sin^2 + cos^2 of the camera's elevation; two flat dice, one behind the
    other, sum to 2 sin^2, more beyond 45 degrees of elevation), and ``front``'s pips
    :data:`PIP_REACH` below ``top``'s, within :data:`REACH_ACROSS` across. ``perpendicular``:
    False skips the right-angle test (a lone one above a face: no second die is in question)."""
    if not (FLAT[0] <= front.roundness <= FLAT[1] and FLAT[0] <= top.roundness <= ABOVE):
        return False
    if perpendicular and top.roundness ** 2 + front.roundness ** 2 > PERPENDICULAR:
        return False
    dx, dy = front.center[0] - top.center[0], front.center[1] - top.center[1]
    return abs(dx) < REACH_ACROSS * side and PIP_REACH[0] * side < dy < PIP_REACH[1] * side


def is_below(lower: DieReading, upper: DieReading) -> bool:
    """True when ``upper``'s centre lies where the top face of ``lower``'s die would, were
    ``lower`` a front face: :data:`REACH_UP` sides higher, within :data:`REACH_ACROSS` across
    (sides: the larger of the two boxes'), the boxes' sides at most :data:`SIDE_RATIO` apart."""
    s, t = max(_side(lower), _side(upper)), min(_side(lower), _side(upper))
    if s > SIDE_RATIO * t:
        return False
    dx, dy = lower.center[0] - upper.center[0], lower.center[1] - upper.center[1]
    return abs(dx) < REACH_ACROSS * s and REACH_UP[0] * s < dy < REACH_UP[1] * s


def top_face_above(image_bgr: np.ndarray, die: DieReading, front: Face,
                   read_one: Callable[[tuple[float, float], float], Optional[float]],
                   pips: Callable[..., list[Pip]] = face_pips) -> Optional[DieReading]:
    """The one whose front face ``die`` (read as ``front``) is, or None.

    The pip of a one is searched (:func:`vision.top_face.pip_centre`) :data:`ONE_ABOVE` sides
    above ``die``'s centre and must make one die with ``front`` (:func:`one_die`, without the
    right-angle test: pips of one pixel-blurred blob are measured rounder than they are);
    ``read_one(center, side)`` re-reads the die there and returns the probability of a one, or
    None when the re-read is not a one. The returned reading is a one at that pip with that
    probability as its confidence and ``die``'s box.
    """
    from vision.top_face import pip_centre

    side = _side(die)
    at = pip_centre(image_bgr, (die.center[0], die.center[1] - ONE_ABOVE * side), side)
    if at is None:
        return None
    # the one's pip; the front face's upper pips may lie within the search too
    near = [q for q in pips(image_bgr, at, side) if math.dist(q.center, at) < 0.15 * side]
    if len(near) != 1:
        return None
    top = Face(pips=(near[0],), roundness=near[0].roundness, center=near[0].center)
    if not one_die(top, front, side, perpendicular=False):
        return None
    p = read_one(at, side)
    if p is None:
        return None
    return dataclasses.replace(die, value=1, center=at, confidence=float(p))


def one_in_view(image_bgr: np.ndarray, die: DieReading,
                read_one: Callable[[tuple[float, float], float], Optional[float]],
                pips: Callable[..., list[Pip]] = face_pips) -> Optional[DieReading]:
    """The one whose top face and front face ``die`` (value 2..6) was read from together, or None.

    Of the pips around ``die`` (:func:`vision.pips.face_pips`), the uppermost must be the roundest
    by at least :data:`ONE_ROUNDER`, and the others, squashed (median roundness in :data:`FLAT`),
    must lie :data:`PIP_REACH` below it: a one's pip on top, a front face's pips below.
    ``read_one`` as in :func:`top_face_above`; the returned reading is a one at that pip.
    """
    side = _side(die)
    found = pips(image_bgr, die.center, side)
    if len(found) < 2:
        return None
    top = min(found, key=lambda q: q.center[1])
    rest = [q for q in found if q is not top]
    if top.roundness < max(q.roundness for q in rest) + ONE_ROUNDER:
        return None
    if not FLAT[0] <= float(np.median([q.roundness for q in rest])) <= FLAT[1]:
        return None
    dy = float(np.mean([q.center[1] for q in rest])) - top.center[1]
    if not PIP_REACH[0] * side < dy < PIP_REACH[1] * side:
        return None
    p = read_one(top.center, side)
    if p is None:
        return None
    return dataclasses.replace(die, value=1, center=top.center, confidence=float(p))


def drop_front_faces(image_bgr: np.ndarray, dice: Sequence[DieReading],
                     read_one: Callable[[tuple[float, float], float], Optional[float]],
                     pips: Callable[..., list[Pip]] = face_pips) -> list[DieReading]:
    """``dice`` (readings of ``image_bgr``, (H, W, 3) uint8 BGR) with front faces removed: a
    reading (a front face may show a one) that makes one die with a reading above it
    (:func:`is_below`, both read by their pips, :func:`read_face`, :func:`one_die`) is dropped; a
    reading of 2..6 with no reading above it becomes the one above it when there is one
    (:func:`top_face_above`, ``read_one`` as there) or the one it took in with its front face
    (:func:`one_in_view`). ``pips``: :func:`vision.pips.face_pips` or a memo of it for this image
    (:func:`vision.pips.pips_memo`). Order kept. Raises ``ValueError`` for a reading without a box.
    """
    dice = list(dice)
    faces: dict[int, Optional[Face]] = {}

    def face(k: int) -> Optional[Face]:
        if k not in faces:
            faces[k] = read_face(image_bgr, dice[k].center, _side(dice[k]), dice[k].value, pips)
        return faces[k]

    out = []
    for k, die in enumerate(dice):
        above = [j for j, d in enumerate(dice) if j != k and is_below(die, d)]
        # a one is only ever dropped as a front face, never re-read as another one
        if die.value < 2 and not above:
            out.append(die)
            continue
        front = face(k)
        one = None
        if front is not None and FLAT[0] <= front.roundness <= FLAT[1]:
            side = _side(die)
            if any(face(j) is not None and one_die(face(j), front, max(side, _side(dice[j]))) for j in above):
                continue
            one = None if above or die.value < 2 else top_face_above(image_bgr, die, front, read_one, pips)
        if one is None and not above and die.value >= 2:
            one = one_in_view(image_bgr, die, read_one, pips)
        out.append(one or die)
    return out


def _side(die: DieReading) -> float:
    if die.box is None:
        raise ValueError("a die reading without a box has no side")
    return float(die.box[2] - die.box[0])

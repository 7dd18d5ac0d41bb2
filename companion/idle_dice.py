"""Dice lying idle off the playing field: on the rail, in a tray, beside the board.

Players often leave their pair on the rail between turns instead of in the cup.
Such a pair is not a roll: the referee remembers the dice that lie off the
playing field when a phase begins (a roll is awaited, a play starts, a game
starts) and leaves them out for as long as they stay where they are. A die that
leaves its spot stops being idle; a die that arrives off the field during the
phase (a roll that left the board) is judged as usual (USBGF rules 2017: a die
off the board is cocked). Standard library only.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

from companion.observation import DieReading

# a die without a box (readings that give only a centre) is matched within this
# many pixels; with a box, within half its side
SPOT_PX = 10.0


def off_field(dice: Iterable[DieReading]) -> tuple[DieReading, ...]:
    """The dice off the playing field (``half`` None: on the rail, in a tray,
    beside the board)."""
    return tuple(d for d in dice if d.half is None)


def same_spot(a: DieReading, b: DieReading) -> bool:
    """True when ``a`` and ``b`` are one die lying still: the same set (``owner``),
    centres (image pixels) closer than half the larger die's side (its box), or
    :data:`SPOT_PX` without boxes. The value is not compared: a die at rest does not
    change its face, so a different value there is a misreading."""
    if a.owner != b.owner:
        return False
    sides = [max(d.box[2] - d.box[0], d.box[3] - d.box[1]) for d in (a, b) if d.box is not None]
    reach = max(sides) / 2 if sides else SPOT_PX
    return math.dist(a.center, b.center) < reach


def still_lying(idle: Sequence[DieReading], dice: Sequence[DieReading]) -> tuple[DieReading, ...]:
    """The dice of ``idle`` that still lie where they were among ``dice`` (an
    observation's dice); the others were picked up or moved."""
    off = off_field(dice)
    return tuple(d for d in idle if any(same_spot(d, e) for e in off))


def without_idle(dice: Sequence[DieReading], idle: Sequence[DieReading]) -> tuple[DieReading, ...]:
    """``dice`` without those lying at an ``idle`` die's spot off the field."""
    if not idle:
        return tuple(dice)
    return tuple(d for d in dice if d.half is not None or not any(same_spot(d, i) for i in idle))

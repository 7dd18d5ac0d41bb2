"""Idle dice: dice lying still that are not part of the roll being judged.

Two kinds, both common at a real table:

- a pair left off the playing field (on the rail, in a tray, beside the board)
  between turns instead of in the cup: the referee remembers the dice lying off
  the field when a phase begins (a roll is awaited, a play starts, a game starts);
- the previous turn's dice, still lying in the mover's right-hand board when the
  opponent rolls (or doubles) before they are picked up: a premature action that
  stands if otherwise valid (US Backgammon rules 2008, 4.6 "Premature actions";
  4.5: a turn ends when the player lifts his dice).

An idle die stays idle for as long as it lies where it was; a die that leaves its
spot stops being idle. A die that arrives during the phase (a roll that left the
board) is judged as usual (USBGF rules 2017: a die off the board is cocked).
Standard library only.
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


def lying_where(dice: Sequence[DieReading], spots: Sequence[DieReading]) -> tuple[DieReading, ...]:
    """The dice of ``dice`` lying where a die of ``spots`` lies (:func:`same_spot`)."""
    return tuple(d for d in dice if any(same_spot(d, s) for s in spots))


def with_idle(idle: Sequence[DieReading], more: Sequence[DieReading]) -> tuple[DieReading, ...]:
    """``idle`` and the dice of ``more`` at spots it does not hold yet."""
    return tuple(idle) + tuple(d for d in more if not any(same_spot(d, i) for i in idle))


def without_idle(dice: Sequence[DieReading], idle: Sequence[DieReading]) -> tuple[DieReading, ...]:
    """``dice`` without those lying at an ``idle`` die's spot."""
    if not idle:
        return tuple(dice)
    return tuple(d for d in dice if not any(same_spot(d, i) for i in idle))

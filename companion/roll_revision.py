"""A roll read again where its dice still lie.

A die at rest keeps its face, so while the dice of a roll lie where they were rolled, a later,
surer reading of a die at the same spot is a better reading of the same roll: the first still
frame after a throw may catch a die read unsurely (a jumbo 2 read as a 1 at 0.7 before the dice's
size is learned), and the play made with the true roll would then be judged against the wrong one.
A later frame that reads such a die surely with the value it was read at confirms it
(:func:`confirmed_readings`): the die is then no longer unsure. When no later frame reads it
surely, the play itself tells: a play illegal for the roll as read
but legal were an unsurely read die another value (:func:`other_readings`) is no illegal play the
referee can be sure of. Standard library only.
"""

from __future__ import annotations

from typing import Optional, Sequence

from companion.idle_dice import same_spot
from companion.observation import DieReading

__all__ = ["ALTERNATIVE", "SURE_DIE", "confirmed_readings", "other_readings", "revised_readings"]

#: A die read at this confidence or more is sure: a roll's die read below it is read again while
#: it lies there, and only a reading at least this sure replaces it.
SURE_DIE = 0.9
#: A die read unsurely may show another value only when the reader gave that value at least this
#: probability (where the reading carries its values' probabilities, ``DieReading.values``). On
#: the training fold's real dice pasted on the real board photos
#: (``benchmarks/real_dice_on_boards.py --fold 1``), the 2 of 196 dice read below 0.9 with a
#: wrong value gave the true one 0.068 and 0.186, while the dice read rightly below 0.9 gave 0.72
#: other values this much or more on the mean (every other value, five, without the floor);
#: rendered game 1483's jumbo 2 read as a 1 gave the 2 0.18-0.22.
ALTERNATIVE = 0.05


def _read_again(roll: Sequence[DieReading], dice_now: Sequence[DieReading], sure: float,
                same_value: bool) -> Optional[tuple[DieReading, ...]]:
    """``roll`` with each die read below ``sure`` replaced by the one die of ``dice_now`` lying at
    its spot (:func:`companion.idle_dice.same_spot`), flat and read at ``sure`` or more, whose
    value is the same (``same_value``) or another; None when no die is replaced."""
    out = list(roll)
    changed = False
    for i, old in enumerate(roll):
        if old.confidence >= sure:
            continue
        here = [d for d in dice_now if same_spot(d, old)]
        if (len(here) == 1 and not here[0].cocked and here[0].confidence >= sure
                and (here[0].value == old.value) == same_value):
            out[i] = here[0]
            changed = True
    return tuple(out) if changed else None


def revised_readings(roll: Sequence[DieReading], dice_now: Sequence[DieReading],
                     sure: float = SURE_DIE) -> Optional[tuple[DieReading, ...]]:
    """The readings of the roll ``roll`` (its dice as read when it was taken, in the roll's
    order) with each die read below ``sure`` replaced by the one die of ``dice_now`` (the dice of
    a later still frame) lying at its spot (:func:`companion.idle_dice.same_spot`), flat, read
    at ``sure`` or more with another value; None when no die is replaced. A spot with two dice
    of ``dice_now`` on it, or a die now read as cocked, replaces nothing."""
    return _read_again(roll, dice_now, sure, same_value=False)


def confirmed_readings(roll: Sequence[DieReading], dice_now: Sequence[DieReading],
                       sure: float = SURE_DIE) -> Optional[tuple[DieReading, ...]]:
    """The readings of the roll ``roll`` with each die read below ``sure`` replaced by the one
    die of ``dice_now`` lying at its spot, flat, read at ``sure`` or more with the same value:
    the value confirmed where the die still lies, so :func:`other_readings` no longer offers it
    another (a red 1 on a dark red point read at 0.80 on the frame of the roll and at 0.91 on the
    next). None when no die is confirmed; the roll's values never change here."""
    return _read_again(roll, dice_now, sure, same_value=True)


def other_readings(roll: Sequence[DieReading], sure: float = SURE_DIE,
                   alternative: float = ALTERNATIVE) -> list[tuple[int, int]]:
    """The rolls that the two dice ``roll`` (readings in the roll's order) may show other than
    as read: each die read below ``sure`` with each of its other values that the reader gave
    ``alternative`` or more (every other value when the reading carries no probabilities,
    ``DieReading.values`` empty), the other die as read, then (when both are unsure) both
    changed; values in the roll's order. Empty when both dice were read surely or ``roll`` is
    not two dice."""
    if len(roll) != 2:
        return []
    read = (roll[0].value, roll[1].value)
    unsure = [i for i, d in enumerate(roll) if d.confidence < sure]

    def others(i: int) -> list[int]:
        values = roll[i].values
        return [v for v in range(1, 7) if v != read[i] and (len(values) != 6 or values[v - 1] >= alternative)]

    out: list[tuple[int, int]] = []
    for i in unsure:
        out += [(v, read[1]) if i == 0 else (read[0], v) for v in others(i)]
    if len(unsure) == 2:
        out += [(a, b) for a in others(0) for b in others(1)]
    return out

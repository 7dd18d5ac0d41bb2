"""A roll read again where its dice still lie.

A die at rest keeps its face, so while the dice of a roll lie where they were rolled, a later,
surer reading of a die at the same spot is a better reading of the same roll: the first still
frame after a throw may catch a die read unsurely (a jumbo 2 read as a 1 at 0.7 before the dice's
size is learned), and the play made with the true roll would then be judged against the wrong one.
Standard library only.
"""

from __future__ import annotations

from typing import Optional, Sequence

from companion.idle_dice import same_spot
from companion.observation import DieReading

__all__ = ["SURE_DIE", "revised_readings"]

#: A die read at this confidence or more is sure: a roll's die read below it is read again while
#: it lies there, and only a reading at least this sure replaces it.
SURE_DIE = 0.9


def revised_readings(roll: Sequence[DieReading], dice_now: Sequence[DieReading],
                     sure: float = SURE_DIE) -> Optional[tuple[DieReading, ...]]:
    """The readings of the roll ``roll`` (its dice as read when it was taken, in the roll's
    order) with each die read below ``sure`` replaced by the one die of ``dice_now`` (the dice of
    a later still frame) lying at its spot (:func:`companion.idle_dice.same_spot`), flat, read
    at ``sure`` or more with another value; None when no die is replaced. A spot with two dice
    of ``dice_now`` on it, or a die now read as cocked, replaces nothing."""
    out = list(roll)
    changed = False
    for i, old in enumerate(roll):
        if old.confidence >= sure:
            continue
        here = [d for d in dice_now if same_spot(d, old)]
        if len(here) == 1 and not here[0].cocked and here[0].confidence >= sure and here[0].value != old.value:
            out[i] = here[0]
            changed = True
    return tuple(out) if changed else None

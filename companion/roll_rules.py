"""Whether a die at rest counts: the tournament rules for a roll.

Dice must come to rest flat in the roller's right-hand board; otherwise they are
cocked and both dice are rolled again. Whether a die resting flat on a checker is
cocked differs between rule sets (older rules: cocked; USBGF 2017: fine), so it
is a setting (:data:`companion.referee_settings.DIE_ON_CHECKER`). A reason is a
dict ``{"code", "message"}``, as :class:`companion.events.CockedDiceEvent` carries
it. Standard library only.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from companion.observation import DieReading
from companion.table import right_half

__all__ = ["cocked_reason", "one_die_reason"]


def cocked_reason(die: DieReading, roller: Optional[int], die_on_checker: str) -> Optional[dict[str, str]]:
    """Why ``die`` is no good for ``roller`` (player 0 or 1; ``None`` in the opening
    roll, where the half names the owner), or ``None`` for a good die.
    ``die_on_checker``: ``"flat_ok"`` or ``"cocked"``. Codes: ``off_board`` (not on
    the playing field), the reading's own reason (``tilted`` and the like),
    ``on_checker``, ``wrong_half`` (not in the roller's right-hand board)."""
    if die.cocked and die.reason == "wrong_half":
        # the dice reading judged the half for the roller it was told; the
        # referee knows who rolls now and applies the rule itself (below)
        die = dataclasses.replace(die, cocked=False, reason=None, message=None)
    if die.half is None:
        return {"code": "off_board", "message": f"the {die.value} is off the playing field"}
    if die.cocked and not (die.reason == "on_checker" and die_on_checker == "flat_ok"):
        return {"code": die.reason or "tilted", "message": die.message or f"the {die.value} is not flat"}
    if not die.cocked and die.reason == "on_checker" and die_on_checker == "cocked":
        return {"code": "on_checker", "message": f"the {die.value} rests on a checker"}
    if roller is not None and die.half != right_half(roller):
        return {"code": "wrong_half", "message": f"the {die.value} is not in the roller's right-hand board"}
    return None


def one_die_reason(die: DieReading) -> dict[str, str]:
    """The reason for a roll that rests (the board still, no hand over it) with one
    die in view: both dice leave the cup together, so the other is off the board,
    or leaning or hidden where the camera cannot read it. Off the board is cocked
    (USBGF rules 2017: both dice must come to rest flat on the board), so the
    referee asks for the roll again (code ``die_not_seen``); when both lie flat and the
    players play, the referee takes the other die from the play (``Referee._one_die_played``)."""
    return {"code": "die_not_seen",
            "message": f"only the {die.value} is seen: a die off the board or not flat is cocked; "
                       "roll both dice again (if both lie flat, play: the play shows the other die)"}

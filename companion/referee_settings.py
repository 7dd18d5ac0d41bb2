"""The referee's settings and the phases it waits in.

:class:`RefereeSettings` holds the tournament choices (illegal-play policy, a die
resting on a checker, teaching or tournament mode, the table layout); :class:`Phase`
names what the referee waits for. Standard library only.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Optional

from companion.table import TableLayout

__all__ = ["POLICIES", "DIE_ON_CHECKER", "MODES", "RefereeError", "RefereeSettings", "Phase"]

#: Illegal-play policies: the player must put an illegal play right, or the opponent may accept it.
POLICIES = ("mandatory_correction", "opponent_option")
#: Whether a die resting flat on a checker counts (USBGF 2017) or is cocked (older rules).
DIE_ON_CHECKER = ("flat_ok", "cocked")
#: Teaching (hints and pip counts shown) or tournament.
MODES = ("teaching", "tournament")


class RefereeError(ValueError):
    """A request the referee cannot honour now (bad dice, no pending resignation, ...)."""


@dataclasses.dataclass(frozen=True)
class RefereeSettings:
    """``illegal_play_policy``: ``"mandatory_correction"`` (the player must put
    an illegal play right) or ``"opponent_option"`` (the opponent may accept it
    by rolling or doubling). ``die_on_checker``: ``"flat_ok"`` (USBGF 2017: a
    die resting flat on a checker counts) or ``"cocked"`` (older rules).
    ``mode``: ``"teaching"`` (hints and pip counts shown) or ``"tournament"``.
    ``layout``: who plays which colour, or ``None`` to infer it from the first
    board seen. Raises :class:`RefereeError` for unknown values."""

    illegal_play_policy: str = "mandatory_correction"
    die_on_checker: str = "flat_ok"
    mode: str = "tournament"
    layout: Optional[TableLayout] = None

    def __post_init__(self) -> None:
        if self.illegal_play_policy not in POLICIES:
            raise RefereeError(f"illegal_play_policy must be one of {', '.join(POLICIES)}")
        if self.die_on_checker not in DIE_ON_CHECKER:
            raise RefereeError(f"die_on_checker must be one of {', '.join(DIE_ON_CHECKER)}")
        if self.mode not in MODES:
            raise RefereeError(f"mode must be one of {', '.join(MODES)}")

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON-ready data."""
        return {
            "illegal_play_policy": self.illegal_play_policy,
            "die_on_checker": self.die_on_checker,
            "mode": self.mode,
            "layout": None if self.layout is None else {"bottom": self.layout.colours[0], "top": self.layout.colours[1]},
        }


class Phase(str, enum.Enum):
    """What the referee waits for (``TurnEvent.waiting_for``)."""

    OPENING = "opening_roll"
    ROLL = "roll"
    PLAY = "play"
    CORRECTION = "correction"
    CUBE_RESPONSE = "cube_response"
    RESIGNATION = "resignation_response"
    GAME_OVER = "game_over"

"""What the rules engine (``companion.legal``, ``companion.position``) adds to the page.

The legal plays of the roll (teaching mode) and boards decoded from gnubg
Position IDs (a play in progress). Both return None rather than raise: a
position the engine refuses is simply not hinted.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from companion.legal import legal_plays
from companion.position import Position
from web.table import TableBoard


def legal_plays_of(state: Mapping[str, Any], dice: Sequence[int]) -> Optional[list[str]]:
    """The legal plays of ``dice`` from the state's ``position`` (the on-roll
    player's view), by the rules engine (``companion.legal``); None when the
    position cannot be read or has no legal plays to list."""
    position = state.get("position")
    if isinstance(position, Mapping):
        position = position.get("signed")
    if not isinstance(position, Sequence) or len(position) != 26:
        return None
    try:
        plays = legal_plays(Position.from_signed(list(position)), (int(dice[0]), int(dice[1])))
    except ValueError:
        return None
    return [str(play) for play in plays]


def board_from_position_id(position_id: Any, player: Any) -> Optional[TableBoard]:
    """The table board of a gnubg Position ID seen from ``player`` (0/1), by the
    rules engine (``companion.position``); None when it cannot be decoded."""
    if not isinstance(position_id, str) or player not in (0, 1):
        return None
    try:
        return TableBoard.from_signed(Position.from_position_id(position_id).to_signed(), player)
    except ValueError:
        return None

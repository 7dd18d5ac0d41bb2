"""The board as it lies on the table: checkers per *table point*, bar and off for both players.

Table points are the numbering of ``companion read`` and of the bus events
(``companion/events.py``): player 0 sits at the bottom with the home board in
the bottom-right quadrant; points 1-12 run right to left along the bottom row,
13-24 left to right along the top row. Player 1 sits at the top; their point
``i`` is table point ``25 - i``. The dashboard draws this layout so it looks
like the physical board, whoever is on roll.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Optional, Sequence

CHECKERS_PER_SIDE = 15


class BoardDataError(ValueError):
    """The session's position data cannot be read as a board (wrong length, not integers)."""


@dataclasses.dataclass(frozen=True)
class TableBoard:
    """Checkers on the table, seen from above.

    ``points``: 25 ints, index 0 unused, index ``p`` (1-24) the checkers on table
    point ``p``: > 0 player 0's (bottom), < 0 player 1's (top). ``bar`` and
    ``off``: ``(player 0, player 1)`` checker counts.
    """

    points: tuple[int, ...]
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)

    @classmethod
    def empty(cls) -> "TableBoard":
        """A board with no checkers at all (used while no position is known)."""
        return cls(points=(0,) * 25)

    @classmethod
    def from_signed(cls, signed: Sequence[int], perspective: int = 0) -> "TableBoard":
        """Build from the 26 signed ints of ``Position.to_signed()``.

        ``signed`` is seen from ``perspective`` (the player on roll, 0 or 1):
        index 1-24 that player's points (> 0 their checkers, < 0 the opponent's),
        index 25 their bar, index 0 minus the opponent's bar (the gnubg-style
        convention of ``../shared/data/rules``). Borne-off checkers are
        15 minus those on the board and the bar, never negative.

        Raises :class:`BoardDataError` (a ``ValueError``) when ``signed`` is not
        26 integers or ``perspective`` is not 0 or 1.
        """
        if perspective not in (0, 1):
            raise BoardDataError(f"perspective must be 0 or 1, not {perspective!r}")
        try:
            values = [int(v) for v in signed]
        except (TypeError, ValueError) as exc:
            raise BoardDataError(f"position must be 26 integers: {exc}") from None
        if len(values) != 26:
            raise BoardDataError(f"position must be 26 integers, got {len(values)}")
        mover_bar = abs(values[25])
        opponent_bar = abs(values[0])
        points = [0] * 25
        for i in range(1, 25):
            if perspective == 0:
                points[i] = values[i]
            else:
                points[25 - i] = -values[i]
        if perspective == 0:
            bar = (mover_bar, opponent_bar)
        else:
            bar = (opponent_bar, mover_bar)
        on_board_0 = sum(c for c in points if c > 0) + bar[0]
        on_board_1 = sum(-c for c in points if c < 0) + bar[1]
        off = (max(0, CHECKERS_PER_SIDE - on_board_0), max(0, CHECKERS_PER_SIDE - on_board_1))
        return cls(points=tuple(points), bar=bar, off=off)

    def pip_counts(self) -> tuple[int, int]:
        """Pip counts ``(player 0, player 1)``: pips each needs to bear everything off
        (a checker on the bar counts 25)."""
        pips0 = sum(p * c for p, c in enumerate(self.points) if c > 0) + 25 * self.bar[0]
        pips1 = sum((25 - p) * -c for p, c in enumerate(self.points) if c < 0) + 25 * self.bar[1]
        return pips0, pips1

    def describe(self, names: Sequence[str] = ("Player 0", "Player 1")) -> list[str]:
        """The board as sentences for screen readers and tests, one per line:
        each occupied table point, then the bar and borne-off checkers."""
        lines = []
        for p in range(1, 25):
            c = self.points[p]
            if c:
                owner = names[0] if c > 0 else names[1]
                lines.append(f"Point {p}: {abs(c)} {owner} checker{'s' if abs(c) != 1 else ''}")
        for player in (0, 1):
            if self.bar[player]:
                lines.append(f"Bar: {self.bar[player]} {names[player]}")
        for player in (0, 1):
            if self.off[player]:
                lines.append(f"Borne off: {self.off[player]} {names[player]}")
        return lines


def board_from_state(state: Mapping[str, Any]) -> Optional[TableBoard]:
    """Read the session state's ``position`` as a :class:`TableBoard`, or None if absent.

    ``state["table_position"]`` (26 signed ints from player 0's view, table
    order) is used when present. Otherwise ``state["position"]``: a list of 26
    signed ints, or a dict with the list under ``signed`` (or
    ``points``/``checkers``), optionally ``perspective`` (0/1, the player the
    list is seen from). The perspective defaults to ``state["on_roll"]`` (else
    ``state["turn"]``), else 0. Raises :class:`BoardDataError` on a malformed list.
    """
    table = state.get("table_position")
    if table is not None:
        return TableBoard.from_signed(table, 0)
    position = state.get("position")
    if position is None:
        return None
    perspective = state.get("on_roll", state.get("turn"))
    signed = position
    if isinstance(position, Mapping):
        signed = None
        for key in ("signed", "points", "checkers"):
            if key in position:
                signed = position[key]
                break
        if signed is None:
            return None
        perspective = position.get("perspective", perspective)
    if perspective not in (0, 1):
        perspective = 0
    return TableBoard.from_signed(signed, perspective)

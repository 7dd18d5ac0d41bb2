"""A backgammon position: where the checkers of both players stand.

Placement only (no dice, cube or score), seen from the player on roll, like
gnubg's ``TanBoard``. Immutable and hashable; two positions are equal iff every
checker stands in the same place. A misread board is still a ``Position``:
:meth:`Position.status` names what is wrong instead of raising.

Standard library only.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Iterable, Sequence

from companion.position_id import PositionIdError, decode_position_id, encode_position_id

__all__ = ["Position", "PositionStatus", "PositionError", "PositionIdError",
           "OFF", "BAR", "CHECKERS"]

#: Index of the borne-off checkers in a side tuple.
OFF = 0
#: Index of the bar in a side tuple (also the "point" a checker enters from: ``bar/22``).
BAR = 25
#: Checkers per player.
CHECKERS = 15


class PositionError(ValueError):
    """Input that cannot describe a position at all (wrong length, negative counts,
    a signed board with both colours on one point requested, ...)."""


class PositionStatus(enum.IntFlag):
    """What is wrong with a position, as bits (``VALID`` = 0 = nothing).

    Only impossibilities are flagged, never mere oddities. A player on the bar
    against a closed board while the other bears off is NOT flagged: it happens
    (a blot hit in the home board during the bear-off, then the board closed);
    both players closed out on the bar at once cannot happen and is flagged.
    """

    VALID = 0
    #: The player on roll has more than 15 checkers (board, bar and off together).
    MOVER_TOO_MANY = enum.auto()
    #: The player on roll has fewer than 15 checkers.
    MOVER_TOO_FEW = enum.auto()
    #: The opponent has more than 15 checkers.
    OPPONENT_TOO_MANY = enum.auto()
    #: The opponent has fewer than 15 checkers.
    OPPONENT_TOO_FEW = enum.auto()
    #: Checkers of both colours on one point.
    BOTH_COLOURS_ON_POINT = enum.auto()
    #: Each player is on the bar against the other's closed home board: no sequence
    #: of legal plays reaches that (the last player to move could not have moved).
    BOTH_CLOSED_OUT = enum.auto()
    #: Both players have borne off all 15 checkers: only one of them can win.
    BOTH_BORNE_OFF = enum.auto()


def _side(values: Iterable[int], name: str) -> tuple[int, ...]:
    side = tuple(values)
    if len(side) == 26 and all(type(v) is int for v in side) and min(side) >= 0:
        return side
    if len(side) != 26:
        raise PositionError(f"{name}: 26 counts (off, points 1-24, bar), got {len(side)}")
    for v in side:
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise PositionError(f"{name}: checker counts are non-negative ints, got {v!r}")
    return side


@dataclasses.dataclass(frozen=True)
class Position:
    """The checkers of both players, from the view of the player on roll.

    ``mover`` and ``opponent``: 26 non-negative ints each, in that player's OWN
    numbering: index 0 = borne off, 1..24 = points (the player moves from 24
    towards 1, home board 1..6), 25 = bar. The opponent's point ``p`` is the
    mover's point ``25 - p``. Raises :class:`PositionError` for other shapes.

    >>> Position.initial().pip_count()
    (167, 167)
    >>> Position.initial().position_id()
    '4HPwATDgc/ABMA'
    """

    mover: tuple[int, ...]
    opponent: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "mover", _side(self.mover, "mover"))
        object.__setattr__(self, "opponent", _side(self.opponent, "opponent"))

    # ----------------------------------------------------------------- builders
    @classmethod
    def _trusted(cls, mover: tuple[int, ...], opponent: tuple[int, ...]) -> "Position":
        """Build without checking (internal: callers pass two 26-tuples of ints >= 0)."""
        pos = object.__new__(cls)
        object.__setattr__(pos, "mover", mover)
        object.__setattr__(pos, "opponent", opponent)
        return pos

    @classmethod
    def initial(cls) -> "Position":
        """The starting position: 2 on the 24-point, 5 on 13, 3 on 8, 5 on 6, each side."""
        side = [0] * 26
        side[24], side[13], side[8], side[6] = 2, 5, 3, 5
        return cls(tuple(side), tuple(side))

    @classmethod
    def from_position_id(cls, position_id: str) -> "Position":
        """Decode a gnubg Position ID (the player on roll is the one encoded second,
        gnubg 1.07). Borne-off counts are 15 minus the checkers on board and bar.
        Raises :class:`PositionIdError` (a ``ValueError``) when malformed."""
        not_on_roll, on_roll = decode_position_id(position_id)
        return cls._trusted(_from_gnubg(on_roll), _from_gnubg(not_on_roll))

    @classmethod
    def from_signed(cls, board: Sequence[int]) -> "Position":
        """Build from the 26-int signed schema of ``move_edge_cases.json``: index
        1..24 the mover's points (>0 mover's checkers, <0 opponent's), 25 the
        mover's bar (>=0), 0 minus the opponent's bar (<=0). Borne-off counts are
        15 minus the rest (never below 0). Raises :class:`PositionError`."""
        values = list(board)
        if len(values) != 26:
            raise PositionError(f"a signed board has 26 entries, got {len(values)}")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int):
                raise PositionError(f"signed board entries are ints, got {v!r}")
        if values[25] < 0 or values[0] > 0:
            raise PositionError("signed board: index 25 (mover's bar) >= 0, index 0 <= 0")
        mover = [0] * 26
        opponent = [0] * 26
        for p in range(1, 25):
            v = values[p]
            if v > 0:
                mover[p] = v
            elif v < 0:
                opponent[25 - p] = -v
        mover[BAR] = values[25]
        opponent[BAR] = -values[0]
        mover[OFF] = max(0, CHECKERS - sum(mover))
        opponent[OFF] = max(0, CHECKERS - sum(opponent))
        return cls(tuple(mover), tuple(opponent))

    # -------------------------------------------------------------- conversions
    def to_signed(self) -> list[int]:
        """The 26-int signed schema (see :meth:`from_signed`). Raises
        :class:`PositionError` when both colours share a point (not representable)."""
        out = [0] * 26
        m, o = self.mover, self.opponent
        for p in range(1, 25):
            a, b = m[p], o[25 - p]
            if a and b:
                raise PositionError(f"both colours on point {p}: no signed form")
            out[p] = a - b
        out[25] = m[BAR]
        out[0] = -o[BAR]
        return out

    def position_id(self) -> str:
        """The gnubg Position ID (14 characters). Raises :class:`PositionIdError`
        when a player has more than 15 checkers on board and bar."""
        return encode_position_id(_to_gnubg(self.opponent), _to_gnubg(self.mover))

    def swap(self) -> "Position":
        """The same checkers seen by the other player: the turn passes."""
        return Position(self.opponent, self.mover)

    # ------------------------------------------------------------------ queries
    def pip_count(self) -> tuple[int, int]:
        """``(mover, opponent)`` pips still to travel (a checker on the bar counts 25)."""
        return (sum(i * n for i, n in enumerate(self.mover)),
                sum(i * n for i, n in enumerate(self.opponent)))

    def off(self) -> tuple[int, int]:
        """``(mover, opponent)`` checkers borne off."""
        return self.mover[OFF], self.opponent[OFF]

    def bar(self) -> tuple[int, int]:
        """``(mover, opponent)`` checkers on the bar."""
        return self.mover[BAR], self.opponent[BAR]

    def count(self) -> tuple[int, int]:
        """``(mover, opponent)`` checkers in total (board, bar and off)."""
        return sum(self.mover), sum(self.opponent)

    def mover_at(self, point: int) -> int:
        """Mover's checkers on ``point`` (mover numbering, 0 = off, 25 = bar)."""
        return self.mover[point]

    def opponent_at(self, point: int) -> int:
        """Opponent's checkers on the MOVER's ``point`` 1..24 (0 = opponent's off
        pile, 25 = opponent's bar, as seen in their own numbering)."""
        if point in (OFF, BAR):
            return self.opponent[point]
        return self.opponent[25 - point]

    def all_home(self) -> bool:
        """True when every mover checker not borne off is in the home board (1..6)."""
        return not any(self.mover[7:26])

    def status(self) -> PositionStatus:
        """What is wrong with the position (``PositionStatus.VALID`` when nothing).

        Flags counts other than 15 a side, both colours on one point, both
        players closed out on the bar at once, and both players borne off. A
        finished game (one player with 15 off) is not wrong: see
        :meth:`is_game_over`. Never raises.
        """
        flags = PositionStatus.VALID
        m, o = self.mover, self.opponent
        nm, no = sum(m), sum(o)
        if nm > CHECKERS:
            flags |= PositionStatus.MOVER_TOO_MANY
        elif nm < CHECKERS:
            flags |= PositionStatus.MOVER_TOO_FEW
        if no > CHECKERS:
            flags |= PositionStatus.OPPONENT_TOO_MANY
        elif no < CHECKERS:
            flags |= PositionStatus.OPPONENT_TOO_FEW
        if any(map(min, m[1:25], o[24:0:-1])):  # point p of one is 25 - p of the other
            flags |= PositionStatus.BOTH_COLOURS_ON_POINT
        if (m[BAR] and o[BAR] and all(o[p] >= 2 for p in range(1, 7))
                and all(m[p] >= 2 for p in range(1, 7))):
            flags |= PositionStatus.BOTH_CLOSED_OUT
        if m[OFF] >= CHECKERS and o[OFF] >= CHECKERS:
            flags |= PositionStatus.BOTH_BORNE_OFF
        return flags

    def is_game_over(self) -> bool:
        """True when a player has borne off all 15 checkers (a legal winning play
        gives such a position; nobody is on roll in it)."""
        return self.mover[OFF] >= CHECKERS or self.opponent[OFF] >= CHECKERS

    def is_valid(self) -> bool:
        """``status() == PositionStatus.VALID``."""
        return self.status() == PositionStatus.VALID

    def describe_status(self) -> list[str]:
        """One plain sentence per problem in :meth:`status` (empty when valid)."""
        flags = self.status()
        nm, no = self.count()
        out = []
        if flags & (PositionStatus.MOVER_TOO_MANY | PositionStatus.MOVER_TOO_FEW):
            out.append(f"The player on roll has {nm} checkers, not 15.")
        if flags & (PositionStatus.OPPONENT_TOO_MANY | PositionStatus.OPPONENT_TOO_FEW):
            out.append(f"The opponent has {no} checkers, not 15.")
        if flags & PositionStatus.BOTH_COLOURS_ON_POINT:
            pts = [p for p in range(1, 25) if self.mover[p] and self.opponent[25 - p]]
            out.append("Both colours stand on point " + ", ".join(map(str, pts)) + ".")
        if flags & PositionStatus.BOTH_CLOSED_OUT:
            out.append("Both players are on the bar against a closed board.")
        if flags & PositionStatus.BOTH_BORNE_OFF:
            out.append("Both players have borne off all 15 checkers.")
        return out

    # ------------------------------------------------------------------ display
    def diagram(self) -> str:
        """An ASCII board from the mover's view: ``X`` the mover (home board bottom
        right, points 1..6), ``O`` the opponent; counts above 5 are written as numbers.

        >>> print(Position.initial().diagram())  # doctest: +NORMALIZE_WHITESPACE
          13 14 15 16 17 18    BAR  19 20 21 22 23 24   OFF
        +-------------------+-----+-------------------+
        |  X           O    |     |  O              X |  O 0
        |  X           O    |     |  O              X |
        |  X           O    |     |  O                |
        |  X                |     |  O                |
        |  X                |     |  O                |
        |                   |     |                   |
        |  O                |     |  X                |
        |  O                |     |  X                |
        |  O           X    |     |  X                |
        |  O           X    |     |  X              O |
        |  O           X    |     |  X              O |  X 0
        +-------------------+-----+-------------------+
          12 11 10  9  8  7    BAR   6  5  4  3  2  1   OFF
        Pips: X 167, O 167. X on roll.
        """
        m, o = self.mover, self.opponent

        def cell(p: int, row: int) -> str:
            a, b = m[p], o[25 - p]
            if a and b:
                return "  ?" if row == 0 else "   "
            n, ch = (a, "X") if a else (b, "O")
            if row >= min(n, 5):
                return "   "
            if row == 4 and n > 5:
                return f"{n:3d}"
            return "  " + ch

        def half(points: Sequence[int], row: int) -> str:
            return "".join(cell(p, row) for p in points)

        def numbers(points: Sequence[int]) -> str:
            return "".join(f"{p:3d}" for p in points)

        top_l, top_r = range(13, 19), range(19, 25)
        bot_l, bot_r = range(12, 6, -1), range(6, 0, -1)
        edge = "+" + "-" * 19 + "+-----+" + "-" * 19 + "+"
        lines = [" " + numbers(top_l) + "    BAR " + numbers(top_r) + "   OFF", edge]
        for row in range(5):
            bar = f" O{o[BAR]:<2d}" if (row == 0 and o[BAR]) else "    "
            extra = f"  O {o[OFF]}" if row == 0 else ""
            lines.append(f"|{half(top_l, row)} |{bar} |{half(top_r, row)} |{extra}")
        lines.append("|" + " " * 19 + "|     |" + " " * 19 + "|")
        for row in range(4, -1, -1):
            bar = f" X{m[BAR]:<2d}" if (row == 0 and m[BAR]) else "    "
            extra = f"  X {m[OFF]}" if row == 0 else ""
            lines.append(f"|{half(bot_l, row)} |{bar} |{half(bot_r, row)} |{extra}")
        lines.append(edge)
        lines.append(" " + numbers(bot_l) + "    BAR " + numbers(bot_r) + "   OFF")
        pm, po = self.pip_count()
        lines.append(f"Pips: X {pm}, O {po}. X on roll.")
        return "\n".join(lines)

    def __repr__(self) -> str:
        try:
            if self.count() == (CHECKERS, CHECKERS):
                return f"Position.from_position_id({self.position_id()!r})"
        except PositionIdError:
            pass
        return f"Position(mover={self.mover!r}, opponent={self.opponent!r})"


def _from_gnubg(side: Sequence[int]) -> tuple[int, ...]:
    """gnubg's 25 places (index 24 = bar) -> our 26 (0 = off, 25 = bar)."""
    on_board = sum(side)
    return (max(0, CHECKERS - on_board),) + tuple(side[:24]) + (side[24],)


def _to_gnubg(side: Sequence[int]) -> tuple[int, ...]:
    return tuple(side[1:25]) + (side[BAR],)

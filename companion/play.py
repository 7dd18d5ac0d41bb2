"""Checker moves and plays, with the standard (gnubg / Jellyfish) notation both ways.

A *checker move* takes one checker from a point to a lower point (25 = the bar,
0 = off), normally by one die; written on its own it may span several dice
(``24/16``). A *play* is everything done with one roll. Notation as gnubg's
``FormatMove`` writes it (drawboard.c, gnubg 1.07): moves ordered by source point
(highest first), consecutive moves of one checker joined (``24/20``; an
intermediate point is kept when a blot was hit there: ``24/23*/20``), identical
moves counted (``8/5(2)``), ``*`` marking a hit, ``bar`` and ``off``.

Standard library only.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Iterable, Optional, Sequence

from companion.position import Position

__all__ = ["CheckerMove", "Play", "NotationError", "apply_steps"]


class NotationError(ValueError):
    """Text that is not a play in standard notation."""


#: Names of the places in notation: 0 = off, 1..24, 25 = bar.
_NAMES = ("off",) + tuple(str(p) for p in range(1, 25)) + ("bar",)


def _point_name(p: int) -> str:
    return "bar" if p == 25 else "off" if p == 0 else str(p)


@dataclasses.dataclass(frozen=True, order=True)
class CheckerMove:
    """One checker from ``from_point`` to ``to_point`` (mover's numbering: 25 = bar,
    0 = off, 1..24 points; ``from_point > to_point``); ``hit``: a blot was hit on
    ``to_point``. Raises :class:`NotationError` for impossible points.

    >>> CheckerMove(13, 11, hit=True).notation()
    '13/11*'
    """

    from_point: int
    to_point: int
    hit: bool = False

    def __post_init__(self) -> None:
        if not (1 <= self.from_point <= 25 and 0 <= self.to_point <= 24):
            raise NotationError(
                f"a checker moves from 1..24 or the bar to 1..24 or off, not "
                f"{self.from_point}/{self.to_point}")
        if self.to_point >= self.from_point:
            raise NotationError(f"{_point_name(self.from_point)}/{_point_name(self.to_point)}"
                                " moves backwards")
        if self.hit and self.to_point == 0:
            raise NotationError("nothing can be hit off the board")

    @property
    def distance(self) -> int:
        """Pips from ``from_point`` to ``to_point`` (bearing off counts to 0)."""
        return self.from_point - self.to_point

    def notation(self) -> str:
        """``"24/18"``, ``"bar/22*"``, ``"6/off"``."""
        return (f"{_point_name(self.from_point)}/{_point_name(self.to_point)}"
                + ("*" if self.hit else ""))

    def __str__(self) -> str:
        return self.notation()


@dataclasses.dataclass(frozen=True)
class Play:
    """Everything done with one roll: a tuple of :class:`CheckerMove` in the order
    played. ``result`` (not compared, not in ``repr``) is the position after the
    play when the play came from :func:`companion.legal.legal_plays`, else ``None``.

    Two plays compare equal when their moves are equal; plays from
    ``legal_plays`` are one per resulting position, so compare ``result`` to tell
    plays apart by what they do (gnubg's rule).

    >>> Play.from_notation("24/23*/20 13/11").notation()
    '24/23*/20 13/11'
    >>> Play.from_notation("8/5(2) 6/5(2)")
    Play.from_notation('8/5(2) 6/5(2)')
    """

    moves: tuple[CheckerMove, ...] = ()
    result: Optional[Position] = dataclasses.field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "moves", tuple(self.moves))

    # ------------------------------------------------------------ text forms
    @classmethod
    def from_notation(cls, text: str) -> "Play":
        """Parse standard notation: space-separated moves like ``24/18``,
        ``13/11*``, ``bar/22``, ``6/off``, ``8/5(2)``, ``24/23*/20``; ``25`` is
        read as the bar and ``0`` as off. The empty string is the empty play (a
        dance). Raises :class:`NotationError` with the offending part."""
        if not isinstance(text, str):
            raise NotationError(f"notation is text, not {type(text).__name__}")
        moves: list[CheckerMove] = []
        for token in text.replace(",", " ").split():
            moves.extend(_parse_token(token))
        if len(moves) > 4 and all(m.distance <= 6 for m in moves):
            raise NotationError(f"{text!r} has {len(moves)} checker moves; one roll gives at most 4")
        return cls(tuple(moves))

    def notation(self) -> str:
        """The play in gnubg's notation (see the module docstring); ``""`` for no move."""
        return format_moves(self.moves)

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Play.from_notation({self.notation()!r})"

    def __len__(self) -> int:
        return len(self.moves)

    def __iter__(self):
        return iter(self.moves)

    def apply_unchecked(self, position: Position) -> Position:
        """The position after these moves, checking only that each moving checker
        exists (no dice, no rules; a blot on a landing point is hit). Raises
        ``ValueError`` when a move starts from an empty place or lands on a
        point with two or more opposing checkers."""
        return apply_steps(position, [(m.from_point, m.to_point) for m in self.moves])


_TOKEN = re.compile(r"^(?P<path>[^()]+?)(?:\((?P<count>\d+)\))?$")
_POINT = re.compile(r"^(?P<p>bar|b|off|o|\d{1,2})(?P<hit>\*?)$", re.IGNORECASE)


def _parse_point(text: str, token: str) -> tuple[int, bool]:
    match = _POINT.match(text)
    if not match:
        raise NotationError(f"{text!r} in {token!r} is not a point, 'bar' or 'off'")
    p = match.group("p").lower()
    value = 25 if p in ("bar", "b") else 0 if p in ("off", "o") else int(p)
    if value > 25:
        raise NotationError(f"point {value} in {token!r} does not exist (1..24)")
    return value, bool(match.group("hit"))


def _parse_token(token: str) -> list[CheckerMove]:
    match = _TOKEN.match(token)
    if not match:
        raise NotationError(f"cannot read {token!r} as a checker move")
    parts = match.group("path").split("/")
    if len(parts) < 2 or any(not p for p in parts):
        raise NotationError(f"{token!r} is not of the form from/to")
    points = [_parse_point(p, token) for p in parts]
    if points[0][1]:
        raise NotationError(f"{token!r}: a hit is marked on a landing point, not the start")
    count = int(match.group("count") or 1)
    if not 1 <= count <= 4:
        raise NotationError(f"{token!r}: a move is repeated 1..4 times, not {count}")
    chain: list[CheckerMove] = []
    for (a, _), (b, hit) in zip(points, points[1:]):
        if a == 0:
            raise NotationError(f"{token!r}: no checker moves on after bearing off")
        if b == 25:
            raise NotationError(f"{token!r}: a checker cannot move to the bar")
        if b >= a:
            raise NotationError(f"{token!r}: {_point_name(a)}/{_point_name(b)} moves backwards")
        chain.append(CheckerMove(a, b, hit))
    return chain * count


def format_moves(moves: Sequence[CheckerMove]) -> str:
    """gnubg's ``FormatMove`` (drawboard.c, 1.07) on checker moves with hit flags:
    a point counts as hit when any move hit there (a blot is hit by the first
    checker landing on it)."""
    return format_pairs([(m.from_point, m.to_point) for m in moves],
                        {m.to_point for m in moves if m.hit})


def format_steps(steps: Sequence[int], hits: int) -> str:
    """:func:`format_moves` for a flat step sequence ``(s1, t1, s2, t2, ...)``
    (mover's numbering, 25 = bar, 0 = off) whose hits are the bits ``1 << 2k`` of
    ``hits`` (bit ``2k`` set: step ``k`` hit a blot on ``t_k``)."""
    if len(steps) == 4 and steps[0] >= steps[2]:  # two checker moves, as legal_plays gives them
        s1, t1, s2, t2 = steps
        star1 = "*" if hits & 1 else ""
        star2 = "*" if hits & 4 else ""
        if t1 == s2:  # one checker moves twice
            return (_NAMES[s1] + ("/" + _NAMES[t1] + "*" if star1 else "") + "/" + _NAMES[t2]
                    + star2)
        if s1 == s2 and t1 == t2:  # two checkers borne off from one point
            return _NAMES[s1] + "/" + _NAMES[t1] + (star1 or star2) + "(2)"
        if t1 == t2:  # both land on one point: the first written carries the hit
            star1 = star2 = star1 or star2
        if s1 == s2 and t2 > t1:
            return (_NAMES[s2] + "/" + _NAMES[t2] + star2 + " " + _NAMES[s1] + "/" + _NAMES[t1]
                    + star1)
        return (_NAMES[s1] + "/" + _NAMES[t1] + star1 + " " + _NAMES[s2] + "/" + _NAMES[t2]
                + ("" if t1 == t2 else star2))
    pairs = [(steps[i], steps[i + 1]) for i in range(0, len(steps), 2)]
    return format_pairs(pairs, {steps[i + 1] for i in range(0, len(steps), 2)
                                if hits >> i & 1})


def format_pairs(pairs: Sequence[tuple[int, int]], hit_points: set[int]) -> str:
    """gnubg's ``FormatMove`` on ``(from_point, to_point)`` checker moves and the
    set of points where a blot was hit: moves ordered by source point (highest
    first), consecutive moves of one checker joined (an intermediate point is kept
    when a blot was hit there), identical moves counted, the first landing on a
    hit point starred."""
    n = len(pairs)
    if n == 1:
        (s, t), = pairs
        return _NAMES[s] + "/" + _NAMES[t] + ("*" if t in hit_points else "")
    items = sorted(pairs, reverse=True)
    joined = [False] * n
    counts: dict[tuple[int, ...], int] = {}  # each path (kept points) and how often it is played
    for i in range(n):
        if joined[i]:
            continue
        s, end = items[i]
        path: tuple[int, ...] = (s,)
        for j in range(i + 1, n):
            if not joined[j] and items[j][0] == end:  # the same checker moves on
                if end in hit_points:
                    path += (end,)
                end = items[j][1]
                joined[j] = True
        path += (end,)
        counts[path] = counts.get(path, 0) + 1
    out = []
    starred: set[int] = set()
    for path, count in counts.items():
        text = _NAMES[path[0]]
        for p in path[1:-1]:  # a point passed on the way is kept only where a blot was hit
            text += "/" + _NAMES[p] + "*"
            starred.add(p)
        end = path[-1]
        text += "/" + _NAMES[end]
        if end in hit_points and end not in starred:
            text += "*"
            starred.add(end)
        if count > 1:
            text += f"({count})"
        out.append(text)
    return " ".join(out)


def apply_steps(position: Position, steps: Iterable[tuple[int, int]],
                allow_held: bool = False) -> Position:
    """Apply ``(from_point, to_point)`` checker moves to ``position`` (mover's numbering;
    25 = bar, 0 = off) without any rule but these: the checker must exist and the
    landing point must not hold two or more opposing checkers; a blot there is hit
    (sent to the opponent's bar). Raises ``ValueError`` otherwise. With
    ``allow_held=True`` a checker may land on a held point too (both colours then
    share it, as on a misplayed physical board). Returns a new
    :class:`~companion.position.Position` (same player on roll)."""
    m = list(position.mover)
    o = list(position.opponent)
    for s, t in steps:
        if not (1 <= s <= 25 and 0 <= t < s):
            raise NotationError(f"cannot move {_point_name(s)}/{_point_name(t)}")
        if m[s] <= 0:
            raise ValueError(f"no checker of the player on roll on {_point_name(s)}")
        m[s] -= 1
        if t == 0:
            m[0] += 1
            continue
        opp = o[25 - t]
        if opp >= 2 and not allow_held:
            raise ValueError(f"point {t} is held by the opponent")
        if opp == 1:
            o[25 - t] = 0
            o[25] += 1
        m[t] += 1
    return Position._trusted(tuple(m), tuple(o))


def moves_from_steps(position: Position, steps: Iterable[tuple[int, int]]) -> tuple[CheckerMove, ...]:
    """Checker moves (with hit flags) for ``(from, to)`` steps played in order from
    ``position``. Raises ``ValueError`` like :func:`apply_steps`."""
    o = list(position.opponent)
    out = []
    new = object.__new__
    put = object.__setattr__
    for s, t in steps:
        if not (1 <= s <= 25 and 0 <= t < s):
            raise NotationError(f"cannot move {_point_name(s)}/{_point_name(t)}")
        hit = False
        if t:
            q = 25 - t
            if o[q] == 1:
                hit = True
                o[q] = 0
        move = new(CheckerMove)  # checked above: skip the dataclass checks
        put(move, "from_point", s)
        put(move, "to_point", t)
        put(move, "hit", hit)
        out.append(move)
    return tuple(out)

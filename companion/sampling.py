"""Seeded random positions and rolls for tests, benchmarks and the gnubg
differential check, weighted towards the hard parts of the rules.

Kinds: ``playout`` (a random game played for a random number of turns),
``scatter`` (checkers thrown onto the board, some on the bar and off),
``bearoff`` (the mover bearing off, opposing checkers in the way), ``bar_closed``
(the mover on the bar against a nearly or fully closed board) and ``prime``
(back checkers behind a prime, where often one die only plays). Every position
returned has ``status() == VALID`` and the player on roll has not won.

Standard library only. Pass a ``random.Random``; nothing here keeps state.
"""

from __future__ import annotations

import random
from typing import Iterator, Optional

from companion.dice import Dice
from companion.position import Position

__all__ = ["random_position", "random_roll", "sample", "KINDS"]

KINDS = ("playout", "scatter", "bearoff", "bar_closed", "prime")


def random_roll(rng: random.Random, doubles_weight: float = 1 / 6) -> Dice:
    """A roll; doubles come with probability ``doubles_weight`` (1/6 = fair dice)."""
    if rng.random() < doubles_weight:
        d = rng.randint(1, 6)
        return Dice(d, d)
    d1 = rng.randint(1, 6)
    d2 = rng.choice([v for v in range(1, 7) if v != d1])
    return Dice(d1, d2)


def _place(rng: random.Random, counts: list[int], points: list[int], n: int,
           forbidden: set[int]) -> None:
    free = [p for p in points if p not in forbidden]
    for _ in range(n):
        if not free:
            break
        counts[rng.choice(free)] += 1


def _build(mover: list[int], opp_on_mover_points: list[int], opp_bar: int) -> Optional[Position]:
    opponent = [0] * 26
    for p in range(1, 25):
        opponent[25 - p] = opp_on_mover_points[p]
    opponent[25] = opp_bar
    mover[0] = 15 - sum(mover[1:])
    opponent[0] = 15 - sum(opponent[1:])
    if mover[0] < 0 or opponent[0] < 0:
        return None
    return Position(tuple(mover), tuple(opponent))


def _scatter(rng: random.Random) -> Position:
    mover = [0] * 26
    opp = [0] * 26  # on the mover's points
    m_off = rng.choice([0, 0, 0, 0, rng.randint(0, 14)])
    o_off = rng.choice([0, 0, 0, 0, rng.randint(0, 14)])
    m_bar = rng.choice([0, 0, 0, 1, 2, 3])
    o_bar = rng.choice([0, 0, 0, 1, 2])
    m_bar = min(m_bar, 15 - m_off)
    o_bar = min(o_bar, 15 - o_off)
    mover[25] = m_bar
    m_points = rng.sample(range(1, 25), rng.randint(2, 10))
    _place(rng, mover, m_points, 15 - m_off - m_bar, set())
    o_points = rng.sample([p for p in range(1, 25) if not mover[p]], rng.randint(1, 8))
    _place(rng, opp, o_points, 15 - o_off - o_bar, set())
    return _build(mover, opp, o_bar)


def _bearoff(rng: random.Random) -> Position:
    mover = [0] * 26
    opp = [0] * 26
    m_on = rng.randint(1, 15)
    stragglers = rng.choice([0, 0, 0, 1, 2]) if m_on > 2 else 0
    m_points = rng.sample(range(1, 7), rng.randint(1, 6))
    _place(rng, mover, m_points, m_on - stragglers, set())
    _place(rng, mover, list(range(7, 13)), stragglers, set())
    o_off = rng.choice([0, 0, rng.randint(0, 12)])
    o_bar = rng.choice([0, 0, 0, 1])
    o_anchor = [p for p in range(1, 7) if not mover[p]]
    rest = [p for p in range(13, 25)]
    n = 15 - o_off - o_bar
    in_home = min(n, rng.choice([0, 1, 2, 3, 4]))
    if o_anchor:
        _place(rng, opp, rng.sample(o_anchor, min(len(o_anchor), 2)), in_home, set())
    else:
        in_home = 0
    _place(rng, opp, rng.sample(rest, rng.randint(1, 6)), n - in_home, set())
    return _build(mover, opp, o_bar)


def _bar_closed(rng: random.Random) -> Position:
    mover = [0] * 26
    opp = [0] * 26
    made = rng.sample(range(19, 25), rng.randint(4, 6))
    for p in made:
        opp[p] = 2
    left = 15 - 2 * len(made)
    blots = [p for p in range(19, 25) if p not in made]
    if blots and rng.random() < 0.5:
        opp[rng.choice(blots)] += 1
        left -= 1
    _place(rng, opp, rng.sample(range(7, 19), rng.randint(1, 4)), left, set())
    mover[25] = rng.randint(1, 3)
    free = [p for p in range(1, 25) if not opp[p]]
    _place(rng, mover, rng.sample(free, min(len(free), rng.randint(2, 7))), 15 - mover[25], set())
    return _build(mover, opp, rng.choice([0, 0, 0, 1]))


def _prime(rng: random.Random) -> Position:
    mover = [0] * 26
    opp = [0] * 26
    length = rng.randint(4, 6)
    start = rng.randint(12, 24 - length)
    for p in range(start, start + length):
        opp[p] = 2
    left = 15 - 2 * length
    _place(rng, opp, [p for p in range(start + length, 25)] or [24], left, set())
    back = [p for p in range(start + length, 25) if not opp[p]]
    n_back = rng.randint(1, 3)
    if back:
        _place(rng, mover, back, n_back, set())
    else:
        mover[25] = n_back
    free = [p for p in range(1, start) if not opp[p]]
    _place(rng, mover, rng.sample(free, min(len(free), rng.randint(2, 6))),
           15 - sum(mover), set())
    return _build(mover, opp, 0)


def _playout(rng: random.Random) -> Position:
    from companion.legal import legal_plays

    pos = Position.initial()
    for _ in range(rng.randint(0, 80)):
        plays = legal_plays(pos, random_roll(rng))
        if plays:
            choices = list(plays._entries)  # keys in generation order
            key = rng.choice(choices)
            pos = plays._result_for_key(key)
        if pos.mover[0] == 15:
            return Position.initial()
        pos = pos.swap()
    return pos


_MAKERS = {"playout": _playout, "scatter": _scatter, "bearoff": _bearoff,
           "bar_closed": _bar_closed, "prime": _prime}


def random_position(rng: random.Random, kind: str | None = None) -> Position:
    """One valid position of ``kind`` (one of :data:`KINDS`; random when ``None``).
    Raises ``ValueError`` for an unknown kind."""
    if kind is None:
        kind = rng.choice(KINDS)
    try:
        maker = _MAKERS[kind]
    except KeyError:
        raise ValueError(f"unknown kind {kind!r}; choose from {', '.join(KINDS)}") from None
    for _ in range(100):
        pos = maker(rng)
        if pos is not None and pos.is_valid() and pos.mover[0] < 15:
            return pos
    raise RuntimeError(f"could not draw a valid {kind} position")  # pragma: no cover


def sample(seed: int, n: int, doubles_weight: float = 1 / 6,
           kinds: tuple[str, ...] = KINDS) -> Iterator[tuple[Position, Dice]]:
    """``n`` seeded ``(position, dice)`` pairs, kinds in turn."""
    rng = random.Random(seed)
    for i in range(n):
        yield random_position(rng, kinds[i % len(kinds)]), random_roll(rng, doubles_weight)

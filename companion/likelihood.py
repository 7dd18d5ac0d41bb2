"""Which board the game allows is most likely, given what the camera saw.

A probabilistic reader gives every point a distribution over what it may hold
(:attr:`~companion.observation.PointReading.distribution`). The boards the game allows next are
few: the position before the roll, and the result of every legal play and of every legal part
of one (``LegalPlays.results`` and ``prefixes``). :func:`most_likely_board` scores them by the
reading's probabilities (points independent) against the most likely reading itself. When the
most likely allowed board is no more than :data:`ALLOWED_RATIO` times less likely than the raw
reading, the camera cannot tell them apart, and the allowed board is what it saw; only a reading
far more likely than every allowed board stays as it was read, to be judged (and, if it stays so
over frames, called illegal). As an electronic chess board judges a board by the set of legal
successor positions (DESIGN.md, picochess).

Standard library only. Boards are the referee's 26 signed ints in player 0's view (index 1..24
the points, > 0 player 0's checkers; 25 player 0's bar, 0 minus player 1's bar).
"""

from __future__ import annotations

import math
from typing import Iterable, Optional, Sequence

from companion.observation import Observation

#: How much less likely than the raw reading an allowed board may be and still be taken.
ALLOWED_RATIO = 20.0
#: Probability given to a count a reader left out of its distribution (below 0.001).
FLOOR = 1e-4
#: Probability of misreading the bar by one checker, for a reader that gives the bar no distribution.
BAR_MISS = 0.02


def log_likelihood(obs: Observation, board: Sequence[int], player0_colour: str) -> float:
    """log P(the frame | ``board``): the sum over the readable points of the log probability
    the reading gives the board's count there, plus the log probability the reading gives the
    board's bar (``Observation.bar_distribution``; for a reader without one, :data:`BAR_MISS`
    per checker the bar differs; nothing for the bar when it is ``bar_unreadable``).
    ``player0_colour``: ``"light"`` or ``"dark"``, the colour of player 0 (whose checkers are
    positive in ``board``). Raises ``ValueError`` for a board of another length."""
    if len(board) != 26:
        raise ValueError(f"a board has 26 entries, got {len(board)}")
    sign = 1 if player0_colour == "light" else -1
    hidden = set(obs.unreadable_points)
    total = 0.0
    for reading in obs.points:
        if reading.point in hidden:
            continue
        total += math.log(max(reading.probability(sign * board[reading.point]), FLOOR))
    if obs.bar_unreadable:
        return total
    mine, theirs = board[25], -board[0]
    light, dark = (mine, theirs) if player0_colour == "light" else (theirs, mine)
    p_bar = obs.bar_probability(light, dark)
    if p_bar is not None:
        return total + math.log(max(p_bar, FLOOR))
    total += (abs(light - obs.bar.light) + abs(dark - obs.bar.dark)) * math.log(BAR_MISS)
    return total


def most_likely_board(obs: Observation, read: Sequence[int], allowed: Iterable[Sequence[int]], player0_colour: str,
                      ratio: float = ALLOWED_RATIO) -> tuple[int, ...]:
    """The board to judge: the most likely of ``allowed`` when it is at most ``ratio`` times
    less likely than ``read`` (the reading's own board), else ``read``. Without probabilities in
    ``obs`` (a reader that gives none), ``read`` as it is."""
    read = tuple(read)
    if not any(p.distribution for p in obs.points):
        return read
    best: Optional[tuple[int, ...]] = None
    best_ll = -math.inf
    for board in allowed:
        b = tuple(board)
        if b == read:
            return read
        ll = log_likelihood(obs, b, player0_colour)
        if ll > best_ll:
            best, best_ll = b, ll
    if best is None:
        return read
    if best_ll >= log_likelihood(obs, read, player0_colour) - math.log(ratio):
        return best
    return read

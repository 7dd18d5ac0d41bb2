"""Game-end scoring: single game, gammon, backgammon, the cube, Jacoby, resignations.

Rules (standard backgammon rules; checked against GNU Backgammon 1.07 in
``match_rule_cases.json``):

* single game (1): the loser has borne off at least one checker;
* gammon (2): the loser has borne off no checker;
* backgammon (3): a gammon and the loser still has a checker on the bar or in
  the winner's home board;
* the points are the level times the cube value; in money play under the
  Jacoby rule a gammon or backgammon counts as a single game while the cube is
  centred;
* an accepted resignation scores its level times the cube value (gnubg 1.07 does
  not apply the Jacoby rule to resignations: ``MOVE_RESIGN: nPoints = nCube * nResigned``).
"""

from __future__ import annotations

from typing import Optional, Sequence

SINGLE, GAMMON, BACKGAMMON = 1, 2, 3

#: Names of the levels, as used in events and resignations.
LEVEL_NAMES = {SINGLE: "single", GAMMON: "gammon", BACKGAMMON: "backgammon"}

CHECKERS = 15


class ScoringError(ValueError):
    """A position or argument that cannot be scored."""


def level_name(level: int) -> str:
    """``"single"``, ``"gammon"`` or ``"backgammon"`` for level 1, 2 or 3."""
    try:
        return LEVEL_NAMES[level]
    except KeyError:
        raise ScoringError(f"a game level is 1, 2 or 3, got {level}") from None


def game_level(signed: Sequence[int]) -> int:
    """The level of a finished game from the winner's view of the final position.

    ``signed``: 26 ints as ``Position.to_signed()`` from the view of the winner
    (index 1..24 points, >0 the winner's checkers, <0 the loser's; index 25 the
    winner's bar; index 0 minus the loser's bar). The winner must have borne off
    all 15 checkers. Returns 1 (single), 2 (gammon) or 3 (backgammon).
    Raises :class:`ScoringError` if the winner still has checkers on the board.
    """
    if len(signed) != 26:
        raise ScoringError(f"a signed position has 26 entries, got {len(signed)}")
    if signed[25] > 0 or any(v > 0 for v in signed[1:25]):
        raise ScoringError("the winner still has checkers on the board")
    loser_bar = -signed[0] if signed[0] < 0 else 0
    loser_on_board = sum(-v for v in signed[1:25] if v < 0) + loser_bar
    loser_off = CHECKERS - loser_on_board
    if loser_off > 0:
        return SINGLE
    if loser_bar or any(v < 0 for v in signed[1:7]):
        return BACKGAMMON
    return GAMMON


def game_points(level: int, cube_value: int, *, jacoby: bool = False, cube_owner: Optional[int] = None) -> int:
    """Points won for a game ended by bearing off: ``level`` x ``cube_value``.

    ``jacoby``: the Jacoby rule is in force (money play only); then a gammon or
    backgammon with a centred cube (``cube_owner is None``) counts as a single game.
    """
    level_name(level)
    if jacoby and cube_owner is None:
        level = SINGLE
    return level * cube_value


def resignation_points(level: int, cube_value: int) -> int:
    """Points won by an accepted resignation at ``level``: ``level`` x ``cube_value``
    (no Jacoby reduction, as gnubg 1.07)."""
    level_name(level)
    return level * cube_value


def pointless_double_note(
    player: int, score: Sequence[int], match_length: int, *, post_crawford: bool
) -> Optional[str]:
    """A note when a legal double by ``player`` cannot gain anything, else ``None``.

    The written rules allow it; gnubg refuses it ("the cube is dead"). Cases:
    double match point (both players 1-away) and the post-Crawford leader
    (the doubler is 1-away, the opponent is not). Money play (``match_length``
    0) never gives a note.
    """
    if match_length <= 0:
        return None
    away = [match_length - s for s in score]
    if away[player] == 1 and away[1 - player] == 1:
        return "double match point: the cube is dead, the double changes nothing"
    if away[player] == 1 and post_crawford:
        return "the post-Crawford leader gains nothing by doubling"
    return None

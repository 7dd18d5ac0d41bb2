"""Match flow: opening roll, cube timing, Crawford, game ends, resignations, undo,
and random self-play matches that must survive an export/import round trip."""

from __future__ import annotations

import random

import pytest

from companion.mat import export_mat, import_mat
from companion.match import Match, MatchError, MatchRules
from companion.match_id import MatchKey
from companion.position import Position

import match_driver


def random_step(match: Match, rng: random.Random) -> list:
    """One random legal action (a referee-like driver for tests)."""
    return match_driver.random_step(match, rng, double=0.08, resign=0.01, beaver=0.15, take=0.8)


def _resign_game(match: Match, loser: int, level: int = 1) -> None:
    """Open a game and let ``loser`` resign at ``level`` on his first chance."""
    match.opening_roll((6, 1) if loser == 1 else (1, 6))
    match.play(next(iter(match.legal_plays())))
    assert match.on_roll == loser
    match.resign(loser, level)
    match.accept(1 - loser)


def test_opening_roll_ties_and_first_move():
    match = Match(5)
    assert match.phase == "opening_roll" and match.on_roll is None
    match.opening_roll((3, 3))  # tie: roll again; no automatic doubles in match play
    assert match.phase == "opening_roll" and match.cube_value == 1
    match.opening_roll((2, 5))
    assert match.on_roll == 1 and match.phase == "play" and match.dice == (5, 2)
    with pytest.raises(MatchError):
        match.double(1)  # already rolled
    with pytest.raises(MatchError):
        match.roll((1, 2))


def test_automatic_doubles_money_only_with_limit():
    match = Match(0, rules=MatchRules(automatic_doubles=2))
    for _ in range(3):
        match.opening_roll((4, 4))
    assert match.cube_value == 4 and match.cube_owner is None
    match.opening_roll((6, 1))
    assert match.phase == "play" and match.cube_value == 4


def test_double_only_before_rolling_on_own_turn():
    match = Match(7)
    match.opening_roll((6, 1))
    match.play("8/2 6/5")
    assert match.on_roll == 1 and match.phase == "roll"
    with pytest.raises(MatchError, match="own turn"):
        match.double(0)
    events = match.double(1)
    assert events[0].type == "cube" and events[0].value == 2
    assert match.turn == 0 and match.phase == "cube_response"
    with pytest.raises(MatchError):
        match.roll((3, 1))
    match.take(0)
    assert (match.cube_value, match.cube_owner, match.turn) == (2, 0, 1)
    with pytest.raises(MatchError, match="opponent owns"):
        match.double(1)


def test_illegal_play_changes_nothing():
    match = Match(3)
    match.opening_roll((3, 1))
    before = (match.match_id(), match.position_id(), len(match.actions))
    for bad in ("8/5 6/4", "24/18", "13/10 13/12 13/11", "8/3", "bar/22"):
        with pytest.raises(MatchError):
            match.play(bad)
        assert (match.match_id(), match.position_id(), len(match.actions)) == before
    match.play("8/5 6/5")
    assert match.on_roll == 1


def test_crawford_game_is_stored_not_derived():
    match = Match(5)
    _resign_game(match, loser=1, level=2)  # 2-0
    _resign_game(match, loser=1, level=2)  # 4-0: player 0 reaches 4 = N-1
    assert match.score == (4, 0) and match.crawford
    match.opening_roll((1, 6))
    assert match.game_crawford
    match.play(next(iter(match.legal_plays())))
    with pytest.raises(MatchError, match="Crawford"):
        match.double(0)
    match.resign(0, 1)
    match.accept(1)  # 4-1, Crawford game over
    assert not match.crawford and match.post_crawford
    assert match.games[-1].crawford
    match.opening_roll((6, 1))
    match.play(next(iter(match.legal_plays())))
    assert match.can_double(1)  # post-Crawford: the trailer doubles
    match.double(1)
    match.drop(0)
    assert match.score == (4, 2) and not match.crawford
    # the score alone (4-2) looks the same whether or not the Crawford game was
    # played; a fresh 5-point match set to 4-2 before its Crawford game differs:
    other = Match(5)
    other.apply({"type": "setup", "match_id": MatchKey(match_to=5, score=(4, 2), crawford=True,
                                                         dice_owner=1, turn=1).encode()})
    assert not other.can_double(1)


def test_post_crawford_leader_double_is_legal_with_note():
    match = Match(3)
    _resign_game(match, loser=1, level=2)  # 2-0, Crawford next
    _resign_game(match, loser=0, level=1)  # Crawford game: 2-1
    assert match.post_crawford
    match.opening_roll((6, 1))
    match.play("13/7 8/7")
    match.roll((2, 1))
    match.play("13/11 6/5")
    events = match.double(0)  # the leader doubles: pointless but legal
    assert events[0].note and "post-Crawford" in events[0].note


def test_score_is_not_capped_and_match_ends():
    match = Match(3)
    match.opening_roll((6, 1))
    match.play("13/7 8/7")
    match.resign(1, 3)
    match.accept(0)
    assert match.score == (3, 0) and match.over and match.winner == 0
    with pytest.raises(MatchError):
        match.opening_roll((6, 1))
    match = Match(1)
    _resign_game(match, loser=1, level=2)
    assert match.score == (2, 0) and match.over


def test_bear_off_gammon_and_backgammon_scored_from_the_board():
    # on roll: one checker on our 1-point; the opponent has none off (gammon)
    match = Match(15)
    match.apply({"type": "setup", "match_id": MatchKey(match_to=15, dice_owner=0, turn=0,
                                                         cube=2, cube_owner=1).encode(),
                 "position_id": "MOD/AwABAAAAAA"})
    match.roll((6, 1))
    events = match.play("1/off")
    end = [e for e in events if e.type == "game_end"][0]
    assert (end.winner, end.points, end.kind) == (0, 4, "gammon")
    # backgammon: a loser's checker still in the winner's home board
    match = Match(15)
    match.apply({"type": "setup", "match_id": MatchKey(match_to=15, dice_owner=1, turn=1).encode(),
                 "position_id": "APj/AQIBAAAAAA"})
    match.roll((6, 1))
    match.play("1/off")
    assert match.games[0].kind == "backgammon" and match.score == (0, 3)


def test_jacoby_money_gammon_counts_single_with_centred_cube():
    for jacoby, points in ((True, 1), (False, 2)):
        match = Match(0, rules=MatchRules(jacoby=jacoby))
        match.apply({"type": "setup", "match_id": MatchKey(match_to=0, jacoby_off=not jacoby).encode(),
                     "position_id": "MOD/AwABAAAAAA"})
        match.roll((6, 1))
        match.play("1/off")
        assert match.score == (points, 0)


def test_resignation_refused_returns_to_play():
    match = Match(7)
    match.opening_roll((4, 2))
    match.resign(1, 1)
    assert match.phase == "resignation_response" and match.turn == 0
    with pytest.raises(MatchError):
        match.play("8/4 6/4")
    match.refuse(0)
    assert match.phase == "play" and match.turn == 0 and match.resigned == 0
    match.play("8/4 6/4")
    with pytest.raises(MatchError, match="level"):
        match.resign(1, 4)


def test_beaver_flow_money():
    match = Match(0, rules=MatchRules(beavers=1))
    match.opening_roll((5, 3))
    match.play("8/3 6/3")
    match.double(1)
    match.beaver(0)
    assert match.cube_value == 2 and match.turn == 1
    with pytest.raises(MatchError, match="at most 1"):
        match.beaver(1)
    match.take(1)
    assert (match.cube_value, match.cube_owner, match.turn) == (4, 0, 1)
    with pytest.raises(MatchError, match="money play only"):
        m = Match(5, rules=MatchRules(beavers=1))
        m.opening_roll((5, 3))
        m.play("8/3 6/3")
        m.double(1)
        m.beaver(0)


def test_undo_rebuilds_state():
    match = Match(5)
    match.opening_roll((5, 3))
    match.play("8/3 6/3")
    after_play = (match.match_id(), match.position_id())
    match.double(1)
    match.undo()
    assert (match.match_id(), match.position_id()) == after_play
    assert match.phase == "roll"
    match.undo()
    match.undo()
    assert match.phase == "opening_roll" and match.actions == []
    with pytest.raises(MatchError, match="nothing to undo"):
        match.undo()


def test_apply_rejects_malformed_actions():
    match = Match(5)
    for bad in ({}, {"type": "fly"}, {"type": "opening_roll", "dice": [7, 1]},
                {"type": "opening_roll", "dice": "x"}, {"type": "roll", "dice": [1, 2]}):
        with pytest.raises(MatchError):
            match.apply(bad)
    with pytest.raises(ValueError):
        Match(-1)


@pytest.mark.parametrize("seed", range(12))
def test_random_matches_round_trip_through_mat(seed):
    rng = random.Random(seed)
    length = [0, 1, 2, 3, 5, 7][seed % 6]
    rules = MatchRules(beavers=2, jacoby=seed % 2 == 0)
    match = Match(length, players=("Alice", "Bob"), rules=rules)
    steps = 0
    while not match.over and (length or len(match.games) < 5) and steps < 20000:
        random_step(match, rng)
        steps += 1
    assert match.over or length == 0
    total = [0, 0]
    for game in match.games:
        total[game.winner] += game.points
    assert tuple(total) == match.score
    result = import_mat(export_mat(match))  # the rules travel in the header tags
    assert result.match.score == match.score
    assert [g.to_dict() for g in result.match.games] == [g.to_dict() for g in match.games]
    assert result.match.position_id() == match.position_id()
    assert result.match.match_id() == match.match_id()
    if length:
        crawford_games = [g for g in match.games if g.crawford]
        assert len(crawford_games) <= 1
        for g in crawford_games:
            assert length - 1 in g.score_before and max(g.score_before) < length


def test_position_is_seen_from_the_player_on_roll():
    match = Match(5)
    match.opening_roll((6, 1))
    match.play("13/7 8/7")
    # player 1 on roll sees player 0's new 7-point as his 18-point
    signed = match.position.to_signed()
    assert signed[18] == -2 and signed[24] == 2
    assert match.position == Position.from_position_id(match.position_id())

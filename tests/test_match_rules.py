"""Cube, scoring and Match ID against the gnubg-checked cases in
``shared/data/rules/match_rule_cases.json``."""

from __future__ import annotations

import json

import pytest

from companion.cube import Cube, CubeError, CubeRules
from companion.match import Match, MatchError, MatchRules
from companion.match_id import MatchIdError, MatchKey
from companion import scoring


def _cases(shared_data):
    return json.loads((shared_data / "rules" / "match_rule_cases.json").read_text())["cases"]


def _key(state: dict) -> MatchKey:
    return MatchKey(
        cube=state["cube"],
        cube_owner=None if state["cube_owner"] == -1 else state["cube_owner"],
        dice_owner=state["dice_owner"],
        crawford=state["crawford"],
        game_state=state["game_state"],
        turn=state["turn"],
        doubled=state["doubled"],
        resigned=state["resigned"],
        dice=tuple(state["dice"]),
        match_to=state["match_to"],
        score=tuple(state["score"]),
        jacoby_off=bool(state["bit66"]),
    )


def _all_states(shared_data):
    for case in _cases(shared_data):
        if "state_before" in case:
            yield case["name"] + ":before", case["match_id_before"], case["state_before"]
            yield case["name"] + ":after", case["match_id_after"], case["state_after"]
        for snap in case.get("snapshots", ()):
            yield case["name"] + ":" + snap["tag"], snap["match_id"], snap["state"]


def test_match_id_encodes_every_gnubg_state(shared_data):
    states = list(_all_states(shared_data))
    assert len(states) > 60
    for name, match_id, state in states:
        assert _key(state).encode() == match_id, name
        assert MatchKey.decode(match_id) == _key(state), name


def test_match_id_manual_example():
    key = MatchKey.decode("QYkqASAAIAAA")
    assert key.match_to == 9 and key.score == (2, 4)
    assert key.cube == 2 and key.cube_owner == 0
    assert key.dice_owner == 1 and key.dice == (5, 2)
    assert key.game_state == "playing" and not key.jacoby_off


@pytest.mark.parametrize("bad", ["", "QYkqASAAIAA", "QYkqASAAIAA!", "QYkqASAAIAAAA", "////////////"])
def test_match_id_malformed(bad):
    with pytest.raises(MatchIdError):
        MatchKey.decode(bad)


def test_match_id_out_of_range():
    with pytest.raises(MatchIdError):
        MatchKey(match_to=1 << 15).encode()
    with pytest.raises(MatchIdError):
        MatchKey(cube=3).encode()


def _match_from_id(match_id: str, name: str) -> Match:
    key = MatchKey.decode(match_id)
    money = key.match_to == 0
    rules = MatchRules(jacoby=money and not key.jacoby_off, beavers=2 if money else 0)
    match = Match(key.match_to, rules=rules)
    match.apply({"type": "setup", "match_id": match_id})
    assert match.match_id() == match_id, name
    return match


def test_cube_action_cases(shared_data):
    cases = [c for c in _cases(shared_data) if c["category"] == "cube_action"]
    assert len(cases) >= 15
    match = None
    for case in cases:
        name = case["name"]
        if match is None or match.match_id() != case["match_id_before"]:
            match = _match_from_id(case["match_id_before"], name)
        player = match.turn
        command = case["command"]
        if case["expected_accepted"]:
            events = getattr(match, command)(player)
            if case["agrees"]:
                assert match.match_id() == case["match_id_after"], name
            else:
                # gnubg refuses a dead double; the written rules allow it: a note, not an error
                assert match.cube.offered and match.turn == 1 - player, name
                cube_events = [e for e in events if e.type == "cube"]
                assert cube_events and cube_events[0].note, name
        else:
            before = match.match_id()
            with pytest.raises(MatchError):
                getattr(match, command)(player)
            assert match.match_id() == before == case["match_id_after"], name


def _after_bearing_off_last(position: list[int]) -> list[int]:
    after = list(position)
    assert after[1] == 1 and sum(v for v in after[1:] if v > 0) == 1
    after[1] = 0
    return after


def test_game_end_scoring_cases(shared_data):
    cases = [c for c in _cases(shared_data) if c["category"] == "game_end_scoring"]
    assert len(cases) >= 10
    for case in cases:
        after = _after_bearing_off_last(case["position"])
        level = scoring.game_level(after)
        points = scoring.game_points(
            level, case["cube"], jacoby=case["jacoby"] and case["match_to"] == 0,
            cube_owner=case["cube_owner"],
        )
        assert points == case["expected_points"], case["name"]


def test_game_level_rejects_unfinished_game():
    position = [0] * 26
    position[3] = 1
    with pytest.raises(scoring.ScoringError):
        scoring.game_level(position)
    with pytest.raises(scoring.ScoringError):
        scoring.game_level([0] * 25)


def test_resignation_points_ignore_jacoby():
    # gnubg 1.07: MOVE_RESIGN: nPoints = nCube * nResigned
    assert scoring.resignation_points(3, 1) == 3
    assert scoring.resignation_points(2, 4) == 8
    with pytest.raises(scoring.ScoringError):
        scoring.resignation_points(4, 1)


def test_cube_sequence_rules():
    money = CubeRules(money=True, beavers=1)
    cube = Cube()
    with pytest.raises(CubeError, match="before rolling"):
        cube.double(0, on_roll=0, rolled=True, crawford=False, rules=money)
    with pytest.raises(CubeError, match="own turn"):
        cube.double(1, on_roll=0, rolled=False, crawford=False, rules=money)
    with pytest.raises(CubeError, match="Crawford"):
        cube.double(0, on_roll=0, rolled=False, crawford=True, rules=money)
    cube = cube.double(0, on_roll=0, rolled=False, crawford=False, rules=money)
    assert cube.offered and cube.responder == 1 and cube.pending_value == 2
    with pytest.raises(CubeError, match="must answer"):
        cube.take(0)
    taken = cube.take(1)
    assert (taken.value, taken.owner, taken.offered) == (2, 1, False)
    with pytest.raises(CubeError, match="opponent owns"):
        taken.double(0, on_roll=0, rolled=False, crawford=False, rules=money)
    # drop: the doubler wins the value before the double
    redoubled = taken.double(1, on_roll=1, rolled=False, crawford=False, rules=money)
    assert redoubled.drop(0) == 2
    # beaver limit 1: no raccoon
    beavered = cube.beaver(1, money)
    assert (beavered.value, beavered.owner, beavered.responder) == (2, 1, 0)
    with pytest.raises(CubeError, match="at most 1"):
        beavered.beaver(0, money)
    assert beavered.take(0).value == 4 and beavered.take(0).owner == 1
    with pytest.raises(CubeError, match="money play only"):
        cube.beaver(1, CubeRules(money=False, beavers=1))


def test_automatic_doubles_limit():
    rules = CubeRules(money=True, automatic_doubles=2)
    cube = Cube()
    cube = cube.automatic_double(rules, 0)
    cube = cube.automatic_double(rules, 1)
    assert cube.automatic_double(rules, 2).value == 4
    assert cube.value == 4 and cube.centred
    assert Cube().automatic_double(CubeRules(money=False, automatic_doubles=2), 0).value == 1


def test_pointless_double_notes():
    assert scoring.pointless_double_note(0, (4, 4), 5, post_crawford=True)
    assert scoring.pointless_double_note(0, (4, 2), 5, post_crawford=True)
    assert scoring.pointless_double_note(1, (4, 2), 5, post_crawford=True) is None
    assert scoring.pointless_double_note(0, (3, 2), 5, post_crawford=False) is None
    assert scoring.pointless_double_note(0, (30, 2), 0, post_crawford=False) is None


from hypothesis import given, strategies as st  # noqa: E402


@given(
    cube_log=st.integers(0, 15), owner=st.sampled_from([None, 0, 1]), dice_owner=st.integers(0, 1),
    crawford=st.booleans(), state=st.sampled_from(["none", "playing", "over", "resigned", "dropped"]),
    turn=st.integers(0, 1), doubled=st.booleans(), resigned=st.integers(0, 3),
    dice=st.tuples(st.integers(0, 6), st.integers(0, 6)), length=st.integers(0, (1 << 15) - 1),
    score=st.tuples(st.integers(0, (1 << 15) - 1), st.integers(0, (1 << 15) - 1)), jacoby_off=st.booleans(),
)
def test_match_id_round_trip(cube_log, owner, dice_owner, crawford, state, turn, doubled, resigned,
                             dice, length, score, jacoby_off):
    key = MatchKey(cube=1 << cube_log, cube_owner=owner, dice_owner=dice_owner, crawford=crawford,
                   game_state=state, turn=turn, doubled=doubled, resigned=resigned, dice=dice,
                   match_to=length, score=score, jacoby_off=jacoby_off)
    text = key.encode()
    assert len(text) == 12
    assert MatchKey.decode(text) == key


@given(st.lists(st.sampled_from(["double", "take", "drop", "beaver"]), max_size=30),
       st.integers(0, 3))
def test_cube_actions_keep_invariants(actions, beavers):
    """Whatever is tried, the cube stays a power of two <= the maximum, owned by
    whoever took last, and an illegal action raises CubeError without effect."""
    rules = CubeRules(money=True, beavers=beavers, max_cube=64)
    cube, on_roll = Cube(), 0
    for action in actions:
        before = cube
        try:
            if action == "double":
                cube = cube.double(on_roll, on_roll=on_roll, rolled=False, crawford=False, rules=rules)
            elif action == "take":
                cube = cube.take(cube.responder if cube.offered else on_roll)
            elif action == "beaver":
                cube = cube.beaver(cube.responder if cube.offered else on_roll, rules)
            else:
                points = cube.drop(cube.responder if cube.offered else on_roll)
                assert points == cube.value
                cube, on_roll = Cube(), 1 - on_roll
                continue
        except CubeError:
            assert cube == before
            continue
        assert cube.value <= 64 and cube.value & (cube.value - 1) == 0
        assert cube.beavers <= beavers
        if action == "take" and before.beavers == 0:
            assert cube.owner == before.responder
        if not cube.offered:
            on_roll = 1 - on_roll  # the turn passes in this simplified game

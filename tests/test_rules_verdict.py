"""Verdicts on observed changes: every reason code, plus the quiet kinds."""

from __future__ import annotations

import json

import pytest

from companion.dice import Dice
from companion.legal import IllegalPositionError
from companion.play import Play, apply_steps
from companion.position import Position
from companion.verdict import REASON_CODES, judge

START = Position.initial()


def after(pos, notation, allow_held=False):
    play = Play.from_notation(notation)
    return apply_steps(pos, [(m.from_point, m.to_point) for m in play.moves], allow_held)


def signed(values):
    return Position.from_signed(values)


def test_legal_play_is_named():
    v = judge(START, Dice(3, 1), after(START, "8/5 6/5"))
    assert v.kind == "legal"
    assert v.play.notation() == "8/5 6/5"
    assert v.reasons == () and v.closest_legal is None
    assert v.to_dict() == {"verdict": "legal", "play": "8/5 6/5", "reasons": [],
                           "closest_legal": None}


def test_prefix_is_in_progress_and_complete_turn_is_illegal():
    half = after(START, "24/23")
    assert judge(START, Dice(3, 1), half).kind == "in_progress"
    v = judge(START, Dice(3, 1), half, complete=True)
    assert v.kind == "illegal" and v.codes == ("both_dice",)
    # intermediate hit keeps the hop in progress: 24/23* of 24/23*/20
    pos = signed([0, -2, 0, 0, 0, -2, 5, 0, 3, 0, 0, 0, -5, 6, 0, 0, 0, -3, 0, -2, 0, 0, 0, -1,
                  1, 0])
    hop = after(pos, "24/23*")
    v = judge(pos, Dice(3, 1), hop)
    assert v.kind == "in_progress" and v.play.notation() == "24/23*"


def test_doubles_prefixes_in_any_order():
    for partial in ["13/7", "8/2", "24/18", "13/7 8/2", "24/18(2)", "13/7(2) 8/2"]:
        assert judge(START, Dice(6, 6), after(START, partial)).kind == "in_progress", partial


def test_no_change_and_dance():
    assert judge(START, Dice(6, 5), START).kind == "no_change"
    closed = signed([0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -3, 6, 0, 0, 0, 0, 0, -2, -2, -2,
                     -2, -2, -2, 1])
    v = judge(closed, Dice(6, 4), closed, complete=True)
    assert v.kind == "no_change" and v.dance
    v = judge(START, Dice(6, 5), START, complete=True)
    assert v.kind == "illegal" and v.codes == ("must_play",)


def test_moved_backwards():
    v = judge(START, Dice(3, 1), after(START, "8/5").__class__(
        mover=tuple(v + (1 if i == 9 else -1 if i == 8 else 0) for i, v in enumerate(START.mover)),
        opponent=START.opponent))
    assert v.kind == "illegal" and "moved_backwards" in v.codes
    assert "backwards" in v.reasons[0].message


def test_wrong_distance():
    v = judge(START, Dice(6, 4), after(START, "13/4"))  # 9 pips: no die or sum
    assert v.kind == "illegal" and v.codes == ("wrong_distance",)
    assert "6 or 4" in v.reasons[0].message
    assert v.closest_legal is not None


def test_landing_on_a_held_point():
    v = judge(START, Dice(6, 5), after(START, "24/18 24/19", allow_held=True))
    assert v.kind == "illegal"
    assert "point_held" in v.codes and "both_colours" in v.codes


def test_moving_another_checker_while_on_the_bar():
    pos = signed([0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 4, 0, 0, 0, -3, 0, -3, 0, 0, -2, 0,
                  2, 1])
    v = judge(pos, Dice(6, 4), after(pos, "13/7 13/9"))
    assert v.kind == "illegal" and "bar_first" in v.codes
    assert v.closest_legal.notation().startswith("bar/21")


def test_bearing_off_with_a_checker_outside():
    pos = signed([0, 0, 0, 2, 0, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -2, -2,
                  0])
    v = judge(pos, Dice(5, 3), after(pos, "5/off 3/off"))
    assert v.kind == "illegal" and v.codes == ("bear_off_outside",)


def test_bearing_off_with_a_die_that_does_not_allow_it():
    pos = signed([0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -2, -2,
                  0])
    v = judge(pos, Dice(5, 4), after(pos, "2/off(2)"))
    assert v.kind == "illegal" and v.codes == ("bear_off_die",)


def test_not_using_both_dice():
    pos = signed([0, 13, -2, -2, -2, -5, -4, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                  0, 0])
    v = judge(pos, Dice(6, 1), after(pos, "13/12"))
    assert v.kind == "illegal" and v.codes == ("both_dice",)
    assert v.closest_legal.notation() == "13/7 10/9"
    assert "13/7 10/9 was possible" in v.reasons[0].message


def test_lower_die_when_only_the_higher_may_be_played():
    pos = signed([0, 14, 0, 0, 0, 0, 0, 0, 0, 0, -4, -4, -4, -3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                  1, 0])
    v = judge(pos, Dice(6, 5), after(pos, "24/19"))
    assert v.kind == "illegal" and v.codes == ("higher_die",)
    assert "higher die (6)" in v.reasons[0].message and "24/18 was possible" in v.reasons[0].message


def test_fewer_moves_than_possible_with_doubles():
    pos = signed([0, 13, -2, -2, -2, -5, -4, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                  0, 0])
    v = judge(pos, Dice(3, 3), after(pos, "13/7"), complete=True)
    assert v.kind == "illegal" and v.codes == ("doubles_moves",)
    assert "3 were possible" in v.reasons[0].message


def test_checkers_added_or_removed():
    fewer = Position(tuple(v - (1 if i == 6 else 0) for i, v in enumerate(START.mover)),
                     START.opponent)
    v = judge(START, Dice(3, 1), fewer)
    assert v.kind == "illegal" and v.codes[0] == "count_mismatch"
    assert "removed" in v.reasons[0].message
    more = Position(START.mover, tuple(v + (1 if i == 6 else 0) for i, v in enumerate(
        START.opponent)))
    v = judge(START, Dice(3, 1), more)
    assert "count_mismatch" in v.codes and "added" in v.reasons[0].message


def test_opponent_moved():
    moved = Position(START.mover, tuple(
        v + (1 if i == 7 else -1 if i == 8 else 0) for i, v in enumerate(START.opponent)))
    v = judge(START, Dice(3, 1), moved)
    assert v.kind == "illegal" and v.codes == ("opponent_moved",)


def test_hit_checker_not_placed_on_the_bar():
    pos = signed([0, -2, 0, 0, 0, -2, 5, 0, 3, 0, 0, 0, -5, 6, 0, 0, 0, -3, 0, -2, 0, 0, 0, -1,
                  1, 0])
    hit = after(pos, "24/23*/20")
    assert judge(pos, Dice(3, 1), hit).kind == "legal"
    lost = Position(hit.mover, tuple(v - (1 if i == 25 else 0) for i, v in enumerate(
        hit.opponent)))
    v = judge(pos, Dice(3, 1), lost)
    assert v.kind == "illegal" and "hit_not_on_bar" in v.codes


def test_illegal_examples_of_the_edge_cases(shared_data):
    fitting = {
        "both_dice", "higher_die", "doubles_moves", "must_play", "bar_first", "point_held",
        "bear_off_outside", "bear_off_die", "both_colours"}
    with open(shared_data / "rules" / "move_edge_cases.json") as fh:
        cases = json.load(fh)["cases"]
    checked = 0
    for case in cases:
        pos = Position.from_signed(case["position"])
        dice = Dice(*case["dice"])
        for steps in case["illegal_examples"]:
            seen = apply_steps(pos, [tuple(s) for s in steps], allow_held=True)
            v = judge(pos, dice, seen, complete=True)
            assert v.kind == "illegal", (case["name"], steps)
            assert v.reasons and set(v.codes) <= fitting, (case["name"], steps, v.codes)
            for r in v.reasons:
                assert r.code in REASON_CODES and r.message.endswith(".")
            checked += 1
    assert checked >= 40


def test_before_must_be_valid():
    broken = Position((0,) * 26, START.opponent)
    with pytest.raises(IllegalPositionError):
        judge(broken, Dice(3, 1), START)
    with pytest.raises(ValueError):
        judge(START, (7, 1), START)

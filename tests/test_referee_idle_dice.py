"""Dice lying idle off the playing field (a pair left on the rail between turns) are no roll and
not cocked while they stay put (``companion.idle_dice``); dice that land off the field during a
phase are still cocked."""

from __future__ import annotations

from companion.idle_dice import lying_where, off_field, same_spot, with_idle, without_idle
from companion.observation import DieReading
from companion.scripted_game import DieSpec, Scene, scene_observation

from test_referee_machine import Table, opening, play_board


def _die(value, x, y, half=None, owner=None, side=40.0):
    h = side / 2
    return DieReading(value=value, center=(x, y), box=(x - h, y - h, x + h, y + h), half=half, owner=owner)


def test_same_spot_is_within_half_a_side_of_the_same_set():
    a = _die(4, 1000.0, 200.0)
    assert same_spot(a, _die(4, 1019.0, 200.0))
    assert not same_spot(a, _die(4, 1021.0, 200.0))
    assert same_spot(a, _die(2, 1005.0, 195.0))  # a misread value: the same die lying still
    assert not same_spot(_die(4, 1000.0, 200.0, owner="top"), _die(4, 1000.0, 200.0, owner="bottom"))
    # without boxes: within SPOT_PX pixels
    bare = DieReading(value=3, center=(10.0, 10.0))
    assert same_spot(bare, DieReading(value=3, center=(19.0, 10.0)))
    assert not same_spot(bare, DieReading(value=3, center=(21.0, 10.0)))


def test_lying_where_and_without_idle():
    rail = (_die(4, 1220.0, 200.0), _die(2, 1220.0, 290.0))
    roll = (_die(6, 300.0, 360.0, half="left"), _die(5, 390.0, 360.0, half="left"))
    assert off_field(rail + roll) == rail
    assert lying_where(rail, roll + rail[:1]) == rail[:1]  # the 2 was picked up
    assert lying_where(rail, roll) == ()
    # a new die off the field is kept; idle dice on the field (the previous turn's) are left out
    new = _die(3, 1220.0, 500.0)
    assert without_idle(roll + rail + (new,), rail) == roll + (new,)
    assert without_idle(roll, ()) == roll
    assert without_idle(roll + rail, rail + roll[:1]) == roll[1:]
    assert lying_where(roll + rail, (_die(1, 1225.0, 205.0),)) == rail[:1]
    assert with_idle(rail[:1], rail) == rail


def _after_opening_play(t, put_down):
    """Opening 3-1 for player 0 (bottom), played 8/5 6/5; the dice then lie as ``put_down``."""
    opening(t, 3, 1)
    t.clear()
    t.hand()
    t.show([DieSpec(3, "right"), DieSpec(1, "left")], board=play_board(0, [(8, 5), (6, 5)], t.board))
    t.hand()
    t.show(put_down)


def _legal_then_roll(ev, mover, dice):
    """``ev`` (judged events) is ``mover``'s play judged legal, then his opponent's roll of ``dice``."""
    assert [e["type"] for e in ev] == ["verdict", "roll"], ev
    assert ev[0]["verdict"] == "legal" and ev[0]["player"] == mover
    assert ev[1]["player"] == 1 - mover and sorted(ev[1]["dice"]) == sorted(dice)


def test_two_pairs_without_sets_the_pair_put_on_the_rail_is_idle():
    t = Table()
    rail0 = [DieSpec(3, None), DieSpec(1, None, slot=1)]
    _after_opening_play(t, rail0)
    # the dice moved to the rail: still "down" (the turn ends when the opponent rolls), nobody accused
    assert t.judged() == []
    # player 1 rolls his own pair into his right-hand board (the image's left)
    t.hand()
    t.show([DieSpec(6, "left"), DieSpec(5, "left", slot=1)] + rail0)
    _legal_then_roll(t.judged(), mover=0, dice=[5, 6])
    # he plays 24/18 13/8 and puts his pair on the rail beside player 0's
    t.clear()
    t.hand()
    t.show([DieSpec(6, "left"), DieSpec(5, "left", slot=1)] + rail0, board=play_board(1, [(24, 18), (13, 8)], t.board))
    rail1 = [DieSpec(6, None, slot=2), DieSpec(5, None, slot=3)]
    t.hand()
    t.show(rail0 + rail1)
    assert t.judged() == []
    # player 0 picks up his pair from the rail and rolls 2-2; player 1's pair stays on the rail
    t.hand()
    t.show([DieSpec(2, "right"), DieSpec(2, "right", slot=1)] + rail1)
    _legal_then_roll(t.judged(), mover=1, dice=[2, 2])


def test_the_rollers_own_pair_resting_on_the_rail_is_not_his_roll():
    t = Table()
    # player 1's set lies on the rail during player 0's play; player 0 picks up his dice (the turn ends)
    idle = [DieSpec(4, None, owner="top"), DieSpec(2, None, slot=1, owner="top")]
    opening(t, 3, 1)
    t.hand()
    t.show([DieSpec(3, "right", owner="bottom"), DieSpec(1, "left", owner="top")])
    t.hand()
    t.show([DieSpec(3, "right", owner="bottom"), DieSpec(1, "left", owner="top")] + idle,
           board=play_board(0, [(8, 5), (6, 5)], t.board))
    t.hand()
    t.show(idle)
    assert [e["verdict"] for e in t.judged("verdict")] == ["legal"]
    assert t.referee.match.on_roll == 1 and t.session.state()["waiting_for"] == "roll"
    # player 0 puts his own pair down beside the board (a new picture); player 1's pair still lies
    # on the rail: it is not his roll, and nothing is cocked
    t.clear()
    t.hand()
    t.show(idle + [DieSpec(3, None, slot=2, owner="bottom"), DieSpec(1, None, slot=3, owner="bottom")])
    assert t.judged() == []
    # he rolls it: one die lands off the field, elsewhere on the rail: cocked
    t.hand()
    t.show([DieSpec(6, "left", owner="top"), DieSpec(5, None, slot=4, owner="top")])
    ev = t.judged()
    assert [e["type"] for e in ev] == ["cocked_dice"] and [r["code"] for r in ev[0]["reasons"]] == ["off_board"]
    # rolled again, both flat in his right-hand board
    t.clear()
    t.hand()
    t.show([DieSpec(6, "left", owner="top"), DieSpec(5, "left", slot=1, owner="top")])
    ev = t.judged()
    assert [e["type"] for e in ev] == ["roll"] and ev[0]["player"] == 1 and sorted(ev[0]["dice"]) == [5, 6]


def test_an_idle_die_picked_up_and_put_back_elsewhere_is_judged():
    t = Table()
    rail0 = [DieSpec(3, None), DieSpec(1, None, slot=1)]
    _after_opening_play(t, rail0)
    t.hand()
    t.show([DieSpec(6, "left"), DieSpec(5, "left", slot=1)] + rail0)
    assert [e["type"] for e in t.judged()] == ["verdict", "roll"]
    t.clear()
    # during player 1's play his pair stays down; player 0's 1 moves along the rail: not idle now,
    # the play is in progress whatever (dice down), so nobody is accused
    t.hand()
    t.show([DieSpec(6, "left"), DieSpec(5, "left", slot=1), DieSpec(3, None), DieSpec(1, None, slot=3)])
    assert t.judged() == []
    now = scene_observation(Scene(t.board, (DieSpec(6, "left"), DieSpec(5, "left", slot=1), DieSpec(3, None),
                                            DieSpec(1, None, slot=3))))
    assert sorted(d.value for d in t.referee.dice_in_play(now).dice) == [1, 5, 6]  # the 3 is still idle


def test_a_premature_roll_stands_and_the_previous_turns_dice_are_idle():
    """US rules 2008, 4.6: the opponent rolls before the mover lifts his dice; the roll stands."""
    t = Table()
    opening(t, 3, 1)
    t.hand()
    t.show([DieSpec(3, "right"), DieSpec(1, "left")], board=play_board(0, [(8, 5), (6, 5)], t.board))
    t.hand()
    t.show()
    t.hand()
    t.show([DieSpec(6, "left"), DieSpec(5, "left", slot=1)])
    t.hand()
    t.show([DieSpec(6, "left"), DieSpec(5, "left", slot=1)], board=play_board(1, [(24, 18), (13, 8)], t.board))
    t.clear()
    # player 0 rolls 4-2 into his right-hand board while player 1's 6-5 still lie in his
    t.hand()
    t.show([DieSpec(6, "left"), DieSpec(5, "left", slot=1), DieSpec(4, "right"), DieSpec(2, "right", slot=1)])
    _legal_then_roll(t.judged(), mover=1, dice=[2, 4])
    # player 0 plays 13/9 6/4 (his numbering) while the 6-5 still lie, then lifts his dice: judged
    t.clear()
    t.hand()
    t.show([DieSpec(6, "left"), DieSpec(5, "left", slot=1), DieSpec(4, "right"), DieSpec(2, "right", slot=1)],
           board=play_board(0, [(13, 9), (6, 4)], t.board))
    assert t.judged() == []
    t.hand()
    t.show([DieSpec(6, "left"), DieSpec(5, "left", slot=1)])
    v = t.judged("verdict")
    assert [(e["verdict"], e["player"]) for e in v] == [("legal", 0)]
    # a die moved by hand from where it lay is no longer idle: player 1's roll from his own set
    t.clear()
    t.hand()
    t.show([DieSpec(3, "left", slot=2), DieSpec(3, "left", slot=3)])
    ev = t.judged()
    assert [e["type"] for e in ev] == ["roll"] and ev[0]["player"] == 1 and ev[0]["dice"] == [3, 3]

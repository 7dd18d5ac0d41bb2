"""A roll read again where its dice still lie (``companion.roll_revision``): a die read unsurely
that a later still frame reads surely as another value changes the roll before its play is
judged, so a legal play of the true roll is not called illegal; and a play that a die read
unsurely would make legal as another value is not called illegal either."""

from __future__ import annotations

import dataclasses

from companion.observation import DieReading
from companion.roll_revision import SURE_DIE, confirmed_readings, other_readings, revised_readings
from companion.scripted_game import DieSpec, Scene, comparable, scene_observation

from test_referee_machine import Table as _Table
from test_referee_machine import play_board


class Table(_Table):
    """:class:`test_referee_machine.Table` whose :meth:`show` takes ``unsure``: die index ->
    the confidence that die is read at (every other die at 1.0), and ``values``: die index -> the
    reader's six probabilities of that die (none for the others)."""

    def show(self, dice=(), board=None, cube=None, frames=5, moved=True, unsure=None, values=None):
        if board is not None:
            self.board = tuple(board)
        obs = scene_observation(Scene(self.board, tuple(dice), self.cube), self.layout)
        read = tuple(dataclasses.replace(d, confidence=(unsure or {}).get(i, 1.0), values=(values or {}).get(i, ()))
                     for i, d in enumerate(obs.dice))
        for k in range(frames):
            self.session.feed_observation(dataclasses.replace(obs, dice=read, timestamp_ms=self.t),
                                          moving=moved and k == 0)
            self.t += 33.3


def _die(value, x, confidence=1.0, cocked=False):
    return DieReading(value=value, center=(x, 360.0), box=(x - 22, 338.0, x + 22, 382.0),
                      confidence=confidence, cocked=cocked)


def test_only_an_unsure_die_is_replaced_and_only_by_a_sure_reading_at_its_spot():
    roll = (_die(5, 820.0, 0.96), _die(1, 910.0, 0.70))
    assert revised_readings(roll, (_die(5, 821.0, 0.97), _die(2, 905.0, 0.97))) == (roll[0], _die(2, 905.0, 0.97))
    assert revised_readings(roll, (_die(5, 821.0), _die(1, 905.0, 0.99))) is None  # the same value
    assert revised_readings(roll, (_die(5, 821.0), _die(2, 905.0, SURE_DIE - 0.01))) is None  # not sure
    assert revised_readings(roll, (_die(5, 821.0), _die(2, 905.0, cocked=True))) is None  # now leaning
    assert revised_readings(roll, (_die(5, 821.0), _die(2, 960.0))) is None  # another spot: moved
    assert revised_readings(roll, (_die(2, 905.0), _die(3, 915.0))) is None  # two dice at the spot
    # a sure reading is never replaced
    assert revised_readings((_die(5, 820.0, 0.95), _die(1, 910.0, 0.95)), (_die(5, 820.0), _die(2, 910.0))) is None


def _opening_52_read_as_51(t, confidence):
    t.show([DieSpec(5, "right"), DieSpec(1, "left")], unsure={1: confidence})
    t.hand()
    # the first checker moved; the dice still lie there and the 2 is now read as a 2
    t.show([DieSpec(5, "right"), DieSpec(2, "left")], board=play_board(0, [(13, 8)], t.board))
    t.hand()
    t.show([DieSpec(5, "right"), DieSpec(2, "left")], board=play_board(0, [(13, 11)], t.board))
    t.hand()
    t.show()  # the dice picked up: the play is judged


def test_an_opening_die_read_unsurely_is_read_again_and_the_play_judged_with_it():
    t = Table()
    _opening_52_read_as_51(t, confidence=0.7)
    ev = t.judged("roll", "verdict")
    assert [e["type"] for e in ev] == ["roll", "roll", "verdict"], ev
    assert ev[0]["dice"] == [5, 1] and not ev[0]["revised"]
    assert ev[1]["dice"] == [5, 2] and ev[1]["revised"] and ev[1]["opening"] and ev[1]["player"] == 0
    assert ev[2]["verdict"] == "legal" and sorted(ev[2]["play"].split()) == ["13/11", "13/8"]
    assert list(t.referee.match.dice or ()) in ([], [5, 2])
    # the benchmarks' stream: the revised roll stands for the first
    assert [e for e in comparable(t.events) if e["type"] == "roll"] == [
        {"type": "roll", "player": 0, "dice": [5, 2], "opening": True}]


def test_a_roll_read_surely_is_not_changed_by_a_later_reading():
    t = Table()
    _opening_52_read_as_51(t, confidence=0.95)
    ev = t.judged("roll", "verdict")
    assert [e["type"] for e in ev] == ["roll", "verdict"], ev
    assert ev[1]["verdict"] == "illegal"


def test_an_opening_roll_is_not_revised_to_another_first_mover():
    t = Table()
    t.show([DieSpec(5, "right"), DieSpec(4, "left")], unsure={1: 0.6})  # player 0 moves first
    t.hand()
    t.show([DieSpec(5, "right"), DieSpec(6, "left")], board=play_board(0, [(13, 8)], t.board))
    assert [e["dice"] for e in t.judged("roll")] == [[5, 4]]


def test_a_players_roll_is_revised_before_the_play_is_judged():
    t = Table()
    t.show([DieSpec(3, "right"), DieSpec(1, "left")])
    t.hand()
    t.show(board=play_board(0, [(8, 5), (6, 5)], t.board))  # 3-1 played, dice picked up
    t.clear()
    t.show([DieSpec(3, "left"), DieSpec(4, "left", slot=1)], unsure={0: 0.55})  # player 1: 5-4 read as 3-4
    t.hand()
    t.show([DieSpec(5, "left"), DieSpec(4, "left", slot=1)], board=play_board(1, [(13, 8)], t.board))
    t.hand()
    t.show([DieSpec(5, "left"), DieSpec(4, "left", slot=1)], board=play_board(1, [(13, 9)], t.board))
    t.hand()
    t.show()
    ev = t.judged("roll", "verdict")
    assert [(e["type"], e.get("dice"), e.get("revised")) for e in ev[:2]] == [("roll", [3, 4], False), ("roll", [5, 4], True)]
    assert ev[2]["verdict"] == "legal" and ev[2]["player"] == 1


def test_the_other_readings_of_a_roll_change_its_unsure_dice():
    sure, unsure = _die(5, 820.0, 0.95), _die(1, 910.0, 0.7)
    assert other_readings((sure, unsure)) == [(5, 2), (5, 3), (5, 4), (5, 5), (5, 6)]
    assert other_readings((unsure, sure)) == [(2, 5), (3, 5), (4, 5), (5, 5), (6, 5)]
    assert other_readings((sure, sure)) == [] and other_readings((unsure,)) == []
    both = other_readings((_die(5, 820.0, 0.6), unsure))
    assert both[:10] == [(v, 1) for v in (1, 2, 3, 4, 6)] + [(5, v) for v in (2, 3, 4, 5, 6)]
    assert len(both) == 10 + 25 and (6, 6) in both and (5, 1) not in both


def _opening_52_always_read_as_51(t, confidence, moves, values=()):
    dice = [DieSpec(5, "right"), DieSpec(1, "left")]
    t.show(dice, unsure={1: confidence}, values={1: values})
    for move in moves:
        t.hand()
        t.show(dice, board=play_board(0, [move], t.board), unsure={1: confidence}, values={1: values})
    t.hand()
    t.show()  # the dice picked up: the play is judged


def test_a_play_that_fits_the_roll_were_an_unsure_die_another_value_is_not_called_illegal():
    """A jumbo 2 read as a 1 at 0.72 in every frame (rendered game 1483): the opening 5-2 played
    13/8 13/11 is illegal for 5-1 but legal for 5-2, so the roll becomes 5-2 and the play is legal."""
    t = Table()
    _opening_52_always_read_as_51(t, 0.72, [(13, 8), (13, 11)])
    ev = t.judged("roll", "verdict")
    assert [(e["type"], e.get("dice"), e.get("revised")) for e in ev[:2]] == [("roll", [5, 1], False), ("roll", [5, 2], True)]
    assert ev[2]["verdict"] == "legal" and sorted(ev[2]["play"].split()) == ["13/11", "13/8"]
    assert not [e for e in t.events if e["type"] == "verdict" and e["verdict"] == "illegal"]


def test_a_play_is_still_illegal_when_the_die_was_read_surely_or_no_value_fits():
    t = Table()
    _opening_52_always_read_as_51(t, 0.95, [(13, 8), (13, 11)])
    ev = t.judged("roll", "verdict")
    assert [e["type"] for e in ev] == ["roll", "verdict"] and ev[1]["verdict"] == "illegal"
    # three checkers moved: no value of the unsure die makes that a play of one roll
    t = Table()
    _opening_52_always_read_as_51(t, 0.72, [(13, 8), (13, 11), (6, 5)])
    ev = t.judged("roll", "verdict")
    assert [e["type"] for e in ev] == ["roll", "verdict"] and ev[1]["verdict"] == "illegal"


def test_an_unsure_die_is_taken_only_for_a_value_the_reader_found_likely():
    """The reader's probabilities of an unsure die (``DieReading.values``) name the values it may
    show: rendered game 1483's 1 gave the true 2 0.18; a 1 that gave the 2 0.03 is no 2, and the
    play that a 2 would make legal stays illegal."""
    unsure = dataclasses.replace(_die(1, 910.0, 0.67), values=(0.67, 0.18, 0.02, 0.06, 0.02, 0.01))
    assert other_readings((_die(5, 820.0, 0.95), unsure)) == [(5, 2), (5, 4)]
    assert other_readings((_die(5, 820.0, 0.95), unsure), alternative=0.0) == [(5, v) for v in (2, 3, 4, 5, 6)]
    t = Table()
    _opening_52_always_read_as_51(t, 0.72, [(13, 8), (13, 11)], values=(0.72, 0.18, 0.03, 0.03, 0.02, 0.02))
    ev = t.judged("roll", "verdict")
    assert [(e["type"], e.get("dice")) for e in ev[:2]] == [("roll", [5, 1]), ("roll", [5, 2])]
    assert ev[2]["verdict"] == "legal"
    t = Table()
    _opening_52_always_read_as_51(t, 0.72, [(13, 8), (13, 11)], values=(0.72, 0.03, 0.03, 0.12, 0.05, 0.05))
    ev = t.judged("roll", "verdict")
    assert [e["type"] for e in ev] == ["roll", "verdict"] and ev[1]["verdict"] == "illegal"


def test_an_unsure_die_is_confirmed_only_by_a_sure_flat_reading_of_its_value_at_its_spot():
    roll = (_die(1, 820.0, 0.80), _die(3, 910.0, 0.95))
    assert confirmed_readings(roll, (_die(1, 822.0, 0.91), _die(3, 910.0))) == (_die(1, 822.0, 0.91), roll[1])
    assert confirmed_readings(roll, (_die(2, 822.0, 0.97), _die(3, 910.0))) is None  # another value: a revision
    assert confirmed_readings(roll, (_die(1, 822.0, SURE_DIE - 0.01),)) is None  # not sure
    assert confirmed_readings(roll, (_die(1, 822.0, cocked=True),)) is None  # now leaning
    assert confirmed_readings(roll, (_die(1, 880.0),)) is None  # another spot: moved
    assert confirmed_readings((_die(1, 820.0, 0.95), roll[1]), (_die(1, 820.0),)) is None  # sure already


def test_an_illegal_play_is_called_when_the_unsure_die_was_read_surely_where_it_lies():
    """Rendered game 1521: the opening 1-3's red 1 on a dark red point read at 0.80 on the roll's
    frame and at 0.91 later where it lies; the play 8/6 8/5 fits a 2-3 but not the 1-3 rolled.
    Read surely with the same value, the 1 is no die of doubt: the play is illegal."""
    t = Table()
    dice = [DieSpec(1, "right"), DieSpec(3, "left")]  # player 1 moves first
    values = (0.80, 0.15, 0.02, 0.01, 0.01, 0.01)
    t.show(dice, unsure={0: 0.80}, values={0: values})
    t.hand()
    t.show(dice, board=play_board(1, [(8, 6)], t.board), unsure={0: 0.91}, values={0: values})
    t.hand()
    t.show(dice, board=play_board(1, [(8, 5)], t.board), unsure={0: 0.85}, values={0: values})
    t.hand()
    t.show()  # the dice picked up: the play is judged
    ev = t.judged("roll", "verdict")
    assert [(e["type"], e.get("dice"), e.get("revised")) for e in ev[:1]] == [("roll", [1, 3], False)]
    assert [e["verdict"] for e in ev if e["type"] == "verdict"] == ["illegal"], ev

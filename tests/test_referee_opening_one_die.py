"""The opening roll played while the camera saw only one of its dice (a small travel die it does
not find): the other die is the one value that makes the board a legal opening play, so the game
is followed instead of every later board being reported as not the starting position
(companion/referee.py, ``Referee._opening_one_die_played``)."""

from __future__ import annotations

from companion.scripted_game import DieSpec
from companion.table import START_SIGNED as START
from tests.test_referee_machine import Table, play_board


def test_the_unseen_die_of_an_opening_roll_is_the_one_its_play_allows():
    t = Table()
    t.show([DieSpec(4, "right")])  # player 0's 4; player 1's 3 is not seen
    assert t.judged() == []
    t.hand()
    t.show([DieSpec(4, "right")], board=play_board(0, [(13, 9), (13, 10)], t.board))
    t.hand()
    t.show()  # the dice picked up: the play is judged
    ev = t.judged()
    assert [e["type"] for e in ev] == ["roll", "verdict"]
    assert ev[0]["opening"] is True and ev[0]["player"] == 0 and ev[0]["dice"] == [4, 3]
    assert ev[1]["verdict"] == "legal" and sorted(ev[1]["play"].split()) == ["13/10", "13/9"]
    assert t.referee.match.on_roll == 1


def test_the_player_whose_die_was_not_seen_may_be_the_mover():
    """Player 0's 2 was seen in the right half; player 1 plays a 5-2: the unseen die was a 5 in
    the left half, so player 1 won the opening."""
    t = Table()
    t.show([DieSpec(2, "right")])
    t.hand()
    t.show(board=play_board(1, [(13, 8), (13, 11)], t.board))  # played, the dice already picked up
    ev = t.judged()
    assert [e["type"] for e in ev] == ["roll", "verdict"]
    assert ev[0]["player"] == 1 and ev[0]["dice"] == [2, 5]
    assert ev[1]["verdict"] == "legal" and ev[1]["player"] == 1
    assert t.referee.match.on_roll == 0


def test_a_board_on_the_way_to_such_a_play_is_waited_out_without_a_report():
    t = Table()
    t.show([DieSpec(4, "right")])
    t.hand()
    t.show([DieSpec(4, "right")], board=play_board(0, [(13, 9)], t.board))  # one checker moved so far
    assert t.judged() == []
    t.hand()
    t.show([DieSpec(4, "right")], board=play_board(0, [(13, 9), (13, 10)], START))
    assert [e["type"] for e in t.judged()] == ["roll"]


def test_a_change_no_value_of_the_unseen_die_explains_is_reported():
    t = Table()
    t.show([DieSpec(4, "right")])
    t.hand()
    t.show(board=play_board(0, [(24, 18), (13, 11)], t.board))  # a 6-2: no 4 in it
    ev = t.judged()
    assert [e["type"] for e in ev] == ["verdict"] and ev[0]["verdict"] == "position_changed"
    assert t.referee.match.phase == "opening_roll"


def test_without_a_die_seen_nothing_is_guessed():
    t = Table()
    t.show(board=play_board(0, [(13, 9), (13, 10)], t.board))
    ev = t.judged()
    assert [e["type"] for e in ev] == ["verdict"] and ev[0]["verdict"] == "position_changed"
    # a die seen alone but cocked is no die to infer from either
    t2 = Table()
    t2.show([DieSpec(4, "right", cocked=True)])
    t2.hand()
    t2.show(board=play_board(0, [(13, 9), (13, 10)], t2.board))
    assert [e["type"] for e in t2.judged()] == ["cocked_dice", "verdict"]
    assert t2.judged("verdict")[0]["verdict"] == "position_changed"

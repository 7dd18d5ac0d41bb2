"""A roll with one die seen (the other a small die the camera does not find) that the players
play anyway: it is called cocked at once (``die_not_seen``), and then the other die is the one
value that makes the board a legal play, so the game is followed instead of the play being
reported as checkers moved while nobody plays (companion/referee.py,
``Referee._one_die_played``)."""

from __future__ import annotations

from companion.scripted_game import DieSpec
from tests.test_referee_machine import Table, play_board


def after_opening() -> Table:
    """Player 0 won the opening with 3-1 and played 8/5 6/5; player 1 is to roll."""
    t = Table()
    t.show([DieSpec(3, "right"), DieSpec(1, "left")])
    t.hand()
    t.show(board=play_board(0, [(8, 5), (6, 5)], t.board))
    assert t.referee.match.on_roll == 1
    t.clear()
    return t


def test_a_roll_played_with_one_die_unseen_is_followed():
    t = after_opening()
    t.show([DieSpec(4, "left")])  # player 1 rolled 4-2; the 2 is not found
    assert [(e["type"], e["reasons"][0]["code"]) for e in t.judged()] == [("cocked_dice", "die_not_seen")]
    t.hand()
    t.show([DieSpec(4, "left")], board=play_board(1, [(13, 9), (13, 11)], t.board))
    t.hand()
    t.show()  # the dice picked up
    ev = t.judged("roll", "verdict")
    assert [e["type"] for e in ev] == ["roll", "verdict"]
    assert ev[0]["player"] == 1 and ev[0]["dice"] == [4, 2]
    assert ev[1]["verdict"] == "legal" and sorted(ev[1]["play"].split()) == ["13/11", "13/9"]
    assert t.referee.match.on_roll == 0


def test_the_play_is_followed_when_the_dice_were_picked_up_before_a_still_frame():
    t = after_opening()
    t.show([DieSpec(6, "left")])
    t.hand()
    t.show(board=play_board(1, [(24, 18), (13, 8)], t.board))  # 6-5, the 5 never seen
    ev = t.judged("roll", "verdict")
    assert ev[0]["dice"] == [6, 5] and ev[1]["verdict"] == "legal"


def test_doubles_with_one_die_seen():
    t = after_opening()
    t.show([DieSpec(3, "left")])
    t.hand()
    t.show(board=play_board(1, [(24, 21), (24, 21), (13, 10), (13, 10)], t.board))
    ev = t.judged("roll", "verdict")
    assert ev[0]["dice"] == [3, 3] and ev[1]["verdict"] == "legal"


def test_a_board_on_the_way_is_waited_out_while_the_die_lies():
    t = after_opening()
    t.show([DieSpec(4, "left")])
    t.clear()
    t.hand()
    before = t.board
    # one checker moved 4: a part of every roll with a 4, and the whole of none
    t.show([DieSpec(4, "left")], board=play_board(1, [(13, 9)], before))
    assert t.judged() == []
    t.hand()
    # on to 8: the whole of 4-1, and a part of 4-5 (its 5 played first): still waited out
    t.show([DieSpec(4, "left")], board=play_board(1, [(13, 9), (9, 8)], before))
    assert t.judged() == []
    t.hand()
    t.show()  # the dice picked up: the play is over, and only 4-1 makes it
    ev = t.judged("roll", "verdict")
    assert ev[0]["dice"] == [4, 1] and ev[1]["verdict"] == "legal"


def test_a_part_of_a_play_left_when_the_dice_are_picked_up_is_reported():
    t = after_opening()
    t.show([DieSpec(4, "left")])
    t.hand()
    t.show([DieSpec(4, "left")], board=play_board(1, [(13, 9), (9, 5)], t.board))  # a part of 4-4 only
    assert not t.judged("verdict")
    t.hand()
    t.show()
    assert [e["verdict"] for e in t.judged("verdict")] == ["position_changed"]
    assert not t.judged("roll")


def test_a_change_no_value_explains_is_still_reported():
    t = after_opening()
    t.show([DieSpec(4, "left")])
    t.hand()
    t.show(board=play_board(1, [(24, 18), (13, 11)], t.board))  # 6-2: no 4 in it
    ev = t.judged("verdict")
    assert [e["verdict"] for e in ev] == ["position_changed"]
    assert not t.judged("roll") and t.referee.match.on_roll == 1


def test_an_illegal_play_of_an_inferred_roll_is_never_called():
    """The inferred die makes the board a legal play or nothing: a 4-2 played as 13/9 13/7 (a 4
    and a 6) fits 4-6, which is taken; the camera cannot tell which die it missed."""
    t = after_opening()
    t.show([DieSpec(4, "left")])
    t.hand()
    t.show(board=play_board(1, [(13, 9), (13, 7)], t.board))
    ev = t.judged("roll", "verdict")
    assert ev[0]["dice"] == [4, 6] and ev[1]["verdict"] == "legal"
    assert not [e for e in ev if e.get("verdict") == "illegal"]


def test_a_die_called_cocked_for_another_reason_is_no_die_to_infer_from():
    t = after_opening()
    t.show([DieSpec(4, "left", cocked=True)])
    t.hand()
    t.show(board=play_board(1, [(13, 9), (13, 11)], t.board))
    assert [e["verdict"] for e in t.judged("verdict")] == ["position_changed"]
    assert not t.judged("roll")

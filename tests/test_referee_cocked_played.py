"""A roll called cocked that the players play anyway: the referee follows the game (the players are
the judges of a cocked die) when the camera's call was "not flat" and the board shows a legal play
of the dice still lying there; otherwise the changed position is reported as before."""

from __future__ import annotations

from companion.scripted_game import DieSpec
from tests.test_referee_machine import Table, opening, play_board


def after_opening(t: Table) -> None:
    opening(t, 5, 2)
    t.hand()
    t.show(board=play_board(0, [(13, 8), (13, 11)], t.board))
    t.clear()


def test_a_roll_called_tilted_and_played_is_followed():
    t = Table()
    after_opening(t)
    dice = [DieSpec(6, "left", cocked=True), DieSpec(2, "left", slot=1)]  # player 1: the 6 read as leaning
    t.show(dice)
    assert [e["type"] for e in t.judged()] == ["cocked_dice"]
    t.hand()
    t.show(dice, board=play_board(1, [(24, 18), (13, 11)], t.board))  # played anyway, the dice still down
    t.hand()
    t.show()  # the dice picked up
    ev = t.judged()
    assert [e["type"] for e in ev] == ["cocked_dice", "roll", "verdict"]
    assert ev[1]["dice"] == [6, 2] and ev[1]["player"] == 1
    assert ev[2]["verdict"] == "legal" and ev[2]["play"] == "24/18 13/11"
    assert t.referee.match.on_roll == 0


def test_a_change_that_is_no_play_of_the_dice_is_still_a_changed_position():
    t = Table()
    after_opening(t)
    dice = [DieSpec(6, "left", cocked=True), DieSpec(2, "left", slot=1)]
    t.show(dice)
    t.hand()
    t.show(dice, board=play_board(1, [(24, 20)], t.board))  # no 4 was rolled
    t.hand()
    t.show()
    ev = t.judged()
    assert [e["type"] for e in ev] == ["cocked_dice", "verdict"]
    assert ev[1]["verdict"] == "position_changed"
    assert t.referee.match.on_roll == 1  # still to roll


def test_dice_in_the_wrong_half_played_anyway_are_not_overruled():
    t = Table()
    after_opening(t)
    dice = [DieSpec(6, "right"), DieSpec(2, "right", slot=1)]  # player 1's roll in player 0's half
    t.show(dice)
    t.hand()
    t.show(dice, board=play_board(1, [(24, 18), (13, 11)], t.board))
    t.hand()
    t.show()
    ev = t.judged()
    assert [e["type"] for e in ev] == ["cocked_dice", "verdict"]
    assert ev[0]["reasons"][0]["code"] == "wrong_half" and ev[1]["verdict"] == "position_changed"


def test_an_opening_roll_called_tilted_and_played_is_followed():
    t = Table()
    dice = [DieSpec(5, "right", cocked=True), DieSpec(2, "left")]
    t.show(dice)
    assert [e["type"] for e in t.judged()] == ["cocked_dice"]
    t.hand()
    t.show(dice, board=play_board(0, [(13, 8), (13, 11)], t.board))
    t.hand()
    t.show()
    ev = t.judged()
    assert [e["type"] for e in ev] == ["cocked_dice", "roll", "verdict"]
    assert ev[1]["opening"] is True and ev[1]["player"] == 0 and sorted(ev[1]["dice"]) == [2, 5]
    assert ev[2]["verdict"] == "legal" and sorted(ev[2]["play"].split()) == ["13/11", "13/8"]
    # a tie called cocked and moved is not an opening roll: the board is not the starting position
    t2 = Table()
    tie = [DieSpec(4, "right", cocked=True), DieSpec(4, "left")]
    t2.show(tie)
    t2.hand()
    t2.show(tie, board=play_board(0, [(13, 9), (13, 9)], t2.board))
    assert [e["type"] for e in t2.judged()] == ["cocked_dice", "verdict"]
    assert t2.judged("verdict")[0]["verdict"] == "position_changed"


def test_an_opening_die_read_flat_again_after_the_play_is_followed_too():
    """The camera's second look at the same die (same value, same half) may read it flat: the
    opening roll called cocked is still taken as played, not a changed starting position."""
    t = Table()
    t.show([DieSpec(6, "right", cocked=True), DieSpec(5, "left")])
    t.hand()
    t.show([DieSpec(6, "right"), DieSpec(5, "left")], board=play_board(0, [(24, 18), (18, 13)], t.board))
    t.hand()
    t.show()
    ev = t.judged()
    assert [e["type"] for e in ev] == ["cocked_dice", "roll", "verdict"]
    assert ev[2]["verdict"] == "legal"
    # other dice than those called cocked are no roll played anyway
    t2 = Table()
    t2.show([DieSpec(6, "right", cocked=True), DieSpec(5, "left")])
    t2.hand()
    t2.show([DieSpec(3, "right"), DieSpec(1, "left")], board=play_board(0, [(8, 5), (6, 5)], t2.board))
    assert [e["verdict"] for e in t2.judged("verdict")] == ["position_changed"]


def test_the_opening_dice_moved_by_the_mover_are_still_the_roll_called_cocked():
    """Player 1 won the opening (the 5 in the left half) and moved the dice before playing: the
    mover is who won the roll as it lay when it was called cocked."""
    t = Table()
    t.show([DieSpec(1, "right"), DieSpec(5, "left", cocked=True)])
    t.hand()
    t.show([DieSpec(5, "right"), DieSpec(1, "left")], board=play_board(1, [(13, 8), (6, 5)], t.board))
    t.hand()
    t.show()
    ev = t.judged()
    assert [e["type"] for e in ev] == ["cocked_dice", "roll", "verdict"]
    assert ev[1]["player"] == 1 and ev[2]["verdict"] == "legal" and ev[2]["player"] == 1

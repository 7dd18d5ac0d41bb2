"""One die of the mover's roll seen alone in the opponent's right-hand board is not the opponent
rolling: after the opening roll a die lies in each half, and with the other die hidden or missed
the play in progress must not be judged as finished (a false accusation)."""

from __future__ import annotations

from companion.scripted_game import DieSpec
from tests.test_referee_machine import Table, opening, play_board


def test_the_opening_winner_s_die_in_the_other_half_seen_alone_mid_play_is_not_a_new_roll():
    t = Table()
    opening(t, 2, 6)  # player 1 wins with 6-2; the 2 lies in player 0's right-hand board
    start = t.board
    t.hand()
    t.show([DieSpec(2, "right")], board=play_board(1, [(13, 11)], start))  # the 6 hidden: half played
    t.hand()
    t.show([DieSpec(2, "right"), DieSpec(6, "left")], board=play_board(1, [(13, 11), (13, 7)], start))
    t.hand()
    t.show()  # the dice picked up
    ev = t.judged()
    assert [e["type"] for e in ev] == ["roll", "verdict"], ev
    assert ev[0]["player"] == 1 and sorted(ev[0]["dice"]) == [2, 6]
    assert ev[1]["verdict"] == "legal" and sorted(ev[1]["play"].split()) == ["13/11", "13/7"]


def test_the_opponent_s_roll_seen_as_one_die_of_another_value_ends_the_turn():
    t = Table()
    opening(t, 2, 6)
    t.hand()
    t.show([DieSpec(2, "right"), DieSpec(6, "left")], board=play_board(1, [(13, 11), (13, 7)], t.board))
    t.hand()
    t.show([DieSpec(5, "right", slot=1)])  # player 0 rolls, one of his dice not seen yet: a 5, no die of 6-2
    ev = t.judged()
    assert [e["type"] for e in ev][:2] == ["roll", "verdict"], ev
    assert ev[1]["verdict"] == "legal" and ev[1]["player"] == 1

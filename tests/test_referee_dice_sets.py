"""Two sets of dice, told apart by colour (the profile's ``dice_sets``): the other player's pair
lying idle beside the board is neither the roll nor cocked, and does not hold the turn open."""

from __future__ import annotations

from companion.scripted_game import DieSpec, Scene, scene_observation

from test_referee_machine import Table, opening, play_board


def _after_opening_play(t):
    """Opening 3-1 for player 0 (bottom), played 8/5 6/5, the dice picked up."""
    opening(t, 3, 1)
    t.hand()
    t.show([DieSpec(3, "right"), DieSpec(1, "left")], board=play_board(0, [(8, 5), (6, 5)], t.board))
    t.hand()
    t.show()
    assert t.judged("verdict")[-1]["verdict"] == "legal"
    t.clear()


def test_idle_pair_beside_the_board_is_left_out_of_the_roll():
    t = Table()
    _after_opening_play(t)
    # player 1 (top) rolls his set into his right-hand board (the image's left); player 0's pair
    # lies on the rail
    idle = [DieSpec(4, None, owner="bottom"), DieSpec(2, None, slot=1, owner="bottom")]
    t.show([DieSpec(6, "left", owner="top"), DieSpec(5, "left", slot=1, owner="top")] + idle)
    ev = t.judged()
    assert [e["type"] for e in ev] == ["roll"] and ev[0]["player"] == 1 and sorted(ev[0]["dice"]) == [5, 6]
    # he plays 24/18 13/8 (his numbering) and picks up his dice; player 0's pair is still there
    t.hand()
    t.show([DieSpec(6, "left", owner="top"), DieSpec(5, "left", slot=1, owner="top")] + idle,
           board=play_board(1, [(24, 18), (13, 8)], t.board))
    t.hand()
    t.show(idle)
    v = t.judged("verdict")
    assert len(v) == 1 and v[0]["verdict"] == "legal" and v[0]["player"] == 1
    assert t.referee.match.on_roll == 0 and t.session.state()["waiting_for"] == "roll"
    # player 0 now rolls his set; player 1's pair lies on the rail in its turn
    t.clear()
    t.hand()
    t.show([DieSpec(2, "right", owner="bottom"), DieSpec(2, "right", slot=1, owner="bottom"),
            DieSpec(3, None, owner="top"), DieSpec(1, None, slot=1, owner="top")])
    ev = t.judged()
    assert [e["type"] for e in ev] == ["roll"] and ev[0]["player"] == 0 and ev[0]["dice"] == [2, 2]


def test_without_owners_the_pair_beside_the_board_spoils_the_roll():
    t = Table()
    _after_opening_play(t)
    t.show([DieSpec(6, "left"), DieSpec(5, "left", slot=1), DieSpec(4, None), DieSpec(2, None, slot=1)])
    ev = t.judged()
    assert [e["type"] for e in ev] == ["cocked_dice"]
    assert {r["code"] for r in ev[0]["reasons"]} == {"off_board"}


def test_the_rollers_own_die_off_the_board_is_still_cocked():
    t = Table()
    _after_opening_play(t)
    # one of player 1's own dice bounced off the board: cocked, whatever lies idle
    t.show([DieSpec(6, "left", owner="top"), DieSpec(5, None, owner="top"),
            DieSpec(4, None, slot=1, owner="bottom")])
    ev = t.judged()
    assert [e["type"] for e in ev] == ["cocked_dice"]
    assert [r["code"] for r in ev[0]["reasons"]] == ["off_board"]


def test_opening_with_each_players_second_die_beside_the_board():
    t = Table()
    # each player rolled one die of his set into his right-hand board; the other die of each set
    # lies on the rail
    t.show([DieSpec(5, "right", owner="bottom"), DieSpec(2, "left", owner="top"),
            DieSpec(6, None, owner="bottom"), DieSpec(1, None, slot=1, owner="top")])
    ev = t.judged()
    assert [e["type"] for e in ev] == ["roll"] and ev[0]["opening"] and ev[0]["dice"] == [5, 2]


def test_opening_die_off_the_board_is_cocked_and_unowned_dice_are_kept():
    t = Table()
    # the top player's only die seen bounced off the board: not an idle die, cocked
    t.show([DieSpec(5, "right", owner="bottom"), DieSpec(2, None, owner="top")])
    ev = t.judged()
    assert [e["type"] for e in ev] == ["cocked_dice"] and ev[0]["reasons"][0]["code"] == "off_board"
    plain = scene_observation(Scene(t.board, (DieSpec(3, "right"), DieSpec(1, None))))
    assert t.referee.dice_in_play(plain) is plain

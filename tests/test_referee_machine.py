"""The referee's state machine, driven by Observations built from rules positions."""

from __future__ import annotations

import pytest

from companion.bus import EventBus
from companion.scripted_game import DieSpec, Scene
from companion.scripted_game import scene_observation
from companion.session import Session
from companion.table import START_SIGNED, swap_signed


class Table:
    """A table in front of the camera: show scenes, collect the events."""

    def __init__(self, layout=None, **settings):
        from companion.table import TableLayout

        self.layout = layout or TableLayout()
        self.bus = EventBus()
        self.events = []
        self.bus.subscribe(lambda e: self.events.append(e.to_dict()))
        self.session = Session(self.bus, reader=None, match_settings=settings)
        self.board = START_SIGNED
        self.cube = (64, "centre")
        self.t = 0.0

    def show(self, dice=(), board=None, cube=None, frames=5, moved=True):
        if board is not None:
            self.board = tuple(board)
        if cube is not None:
            self.cube = cube
        scene = Scene(self.board, tuple(dice), self.cube)
        for k in range(frames):
            self.session.feed_observation(scene_observation(scene, self.layout, timestamp_ms=self.t),
                                          moving=moved and k == 0)
            self.t += 33.3

    def hand(self):
        scene = Scene(self.board, (), self.cube, hand=True)
        self.session.feed_observation(scene_observation(scene, self.layout, timestamp_ms=self.t), moving=True)
        self.t += 33.3

    def judged(self, *types):
        types = types or ("roll", "cocked_dice", "verdict", "cube", "game_end", "resignation", "override")
        return [e for e in self.events if e["type"] in types and e.get("verdict") != "in_progress"]

    def clear(self):
        self.events.clear()

    @property
    def referee(self):
        return self.session.referee


def play_board(player, moves, board):
    """Apply checker moves (mover's numbering, from/to; 0 = off) to a table board."""
    view = list(board if player == 0 else swap_signed(board))
    for s, t in moves:
        view[s] -= 1
        if t > 0:
            if view[t] == -1:
                view[t] = 0
                view[0] -= 1
            view[t] += 1
    return tuple(view) if player == 0 else swap_signed(view)


def opening(table, d0=3, d1=1):
    table.show([DieSpec(d0, "right"), DieSpec(d1, "left")])


def test_opening_tie_then_roll_and_a_legal_play():
    t = Table()
    opening(t, 4, 4)
    t.hand()
    t.show()
    opening(t, 3, 1)
    ev = t.judged()
    assert [e["type"] for e in ev] == ["roll", "roll"]
    assert ev[0]["dice"] == [4, 4] and ev[1] == {**ev[1], "player": 0, "dice": [3, 1], "opening": True}
    # 8/5 6/5, one checker at a time, a hand in between; the dice stay down
    dice = [DieSpec(3, "right"), DieSpec(1, "left")]
    after1 = play_board(0, [(8, 5)], t.board)
    t.hand()
    t.show(dice, board=after1)
    assert [e["verdict"] for e in t.events if e["type"] == "verdict"] == ["in_progress"]
    t.hand()
    t.show(dice, board=play_board(0, [(6, 5)], after1))
    assert not t.judged("verdict")  # silent until the dice are picked up
    t.hand()
    t.show()
    v = t.judged("verdict")
    assert len(v) == 1 and v[0]["verdict"] == "legal" and v[0]["play"] == "8/5 6/5"
    assert v[0]["points_played"] == [5, 6, 8]
    assert t.referee.match.on_roll == 1 and t.session.state()["waiting_for"] == "roll"


def test_cocked_dice_and_wrong_half_are_rolled_again():
    t = Table()
    opening(t, 5, 2)
    t.hand()
    t.show(board=play_board(0, [(13, 8), (13, 11)], t.board))
    t.clear()
    t.show([DieSpec(6, "left", cocked=True), DieSpec(2, "left", slot=1)])  # player 1 rolls, one cocked
    t.hand()
    t.show()
    t.show([DieSpec(6, "right"), DieSpec(2, "right", slot=1)])  # in player 0's half: not the roller's board
    t.hand()
    t.show()
    ev = t.judged()
    assert [e["type"] for e in ev] == ["cocked_dice", "cocked_dice"]
    assert ev[0]["reasons"][0]["code"] == "tilted" and ev[1]["reasons"][0]["code"] == "wrong_half"
    t.show([DieSpec(6, "left"), DieSpec(2, "left", slot=1)])
    assert t.judged("roll")[-1]["dice"] == [6, 2] and t.judged("roll")[-1]["player"] == 1


def test_die_on_checker_policy():
    import dataclasses

    for policy, expect_roll in (("flat_ok", True), ("cocked", False)):
        t = Table(die_on_checker=policy)
        opening(t, 5, 2)
        t.hand()
        t.show(board=play_board(0, [(13, 8), (13, 11)], t.board))
        t.clear()
        scene = Scene(t.board, (DieSpec(6, "left"), DieSpec(2, "left", slot=1)))
        obs = scene_observation(scene)
        d0 = dataclasses.replace(obs.dice[0], reason="on_checker", cocked=policy == "cocked",
                                 message="the die rests on a checker")
        obs = dataclasses.replace(obs, dice=(d0, obs.dice[1]))
        for k in range(5):
            t.session.feed_observation(dataclasses.replace(obs, timestamp_ms=1e5 + 33 * k), moving=k == 0)
        types = [e["type"] for e in t.judged()]
        assert types == (["roll"] if expect_roll else ["cocked_dice"]), policy


def test_illegal_play_caught_then_corrected():
    t = Table()
    opening(t, 6, 5)
    dice = [DieSpec(6, "right"), DieSpec(5, "left")]
    t.hand()
    t.show(dice, board=play_board(0, [(24, 18), (18, 14)], t.board))  # 24/14: one pip short of 24/13
    t.hand()
    t.show()
    v = t.judged("verdict")
    assert len(v) == 1 and v[0]["verdict"] == "illegal"
    assert v[0]["reasons"] and v[0]["closest_legal"] is not None or v[0]["points_differing"]
    assert 14 in v[0]["points_differing"]
    assert t.session.state()["waiting_for"] == "correction"
    # a wrong intermediate correction is not judged again; the right one is confirmed
    t.hand()
    t.show(board=play_board(0, [(24, 13)], START_SIGNED))
    v = t.judged("verdict")
    assert [x["verdict"] for x in v] == ["illegal", "corrected"] and v[1]["play"] == "24/13"
    assert t.referee.match.on_roll == 1


def test_opponent_option_accepts_an_illegal_play_by_rolling():
    t = Table(illegal_play_policy="opponent_option")
    opening(t, 6, 5)
    wrong = play_board(0, [(24, 18), (18, 14)], t.board)
    t.hand()
    t.show([DieSpec(6, "right"), DieSpec(5, "left")], board=wrong)
    t.hand()
    t.show()
    t.show([DieSpec(3, "left"), DieSpec(1, "left", slot=1)])  # player 1 rolls: accepts
    v = [e["verdict"] for e in t.judged("verdict")]
    assert v == ["illegal", "accepted"]
    assert t.judged("roll")[-1]["player"] == 1 and t.referee.table_board() == wrong


def test_the_opponent_rolling_ends_the_play():
    t = Table()
    opening(t, 3, 1)
    t.hand()
    board = play_board(0, [(8, 5), (6, 5)], t.board)
    t.show([DieSpec(3, "right"), DieSpec(1, "left")], board=board)
    t.hand()
    # player 0 left his dice down; player 1 rolls beside them
    t.show([DieSpec(3, "right"), DieSpec(1, "left"), DieSpec(4, "left", slot=1), DieSpec(2, "left")])
    ev = [(e["type"], e.get("verdict")) for e in t.judged("verdict", "roll")]
    assert ev[:2] == [("roll", None), ("verdict", "legal")]


def test_position_changed_while_nobody_plays_and_restored():
    t = Table()
    opening(t, 3, 1)
    t.hand()
    t.show(board=play_board(0, [(8, 5), (6, 5)], t.board))
    agreed = t.board
    t.clear()
    t.hand()
    t.show(board=play_board(0, [(13, 12)], agreed))  # someone nudges a checker
    t.hand()
    t.show(board=agreed)
    v = t.judged("verdict")
    assert [x["verdict"] for x in v] == ["position_changed", "corrected"]
    assert v[0]["points_differing"] == [12, 13]


def test_double_take_and_redouble_drop_end_the_game():
    t = Table(match_length=5)
    opening(t, 3, 1)
    t.hand()
    t.show(board=play_board(0, [(8, 5), (6, 5)], t.board))
    t.clear()
    t.show(cube=(2, "centre"))  # player 1 doubles
    t.show(cube=(2, "bottom"))  # player 0 takes
    assert [(e["action"], e["player"], e["value"]) for e in t.judged("cube")] == [("double", 1, 2), ("take", 0, 2)]
    t.show([DieSpec(2, "left"), DieSpec(1, "left", slot=1)])
    t.hand()
    t.show(board=play_board(1, [(13, 11), (6, 5)], t.board))
    t.show(cube=(4, "centre"))  # player 0 redoubles (owns the cube)
    t.show(cube=(64, "centre"))  # player 1 drops: the cube goes back
    cube = [(e["action"], e["player"]) for e in t.judged("cube")]
    assert cube[-2:] == [("double", 0), ("drop", 1)]
    end = t.judged("game_end")
    assert len(end) == 1 and end[0]["winner"] == 0 and end[0]["points"] == 2 and end[0]["score"] == [2, 0]
    # the next game starts when the checkers are set up again
    t.hand()
    t.show(board=START_SIGNED)
    opening(t, 2, 6)
    assert t.judged("roll")[-1] == {**t.judged("roll")[-1], "player": 1, "opening": True}


def test_double_after_the_opponent_owns_the_cube_is_refused():
    t = Table(match_length=5)
    opening(t, 3, 1)
    t.hand()
    t.show(board=play_board(0, [(8, 5), (6, 5)], t.board))
    t.show(cube=(2, "centre"))
    t.show(cube=(2, "bottom"))  # player 0 owns the cube at 2
    t.show([DieSpec(2, "left"), DieSpec(1, "left", slot=1)])
    t.hand()
    t.show(board=play_board(1, [(13, 11), (6, 5)], t.board))
    t.show([DieSpec(5, "right"), DieSpec(4, "right", slot=1)])
    t.hand()
    t.show(board=play_board(0, [(13, 8), (13, 9)], t.board))
    t.clear()
    t.show(cube=(4, "centre"))  # player 1 tries to redouble a cube he does not own
    v = t.judged("verdict")
    assert len(v) == 1 and v[0]["verdict"] == "illegal" and v[0]["reasons"][0]["code"] == "illegal_double"
    assert not t.judged("cube")


def test_overrides_set_dice_set_position_and_undo():
    t = Table()
    opening(t, 6, 5)  # the camera read 6-5; the roll was really 6-4
    played = play_board(0, [(24, 18), (13, 9)], t.board)
    t.hand()
    t.show([DieSpec(6, "right"), DieSpec(5, "left")], board=played)
    t.hand()
    t.show()
    assert t.judged("verdict")[-1]["verdict"] == "illegal"
    with pytest.raises(ValueError):
        t.session.set_dice((7, 1), by="keyboard")
    t.session.set_dice((6, 4), by="keyboard")  # judged again with the right dice
    v = t.judged("verdict")[-1]
    assert v["verdict"] == "legal" and v["dice"] == [6, 4]
    assert t.session.state()["on_roll"] == 1
    t.session.undo(by="keyboard")  # one override, one undo
    st = t.session.state()
    assert st["waiting_for"] == "correction" and st["dice"] == [6, 5]
    t.session.undo(by="keyboard")  # back before the illegal verdict: the play goes on
    assert t.session.state()["waiting_for"] == "play"
    overrides = t.judged("override")
    assert [o["action"] for o in overrides] == ["set_dice", "undo", "undo"] and overrides[0]["by"] == "keyboard"
    # set the position: the board after the play, from the next player's view (player 1)
    from companion.position import Position

    pid = Position.from_signed(list(swap_signed(played))).position_id()
    t.session.set_position(pid, by="dashboard")
    st = t.session.state()
    assert st["waiting_for"] == "roll" and st["on_roll"] == 1 and st["position_id"] == pid
    with pytest.raises(ValueError):
        t.session.set_position("not an id", by="keyboard")
    actions = [a["type"] for a in t.referee.match.actions]
    assert actions[-1] == "correction"  # every override is a match action (the match log keeps them)
    t.show(board=played)  # the board agrees: nothing to say
    assert t.judged("verdict")[-1]["verdict"] != "position_changed"


def test_resignation_from_the_keyboard():
    from companion.terminal import run_command

    t = Table(match_length=3)
    opening(t, 3, 1)
    t.hand()
    t.show(board=play_board(0, [(8, 5), (6, 5)], t.board))
    answer, _ = run_command(t.session, "r 1 2")
    assert answer == "resignation offered"
    assert run_command(t.session, "r 1 9")[0].startswith("error:")
    answer, _ = run_command(t.session, "a")
    assert answer == "resignation accepted"
    end = t.judged("game_end")
    assert end and end[0]["winner"] == 0 and end[0]["points"] == 2 and end[0]["kind"] == "resign"
    assert run_command(t.session, "a")[0].startswith("error:")
    assert run_command(t.session, "zz")[0].startswith("error: unknown command")


def test_bearing_off_the_last_checker_ends_the_game_with_a_gammon():
    from companion.position import Position

    t = Table(match_length=0)
    opening(t, 3, 1)
    t.hand()
    t.show(board=play_board(0, [(8, 5), (6, 5)], t.board))
    # the referee sets a bear-off position: player 1 on roll with two checkers left
    view = [0] * 26
    view[1] = 1
    view[2] = 1
    # the opponent has borne off nothing, none in player 1's home board: a gammon
    view[24] = -2
    view[13] = -5
    view[8] = -3
    view[7] = -5
    pid = Position.from_signed(view).position_id()
    t.session.undo(by="keyboard")  # back to player 0's play
    t.session.set_position(pid, by="keyboard")
    assert t.session.state()["on_roll"] == 1
    t.board = tuple(swap_signed(view))
    t.show()
    t.show([DieSpec(2, "left"), DieSpec(1, "left", slot=1)])
    t.hand()
    t.show([DieSpec(2, "left"), DieSpec(1, "left", slot=1)], board=play_board(1, [(2, 0), (1, 0)], t.board))
    end = t.judged("game_end")
    assert not end  # the dice are still down
    t.hand()
    t.show()
    end = t.judged("game_end")
    assert len(end) == 1 and end[0]["winner"] == 1 and end[0]["kind"] == "gammon" and end[0]["points"] == 2


def test_the_referee_may_accept_an_illegal_play_as_it_stands():
    t = Table()
    opening(t, 6, 5)
    wrong = play_board(0, [(24, 18), (18, 14)], t.board)
    t.hand()
    t.show([DieSpec(6, "right"), DieSpec(5, "left")], board=wrong)
    t.hand()
    t.show()
    with pytest.raises(ValueError):
        t.session.set_dice((9, 9), by="keyboard")
    t.session.confirm(by="led_board")  # the LED board's confirm button
    v = t.judged("verdict")
    assert [x["verdict"] for x in v] == ["illegal", "accepted"]
    assert t.judged("override")[-1]["by"] == "led_board"
    assert t.session.state()["on_roll"] == 1 and t.referee.table_board() == wrong
    with pytest.raises(ValueError):
        t.session.confirm(by="keyboard")  # nothing left to accept
    t.session.undo(by="keyboard")
    assert t.session.state()["waiting_for"] == "correction"


def test_a_cube_left_turned_from_the_last_game_is_not_a_double():
    t = Table(match_length=5)
    t.show(cube=(2, "bottom"))  # nobody reset the cube
    opening(t, 3, 1)
    dice = [DieSpec(3, "right"), DieSpec(1, "left")]
    t.hand()
    t.show(dice, board=play_board(0, [(8, 5)], t.board))  # half a play: not the end of the turn
    assert not t.judged("verdict", "cube")
    t.hand()
    t.show(dice, board=play_board(0, [(6, 5)], t.board))
    t.hand()
    t.show()
    assert [e["verdict"] for e in t.judged("verdict")] == ["legal"]
    t.show(cube=(64, "centre"))  # put back where it belongs
    t.show(cube=(2, "centre"))  # now a real double by player 1
    assert [(e["action"], e["player"]) for e in t.judged("cube")] == [("double", 1)]


def test_who_plays_which_colour_is_found_from_the_board():
    from companion.table import TableLayout

    for colours in (("light", "dark"), ("dark", "light")):
        t = Table(layout=TableLayout(colours))
        opening(t, 3, 1)
        dice = [DieSpec(3, "right"), DieSpec(1, "left")]
        t.hand()
        t.show(dice, board=play_board(0, [(8, 5), (6, 5)], t.board))
        t.hand()
        t.show()
        assert t.referee.layout.colours == colours
        assert [e["verdict"] for e in t.judged("verdict")] == ["legal"]


def test_the_state_for_the_dashboard():
    t = Table(match_length=3, mode="teaching")
    opening(t, 3, 1)
    st = t.session.state()
    assert st["waiting_for"] == "play" and st["dice"] == [3, 1] and st["on_roll"] == 0
    assert "8/5 6/5" in st["legal_plays"] and st["pip_count"] == [167, 167]
    assert st["table_position"] == list(START_SIGNED) and st["position_id"] == "4HPwATDgc/ABMA"
    t.hand()
    t.show(board=play_board(0, [(8, 5), (6, 5)], t.board))
    t.session.resign(0, 1)
    assert t.session.state()["resignation"] == {"player": 0, "level": 1}
    t.session.answer_resignation(True)
    st = t.session.state()
    assert st["games"][0]["winner"] == 1 and st["games"][0]["score"] == [0, 1] and st["resignation"] is None
    tournament = Table(match_length=3)
    opening(tournament, 3, 1)
    assert "legal_plays" not in tournament.session.state() and "pip_count" not in tournament.session.state()


def test_dice_that_vanish_without_a_hand_are_a_misreading():
    """The reader loses both dice for a few frames while nothing moves: no end
    of the turn (which would accuse an unfinished play), nor a roll when they
    come back; a real pick-up (a hand, motion) ends the turn."""
    t = Table()
    opening(t, 3, 1)
    dice = [DieSpec(3, "right"), DieSpec(1, "left")]
    t.hand()
    half = play_board(0, [(8, 5)], t.board)
    t.show(dice, board=half)
    t.show(board=half, moved=False)  # dice unseen, nobody touched the board
    t.show(dice, board=half, moved=False)
    assert not t.judged("verdict") and t.session.state()["waiting_for"] == "play"
    t.hand()
    t.show(dice, board=play_board(0, [(6, 5)], half))
    t.hand()
    t.show()
    assert [e["verdict"] for e in t.judged("verdict")] == ["legal"]


def test_dice_picked_up_without_a_move_then_rolled_again_is_a_reroll():
    """A cocked roll the camera missed: the player picks the dice up and rolls
    again. No accusation; the first roll is void, the second one counts."""
    t = Table()
    opening(t, 3, 1)
    t.hand()
    t.show(board=play_board(0, [(8, 5), (6, 5)], t.board))
    t.clear()
    t.show([DieSpec(6, "left"), DieSpec(2, "left", slot=1)])  # player 1 (really cocked, read flat)
    t.hand()
    t.show()  # picked up, nothing moved
    assert not t.judged("verdict")
    t.show([DieSpec(4, "left"), DieSpec(3, "left", slot=1)])  # rolled again
    ev = t.judged()
    assert [e["type"] for e in ev] == ["roll", "cocked_dice", "roll"]
    assert ev[1]["reasons"][0]["code"] == "rolled_again" and ev[2]["dice"] == [4, 3]
    t.hand()
    t.show([DieSpec(4, "left"), DieSpec(3, "left", slot=1)], board=play_board(1, [(13, 9), (13, 10)], t.board))
    t.hand()
    t.show()
    assert [e["verdict"] for e in t.judged("verdict")] == ["legal"]
    assert t.session.state()["on_roll"] == 0


def test_a_player_who_passes_is_judged_when_the_opponent_rolls():
    t = Table()
    opening(t, 3, 1)
    t.hand()
    t.show(board=play_board(0, [(8, 5), (6, 5)], t.board))
    t.clear()
    t.show([DieSpec(6, "left"), DieSpec(2, "left", slot=1)])
    t.hand()
    t.show()  # player 1 picks the dice up without playing
    assert not t.judged("verdict")
    t.show([DieSpec(5, "right"), DieSpec(5, "right", slot=1)])  # player 0 rolls: player 1's turn is over
    v = t.judged("verdict")
    assert len(v) == 1 and v[0]["verdict"] == "illegal" and v[0]["reasons"][0]["code"] == "must_play"


def test_a_misread_opening_die_in_the_opponents_half_does_not_end_the_turn():
    """The opening 3-1 (player 0's 3 in the right half, player 1's 1 in the left): player
    0 plays 8/5 with the dice down and the 1 in the left half is read as a 2 (a die in the
    opponent's right-hand board that is not the mover's roll). One die there is no roll of
    the opponent's: the play goes on, and 6/5 then the dice lifted is judged legal."""
    t = Table()
    opening(t, 3, 1)
    t.hand()
    t.show([DieSpec(3, "right"), DieSpec(2, "left")], board=play_board(0, [(8, 5)], t.board))
    assert not t.judged("verdict")
    t.hand()
    t.show([DieSpec(3, "right"), DieSpec(1, "left")], board=play_board(0, [(6, 5)], t.board))
    t.hand()
    t.show([])
    assert [e["verdict"] for e in t.judged("verdict")] == ["legal"]
    assert t.session.state()["on_roll"] == 1


def test_no_game_starts_on_a_board_not_seen_in_the_starting_position():
    t = Table()
    misread = play_board(0, [(13, 12)], START_SIGNED)  # one checker seen a point off
    t.show(board=misread)
    opening(t, 3, 1)
    v = t.judged("verdict")
    assert [x["verdict"] for x in v] == ["position_changed"] and v[0]["reasons"][0]["code"] == "not_starting_position"
    assert v[0]["points_differing"] == [12, 13] and not t.judged("roll")
    t.hand()
    t.show(board=START_SIGNED)  # set up right
    t.hand()
    opening(t, 3, 1)
    assert t.judged("roll")[-1]["dice"] == [3, 1]


def test_a_roll_at_rest_with_one_die_in_view_is_rolled_again():
    """Both dice leave the cup together: a still board with one die of the
    roller's (the other off the board, or leaning where the camera cannot read
    it) is called cocked, never taken as a roll; the opening roll's single die
    is only the first of two."""
    t = Table()
    t.show([DieSpec(5, "right")])  # opening: player 0's die, player 1's still in the cup
    assert not t.judged()
    t.show([DieSpec(5, "right"), DieSpec(2, "left")])
    t.hand()
    t.show(board=play_board(0, [(13, 8), (13, 11)], t.board))
    t.clear()
    t.show([DieSpec(4, "left")])  # player 1 rolls; one die is off the board
    ev = t.judged()
    assert [(e["type"], e["player"], e["dice"]) for e in ev] == [("cocked_dice", 1, [4])]
    assert ev[0]["reasons"][0]["code"] == "die_not_seen"
    t.show([DieSpec(4, "left")], frames=8)  # said once
    assert len(t.judged()) == 1
    t.hand()
    t.show()
    t.show([DieSpec(6, "left"), DieSpec(1, "left", slot=1)])
    assert [e["type"] for e in t.judged()] == ["cocked_dice", "roll"]
    assert t.referee.match.dice in ((6, 1), (1, 6))


def test_a_double_is_seen_by_where_the_cube_goes_when_its_face_is_misread():
    """The cube's face is easily misread (a 2 as 32): the cube leaving its
    place for the side of the doubler's opponent is a double and a take all
    the same; a misread face in the centre decides nothing."""
    t = Table(match_length=5)
    opening(t, 3, 1)
    t.hand()
    t.show(board=play_board(0, [(8, 5), (6, 5)], t.board))
    t.clear()
    t.show(cube=(32, "centre"))  # player 1 turns the cube to 2, read as 32: nothing yet
    assert t.judged("cube") == []
    t.show(cube=(32, "bottom"))  # player 0 takes it to its side
    assert [(e["action"], e["player"], e["value"]) for e in t.judged("cube")] == [("double", 1, 2), ("take", 0, 2)]
    assert t.referee.match.cube.owner == 0
    t.show([DieSpec(2, "left"), DieSpec(1, "left", slot=1)])
    assert t.judged("roll")[-1]["player"] == 1
    # player 0 redoubles; the cube offered in the centre (4 read right), then
    # taken to player 1's side read as 8
    t.hand()
    t.show(board=play_board(1, [(13, 11), (6, 5)], t.board))
    t.show(cube=(4, "centre"))
    t.show(cube=(8, "top"))
    assert [(e["action"], e["player"], e["value"]) for e in t.judged("cube")][-2:] == [("double", 0, 4), ("take", 1, 4)]
    assert t.referee.match.cube.owner == 1 and t.referee.match.cube.value == 4

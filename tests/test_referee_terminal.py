"""The terminal log, the JSON lines and the keyboard commands."""

from __future__ import annotations

import io
import json

from companion.events import (
    BoardStatusEvent,
    CockedDiceEvent,
    CubeEvent,
    GameEndEvent,
    RollEvent,
    SourceStatusEvent,
    VerdictEvent,
)
from companion.terminal import JsonLines, TerminalLog, describe, run_command


def test_json_lines_are_one_object_per_event():
    out = io.StringIO()
    sink = JsonLines(out)
    sink(VerdictEvent(verdict="illegal", player=1, dice=(3, 1), reasons=({"code": "wrong_distance", "message": "x"},)))
    sink(RollEvent(player=0, dice=(3, 1)))
    sink(CubeEvent(action="take", player=1, value=2, owner=1))
    sink(GameEndEvent(winner=0, points=2, score=(2, 0)))
    lines = out.getvalue().splitlines()
    assert len(lines) == 4
    first = json.loads(lines[0])
    assert first["type"] == "verdict" and first["verdict"] == "illegal" and first["reasons"][0]["code"] == "wrong_distance"
    assert json.loads(lines[1])["dice"] == [3, 1]
    assert json.loads(lines[2])["action"] == "take"
    end = json.loads(lines[3])
    assert end["type"] == "game_end" and end["points"] == 2 and end["score"] == [2, 0]


def test_terminal_lines_for_people():
    assert describe(RollEvent(player=0, dice=(4, 4), opening=True)) == "opening roll 4-4: a tie, both roll again"
    assert "COCKED" in describe(CockedDiceEvent(player=1, dice=(3, 5), reasons=({"code": "tilted", "message": "the 3 is not flat"},)))
    line = describe(VerdictEvent(verdict="illegal", player=0, play="24/14", closest_legal="24/13",
                                 reasons=({"code": "wrong_distance", "message": "no die moves 10"},), points_differing=(13, 14)))
    assert line.startswith("ILLEGAL") and "24/13" in line and "13, 14" in line and "no die moves 10" in line
    assert describe(VerdictEvent(verdict="in_progress")) is None  # a play in progress is silent
    assert describe(BoardStatusEvent(status="held", detail="16 dark checkers")).endswith("16 dark checkers")
    assert describe(BoardStatusEvent(status="moving")) is None
    assert describe(SourceStatusEvent(status="lost", detail="camera 0 stopped")) == "source lost: camera 0 stopped"
    out = io.StringIO()
    TerminalLog(out)(GameEndEvent(winner=1, points=4, kind="gammon", score=(0, 4), match_over=False))
    assert out.getvalue() == "GAME OVER: player 1 (top) wins 4 point(s) (gammon), score 0-4\n"


def test_keyboard_mistakes_are_one_line_answers():
    from companion.bus import EventBus
    from companion.session import Session

    s = Session(EventBus(), reader=None)  # a fresh match: waiting for the opening roll
    assert run_command(s, "d 3") == ("error: set the dice as: d 3 1", False)
    answer, quit_ = run_command(s, "d 31")
    assert answer == "error: no roll to set while waiting for opening roll" and not quit_
    assert run_command(s, "D 2")[0] == "error: the player is 0 (bottom) or 1 (top)"
    assert run_command(s, "t")[0] == "error: name the player: 0 (bottom) or 1 (top)"
    assert run_command(s, "u")[0] == "error: nothing to undo"
    assert run_command(s, "p 4HPwATDgc/ABMA")[0].startswith("error: no position to set")
    assert run_command(s, "s")[0].startswith("waiting for opening roll")
    assert run_command(s, "q") == ("bye", True)
    assert run_command(s, "   ") == ("", False)
    assert "set the dice" in run_command(s, "?")[0]


def test_verbose_lines_show_what_the_referee_sees():
    from companion.events import ObservationEvent
    from companion.scripted_game import DieSpec, Scene, scene_observation
    from companion.table import START_SIGNED

    obs = scene_observation(Scene(START_SIGNED, (DieSpec(3, "right"), DieSpec(5, "right", cocked=True, slot=1))))
    line = describe(ObservationEvent(observation=obs.to_dict()), verbose=True)
    assert line.startswith("sees 1:2L 6:5D 8:3D 12:5L 13:5D 17:3L 19:5L 24:2D")
    assert "dice 3(right) 5*(right)" in line and "cube 64 centre" in line
    assert describe(ObservationEvent(observation=obs.to_dict())) is None  # quiet unless verbose

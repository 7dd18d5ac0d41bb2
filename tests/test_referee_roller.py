"""Whose dice: the right-hand-board rule in a real ``companion watch`` run.

Rendered frames (the project's renderers) of an opening roll and a play by the
player at the image's bottom; then the player at the top, now on roll, throws
both dice into the image's right half (the opponent's right-hand board: cocked,
"wrong_half"), picks them up and throws again into the left half (a good roll).
The frames go through ``companion watch`` (board reader, dice plug-in, motion,
stability, referee); watch tells the dice reading who rolls each turn, so the
reading itself marks the wrong-half dice as cocked, and the referee says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from table_boards import board_after

from companion.scripted_game import DieSpec, Scene, Script
from companion.table import START_SIGNED




@pytest.mark.slow
def test_dice_in_the_wrong_half_are_cocked_in_a_watch_run(repo_root, tmp_path):
    from companion.demo import DEMO_LAYOUT, demo_corners_arg, render_script

    opening = (DieSpec(3, "right"), DieSpec(1, "left"))
    played = board_after([(8, 5), (6, 5)])  # player 0: 8/5 6/5 for 3-1
    wrong = (DieSpec(5, "right"), DieSpec(2, "right", slot=1))  # player 1 rolls into player 0's board
    right = (DieSpec(5, "left"), DieSpec(2, "left", slot=1))
    scenes = [
        Scene(START_SIGNED),
        Scene(START_SIGNED, hand=True, frames=2),
        Scene(START_SIGNED, opening),
        Scene(played, opening, hand=True, frames=2),
        Scene(played, opening),
        Scene(played, hand=True, frames=2),
        Scene(played),
        Scene(played, hand=True, frames=2),
        Scene(played, wrong),
        Scene(played, hand=True, frames=2),
        Scene(played),
        Scene(played, hand=True, frames=2),
        Scene(played, right),
    ]
    folder = tmp_path / "frames"
    render_script(Script(scenes=scenes), folder)
    r = subprocess.run(
        [sys.executable, "-m", "companion", "watch", "--no-web", "--keyboard", "off", "--source", str(folder),
         "--fps", "10", "--corners", demo_corners_arg(), "--bottom-colour", DEMO_LAYOUT.colours[0],
         "--events-jsonl", "-"],
        cwd=repo_root, env=dict(os.environ, PYTHONPATH=str(repo_root)), capture_output=True, text=True, timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    events = [json.loads(line) for line in r.stdout.splitlines()]
    decisions = [(e["type"], e.get("player"), e.get("dice"), e.get("verdict"))
                 for e in events if e["type"] in ("roll", "cocked_dice") or
                 (e["type"] == "verdict" and e["verdict"] != "in_progress")]
    assert decisions == [
        ("roll", 0, [3, 1], None),
        ("verdict", 0, [3, 1], "legal"),
        ("cocked_dice", 1, [5, 2], None),
        ("roll", 1, [5, 2], None),
    ], decisions
    cocked = next(e for e in events if e["type"] == "cocked_dice")
    assert {x["code"] for x in cocked["reasons"]} == {"wrong_half"}
    # the dice reading itself was told who rolls: the stable reading of the
    # wrong throw has both dice cocked for being in the wrong half
    readings = [e["observation"]["dice"] for e in events if e["type"] == "observation"]
    wrong_readings = [d for d in readings if len(d) == 2 and all(x["half"] == "right" for x in d)
                      and sorted(x["value"] for x in d) == [2, 5]]
    assert wrong_readings and all(x["cocked"] and x["reason"] == "wrong_half" for x in wrong_readings[-1])
    good = [d for d in readings if len(d) == 2 and all(x["half"] == "left" for x in d)]
    assert good and not any(x["cocked"] for x in good[-1])


def test_the_referee_says_who_rolls_next_and_overrules_a_stale_half():
    """``Referee.expected_roller`` per phase; a die the reading marked
    ``wrong_half`` for a roller that is no longer on roll (the reading lags one
    frame behind the referee) is judged by the referee's own half rule."""
    import dataclasses

    from companion.bus import EventBus
    from companion.scripted_game import scene_observation
    from companion.session import Session

    events = []
    bus = EventBus()
    bus.subscribe(lambda e: events.append(e.to_dict()))
    session = Session(bus, reader=None)
    ref = session.referee
    t = [0.0]

    def show(scene, frames=4, edit=None):
        for k in range(frames):
            obs = scene_observation(scene, timestamp_ms=t[0])
            if edit is not None:
                obs = edit(obs)
            session.feed_observation(obs, moving=k == 0)
            t[0] += 33.3

    assert ref.expected_roller() is None  # the opening roll: one die each
    show(Scene(START_SIGNED, (DieSpec(3, "right"), DieSpec(1, "left"))))
    assert ref.phase.value == "play" and ref.expected_roller() is None  # the mover's dice are down
    played = board_after([(8, 5), (6, 5)])
    show(Scene(played, hand=True), frames=1)
    show(Scene(played))
    assert ref.phase.value == "roll" and ref.expected_roller() == 1
    session.double(1)  # the doubler rolls after a take
    assert ref.phase.value == "cube_response" and ref.expected_roller() == 1
    session.take(0)
    assert ref.phase.value == "roll" and ref.expected_roller() == 1
    # player 1's dice in its own right-hand board (image left), but marked
    # wrong_half by a reading still told that player 0 rolls
    stale = lambda obs: dataclasses.replace(obs, dice=tuple(  # noqa: E731
        dataclasses.replace(d, cocked=True, reason="wrong_half", message="stale") for d in obs.dice))
    show(Scene(played, (DieSpec(6, "left"), DieSpec(4, "left", slot=1))), edit=stale)
    assert [e["type"] for e in events if e["type"] in ("roll", "cocked_dice")][-1] == "roll"
    assert ref.match.dice == (6, 4) or sorted(ref.match.dice) == [4, 6]

"""The match log under the referee: every action committed to SQLite, and a
session killed in the middle of a game goes on where it was."""

from __future__ import annotations

import json
import sqlite3

from companion.bus import EventBus
from companion.scripted_game import comparable, expected_comparable, observations, random_game
from companion.session import Session


def _session(path, events):
    bus = EventBus()
    bus.subscribe(lambda e: events.append(e.to_dict()))
    return Session(bus, reader=None, match_settings={"match_length": 5}, match_log=str(path))


def test_a_killed_session_resumes_from_its_match_log(tmp_path):
    script = random_game(5, match_length=5, illegal_rate=0.2, max_turns=10)
    frames = observations(script)
    log = tmp_path / "match.sqlite"
    first: list = []
    s1 = _session(log, first)
    # stop in the middle of the game, after a legal verdict (the turn has passed)
    stop = None
    for i, (obs, moving) in enumerate(frames):
        s1.feed_observation(obs, moving)
        if i > len(frames) // 2 and first and first[-1]["type"] == "turn" and first[-1]["waiting_for"] == "roll":
            stop = i + 1
            break
    assert stop is not None
    before = s1.state()
    del s1  # the process dies: nothing but the SQLite file survives
    rows = sqlite3.connect(log).execute("SELECT count(*) FROM events").fetchone()[0]
    assert rows > 10  # one row per match action: rolls, plays, cube actions
    second: list = []
    s2 = _session(log, second)
    after = s2.state()
    for key in ("position_id", "match_id", "score", "on_roll", "waiting_for", "cube"):
        assert after[key] == before[key], key
    for obs, moving in frames[stop:]:
        s2.feed_observation(obs, moving)
    assert comparable(first + second) == expected_comparable(script)


def test_overrides_are_in_the_match_log(tmp_path):
    from companion.scripted_game import DieSpec, Scene, scene_observation
    from companion.table import START_SIGNED

    events: list = []
    s = _session(tmp_path / "m.sqlite", events)
    for k in range(4):
        scene = Scene(START_SIGNED, (DieSpec(3, "right"), DieSpec(1, "left")))
        s.feed_observation(scene_observation(scene, timestamp_ms=k * 33.0), moving=k == 0)
    s.set_dice((4, 2), by="keyboard")
    kinds = [r[0] for r in sqlite3.connect(tmp_path / "m.sqlite").execute("SELECT kind FROM events ORDER BY seq")]
    assert kinds[-2:] == ["opening_roll", "correction"]
    action = json.loads(sqlite3.connect(tmp_path / "m.sqlite").execute(
        "SELECT action FROM events ORDER BY seq DESC LIMIT 1").fetchone()[0])
    assert action["dice"] == [4, 2] and "keyboard" in action["reason"]

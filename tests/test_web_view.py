"""What the page shows for any state a session may hand over, including odd ones."""

from __future__ import annotations

from companion.bus import EventBus
from companion.events import CockedDiceEvent, GameEndEvent, LinkStateEvent, RollEvent, VerdictEvent
from web.tracker import Tracker
from web.view_model import build_view
from web_stub import START


def test_an_empty_state_still_gives_a_page():
    view = build_view({}, None)
    assert view["players"] == ["Player 0", "Player 1"]
    assert view["mode"] == "tournament"  # no aids unless teaching is asked for
    assert view["pip_counts"] is None
    assert view["board_lines"] == []
    assert view["alert"] is None
    assert "<svg" in view["board_svg"]


def test_a_malformed_position_is_reported_not_raised():
    view = build_view({"position": [1, 2, 3]}, None)
    assert "26 integers" in view["board_error"]
    assert view["board_lines"] == []


def test_match_score_away_and_crawford():
    state = {"score": [3, 4], "match_length": 5, "crawford": True, "players": ["Ann", "Ben"],
             "position": list(START), "turn": 1, "waiting_for": "roll",
             "cube": {"value": 4, "owner": 0}, "settings": {"mode": "teaching"}}
    view = build_view(state, None)
    assert view["away"] == [2, 1]
    assert view["crawford"] is True
    assert view["turn_name"] == "Ben"
    assert view["cube_text"] == "4, owned by Ann"
    assert view["pip_counts"] == [167, 167]
    assert view["waiting_for"] == "a roll"


def test_money_game_has_no_away_score():
    view = build_view({"match_length": 0, "score": [7, 2]}, None)
    assert view["away"] is None and view["match_length"] == 0


def test_tracker_alerts_follow_the_events():
    bus = EventBus()
    tracker = Tracker(bus)
    state = {"settings": {"mode": "teaching"}, "players": ["Ann", "Ben"]}
    bus.publish(CockedDiceEvent(player=1, dice=(6, 1), reasons=({"code": "tilted", "message": "Leans on the rail."},)))
    view = build_view(state, tracker)
    assert view["alert"]["kind"] == "cocked"
    assert view["alert"]["lines"] == ["Leans on the rail."]
    assert "Ben must roll both dice again" == view["alert"]["subtitle"]
    assert view["dice"] == [6, 1]  # the cocked dice are drawn, tilted
    bus.publish(RollEvent(player=1, dice=(6, 1)))
    assert build_view(state, tracker)["alert"] is None
    bus.publish(VerdictEvent(verdict="illegal", player=1, play="13/7", points_differing=(7,)))
    bus.publish(VerdictEvent(verdict="in_progress", player=1, play="13/7"))  # does not hide the alert
    assert build_view(state, tracker)["alert"]["illegal_points"] == [7]
    bus.publish(GameEndEvent(winner=0, points=2, kind="gammon", score=(2, 0)))
    assert tracker.verdict is None
    assert tracker.games[0]["points"] == 2
    bus.publish(LinkStateEvent(state="lost", port="/dev/ttyACM0", detail="unplugged"))
    assert build_view(state, tracker)["devices"]["leds"] == "lost: unplugged"
    tracker.close()


def test_state_verdict_wins_over_the_tracker():
    bus = EventBus()
    tracker = Tracker(bus)
    bus.publish(VerdictEvent(verdict="illegal", player=0))
    assert build_view({"last_verdict": None}, tracker)["alert"] is None
    assert build_view({}, tracker)["alert"]["kind"] == "illegal"


def test_teaching_mode_lists_the_legal_plays_of_the_roll_from_the_rules_engine():
    state = {"position": list(START), "turn": 0, "on_roll": 0, "dice": [3, 1], "waiting_for": "play",
             "settings": {"mode": "teaching"}}
    plays = build_view(state, None)["legal_plays"]
    assert len(plays) == 16  # gnubg lists 16 distinct plays of 31 from the start
    assert "8/5 6/5" in plays
    state["settings"] = {"mode": "tournament"}
    assert build_view(state, None)["legal_plays"] is None
    state["settings"] = {"mode": "teaching"}
    state["waiting_for"] = "roll"
    assert build_view(state, None)["legal_plays"] is None

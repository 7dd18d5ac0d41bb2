"""Every dashboard route through Flask's test client: good input, bad input, missing tokens."""

from __future__ import annotations

import json
import re
import time

import pytest

from web import create_app
from web_stub import START_ID, StubSession

TOKEN = "test-token-123"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture()
def stub():
    return StubSession(frame=b"\xff\xd8fakejpeg\xff\xd9")


@pytest.fixture()
def app(stub):
    app = create_app({"ACCESS_TOKEN": TOKEN, "TESTING": True, "SSE_KEEPALIVE_S": 0.05}, session=stub)
    yield app
    app.extensions["companion"].shutdown()


@pytest.fixture()
def client(app):
    return app.test_client()


def signed_in(client) -> str:
    """Sign the test client's browser session in; returns its CSRF token."""
    response = client.get(f"/?token={TOKEN}")
    assert response.status_code == 303
    page = client.get("/").get_data(as_text=True)
    match = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
    assert match, "a signed-in page carries its CSRF token"
    return match.group(1)


def next_message(stream) -> str:
    """The next SSE message from a streamed response, skipping keep-alive comments."""
    for chunk in stream:
        text = chunk.decode() if isinstance(chunk, bytes) else chunk
        if not text.startswith(":"):
            return text
    raise AssertionError("the stream ended")


def test_create_app_needs_a_session():
    with pytest.raises(ValueError, match="session"):
        create_app()


def test_index_has_the_board_as_inline_svg_and_text(client):
    page = client.get("/").get_data(as_text=True)
    assert '<svg xmlns="http://www.w3.org/2000/svg" id="board"' in page
    # Start position, player 0 on roll: 2 of Alice's checkers on table point 24, 5 of Bob's on 19.
    assert 'id="point-24" class="point" data-point="24" data-count="2"' in page
    assert 'id="point-19" class="point" data-point="19" data-count="-5"' in page
    assert "Point 24: 2 Alice checkers" in page
    assert START_ID in page
    # Without the token there are no controls.
    assert "form-new-match" not in page
    assert "Viewing only" in page


def test_state_is_the_sessions_state(client, stub):
    data = client.get("/api/state").get_json()
    assert data["position_id"] == START_ID
    assert data["score"] == [0, 0]
    stub.roll(0, (6, 5))
    assert client.get("/api/state").get_json()["dice"] == [6, 5]


def test_new_match_refused_without_token_and_with_wrong_token(client, stub):
    body = {"players": ["Ann", "Ben"], "match_length": 7}
    assert client.post("/api/match/new", json=body).status_code == 401
    response = client.post("/api/match/new", json=body, headers={"Authorization": "Bearer nope"})
    assert response.status_code == 403
    assert "wrong access token" in response.get_json()["error"]
    assert client.post("/api/match/new", json=body, headers={"X-Access-Token": "nope"}).status_code == 403
    assert stub.calls == []


def test_new_match_with_token_validates_and_fills_defaults(client, stub):
    body = {"players": ["  Ann  ", "Ben"], "match_length": 7, "mode": "teaching"}
    response = client.post("/api/match/new", json=body, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["ok"] is True
    name, settings = stub.calls[-1]
    assert name == "new_match"
    assert settings["players"] == ["Ann", "Ben"]
    assert settings["match_length"] == 7
    assert settings["illegal_play_policy"] == "mandatory_correction"
    assert settings["mode"] == "teaching"


@pytest.mark.parametrize(
    "body, words",
    [
        ({"players": ["Ann"]}, "two names"),
        ({"players": ["Ann", "ann"]}, "different names"),
        ({"players": ["Ann", ""]}, "empty"),
        ({"players": ["Ann", "x" * 41]}, "longer than"),
        ({"players": ["Ann", "B\x00b"]}, "control"),
        ({"match_length": "5"}, "whole number"),
        ({"match_length": True}, "whole number"),
        ({"match_length": -1}, "between"),
        ({"match_length": 65}, "between"),
        ({"mode": "coach"}, "mode must be one of"),
        ({"illegal_play_policy": "ignore"}, "illegal_play_policy"),
        ({"die_on_checker": 1}, "die_on_checker"),
        ({"jacoby": "yes", "match_length": 0}, "jacoby must be true or false"),
        ({"jacoby": True, "match_length": 5}, "money games only"),
        ({"automatic_doubles": 9, "match_length": 0}, "automatic_doubles"),
        ({"colour": "red"}, "unknown setting"),
    ],
)
def test_new_match_bad_settings_get_400_with_a_sentence(client, stub, body, words):
    response = client.post("/api/match/new", json=body, headers=AUTH)
    assert response.status_code == 400
    assert words in response.get_json()["error"]
    assert stub.calls == []


def test_money_game_options_are_accepted_in_money_play(client, stub):
    body = {"match_length": 0, "jacoby": True, "beavers": True, "automatic_doubles": 2}
    assert client.post("/api/match/new", json=body, headers=AUTH).status_code == 200
    settings = stub.calls[-1][1]
    assert (settings["jacoby"], settings["beavers"], settings["automatic_doubles"]) == (True, True, 2)


def test_non_json_bodies_are_refused(client, stub):
    response = client.post("/api/match/new", data="players=a", headers=AUTH)
    assert response.status_code == 400
    assert "JSON" in response.get_json()["error"]
    response = client.post("/api/match/new", data="[1, 2", headers={**AUTH, "Content-Type": "application/json"})
    assert response.status_code == 400
    response = client.post("/api/match/new", json=[1, 2], headers=AUTH)
    assert response.status_code == 400
    assert stub.calls == []


def test_a_huge_body_is_refused(client):
    body = json.dumps({"players": ["a" * 100_000, "b"]})
    response = client.post("/api/match/new", data=body, headers={**AUTH, "Content-Type": "application/json"})
    assert response.status_code == 413


def test_session_refusal_is_409_with_its_sentence(client):
    response = client.post("/api/match/new", json={"players": ["Refuse", "Ben"]}, headers=AUTH)
    assert response.status_code == 409
    assert response.get_json()["error"] == "the session refuses this match"


def test_browser_session_needs_the_csrf_token(client, stub):
    csrf = signed_in(client)
    body = {"players": ["Ann", "Ben"], "match_length": 3}
    response = client.post("/api/match/new", json=body)
    assert response.status_code == 403
    assert "CSRF" in response.get_json()["error"]
    assert client.post("/api/match/new", json=body, headers={"X-CSRF-Token": "forged"}).status_code == 403
    assert stub.calls == []
    assert client.post("/api/match/new", json=body, headers={"X-CSRF-Token": csrf}).status_code == 200
    assert stub.calls[-1][0] == "new_match"


def test_wrong_token_in_link_is_refused_and_not_signed_in(client):
    assert client.get("/?token=wrong").status_code == 403
    assert "form-new-match" not in client.get("/").get_data(as_text=True)


def test_signed_in_page_has_controls(client):
    signed_in(client)
    page = client.get("/").get_data(as_text=True)
    assert "form-new-match" in page
    assert "/api/override/undo" in page


def test_foreign_origin_is_refused_even_with_csrf(client, stub):
    csrf = signed_in(client)
    response = client.post(
        "/api/override/undo", json={}, headers={"X-CSRF-Token": csrf, "Origin": "http://evil.example"}
    )
    assert response.status_code == 403
    assert stub.calls == []


def test_resign_and_answer(client, stub):
    assert client.post("/api/resign", json={"player": 1, "level": 2}).status_code == 401
    assert client.post("/api/resign", json={"player": 2, "level": 1}, headers=AUTH).status_code == 400
    assert client.post("/api/resign", json={"player": 0, "level": 4}, headers=AUTH).status_code == 400
    assert client.post("/api/resign", json={"player": True, "level": 1}, headers=AUTH).status_code == 400
    assert client.post("/api/resign", json={"player": 1, "level": 2}, headers=AUTH).status_code == 200
    assert stub.calls[-1] == ("resign", (1, 2))
    assert "offers to resign a gammon" in client.get("/").get_data(as_text=True)
    assert client.post("/api/resignation", json={"accept": "yes"}, headers=AUTH).status_code == 400
    response = client.post("/api/resignation", json={"accept": True}, headers=AUTH)
    assert response.status_code == 200
    assert response.get_json()["state"]["score"] == [2, 0]
    assert "resigned gammon" in client.get("/fragment/live").get_json()["scoresheet"]
    # Nothing pending any more: the session's refusal comes back as 409.
    response = client.post("/api/resignation", json={"accept": False}, headers=AUTH)
    assert response.status_code == 409
    assert "no resignation" in response.get_json()["error"]


@pytest.mark.parametrize("dice", [[0, 3], [3], [3, 7], ["3", 1], [True, 2], "31", None, [3, 1, 2]])
def test_set_dice_bad_input(client, stub, dice):
    response = client.post("/api/override/dice", json={"dice": dice}, headers=AUTH)
    assert response.status_code == 400
    assert "dice must be two whole numbers" in response.get_json()["error"]
    assert stub.calls == []


def test_set_dice_position_and_undo_reach_the_session_with_an_audit_trail(client, stub):
    assert client.post("/api/override/dice", json={"dice": [3, 1]}).status_code == 401
    assert client.post("/api/override/dice", json={"dice": [3, 1]}, headers=AUTH).status_code == 200
    assert stub.calls[-1] == ("set_dice", ((3, 1), "dashboard"))
    response = client.post("/api/override/position", json={"position_id": START_ID}, headers=AUTH)
    assert response.status_code == 200
    assert stub.calls[-1] == ("set_position", (START_ID, "dashboard"))
    assert client.post("/api/override/undo", json={}, headers=AUTH).status_code == 200
    assert stub.calls[-1] == ("undo", "dashboard")
    page = client.get("/").get_data(as_text=True)
    assert "Overrides (audit trail)" in page
    assert "set_dice by dashboard" in page and "undo by dashboard" in page


@pytest.mark.parametrize("pid", ["", "short", "4HPwATDgc/ABM!", "4HPwATDgc/ABMAX", 12345678901234, None])
def test_set_position_bad_ids(client, stub, pid):
    response = client.post("/api/override/position", json={"position_id": pid}, headers=AUTH)
    assert response.status_code == 400
    assert "Position ID" in response.get_json()["error"]
    assert stub.calls == []


def test_set_position_refused_by_session_is_409(client):
    response = client.post("/api/override/position", json={"position_id": "AAAAAAAAAAAAAA"}, headers=AUTH)
    assert response.status_code == 409
    assert "does not decode" in response.get_json()["error"]


def test_get_on_action_routes_is_405(client):
    assert client.get("/api/match/new").status_code == 405
    assert client.get("/api/override/undo").status_code == 405


def test_unknown_paths_are_404_without_reflection(client):
    response = client.get("/static/../../etc/passwd")
    assert response.status_code == 404
    response = client.get("/{{7*7}}")
    assert response.status_code == 404
    assert b"49" not in response.data


def test_names_are_escaped_everywhere(client, stub):
    evil = "<script>x</script>{{7*7}}"
    body = {"players": [evil, "Ben"], "match_length": 3}
    assert client.post("/api/match/new", json=body, headers=AUTH).status_code == 200
    page = client.get("/").get_data(as_text=True)
    assert "<script>x</script>" not in page
    assert "&lt;script&gt;x&lt;/script&gt;{{7*7}}" in page
    fragment = client.get("/fragment/live").get_json()["live"]
    assert "<script>x" not in fragment


def test_match_record_download(client):
    response = client.get("/match.mat")
    assert response.status_code == 200
    assert response.headers["Content-Disposition"].startswith('attachment; filename="match-')
    assert response.headers["Content-Disposition"].endswith('.mat"')
    assert " 5 point match" in response.get_data(as_text=True)


def test_camera_single_frame_and_missing_frame(client, stub):
    response = client.get("/camera.jpg")
    assert response.status_code == 200 and response.mimetype == "image/jpeg"
    assert response.data == stub.frame
    stub.frame = None
    assert client.get("/camera.jpg").status_code == 200  # frames are fetched at most 10 times a second
    time.sleep(0.15)
    assert client.get("/camera.jpg").status_code == 404


def test_camera_mjpeg_stream_sends_frames(client, stub, app):
    response = client.get("/camera.mjpg", buffered=False)
    assert response.mimetype == "multipart/x-mixed-replace"
    assert next(response.response) == b"--companionframe\r\n"
    chunk = next(response.response)
    part = b"Content-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(stub.frame)
    part += stub.frame + b"\r\n--companionframe\r\n"
    assert chunk == part + part  # the first picture twice, so browsers show it at once
    stub.frame = b"\xff\xd8second\xff\xd9"
    assert stub.frame in next(response.response)
    app.extensions["companion"].stopping.set()
    assert list(response.response) == []  # the stream ends at shutdown


def test_events_stream_carries_bus_events_as_json(client, stub, app):
    response = client.get("/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    stream = response.response
    assert next(stream) == b"retry: 1000\n\n"
    stub.roll(1, (6, 6))
    chunk = next_message(stream)
    assert chunk.startswith("id: ")
    data_line = [line for line in chunk.splitlines() if line.startswith("data: ")][0]
    event = json.loads(data_line[len("data: "):])
    assert event["type"] == "roll" and event["dice"] == [6, 6] and event["player"] == 1
    assert next(stream) == b": keep-alive\n\n"
    app.extensions["companion"].announcer.close()
    assert list(stream) == []


def test_events_catch_up_from_last_event_id(client, stub):
    stub.roll(0, (1, 2))
    stub.roll(1, (3, 4))
    stub.roll(0, (5, 6))
    response = client.get("/events", headers={"Last-Event-ID": "1"}, buffered=False)
    stream = response.response
    next(stream)  # retry hint
    first, second = next_message(stream), next_message(stream)
    assert first.startswith("id: 2\n") and '"dice":[3,4]' in first
    assert second.startswith("id: 3\n") and '"dice":[5,6]' in second


def test_viewing_can_require_the_token(stub):
    app = create_app({"ACCESS_TOKEN": TOKEN, "VIEW_REQUIRES_TOKEN": True}, session=stub)
    client = app.test_client()
    for path in ("/", "/api/state", "/events", "/fragment/live", "/match.mat", "/camera.jpg", "/camera.mjpg"):
        assert client.get(path).status_code == 401, path
    assert client.get("/api/state", headers=AUTH).status_code == 200
    client.get(f"/?token={TOKEN}")
    assert client.get("/api/state").status_code == 200
    app.extensions["companion"].shutdown()


def test_security_headers(client):
    response = client.get("/")
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    cookie_response = client.get(f"/?token={TOKEN}")
    cookie = cookie_response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie


def test_fragment_shows_illegal_verdict_then_clears_on_correction(client, stub):
    stub.roll(0, (3, 1))
    stub.publish_verdict(
        "illegal",
        player=0,
        dice=(3, 1),
        play="8/4",
        reasons=({"code": "distance", "message": "No die shows 4."},),
        closest_legal="8/5 6/5",
        points_differing=(8, 4),
        points_played=(8, 5, 6),
    )
    live = client.get("/fragment/live").get_json()["live"]
    assert 'id="alert" class="alert illegal"' in live
    assert "No die shows 4." in live and "8/5 6/5" in live
    assert 'id="point-8" class="point illegal hint"' in live
    assert 'id="point-4" class="point illegal"' in live
    assert 'id="point-5" class="point hint"' in live
    stub.publish_verdict("corrected", player=0, dice=(3, 1), play="8/5 6/5")
    live = client.get("/fragment/live").get_json()["live"]
    assert "alert illegal" not in live and 'class="point illegal"' not in live
    assert "alert corrected" in live


def test_tournament_mode_hides_hints_but_still_flags_the_illegal_play(client, stub):
    stub.set_mode("tournament")
    stub.roll(0, (3, 1))
    stub.publish_verdict(
        "illegal", player=0, dice=(3, 1), play="8/4",
        reasons=({"code": "distance", "message": "No die shows 4."},),
        closest_legal="8/5 6/5", points_differing=(8, 4), points_played=(8, 5, 6),
    )
    live = client.get("/fragment/live").get_json()["live"]
    assert "alert illegal" in live and 'class="point illegal"' in live
    assert "No die shows 4." not in live
    assert "8/5 6/5" not in live
    assert 'class="point hint"' not in live
    assert "Pip counts" not in live
    stub.set_mode("teaching")
    assert "Pip counts" in client.get("/fragment/live").get_json()["live"]


def test_cocked_dice_alert_until_the_next_roll(client, stub):
    stub.cocked(0, (4, 2))
    live = client.get("/fragment/live").get_json()["live"]
    assert "Cocked dice: roll again" in live
    assert 'class="die cocked"' in live
    stub.roll(0, (4, 2))
    live = client.get("/fragment/live").get_json()["live"]
    assert "Cocked dice" not in live


def test_scoresheet_lists_games(client, stub):
    stub.finish_game(winner=1, points=2, kind="gammon")
    sheet = client.get("/fragment/live").get_json()["scoresheet"]
    assert 'data-winner="1" data-points="2"' in sheet
    assert "gammon" in sheet and "Bob" in sheet


def test_pages_get_rendered_views_on_the_event_stream(client, stub, app):
    response = client.get("/events?view=1", buffered=False)
    stream = response.response
    assert next(stream) == b"retry: 1000\n\n"
    stub.roll(1, (4, 4))
    first = next_message(stream)
    assert first.startswith("id: ") and '"type":"roll"' in first
    view = next_message(stream)
    assert view.startswith("event: view\ndata: ")
    payload = json.loads(view[len("event: view\ndata: "):])
    assert payload["event_id"] == int(first.split("\n")[0][4:])
    assert 'data-dice="4,4"' in payload["live"]
    assert "<table" in payload["scoresheet"]
    # Plain /events carries bus events only.
    plain = client.get("/events", buffered=False).response
    next(plain)
    stub.roll(0, (2, 1))
    assert '"type":"roll"' in next_message(plain)
    assert next(plain) == b": keep-alive\n\n"  # no view messages on the plain stream


def test_camera_lost_is_said_on_the_page_and_board_status_shown(client, stub):
    from companion.events import BoardStatusEvent, SourceStatusEvent

    stub.bus.publish(SourceStatusEvent(status="lost", detail="camera 0 stopped sending frames"))
    stub.bus.publish(BoardStatusEvent(status="occluded"))
    live = client.get("/fragment/live").get_json()["live"]
    assert 'id="device-warning"' in live
    assert "Camera lost: camera 0 stopped sending frames" in live
    assert "a hand over the board" in live
    stub.bus.publish(SourceStatusEvent(status="ok", detail="reopened"))
    live = client.get("/fragment/live").get_json()["live"]
    assert 'id="device-warning"' not in live
    assert "ok: reopened" in live


def test_illegal_board_is_drawn_while_waiting_for_the_correction(client, stub):
    seen = [0, -2, 0, 0, 4, 0, 4, 0, 2, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0]
    stub.roll(0, (3, 1))
    stub.publish_verdict("illegal", player=0, dice=(3, 1), play="8/4 6/5", points_differing=(4, 5, 6, 8))
    with stub._lock:
        stub._state["illegal_board"] = seen
    live = client.get("/fragment/live").get_json()["live"]
    assert "The board as it lies now (not legal)" in live
    assert 'id="point-4" class="point illegal" data-point="4" data-count="4"' in live
    assert "Point 4: 4 Alice checkers" in live


def test_cube_and_accept_board_actions(client, stub):
    assert client.post("/api/cube", json={"action": "double", "player": 0}).status_code == 401
    assert client.post("/api/cube", json={"action": "redouble", "player": 0}, headers=AUTH).status_code == 400
    assert client.post("/api/cube", json={"action": "double", "player": 5}, headers=AUTH).status_code == 400
    response = client.post("/api/cube", json={"action": "double", "player": 1}, headers=AUTH)
    assert response.status_code == 200
    assert stub.calls[-1] == ("double", (1, "dashboard"))
    assert "double offered" in client.get("/fragment/live").get_json()["live"]
    # The stub has no take(): the dashboard says so instead of failing.
    response = client.post("/api/cube", json={"action": "take", "player": 0}, headers=AUTH)
    assert response.status_code == 501
    assert "cannot take" in response.get_json()["error"]
    response = client.post("/api/override/accept", json={}, headers=AUTH)
    assert response.status_code == 409
    assert stub.calls[-1] == ("confirm", "dashboard")


def test_a_failing_session_gets_a_json_500_not_a_traceback(stub):
    def broken() -> str:
        raise AttributeError("module has no attribute 'write_mat'")

    stub.match_record = broken
    app = create_app({"ACCESS_TOKEN": TOKEN}, session=stub)
    response = app.test_client().get("/match.mat")
    assert response.status_code == 500
    assert response.get_json() == {"error": "the companion failed on this request (see its log)"}
    assert b"Traceback" not in response.data
    app.extensions["companion"].shutdown()


def test_static_files_are_served_and_paths_outside_are_not(client):
    js = client.get("/static/dashboard.js")
    assert js.status_code == 200 and b"EventSource" in js.data
    assert client.get("/static/dashboard.css").status_code == 200
    assert client.get("/static/../app.py").status_code == 404
    assert client.get("/static/%2e%2e/app.py").status_code == 404

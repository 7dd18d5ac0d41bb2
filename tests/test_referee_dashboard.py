"""The real session behind the real dashboard app: every API action reaches the
referee, refusals come back as 409 with the referee's sentence."""

from __future__ import annotations

from companion.bus import EventBus
from companion.scripted_game import DieSpec, Scene, scene_observation
from companion.session import Session
from companion.table import START_SIGNED


def _client():
    from web.app import create_app

    session = Session(EventBus(), reader=None)
    app = create_app({"ACCESS_TOKEN": "t0ken", "TESTING": True}, session=session)
    return app.test_client(), session, {"X-Access-Token": "t0ken"}


def _opening(session, d0, d1):
    scene = Scene(START_SIGNED, (DieSpec(d0, "right"), DieSpec(d1, "left")))
    for k in range(4):
        session.feed_observation(scene_observation(scene, timestamp_ms=33.0 * k), moving=k == 0)


def test_dashboard_actions_reach_the_referee():
    client, session, auth = _client()
    r = client.post("/api/match/new", json={"players": ["Ann", "Bob"], "match_length": 7,
                                            "illegal_play_policy": "opponent_option", "mode": "teaching"}, headers=auth)
    assert r.status_code == 200, r.get_json()
    st = client.get("/api/state").get_json()
    assert st["players"] == ["Ann", "Bob"] and st["match_length"] == 7
    assert st["settings"]["illegal_play_policy"] == "opponent_option" and st["mode"] == "teaching"
    # a refusal by the referee: no roll to override before the opening roll
    r = client.post("/api/override/dice", json={"dice": [3, 1]}, headers=auth)
    assert r.status_code == 409 and "opening roll" in r.get_json()["error"]
    _opening(session, 5, 2)
    r = client.post("/api/override/dice", json={"dice": [5, 3]}, headers=auth)
    assert r.status_code == 200 and r.get_json()["state"]["dice"] == [5, 3]
    r = client.post("/api/override/undo", json={}, headers=auth)
    assert r.status_code == 200 and r.get_json()["state"]["dice"] == [5, 2]
    r = client.post("/api/resign", json={"player": 1, "level": 2}, headers=auth)
    assert r.status_code == 200 and r.get_json()["state"]["resignation"] == {"player": 1, "level": 2}
    r = client.post("/api/resignation", json={"accept": True}, headers=auth)
    st = r.get_json()["state"]
    assert st["score"] == [2, 0] and st["games"][0]["kind"] == "resign"  # a gammon, cube 1
    assert client.post("/api/override/undo", json={}).status_code == 401  # no token, no action

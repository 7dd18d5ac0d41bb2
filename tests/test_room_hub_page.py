"""The director's page (``web.hub_app``) over a room fed by a real Mosquitto broker:
the grid, the alerts, the results as CSV and .mat, and commands that need the token."""

from __future__ import annotations

import csv
import json
import io
import re
import time

import pytest

from companion.hub_address import parse_hub_url
from companion.hub_listener import HubListener
from companion.hub_room import Room
from mosquitto_broker import MOSQUITTO, Broker
from room_tables import SimTable
from web.hub_app import create_hub_app
from web.tracker import Tracker

pytestmark = pytest.mark.skipif(not MOSQUITTO.exists(), reason="Mosquitto is not installed (.ci/run installs it)")

TOKEN = "the-directors-token"


def wait_for(condition, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not condition():
        time.sleep(0.05)
    return condition()


@pytest.fixture()
def room_app(tmp_path):
    broker = Broker(tmp_path / "broker").start()
    room = Room("open", follow=Tracker)
    listener = HubListener(parse_hub_url(broker.url), room).start()
    tables = []
    try:
        assert listener.wait_connected(10)
        tables += [SimTable(broker.url, "open", n, tmp_path, seed=n, match_length=1, games=1, token=TOKEN).start()
                   for n in (2, 11)]
        while not all(t.done for t in tables):
            for t in tables:
                t.step(50)
        assert wait_for(lambda: all((room.table(t.number) or {}).get("applied") == t.outbox.last_seq
                                    for t in tables))
        assert wait_for(lambda: len(room.results()) == 2 and all(r.get("mat") for r in room.results()))
        assert wait_for(lambda: all(room.table(t.number)["state"].get("score") == list(t.session.state()["score"])
                                    for t in tables))

        def send(table, action, token, args):
            return listener.send_command(table, action, token, **args)

        app = create_hub_app(room, send, {"ACCESS_TOKEN": TOKEN, "COMMAND_TIMEOUT_S": 10.0})
        yield app, room, tables
    finally:
        for t in tables:
            t.stop()
        listener.stop()
        broker.stop()


def test_the_grid_alerts_and_results_of_the_room(room_app):
    app, room, tables = room_app
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    for t in tables:
        assert f'id="table-{t.number}"' in page
        score = t.session.state()["score"]
        assert f'data-score="{score[0]}-{score[1]}"' in page
        assert f"North {t.number} – South {t.number}" in page
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" id="t') == 2  # the dashboard's board, small
    ids = re.findall(r' id="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "every element id on the page is unique"
    assert 'id="t11-point-24"' in page and 'aria-labelledby="t2-board-title t2-board-desc"' in page
    assert page.count('class="room-alert') == len(room.alerts()) > 0
    rows = list(csv.DictReader(io.StringIO(client.get("/results.csv").get_data(as_text=True))))
    assert sorted(int(r["table"]) for r in rows) == [2, 11]
    for r in rows:
        state = next(t for t in tables if t.number == int(r["table"])).session.state()
        assert [int(r["score_0"]), int(r["score_1"])] == list(state["score"])
        assert r["winner"] == state["players"][0 if state["score"][0] > state["score"][1] else 1]
    mat = client.get("/table/2/match.mat").get_data(as_text=True)
    assert mat == tables[0].session.match_record()
    for index, result in enumerate(room.results()):  # each finished match's own record
        table = next(t for t in tables if t.number == result["table"])
        assert client.get(f"/results/{index}.mat").get_data(as_text=True) == table.session.match_record()
        assert f'href="/results/{index}.mat"' in page
    assert client.get("/results/2.mat").status_code == 404
    full = client.get("/table/11").get_data(as_text=True)
    assert 'id="scoresheet-table"' in full and 'id="t11-board"' in full
    data = client.get("/api/room").get_json()
    assert [t["events"] for t in data["tables"]] == [t.outbox.last_seq for t in tables]
    assert client.get("/table/12").status_code == 404


def test_commands_from_the_page_need_the_directors_token(room_app):
    app, room, tables = room_app
    client = app.test_client()
    body = {"action": "new_match", "settings": {"players": ["Ann", "Bob"], "match_length": 3}}
    assert client.post("/api/table/2/command", json=body).status_code == 401
    assert client.post("/api/table/2/command", json=body, headers={"Authorization": "Bearer wrong"}).status_code == 403
    assert tables[0].session.state()["players"] == ["North 2", "South 2"]
    answer = client.post("/api/table/2/command", json=body, headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["ok"] is True
    assert tables[0].session.state()["players"] == ["Ann", "Bob"]
    refused = client.post("/api/table/2/command", json={"action": "resign", "player": 0, "level": 9},
                          headers={"Authorization": f"Bearer {TOKEN}"})
    assert refused.status_code == 409 and "level" in refused.get_json()["error"]
    assert client.post("/api/table/40/command", json=body, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 404


def test_a_signed_in_director_acts_from_the_tables_page(room_app):
    import re

    app, room, tables = room_app
    client = app.test_client()
    assert 'data-action="undo"' not in client.get("/table/11").get_data(as_text=True)  # no forms without the token
    assert client.get("/?token=wrong").status_code == 403
    assert client.get(f"/?token={TOKEN}").status_code == 302
    page = client.get("/table/11").get_data(as_text=True)
    assert 'form class="command" data-action="new_match"' in page
    csrf = re.search(r'<meta name="csrf-token" content="([^"]+)">', page).group(1)
    body = {"action": "new_match", "settings": {"players": ["Cleo", "Dan"], "match_length": 7}}
    assert client.post("/api/table/11/command", json=body).status_code == 403  # signed in, but no CSRF token
    answer = client.post("/api/table/11/command", json=body, headers={"X-CSRF-Token": csrf})
    assert answer.status_code == 200 and answer.get_json()["ok"] is True
    assert tables[1].session.state()["players"] == ["Cleo", "Dan"]
    assert tables[1].session.state()["match_length"] == 7


def open_stream(client, url, headers=None):
    """The page's event stream as an iterator of its SSE blocks (id or None, data or None)."""
    response = client.get(url, headers=headers or {}, buffered=False)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"

    def blocks():
        for chunk in response.response:
            text = chunk.decode("utf-8") if isinstance(chunk, bytes) else chunk
            fields = dict(line.partition(": ")[::2] for line in text.strip().split("\n") if ": " in line)
            yield fields.get("id"), (json.loads(fields["data"]) if "data" in fields else None)

    return response, blocks()


def next_message(blocks, limit=50):
    """The next block with data (keepalives and the retry hint skipped)."""
    for _ in range(limit):
        event_id, data = next(blocks)
        if data is not None:
            return event_id, data
    raise AssertionError("no message came")


def test_the_event_stream_carries_the_changed_cards(room_app):
    app, room, tables = room_app
    app.config["SSE_KEEPALIVE_S"] = 0.2
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    version = int(re.search(r'data-version="(\d+)"', page).group(1))
    boot = re.search(r'data-hub="([0-9a-f]+)"', page).group(1)
    response, blocks = open_stream(client, f"/events?since={version}&hub={boot}")
    try:
        room.on_change(2)  # as after a message from table 2
        event_id, message = next_message(blocks)
        assert event_id == f"{boot}.{message['version']}" and message["version"] > version
        # table 11's heartbeat may change its card in the same moment; table 2's is there once
        [card] = [c for c in message["cards"] if c["number"] == 2]
        assert all(c["number"] == 11 for c in message["cards"] if c is not card)
        assert card["number"] == 2 and f'data-events="{tables[0].outbox.last_seq}"' in card["html"]
        assert "<svg" not in card["html"] and card["board"].startswith("<svg") and 'id="t2-board"' in card["board"]
        assert 'id="alert-list"' in message["alerts"] and 'id="results-table"' in message["results"]

        room.on_change(2)  # nothing the page shows changed: table 2 is not sent again
        later = [data for _, data in (next(blocks) for _ in range(8)) if data is not None]
        assert len(later) <= 1 and all(c["number"] == 11 for m in later for c in m["cards"])  # 11's heartbeat

        body = {"action": "new_match", "settings": {"players": ["Ann", "Bob"], "match_length": 3}}
        answer = client.post("/api/table/2/command", json=body, headers={"Authorization": f"Bearer {TOKEN}"})
        assert answer.status_code == 200
        cards = {}
        while "Ann – Bob" not in cards.get(2, {}).get("html", ""):
            for c in next_message(blocks)[1].get("cards", []):
                cards.setdefault(c["number"], {}).update(c)
        assert "board" in cards[2] and cards[2]["board_key"] != card["board_key"]  # the new match's board
        assert 11 not in cards
    finally:
        response.close()


def test_a_page_of_another_hub_or_too_far_behind_reloads(room_app):
    app, room, tables = room_app
    app.config["SSE_KEEPALIVE_S"] = 0.2
    client = app.test_client()
    feed = app.extensions["companion_hub"]["feed"]
    for url, headers in ((f"/events?since=0&hub=0bad0bad", {}),  # the page of an earlier hub
                         ("/events", {"Last-Event-ID": f"0bad0bad.{feed.version}"}),  # reconnected after a restart
                         (f"/events?since={feed.version + 5}&hub={feed.boot}", {}),  # a version never reached
                         (f"/events?since=x&hub={feed.boot}", {})):
        response, blocks = open_stream(client, url, headers)
        assert next_message(blocks) == (None, {"reload": True}), url
        response.close()

    # a reconnection to the same hub resumes after the last message it had
    seen = feed.version
    room.on_change(11)
    response, blocks = open_stream(client, "/events", {"Last-Event-ID": f"{feed.boot}.{seen}"})
    assert 11 in [c["number"] for c in next_message(blocks)[1]["cards"]]
    response.close()

    response, blocks = open_stream(client, f"/events?since={feed.version}&hub={feed.boot}")
    try:
        next(blocks)  # the retry hint: the stream is following
        for _ in range(10001):  # more changes than the feed remembers, before the stream looks
            room.on_change(2)
        assert next_message(blocks)[1] == {"reload": True}
    finally:
        response.close()

"""The tournament room on a real Mosquitto broker on loopback: 16 simulated tables
(real sessions fed scripted games, real publishers with SQLite outboxes) and the
hub, through a broker crash, a hub restart and bad input; at the end every count
at the hub equals the count at each table: nothing lost, nothing counted twice."""

from __future__ import annotations

import json
import logging
import time

import paho.mqtt.client as mqtt
import pytest

from companion.hub_address import parse_hub_url
from companion.hub_listener import HubListener
from companion.hub_room import Room
from companion.hub_topics import topic
from mosquitto_broker import MOSQUITTO, Broker
from room_tables import SimTable

pytestmark = pytest.mark.skipif(not MOSQUITTO.exists(), reason="Mosquitto is not installed (.ci/run installs it)")

TOKEN = "director-secret-token"


@pytest.fixture()
def broker(tmp_path):
    b = Broker(tmp_path / "broker").start()
    yield b
    b.stop()


def wait_for(condition, timeout=20.0, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def start_hub(url):
    room = Room("open")
    listener = HubListener(parse_hub_url(url), room, replay_every_s=0.3).start()
    assert listener.wait_connected(10)
    return room, listener


def raw_client(url, client_id):
    address = parse_hub_url(url)
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
    c.connect(address.host, address.port)
    c.loop_start()
    return c


def all_arrived(room, tables):
    for t in tables:
        view = room.table(t.number)
        if view is None or view["applied"] != t.outbox.last_seq or view["pending"]:
            return False
    return True


def test_sixteen_tables_survive_a_broker_crash_a_hub_restart_and_bad_input(broker, tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    room, hub = start_hub(broker.url)
    tables = [SimTable(broker.url, "open", n, tmp_path, seed=100 + n, match_length=1, games=1).start()
              for n in range(1, 17)]
    longest = max(len(t.frames) for t in tables)

    def play(fraction):
        target = int(longest * fraction)
        while any(t.position < min(target, len(t.frames)) for t in tables):
            for t in tables:
                t.step(25)

    play(0.3)
    assert wait_for(lambda: sum((room.table(t.number) or {}).get("applied", 0) for t in tables) > 0)
    broker.stop()  # SIGKILL: the broker crashes mid-match, the tables go on refereeing
    play(0.55)
    waiting = sum(t.outbox.unacked_count() for t in tables)
    assert waiting > 0, "events made while the broker was away wait in the outboxes"
    broker.start()
    play(0.75)
    hub.stop()  # the hub goes away; a new one starts with nothing and rebuilds from the room
    play(0.85)
    room, hub = start_hub(broker.url)

    # bad input from a stranger on the broker, and a second box that was given table 3's number
    stranger = raw_client(broker.url, "stranger")
    stranger.publish(topic("open", 5, "event"), b"\xff\xfe not json", qos=1)
    stranger.publish("companion/open/table/x/event", b"{}", qos=1)
    stranger.publish(topic("open", 6, "event"), json.dumps({"table": 9, "table_id": "zz", "seq": 1}), qos=1)
    impostor = SimTable(broker.url, "open", 3, tmp_path, seed=999, match_length=1, games=1,
                        outbox_name="impostor-3.sqlite").start()
    impostor.step(200)

    play(1.0)
    assert wait_for(lambda: all_arrived(room, tables), timeout=40), [
        (t.number, t.outbox.last_seq, room.table(t.number) and room.table(t.number)["applied"]) for t in tables]
    for t in tables:
        view = room.table(t.number)
        assert view["table_id"] == t.outbox.table_id
        assert view["counts"] == t.outbox.counts()  # every event once, per type
        assert sum(view["counts"].values()) == t.outbox.last_seq
        # ... and the outbox holds everything the table's bus carried once publishing started
        seen = dict(t.seen)
        seen["turn"] -= 1  # the session's first turn, published before the publisher subscribed
        assert {k: v for k, v in seen.items() if v} == t.outbox.counts()
        score = list(t.session.state()["score"])
        assert wait_for(lambda: room.table(t.number)["state"].get("score") == score, timeout=5), (t.number, room.table(t.number)["state"].get("score"), score)  # the retained state
    finished = [t for t in tables if t.session.state()["waiting_for"] == "game_over"]
    assert sorted(r["table"] for r in room.results()) == sorted(t.number for t in finished)
    reasons = " | ".join(reason for _, reason in room.ignored)
    assert "not UTF-8 JSON" in reasons and "table number" in reasons and "payload says table 9" in reasons
    assert "claims its number" in reasons
    assert any("lost the broker" in r.getMessage() for r in caplog.records)
    stranger.loop_stop()
    impostor.stop()
    for t in tables:
        t.stop()
    hub.stop()


def test_director_commands_need_the_token_and_land_in_the_audit_trail(broker, tmp_path):
    room, hub = start_hub(broker.url)
    table = SimTable(broker.url, "open", 4, tmp_path, seed=4, token=TOKEN).start()
    table.step(40)
    assert wait_for(lambda: room.table(4) is not None and room.table(4)["applied"] == table.outbox.last_seq)

    wrong = hub.send_command(4, "new_match", "not-the-token", settings={"players": ["X", "Y"], "match_length": 3})
    none = hub.send_command(4, "new_match", None, settings={"players": ["X", "Y"], "match_length": 3})
    assert wait_for(lambda: room.reply(4, wrong) is not None and room.reply(4, none) is not None)
    assert room.reply(4, wrong) == {"id": wrong, "action": "new_match", "ok": False, "error": "wrong access token"}
    assert "needs the director's token" in room.reply(4, none)["error"]
    assert table.session.state()["players"] == ["North 4", "South 4"]

    good = hub.send_command(4, "new_match", TOKEN, settings={"players": ["Ann", "Bob"], "match_length": 5})
    assert wait_for(lambda: room.reply(4, good) is not None)
    assert room.reply(4, good)["ok"] is True
    assert table.session.state()["players"] == ["Ann", "Bob"]
    bad_args = hub.send_command(4, "set_dice", TOKEN, dice=[7, 1])
    assert wait_for(lambda: room.reply(4, bad_args) is not None)
    assert room.reply(4, bad_args)["ok"] is False and "1-6" in room.reply(4, bad_args)["error"]

    assert wait_for(lambda: len(room.table(4)["commands"]) == 4)
    trail = [(c["action"], c["accepted"]) for c in room.table(4)["commands"]]
    assert trail == [("new_match", False), ("new_match", False), ("new_match", True), ("set_dice", False)]
    assert all("token" not in c["args"] for c in room.table(4)["commands"])
    assert wait_for(lambda: room.table(4)["state"].get("players") == ["Ann", "Bob"])
    assert table.publisher.commands_refused == 3
    table.stop()
    hub.stop()


def test_a_watch_process_killed_with_sigkill_and_restarted_loses_nothing(broker, tmp_path, repo_root):
    import os
    import signal
    import subprocess
    import sys

    import cv2
    import numpy as np

    from companion.hub_outbox import Outbox

    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(12):
        cv2.imwrite(str(folder / f"f{i:03d}.png"), np.full((48, 64, 3), 60 + 10 * i, np.uint8))
    outbox_path = tmp_path / "table-9.sqlite"
    room, hub = start_hub(broker.url)
    command = [sys.executable, "-m", "companion", "watch", "--no-web", "--keyboard", "off", "--source", str(folder),
               "--stills", "--fps", "4", "--speed", "1", "--hub", broker.url, "--table", "9",
               "--tournament", "open", "--hub-outbox", str(outbox_path)]
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    first = subprocess.Popen(command, cwd=repo_root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        assert wait_for(lambda: (room.table(9) or {}).get("applied", 0) >= 4, timeout=60)
        os.kill(first.pid, signal.SIGKILL)
        first.wait(10)
    finally:
        if first.poll() is None:
            first.kill()
    assert wait_for(lambda: (room.table(9) or {}).get("online") is False, timeout=30)  # the last will
    second = subprocess.run(command, cwd=repo_root, env=env, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "room: table 9 of open publishing to mqtt://127.0.0.1" in second.stdout
    box = Outbox(str(outbox_path))
    try:
        assert wait_for(lambda: room.table(9)["applied"] == box.last_seq and not room.table(9)["pending"])
        assert room.table(9)["counts"] == box.counts()
        assert box.counts()["reading"] >= 12  # the frames of both runs, each once
        assert box.unacked_count() == 0
    finally:
        box.close()
    assert room.table(9)["online"] is False  # said offline on a clean exit
    hub.stop()


def test_a_hub_on_a_bridged_broker_gets_every_event_of_the_venue(broker, tmp_path):
    """Two Mosquitto brokers (a venue and a stream studio): the studio's broker bridges
    ``companion/open/#`` from the venue's, both ways (replay requests go back)."""
    studio = Broker(tmp_path / "studio", extra=(
        "connection venue\n"
        f"address 127.0.0.1:{broker.port}\n"
        "topic companion/open/# both 1\n"
        "cleansession true\n"
        "restart_timeout 1\n"
    )).start()
    try:
        room, hub = start_hub(studio.url)
        table = SimTable(broker.url, "open", 6, tmp_path, seed=6, match_length=1, games=1).start()
        while not table.done:
            table.step(50)
        assert wait_for(lambda: (room.table(6) or {}).get("applied") == table.outbox.last_seq, timeout=30)
        assert room.table(6)["counts"] == table.outbox.counts()
        hub.stop()
        # a hub started later at the studio rebuilds the table from its outbox, across the bridge
        room2, hub2 = start_hub(studio.url)
        assert wait_for(lambda: (room2.table(6) or {}).get("applied") == table.outbox.last_seq, timeout=30)
        assert room2.table(6)["counts"] == table.outbox.counts()
        hub2.stop()
        table.stop()
    finally:
        studio.stop()


def test_a_table_cut_off_the_network_catches_up_in_order_when_it_returns(broker, tmp_path):
    from tcp_proxy import CuttableProxy

    cable = CuttableProxy(("127.0.0.1", broker.port))
    room, hub = start_hub(broker.url)
    table = SimTable(f"mqtt://127.0.0.1:{cable.port}", "open", 8, tmp_path, seed=8).start()
    other = SimTable(broker.url, "open", 9, tmp_path, seed=9).start()
    try:
        table.step(150)
        other.step(150)
        assert wait_for(lambda: (room.table(8) or {}).get("applied") == table.outbox.last_seq > 0)
        cable.cut()
        assert wait_for(lambda: room.table(8)["online"] is False, timeout=10)  # the broker says so: last will
        before = room.table(8)["applied"]
        for _ in range(10):  # the table goes on refereeing, the other table goes on publishing
            table.step(40)
            other.step(40)
            time.sleep(0.1)
        assert table.outbox.unacked_count() > 0
        assert room.table(8)["applied"] == before
        assert wait_for(lambda: room.table(9)["applied"] == other.outbox.last_seq)
        cable.restore()
        assert wait_for(lambda: room.table(8)["applied"] == table.outbox.last_seq and room.table(8)["online"],
                        timeout=30)
        assert room.table(8)["counts"] == table.outbox.counts()
        assert room.table(8)["pending"] == 0
        assert wait_for(lambda: table.outbox.unacked_count() == 0, timeout=10)  # the last PUBACKs
        offline = [a for a in room.alerts() if a["table"] == 8 and a["kind"] == "offline"]
        assert len(offline) == 1
    finally:
        table.stop()
        other.stop()
        hub.stop()
        cable.close()


def test_a_broker_that_asks_for_a_password_lets_in_only_the_right_one(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    locked = Broker(tmp_path / "locked", users={"table7": "s3cret", "hub": "h-pass"}).start()
    try:
        port = locked.port
        room, hub = start_hub(f"mqtt://hub:h-pass@127.0.0.1:{port}")
        wrong = SimTable(f"mqtt://table7:guess@127.0.0.1:{port}", "open", 7, tmp_path, seed=7,
                         outbox_name="wrong.sqlite").start()
        right = SimTable(f"mqtt://table7:s3cret@127.0.0.1:{port}", "open", 2, tmp_path, seed=2).start()
        wrong.step(100)
        right.step(100)
        assert wait_for(lambda: (room.table(2) or {}).get("applied") == right.outbox.last_seq)
        assert wait_for(lambda: any("refused the connection" in r.getMessage() for r in caplog.records))
        assert room.table(7) is None and wrong.outbox.unacked_count() == wrong.outbox.last_seq > 0
        assert not wrong.publisher.connected
        wrong.stop()
        right.stop()
        hub.stop()
    finally:
        locked.stop()


def test_tables_and_hub_speak_tls_to_a_broker_with_a_private_ca(tmp_path):
    from companion.hub_address import HubAddress
    from mosquitto_broker import make_tls_files

    files = make_tls_files(tmp_path / "tls")
    secure = Broker(tmp_path / "secure", tls=files).start()
    try:
        room = Room("open")
        hub = HubListener(parse_hub_url(secure.url, ca_file=str(files["ca"])), room).start()
        assert hub.wait_connected(10)
        table = SimTable(secure.url, "open", 3, tmp_path, seed=3, ca_file=str(files["ca"])).start()
        table.step(100)
        assert wait_for(lambda: (room.table(3) or {}).get("applied") == table.outbox.last_seq > 0)
        # a client that does not trust the room's CA never gets in
        plain = HubAddress("127.0.0.1", secure.port, tls=True, ca_file=None)
        stranger_room = Room("open")
        stranger = HubListener(plain, stranger_room).start()
        assert not stranger.wait_connected(2)
        stranger.stop()
        table.stop()
        hub.stop()
    finally:
        secure.stop()

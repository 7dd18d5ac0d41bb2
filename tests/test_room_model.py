"""The hub's room model on hand-made messages (no broker): events applied once and in
order, gaps asked back, and bad input ignored with a logged reason."""

from __future__ import annotations

import json
import logging

from companion.hub_room import Room
from companion.hub_topics import MAX_PAYLOAD, topic


def event_msg(table: int, seq: int, kind: str = "roll", table_id: str = "aaaa", **fields) -> bytes:
    return json.dumps({"table": table, "table_id": table_id, "seq": seq,
                       "event": {"type": kind, "time_ms": 1.0, **fields}}).encode()


def test_events_are_applied_once_and_in_order_and_a_gap_is_asked_back():
    room = Room("open")
    t = topic("open", 3, "event")
    assert room.receive(t, event_msg(3, 1)) is None
    assert room.receive(t, event_msg(3, 1)) is None  # a QoS 1 resend
    assert room.receive(t, event_msg(3, 3, "cocked_dice", player=1)) == (3, 2)  # 2 is missing: replay from 2
    assert room.table(3)["applied"] == 1
    assert room.receive(t, event_msg(3, 2)) is None
    view = room.table(3)
    assert view["applied"] == 3 and view["pending"] == 0
    assert view["counts"] == {"roll": 2, "cocked_dice": 1}
    assert view["duplicates"] == 1
    assert [a["kind"] for a in room.alerts()] == ["cocked"]


def test_a_state_ahead_of_a_new_hub_asks_for_everything_from_the_start():
    room = Room("open")
    state = json.dumps({"table": 5, "table_id": "bbbb", "seq": 40, "state": {"players": ["A", "B"]}}).encode()
    assert room.receive(topic("open", 5, "state"), state) == (5, 1)
    assert room.missing() == [(5, 1)]


def test_a_finished_match_is_a_result_with_the_players_of_the_state():
    room = Room("open")
    state = json.dumps({"table": 2, "table_id": "cc", "seq": 0,
                        "state": {"players": ["Ann", "Bob"], "match_length": 1}}).encode()
    room.receive(topic("open", 2, "state"), state)
    room.receive(topic("open", 2, "event"), event_msg(2, 1, "game_end", table_id="cc", winner=1, points=1,
                                                      score=[0, 1], match_over=True))
    assert room.results()[0]["winner"] == "Bob"
    assert room.results()[0]["score"] == [0, 1]


def test_bad_messages_are_ignored_with_a_logged_reason(caplog):
    room = Room("open")
    room.receive(topic("open", 7, "event"), event_msg(7, 1, table_id="real"))
    cases = [
        (topic("open", 7, "event"), b"{not json", "not UTF-8 JSON"),
        (topic("open", 7, "event"), b"[1, 2]", "not a JSON object"),
        (topic("open", 7, "event"), b"x" * (MAX_PAYLOAD + 1), "over the limit"),
        ("companion/open/table/seven/event", event_msg(7, 2, table_id="real"), "table number"),
        ("companion/other/table/7/event", event_msg(7, 2, table_id="real"), "another tournament"),
        ("companion/open/table/7/gossip", event_msg(7, 2, table_id="real"), "unknown message kind"),
        (topic("open", 7, "event"), event_msg(8, 2, table_id="real"), "payload says table 8"),
        (topic("open", 7, "event"), event_msg(7, 2, table_id="impostor"), "claims its number"),
        (topic("open", 7, "event"), json.dumps({"table": 7, "table_id": "real", "seq": "2"}).encode(), "seq"),
        (topic("open", 7, "event"), json.dumps({"table": 7, "table_id": "real", "seq": 2}).encode(), "event object"),
        (topic("open", 7, "status"), json.dumps({"table": 7, "table_id": "real", "online": "yes"}).encode(), "online"),
    ]
    with caplog.at_level(logging.WARNING, logger="companion.hub_room"):
        for t, raw, reason in cases:
            assert room.receive(t, raw) is None
            assert reason in room.ignored[-1][1], (reason, room.ignored[-1])
    assert room.ignored_count == len(cases)
    assert len([r for r in caplog.records if "ignored a message" in r.getMessage()]) == len(cases)
    view = room.table(7)
    assert view["applied"] == 1 and view["counts"] == {"roll": 1}
    assert room.numbers() == [7]


def test_each_finished_match_keeps_its_own_record_also_when_the_record_comes_first():
    def record(seq, mat):
        return json.dumps({"table": 2, "table_id": "cc", "seq": seq, "mat": mat}).encode()

    end = dict(winner=0, points=1, score=[1, 0], match_over=True)
    live = Room("open")  # the usual order: the game end, then the record
    live.receive(topic("open", 2, "event"), event_msg(2, 1, "game_end", table_id="cc", **end))
    live.receive(topic("open", 2, "record"), record(1, "first match"))
    live.receive(topic("open", 2, "event"), event_msg(2, 2, "game_end", table_id="cc", **end))
    live.receive(topic("open", 2, "record"), record(2, "second match"))
    assert [r["mat"] for r in live.results()] == ["first match", "second match"]

    rebuilt = Room("open")  # a new hub: the retained record first, then the replayed events
    rebuilt.receive(topic("open", 2, "record"), record(2, "second match"))
    rebuilt.receive(topic("open", 2, "event"), event_msg(2, 1, "game_end", table_id="cc", **end))
    rebuilt.receive(topic("open", 2, "event"), event_msg(2, 2, "game_end", table_id="cc", **end))
    # the first match's record is gone from the broker: it is not the second match's
    assert [r.get("mat") for r in rebuilt.results()] == [None, "second match"]


def test_a_flood_of_the_same_bad_message_is_counted_but_logged_once(caplog):
    room = Room("open")
    with caplog.at_level(logging.WARNING, logger="companion.hub_room"):
        for _ in range(50):
            room.receive(topic("open", 4, "event"), b"garbage")
    assert room.ignored_count == 50
    assert len([r for r in caplog.records if "ignored a message" in r.getMessage()]) == 1

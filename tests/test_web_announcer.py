"""The SSE announcer: one bounded queue per browser, slow browsers dropped, never the referee."""

from __future__ import annotations

import json
import threading
import time

import pytest

from companion.bus import EventBus
from companion.events import RollEvent, VerdictEvent
from web.announcer import Announcer, format_sse


def _data(message: str) -> dict:
    lines = [line[6:] for line in message.splitlines() if line.startswith("data: ")]
    return json.loads("\n".join(lines))


def test_format_sse_splits_lines_and_ends_with_a_blank_line():
    assert format_sse("a\nb", 7, "x") == "id: 7\nevent: x\ndata: a\ndata: b\n\n"
    assert format_sse("") == "data: \n\n"


def test_every_listener_gets_every_event_in_order_with_increasing_ids():
    bus = EventBus()
    announcer = Announcer(bus, max_queue=10)
    a, b = announcer.listen(), announcer.listen()
    for n in range(3):
        bus.publish(RollEvent(player=n % 2, dice=(n + 1, 1)))
    for listener in (a, b):
        messages = [listener.get(0.1) for _ in range(3)]
        assert [m.split("\n")[0] for m in messages] == ["id: 1", "id: 2", "id: 3"]
        assert [_data(m)["dice"] for m in messages] == [[1, 1], [2, 1], [3, 1]]
        assert listener.get(0.01) is None  # nothing more: a keep-alive tick


def test_a_full_queue_drops_that_browser_only_and_publishing_never_blocks():
    bus = EventBus()
    announcer = Announcer(bus, max_queue=3)
    slow, fast = announcer.listen(), announcer.listen()
    started = time.perf_counter()
    for n in range(5):
        bus.publish(RollEvent(dice=(1, 2)))
        fast.get(0.1)  # the fast browser keeps up
    assert time.perf_counter() - started < 1.0
    assert slow.dropped and not fast.dropped
    assert announcer.dropped_count == 1
    assert announcer.listener_count == 1
    # The slow browser's stream ends after what it already had.
    stream = announcer.stream(slow, keepalive_s=0.01)
    assert next(stream).startswith("retry:")
    assert len([m for m in stream]) == 3


def test_catch_up_from_history_with_last_event_id():
    bus = EventBus()
    announcer = Announcer(bus, max_queue=10, history=3)
    for n in range(5):
        bus.publish(RollEvent(dice=(n + 1, n + 1)))
    listener = announcer.listen(last_event_id=3)
    assert [_data(listener.get(0.1))["dice"][0] for _ in range(2)] == [4, 5]
    old = announcer.listen(last_event_id=0)  # history holds only the last 3
    assert [_data(old.get(0.1))["dice"][0] for _ in range(3)] == [3, 4, 5]
    assert [p["dice"][0] for _i, p in announcer.recent(2)] == [4, 5]
    assert announcer.last_id == 5


def test_close_ends_streams_and_refuses_new_listeners():
    bus = EventBus()
    announcer = Announcer(bus, max_queue=10)
    listener = announcer.listen()
    stream = announcer.stream(listener, keepalive_s=5)
    next(stream)
    finished = threading.Event()

    def drain():
        list(stream)
        finished.set()

    thread = threading.Thread(target=drain)
    thread.start()
    announcer.close()
    assert finished.wait(2.0), "the stream ends when the announcer closes"
    with pytest.raises(RuntimeError):
        announcer.listen()
    bus.publish(VerdictEvent())  # no longer subscribed: nothing breaks


def test_bad_queue_size_is_refused():
    with pytest.raises(ValueError):
        Announcer(EventBus(), max_queue=0)

"""The event bus delivers to every subscriber and survives a broken one."""

import dataclasses

from companion.bus import Event, EventBus


@dataclasses.dataclass(frozen=True)
class Ping(Event):
    type = "ping"
    n: int = 0
    where: tuple = ()


def test_publish_reaches_subscribers_in_order_and_unsubscribe_works():
    bus = EventBus()
    seen = []
    unsubscribe_a = bus.subscribe(lambda e: seen.append(("a", e.n)))
    bus.subscribe(lambda e: seen.append(("b", e.n)))
    bus.publish(Ping(n=1))
    unsubscribe_a()
    bus.publish(Ping(n=2))
    assert seen == [("a", 1), ("b", 1), ("b", 2)]


def test_a_failing_subscriber_does_not_stop_the_others(caplog):
    bus = EventBus()
    seen = []

    def broken(event):
        raise RuntimeError("outlet down")

    bus.subscribe(broken)
    bus.subscribe(lambda e: seen.append(e.n))
    bus.publish(Ping(n=7))
    assert seen == [7]
    assert "outlet down" in caplog.text


def test_to_dict_is_json_ready():
    d = Ping(n=3, where=(1, 2)).to_dict()
    assert d["type"] == "ping" and d["n"] == 3 and d["where"] == [1, 2]
    assert d["time_ms"] > 1.6e12


def test_shared_events_serialise_with_their_type_names():
    from companion.events import GameEndEvent, RollEvent, VerdictEvent

    assert RollEvent(player=1, dice=(3, 1)).to_dict()["dice"] == [3, 1]
    v = VerdictEvent(verdict="illegal", reasons=({"code": "backwards", "message": "m"},)).to_dict()
    assert v["type"] == "verdict" and v["reasons"][0]["code"] == "backwards"
    assert GameEndEvent(points=2, score=(2, 0)).to_dict()["score"] == [2, 0]

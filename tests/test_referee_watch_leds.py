"""``companion watch --serial fake``: the LED board shows the referee's state from the start,
though the session published its first TurnEvent before the board was attached."""

from __future__ import annotations

import time

from companion.bus import EventBus
from companion.cli import build_parser
from companion.commands.watch import _start_leds
from companion.events import LedsEvent
from companion.session import Session

STATUS_LED = 27  # the default layout's status light (firmware_bridge/PROTOCOL.md)


def test_status_light_shows_the_opening_roll_state_right_after_attaching():
    bus = EventBus()
    seen: list = []
    bus.subscribe(seen.append)
    session = Session(bus, reader=None)  # publishes "waiting for the opening roll" now
    args = build_parser().parse_args(["watch", "--serial", "fake", "--no-web"])
    closers: list = []
    _start_leds(args, bus, session, closers, lambda line: None)
    try:
        deadline = time.monotonic() + 10.0
        lit = False
        while time.monotonic() < deadline and not lit:
            frames = [e for e in list(seen) if isinstance(e, LedsEvent)]
            lit = any(f.leds[STATUS_LED]["pattern"] != "off" for f in frames if len(f.leds) > STATUS_LED)
            time.sleep(0.05)
        assert lit, "the status light stayed dark while the referee waits for the opening roll"
    finally:
        for close in reversed(closers):
            close()

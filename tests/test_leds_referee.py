"""The referee's own verdicts on the fake LED board: a real Session fed with the
Observations a perfect reader would give (no camera), the bridge on a real pty."""

from __future__ import annotations

import io
import time

import pytest

import firmware_bridge
from companion.bus import EventBus
from companion.events import LedsEvent, VerdictEvent
from companion.scripted_game import DieSpec, Scene, scene_observation
from companion.session import Session
from companion.table import START_SIGNED
from firmware_bridge.messages import Pattern


def lit(leds):
    return {i: (led.colour, led.pattern.name.lower()) for i, led in enumerate(leds) if led.pattern != Pattern.OFF}


def play_board(moves, board):
    """Player 0's checker moves (from, to) on a table board."""
    view = list(board)
    for s, t in moves:
        view[s] -= 1
        view[t] += 1
    return tuple(view)


def leds_events(seen):
    return [e for e in list(seen) if isinstance(e, LedsEvent)]


def wait_until(predicate, timeout=3.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


class Table:
    def __init__(self, bus):
        self.session = Session(bus, reader=None, match_settings={"mode": "teaching"})
        self.board = START_SIGNED
        self.t = 0.0

    def show(self, dice=(), board=None, hand=False, frames=5):
        if board is not None:
            self.board = tuple(board)
        scene = Scene(self.board, tuple(dice), (64, "centre"), hand=hand)
        for k in range(1 if hand else frames):
            self.session.feed_observation(scene_observation(scene, timestamp_ms=self.t), moving=hand or k == 0)
            self.t += 33.3


@pytest.fixture
def rig():
    bus = EventBus()
    seen = []
    bus.subscribe(seen.append)
    handle = firmware_bridge.attach(bus, "fake", fake_reset_delay=0.2, stream=io.StringIO())
    yield bus, seen, handle
    handle.close()


def test_illegal_play_lights_exactly_the_points_involved_and_clears_after_the_correction(rig):
    bus, seen, handle = rig
    board = handle.board
    table = Table(bus)
    table.show([DieSpec(6, "right"), DieSpec(5, "left")])  # opening roll 6-5 for player 0
    table.show(hand=True)
    table.show([DieSpec(6, "right"), DieSpec(5, "left")], board=play_board([(24, 18), (18, 14)], table.board))
    table.show(hand=True)
    table.show()  # dice picked up: 24/14 is one pip short of 24/13
    verdicts = [e for e in seen if isinstance(e, VerdictEvent) and e.verdict != "in_progress"]
    assert [v.verdict for v in verdicts] == ["illegal"]
    differing = set(verdicts[0].points_differing)
    assert 14 in differing
    expected_red = {p - 1 for p in differing}
    assert board.wait_for(lambda b: {i for i, (c, p) in lit(b.leds).items() if p == "blink" and i < 24} == expected_red)
    shown = lit(board.leds)
    assert all(shown[i] == ((255, 0, 0), "blink") for i in expected_red)
    assert shown[27] == ((255, 0, 0), "blink")  # status
    amber = {i for i, (c, p) in shown.items() if c == (255, 140, 0)}
    assert amber <= {p - 1 for p in verdicts[0].points_played}  # teaching: the closest legal play
    assert not set(shown) - expected_red - amber - {27}  # nothing else is lit

    table.show(hand=True)
    table.show(board=play_board([(24, 13)], START_SIGNED))  # the correction: 24/13
    assert [e.verdict for e in seen if isinstance(e, VerdictEvent) and e.verdict != "in_progress"] == [
        "illegal", "corrected"]
    assert board.wait_for(lambda b: not {i for i in lit(b.leds) if i < 24})
    assert wait_until(lambda: all(led["pattern"] == "off" for led in leds_events(seen)[-1].leds[:24]))
    frames = leds_events(seen)  # the --events-jsonl record: the illegal frame, then the cleared one
    assert any(e.leds[min(expected_red)]["pattern"] == "blink" for e in frames)
    assert all(led["pattern"] == "off" for led in frames[-1].leds[:24])

"""LedScene (what each event shows) and LedReporter driving the fake board over a pty."""

from __future__ import annotations

import io
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import firmware_bridge
from companion.bus import EventBus
from companion.events import (ButtonEvent, CockedDiceEvent, LedsEvent, LinkStateEvent, OverrideEvent,
                              RollEvent, TurnEvent, VerdictEvent)
from firmware_bridge.layout import LedLayout
from firmware_bridge.messages import LedState, Pattern
from firmware_bridge.reporter import AMBER, GREEN, RED, LedScene

ILLEGAL = VerdictEvent(verdict="illegal", player=0, dice=(6, 3), play="8/2 6/3",
                       closest_legal="8/2 5/2", points_differing=(3, 5), points_played=(8, 5, 2))


def lit(frame):
    """{index: (colour, pattern name)} of the LEDs that are on."""
    return {i: (led.colour, led.pattern.name.lower()) for i, led in enumerate(frame) if led.pattern != Pattern.OFF}


# -- the scene: pure ------------------------------------------------------------------

def test_illegal_play_blinks_the_differing_points_and_teaches_the_closest_legal_play():
    scene = LedScene(LedLayout())
    assert scene.apply(ILLEGAL, 0.0)
    assert lit(scene.frame()) == {
        2: (RED, "blink"), 4: (RED, "blink"),      # points 3 and 5 differ: red wins over amber
        7: (AMBER, "steady"), 1: (AMBER, "steady"),  # points 8 and 2 of the closest legal play
        27: (RED, "blink"),                          # status
    }


def test_tournament_mode_shows_no_hint():
    scene = LedScene(LedLayout(), teaching=False)
    scene.apply(ILLEGAL, 0.0)
    assert lit(scene.frame()) == {2: (RED, "blink"), 4: (RED, "blink"), 27: (RED, "blink")}


def test_correction_clears_and_intermediate_verdicts_change_nothing():
    scene = LedScene(LedLayout())
    scene.apply(TurnEvent(player=0, waiting_for="correction"), 0.0)
    scene.apply(ILLEGAL, 0.0)
    before = scene.frame()
    assert not scene.apply(VerdictEvent(verdict="in_progress", points_played=(13,)), 0.1)
    assert not scene.apply(VerdictEvent(verdict="no_change"), 0.2)
    assert scene.frame() == before
    scene.apply(VerdictEvent(verdict="corrected"), 0.3)
    assert lit(scene.frame()) == {27: (RED, "blink")}  # still waiting for the correction turn event
    scene.apply(TurnEvent(player=1, waiting_for="roll"), 0.4)
    assert lit(scene.frame()) == {27: ((0, 80, 255), "pulse")}


@pytest.mark.parametrize("clearing", [VerdictEvent(verdict="accepted"), VerdictEvent(verdict="corrected"),
                                      OverrideEvent(action="undo")])
def test_accepted_corrected_or_undone_plays_clear_the_highlights(clearing):
    scene = LedScene(LedLayout())
    scene.apply(ILLEGAL, 0.0)
    assert scene.apply(clearing, 1.0)
    assert lit(scene.frame()) == {}


def test_checkers_moved_while_nobody_plays_blink_red():
    scene = LedScene(LedLayout())
    scene.apply(VerdictEvent(verdict="position_changed", points_differing=(12, 13)), 0.0)
    assert lit(scene.frame()) == {11: (RED, "blink"), 12: (RED, "blink"), 27: (RED, "blink")}


def test_legal_play_flashes_green_then_clears():
    scene = LedScene(LedLayout(), flash_s=0.8)
    scene.apply(VerdictEvent(verdict="legal", points_played=(24, 18, 13, 11)), 10.0)
    assert lit(scene.frame()) == {23: (GREEN, "steady"), 17: (GREEN, "steady"),
                                  12: (GREEN, "steady"), 10: (GREEN, "steady")}
    assert scene.next_change() == pytest.approx(10.8)
    assert not scene.expire(10.7)
    assert scene.expire(10.8)
    assert lit(scene.frame()) == {}


@pytest.mark.parametrize("player, points", [(0, range(1, 7)), (1, range(19, 25))])
def test_cocked_dice_light_the_rollers_home_board_until_the_next_roll(player, points):
    scene = LedScene(LedLayout())
    scene.apply(CockedDiceEvent(player=player, dice=(3, 5)), 0.0)
    assert lit(scene.frame()) == {p - 1: (AMBER, "steady") for p in points}
    assert scene.apply(RollEvent(player=player, dice=(3, 5)), 1.0)
    assert lit(scene.frame()) == {}


def test_layout_from_the_profile_decides_the_indices():
    layout = LedLayout(count=30, points=tuple(range(29, 5, -1)), bar=(0, 1), off=(2, 3), status=4)
    scene = LedScene(layout, teaching=False)
    scene.apply(VerdictEvent(verdict="illegal", points_differing=(1, 24, 0, 25)), 0.0)
    assert lit(scene.frame()) == {29: (RED, "blink"), 6: (RED, "blink"), 4: (RED, "blink")}


# -- the reporter on the fake board ---------------------------------------------------

class Events:
    def __init__(self, bus):
        self.items = []
        self.lock = threading.Lock()
        bus.subscribe(self._add)

    def _add(self, event):
        with self.lock:
            self.items.append(event)

    def of(self, kind):
        with self.lock:
            return [e for e in self.items if isinstance(e, kind)]

    def wait(self, predicate, timeout=5.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self):
                return True
            time.sleep(0.01)
        return False


@pytest.fixture
def rig():
    bus = EventBus()
    events = Events(bus)
    out = io.StringIO()
    handle = firmware_bridge.attach(bus, "fake", stream=out, fake_reset_delay=0.2,
                                    link_options={"ack_timeout": 0.3})
    assert handle.link.state == "connected"  # attach() waits for the fake board's HELLO
    yield bus, events, handle, out
    handle.close()


def test_illegal_play_lights_exactly_its_points_and_clears_after_the_correction(rig):
    bus, events, handle, out = rig
    board = handle.board
    bus.publish(ILLEGAL)
    assert board.wait_for(lambda b: b.leds[2].pattern == Pattern.BLINK)
    assert lit(board.leds) == {2: (RED, "blink"), 4: (RED, "blink"), 7: (AMBER, "steady"),
                               1: (AMBER, "steady"), 27: (RED, "blink")}
    assert events.wait(lambda e: any(x.leds[2]["pattern"] == "blink" for x in e.of(LedsEvent)))
    shown = events.of(LedsEvent)[-1].to_dict()
    assert shown["type"] == "leds" and shown["acked_ms"] > 0
    assert shown["leds"][2] == {"colour": [255, 0, 0], "pattern": "blink"}
    assert shown["leds"][0] == {"colour": [0, 0, 0], "pattern": "off"}
    assert "\x1b[38;2;255;0;0m◉" in out.getvalue()
    bus.publish(VerdictEvent(verdict="corrected"))
    assert board.wait_for(lambda b: lit(b.leds) == {})
    assert events.wait(lambda e: e.of(LedsEvent)[-1].leds[2]["pattern"] == "off")


def test_repeated_and_intermediate_states_send_no_frames(rig):
    bus, events, handle, out = rig
    board = handle.board
    bus.publish(ILLEGAL)
    assert board.wait_for(lambda b: b.leds[2].pattern == Pattern.BLINK)
    time.sleep(0.2)
    frames = board.received["SET_LEDS"]
    for _ in range(20):
        bus.publish(ILLEGAL)
        bus.publish(VerdictEvent(verdict="in_progress", points_played=(13, 7)))
    time.sleep(0.4)
    assert board.received["SET_LEDS"] == frames


def test_bursts_are_rate_limited_and_end_on_the_newest_state(rig):
    bus, events, handle, out = rig
    board = handle.board
    time.sleep(0.2)
    before = board.received["SET_LEDS"]
    start = time.monotonic()
    for i in range(40):
        bus.publish(VerdictEvent(verdict="illegal", points_differing=(i % 24 + 1,)))
        time.sleep(0.005)
    elapsed = time.monotonic() - start
    assert board.wait_for(lambda b: lit(b.leds).get(39 % 24) == (RED, "blink") and len(lit(b.leds)) == 2)
    sent = board.received["SET_LEDS"] - before
    assert 1 <= sent <= elapsed / 0.1 + 2  # at most one frame per 100 ms, not one per event
    assert sent < 40


def test_replugged_board_gets_the_state_again(rig):
    bus, events, handle, out = rig
    board = handle.board
    bus.publish(ILLEGAL)
    assert board.wait_for(lambda b: b.leds[2].pattern == Pattern.BLINK)
    board.unplug()
    assert events.wait(lambda e: "lost" in [x.state for x in e.of(LinkStateEvent)])
    board.replug()
    assert board.wait_for(lambda b: b.leds[2].pattern == Pattern.BLINK, timeout=5.0)
    assert [x.state for x in events.of(LinkStateEvent)][-1] == "connected"


def test_legal_flash_reaches_the_board_and_goes_out(rig):
    bus, events, handle, out = rig
    board = handle.board
    bus.publish(VerdictEvent(verdict="legal", points_played=(13, 7)))
    assert board.wait_for(lambda b: lit(b.leds) == {12: (GREEN, "steady"), 6: (GREEN, "steady")})
    assert board.wait_for(lambda b: lit(b.leds) == {}, timeout=2.0)


def test_buttons_and_link_states_are_published(rig):
    bus, events, handle, out = rig
    assert [x.state for x in events.of(LinkStateEvent)][:2] == ["connecting", "connected"]
    handle.board.press(1)
    handle.board.press(2, 2)
    assert events.wait(lambda e: len(e.of(ButtonEvent)) == 2)
    assert [(b.button, b.action) for b in events.of(ButtonEvent)] == [("confirm", "press"), ("undo", "long_press")]
    assert events.of(ButtonEvent)[0].to_dict()["type"] == "button"


def test_state_from_before_attach_can_be_shown(rig):
    bus, events, handle, out = rig
    handle.show(TurnEvent(player=0, waiting_for="opening_roll"))
    assert handle.board.wait_for(lambda b: lit(b.leds) == {27: ((0, 80, 255), "pulse")})
    assert not [e for e in events.of(TurnEvent)]  # shown on the LEDs, not published


points = st.lists(st.integers(-2, 27), max_size=8).map(tuple)
any_event = st.one_of(
    st.builds(VerdictEvent, verdict=st.sampled_from(["legal", "illegal", "in_progress", "no_change", "corrected",
                                                     "position_changed", "accepted", "something_new"]),
              points_differing=points, points_played=points),
    st.builds(CockedDiceEvent, player=st.integers(0, 1)),
    st.builds(RollEvent, player=st.integers(0, 1)),
    st.builds(TurnEvent, waiting_for=st.sampled_from(["opening_roll", "roll", "play", "correction",
                                                      "cube_response", "game_over", "unknown"])),
    st.builds(OverrideEvent),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(any_event, st.floats(0, 2)), max_size=25), st.booleans())
def test_scene_invariants_over_any_event_sequence(steps, teaching):
    """Whatever happens: one state per LED, only point LEDs of points 1-24 and the status
    light ever light up, intermediate verdicts change nothing, and a correction clears."""
    layout = LedLayout()
    scene = LedScene(layout, teaching=teaching)
    now = 0.0
    allowed = set(layout.points) | {layout.status}
    for event, dt in steps:
        now += dt
        scene.expire(now)
        before = scene.frame()
        changed = scene.apply(event, now)
        frame = scene.frame()
        assert len(frame) == layout.count
        assert set(lit(frame)) <= allowed
        if not changed:
            assert frame == before
        if isinstance(event, VerdictEvent) and event.verdict in ("corrected", "accepted"):
            assert not set(lit(frame)) & set(layout.points)
        if isinstance(event, VerdictEvent) and event.verdict == "illegal" and not teaching:
            assert {c for c, p in lit(frame).values()} <= {RED}

"""``LedReporter``: turns bus events into LED frames for the board.

What each event shows is in ``PROTOCOL.md`` (*What the host shows*); the pure
part is :class:`LedScene`, which keeps the current highlights and composes the
frame. The reporter's worker thread sends the newest frame at most every
``min_interval`` seconds and only when it differs from the last acknowledged
one, so intermediate states are coalesced and the LEDs never flicker; every
acknowledged frame is published as a :class:`~companion.events.LedsEvent`.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable, Optional

from companion.bus import Event, EventBus
from companion.events import CockedDiceEvent, LedsEvent, OverrideEvent, RollEvent, TurnEvent, VerdictEvent
from firmware_bridge.layout import LedLayout
from firmware_bridge.link import FrameRefused, LinkDown
from firmware_bridge.messages import LedState, Pattern, SetLeds

log = logging.getLogger(__name__)

RED = (255, 0, 0)
AMBER = (255, 140, 0)
GREEN = (0, 255, 0)
BLUE = (0, 80, 255)

#: Status light per ``TurnEvent.waiting_for``.
STATUS_FOR_TURN = {
    "opening_roll": LedState(BLUE, Pattern.PULSE),
    "roll": LedState(BLUE, Pattern.PULSE),
    "play": LedState(GREEN, Pattern.STEADY),
    "correction": LedState(RED, Pattern.BLINK),
    "cube_response": LedState(AMBER, Pattern.PULSE),
    "game_over": LedState(),
}
#: Table points of each player's home board (player 0 at the bottom, 1 at the top).
HOME_BOARD = {0: range(1, 7), 1: range(19, 25)}


class LedScene:
    """The LEDs' content, driven by events (no I/O, no threads; ``now`` in seconds).

    ``apply(event, now)`` updates the highlights; ``frame(now)`` returns one
    :class:`~firmware_bridge.messages.LedState` per LED of ``layout``;
    ``next_change(now)`` the time a timed highlight (the green flash) ends, or None.
    """

    def __init__(self, layout: LedLayout, *, teaching: bool = True, flash_s: float = 0.8) -> None:
        self.layout = layout
        self.teaching = teaching
        self.flash_s = flash_s
        self.kind = "none"  # none | illegal | legal | cocked
        self._points: dict[int, LedState] = {}
        self._until: Optional[float] = None
        self._status = LedState()

    def _set(self, kind: str, points: dict[int, LedState], until: Optional[float] = None) -> None:
        self.kind, self._points, self._until = kind, points, until

    def _leds_of(self, points: Any) -> list[int]:
        return [self.layout.point(p) for p in points if isinstance(p, int) and 1 <= p <= 24]

    def apply(self, event: Event, now: float) -> bool:
        """Take one event into account; returns True when it may change the frame."""
        if isinstance(event, VerdictEvent):
            if event.verdict in ("illegal", "position_changed"):
                points = {}
                if self.teaching:
                    for index in self._leds_of(event.points_played):
                        points[index] = LedState(AMBER, Pattern.STEADY)
                for index in self._leds_of(event.points_differing):
                    points[index] = LedState(RED, Pattern.BLINK)
                self._set("illegal", points)
            elif event.verdict in ("corrected", "accepted"):
                self._set("none", {})
            elif event.verdict == "legal":
                self._set("legal", {i: LedState(GREEN, Pattern.STEADY) for i in self._leds_of(event.points_played)},
                          now + self.flash_s)
            else:
                return False  # in_progress, no_change: never show intermediate states
            return True
        if isinstance(event, OverrideEvent):
            if self.kind == "none":
                return False
            self._set("none", {})  # undo, set position, set dice: the referee starts afresh
            return True
        if isinstance(event, CockedDiceEvent):
            home = HOME_BOARD.get(event.player, ())
            self._set("cocked", {i: LedState(AMBER, Pattern.STEADY) for i in self._leds_of(home)})
            return True
        if isinstance(event, RollEvent):
            if self.kind in ("cocked", "illegal"):
                self._set("none", {})
                return True
            return False
        if isinstance(event, TurnEvent):
            self._status = STATUS_FOR_TURN.get(event.waiting_for, LedState())
            return True
        return False

    def expire(self, now: float) -> bool:
        """End a timed highlight whose time is over; True if something changed."""
        if self._until is not None and now >= self._until:
            self._set("none", {})
            return True
        return False

    def next_change(self) -> Optional[float]:
        """When the current timed highlight ends (seconds, same clock as ``now``), or None."""
        return self._until

    def frame(self) -> tuple[LedState, ...]:
        """One LED state per LED index of the layout."""
        leds = [LedState() for _ in range(self.layout.count)]
        for index, state in self._points.items():
            leds[index] = state
        leds[self.layout.status] = LedState(RED, Pattern.BLINK) if self.kind == "illegal" else self._status
        return tuple(leds)


class LedReporter:
    """Subscribes to ``bus`` and keeps the board (through ``link``) showing the scene.

    ``link`` is anything with ``send(message) -> Delivery`` raising
    :class:`~firmware_bridge.link.LinkDown` (a :class:`~firmware_bridge.link.SerialLink`).
    ``min_interval`` seconds between frames (rate limit), ``flash_s`` the length of
    the green flash. Call :meth:`resync` when the board's LEDs went dark (the link's
    ``on_resync``); :meth:`close` unsubscribes and stops the worker.
    """

    def __init__(self, bus: EventBus, link: Any, layout: Optional[LedLayout] = None, *,
                 teaching: bool = True, min_interval: float = 0.1, flash_s: float = 0.8,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.bus = bus
        self.link = link
        self.scene = LedScene(layout or LedLayout(), teaching=teaching, flash_s=flash_s)
        self.min_interval = min_interval
        self.clock = clock
        self._cond = threading.Condition()
        self._dirty = True
        self._acked: Optional[tuple[LedState, ...]] = None
        self._last_send = -1e9
        self._closing = False
        #: Frames sent and acknowledged; events that changed nothing on the LEDs.
        self.stats = {"frames": 0, "coalesced": 0, "failed": 0}
        self._unsubscribe = bus.subscribe(self._on_event)
        self._thread = threading.Thread(target=self._run, name="led-reporter", daemon=True)
        self._thread.start()

    def take(self, event: Event) -> None:
        """Apply one event to the scene (what the bus subscription does for each event)."""
        self._on_event(event)

    def _on_event(self, event: Event) -> None:
        with self._cond:
            if self.scene.apply(event, self.clock()):
                if self._dirty:
                    self.stats["coalesced"] += 1
                self._dirty = True
                self._cond.notify()

    def resync(self, reason: str = "") -> None:
        """The board's LEDs are dark (new connection, blanking): send the scene again."""
        with self._cond:
            self._acked = None
            self._dirty = True
            self._cond.notify()

    def close(self) -> None:
        """Unsubscribe and stop the worker thread."""
        self._unsubscribe()
        with self._cond:
            self._closing = True
            self._cond.notify()
        self._thread.join(timeout=5.0)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closing:
                    now = self.clock()
                    if self.scene.expire(now):
                        self._dirty = True
                    if self._dirty:
                        wait = self._last_send + self.min_interval - now
                        if wait <= 0:
                            break
                    else:
                        until = self.scene.next_change()
                        wait = None if until is None else max(0.0, until - now)
                    self._cond.wait(wait)
                if self._closing:
                    return
                self._dirty = False
                frame = self.scene.frame()
                if frame == self._acked:
                    continue
            self._last_send = self.clock()
            try:
                delivery = self.link.send(SetLeds(frame))
            except LinkDown as exc:
                self.stats["failed"] += 1
                log.debug("LED frame not delivered: %s", exc)
                continue  # resync() follows when the link is back
            except FrameRefused as exc:
                self.stats["failed"] += 1
                log.error("LED board refused a frame: %s (is the layout larger than the board?)", exc)
                with self._cond:
                    self._acked = frame  # do not repeat a frame the board cannot show
                continue
            with self._cond:
                self._acked = frame
            self.stats["frames"] += 1
            self.bus.publish(LedsEvent(leds=tuple(led.to_dict() for led in frame), acked_ms=round(delivery.acked_ms, 3)))

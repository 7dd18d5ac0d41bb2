"""The real referee session, fed the demo game's observations step by step.

``companion.session.Session`` judges the readings of the built-in demo game
(``companion.demo.demo_script``: a cocked roll, an illegal play and its
correction, a double and a take, a dropped redouble) as ``companion watch``
would, but without the camera: the observations come from the script itself,
so a test can stop at any event (the illegal verdict, the game's end) and look
at the dashboard. Used by the dashboard's browser tests, its screenshots and
its benchmark.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Optional

from companion.bus import EventBus
from companion.demo import DEMO_FPS, DEMO_LAYOUT, demo_script
from companion.scripted_game import observations
from companion.session import Session


class DemoDriver:
    """A real :class:`Session` and the demo's observations, fed on demand."""

    def __init__(self, mode: str = "teaching", players: tuple[str, str] = ("Ann", "Ben"), match_length: int = 5,
                 match_log: Optional[str] = None) -> None:
        self.bus = EventBus()
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.bus.subscribe(self._record)
        self.session = Session(
            self.bus,
            match_settings={"players": list(players), "match_length": match_length, "mode": mode},
            match_log=match_log,
        )
        self._frames = observations(demo_script(), DEMO_LAYOUT, fps=DEMO_FPS)
        self._next = 0

    def _record(self, event: Any) -> None:
        with self._lock:
            self.events.append(event.to_dict())

    @property
    def finished(self) -> bool:
        """True when every frame of the demo has been fed."""
        return self._next >= len(self._frames)

    def until(self, wanted: Callable[[dict[str, Any]], bool], pace_s: float = 0.0) -> dict[str, Any]:
        """Feed frames until an event with ``wanted(event_dict)`` is published; returns it.

        ``pace_s``: sleep between frames (lets a browser follow). Raises
        ``LookupError`` when the demo ends first.
        """
        import time

        while self._next < len(self._frames):
            with self._lock:
                start = len(self.events)
            obs, moving = self._frames[self._next]
            self._next += 1
            self.session.feed_observation(obs, moving)
            with self._lock:
                new = self.events[start:]
            for event in new:
                if wanted(event):
                    return event
            if pace_s:
                time.sleep(pace_s)
        raise LookupError("the demo ended before the event")

    def until_type(self, kind: str, **fields: Any) -> dict[str, Any]:
        """:meth:`until` an event of type ``kind`` whose fields equal ``fields``."""
        return self.until(lambda e: e["type"] == kind and all(e.get(k) == v for k, v in fields.items()))

    def rest(self) -> None:
        """Feed every remaining frame."""
        try:
            self.until(lambda e: False)
        except LookupError:
            pass

    def last(self, kind: str) -> Optional[dict[str, Any]]:
        """The newest recorded event of type ``kind``."""
        with self._lock:
            for event in reversed(self.events):
                if event["type"] == kind:
                    return event
        return None

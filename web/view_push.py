"""Rendering the live panels once per change and pushing them to every page.

After each bus event the :class:`ViewPusher`'s thread renders the live panels
and the score sheet once (from the session's ``state()``) and hands the HTML to
the announcer as an ``event: view`` SSE message for the pages that asked for
views (``/events?view=1``), unless it is the same as the last one pushed (an
event that changes nothing on screen costs the browsers nothing). So twenty open browsers cost one render per event,
not twenty, and no extra round trip. Bursts of events are coalesced; a quiet
"settle" render a moment after the last event is pushed only if it differs,
so a session that updates its state just after publishing is still shown right.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any, Callable, Optional

from companion.bus import Event, EventBus
from web.announcer import Announcer, format_sse

log = logging.getLogger(__name__)


class ViewPusher:
    """A daemon thread that renders with ``render()`` and broadcasts through ``announcer``.

    ``render``: a callable returning a JSON-ready dict (``event_id``, ``live``,
    ``scoresheet``, ``mode``); ``settle_s``: quiet time before the settle render.
    """

    def __init__(
        self,
        bus: EventBus,
        announcer: Announcer,
        render: Callable[[], dict[str, Any]],
        settle_s: float = 0.25,
    ) -> None:
        self._announcer = announcer
        self._render = render
        self._settle_s = settle_s
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._last_payload: Optional[str] = None
        self.renders = 0
        self._unsubscribe = bus.subscribe(self._on_event)
        self._thread = threading.Thread(target=self._run, name="dashboard-views", daemon=True)
        self._thread.start()

    def _on_event(self, event: Event) -> None:
        if event.type not in ("leds", "link"):
            self._wake.set()

    def _push(self, only_if_changed: bool = True) -> None:
        if self._announcer.view_listener_count == 0:
            self._last_payload = None
            return
        try:
            view = self._render()
        except Exception:  # noqa: BLE001 - a failed render must not kill the thread
            log.exception("dashboard: rendering the live view failed")
            return
        self.renders += 1
        body = {k: v for k, v in view.items() if k != "event_id"}
        payload = json.dumps(body, separators=(",", ":"))
        if only_if_changed and payload == self._last_payload:
            return
        self._last_payload = payload
        data = json.dumps(view, separators=(",", ":"))
        self._announcer.broadcast_view(format_sse(data, event="view"))

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self._wake.wait(timeout=1.0):
                continue
            self._wake.clear()
            if self._stop.is_set():
                return
            self._push()
            # Settle: render again once things have been quiet for a moment.
            if not self._wake.wait(timeout=self._settle_s) and not self._stop.is_set():
                self._push(only_if_changed=True)

    def close(self, timeout: float = 2.0) -> None:
        """Stop the thread and stop following the bus."""
        self._unsubscribe()
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)

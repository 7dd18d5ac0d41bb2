"""Server-sent events for the dashboard: one bounded queue per browser.

The :class:`Announcer` subscribes to the session's :class:`~companion.bus.EventBus`.
Each bus event is turned into one SSE message (``id: N`` and ``data: {json}``,
the JSON of ``Event.to_dict()``) once, in the publisher's thread, and put
without waiting into every listener's bounded queue. A browser whose queue is
full is dropped (its stream ends; the browser's ``EventSource`` reconnects and
catches up from the recent history by ``Last-Event-ID``): a slow browser never
slows the referee.
"""

from __future__ import annotations

import collections
import json
import logging
import queue
import threading
from typing import Any, Iterator, Optional

from companion.bus import Event, EventBus

log = logging.getLogger(__name__)

_CLOSE = object()


class Listener:
    """One browser's subscription: a bounded queue of SSE messages (``str``).

    ``dropped`` is set when the announcer gave up on it (queue full, or the
    announcer closed); its stream then ends.
    """

    def __init__(self, maxsize: int, views: bool = False) -> None:
        self.queue: "queue.Queue[Any]" = queue.Queue(maxsize=maxsize)
        self.dropped = False
        self.views = views

    def get(self, timeout: float) -> Optional[str]:
        """The next message, or None after ``timeout`` seconds (keep-alive time).

        Raises :class:`EOFError` when the listener was dropped or closed.
        """
        if self.dropped and self.queue.empty():
            raise EOFError("listener dropped")
        try:
            item = self.queue.get(timeout=timeout)
        except queue.Empty:
            if self.dropped:
                raise EOFError("listener dropped") from None
            return None
        if item is _CLOSE:
            raise EOFError("announcer closed")
        return item


def format_sse(data: str, event_id: Optional[int] = None, event: Optional[str] = None) -> str:
    """One SSE message: optional ``id:`` and ``event:`` lines, ``data:`` lines, blank line.

    ``data`` may hold newlines; each line becomes its own ``data:`` line (the
    WHATWG server-sent events format).
    """
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    if event:
        lines.append(f"event: {event}")
    for line in data.splitlines() or [""]:
        lines.append(f"data: {line}")
    return "\n".join(lines) + "\n\n"


class Announcer:
    """Fans bus events out to browsers as SSE messages.

    ``max_queue``: messages buffered per browser before it is dropped;
    ``history``: recent messages kept for catching up (``Last-Event-ID``) and
    for the event log of a page that opens mid-game. Thread-safe.
    """

    def __init__(self, bus: EventBus, max_queue: int = 256, history: int = 1000) -> None:
        if max_queue < 1:
            raise ValueError("max_queue must be at least 1")
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []
        self._history: collections.deque[tuple[int, dict[str, Any], str]] = collections.deque(maxlen=history)
        self._next_id = 1
        self._max_queue = max_queue
        self._closed = False
        self.dropped_count = 0
        self._unsubscribe = bus.subscribe(self._on_event)

    # -- publisher side (runs in the referee's thread: must be quick) --
    def _on_event(self, event: Event) -> None:
        payload = event.to_dict()
        data = json.dumps(payload, separators=(",", ":"), default=str)
        with self._lock:
            event_id = self._next_id
            self._next_id += 1
            message = format_sse(data, event_id)
            self._history.append((event_id, payload, message))
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener.queue.put_nowait(message)
            except queue.Full:
                self._drop(listener)

    def _drop(self, listener: Listener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)
                self.dropped_count += 1
        listener.dropped = True
        try:  # wake its stream if it waits (a full queue ends by itself once drained)
            listener.queue.put_nowait(_CLOSE)
        except queue.Full:
            pass
        log.info("dashboard: a slow browser was dropped (queue full)")

    # -- browser side --
    def listen(self, last_event_id: Optional[int] = None, views: bool = False) -> Listener:
        """A new listener; with ``last_event_id`` it first gets the newer messages
        still in the history (up to its queue size); with ``views`` it also gets
        the rendered views of :meth:`broadcast_view`. Raises ``RuntimeError``
        after :meth:`close`."""
        listener = Listener(self._max_queue, views)
        with self._lock:
            if self._closed:
                raise RuntimeError("announcer is closed")
            if last_event_id is not None:
                for event_id, _payload, message in self._history:
                    if event_id > last_event_id and not listener.queue.full():
                        listener.queue.put_nowait(message)
            self._listeners.append(listener)
        return listener

    def broadcast_view(self, message: str) -> int:
        """Put an extra SSE ``message`` (a rendered view, ``event: view``) into the
        queue of every listener that asked for views; returns how many got it."""
        with self._lock:
            listeners = [item for item in self._listeners if item.views]
        for listener in listeners:
            try:
                listener.queue.put_nowait(message)
            except queue.Full:
                self._drop(listener)
        return len(listeners)

    @property
    def view_listener_count(self) -> int:
        """How many listeners want rendered views."""
        with self._lock:
            return sum(1 for item in self._listeners if item.views)

    def forget(self, listener: Listener) -> None:
        """Remove ``listener`` (its browser went away)."""
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def stream(self, listener: Listener, keepalive_s: float = 15.0) -> Iterator[str]:
        """The SSE text for one browser: a ``retry:`` hint, then messages as they
        come, a ``: keep-alive`` comment after ``keepalive_s`` seconds of quiet.
        Ends when the listener is dropped or the announcer closes."""
        try:
            yield "retry: 1000\n\n"
            while True:
                try:
                    message = listener.get(keepalive_s)
                except EOFError:
                    return
                yield message if message is not None else ": keep-alive\n\n"
        finally:
            self.forget(listener)

    def recent(self, limit: int = 200) -> list[tuple[int, dict[str, Any]]]:
        """The newest ``limit`` events as ``(id, event dict)``, oldest first."""
        return self.snapshot(limit)[0]

    def snapshot(self, limit: int = 200) -> tuple[list[tuple[int, dict[str, Any]]], int]:
        """:meth:`recent` and :attr:`last_id` taken together (no event between)."""
        with self._lock:
            items = list(self._history)[-limit:]
            last = self._next_id - 1
        return [(event_id, payload) for event_id, payload, _ in items], last

    @property
    def last_id(self) -> int:
        """The id of the newest event (0 before the first)."""
        with self._lock:
            return self._next_id - 1

    @property
    def listener_count(self) -> int:
        """How many browsers are listening now."""
        with self._lock:
            return len(self._listeners)

    def close(self) -> None:
        """Stop listening to the bus and end every stream (server shutdown)."""
        self._unsubscribe()
        with self._lock:
            self._closed = True
            listeners = list(self._listeners)
            self._listeners.clear()
        for listener in listeners:
            listener.dropped = True
            try:
                listener.queue.put_nowait(_CLOSE)
            except queue.Full:
                pass

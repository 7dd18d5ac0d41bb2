"""The in-process event bus: every observation, verdict and match event goes here.

Producers (the referee, the vision loop, the LED bridge) ``publish`` frozen
dataclass events; subscribers (terminal log, match log, dashboard, LED board)
receive them through callbacks. There is one bus per ``companion watch`` run,
built by the composition root and passed in as an argument, never a global.
"""

from __future__ import annotations

import dataclasses
import enum
import logging
import threading
import time
from typing import Any, Callable, ClassVar

log = logging.getLogger(__name__)


def _plain(value: Any) -> Any:
    """Turn dataclasses, enums, tuples and sets into JSON-ready values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if hasattr(value, "to_dict"):
            return value.to_dict()
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    return value


@dataclasses.dataclass(frozen=True)
class Event:
    """Base of every bus event: a frozen dataclass with a ``type`` name.

    Subclasses set the class variable ``type`` (``"verdict"``, ``"roll"``,
    ``"leds"``, ...) and add their fields. ``time_ms`` is wall-clock time in
    milliseconds since the Unix epoch, filled in at construction.
    """

    type: ClassVar[str] = "event"
    time_ms: float = dataclasses.field(default_factory=lambda: time.time() * 1000.0, kw_only=True)

    def to_dict(self) -> dict[str, Any]:
        """The event as a JSON-ready dict: ``{"type": ..., <fields>...}``."""
        out: dict[str, Any] = {"type": self.type}
        for f in dataclasses.fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        return out


Subscriber = Callable[[Event], None]


class EventBus:
    """A thread-safe publish/subscribe bus for :class:`Event` objects.

    ``publish`` calls every subscriber synchronously in the publisher's thread,
    in subscription order. Subscribers must be quick (hand the event to a queue
    of their own when they do I/O). A subscriber that raises is logged and the
    others still receive the event: one broken outlet never stops the referee.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: list[Subscriber] = []

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Add ``callback``; returns a function that unsubscribes it."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def publish(self, event: Event) -> None:
        """Deliver ``event`` to every current subscriber."""
        with self._lock:
            subscribers = list(self._subscribers)
        for callback in subscribers:
            try:
                callback(event)
            except Exception:  # noqa: BLE001 - an outlet must not break the referee
                log.exception("event subscriber %r failed on %s", callback, event.type)

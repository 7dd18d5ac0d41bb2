"""The per-app helpers of the dashboard, and how a request finds them.

:func:`web.app.create_app` builds one :class:`Dashboard` and keeps it in
``app.extensions["companion"]``; the blueprints reach it with :func:`dashboard`.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any, Optional

from flask import current_app

from web.announcer import Announcer
from web.tracker import Tracker
from web.view_push import ViewPusher

__all__ = ["Dashboard", "dashboard"]


@dataclasses.dataclass
class Dashboard:
    """The per-app helpers: the session, the SSE announcer, the bus tracker and a
    stop flag that ends long-lived responses (SSE, MJPEG) at shutdown."""

    session: Any
    announcer: Announcer
    tracker: Tracker
    stopping: threading.Event
    views: Optional[ViewPusher] = None
    frame_period_s: float = 0.1
    _frame: Optional[bytes] = None
    _frame_at: float = float("-inf")
    _frame_lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    def frame(self) -> Optional[bytes]:
        """The session's newest camera JPEG, fetched at most once per
        ``frame_period_s`` and shared by every viewer (drawing and encoding a
        frame costs the referee's process a few milliseconds)."""
        with self._frame_lock:
            now = time.monotonic()
            if now - self._frame_at >= self.frame_period_s:
                fresh = self.session.latest_frame_jpeg()
                self._frame_at = now
                if fresh != self._frame:
                    self._frame = fresh
            return self._frame

    def shutdown(self) -> None:
        """End every stream and stop following the bus."""
        self.stopping.set()
        if self.views is not None:
            self.views.close()
        self.announcer.close()
        self.tracker.close()


def dashboard() -> Dashboard:
    """The :class:`Dashboard` of the current app (inside a request)."""
    return current_app.extensions["companion"]

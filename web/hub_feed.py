"""Which tables changed, for the hub page's event stream.

The room calls :meth:`RoomFeed.changed` after each message a table sends; each
open page waits in :meth:`RoomFeed.wait` for the tables changed since the
version it has seen. Bounded: a page that falls more than ``history`` changes
behind is told to reload everything (``None``). ``boot`` names this feed: a
page that saw another boot's versions (the hub restarted) reloads too.
"""

from __future__ import annotations

import collections
import secrets
import threading
from typing import Optional


class RoomFeed:
    """A change counter with the table number of each change (thread-safe);
    ``boot``: a random name of this feed (8 hex digits)."""

    def __init__(self, history: int = 10000) -> None:
        self.boot = secrets.token_hex(4)
        self._cond = threading.Condition()
        self._log: collections.deque[tuple[int, int]] = collections.deque(maxlen=history)
        self.version = 0
        self.closed = False

    def changed(self, table: int) -> None:
        """Note a change of table ``table`` and wake the waiting pages."""
        with self._cond:
            self.version += 1
            self._log.append((self.version, table))
            self._cond.notify_all()

    def wait(self, since: int, timeout: float) -> tuple[int, Optional[set[int]]]:
        """Wait up to ``timeout`` s for changes after version ``since``; returns the
        new version and the tables changed (empty: none; ``None``: too many to
        list, reload all)."""
        with self._cond:
            if self.version == since and not self.closed:
                self._cond.wait(timeout)
            if self.version == since:
                return since, set()
            if not self._log or self._log[0][0] > since + 1:
                return self.version, None
            return self.version, {table for version, table in self._log if version > since}

    def close(self) -> None:
        """Wake every waiting page for good (shutdown)."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()

"""The table's outbox: every bus event, numbered, kept in SQLite until the broker has it.

One SQLite file per table (standard library :mod:`sqlite3`, WAL journal,
``synchronous=NORMAL``: a row survives the process being killed; the match log
itself, with ``synchronous=FULL``, stays the authority on the match). Table
``meta`` holds the table's identity (a random ``table_id`` made on creation,
which tells two tables that were given the same number apart); table
``outbox`` one row per event: ``seq`` (1, 2, 3, ... without gaps, across
matches and restarts), wall-clock ``time_ms``, the event's ``type``, the event
as JSON and ``acked`` (1 once the broker acknowledged it, QoS 1 PUBACK).

The publisher sends the unacknowledged rows in ``seq`` order whenever the
broker is there (store and forward); a hub that missed events asks for a
replay from a ``seq`` and gets the rows again from here. Rows are kept: the
outbox is also the table's event log.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import threading
import time
from typing import Any, Optional

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY, time_ms REAL NOT NULL, kind TEXT NOT NULL,"
    " event TEXT NOT NULL, acked INTEGER NOT NULL DEFAULT 0)",
)


class OutboxError(ValueError):
    """An outbox file that cannot be opened or is not an outbox."""


class Outbox:
    """The SQLite outbox at ``path`` (created when missing). Thread-safe: the bus
    thread appends while the publisher's thread reads and acknowledges.

    Raises :class:`OutboxError` when the file is not a readable outbox.
    """

    def __init__(self, path: str) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10.0)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            for statement in _SCHEMA:
                self._conn.execute(statement)
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'table_id'").fetchone()
            if row is None:
                self._conn.execute("INSERT INTO meta VALUES ('table_id', ?)", (secrets.token_hex(8),))
                row = self._conn.execute("SELECT value FROM meta WHERE key = 'table_id'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise OutboxError(f"{self.path}: not a usable outbox ({exc})") from None
        self.table_id: str = row[0]
        (self._last,) = self._conn.execute("SELECT COALESCE(MAX(seq), 0) FROM outbox").fetchone()

    def append(self, event: dict[str, Any]) -> int:
        """Store ``event`` (an ``Event.to_dict()``) as the next row; returns its ``seq``.
        The row is committed when this returns."""
        text = json.dumps(event, separators=(",", ":"), sort_keys=True)
        with self._lock:
            seq = self._last + 1
            self._conn.execute("INSERT INTO outbox (seq, time_ms, kind, event) VALUES (?, ?, ?, ?)",
                               (seq, time.time() * 1000.0, str(event.get("type", "")), text))
            self._last = seq
        return seq

    @property
    def last_seq(self) -> int:
        """The newest ``seq`` (0 when empty)."""
        with self._lock:
            return self._last

    def first_unacked(self) -> int:
        """The lowest ``seq`` not yet acknowledged (``last_seq + 1`` when all are)."""
        with self._lock:
            row = self._conn.execute("SELECT MIN(seq) FROM outbox WHERE acked = 0").fetchone()
            return row[0] if row[0] is not None else self._last + 1

    def rows(self, start: int, limit: int = 256) -> list[tuple[int, dict[str, Any]]]:
        """Up to ``limit`` rows from ``seq`` ``start`` on, in order: ``(seq, event dict)``."""
        with self._lock:
            rows = self._conn.execute("SELECT seq, event FROM outbox WHERE seq >= ? ORDER BY seq LIMIT ?",
                                      (start, limit)).fetchall()
        return [(seq, json.loads(text)) for seq, text in rows]

    def ack(self, seq: int) -> None:
        """Mark row ``seq`` acknowledged by the broker."""
        with self._lock:
            self._conn.execute("UPDATE outbox SET acked = 1 WHERE seq = ?", (seq,))

    def unacked_count(self) -> int:
        """How many rows wait for the broker."""
        with self._lock:
            (count,) = self._conn.execute("SELECT COUNT(*) FROM outbox WHERE acked = 0").fetchone()
        return count

    def counts(self) -> dict[str, int]:
        """Rows per event ``type``."""
        with self._lock:
            return dict(self._conn.execute("SELECT kind, COUNT(*) FROM outbox GROUP BY kind").fetchall())

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._conn.close()


def default_outbox_path(tournament: str, table: int, match_log: Optional[str] = None) -> str:
    """Where ``companion watch --hub`` keeps its outbox unless told: beside the
    match log (``<match-log stem>.hub-<tournament>-<table>.sqlite``), else in
    ``$COMPANION_CACHE`` (default ``~/.cache/companion``) ``/hub/``."""
    name = f"hub-{tournament}-table-{table}.sqlite"
    if match_log:
        base, _ext = os.path.splitext(os.fspath(match_log))
        return f"{base}.{name}"
    root = os.environ.get("COMPANION_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "companion")
    folder = os.path.join(root, "hub")
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, name)

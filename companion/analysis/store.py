"""gnubg's analyses kept in the match log's SQLite file, for review without gnubg.

Table ``analysis`` beside the match log's ``meta`` and ``events``
(:mod:`companion.match_log`): one row per :class:`AnalysisEvent` with
``status == "ok"`` — ``id`` (1, 2, 3, ...), ``time_ms`` (when the analysis was
made, ms since the Unix epoch), ``kind``, ``player``, ``decision``,
``position_id``, ``match_id``, ``dice`` (``"d1-d2"``) and ``event`` (the whole
event as JSON). The store opens its own connection (the analysis runs on its
own thread; SQLite's WAL journal lets it write beside the match log's writer)
and commits each row before :meth:`AnalysisStore.add` returns.
"""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS analysis (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time_ms REAL NOT NULL,
    kind TEXT NOT NULL,
    player INTEGER NOT NULL,
    decision TEXT NOT NULL,
    position_id TEXT NOT NULL,
    match_id TEXT NOT NULL,
    dice TEXT NOT NULL,
    event TEXT NOT NULL
)
"""


class AnalysisStore:
    """The ``analysis`` table of the SQLite file at ``path`` (created if absent).

    Raises ``sqlite3.DatabaseError`` (a file that is not SQLite) when opened.
    Use from one thread (the one that opened it).
    """

    def __init__(self, path: str) -> None:
        self.path = os.fspath(path)
        self._conn = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(_SCHEMA)

    def add(self, event) -> int:
        """Store one :class:`~companion.analysis.event.AnalysisEvent`; returns its row id."""
        data = event.to_dict()
        cur = self._conn.execute(
            "INSERT INTO analysis (time_ms, kind, player, decision, position_id, match_id, dice, event)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (data["time_ms"], data["kind"], data["player"], data["decision"], data["position_id"],
             data["match_id"], "-".join(str(d) for d in data["dice"]), json.dumps(data, sort_keys=True)))
        return int(cur.lastrowid)

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    def __enter__(self) -> "AnalysisStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def stored_analyses(path: str) -> list[dict[str, Any]]:
    """The analysis events stored in the match log at ``path`` (``[]`` when it
    holds none). Raises ``FileNotFoundError`` when there is no file there."""
    if not os.path.isfile(path):
        raise FileNotFoundError(path)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "analysis" not in tables:
            return []
        return [json.loads(text) for (text,) in conn.execute("SELECT event FROM analysis ORDER BY id")]
    finally:
        conn.close()

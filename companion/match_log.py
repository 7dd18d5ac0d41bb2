"""The match log: every action of a match, appended to SQLite before it is acknowledged.

One SQLite file per match (standard library :mod:`sqlite3`, WAL journal,
``synchronous=FULL``, one ``BEGIN IMMEDIATE ... COMMIT`` transaction per event).
Table ``meta`` holds the schema version and the match config (length,
players, rules); table ``events`` holds one row per action: a sequence number
(1, 2, 3, ... without gaps), wall-clock time in milliseconds, the action
type, the action dict as JSON, the result (Match ID and Position ID after the
action, and the game end it caused, if any) as JSON, and a CRC-32 of both JSON
texts. An action that ends a game is followed by a ``game_end`` row (winner,
points, kind, cube, score, Crawford), so the score sheet can be read from the
log directly. The state is rebuilt by replaying the actions
(:meth:`MatchLog.replay`), which also checks that every stored result is
reproduced. Unreadable files, gaps, checksum mismatches and results that do
not replay are reported as :class:`MatchLogError`, never dropped silently.

:class:`LoggedMatch` is a :class:`~companion.match.Match` whose every action
is committed to a log before the call returns; killing the process at any
moment and opening the log again continues the same match.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import zlib
from typing import Any, Iterator, NamedTuple, Optional

from companion.match import Match, MatchError

SCHEMA_VERSION = 1

#: The ``type`` of the rows that record a game's end (derived, checked on replay).
GAME_END = "game_end"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    time_ms REAL NOT NULL,
    kind TEXT NOT NULL,
    action TEXT NOT NULL,
    result TEXT NOT NULL,
    crc INTEGER NOT NULL
);
"""


class MatchLogError(ValueError):
    """A match log that cannot be read, is corrupt or truncated, or does not replay."""


class LogRecord(NamedTuple):
    """One row of the log: ``seq`` (1-based), ``time_ms`` (ms since the Unix epoch),
    ``action`` (dict for :meth:`Match.apply`), ``result`` (dict: ``match_id``,
    ``position_id``, ``game_end``)."""

    seq: int
    time_ms: float
    action: dict[str, Any]
    result: dict[str, Any]


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _crc(action_text: str, result_text: str) -> int:
    return zlib.crc32((action_text + "\n" + result_text).encode("utf-8"))


def result_of(match: Match, events: list) -> dict[str, Any]:
    """The result stored beside an action: Match ID, Position ID and game end (or ``None``)."""
    game_end = next((e.to_dict() for e in events if e.type == "game_end"), None)
    if game_end is not None:
        game_end.pop("time_ms", None)
    return {"match_id": match.match_id(), "position_id": match.position_id(), "game_end": game_end}


class MatchLog:
    """An append-only SQLite match log at ``path`` (see the module doc).

    Use :meth:`create` for a new log, :meth:`open` for an existing one.
    """

    def __init__(self, conn: sqlite3.Connection, path: str) -> None:
        self._conn = conn
        self.path = path

    # -------------------------------------------------------------- opening

    @staticmethod
    def _connect(path: str) -> sqlite3.Connection:
        conn = sqlite3.connect(path, isolation_level=None, timeout=10.0)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise MatchLogError(f"{path}: not a readable match log ({exc})") from None
        return conn

    @classmethod
    def create(cls, path: str, config: dict[str, Any]) -> "MatchLog":
        """Create a new log for a match with ``config`` (:meth:`Match.config`).

        Raises :class:`MatchLogError` if ``path`` already exists.
        """
        path = os.fspath(path)
        if os.path.exists(path):
            raise MatchLogError(f"{path}: a match log already exists there")
        config = Match.from_config(config).config()  # validate and normalise first
        conn = cls._connect(path)
        conn.execute("BEGIN IMMEDIATE")
        for statement in _SCHEMA.strip().split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        conn.execute("INSERT INTO meta VALUES ('config', ?)", (_dumps(config),))
        conn.execute("COMMIT")
        return cls(conn, path)

    @classmethod
    def open(cls, path: str) -> "MatchLog":
        """Open an existing log and check it (SQLite integrity, schema, config, rows).

        Raises :class:`MatchLogError` for a missing, unreadable, corrupt or
        truncated file.
        """
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise MatchLogError(f"{path}: no match log there")
        if os.path.getsize(path) == 0:
            raise MatchLogError(f"{path}: the match log is empty (truncated?)")
        conn = cls._connect(path)
        log = cls(conn, path)
        try:
            check = conn.execute("PRAGMA integrity_check").fetchall()
            if check != [("ok",)]:
                raise MatchLogError(f"{path}: the match log is corrupt: {check[0][0]}")
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"meta", "events"} <= tables:
                raise MatchLogError(f"{path}: not a match log (tables missing)")
            version = log._meta("schema_version")
            if version != str(SCHEMA_VERSION):
                raise MatchLogError(f"{path}: match log schema {version}, expected {SCHEMA_VERSION}")
            log.config  # parses and validates
            for _ in log.records():
                pass
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise MatchLogError(f"{path}: the match log is corrupt ({exc})") from None
        except MatchLogError:
            conn.close()
            raise
        return log

    def _meta(self, key: str) -> Optional[str]:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    @property
    def config(self) -> dict[str, Any]:
        """The match config stored at creation. Raises :class:`MatchLogError` if unreadable."""
        text = self._meta("config")
        if text is None:
            raise MatchLogError(f"{self.path}: the match config is missing")
        try:
            config = json.loads(text)
            Match.from_config(config)
        except ValueError as exc:
            raise MatchLogError(f"{self.path}: bad match config ({exc})") from None
        return config

    # ------------------------------------------------------------ the events

    def append(self, action: dict[str, Any], result: dict[str, Any]) -> int:
        """Append one event in its own committed transaction; returns its ``seq``.

        The row is on disk (``synchronous=FULL``) when this returns.
        """
        action_text, result_text = _dumps(action), _dumps(result)
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            (last,) = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()
            conn.execute(
                "INSERT INTO events (seq, time_ms, kind, action, result, crc) VALUES (?, ?, ?, ?, ?, ?)",
                (last + 1, time.time() * 1000.0, str(action.get("type")), action_text, result_text,
                 _crc(action_text, result_text)),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return last + 1

    def records(self) -> Iterator[LogRecord]:
        """Every event in order. Raises :class:`MatchLogError` at a gap in the sequence,
        a checksum mismatch or unparsable JSON."""
        expected = 1
        try:
            rows = self._conn.execute(
                "SELECT seq, time_ms, action, result, crc FROM events ORDER BY seq"
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            raise MatchLogError(f"{self.path}: the match log is corrupt ({exc})") from None
        for seq, time_ms, action_text, result_text, crc in rows:
            if seq != expected:
                raise MatchLogError(f"{self.path}: event {expected} is missing (next is {seq})")
            if _crc(action_text, result_text) != crc:
                raise MatchLogError(f"{self.path}: event {seq} is corrupt (checksum mismatch)")
            try:
                action, result = json.loads(action_text), json.loads(result_text)
            except ValueError:
                raise MatchLogError(f"{self.path}: event {seq} is not valid JSON") from None
            yield LogRecord(seq, time_ms, action, result)
            expected += 1

    def actions(self) -> list[dict[str, Any]]:
        """The action dicts in order (without the ``game_end`` rows, which are derived)."""
        return [r.action for r in self.records() if r.action.get("type") != GAME_END]

    def record(self, match: Match, action: dict[str, Any], events: list) -> None:
        """Log an action just applied to ``match`` (its ``events`` as returned by
        :meth:`Match.apply`): one row, and when it ended a game, a ``game_end``
        row after it (each in its own transaction)."""
        result = result_of(match, events)
        self.append(action, result)
        if result["game_end"] is not None:
            self.append({"type": GAME_END, **result["game_end"]}, result)

    def games_ended(self) -> list[dict[str, Any]]:
        """The ``game_end`` rows: ``winner``, ``points``, ``kind``, ``cube``,
        ``score``, ``crawford``, ``match_over`` per finished game (the score sheet)."""
        return [r.result["game_end"] for r in self.records() if r.action.get("type") == GAME_END]

    def __len__(self) -> int:
        (count,) = self._conn.execute("SELECT COUNT(*) FROM events").fetchone()
        return count

    def replay(self, cls: type = Match) -> Match:
        """Rebuild the match (an instance of ``cls``) from the log, checking every result.

        Raises :class:`MatchLogError` naming the event that does not apply or
        whose stored Match ID / Position ID / game end differs from the replay.
        """
        match, _missing = self._replay()
        if cls is not Match:
            rebuilt = cls.__new__(cls)
            rebuilt.__dict__.update(match.__dict__)
            return rebuilt
        return match

    def _replay(self) -> tuple[Match, Optional[dict[str, Any]]]:
        """The rebuilt match, and the result of the last event when its ``game_end``
        row is missing (the process died between the two transactions)."""
        match = Match.from_config(self.config)
        expected_end: Optional[dict[str, Any]] = None
        last_result: Optional[dict[str, Any]] = None
        for record in self.records():
            if record.action.get("type") == GAME_END:
                if expected_end is None or record.result != last_result:
                    raise MatchLogError(f"{self.path}: event {record.seq} is a game end the replay"
                                        " does not produce")
                expected_end = None
                continue
            if expected_end is not None:
                raise MatchLogError(f"{self.path}: the game end after event {record.seq - 1} is missing")
            try:
                events = match.apply(record.action)
            except MatchError as exc:
                raise MatchLogError(f"{self.path}: event {record.seq} does not replay: {exc}") from None
            got = result_of(match, events)
            if got != record.result:
                raise MatchLogError(
                    f"{self.path}: event {record.seq} replays to {got['match_id']} {got['position_id']}"
                    f", the log says {record.result.get('match_id')} {record.result.get('position_id')}"
                )
            last_result = got
            expected_end = got["game_end"]
        return match, (last_result if expected_end is not None else None)

    def close(self) -> None:
        """Close the database connection."""
        self._conn.close()

    def __enter__(self) -> "MatchLog":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class LoggedMatch(Match):
    """A :class:`~companion.match.Match` that commits every action to a :class:`MatchLog`
    before :meth:`apply` returns (and so before the caller can acknowledge it).

    Open with :meth:`open` (resumes an existing log, else creates one). If the
    log cannot be written, the action is undone in memory and the error raised.
    """

    log: MatchLog

    @classmethod
    def open(cls, path: str, config: Optional[dict[str, Any]] = None) -> "LoggedMatch":
        """Resume the match logged at ``path``, or start a new one there with ``config``.

        Raises :class:`MatchLogError` if the log is corrupt or does not replay, or if
        there is no log and no ``config``; ``ValueError`` if ``config`` differs from the
        logged one.
        """
        path = os.fspath(path)
        if os.path.exists(path):
            log = MatchLog.open(path)
            if config is not None and Match.from_config(config).config() != log.config:
                stored = log.config
                log.close()
                raise MatchLogError(f"{path}: the log holds a different match ({stored})")
            plain, missing = log._replay()
            if missing is not None:  # died between an action and its game end: complete it
                log.append({"type": GAME_END, **missing["game_end"]}, missing)
            match = cls.__new__(cls)
            match.__dict__.update(plain.__dict__)
        else:
            if config is None:
                raise MatchLogError(f"{path}: no match log there, and no match to start")
            log = MatchLog.create(path, config)
            match = cls.from_config(config)
        match.log = log
        return match

    def apply(self, action: dict[str, Any]) -> list:
        """Apply ``action`` (see :meth:`Match.apply`) and commit it to the log."""
        saved = self._snapshot()
        events = super().apply(action)
        log = self.__dict__.get("log")
        if log is None:  # while being rebuilt by replay (undo)
            return events
        try:
            log.record(self, action, events)
        except BaseException:
            self._restore(saved)
            raise
        return events

    def _undo(self) -> list:
        log = self.__dict__.pop("log", None)
        try:
            return super()._undo()
        finally:
            if log is not None:
                self.log = log

"""The director's picture of the room, rebuilt from what the tables publish (no MQTT here).

:class:`Room` takes every message of the tournament's topics
(:mod:`companion.hub_topics`) through :meth:`Room.receive` and keeps, per
table: the newest retained state, online or not, the events applied in
``seq`` order exactly once (a duplicate, from a QoS 1 resend or a replay, is
counted as such and dropped; an event ahead of a gap waits until the gap is
filled), event counts per type, the table's alerts and finished games, and the
newest ``.mat`` record. Across tables it keeps the room's alert list and the
results (finished matches). Messages that are malformed, on a wrong topic,
oversized, or from a table claiming a number another table holds are ignored
with a logged reason (:attr:`Room.ignored`), never raised.

``receive`` answers with the ``seq`` to ask the table to replay from when it
sees that events are missing (a gap, or a state or heartbeat ahead of what was
applied): that is how a restarted hub rebuilds everything from the tables'
outboxes.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import threading
import time
from typing import Any, Callable, Optional

from companion.bus import Event, EventBus
from companion.hub_topics import BadMessage, MAX_PAYLOAD, decode, parse_topic, table_fields

log = logging.getLogger(__name__)

#: Events held back per table while a gap before them is being replayed.
MAX_PENDING = 20000
#: Alerts kept in the room's list (newest first).
MAX_ALERTS = 1000
#: Seconds between two log lines for the same reason of ignoring messages.
LOG_EVERY_S = 10.0


@dataclasses.dataclass(frozen=True)
class ReceivedEvent(Event):
    """A table's bus event as received by the hub: ``data`` is its ``to_dict()``;
    ``type`` and ``to_dict()`` give back the table's own, so the dashboard's
    :class:`web.tracker.Tracker` can follow a remote table."""

    data: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def type(self) -> str:  # type: ignore[override]
        """The original event's ``type``."""
        return str(self.data.get("type", ""))

    def to_dict(self) -> dict[str, Any]:
        """The original event dict."""
        return dict(self.data)


def alert_of(event: dict[str, Any]) -> Optional[tuple[str, str]]:
    """``(kind, text)`` of the room alert an event raises, or ``None``: an illegal
    play, cocked dice, a board the camera cannot resolve (``held`` or
    ``unreadable``), the camera or the LED board lost, a refused director command."""
    kind = event.get("type")
    if kind == "verdict" and event.get("verdict") == "illegal":
        play = event.get("play")
        return "illegal", f"illegal play by player {event.get('player')}" + (f": {play}" if play else "")
    if kind == "cocked_dice":
        return "cocked", f"cocked dice (player {event.get('player')})"
    if kind == "board" and event.get("status") in ("held", "unreadable"):
        return "misread", f"board {event.get('status')}: {event.get('detail') or 'the camera cannot read it'}"
    if kind == "source" and event.get("status") in ("lost", "reconnecting", "ended"):
        return "camera", f"camera {event.get('status')}: {event.get('detail') or ''}".rstrip(": ")
    if kind == "link" and event.get("state") == "lost":
        return "leds", f"LED board lost: {event.get('detail') or event.get('port') or ''}".rstrip(": ")
    if kind == "director_command" and not event.get("accepted"):
        return "command", f"director command {event.get('action')!r} refused: {event.get('error')}"
    return None


class TableView:
    """What the hub knows of one table (read it through :class:`Room`'s methods,
    which hold the room's lock). ``applied``: the highest ``seq`` applied with
    none missing before it."""

    def __init__(self, number: int, table_id: str, follow: Optional[Callable[[EventBus], Any]] = None) -> None:
        self.number = number
        self.table_id = table_id
        self.online = False
        self.last_seen_ms = 0.0
        self.state: dict[str, Any] = {}
        self.state_seq = 0
        self.known_seq = 0  # the highest seq the table said it has
        self.applied = 0
        self.pending: dict[int, dict[str, Any]] = {}
        self.counts: collections.Counter[str] = collections.Counter()
        self.duplicates = 0
        self.alerts: list[dict[str, Any]] = []
        self.games: list[dict[str, Any]] = []
        self.commands: list[dict[str, Any]] = []
        self.replies: dict[str, dict[str, Any]] = {}
        self.record = ""
        self.record_seq = -1  # the last event sent before the record
        self.match_games = 0  # games finished in the current match
        self.bus = EventBus()  # the table's events again, in order, once each
        self.follower = None if follow is None else follow(self.bus)


class Room:
    """Every table of one tournament, as the hub sees them (see the module doc).

    ``tournament``: the name in the topics. ``on_change(table)``: called after
    each message taken from a table (outside the lock; for live pages).
    ``follow(bus)``: called once per new table with an :class:`EventBus` on which
    the table's events are published again in ``seq`` order, once each; what it
    returns is kept as the table's follower (the hub page passes the
    dashboard's ``web.tracker.Tracker``). ``max_payload``: bytes. Thread-safe.

    :attr:`ignored` holds the newest 1000 ``(topic, reason)`` of ignored
    messages (each reason logged at most once per ``LOG_EVERY_S``);
    :attr:`latencies_ms` the milliseconds from each applied event's ``time_ms``
    (the table's clock) to its arrival (for the benchmark).
    """

    def __init__(self, tournament: str, on_change: Optional[Callable[[int], None]] = None,
                 follow: Optional[Callable[[EventBus], Any]] = None, max_payload: int = MAX_PAYLOAD) -> None:
        self.tournament = tournament
        self.max_payload = max_payload
        self._lock = threading.RLock()
        self._tables: dict[int, TableView] = {}
        self._alerts: collections.deque[dict[str, Any]] = collections.deque(maxlen=MAX_ALERTS)
        self._results: list[dict[str, Any]] = []
        self.ignored: collections.deque[tuple[str, str]] = collections.deque(maxlen=1000)
        self.ignored_count = 0
        self._logged: dict[str, tuple[float, int]] = {}  # reason -> (last logged, not logged since)
        self.on_change = on_change
        self.follow = follow
        self.version = 0
        self.latencies_ms: collections.deque[float] = collections.deque(maxlen=100000)

    # ------------------------------------------------------------ receiving
    def receive(self, topic_text: str, raw: bytes, now_ms: Optional[float] = None) -> Optional[tuple[int, int]]:
        """Take one message. Returns ``(table, seq)`` when that table should be
        asked to replay its events from ``seq``, else ``None``. Never raises for
        a bad message: it is counted in :attr:`ignored` with its reason."""
        now_ms = time.time() * 1000.0 if now_ms is None else now_ms
        try:
            where = parse_topic(topic_text, self.tournament)
            payload = decode(raw, self.max_payload)
            table_id, seq = table_fields(payload, where.table)
            with self._lock:
                view = self._claim(where.table, table_id)
                view.last_seen_ms = now_ms
                replay = getattr(self, f"_on_{where.kind}")(view, payload, seq, now_ms)
                self.version += 1
        except BadMessage as exc:
            self._ignore(topic_text, str(exc))
            return None
        if self.on_change is not None:
            self.on_change(where.table)
        return None if replay is None else (where.table, replay)

    def _ignore(self, topic_text: str, reason: str) -> None:
        now = time.monotonic()
        with self._lock:
            self.ignored.append((topic_text[:200], reason))
            self.ignored_count += 1
            last, quiet = self._logged.get(reason, (float("-inf"), 0))
            if now - last < LOG_EVERY_S:  # a flood of the same fault: one line per period
                self._logged[reason] = (last, quiet + 1)
                return
            self._logged[reason] = (now, 0)
        more = f" ({quiet} more like it not logged)" if quiet else ""
        log.warning("hub: ignored a message on %.200s: %s%s", topic_text, reason, more)

    def _claim(self, number: int, table_id: str) -> TableView:
        view = self._tables.get(number)
        if view is None:
            view = self._tables[number] = TableView(number, table_id, self.follow)
        elif view.table_id != table_id:
            raise BadMessage(f"table {number} is held by table_id {view.table_id}; {table_id} claims its number")
        return view

    def _missing_from(self, view: TableView) -> Optional[int]:
        """The seq to replay from when the table has events the hub has not applied."""
        if view.known_seq > view.applied and (view.applied + 1) not in view.pending:
            return view.applied + 1
        return None

    def _on_event(self, view: TableView, payload: dict[str, Any], seq: Optional[int], now_ms: float) -> Optional[int]:
        event = payload.get("event")
        if not seq or not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise BadMessage("an event payload needs seq >= 1 and an event object with a type")
        view.known_seq = max(view.known_seq, seq)
        if seq <= view.applied or seq in view.pending:
            view.duplicates += 1
            return None
        if seq != view.applied + 1:
            if len(view.pending) < MAX_PENDING:
                view.pending[seq] = event
            return view.applied + 1
        self._apply(view, seq, event, now_ms)
        while view.applied + 1 in view.pending:
            self._apply(view, view.applied + 1, view.pending.pop(view.applied + 1), now_ms)
        return self._missing_from(view)

    def _apply(self, view: TableView, seq: int, event: dict[str, Any], now_ms: float) -> None:
        view.applied = seq
        kind = event["type"]
        view.counts[kind] += 1
        sent = event.get("time_ms")
        if isinstance(sent, (int, float)):
            self.latencies_ms.append(now_ms - float(sent))
        view.bus.publish(ReceivedEvent(data=event))
        alert = alert_of(event)
        if alert is not None:
            entry = {"table": view.number, "seq": seq, "kind": alert[0], "text": alert[1],
                     "time_ms": event.get("time_ms")}
            view.alerts.append(entry)
            self._alerts.appendleft(entry)
        if kind == "director_command":
            view.commands.append(event)
        if kind == "game_end":
            view.games.append(event)
            view.match_games += 1
            if event.get("match_over"):
                players = view.state.get("players") or ["Player 0", "Player 1"]
                winner = event.get("winner")
                self._results.append({
                    "table": view.number, "seq": seq, "players": list(players),
                    "winner": players[winner] if winner in (0, 1) and len(players) == 2 else "?",
                    "score": list(event.get("score") or (0, 0)),
                    "match_length": view.state.get("match_length"),
                    "games": view.match_games,
                    "time_ms": event.get("time_ms"),
                })
                self._place_record(view)  # the record may have come first (a rebuilding hub)
                view.match_games = 0

    def _on_state(self, view: TableView, payload: dict[str, Any], seq: Optional[int], _now_ms: float) -> Optional[int]:
        state = payload.get("state")
        if not isinstance(state, dict) or seq is None:
            raise BadMessage("a state payload needs seq and a state object")
        if seq >= view.state_seq:
            view.state, view.state_seq = state, seq
        view.known_seq = max(view.known_seq, seq)
        # a hub that has nothing yet asks at once; a lag is left to the periodic check (missing())
        return self._missing_from(view) if view.applied == 0 else None

    def _on_status(self, view: TableView, payload: dict[str, Any], _seq: Optional[int], now_ms: float) -> Optional[int]:
        online = payload.get("online")
        if not isinstance(online, bool):
            raise BadMessage("a status payload needs online: true or false")
        if view.online and not online:
            entry = {"table": view.number, "seq": None, "kind": "offline", "text": "table offline",
                     "time_ms": now_ms}
            view.alerts.append(entry)
            self._alerts.appendleft(entry)
        view.online = online
        return None

    def _on_heartbeat(self, view: TableView, _payload: dict[str, Any], seq: Optional[int], _now_ms: float) -> Optional[int]:
        view.online = True
        if seq:
            view.known_seq = max(view.known_seq, seq)
        return None

    def _on_record(self, view: TableView, payload: dict[str, Any], seq: Optional[int], _now_ms: float) -> Optional[int]:
        mat = payload.get("mat")
        if not isinstance(mat, str):
            raise BadMessage("a record payload needs mat text")
        view.record = mat
        view.record_seq = -1 if seq is None else seq
        self._place_record(view)
        return None

    def _place_record(self, view: TableView) -> None:
        """Give the table's record to the match it belongs to: the latest match the
        table finished before sending it (a record that was given to an earlier
        match, before the later one was known, moves to the later one)."""
        if not view.record or view.record_seq < 0:
            return
        candidates = [r for r in self._results if r["table"] == view.number and r["seq"] <= view.record_seq]
        if not candidates:
            return
        target = max(candidates, key=lambda r: r["seq"])
        for r in candidates:
            if r is not target and r.get("mat_from") == view.record_seq:
                r.pop("mat", None)
                r.pop("mat_from", None)
        if "mat" not in target:
            target["mat"], target["mat_from"] = view.record, view.record_seq

    def _on_reply(self, view: TableView, payload: dict[str, Any], _seq: Optional[int], _now_ms: float) -> Optional[int]:
        command_id = payload.get("id")
        if isinstance(command_id, str) and command_id:
            view.replies[command_id] = {k: payload.get(k) for k in ("id", "action", "ok", "error")}
        return None

    # -------------------------------------------------------------- reading
    def numbers(self) -> list[int]:
        """The table numbers seen, in order."""
        with self._lock:
            return sorted(self._tables)

    def table(self, number: int) -> Optional[dict[str, Any]]:
        """A copy of what is known of table ``number`` (``None`` if never seen):
        ``number``, ``table_id``, ``online``, ``state``, ``applied``, ``pending``,
        ``counts`` (events per type), ``duplicates``, ``alerts``, ``games``,
        ``commands``, ``record``, ``last_seen_ms``."""
        with self._lock:
            v = self._tables.get(number)
            if v is None:
                return None
            return {"number": v.number, "table_id": v.table_id, "online": v.online, "state": dict(v.state),
                    "state_seq": v.state_seq, "applied": v.applied, "known_seq": v.known_seq,
                    "pending": len(v.pending), "counts": dict(v.counts), "duplicates": v.duplicates,
                    "alerts": list(v.alerts), "games": list(v.games), "commands": list(v.commands),
                    "record": v.record, "last_seen_ms": v.last_seen_ms}

    def follower(self, number: int) -> Any:
        """What ``follow`` made for table ``number`` (``None`` if unseen or no ``follow``)."""
        with self._lock:
            v = self._tables.get(number)
            return None if v is None else v.follower

    def reply(self, number: int, command_id: str) -> Optional[dict[str, Any]]:
        """The table's reply to director command ``command_id``, or ``None`` (not yet)."""
        with self._lock:
            v = self._tables.get(number)
            return None if v is None else v.replies.get(command_id)

    def alerts(self, limit: int = 200) -> list[dict[str, Any]]:
        """The room's alerts, newest first: ``table``, ``seq``, ``kind``, ``text``, ``time_ms``."""
        with self._lock:
            return list(self._alerts)[:limit]

    def results(self) -> list[dict[str, Any]]:
        """Finished matches in the order they ended: ``table``, ``players``, ``winner``,
        ``score``, ``match_length``, ``games``, ``time_ms``, and ``mat`` (the match's
        Jellyfish record) once the table has sent it."""
        with self._lock:
            return [{k: v for k, v in r.items() if k != "mat_from"} for r in self._results]

    def missing(self) -> list[tuple[int, int]]:
        """``(table, seq)`` for every table whose events are not all applied: the
        table said (state, heartbeat, a later event) it has more than the hub
        applied. A caller asks for a replay from ``seq`` when the same answer
        stays for a while (events may simply be on their way)."""
        with self._lock:
            out = []
            for number, v in sorted(self._tables.items()):
                start = self._missing_from(v) or (v.applied + 1 if v.pending else None)
                if start is not None:
                    out.append((number, start))
            return out

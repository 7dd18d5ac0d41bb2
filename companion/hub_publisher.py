"""A table's link to the tournament room: its bus events out to the broker, director commands in.

:class:`TablePublisher` subscribes to the table's :class:`~companion.bus.EventBus`.
Each event is first committed to the table's :class:`~companion.hub_outbox.Outbox`
(numbered ``seq`` 1, 2, 3, ...) in the bus's thread; a sender thread publishes
the unacknowledged rows in order with QoS 1 whenever the broker is connected
and marks each acknowledged on its PUBACK. When the broker is away the table
goes on refereeing and the rows wait; on reconnection the sender starts again
from the first unacknowledged row, so nothing is lost, and what the broker may
see twice carries the same ``seq``, which the hub counts once. Topics and
payloads: :mod:`companion.hub_topics`.

Besides events the sender publishes the retained ``state`` (at most every
``state_period_s``, after a change), the retained ``status`` (``online``; the
last will says offline), a ``heartbeat`` every ``heartbeat_s`` and, after each
game, the retained ``record`` (the match as ``.mat``). It answers ``replay``
requests from the outbox and carries out director commands
(:mod:`companion.hub_commands`).
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from typing import Any, Optional

from companion.bus import Event
from companion.hub_address import HubAddress
from companion.hub_commands import execute
from companion.hub_outbox import Outbox
from companion.hub_topics import BadMessage, INBOX_KINDS, check_table, check_tournament, decode, encode, \
    parse_topic, topic
from companion.mqtt_client import connect, make_client

log = logging.getLogger(__name__)

#: Events the publisher leaves out of the room: per-frame noise with no meaning for the director.
LOCAL_ONLY = frozenset({"leds"})


class TablePublisher:
    """Publishes one table's bus to the room's broker (see the module doc).

    ``address``: the broker. ``tournament``, ``table``: names the topics (checked:
    ``ValueError``). ``session``: the table's ``SessionApi`` (its ``bus``, its
    ``state()`` and, for commands, its actions). ``outbox``: the table's
    :class:`Outbox`. ``token``: the director's token for commands (``None``:
    commands are refused). ``heartbeat_s``, ``state_period_s``: seconds.
    ``batch``: rows sent per pass of the sender.
    """

    def __init__(self, address: HubAddress, tournament: str, table: int, session: Any, outbox: Outbox, *,
                 token: Optional[str] = None, heartbeat_s: float = 5.0, state_period_s: float = 0.2,
                 batch: int = 200) -> None:
        self.address = address
        self.tournament = check_tournament(tournament)
        self.table = check_table(table)
        self.session = session
        self.outbox = outbox
        self.token = token
        self.heartbeat_s = heartbeat_s
        self.state_period_s = state_period_s
        self.batch = batch
        self.table_id = outbox.table_id
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._connected = False
        self._cursor = outbox.first_unacked()  # next seq to send
        self._sent = self._cursor - 1  # the highest seq sent (a replay moves the cursor back, not this)
        self._inflight: dict[int, int] = {}  # paho mid -> seq
        self._acks: collections.deque[int] = collections.deque()  # mids acknowledged (PUBACK or sent QoS 0)
        self._state_dirty = True
        self._record_due = 0  # seq of a game end whose record is still to be sent
        self._last_state = 0.0
        self._last_heartbeat = 0.0
        self.connects = 0
        self.commands_refused = 0
        status_topic = topic(self.tournament, self.table, "status")
        self._client = make_client(address, f"companion-{self.tournament}-table-{self.table}-{self.table_id}",
                                   will=(status_topic, encode(self._status(False))))
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_publish = self._on_publish
        self._client.on_message = self._on_message
        self._unsubscribe = None
        self._thread = threading.Thread(target=self._run, name=f"hub-table-{self.table}", daemon=True)

    # ------------------------------------------------------------ lifecycle
    def start(self) -> "TablePublisher":
        """Follow the bus, connect (in the background: an absent broker is no error) and start sending."""
        self._unsubscribe = self.session.bus.subscribe(self._on_event)
        connect(self._client, self.address)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0, flush_s: float = 5.0) -> None:
        """Stop following the bus; give the broker up to ``flush_s`` seconds to take
        the rows still waiting; say offline, and disconnect (rows not yet sent stay
        in the outbox, for the next run)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        deadline = time.monotonic() + flush_s
        while self._connected and self.outbox.first_unacked() <= self.outbox.last_seq and time.monotonic() < deadline:
            self._wake.set()
            time.sleep(0.02)
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        try:
            if self._connected:
                self._publish_state().wait_for_publish(1.0)  # the table as it was left
                self._client.publish(topic(self.tournament, self.table, "status"), encode(self._status(False)),
                                     qos=1, retain=True).wait_for_publish(1.0)
        except (RuntimeError, ValueError):
            pass
        self._client.disconnect()
        self._client.loop_stop()

    @property
    def connected(self) -> bool:
        """True while the broker connection is up."""
        return self._connected

    def _status(self, online: bool) -> dict[str, Any]:
        return {"table": self.table, "table_id": self.table_id, "online": online, "time_ms": time.time() * 1000.0}

    # --------------------------------------------------------------- the bus
    def _on_event(self, event: Event) -> None:
        if event.type in LOCAL_ONLY:
            return
        seq = self.outbox.append(event.to_dict())
        self._state_dirty = True
        if event.type == "game_end":
            self._record_due = seq  # the record goes out once this event has
        self._wake.set()

    # ------------------------------------------------------------------ paho
    def _on_connect(self, client: Any, _userdata: Any, _flags: Any, reason: Any, _props: Any = None) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("table %d: the broker %s refused the connection: %s", self.table, self.address.url(), reason)
            return
        for kind in INBOX_KINDS:
            client.subscribe(topic(self.tournament, self.table, kind), qos=1)
        client.publish(topic(self.tournament, self.table, "status"), encode(self._status(True)), qos=1, retain=True)
        with self._lock:
            self._connected = True
            self._inflight.clear()
            self._acks.clear()
            self._cursor = self.outbox.first_unacked()
            self._state_dirty = True
            self.connects += 1
        self._wake.set()

    def _on_disconnect(self, _client: Any, _userdata: Any, _flags: Any, reason: Any, _props: Any = None) -> None:
        with self._lock:
            self._connected = False
            self._inflight.clear()
        if not self._stop.is_set():
            log.warning("table %d: lost the broker %s (%s); events wait in %s", self.table, self.address.url(),
                        reason, self.outbox.path)

    def _on_publish(self, _client: Any, _userdata: Any, mid: int, _reason: Any = None, _props: Any = None) -> None:
        # paho holds its own lock here: note the mid only; the sender thread marks the row
        self._acks.append(mid)
        self._wake.set()

    def _mark_acked(self) -> None:
        while self._acks:
            mid = self._acks.popleft()
            with self._lock:
                seq = self._inflight.pop(mid, None)
            if seq is not None:
                self.outbox.ack(seq)

    def _on_message(self, client: Any, _userdata: Any, message: Any) -> None:
        try:
            where = parse_topic(message.topic, self.tournament, INBOX_KINDS)
            if where.table != self.table:
                raise BadMessage(f"topic {message.topic!r} is another table's")
            payload = decode(message.payload)
        except BadMessage as exc:
            log.warning("table %d: ignored a message: %s", self.table, exc)
            return
        if where.kind == "replay":
            start = payload.get("from")
            if isinstance(start, bool) or not isinstance(start, int) or start < 1:
                log.warning("table %d: ignored a replay request: 'from' is not a seq >= 1", self.table)
                return
            with self._lock:
                self._cursor = min(self._cursor, start)
                self._state_dirty = True
            self._wake.set()
            return
        reply = execute(self.session, payload, self.token, self.session.bus.publish)
        if not reply["ok"]:
            self.commands_refused += 1
            log.warning("table %d: refused director command %r: %s", self.table, reply["action"], reply["error"])
        client.publish(topic(self.tournament, self.table, "reply"), encode({**reply, "table": self.table,
                                                                            "table_id": self.table_id}), qos=1)

    # ---------------------------------------------------------------- sender
    def _publish_state(self) -> Any:
        """Publish the retained state now; returns paho's ``MQTTMessageInfo``."""
        with self._lock:
            seq = self._sent  # the last event sent before this state
        state = {"table": self.table, "table_id": self.table_id, "seq": seq, "state": self.session.state(),
                 "time_ms": time.time() * 1000.0}
        return self._client.publish(topic(self.tournament, self.table, "state"), encode(state), qos=1, retain=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=min(self.heartbeat_s, self.state_period_s))
            self._wake.clear()
            try:
                self._send()
            except Exception:  # noqa: BLE001 - the sender must outlive a bad row or a broken socket
                log.exception("table %d: sending to the broker failed", self.table)
                self._stop.wait(0.5)

    def _send(self) -> None:
        self._mark_acked()
        if not self._connected:
            return
        client = self._client
        with self._lock:
            start = self._cursor
        rows = self.outbox.rows(start, self.batch)
        for seq, event in rows:
            if not self._connected:
                return
            payload = encode({"table": self.table, "table_id": self.table_id, "seq": seq, "event": event})
            info = client.publish(topic(self.tournament, self.table, "event"), payload, qos=1)
            if info.rc != 0:
                return  # disconnected meanwhile: on_connect starts again from the first unacked row
            with self._lock:
                self._inflight[info.mid] = seq
                self._sent = max(self._sent, seq)
                moved_back = self._cursor < seq
                if self._cursor == seq:
                    self._cursor = seq + 1
            if moved_back:  # a replay request moved the cursor back: start there
                self._wake.set()
                return
        if len(rows) == self.batch:
            self._wake.set()
        now = time.monotonic()
        if self._state_dirty and now - self._last_state >= self.state_period_s:
            self._state_dirty = False
            self._last_state = now
            self._publish_state()
        if self._record_due and self._sent >= self._record_due:
            self._record_due = 0
            try:
                record = self.session.match_record()
            except (ValueError, AttributeError):
                record = ""
            client.publish(topic(self.tournament, self.table, "record"),
                           encode({"table": self.table, "table_id": self.table_id, "seq": self._sent, "mat": record}),
                           qos=1, retain=True)
        if now - self._last_heartbeat >= self.heartbeat_s:
            self._last_heartbeat = now
            client.publish(topic(self.tournament, self.table, "heartbeat"),
                           encode({"table": self.table, "table_id": self.table_id, "seq": self._sent,
                                   "time_ms": time.time() * 1000.0}), qos=0)

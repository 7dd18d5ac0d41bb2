"""The hub's MQTT side: every table's topics into a :class:`~companion.hub_room.Room`,
replay requests and director commands out.

:class:`HubListener` subscribes to ``companion/<tournament>/table/+/<kind>`` for every kind
a table publishes, with QoS 1 (the broker hands it the retained state, status and record of every
table at once), feeds each message to the room, and asks a table to replay
its events from a ``seq`` when the room says some are missing (at most once
per ``replay_every_s`` per table, and again while they stay missing): a hub
started late, or restarted, gets every event from the tables' outboxes.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from typing import Any, Optional

from companion.hub_address import HubAddress
from companion.hub_room import Room
from companion.hub_topics import check_table, encode, room_filters, topic
from companion.mqtt_client import connect, make_client

log = logging.getLogger(__name__)


class HubListener:
    """Connects ``room`` (a :class:`Room`) to the broker at ``address`` (see the module doc).

    ``replay_every_s``: seconds between two replay requests to one table.
    """

    def __init__(self, address: HubAddress, room: Room, replay_every_s: float = 1.0) -> None:
        self.address = address
        self.room = room
        self.replay_every_s = replay_every_s
        self._client = make_client(address, f"companion-hub-{room.tournament}-{secrets.token_hex(4)}")
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._asked: dict[int, tuple[int, float]] = {}  # table -> (from seq, monotonic time)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._connected = threading.Event()
        self.replays_asked = 0
        self._thread = threading.Thread(target=self._watch, name="hub-replays", daemon=True)

    def start(self) -> "HubListener":
        """Connect in the background (an absent broker is retried forever)."""
        connect(self._client, self.address)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Disconnect and stop the threads."""
        self._stop.set()
        self._client.disconnect()
        self._client.loop_stop()
        self._thread.join(2.0)

    def wait_connected(self, timeout: float) -> bool:
        """True once connected (within ``timeout`` seconds)."""
        return self._connected.wait(timeout)

    @property
    def connected(self) -> bool:
        """True while the broker connection is up."""
        return self._connected.is_set()

    def _on_connect(self, client: Any, _userdata: Any, _flags: Any, reason: Any, _props: Any = None) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("hub: the broker %s refused the connection: %s", self.address.url(), reason)
            return
        client.subscribe([(f, 1) for f in room_filters(self.room.tournament)])
        with self._lock:
            self._asked.clear()
        self._connected.set()

    def _on_disconnect(self, _client: Any, _userdata: Any, _flags: Any, reason: Any, _props: Any = None) -> None:
        self._connected.clear()
        if not self._stop.is_set():
            log.warning("hub: lost the broker %s (%s); reconnecting", self.address.url(), reason)

    def _on_message(self, _client: Any, _userdata: Any, message: Any) -> None:
        try:
            wanted = self.room.receive(message.topic, message.payload)
        except Exception:  # noqa: BLE001 - one message must never stop the hub
            log.exception("hub: a message on %.200s failed", message.topic)
            return
        if wanted is not None:
            self._ask(*wanted)

    def _ask(self, table: int, start: int) -> None:
        now = time.monotonic()
        with self._lock:
            previous = self._asked.get(table)
            if previous is not None and previous[0] == start and now - previous[1] < self.replay_every_s:
                return
            self._asked[table] = (start, now)
            self.replays_asked += 1
        self._client.publish(topic(self.room.tournament, table, "replay"), encode({"from": start}), qos=1)

    def _watch(self) -> None:
        previous: set[tuple[int, int]] = set()
        while not self._stop.wait(self.replay_every_s):
            if not self._connected.is_set():
                continue
            missing = set(self.room.missing())
            for table, start in sorted(missing & previous):  # no progress for a whole period
                self._ask(table, start)
            previous = missing

    def send_command(self, table: int, action: str, token: Optional[str], **args: Any) -> str:
        """Send director command ``action`` with ``args`` (see :mod:`companion.hub_commands`)
        to table ``table``; returns the command's id (its reply comes to
        ``Room.reply(table, id)``). Raises ``ValueError`` for a bad table number."""
        check_table(table)
        command_id = secrets.token_hex(6)
        payload = {"id": command_id, "action": action, **args}
        if token is not None:
            payload["token"] = token
        self._client.publish(topic(self.room.tournament, table, "command"), encode(payload), qos=1)
        return command_id

"""The tournament room's MQTT topics and the checks every message passes.

Every table publishes under ``companion/<tournament>/table/<n>/``:

============  ======  ========  ==================================================
sub-topic     QoS     retained  payload (a JSON object)
============  ======  ========  ==================================================
``event``     1       no        one bus event: ``table``, ``table_id``, ``seq``
                                (1, 2, 3, ... per table, without gaps),
                                ``event`` (``Event.to_dict()``)
``state``     1       yes       the table's current state: ``table``, ``table_id``,
                                ``seq`` (the last event it reflects), ``state``
                                (``Session.state()``), ``time_ms``
``status``    1       yes       ``online`` true/false (false is the last will)
``heartbeat`` 0       no        ``seq``, ``time_ms``
``record``    1       yes       ``mat``: the match so far as Jellyfish ``.mat`` text;
                                ``seq``: the last event sent before it
``reply``     1       no        the answer to a director command: ``id``, ``ok``,
                                ``error``
============  ======  ========  ==================================================

and listens on ``command`` (director commands, see :mod:`companion.hub_commands`)
and ``replay`` (``{"from": seq}``: publish the events from ``seq`` again, from
the table's outbox). A tournament name is 1-40 letters, digits, ``-`` or ``_``;
a table number 1-999.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple, Optional

ROOT = "companion"
#: Sub-topics a table publishes on.
TABLE_KINDS = ("event", "state", "status", "heartbeat", "record", "reply")
#: Sub-topics a table listens on.
INBOX_KINDS = ("command", "replay")
#: Largest payload read, in bytes (a state with a long score sheet is a few kB).
MAX_PAYLOAD = 256 * 1024
MAX_TABLE = 999

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


class BadMessage(ValueError):
    """A message the room ignores: wrong topic, oversized, not a JSON object, or
    missing what its kind needs. The text is the logged reason."""


class TableTopic(NamedTuple):
    """A parsed topic: ``tournament``, ``table`` (1-999) and ``kind`` (a sub-topic)."""

    tournament: str
    table: int
    kind: str


def check_tournament(name: str) -> str:
    """``name`` when it is a valid tournament name, else ``ValueError``."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"a tournament name is 1-40 letters, digits, '-' or '_', not {name!r}")
    return name


def check_table(number: Any) -> int:
    """``number`` as an int when it is a table number 1-999, else ``ValueError``."""
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= MAX_TABLE:
        raise ValueError(f"a table number is 1-{MAX_TABLE}, not {number!r}")
    return number


def topic(tournament: str, table: int, kind: str) -> str:
    """``companion/<tournament>/table/<table>/<kind>``."""
    return f"{ROOT}/{tournament}/table/{table}/{kind}"


def room_filters(tournament: str) -> list[str]:
    """The subscriptions that take in what every table of a tournament publishes."""
    return [f"{ROOT}/{tournament}/table/+/{kind}" for kind in TABLE_KINDS]


def parse_topic(text: str, tournament: str, kinds: tuple[str, ...] = TABLE_KINDS) -> TableTopic:
    """Parse a topic of ``tournament``; raises :class:`BadMessage` naming what is wrong."""
    parts = text.split("/")
    if len(parts) != 5 or parts[0] != ROOT or parts[2] != "table":
        raise BadMessage(f"topic {text!r} is not companion/<tournament>/table/<n>/<kind>")
    if parts[1] != tournament:
        raise BadMessage(f"topic {text!r} belongs to another tournament")
    number = parts[3]
    if not number.isdigit() or number != str(int(number)) or not 1 <= int(number) <= MAX_TABLE:
        raise BadMessage(f"topic {text!r}: the table number is not 1-{MAX_TABLE}")
    if parts[4] not in kinds:
        raise BadMessage(f"topic {text!r}: unknown message kind {parts[4]!r}")
    return TableTopic(parts[1], int(number), parts[4])


def encode(payload: dict[str, Any]) -> bytes:
    """A payload dict as compact UTF-8 JSON."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8")


def decode(raw: bytes, limit: int = MAX_PAYLOAD) -> dict[str, Any]:
    """A payload as a dict; raises :class:`BadMessage` when it is larger than
    ``limit`` bytes, not UTF-8 JSON, or not a JSON object."""
    if len(raw) > limit:
        raise BadMessage(f"payload of {len(raw)} bytes is over the limit of {limit}")
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise BadMessage("payload is not UTF-8 JSON") from None
    if not isinstance(value, dict):
        raise BadMessage("payload is not a JSON object")
    return value


def table_fields(payload: dict[str, Any], number: int) -> tuple[str, Optional[int]]:
    """Check the ``table`` and ``table_id`` of a table's payload against the topic's
    number; returns ``(table_id, seq)`` (``seq`` ``None`` when absent). Raises
    :class:`BadMessage` when the payload names another table, has no
    ``table_id``, or a ``seq`` that is not a positive integer."""
    claimed = payload.get("table")
    if claimed != number:
        raise BadMessage(f"payload says table {claimed!r} on table {number}'s topic")
    table_id = payload.get("table_id")
    if not isinstance(table_id, str) or not 1 <= len(table_id) <= 64:
        raise BadMessage("payload has no table_id")
    seq = payload.get("seq")
    if seq is not None and (isinstance(seq, bool) or not isinstance(seq, int) or seq < 0):
        raise BadMessage(f"seq {seq!r} is not a whole number >= 0")
    return table_id, seq

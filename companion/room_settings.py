"""A table's tournament-room settings from a JSON file: the board profile or a file of its own.

The settings sit in a ``"room"`` object, in the board profile (``companion
watch --calibration FILE``) or in a file given to ``--room-config``::

    {"room": {"hub": "mqtts://broker.local:8883", "table": 7, "tournament": "open",
              "hub_ca": "/etc/companion/room-ca.pem", "hub_outbox": "/var/lib/companion/t7.sqlite",
              "hub_token": "..."}}

Every key is optional; the command line wins over ``--room-config``, which wins
over the profile.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

#: The keys of a ``"room"`` object and the types they take.
ROOM_KEYS: dict[str, type] = {"hub": str, "table": int, "tournament": str, "hub_ca": str, "hub_outbox": str,
                              "hub_token": str}


def read_room_settings(path: str | pathlib.Path) -> dict[str, Any]:
    """The ``"room"`` object of the JSON file at ``path`` (``{}`` when it has none).

    Raises ``ValueError`` with a sentence for a file that cannot be read, is not
    JSON, or whose ``"room"`` is not an object of the keys in :data:`ROOM_KEYS`
    with values of their types."""
    p = pathlib.Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read {p}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"{p} is not JSON ({exc})") from None
    room = data.get("room", {}) if isinstance(data, dict) else None
    if not isinstance(room, dict):
        raise ValueError(f"{p}: \"room\" must be an object")
    for key, value in room.items():
        kind = ROOM_KEYS.get(key)
        if kind is None:
            raise ValueError(f"{p}: unknown room setting {key!r} (known: {', '.join(ROOM_KEYS)})")
        if not isinstance(value, kind) or isinstance(value, bool):
            what = "whole number" if kind is int else "string"
            raise ValueError(f"{p}: room setting {key!r} must be a {what}, not {value!r}")
    return dict(room)


def merge_room_settings(given: dict[str, Any], *sources: dict[str, Any]) -> dict[str, Any]:
    """``given`` (the command line's values, ``None`` where not given) completed from
    ``sources`` in order (the first that has a key wins)."""
    out = dict(given)
    for key in ROOM_KEYS:
        if out.get(key) is None:
            out[key] = next((s[key] for s in sources if s.get(key) is not None), None)
    return out

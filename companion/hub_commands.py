"""Director commands: what the hub may ask of a table, checked and carried out on the table.

A command arrives on the table's ``command`` topic as a JSON object:
``id`` (the director's reference, echoed in the reply), ``token`` (the
director's access token), ``action`` and its arguments:

===================== =====================================================
``new_match``         ``settings``: as ``SessionApi.new_match`` (players, match_length, ...)
``set_dice``          ``dice``: two values 1-6 (correct a misread roll)
``set_position``      ``position_id``: a gnubg Position ID (correct a misread board)
``undo``              undo the last verdict or override
``confirm``           accept the board as it stands (an illegal play let stand)
``resign``            ``player`` 0/1, ``level`` 1-3
``answer_resignation`` ``accept`` true/false
===================== =====================================================

The token rules are the dashboard's (``web.security``): compared in constant
time; a command without a token or with a wrong one is refused and changes
nothing. Every command, carried out or refused, goes on the table's bus as a
:class:`DirectorCommandEvent`: the table's audit trail (and so its outbox and
the hub's list).
"""

from __future__ import annotations

import dataclasses
import hmac
from typing import Any, Callable, Optional

from companion.bus import Event

ACTIONS = ("new_match", "set_dice", "set_position", "undo", "confirm", "resign", "answer_resignation")
BY = "director"


@dataclasses.dataclass(frozen=True)
class DirectorCommandEvent(Event):
    """A director command received over the broker: ``command_id``, ``action``,
    ``accepted`` (carried out), ``error`` (why not, ``""`` when accepted),
    ``args`` (the arguments, without the token)."""

    type = "director_command"
    command_id: str = ""
    action: str = ""
    accepted: bool = False
    error: str = ""
    args: dict[str, Any] = dataclasses.field(default_factory=dict)


def token_matches(candidate: Any, expected: Optional[str]) -> bool:
    """True when ``candidate`` equals ``expected`` (constant-time; never for an empty one)."""
    if not isinstance(candidate, str) or not candidate or not expected:
        return False
    return hmac.compare_digest(candidate.encode("utf-8", "replace"), expected.encode("utf-8"))


def _player(value: Any) -> int:
    if value not in (0, 1) or isinstance(value, bool):
        raise ValueError(f"player must be 0 or 1, not {value!r}")
    return int(value)


def _dice(value: Any) -> tuple[int, int]:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in value)):
        raise ValueError(f"dice must be two values 1-6, not {value!r}")
    return int(value[0]), int(value[1])


def _run(session: Any, action: str, body: dict[str, Any]) -> None:
    if action == "new_match":
        settings = body.get("settings")
        if not isinstance(settings, dict):
            raise ValueError("new_match needs settings (a JSON object)")
        session.new_match(settings)
    elif action == "set_dice":
        session.set_dice(_dice(body.get("dice")), by=BY)
    elif action == "set_position":
        position_id = body.get("position_id")
        if not isinstance(position_id, str):
            raise ValueError("set_position needs a position_id")
        session.set_position(position_id, by=BY)
    elif action == "undo":
        session.undo(by=BY)
    elif action == "confirm":
        session.confirm(by=BY)
    elif action == "resign":
        level = body.get("level")
        if level not in (1, 2, 3) or isinstance(level, bool):
            raise ValueError(f"level must be 1, 2 or 3, not {level!r}")
        session.resign(_player(body.get("player")), int(level))
    elif action == "answer_resignation":
        accept = body.get("accept")
        if not isinstance(accept, bool):
            raise ValueError("answer_resignation needs accept: true or false")
        session.answer_resignation(accept)
    else:  # pragma: no cover - filtered by execute
        raise ValueError(f"unknown action {action!r}")


def execute(session: Any, command: dict[str, Any], token: Optional[str],
            publish: Callable[[Event], None]) -> dict[str, Any]:
    """Check and carry out ``command`` (a decoded payload) on ``session`` (a
    ``SessionApi``); ``token`` is the director's token (``None``: this table takes
    no commands). Publishes a :class:`DirectorCommandEvent` with ``publish`` and
    returns the reply: ``{"id", "action", "ok", "error"}``. Never raises for a bad
    command: a refusal is a reply with ``ok`` false and the reason."""
    command_id = command.get("id")
    command_id = command_id if isinstance(command_id, str) and len(command_id) <= 64 else ""
    action = command.get("action")
    action = action if isinstance(action, str) and len(action) <= 40 else ""
    args = {k: v for k, v in command.items() if k not in ("token", "id", "action")}
    if token is None:
        error = "this table takes no director commands (no token set)"
    elif "token" not in command:
        error = "this command needs the director's token"
    elif not token_matches(command.get("token"), token):
        error = "wrong access token"
    elif action not in ACTIONS:
        error = f"unknown action {action!r}"
    else:
        try:
            _run(session, action, args)
            error = ""
        except ValueError as exc:
            error = str(exc) or "refused"
    publish(DirectorCommandEvent(command_id=command_id, action=action, accepted=not error, error=error,
                                 args=args if not error or action in ACTIONS else {}))
    return {"id": command_id, "action": action, "ok": not error, "error": error}

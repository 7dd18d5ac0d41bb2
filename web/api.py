"""The JSON API: the state, and every action that changes the match (token + CSRF).

``GET /api/state`` is the session's whole state. Actions (all ``POST`` with a
JSON body, answered ``{"ok": true, "state": {...}}`` or ``{"error": "..."}``):

- ``/api/match/new``: the match settings (see :mod:`web.match_settings`);
- ``/api/resign``: ``{"player": 0|1, "level": 1|2|3}``;
- ``/api/resignation``: ``{"accept": true|false}``;
- ``/api/override/dice``: ``{"dice": [d1, d2]}``;
- ``/api/override/position``: ``{"position_id": "4HPwATDgc/ABMA"}``;
- ``/api/override/undo``: ``{}``;
- ``/api/override/accept``: ``{}``, accept the board as it stands while the
  referee waits for a correction (the opponent's option);
- ``/api/cube``: ``{"action": "double"|"take"|"drop", "player": 0|1}``.

The last two use the session's optional ``confirm``/``double``/``take``/``drop``
(501 when the session has none).

Bad input gets 400 with one sentence; a refusal by the session (its
``ValueError``) gets 409 with the session's sentence.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from flask import Blueprint, jsonify, request

from web.dashboard import dashboard
from web.match_settings import SettingsError, validate_settings
from web.security import may_view, require_token

bp = Blueprint("api", __name__, url_prefix="/api")

POSITION_ID = re.compile(r"^[A-Za-z0-9+/]{14}$")
BY = "dashboard"


class BadRequest(ValueError):
    """The request body is not what the route expects."""


def _error(status: int, message: str) -> Any:
    response = jsonify({"error": message})
    response.status_code = status
    return response


def _body() -> dict[str, Any]:
    if not request.is_json:
        raise BadRequest("send a JSON body (Content-Type: application/json)")
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadRequest("the body must be a JSON object")
    return data


def _act(action: Callable[[dict[str, Any]], None]) -> Any:
    try:
        body = _body()
        action(body)
    except (BadRequest, SettingsError) as exc:
        return _error(400, str(exc))
    except ValueError as exc:
        return _error(409, str(exc) or "the session refused this action")
    return jsonify({"ok": True, "state": dashboard().session.state()})


def _player(body: dict[str, Any], key: str = "player") -> int:
    value = body.get(key)
    if isinstance(value, bool) or value not in (0, 1):
        raise BadRequest(f"{key} must be 0 (bottom) or 1 (top)")
    return int(value)


@bp.get("/state")
def state() -> Any:
    """The session's whole current state as JSON."""
    if not may_view():
        return _error(401, "viewing needs the access token")
    return jsonify(dashboard().session.state())


@bp.post("/match/new")
@require_token
def new_match() -> Any:
    """Start a new match with validated settings."""

    def action(body: dict[str, Any]) -> None:
        settings = validate_settings(body)
        dashboard().session.new_match(settings)
        dashboard().tracker.new_match()

    return _act(action)


@bp.post("/resign")
@require_token
def resign() -> Any:
    """``player`` offers to resign at ``level`` (1 single, 2 gammon, 3 backgammon)."""

    def action(body: dict[str, Any]) -> None:
        player = _player(body)
        level = body.get("level")
        if isinstance(level, bool) or level not in (1, 2, 3):
            raise BadRequest("level must be 1 (single), 2 (gammon) or 3 (backgammon)")
        dashboard().session.resign(player, int(level))

    return _act(action)


@bp.post("/resignation")
@require_token
def answer_resignation() -> Any:
    """The opponent accepts (``true``) or refuses (``false``) the pending resignation."""

    def action(body: dict[str, Any]) -> None:
        accept = body.get("accept")
        if not isinstance(accept, bool):
            raise BadRequest("accept must be true or false")
        dashboard().session.answer_resignation(accept)

    return _act(action)


@bp.post("/override/dice")
@require_token
def set_dice() -> Any:
    """Override a misread roll: ``{"dice": [d1, d2]}`` with values 1-6."""

    def action(body: dict[str, Any]) -> None:
        dice = body.get("dice")
        if (
            not isinstance(dice, list)
            or len(dice) != 2
            or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in dice)
        ):
            raise BadRequest("dice must be two whole numbers from 1 to 6, like [3, 1]")
        dashboard().session.set_dice((dice[0], dice[1]), by=BY)

    return _act(action)


@bp.post("/override/position")
@require_token
def set_position() -> Any:
    """Override a misread board with a gnubg Position ID (14 characters)."""

    def action(body: dict[str, Any]) -> None:
        pid = body.get("position_id")
        if not isinstance(pid, str) or not POSITION_ID.match(pid.strip()):
            raise BadRequest("position_id must be a gnubg Position ID: 14 characters of A-Z a-z 0-9 + /")
        dashboard().session.set_position(pid.strip(), by=BY)

    return _act(action)


@bp.post("/override/undo")
@require_token
def undo() -> Any:
    """Undo the last verdict or override."""

    def action(_body: dict[str, Any]) -> None:
        dashboard().session.undo(by=BY)

    return _act(action)


def _optional(name: str) -> Any:
    method = getattr(dashboard().session, name, None)
    if method is None:
        raise NotSupported(f"this session cannot {name.replace('_', ' ')} from the dashboard")
    return method


class NotSupported(Exception):
    """The session does not offer this optional action."""


@bp.post("/override/accept")
@require_token
def accept_board() -> Any:
    """Accept the board as it stands while the referee waits for a correction."""

    def action(_body: dict[str, Any]) -> None:
        _optional("confirm")(by=BY)

    try:
        return _act(action)
    except NotSupported as exc:
        return _error(501, str(exc))


@bp.post("/cube")
@require_token
def cube() -> Any:
    """A cube action: ``{"action": "double"|"take"|"drop", "player": 0|1}``."""

    def action(body: dict[str, Any]) -> None:
        name = body.get("action")
        if name not in ("double", "take", "drop"):
            raise BadRequest("action must be double, take or drop")
        player = _player(body)
        _optional(name)(player, by=BY)

    try:
        return _act(action)
    except NotSupported as exc:
        return _error(501, str(exc))

"""Validation of the settings of a new match (``POST /api/match/new``).

Keys and values follow :meth:`companion.session_api.SessionApi.new_match`.
Unknown keys and wrong types are refused with a sentence naming the field.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Mapping

MAX_NAME = 40
MAX_MATCH_LENGTH = 64
POLICIES = {
    "illegal_play_policy": ("mandatory_correction", "opponent_option"),
    "die_on_checker": ("cocked", "flat_ok"),
    "mode": ("teaching", "tournament"),
}
DEFAULTS: dict[str, Any] = {
    "players": ["Player 0", "Player 1"],
    "match_length": 5,
    "jacoby": False,
    "beavers": False,
    "automatic_doubles": False,
    "illegal_play_policy": "mandatory_correction",
    "die_on_checker": "flat_ok",
    "mode": "tournament",
}


class SettingsError(ValueError):
    """A new-match setting is missing, of the wrong type or out of range."""


def _name(value: Any, index: int) -> str:
    if not isinstance(value, str):
        raise SettingsError(f"players[{index}] must be a name (text)")
    name = " ".join(value.split())
    if not name:
        raise SettingsError(f"players[{index}] must not be empty")
    if len(name) > MAX_NAME:
        raise SettingsError(f"players[{index}] is longer than {MAX_NAME} characters")
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise SettingsError(f"players[{index}] holds control characters")
    return name


def validate_settings(raw: Any) -> dict[str, Any]:
    """The settings with defaults filled in, or :class:`SettingsError`.

    ``players``: two names (1-40 printable characters, distinct);
    ``match_length``: integer 0-64 (0 = money game); ``jacoby``, ``beavers``:
    booleans; ``automatic_doubles``: boolean or a limit 0-6; policies and
    ``mode`` from :data:`POLICIES`. Money-game options (``jacoby``,
    ``beavers``, ``automatic_doubles``) are refused in match play.
    """
    if not isinstance(raw, Mapping):
        raise SettingsError("the body must be a JSON object with the match settings")
    unknown = sorted(set(raw) - set(DEFAULTS))
    if unknown:
        raise SettingsError(f"unknown setting {unknown[0]!r}")
    out = dict(DEFAULTS)
    if "players" in raw:
        players = raw["players"]
        if not isinstance(players, (list, tuple)) or len(players) != 2:
            raise SettingsError("players must be a list of two names")
        names = [_name(players[0], 0), _name(players[1], 1)]
        if names[0].casefold() == names[1].casefold():
            raise SettingsError("the two players need different names")
        out["players"] = names
    if "match_length" in raw:
        length = raw["match_length"]
        if isinstance(length, bool) or not isinstance(length, int):
            raise SettingsError("match_length must be a whole number (0 for a money game)")
        if not 0 <= length <= MAX_MATCH_LENGTH:
            raise SettingsError(f"match_length must be between 0 (money) and {MAX_MATCH_LENGTH}")
        out["match_length"] = length
    for key in ("jacoby", "beavers"):
        if key in raw:
            if not isinstance(raw[key], bool):
                raise SettingsError(f"{key} must be true or false")
            out[key] = raw[key]
    if "automatic_doubles" in raw:
        value = raw["automatic_doubles"]
        if not isinstance(value, (bool, int)) or (not isinstance(value, bool) and not 0 <= value <= 6):
            raise SettingsError("automatic_doubles must be true, false or a limit from 0 to 6")
        out["automatic_doubles"] = value
    for key, allowed in POLICIES.items():
        if key in raw:
            if raw[key] not in allowed:
                raise SettingsError(f"{key} must be one of: {', '.join(allowed)}")
            out[key] = raw[key]
    if out["match_length"] > 0:
        for key in ("jacoby", "beavers", "automatic_doubles"):
            if out[key]:
                raise SettingsError(f"{key} applies to money games only (match_length 0)")
    return out

"""What the dashboard remembers from the bus: the current alert, the score sheet, the audit trail.

The session's ``state()`` is the truth about the board; the :class:`Tracker`
fills in what a snapshot does not carry: whether the last roll was cocked,
the games finished since the dashboard started (when the state has no
``games`` list of its own), who overrode what and when.
"""

from __future__ import annotations

import threading
from typing import Any, Optional

from companion.bus import Event, EventBus

_ALERT_CLEARERS = {"roll", "game_end"}


class Tracker:
    """Follows bus events; every accessor returns copies (thread-safe).

    ``verdict``: the newest ``verdict`` event as a dict (``None`` before one);
    ``cocked``: the newest ``cocked_dice`` event until the next roll, verdict,
    new turn to play, or game end; ``games``: ``game_end`` events in order;
    ``overrides``: ``override`` events in order (the audit trail);
    ``in_progress``: the play being made (its newest ``in_progress`` verdict); ``devices``:
    the newest camera, board-reading and LED-link status; ``analysis``: gnubg's
    newest judgement of a play and of a cube decision (``analysis`` events, teaching mode).
    """

    def __init__(self, bus: EventBus) -> None:
        self._lock = threading.Lock()
        self._verdict: Optional[dict[str, Any]] = None
        self._cocked: Optional[dict[str, Any]] = None
        self._games: list[dict[str, Any]] = []
        self._overrides: list[dict[str, Any]] = []
        self._resignation: Optional[dict[str, Any]] = None
        self._devices: dict[str, dict[str, Any]] = {}
        self._in_progress: Optional[dict[str, Any]] = None
        self._analysis: dict[str, dict[str, Any]] = {}
        self._unsubscribe = bus.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        kind = event.type
        if kind not in {"verdict", "cocked_dice", "roll", "game_end", "override", "resignation", "turn",
                        "source", "board", "link", "analysis"}:
            return
        data = event.to_dict()
        with self._lock:
            if kind == "analysis":
                self._analysis[data["kind"]] = data
                self._analysis["latest"] = data
                return
            if kind in ("source", "board", "link"):
                self._devices[kind] = data
                return
            if kind == "verdict":
                if data.get("verdict") == "in_progress":
                    self._in_progress = data
                elif data.get("verdict") != "no_change":
                    self._verdict = data
                    self._in_progress = None
                self._cocked = None
                return
            self._in_progress = None
            if kind == "cocked_dice":
                self._cocked = data
            elif kind in _ALERT_CLEARERS:
                self._cocked = None
                if kind == "game_end":
                    self._games.append(data)
                    self._verdict = None
                    self._resignation = None
            elif kind == "turn":
                if data.get("waiting_for") in ("play", "opening_roll", "game_over"):
                    self._cocked = None
            elif kind == "override":
                self._overrides.append(data)
            elif kind == "resignation":
                self._resignation = data if data.get("action") == "offer" else None

    def new_match(self) -> None:
        """Forget the previous match's verdict, alert, games and resignation."""
        with self._lock:
            self._verdict = None
            self._cocked = None
            self._games = []
            self._resignation = None
            self._analysis = {}

    @property
    def verdict(self) -> Optional[dict[str, Any]]:
        """The newest judged verdict (not in progress), or None."""
        with self._lock:
            return dict(self._verdict) if self._verdict else None

    @property
    def cocked(self) -> Optional[dict[str, Any]]:
        """The cocked-dice event still in force, or None."""
        with self._lock:
            return dict(self._cocked) if self._cocked else None

    @property
    def games(self) -> list[dict[str, Any]]:
        """The finished games, in order."""
        with self._lock:
            return [dict(g) for g in self._games]

    @property
    def overrides(self) -> list[dict[str, Any]]:
        """The override events, in order (the audit trail)."""
        with self._lock:
            return [dict(o) for o in self._overrides]

    @property
    def resignation(self) -> Optional[dict[str, Any]]:
        """The pending resignation offer, or None."""
        with self._lock:
            return dict(self._resignation) if self._resignation else None

    @property
    def in_progress(self) -> Optional[dict[str, Any]]:
        """The newest ``in_progress`` verdict of the play being made, until the
        play is judged or anything else happens (a roll, a turn, a game end)."""
        with self._lock:
            return dict(self._in_progress) if self._in_progress else None

    @property
    def devices(self) -> dict[str, dict[str, Any]]:
        """The newest ``source`` (camera), ``board`` (stability filter) and
        ``link`` (LED board) events, by type."""
        with self._lock:
            return {k: dict(v) for k, v in self._devices.items()}

    @property
    def analysis(self) -> dict[str, dict[str, Any]]:
        """gnubg's newest ``analysis`` events: by kind (``"play"``, ``"cube"``)
        and the newest of all (``"latest"``); empty before the first."""
        with self._lock:
            return {k: dict(v) for k, v in self._analysis.items()}

    def close(self) -> None:
        """Stop following the bus."""
        self._unsubscribe()

"""A small in-process SessionApi for the dashboard's route tests (not a referee).

It keeps a state dict shaped like ``companion.session_api.SessionApi.state()``,
publishes the shared events on a real :class:`~companion.bus.EventBus` when
something changes, and records every call, so route tests can check what the
dashboard asked of the session. Games are scripted by the tests through
:meth:`StubSession.publish_verdict` and friends. The real-process browser tests
use ``companion watch --source demo --web`` instead.
"""

from __future__ import annotations

import threading
from typing import Any, Optional

from companion.bus import EventBus
from companion.events import (
    CockedDiceEvent,
    CubeEvent,
    GameEndEvent,
    OverrideEvent,
    ResignationEvent,
    RollEvent,
    TurnEvent,
    VerdictEvent,
)

START_ID = "4HPwATDgc/ABMA"
# The starting position from the view of the player on roll (index 25 own bar, 0 minus the opponent's).
START = (0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0)


class StubSession:
    """In-memory stand-in for the referee's session, driven by the tests."""

    def __init__(self, bus: Optional[EventBus] = None, frame: Optional[bytes] = None) -> None:
        self.bus = bus or EventBus()
        self.calls: list[tuple[str, Any]] = []
        self.frame = frame
        self._lock = threading.Lock()
        self._state: dict[str, Any] = {
            "position": {"signed": list(START), "diagram": "(start)"},
            "position_id": START_ID,
            "match_id": "cAkAAAAAAAAA",
            "dice": None,
            "cube": {"value": 1, "owner": None, "place": "centre"},
            "score": [0, 0],
            "match_length": 5,
            "crawford": False,
            "turn": 0,
            "waiting_for": "roll",
            "last_verdict": None,
            "settings": {"players": ["Alice", "Bob"], "mode": "teaching", "match_length": 5},
            "legal_plays": None,
            "games": [],
        }

    # -- SessionApi --
    def state(self) -> dict[str, Any]:
        with self._lock:
            return {k: (list(v) if isinstance(v, list) else v) for k, v in self._state.items()}

    def new_match(self, settings: dict[str, Any]) -> None:
        self.calls.append(("new_match", settings))
        if settings.get("players", [""])[0] == "Refuse":
            raise ValueError("the session refuses this match")
        with self._lock:
            self._state.update(
                settings={**settings},
                match_length=settings["match_length"],
                score=[0, 0],
                games=[],
                last_verdict=None,
                position={"signed": list(START), "diagram": "(start)"},
                position_id=START_ID,
                turn=None,
                waiting_for="opening_roll",
                dice=None,
            )
        self.bus.publish(TurnEvent(player=None, waiting_for="opening_roll", position_id=START_ID))

    def resign(self, player: int, level: int) -> None:
        self.calls.append(("resign", (player, level)))
        with self._lock:
            self._state["resignation"] = {"player": player, "level": level}
        self.bus.publish(ResignationEvent(action="offer", player=player, level=level))

    def answer_resignation(self, accept: bool) -> None:
        self.calls.append(("answer_resignation", accept))
        with self._lock:
            pending = self._state.pop("resignation", None)
        if pending is None:
            raise ValueError("no resignation is pending")
        player, level = pending["player"], pending["level"]
        self.bus.publish(ResignationEvent(action="accept" if accept else "refuse", player=1 - player, level=level))
        if accept:
            self.finish_game(winner=1 - player, points=level, kind="resign", level=level)

    def set_dice(self, dice: tuple[int, int], by: str) -> None:
        self.calls.append(("set_dice", (tuple(dice), by)))
        with self._lock:
            self._state["dice"] = list(dice)
        self.bus.publish(OverrideEvent(action="set_dice", by=by, detail={"dice": list(dice)}))

    def set_position(self, position_id: str, by: str) -> None:
        self.calls.append(("set_position", (position_id, by)))
        if position_id != START_ID:
            raise ValueError(f"position ID {position_id} does not decode to a legal board")
        self.bus.publish(OverrideEvent(action="set_position", by=by, detail={"position_id": position_id}))

    def undo(self, by: str) -> None:
        self.calls.append(("undo", by))
        self.bus.publish(OverrideEvent(action="undo", by=by, detail={}))

    def match_record(self) -> str:
        with self._lock:
            names = self._state["settings"].get("players", ["Alice", "Bob"])
            length = self._state["match_length"]
        return f" {length} point match\n\n Game 1\n {names[0]} : 0                 {names[1]} : 0\n  1) 31: 8/5 6/5\n"

    def latest_frame_jpeg(self) -> Optional[bytes]:
        return self.frame

    # -- optional actions of the real session --
    def double(self, player: int, by: str) -> None:
        self.calls.append(("double", (player, by)))
        if self._state["cube"]["owner"] not in (None, player):
            raise ValueError("only the cube's owner may redouble")
        with self._lock:
            self._state["cube"] = {"value": self._state["cube"]["value"], "owner": None, "offered": True}
        self.bus.publish(CubeEvent(action="double", player=player, value=2))

    def confirm(self, by: str) -> None:
        self.calls.append(("confirm", by))
        raise ValueError("no illegal play waits for a correction")

    # -- scripting helpers for tests --
    def set_mode(self, mode: str) -> None:
        with self._lock:
            self._state["settings"] = {**self._state["settings"], "mode": mode}

    def roll(self, player: int, dice: tuple[int, int]) -> None:
        with self._lock:
            self._state.update(dice=list(dice), turn=player, waiting_for="play")
        self.bus.publish(RollEvent(player=player, dice=dice))

    def cocked(self, player: int, dice: tuple[int, int]) -> None:
        self.bus.publish(
            CockedDiceEvent(
                player=player, dice=dice, reasons=({"code": "tilted", "message": "The left die leans on a checker."},)
            )
        )

    def publish_verdict(self, verdict: str, **fields: Any) -> None:
        event = VerdictEvent(verdict=verdict, **fields)
        with self._lock:
            self._state["last_verdict"] = event.to_dict()
            self._state["waiting_for"] = "correction" if verdict == "illegal" else "roll"
            if "signed" in fields:
                pass
        self.bus.publish(event)

    def set_signed(self, signed: list[int], turn: int = 0) -> None:
        with self._lock:
            self._state["position"] = {"signed": list(signed), "diagram": ""}
            self._state["turn"] = turn

    def finish_game(self, winner: int, points: int, kind: str = "single", level: int = 1) -> None:
        with self._lock:
            score = list(self._state["score"])
            score[winner] += points
            game = {"number": len(self._state["games"]) + 1, "winner": winner, "points": points,
                    "kind": kind, "level": level, "cube": 1, "crawford": False, "score": score}
            self._state["games"] = self._state["games"] + [game]
            self._state["score"] = score
        self.bus.publish(GameEndEvent(winner=winner, points=points, kind=kind, score=tuple(score)))

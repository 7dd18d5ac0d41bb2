"""A match (to N points) or a money session: score, cube, Crawford, game flow.

:class:`Match` is the state machine the referee drives. Every change goes
through :meth:`Match.apply` with a plain, JSON-ready *action* dict, so the
match log can store the actions and rebuild the state by replaying them; the
named methods (:meth:`opening_roll`, :meth:`roll`, :meth:`play`,
:meth:`double`, :meth:`take`, :meth:`drop`, :meth:`beaver`, :meth:`resign`,
:meth:`accept`, :meth:`refuse`, :meth:`correct`, :meth:`undo`) build that dict
and call :meth:`apply`. Each returns the bus events it caused
(:mod:`companion.events`), and raises :class:`MatchError` (a ``ValueError``)
without changing anything when the action is illegal.

Players are 0 and 1 (as gnubg: player 0 is the left column of a ``.mat``
file). ``position`` is always seen from the player on roll, as gnubg's
Position ID. The Crawford state is *stored*: ``crawford`` is true for the one
game after a player first reaches N-1 points (and at the end of the game that
made it so, as gnubg's Match ID), ``post_crawford`` once that game is over;
neither can be derived from the score alone.

Rules: standard backgammon rules (opening roll: one die each, ties rolled
again, the higher die moves first with both numbers), cube rules in
:mod:`companion.cube`, scoring in :mod:`companion.scoring`, legal plays from
:func:`companion.legal.legal_plays` (the most dice, then the most pips).
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Iterable, Optional, Sequence

from companion import events as ev
from companion.cube import MAX_CUBE, Cube, CubeError, CubeRules
from companion.match_id import MatchKey
from companion import scoring

#: gnubg's Position ID of the starting position.
START_POSITION_ID = "4HPwATDgc/ABMA"

OPENING_ROLL = "opening_roll"
ROLL = "roll"
PLAY = "play"
CUBE_RESPONSE = "cube_response"
RESIGNATION_RESPONSE = "resignation_response"
GAME_OVER = "game_over"
MATCH_OVER = "match_over"

ACTION_TYPES = (
    "setup", "opening_roll", "roll", "play", "double", "take", "drop", "beaver",
    "resign", "accept", "refuse", "correction", "undo",
)


class MatchError(ValueError):
    """An action that the rules (or the match's state) do not allow."""


@dataclasses.dataclass(frozen=True)
class MatchRules:
    """Options of a match or money session.

    ``crawford``: play the Crawford game (match play). ``beavers``: beavers (and
    raccoons) allowed per double in money play (0 = none). ``jacoby``: the Jacoby
    rule in money play. ``automatic_doubles``: limit of automatic doubles on
    equal opening rolls in money play (0 = off). ``max_cube``: the largest cube value.
    """

    crawford: bool = True
    beavers: int = 0
    jacoby: bool = False
    automatic_doubles: int = 0
    max_cube: int = MAX_CUBE

    def cube_rules(self, money: bool) -> CubeRules:
        """The :class:`~companion.cube.CubeRules` for money play or match play."""
        return CubeRules(
            money=money,
            beavers=self.beavers if money else 0,
            jacoby=self.jacoby and money,
            automatic_doubles=self.automatic_doubles if money else 0,
            max_cube=self.max_cube,
        )

    def to_dict(self) -> dict[str, Any]:
        """The rules as a JSON-ready dict (inverse of :meth:`from_dict`)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "MatchRules":
        """Rules from :meth:`to_dict` output; unknown keys raise ``ValueError``."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown match rule(s): {', '.join(sorted(unknown))}")
        return cls(**data)


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """One finished game, as a score sheet line.

    ``winner`` 0/1; ``points`` won (cube included); ``kind`` ``"single"``,
    ``"gammon"``, ``"backgammon"`` (played out), ``"drop"`` or ``"resign"``;
    ``level`` 1-3 (the resignation's level for ``"resign"``, 1 for ``"drop"``);
    ``cube`` the cube value at the end; ``crawford`` whether it was the Crawford
    game; ``score_before``/``score_after`` (player 0, player 1).
    """

    number: int
    winner: int
    points: int
    kind: str
    level: int
    cube: int
    crawford: bool
    score_before: tuple[int, int]
    score_after: tuple[int, int]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the record."""
        out = dataclasses.asdict(self)
        out["score_before"] = list(self.score_before)
        out["score_after"] = list(self.score_after)
        return out


def _position_module():
    # Imported lazily so that the cube/score parts work without the rules engine.
    from companion import position as position_module

    return position_module


def start_position():
    """The starting :class:`~companion.position.Position` (gnubg ``4HPwATDgc/ABMA``)."""
    return _position_module().Position.from_position_id(START_POSITION_ID)


def _position_id(position) -> str:
    return position.position_id()


def _signed(position) -> list[int]:
    return list(position.to_signed())


def _all_borne_off(position) -> bool:
    signed = _signed(position)
    return signed[25] <= 0 and all(v <= 0 for v in signed[1:25])


def _check_player(player: Any) -> int:
    if player not in (0, 1) or isinstance(player, bool):
        raise MatchError(f"a player is 0 or 1, got {player!r}")
    return int(player)


def _check_dice(dice: Any) -> tuple[int, int]:
    try:
        a, b = (int(d) for d in dice)
    except (TypeError, ValueError):
        raise MatchError(f"dice are two numbers 1-6, got {dice!r}") from None
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise MatchError(f"dice are two numbers 1-6, got {dice!r}")
    return a, b


class Match:
    """A match to ``length`` points (``length`` 0: a money session).

    ``players``: two names (player 0, player 1). ``rules``: :class:`MatchRules`.
    Raises ``ValueError`` for a negative length.

    State (read-only attributes/properties): ``score`` (tuple), ``cube``
    (:class:`~companion.cube.Cube`), ``cube_value``, ``cube_owner``,
    ``crawford`` (the current or, once a game is over, the next game is the
    Crawford game; gnubg's Match ID bit), ``game_crawford`` (the game in
    progress is the Crawford game: no doubling), ``post_crawford``, ``note`` (a
    legal but pointless double), ``phase`` (``"opening_roll"``, ``"roll"``,
    ``"play"``, ``"cube_response"``, ``"resignation_response"``,
    ``"game_over"``, ``"match_over"``), ``on_roll`` (player whose turn it is, or
    ``None`` before the opening roll), ``turn`` (player who must act now),
    ``dice``, ``position`` (from ``on_roll``'s view), ``game_number``,
    ``games`` (finished :class:`GameRecord` list), ``winner`` (match winner or
    ``None``), ``actions`` (every applied action dict), :meth:`match_id`,
    :meth:`position_id`, :meth:`legal_plays`.
    """

    def __init__(
        self,
        length: int = 0,
        *,
        players: Sequence[str] = ("Player 0", "Player 1"),
        rules: Optional[MatchRules] = None,
    ) -> None:
        if not isinstance(length, int) or length < 0:
            raise ValueError(f"match length must be an integer >= 0, got {length!r}")
        if len(players) != 2:
            raise ValueError("a match has two players")
        self.length = length
        self.players = (str(players[0]), str(players[1]))
        self.rules = rules or MatchRules()
        self.actions: list[dict[str, Any]] = []
        self._reset()

    # ------------------------------------------------------------------ set-up

    def _reset(self) -> None:
        self.score = (0, 0)
        self.crawford = False
        self.post_crawford = False
        self.games: list[GameRecord] = []
        self.game_number = 0
        self.game_actions: list[dict[str, Any]] = []
        self._start_game()

    def _start_game(self) -> None:
        self.game_number += 1
        self.game_actions = []
        self.cube = Cube()
        self.position = None  # set lazily: the rules engine is only needed for plays
        self.on_roll: Optional[int] = None
        self.turn: Optional[int] = None
        self.dice: Optional[tuple[int, int]] = None
        self.phase = OPENING_ROLL
        self.resigned = 0
        self.resigner: Optional[int] = None
        self._phase_before_resign: Optional[str] = None
        self._turn_before_resign: Optional[int] = None
        self.auto_doubles = 0
        self.game_crawford = self.crawford
        self._end_state = "playing"
        self.note: Optional[str] = None

    def config(self) -> dict[str, Any]:
        """``{"length", "players", "rules"}``: what :meth:`from_config` needs."""
        return {"length": self.length, "players": list(self.players), "rules": self.rules.to_dict()}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> "Match":
        """A new match from :meth:`config` output. Raises ``ValueError`` if malformed."""
        try:
            return cls(
                int(config["length"]),
                players=tuple(config.get("players", ("Player 0", "Player 1"))),
                rules=MatchRules.from_dict(dict(config.get("rules", {}))),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"malformed match config: {exc}") from None

    @classmethod
    def replay(cls, config: dict[str, Any], actions: Iterable[dict[str, Any]]) -> "Match":
        """Rebuild a match by applying ``actions`` in order to a new match.

        Raises :class:`MatchError` at the first action that does not apply,
        with its index in the message.
        """
        match = cls.from_config(config)
        for index, action in enumerate(actions):
            try:
                match.apply(action)
            except MatchError as exc:
                raise MatchError(f"action {index + 1} ({action.get('type')!r}): {exc}") from None
        return match

    # ----------------------------------------------------------------- queries

    @property
    def money(self) -> bool:
        """True for a money session (``length`` 0)."""
        return self.length == 0

    @property
    def cube_rules(self) -> CubeRules:
        """The cube rules in force."""
        return self.rules.cube_rules(self.money)

    @property
    def cube_value(self) -> int:
        """The agreed cube value (a pending double not included)."""
        return self.cube.value

    @property
    def cube_owner(self) -> Optional[int]:
        """0, 1, or ``None`` for a centred cube."""
        return self.cube.owner

    @property
    def over(self) -> bool:
        """True when the match has been won (never for a money session)."""
        return self.phase == MATCH_OVER

    @property
    def winner(self) -> Optional[int]:
        """The match winner, or ``None`` while the match goes on."""
        if not self.over:
            return None
        return 0 if self.score[0] >= self.length else 1

    def _ensure_position(self):
        if self.position is None:
            self.position = start_position()
        return self.position

    def position_id(self) -> str:
        """gnubg Position ID of the board, from the view of the player on roll."""
        return _position_id(self._ensure_position())

    def match_id(self) -> str:
        """gnubg Match ID (12 characters) of the current state."""
        return self.match_key().encode()

    def match_key(self) -> MatchKey:
        """The state as a :class:`~companion.match_id.MatchKey` (what the Match ID holds)."""
        over = self.phase in (GAME_OVER, MATCH_OVER)
        dice_owner = self.on_roll if self.on_roll is not None else 0
        turn = self.turn if self.turn is not None else dice_owner
        return MatchKey(
            cube=self.cube.value,
            cube_owner=self.cube.owner,
            dice_owner=dice_owner,
            crawford=self.crawford,
            game_state=self._end_state if over else "playing",
            turn=turn,
            doubled=self.cube.offered,
            resigned=self.resigned,
            dice=self.dice if (self.phase == PLAY and self.dice) else (0, 0),
            match_to=self.length,
            score=self.score,
            jacoby_off=not self.cube_rules.jacoby,
        )

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON-ready data: ``match_length``, ``players``, ``score``,
        ``game_number``, ``phase``, ``on_roll``, ``turn``, ``dice``, ``cube``
        (``value``, ``owner``, ``offered``, ``pending_value``), ``crawford``,
        ``post_crawford``, ``resignation`` (``player``, ``level``, or ``None``),
        ``position`` (26 signed ints, the on-roll player's view), ``position_id``,
        ``match_id``, ``games`` (score sheet), ``over``, ``winner``, ``note``."""
        position = self._ensure_position()
        return {
            "match_length": self.length,
            "players": list(self.players),
            "score": list(self.score),
            "game_number": self.game_number,
            "phase": self.phase,
            "on_roll": self.on_roll,
            "turn": self.turn,
            "dice": list(self.dice) if self.dice else None,
            "cube": {"value": self.cube.value, "owner": self.cube.owner,
                     "offered": self.cube.offered, "pending_value": self.cube.pending_value},
            "crawford": self.crawford,
            "post_crawford": self.post_crawford,
            "resignation": ({"player": self.resigner, "level": self.resigned}
                            if self.phase == RESIGNATION_RESPONSE else None),
            "position": _signed(position),
            "position_id": _position_id(position),
            "match_id": self.match_id(),
            "games": [g.to_dict() for g in self.games],
            "over": self.over,
            "winner": self.winner,
            "note": self.note,
            "rules": self.rules.to_dict(),
        }

    def away(self) -> tuple[int, int]:
        """Points each player still needs (match play); raises ``MatchError`` for money play."""
        if self.money:
            raise MatchError("a money session has no away score")
        return (self.length - self.score[0], self.length - self.score[1])

    def legal_plays(self):
        """The :class:`~companion.legal.LegalPlays` view for the dice rolled (one
        :class:`~companion.play.Play` per resulting position; empty when the player
        cannot move), or an empty list when no dice are rolled."""
        if self.phase != PLAY or self.dice is None:
            return []
        from companion.legal import legal_plays

        return legal_plays(self._ensure_position(), self.dice)

    def is_legal_result(self, after) -> bool:
        """True if ``after`` (mover's view) is the result of a legal play of the dice
        rolled; when no checker can move, only the unchanged position is."""
        view = self.legal_plays()
        if self.phase != PLAY:
            return False
        if not view:
            return _position_id(after) == _position_id(self.position)
        return after in view

    def can_double(self, player: int) -> bool:
        """True if ``player`` may double now."""
        return self.double_error(player) is None

    def double_error(self, player: int) -> Optional[str]:
        """Why ``player`` may not double now, or ``None``."""
        if self.phase not in (ROLL, PLAY):
            return f"no double possible now (waiting for {self.phase.replace('_', ' ')})"
        return self.cube.double_error(
            player,
            on_roll=self.on_roll,
            rolled=self.phase == PLAY,
            crawford=self.game_crawford,
            rules=self.cube_rules,
        )

    # ----------------------------------------------------------------- actions

    def opening_roll(self, dice: Sequence[int]) -> list[ev.Event]:
        """The opening roll: ``dice[0]`` is player 0's die, ``dice[1]`` player 1's.

        Equal dice are rolled again (with an automatic double when enabled); else
        the player with the higher die moves first with both numbers. Also starts
        the next game after a game is over.
        """
        return self.apply({"type": "opening_roll", "dice": list(dice)})

    def roll(self, dice: Sequence[int], player: Optional[int] = None) -> list[ev.Event]:
        """The player on roll (``player``, if given, is checked) rolls ``dice``."""
        action: dict[str, Any] = {"type": "roll", "dice": list(dice)}
        if player is not None:
            action["player"] = player
        return self.apply(action)

    def play(self, play: Any, player: Optional[int] = None, *,
             notation: Optional[str] = None) -> list[ev.Event]:
        """The player on roll makes a play.

        ``play``: the resulting :class:`~companion.position.Position` (mover's view,
        before the turn passes), a :class:`~companion.play.Play` from
        :meth:`legal_plays`, or a notation string (``"24/18 13/11*"``, ``""`` for
        no move). ``notation``: the play as written (kept for the match record).
        Raises :class:`MatchError` if it is not a legal play.
        """
        after = self._result_of(play)
        action: dict[str, Any] = {"type": "play", "position_id": _position_id(after)}
        if notation is not None:
            action["notation"] = notation
        elif isinstance(play, str):
            action["notation"] = play
        elif hasattr(play, "notation"):
            notation = play.notation
            action["notation"] = notation() if callable(notation) else notation
        if player is not None:
            action["player"] = player
        return self.apply(action)

    def double(self, player: int) -> list[ev.Event]:
        """``player`` doubles (before rolling, on his own turn)."""
        return self.apply({"type": "double", "player": player})

    def take(self, player: int) -> list[ev.Event]:
        """``player`` takes the pending double or beaver."""
        return self.apply({"type": "take", "player": player})

    def drop(self, player: int) -> list[ev.Event]:
        """``player`` drops: the game ends, the doubler wins the cube's value before the double."""
        return self.apply({"type": "drop", "player": player})

    def beaver(self, player: int) -> list[ev.Event]:
        """``player`` beavers (or raccoons) the pending double (money play, if allowed)."""
        return self.apply({"type": "beaver", "player": player})

    def resign(self, player: int, level: int = 1) -> list[ev.Event]:
        """``player`` offers to resign at ``level`` (1 single, 2 gammon, 3 backgammon)."""
        return self.apply({"type": "resign", "player": player, "level": level})

    def accept(self, player: int) -> list[ev.Event]:
        """``player`` accepts the opponent's resignation: the game ends."""
        return self.apply({"type": "accept", "player": player})

    def refuse(self, player: int) -> list[ev.Event]:
        """``player`` refuses the opponent's resignation: play goes on."""
        return self.apply({"type": "refuse", "player": player})

    def correct(
        self,
        position: Any,
        *,
        on_roll: int,
        dice: Optional[Sequence[int]] = None,
        reason: str = "",
    ) -> list[ev.Event]:
        """The referee sets the board: ``position`` (a Position or Position ID, from
        ``on_roll``'s view), whose turn it is, and the dice (``None``: not rolled).
        The cube and the score are unchanged. Logged like any other action."""
        pid = position if isinstance(position, str) else _position_id(position)
        action: dict[str, Any] = {"type": "correction", "position_id": pid, "on_roll": on_roll,
                                  "dice": list(dice) if dice else None, "reason": reason}
        return self.apply(action)

    def set_dice(self, dice: Sequence[int], *, reason: str = "dice corrected") -> list[ev.Event]:
        """Override the dice of the player on roll (a misread roll); logged as a correction."""
        self._require_phase(ROLL, PLAY)
        return self.correct(self._ensure_position(), on_roll=self.on_roll, dice=dice, reason=reason)

    def set_position(self, position: Any, *, reason: str = "position corrected") -> list[ev.Event]:
        """Override the board (a Position or Position ID, the player on roll's view),
        keeping the turn and the dice; logged as a correction."""
        self._require_phase(ROLL, PLAY)
        return self.correct(position, on_roll=self.on_roll, dice=self.dice, reason=reason)

    def undo(self) -> list[ev.Event]:
        """Take back the last action (not a set-up); raises :class:`MatchError` if none."""
        return self.apply({"type": "undo"})

    # ------------------------------------------------------------------ apply

    def apply(self, action: dict[str, Any]) -> list[ev.Event]:
        """Apply one action dict (see the module doc) and record it in ``actions``.

        Returns the events it caused. Raises :class:`MatchError` (state unchanged)
        when the action is malformed or illegal.
        """
        if not isinstance(action, dict):
            raise MatchError(f"an action is a dict, got {type(action).__name__}")
        kind = action.get("type")
        if kind not in ACTION_TYPES:
            raise MatchError(f"unknown action type {kind!r}")
        if kind == "undo":
            return self._undo()
        saved = self._snapshot()
        try:
            out = getattr(self, "_do_" + kind)(action)
        except MatchError:
            self._restore(saved)
            raise
        except (CubeError, scoring.ScoringError) as exc:
            self._restore(saved)
            raise MatchError(str(exc)) from None
        except ValueError as exc:  # malformed position IDs and the like
            self._restore(saved)
            raise MatchError(str(exc)) from None
        stored = copy.deepcopy(action)
        self.actions.append(stored)
        self.game_actions.append(stored)
        out.append(self._turn_event())
        return out

    def _snapshot(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["games"] = list(self.games)
        state["game_actions"] = list(self.game_actions)
        state["actions"] = list(self.actions)
        return state

    def _restore(self, state: dict[str, Any]) -> None:
        self.__dict__.clear()
        self.__dict__.update(state)

    def _undo(self) -> list[ev.Event]:
        undoable = [i for i, a in enumerate(self.actions) if a.get("type") != "setup"]
        if not undoable:
            raise MatchError("nothing to undo")
        kept = self.actions[: undoable[-1]]
        rebuilt = Match.replay(self.config(), kept)
        self.__dict__.clear()
        self.__dict__.update(rebuilt.__dict__)
        return [ev.OverrideEvent(action="undo", by="match", detail={"actions": len(kept)}),
                self._turn_event()]

    def _turn_event(self) -> ev.TurnEvent:
        waiting = "game_over" if self.phase == MATCH_OVER else self.phase
        return ev.TurnEvent(
            player=self.turn,
            waiting_for=waiting,
            position_id=self.position_id() if self.position is not None else START_POSITION_ID,
            match_id=self.match_id(),
        )

    def _require_phase(self, *phases: str) -> None:
        if self.phase not in phases:
            wanted = " or ".join(p.replace("_", " ") for p in phases)
            raise MatchError(
                f"not allowed now: waiting for {self.phase.replace('_', ' ')}, not {wanted}"
            )

    def _require_player(self, action: dict[str, Any], expected: Optional[int], what: str) -> int:
        player = action.get("player", expected)
        player = _check_player(player)
        if expected is not None and player != expected:
            raise MatchError(f"player {expected} must {what}, not player {player}")
        return player

    def _do_setup(self, action: dict[str, Any]) -> list[ev.Event]:
        """Start from a gnubg Match ID (and Position ID): score, cube, turn, dice."""
        if self.actions:
            raise MatchError("a set-up must be the first action")
        key = MatchKey.decode(str(action["match_id"]))
        if key.match_to != self.length:
            raise MatchError(f"the Match ID is for a {key.match_to}-point match, not {self.length}")
        if key.game_state != "playing":
            raise MatchError("a set-up Match ID must be of a game in play")
        position_id = action.get("position_id", START_POSITION_ID)
        if position_id != START_POSITION_ID:
            self.position = _position_module().Position.from_position_id(position_id)
        self.score = key.score
        self.crawford = key.crawford
        self.game_crawford = key.crawford
        # Stored, not derived: a Match ID does not say whether the Crawford game
        # was played; like gnubg, assume it was when a player is 1-away.
        self.post_crawford = bool(action.get(
            "post_crawford",
            self.length > 0 and not key.crawford and self.length - 1 in key.score,
        ))
        self.on_roll = key.dice_owner
        if key.doubled:
            responder = key.turn
            self.cube = Cube(value=key.cube, owner=key.cube_owner, responder=responder,
                             beavers=int(action.get("beavers", 0)))
            self.phase = CUBE_RESPONSE
        else:
            self.cube = Cube(value=key.cube, owner=key.cube_owner)
            self.phase = PLAY if key.dice != (0, 0) else ROLL
        if self.phase == PLAY:
            self.dice = _check_dice(key.dice)
        self.turn = key.turn
        if key.resigned:
            self.resigned = key.resigned
            self.resigner = 1 - key.turn
            self._phase_before_resign = self.phase
            self._turn_before_resign = self.on_roll
            self.phase = RESIGNATION_RESPONSE
        return []

    def _do_opening_roll(self, action: dict[str, Any]) -> list[ev.Event]:
        if self.phase == GAME_OVER:
            self._start_game()
        self._require_phase(OPENING_ROLL)
        d0, d1 = _check_dice(action.get("dice"))
        if d0 == d1:
            before = self.cube.value
            self.cube = self.cube.automatic_double(self.cube_rules, self.auto_doubles)
            out: list[ev.Event] = [ev.RollEvent(player=0, dice=(d0, d1), opening=True)]
            if self.cube.value != before:
                self.auto_doubles += 1
                out.append(ev.CubeEvent(action="automatic_double", player=0, value=self.cube.value,
                                        owner=None, note="equal opening roll: automatic double"))
            return out
        self.on_roll = 0 if d0 > d1 else 1
        self.turn = self.on_roll
        self.dice = (max(d0, d1), min(d0, d1))  # as gnubg: the higher die first
        self._ensure_position()
        self.phase = PLAY
        return [ev.RollEvent(player=self.on_roll, dice=(d0, d1), opening=True)]

    def _do_roll(self, action: dict[str, Any]) -> list[ev.Event]:
        self._require_phase(ROLL)
        player = self._require_player(action, self.on_roll, "roll")
        self.dice = _check_dice(action.get("dice"))
        self.phase = PLAY
        return [ev.RollEvent(player=player, dice=self.dice, opening=False)]

    def _result_of(self, play: Any):
        """The resulting position (mover's view) of ``play`` for the current roll."""
        if self.phase != PLAY:
            self._require_phase(PLAY)
        if isinstance(play, str):
            from companion.play import Play

            try:  # NotationError, or a move the board does not allow: both ValueErrors
                return Play.from_notation(play).apply_unchecked(self._ensure_position())
            except ValueError as exc:
                raise MatchError(f"illegal play {play!r}: {exc}") from None
        if hasattr(play, "to_signed"):
            return play
        return _resulting_position(play, self._ensure_position())

    def _do_play(self, action: dict[str, Any]) -> list[ev.Event]:
        self._require_phase(PLAY)
        player = self._require_player(action, self.on_roll, "play")
        wanted = str(action.get("position_id", ""))
        after = _position_module().Position.from_position_id(wanted)
        if not self.is_legal_result(after):
            notation = action.get("notation")
            raise MatchError(
                f"illegal play{(' ' + repr(notation)) if notation is not None else ''}"
                f" for {self.dice[0]}{self.dice[1]}: the resulting position {wanted} is not among"
                f" the {max(1, len(self.legal_plays()))} legal result(s)"
            )
        out: list[ev.Event] = []
        if _all_borne_off(after):
            level = scoring.game_level(_signed(after))
            points = scoring.game_points(level, self.cube.value, jacoby=self.cube_rules.jacoby,
                                         cube_owner=self.cube.owner)
            kind = scoring.level_name(level)
            self._pass_turn(after)
            out.append(self._end_game(player, points, kind, level, "over"))
            return out
        self._pass_turn(after)
        return out

    def _pass_turn(self, after) -> None:
        self.position = after.swap()
        self.on_roll = 1 - self.on_roll
        self.turn = self.on_roll
        self.dice = None
        self.phase = ROLL

    def _do_double(self, action: dict[str, Any]) -> list[ev.Event]:
        player = _check_player(action.get("player", self.on_roll))
        reason = self.double_error(player)
        if reason:
            raise MatchError(reason)
        self.cube = self.cube.double(player, on_roll=self.on_roll, rolled=False,
                                     crawford=self.game_crawford, rules=self.cube_rules)
        self.turn = self.cube.responder
        self.phase = CUBE_RESPONSE
        self.note = scoring.pointless_double_note(player, self.score, self.length,
                                                  post_crawford=self.post_crawford)
        return [ev.CubeEvent(action="double", player=player, value=self.cube.pending_value,
                             owner=self.cube.owner, note=self.note)]

    def _do_take(self, action: dict[str, Any]) -> list[ev.Event]:
        if self.phase != CUBE_RESPONSE and self.phase != RESIGNATION_RESPONSE:
            raise MatchError("cannot take: no double is pending")
        self._require_phase(CUBE_RESPONSE)
        player = self._require_player(action, self.cube.responder, "answer the double")
        self.cube = self.cube.take(player)
        self.turn = self.on_roll
        self.phase = ROLL
        return [ev.CubeEvent(action="take", player=player, value=self.cube.value, owner=self.cube.owner)]

    def _do_drop(self, action: dict[str, Any]) -> list[ev.Event]:
        if self.phase != CUBE_RESPONSE and self.phase != RESIGNATION_RESPONSE:
            raise MatchError("cannot drop: no double is pending")
        self._require_phase(CUBE_RESPONSE)
        player = self._require_player(action, self.cube.responder, "answer the double")
        points = self.cube.drop(player)
        self.cube = dataclasses.replace(self.cube, responder=None, beavers=0)
        self.turn = player
        return [ev.CubeEvent(action="drop", player=player, value=self.cube.value, owner=self.cube.owner),
                self._end_game(1 - player, points, "drop", 1, "dropped")]

    def _do_beaver(self, action: dict[str, Any]) -> list[ev.Event]:
        if self.phase != CUBE_RESPONSE and self.phase != RESIGNATION_RESPONSE:
            raise MatchError("cannot beaver: no double is pending")
        self._require_phase(CUBE_RESPONSE)
        player = self._require_player(action, self.cube.responder, "answer the double")
        name = "beaver" if self.cube.beavers == 0 else "raccoon"
        self.cube = self.cube.beaver(player, self.cube_rules)
        self.turn = self.cube.responder
        return [ev.CubeEvent(action=name, player=player, value=self.cube.pending_value, owner=self.cube.owner)]

    def _do_resign(self, action: dict[str, Any]) -> list[ev.Event]:
        self._require_phase(ROLL, PLAY, CUBE_RESPONSE)
        player = _check_player(action.get("player"))
        level = action.get("level", 1)
        if level not in (1, 2, 3):
            raise MatchError(f"a resignation is at level 1, 2 or 3, got {level!r}")
        self._phase_before_resign = self.phase
        self._turn_before_resign = self.turn
        self.resigner = player
        self.resigned = level
        self.turn = 1 - player
        self.phase = RESIGNATION_RESPONSE
        return [ev.ResignationEvent(action="offer", player=player, level=level)]

    def _do_accept(self, action: dict[str, Any]) -> list[ev.Event]:
        self._require_phase(RESIGNATION_RESPONSE)
        player = self._require_player(action, 1 - self.resigner, "answer the resignation")
        points = scoring.resignation_points(self.resigned, self.cube.value)
        self.cube = dataclasses.replace(self.cube, responder=None, beavers=0)
        return [ev.ResignationEvent(action="accept", player=player, level=self.resigned),
                self._end_game(player, points, "resign", self.resigned, "resigned")]

    def _do_refuse(self, action: dict[str, Any]) -> list[ev.Event]:
        self._require_phase(RESIGNATION_RESPONSE)
        player = self._require_player(action, 1 - self.resigner, "answer the resignation")
        level = self.resigned
        self.phase = self._phase_before_resign
        self.turn = self._turn_before_resign
        self.resigned = 0
        self.resigner = None
        return [ev.ResignationEvent(action="refuse", player=player, level=level)]

    def _do_correction(self, action: dict[str, Any]) -> list[ev.Event]:
        self._require_phase(ROLL, PLAY)
        on_roll = _check_player(action.get("on_roll"))
        self.position = _position_module().Position.from_position_id(str(action.get("position_id")))
        self.on_roll = on_roll
        self.turn = on_roll
        dice = action.get("dice")
        if dice:
            self.dice = _check_dice(dice)
            self.phase = PLAY
        else:
            self.dice = None
            self.phase = ROLL
        return [ev.OverrideEvent(action="set_position", by="referee",
                                 detail={"position_id": _position_id(self.position),
                                         "on_roll": on_roll, "dice": list(self.dice or ()),
                                         "reason": str(action.get("reason", ""))})]

    # --------------------------------------------------------------- game end

    def _end_game(self, winner: int, points: int, kind: str, level: int, state: str) -> ev.GameEndEvent:
        before = self.score
        score = list(self.score)
        score[winner] += points
        self.score = (score[0], score[1])
        record = GameRecord(
            number=self.game_number, winner=winner, points=points, kind=kind, level=level,
            cube=self.cube.value, crawford=self.game_crawford,
            score_before=before, score_after=self.score,
        )
        self.games.append(record)
        self._end_state = state
        match_over = self.length > 0 and max(self.score) >= self.length
        if self.length > 0 and self.rules.crawford:
            if self.game_crawford:
                self.crawford = False
                self.post_crawford = True
            elif not self.post_crawford and not match_over and self.score[winner] == self.length - 1:
                self.crawford = True
        self.phase = MATCH_OVER if match_over else GAME_OVER
        self.dice = None
        return ev.GameEndEvent(winner=winner, points=points, kind=kind, cube=self.cube.value,
                               score=self.score, crawford=record.crawford, match_over=match_over)

    def __repr__(self) -> str:
        return (f"<Match length={self.length} score={self.score} game={self.game_number} "
                f"phase={self.phase} match_id={self.match_id()}>")


def _resulting_position(play: Any, position: Any = None):
    """The resulting position of a :class:`~companion.play.Play`: its ``result``
    (plays from ``legal_plays``), else its moves applied to ``position``."""
    result = getattr(play, "result", None)
    if result is not None:
        return result
    if position is not None and hasattr(play, "apply_unchecked"):
        try:
            return play.apply_unchecked(position)
        except ValueError as exc:
            raise MatchError(f"illegal play {play}: {exc}") from None
    raise MatchError(f"cannot tell the resulting position of {play!r}")

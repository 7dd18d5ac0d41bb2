"""The referee: a state machine fed with stable observations, judging by the rules.

It receives the stability filter's :class:`~companion.observation.Observation`
objects (one per change of the still, unoccluded board), drives the
:class:`companion.match.Match` (score, cube, Crawford, game flow) and publishes
every resulting event on the bus. What it decides (tournament rules, DESIGN.md):

- **opening roll**: on the starting position only (another board is reported
  and waited out); one die each, player 0's in the image's right half, player
  1's in the left; the higher die moves first with both dice; a tie is rolled
  again; when only one die was seen (a small die the camera misses) and the
  checkers are played, the other die is the one value that makes the board a
  legal play of the opening roll (no such value: reported as a changed
  position);
- **roll**: two flat dice in the right-hand board of the player on roll (image
  right for player 0, left for player 1); otherwise the roll is cocked (tilted,
  off the playing field, in the wrong half, or, by the ``die_on_checker``
  setting, resting on a checker) and both dice are rolled again; a roll at
  rest with one die in view (the other off the board or unreadable) is
  called cocked too (``die_not_seen``); a roll called cocked because a die
  reads as not flat (``tilted``) that the players play anyway (the board a
  legal play, or part of one, of the dice still lying there) is followed as
  rolled: the players judge a cocked die, and the camera's call may be wrong;
  so is a roll called cocked for its die not seen that the players play (a
  small die the camera misses): the other die is the one value that makes the
  board a legal play (none, or several once the dice are picked up: the change
  is reported as before);
- **idle dice**: dice lying off the playing field when a phase begins (a pair
  left on the rail or in a tray between turns), and the previous turn's dice
  still lying where they were when the opponent rolls or doubles before they
  are lifted, are no roll and not cocked while they stay there
  (``companion.idle_dice``); a die that lands off the field during the phase is
  judged as usual;
- **play in progress**: while the dice lie on the board nobody is accused; a
  board reached by a legal prefix gives an ``in_progress`` verdict (for the
  dashboard), any other intermediate board is ignored;
- **end of turn**: the player picks up the dice, or the opponent rolls or
  doubles. The finished board is judged by ``companion.verdict.judge`` against
  the positions every legal play produces. Legal: the play goes to the match.
  Illegal: a verdict with reasons and the closest legal play; then the referee
  waits for the correction (``illegal_play_policy="mandatory_correction"``), or
  the opponent may accept the play by rolling or doubling
  (``"opponent_option"``). A corrected board gives ``"corrected"``. Dice
  picked up with nothing moved although a play exists are taken as a re-roll
  when the same player rolls again (``cocked_dice`` with code
  ``rolled_again``, then the new roll), and judged (``must_play``) only when
  the opponent rolls or doubles or checkers move;
- **position changed**: the board changes while a player is about to roll
  (``"position_changed"``; ``"corrected"`` with code ``position_restored`` when
  it is put back);
- **cube**: the cube showing twice its value while a player is about to roll is
  that player's double (refused with an ``illegal`` verdict when the match does
  not allow it); turned to the taker's side it is a take (also implied when the
  doubler rolls); back in the centre, or the checkers set up afresh, a drop;
- **game end**: the match scores it; the next game starts when the checkers
  are set up again and the opening roll is seen;
- **resignations** and **overrides** (set the dice, set the position, undo)
  come from the keyboard or the dashboard through the session.

Single-threaded: the session serialises calls with a lock.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Iterator, Optional, Sequence

from companion.bus import Event, EventBus
from companion.events import CockedDiceEvent, OverrideEvent, RollEvent, TurnEvent, VerdictEvent
from companion.idle_dice import lying_where, off_field, same_spot, with_idle, without_idle
from companion.judgement import Judgement, judge
from companion.likelihood import most_likely_board
from companion.observation import DieReading, Observation
from companion.referee_settings import Phase, RefereeError, RefereeSettings
from companion.roll_revision import confirmed_readings, other_readings, revised_readings
from companion.roll_rules import cocked_reason, one_die_reason
from companion.table import (
    START_SIGNED,
    TableError,
    TableLayout,
    cube_side,
    infer_layout,
    observation_to_signed,
    right_half,
    swap_signed,
    table_point,
)

#: The reasons a roll was called cocked for that the players may overrule by playing it
#: (:meth:`Referee._played_anyway`): the camera's judgement that a die does not rest flat.
PLAYED_ANYWAY_REASONS = frozenset({"tilted"})


@dataclasses.dataclass
class _Watch:
    """The referee's own memory (the match keeps score, cube, position, dice)."""

    phase: Phase = Phase.OPENING
    illegal_board: Optional[tuple[int, ...]] = None  # table board of an illegal play
    last_verdict: Optional[dict[str, Any]] = None
    reported_change: Optional[tuple[int, ...]] = None
    reported_dice: Optional[tuple] = None  # dice already reported (cocked, tie)
    reported_codes: frozenset = frozenset()  # the reasons a roll or opening roll was last called cocked for
    reported_cube: Optional[tuple] = None
    in_progress: Optional[tuple[int, ...]] = None
    cube_synced: bool = False  # the cube has been seen where the match says it is
    withdrawn: bool = False  # the dice were picked up with nothing moved (a re-roll?)
    match_actions: int = 0
    # dice lying still that are no part of the roll (companion.idle_dice): off the playing field
    # when a phase began, or the previous turn's dice when the opponent acted before they were lifted
    idle: tuple[DieReading, ...] = ()
    # the dice the roll being played was read from, in the roll's order (read again while they
    # lie: companion.roll_revision); empty when the dice were set by hand
    roll: tuple[DieReading, ...] = ()
    roll_opening: bool = False
    # the opening roll's one die seen flat on the starting position (value, "left" | "right")
    # while the other was not (Referee._opening_one_die_played)
    opening_die: Optional[tuple[int, str]] = None


class Referee:
    """The state machine. ``bus``: where events go; ``match``: a
    :class:`companion.match.Match` (it keeps the score, cube, position and dice
    and returns the events of each action); ``settings``:
    :class:`RefereeSettings`. Feed it with :meth:`observe`; overrides and
    resignations by the methods of the same names."""

    def __init__(self, bus: EventBus, match: Any, settings: RefereeSettings = RefereeSettings()) -> None:
        self.bus = bus
        self.match = match
        self.settings = settings
        self.layout: Optional[TableLayout] = settings.layout
        self.w = _Watch()
        self._history: list[_Watch] = []
        self._plays_cache: Optional[tuple] = None
        self._observed = False
        self._dice_now: tuple[DieReading, ...] = ()  # the dice of the observation being handled
        self._dice_before: tuple[DieReading, ...] = ()  # and of the one before it
        self.w.phase = self._phase_of_match()  # a match resumed from its log goes on where it was

    # ------------------------------------------------------------- queries
    @property
    def phase(self) -> Phase:
        """What the referee waits for."""
        return self.w.phase

    def table_board(self) -> tuple[int, ...]:
        """The agreed board as 26 signed ints from player 0's view (table order)."""
        pos = getattr(self.match, "position", None)
        if pos is None:
            return START_SIGNED
        signed = tuple(pos.to_signed())
        return signed if (self.match.on_roll or 0) == 0 else swap_signed(signed)

    def expected_roller(self) -> Optional[int]:
        """The player whose roll comes next when that is certain, for the dice
        reading's right-hand-board check (``vision.cocked``'s ``roller``): the
        player on roll while the referee waits for a roll, the doubler while a
        double waits for its answer (the doubler rolls after a take); ``None``
        in the opening roll (one die each), during a play or a correction (the
        mover's dice are still down, and the next roll may be the opponent's or
        the mover's re-roll) and between games. The referee applies the
        right-hand-board rule itself in any case (:func:`companion.roll_rules.cocked_reason`)."""
        if self.w.phase == Phase.ROLL:
            return self.match.on_roll
        if self.w.phase == Phase.CUBE_RESPONSE:
            return self.match.on_roll
        return None

    def view(self, player: int, table: Sequence[int]) -> tuple[int, ...]:
        """A table board from ``player``'s view."""
        return tuple(table) if player == 0 else swap_signed(table)

    def state(self) -> dict[str, Any]:
        """JSON-ready state for the dashboard (``/api/state``)."""
        m = self.match
        on_roll = m.on_roll
        table = self.table_board()
        view = self.view(on_roll or 0, table)
        from companion.position import Position

        pos = Position.from_signed(list(view))
        cube = m.cube
        out = {
            "waiting_for": self.w.phase.value,
            "on_roll": on_roll,
            "turn": m.turn,
            "dice": list(m.dice) if m.dice else None,
            "position": list(view),
            "table_position": list(table),
            "position_id": pos.position_id(),
            "match_id": m.match_id(),
            "diagram": pos.diagram(),
            "cube": {"value": cube.value, "owner": cube.owner, "offered": cube.offered,
                     "place": "centre" if cube.owner is None else cube_side(cube.owner)},
            "score": list(m.score),
            "match_length": m.length,
            "crawford": bool(getattr(m, "game_crawford", m.crawford)),
            "game_number": m.game_number,
            "players": list(m.players),
            "last_verdict": self.w.last_verdict,
            "illegal_board": None if self.w.illegal_board is None else list(self.w.illegal_board),
            "settings": self.settings.to_dict(),
            "mode": self.settings.mode,
            "games": [dict(g.to_dict(), score=list(g.score_after)) for g in m.games],
            "resignation": ({"player": m.resigner, "level": m.resigned}
                            if self.w.phase == Phase.RESIGNATION else None),
        }
        if self.settings.mode == "teaching":
            out["pip_count"] = list(pos.pip_count())
            if self.w.phase in (Phase.PLAY, Phase.CORRECTION) and m.dice:
                out["legal_plays"] = [p.notation() for p in self._plays(view, m.dice)]
        return out

    # --------------------------------------------------------------- input
    def observe(self, obs: Observation, disturbed: bool = True) -> None:
        """Take one stable observation and publish what follows from it.

        ``disturbed``: something moved over the board (motion, a hand) since the
        previous stable observation. Checkers and dice do not move by
        themselves: an undisturbed change is a misreading and is ignored (the
        first observation always counts)."""
        if not disturbed and self._observed:
            return
        self._observed = True
        self._dice_before, self._dice_now = self._dice_now, obs.dice
        self.w.idle = lying_where(self.w.idle, obs.dice)  # those picked up or moved are no longer idle
        self._dispatch(obs)

    def _dispatch(self, obs: Observation) -> None:
        """Hand ``obs`` to the current phase's handler (again after a phase
        change within one observation: the opponent's roll that ended a turn)."""
        if self.layout is None:
            self.layout = self._guess_layout(obs)
            if self.layout is None:
                return
        try:
            board = observation_to_signed(obs, self.layout, 0)
        except TableError:
            return
        board = most_likely_board(obs, board, self._allowed_boards(), self.layout.colour_of(0))
        obs = self.dice_in_play(obs)
        handler = {
            Phase.OPENING: self._on_opening,
            Phase.ROLL: self._on_roll,
            Phase.PLAY: self._on_play,
            Phase.CORRECTION: self._on_correction,
            Phase.CUBE_RESPONSE: self._on_cube_response,
            Phase.RESIGNATION: lambda o, b: None,
            Phase.GAME_OVER: self._on_game_over,
        }[self.w.phase]
        handler(obs, board)

    def _allowed_boards(self) -> Iterator[tuple[int, ...]]:
        """The boards the game allows now, player 0's view: the agreed board, and while a play
        or its correction is awaited the result of every legal play and every legal part of one
        (what :func:`companion.likelihood.most_likely_board` weighs the reading against). A
        generator: nothing is computed for a reading without probabilities."""
        expected = self.table_board()
        yield expected
        if self.w.phase in (Phase.PLAY, Phase.CORRECTION) and getattr(self.match, "dice", None):
            mover = self.match.on_roll
            plays = self._plays(self.view(mover, expected), self.match.dice)
            for pos in plays.results | plays.prefixes:
                yield self.view(mover, pos.to_signed())

    def dice_in_play(self, obs: Observation) -> Observation:
        """``obs`` with only the dice that matter now, when the dice carry an
        ``owner`` (each player's set told apart by colour, the board profile's
        ``dice_sets``): waiting for a roll, or for the answer to a double, the
        roller's (the doubler's) set; while a play is made or corrected, the
        mover's set and the other player's dice on the playing field (his roll
        ends the turn). The other set's dice lying idle (on the rail, in a tray,
        beside the board) are then neither a roll nor cocked. In the opening
        roll (a die from each player) a player's die off the playing field is
        left out while another die of his set lies on it (the one he did not
        roll). Dice without an owner are kept, except, like any die, idle ones
        (:mod:`companion.idle_dice`: lying off the playing field since the phase
        began, a pair left on the rail between turns; the previous turn's dice
        not yet lifted when the opponent rolled or doubled)."""
        if self.w.idle:
            dice = without_idle(obs.dice, self.w.idle)
            if len(dice) != len(obs.dice):
                obs = dataclasses.replace(obs, dice=dice)
        if not any(d.owner for d in obs.dice) or self.w.phase == Phase.GAME_OVER:
            return obs
        if self.w.phase == Phase.OPENING:
            rolled = {d.owner for d in obs.dice if d.owner and d.half is not None}
            dice = tuple(d for d in obs.dice if d.half is not None or d.owner not in rolled)
            return obs if len(dice) == len(obs.dice) else dataclasses.replace(obs, dice=dice)
        player = self.match.on_roll
        if player is None:
            return obs
        mine = cube_side(player)
        if self.w.phase in (Phase.PLAY, Phase.CORRECTION):
            dice = tuple(d for d in obs.dice if d.owner in (None, mine) or d.half is not None)
        else:
            dice = tuple(d for d in obs.dice if d.owner in (None, mine))
        return obs if len(dice) == len(obs.dice) else dataclasses.replace(obs, dice=dice)

    def _guess_layout(self, obs: Observation) -> Optional[TableLayout]:
        """Who plays which colour: the colour assignment whose board is closest
        to the agreed one (the starting position, or a match resumed from its
        log); on a tie, the pip-count heuristic of ``infer_layout``."""
        expected = self.table_board()
        scores = []
        for layout in (TableLayout(("dark", "light")), TableLayout(("light", "dark"))):
            try:
                board = observation_to_signed(obs, layout, 0)
            except TableError:
                return None
            scores.append((sum(abs(a - b) for a, b in zip(board, expected)), layout))
        if scores[0][0] != scores[1][0]:
            return min(scores, key=lambda s: s[0])[1]
        try:
            return infer_layout(obs)
        except TableError:
            return None

    # --------------------------------------------------------- machinery
    def _publish(self, events: Sequence[Event]) -> None:
        for e in events:
            self.bus.publish(e)

    def _act(self, method: str, *args: Any, **kwargs: Any) -> list[Event]:
        """Call a Match action and publish its events (its TurnEvent and
        OverrideEvent are replaced by the referee's own, which know about
        corrections and who overrode)."""
        events = getattr(self.match, method)(*args, **kwargs)
        self._publish([e for e in events if not isinstance(e, (TurnEvent, OverrideEvent))])
        return events

    def turn_event(self) -> TurnEvent:
        """The current :class:`TurnEvent` (whose turn, what the referee waits for),
        for an outlet that subscribes after it was published."""
        m = self.match
        return TurnEvent(
            player=m.turn if self.w.phase not in (Phase.OPENING, Phase.GAME_OVER) else None,
            waiting_for=self.w.phase.value,
            position_id=m.position_id(),
            match_id=m.match_id(),
        )

    def _publish_turn(self) -> None:
        self.bus.publish(self.turn_event())

    def _set_phase(self, phase: Phase) -> None:
        """Go to ``phase``; the dice now lying off the playing field are idle in it,
        with those idle before that still lie there (:mod:`companion.idle_dice`)."""
        self.w.phase = phase
        self.w.idle = with_idle(self.w.idle, off_field(self._dice_now))
        self._publish_turn()

    def _sync_phase(self) -> None:
        """The referee's phase after a match action."""
        self._set_phase(self._phase_of_match())

    def _phase_of_match(self) -> Phase:
        mp = self.match.phase
        return {
            "opening_roll": Phase.OPENING,
            "roll": Phase.ROLL,
            "play": Phase.PLAY,
            "cube_response": Phase.CUBE_RESPONSE,
            "resignation_response": Phase.RESIGNATION,
            "game_over": Phase.GAME_OVER,
            "match_over": Phase.GAME_OVER,
        }[mp]

    def _plays(self, before: Sequence[int], dice: Sequence[int]) -> Any:
        """``legal_plays(before, dice)``, computed once per roll."""
        key = (tuple(before), tuple(dice))
        if self._plays_cache is None or self._plays_cache[0] != key:
            from companion.dice import Dice
            from companion.legal import legal_plays
            from companion.position import Position

            self._plays_cache = (key, legal_plays(Position.from_signed(list(before)), Dice(*dice)))
        return self._plays_cache[1]

    def _play_fits(self, mover: int, before: Sequence[int], dice: tuple[int, int],
                   board: tuple[int, ...]) -> Optional[str]:
        """How ``board`` follows from ``before`` (both player 0's view) by a play of ``dice`` by
        ``mover``: ``"whole"`` (the result of a legal play), ``"part"`` (a legal part of one, on
        its way) or ``None``."""
        plays = self._plays(self.view(mover, before), dice)
        if any(self.view(mover, pos.to_signed()) == board for pos in plays.results):
            return "whole"
        if any(self.view(mover, pos.to_signed()) == board for pos in plays.prefixes):
            return "part"
        return None

    def _push(self) -> None:
        snap = copy.deepcopy(self.w)
        snap.match_actions = len(self.match.actions)
        self._history.append(snap)
        del self._history[:-200]

    # ------------------------------------------------------------ the dice
    @staticmethod
    def _dice_key(obs: Observation) -> tuple:
        return tuple(sorted((d.value, d.half or "", d.cocked, d.reason or "") for d in obs.dice))

    # --------------------------------------------------------- the opening
    def _on_opening(self, obs: Observation, board: tuple[int, ...]) -> None:
        w = self.w
        if board != START_SIGNED and self._opening_played_anyway(obs, board):
            return
        if board != START_SIGNED and self._opening_one_die_played(obs, board):
            return
        if board != START_SIGNED:
            # never start a game on a board that is not (or not seen as) the
            # starting position: say so once, and wait for it
            if board != w.reported_change:
                w.reported_change = board
                differing = tuple(i for i in range(1, 25) if board[i] != START_SIGNED[i])
                self._verdict(
                    "position_changed",
                    None,
                    reasons=({"code": "not_starting_position",
                              "message": "the checkers are not seen in the starting position (points "
                                         + ", ".join(map(str, differing)) + "): set them up to start"},),
                    points_differing=differing,
                    record=False,
                )
            return
        if w.reported_change is not None:
            w.reported_change = None
        if not obs.dice:
            w.reported_dice = None
            return
        key = self._dice_key(obs)
        if key == w.reported_dice:
            return
        reasons = [r for d in obs.dice if (r := cocked_reason(d, None, self.settings.die_on_checker))]
        by_half = {d.half: d for d in obs.dice}
        if reasons:
            w.reported_dice = key
            w.reported_codes = frozenset(r["code"] for r in reasons)
            self.bus.publish(CockedDiceEvent(player=0, dice=tuple(d.value for d in obs.dice), reasons=tuple(reasons)))
            return
        if len(obs.dice) < 2:
            if obs.dice[0].half in ("left", "right"):
                w.opening_die = (obs.dice[0].value, obs.dice[0].half)
            return  # the second die is still in the cup, or not seen
        if len(obs.dice) > 2 or set(by_half) != {"left", "right"}:
            w.reported_dice = key
            self.bus.publish(
                CockedDiceEvent(
                    player=0,
                    dice=tuple(d.value for d in obs.dice),
                    reasons=({"code": "opening", "message": "the opening roll is one die each, in each player's right-hand board"},),
                )
            )
            return
        w.reported_dice = key
        self._opening_roll(by_half["right"].value, by_half["left"].value, (by_half["right"], by_half["left"]))

    def _opening_roll(self, right: int, left: int, readings: tuple[DieReading, ...] = ()) -> bool:
        """Take the opening roll (``right``: player 0's die, ``left``: player 1's; ``readings``:
        the two dice it was read from, in that order); returns whether a player is now to play
        it (not a tie)."""
        w = self.w
        self._push()
        self._act("opening_roll", (right, left))
        w.opening_die = None
        if self.match.phase != "play":
            return False
        w.reported_dice = None
        w.in_progress = None
        w.roll, w.roll_opening = tuple(readings), True
        self._set_phase(Phase.PLAY)
        return True

    # ------------------------------------------------------------- a roll
    def _on_roll(self, obs: Observation, board: tuple[int, ...]) -> None:
        w = self.w
        player = self.match.on_roll
        if self._check_cube(obs, player):
            return
        if obs.dice:
            key = self._dice_key(obs)
            if key == w.reported_dice:
                if board != self.table_board() and self._played_anyway(obs, player, self.table_board(), board):
                    self._roll(player, (obs.dice[0].value, obs.dice[1].value), obs.dice)
                    self._dispatch(obs)  # the play of that roll, judged as any play
                elif board != self.table_board():
                    self._one_die_played(obs, player, board)
                return
            reasons = [r for d in obs.dice if (r := cocked_reason(d, player, self.settings.die_on_checker))]
            if reasons:
                w.reported_dice = key
                w.reported_codes = frozenset(r["code"] for r in reasons)
                self.bus.publish(
                    CockedDiceEvent(player=player, dice=tuple(d.value for d in obs.dice), reasons=tuple(reasons))
                )
                return
            if len(obs.dice) == 2:
                self._roll(player, (obs.dice[0].value, obs.dice[1].value), obs.dice)
            elif len(obs.dice) == 1:
                w.reported_dice = key
                w.reported_codes = frozenset({"die_not_seen"})
                self.bus.publish(CockedDiceEvent(player=player, dice=(obs.dice[0].value,),
                                                 reasons=(one_die_reason(obs.dice[0]),)))
            return
        if board != self.table_board() and self._one_die_played(obs, player, board):
            return
        w.reported_dice = None
        self._check_position_changed(board)

    def _one_die_played(self, obs: Observation, player: int, board: tuple[int, ...]) -> bool:
        """A roll called cocked because one die alone was seen (``die_not_seen``) that the
        players play anyway: the camera may miss a small die the players see lying flat. The die
        seen is still there alone (the same reading) or the dice are picked up (``obs`` shows
        none), and ``board`` (player 0's view) is the result of a legal play by ``player`` of
        that die and exactly one value of the other: the roll is taken and ``obs`` judged as its
        play. While the dice lie, a board that a play of the die and another value passes through
        on its way (or that two values explain) is waited out without a report. Returns whether
        ``obs`` was taken or waited out; ``False`` (a change that no value explains, or that
        several explain once the dice are picked up) leaves the change to be reported as
        before. The taken roll's dice are not read again while they lie (no readings)."""
        w = self.w
        reported = w.reported_dice
        if reported is None or len(reported) != 1 or w.reported_codes != {"die_not_seen"}:
            return False
        if obs.dice and self._dice_key(obs) != reported:
            return False
        seen = reported[0][0]
        fit = {other: self._play_fits(player, self.table_board(), (seen, other), board) for other in range(1, 7)}
        fits = [other for other, f in fit.items() if f == "whole"]
        passes = "part" in fit.values()
        if obs.dice and (passes or len(fits) > 1):
            return True
        if len(fits) != 1:
            return False
        self._roll(player, (seen, fits[0]))
        self._dispatch(obs)  # the play of that roll, judged as any play
        return True

    def _played_anyway(self, obs: Observation, player: int, before: tuple[int, ...], board: tuple[int, ...],
                       opening: bool = False) -> bool:
        """Whether the players took a roll called cocked as rolled: the two dice last called
        cocked, for :data:`PLAYED_ANYWAY_REASONS` only (the camera's judgement that a die is not
        flat), still lie there (the same values, read as cocked or not now, for no other
        reason) and ``board`` (player 0's view) is what a legal play of them, or a
        legal part of one, by ``player`` makes of ``before``. The camera's call that a die is
        not flat may be wrong, and the players at the table see the die: a roll they play is
        followed, not reported as a changed position. ``opening``: the
        opening roll, whose dice lie one in each half (no right-hand-board rule)."""
        w = self.w
        if len(obs.dice) != 2 or w.reported_dice is None or not w.reported_codes <= PLAYED_ANYWAY_REASONS:
            return False
        if sorted(d.value for d in obs.dice) != sorted(k[0] for k in w.reported_dice):
            return False
        reasons = [cocked_reason(d, None if opening else player, self.settings.die_on_checker) for d in obs.dice]
        if not {r["code"] for r in reasons if r} <= PLAYED_ANYWAY_REASONS:
            return False
        return self._play_fits(player, before, (obs.dice[0].value, obs.dice[1].value), board) is not None

    def _opening_played_anyway(self, obs: Observation, board: tuple[int, ...]) -> bool:
        """The opening roll called cocked and played anyway (:meth:`_played_anyway`): the dice
        called cocked lay one in each half, not a tie (who moves is read from the halves they
        lay in then; the mover may gather them before playing); the opening roll is then taken
        and ``obs`` judged as the play of it. Returns whether it was."""
        reported = self.w.reported_dice
        if reported is None or len(reported) != 2:
            return False
        by_half = {k[1]: k[0] for k in reported}
        if set(by_half) != {"left", "right"} or by_half["right"] == by_half["left"]:
            return False
        mover = 0 if by_half["right"] > by_half["left"] else 1
        if not self._played_anyway(obs, mover, START_SIGNED, board, opening=True):
            return False
        if self._opening_roll(by_half["right"], by_half["left"]):
            self._dispatch(obs)  # the play of it, judged as any play
        return True

    def _opening_one_die_played(self, obs: Observation, board: tuple[int, ...]) -> bool:
        """The opening roll played while only one of its dice was seen (a small die the camera
        does not find): the die last seen alone and flat on the starting position
        (``opening_die``: its value and half) and ``board`` (player 0's view) the result of a
        legal play of that die and a value of the other, not a tie (the higher die moves;
        player 0's die lies in the image's right half). At most one value fits: the rolls that
        share the seen die move different pip totals, or different players. The opening roll is
        then taken and ``obs`` judged as its play. A board that such a play passes through on its
        way is waited out without a report; any other board is no opening roll (the change is
        reported). Returns whether ``obs`` was taken or waited out."""
        w = self.w
        if w.opening_die is None:
            return False
        seen, half = w.opening_die
        passes = False
        for other in range(1, 7):
            if other == seen:
                continue
            right, left = (seen, other) if half == "right" else (other, seen)
            fit = self._play_fits(0 if right > left else 1, START_SIGNED, (right, left), board)
            if fit == "whole":
                if self._opening_roll(right, left):
                    self._dispatch(obs)  # the play of it, judged as any play
                return True
            passes = passes or fit == "part"
        return passes

    def _roll(self, player: int, dice: tuple[int, int], readings: Sequence[DieReading] = ()) -> None:
        """``player`` rolled ``dice``, read from the two dice ``readings`` (none: set by hand)."""
        w = self.w
        self._push()
        self._act("roll", dice, player)
        w.roll, w.roll_opening = tuple(readings), False
        w.reported_dice = None
        w.reported_change = None
        w.in_progress = None
        self._set_phase(Phase.PLAY)

    def _check_position_changed(self, board: tuple[int, ...]) -> None:
        w = self.w
        expected = self.table_board()
        player = self.match.on_roll
        if board == expected:
            if w.reported_change is not None:
                w.reported_change = None
                self._verdict(
                    "corrected",
                    player,
                    reasons=({"code": "position_restored", "message": "the position is back as it was"},),
                    record=False,
                )
            return
        if board == w.reported_change:
            return
        w.reported_change = board
        differing = tuple(i for i in range(1, 25) if board[i] != expected[i])
        bar = board[25] != expected[25] or board[0] != expected[0]
        where = ", ".join(str(p) for p in differing) + (" and the bar" if bar else "")
        self._verdict(
            "position_changed",
            player,
            reasons=({"code": "position_changed", "message": f"checkers moved while nobody is playing ({where})"},),
            points_differing=differing,
            after=self.view(player, board),
            record=False,
        )

    # ------------------------------------------------------------- a play
    def _opponent_acts(self, obs: Observation, mover: int) -> bool:
        """True when the mover's opponent has rolled or turned the cube. Rolled:
        dice in the opponent's right-hand board that are not the mover's roll,
        namely two of them, or one seen alone, or one of a value not in the
        mover's roll that did not lie there in the previous observation. A
        die seen alone whose value is one of the mover's roll is taken as the
        mover's: after the opening roll a die lies in each half, and the other
        may be hidden by a hand or missed by the camera while the play goes on.
        Beside another die, a die in that board of a value of the mover's roll,
        or one lying where a die lay (a die at rest keeps its face:
        :func:`companion.idle_dice.same_spot`), is the mover's, misread or not:
        a misread must not end a turn half played."""
        dice = self.match.dice
        is_roll = len(obs.dice) == 2 and sorted(d.value for d in obs.dice) == sorted(dice)
        own_alone = len(obs.dice) == 1 and obs.dice[0].value in dice
        other = 1 - mover
        theirs = [d for d in obs.dice if d.half == right_half(other)]
        new_value = any(d.value not in dice and not any(same_spot(d, b) for b in self._dice_before) for d in theirs)
        if not is_roll and not own_alone and (len(theirs) >= 2 or len(obs.dice) == 1 and theirs or new_value):
            return True
        return self._double_seen(obs, doubler=other)

    def _on_play(self, obs: Observation, board: tuple[int, ...]) -> None:
        w = self.w
        mover = self.match.on_roll
        expected = self.table_board()
        acted = self._opponent_acts(obs, mover)
        if w.withdrawn:
            self._after_withdrawn(obs, board, mover, expected, acted)
            return
        if obs.dice and not acted:
            self._revise_roll(obs, mover)
            # the dice are still down: the play is in progress, never accused
            if board != w.in_progress and board != expected:
                w.in_progress = board
                before = self.view(mover, expected)
                j = judge(before, self.match.dice, self.view(mover, board), plays=self._plays(before, self.match.dice))
                if j.kind in ("in_progress", "legal"):
                    self._verdict("in_progress", mover, play=j.play, before=self.view(mover, expected),
                                  after=self.view(mover, board), judgement=j, record=False)
            return
        if not acted and board == expected and self._plays(self.view(mover, expected), self.match.dice):
            # the dice were picked up and nothing moved although a play exists:
            # a re-roll (a cocked roll the camera missed) more often than a
            # refusal to play; judged only if the opponent rolls or doubles next
            self._push()
            w.withdrawn = True
            return
        self._end_turn(board)
        if acted and self.w.phase in (Phase.ROLL, Phase.CORRECTION):
            self._idle_turn_dice()
            self._dispatch(obs)  # the opponent's roll or double

    def _revise_roll(self, obs: Observation, mover: int) -> None:
        """The roll being played read again where its dice lie (:mod:`companion.roll_revision`):
        a die of it read unsurely that a later still frame reads surely as another value changes
        the roll (the match's dice, logged as a correction) and a ``roll`` event with ``revised``
        says so, before the play is judged; read surely with the same value, it is no longer
        unsure (:func:`companion.roll_revision.confirmed_readings`; no event). An opening roll is
        revised only when the same player still moves first (a tie or the other player's win is
        left to the players)."""
        w = self.w
        sure = confirmed_readings(w.roll, obs.dice) if len(w.roll) == 2 else None
        if sure is not None:
            w.roll = sure  # an unsure die read surely at its spot with the same value
        new = revised_readings(w.roll, obs.dice) if len(w.roll) == 2 else None
        if new is None or not self._opening_allows((new[0].value, new[1].value), mover):
            return
        self._push()
        self._set_revised_roll(new, mover, "the dice read again where they lie")
        self._publish_turn()

    def _opening_allows(self, dice: Sequence[int], mover: int) -> bool:
        """False when the roll being played is the opening roll and ``dice`` (in the roll's order)
        would be a double or give the first move to the other player."""
        return not self.w.roll_opening or (dice[0] != dice[1] and (0 if dice[0] > dice[1] else 1) == mover)

    def _set_revised_roll(self, readings: Sequence[DieReading], mover: int, reason: str) -> None:
        """The roll being played becomes ``readings`` (two dice, the roll's order): the match's
        dice corrected with ``reason`` and a ``roll`` event with ``revised`` published."""
        w = self.w
        w.roll = tuple(readings)
        dice = (w.roll[0].value, w.roll[1].value)
        self._act("set_dice", dice, reason=reason)
        self.bus.publish(RollEvent(player=mover, dice=dice, opening=w.roll_opening, revised=True))

    def _roll_the_play_fits(self, before: Sequence[int], after: Sequence[int], mover: int) -> Optional[Judgement]:
        """A play illegal for the roll as read, legal were a die read unsurely another value
        (:func:`companion.roll_revision.other_readings`, the first such roll): no illegal play
        the referee can be sure of. The roll becomes that one (the match's dice, logged as a
        correction; a ``roll`` event with ``revised``) and its judgement (``legal``) is returned;
        None when no such roll exists. An opening roll keeps its mover and is no double."""
        roll = self.w.roll
        for dice in other_readings(roll):
            if not self._opening_allows(dice, mover):
                continue
            j = judge(before, dice, after, complete=True, plays=self._plays(before, dice))
            if j.kind != "legal":
                continue
            read = "-".join(str(d.value) for d in roll)
            self._set_revised_roll([dataclasses.replace(d, value=v) for d, v in zip(roll, dice)], mover,
                                   f"a die read unsurely: the play fits {dice[0]}-{dice[1]}, not {read}")
            return j
        return None

    def _after_withdrawn(self, obs: Observation, board: tuple[int, ...], mover: int, expected: tuple[int, ...],
                         acted: bool) -> None:
        """The mover picked up the dice without moving: a new roll by the mover is a
        re-roll; the opponent acting, or checkers moving, ends the turn."""
        w = self.w
        if acted:
            w.withdrawn = False
            self._end_turn(board)
            if self.w.phase in (Phase.ROLL, Phase.CORRECTION):
                self._idle_turn_dice()
                self._dispatch(obs)
            return
        if obs.dice:
            key = self._dice_key(obs)
            if key == w.reported_dice:
                return
            reasons = [r for d in obs.dice if (r := cocked_reason(d, mover, self.settings.die_on_checker))]
            if reasons:
                w.reported_dice = key
                self.bus.publish(CockedDiceEvent(player=mover, dice=tuple(d.value for d in obs.dice), reasons=tuple(reasons)))
                return
            if len(obs.dice) == 1:
                w.reported_dice = key
                self.bus.publish(CockedDiceEvent(player=mover, dice=(obs.dice[0].value,),
                                                 reasons=(one_die_reason(obs.dice[0]),)))
                return
            if len(obs.dice) == 2:
                dice = (obs.dice[0].value, obs.dice[1].value)
                self._push()
                self.bus.publish(CockedDiceEvent(
                    player=mover, dice=tuple(self.match.dice),
                    reasons=({"code": "rolled_again", "message": "the dice were picked up and rolled again: the first roll did not count"},)))
                self._act("correct", self.match.position, on_roll=mover, dice=dice,
                          reason="the dice were rolled again")
                self.bus.publish(RollEvent(player=mover, dice=dice))
                w.roll, w.roll_opening = tuple(obs.dice), False
                w.withdrawn = False
                w.reported_dice = None
                w.in_progress = None
                self._publish_turn()
            return
        w.reported_dice = None
        if board != expected:
            w.withdrawn = False
            self._end_turn(board)

    def _idle_turn_dice(self) -> None:
        """The opponent rolled or doubled before the mover lifted his dice (a
        premature action stands if otherwise valid, US rules 2008, 4.6): the
        dice on the playing field that lay there in the previous observation
        are the ended turn's, idle while they stay (:mod:`companion.idle_dice`)."""
        before = [d for d in self._dice_before if d.half is not None]
        lying = lying_where([d for d in self._dice_now if d.half is not None], before)
        self.w.idle = with_idle(self.w.idle, lying)

    def _end_turn(self, board: tuple[int, ...], push: bool = True) -> None:
        m = self.match
        mover = m.on_roll
        dice = m.dice
        before = self.view(mover, self.table_board())
        after = self.view(mover, board)
        j = judge(before, dice, after, complete=True, plays=self._plays(before, dice))
        self.w.withdrawn = False
        if push:
            self._push()
        if j.kind != "legal":
            fit = self._roll_the_play_fits(before, after, mover)
            if fit is not None:
                j = fit
                dice = m.dice
        if j.kind == "legal":
            self._accept_play(mover, dice, before, after, "legal", j)
            return
        self.w.illegal_board = board
        self._verdict(
            "illegal",
            mover,
            play=j.play,
            reasons=j.reasons,
            closest_legal=j.closest_legal,
            judgement=j,
            before=before,
            after=after,
            points_differing=self._points_differing(mover, after, j.closest_signed),
        )
        self._set_phase(Phase.CORRECTION)

    def _accept_play(self, mover: int, dice, before, after, kind: str, j: Optional[Judgement]) -> None:
        from companion.position import Position

        self._verdict(kind, mover, play=None if j is None else j.play, judgement=j, before=before, after=after,
                      dice=dice)
        self.w.illegal_board = None
        self.w.in_progress = None
        self._act("play", Position.from_signed(list(after)), mover)
        self._sync_phase()

    @staticmethod
    def _points_differing(mover: int, after: Sequence[int], target: Optional[Sequence[int]]) -> tuple[int, ...]:
        if target is None:
            return ()
        return tuple(sorted(table_point(mover, i) for i in range(1, 25) if after[i] != target[i]))

    # ------------------------------------------------------- a correction
    def _on_correction(self, obs: Observation, board: tuple[int, ...]) -> None:
        w = self.w
        m = self.match
        mover = m.on_roll
        other = 1 - mover
        before = self.view(mover, self.table_board())
        after = self.view(mover, board)
        if self.settings.illegal_play_policy == "opponent_option" and (
            any(d.half == right_half(other) for d in obs.dice)
            or self._double_seen(obs, doubler=other)
        ):
            # the opponent accepts the illegal play by rolling or doubling
            from companion.position import Position

            self._push()
            self._verdict(
                "accepted",
                mover,
                reasons=({"code": "accepted", "message": "the opponent accepted the play by rolling or doubling"},),
                before=before,
                after=after,
            )
            w.illegal_board = None
            self._act("correct", Position.from_signed(list(swap_signed(after))), on_roll=other, dice=None,
                      reason="illegal play accepted by the opponent")
            self._sync_phase()
            if w.phase == Phase.ROLL:
                self._dispatch(obs)
            return
        if board == w.illegal_board or board == self.table_board():
            return
        j = judge(before, m.dice, after, complete=True, plays=self._plays(before, m.dice))
        if j.kind == "legal":
            self._push()
            self._accept_play(mover, m.dice, before, after, "corrected", j)

    # ------------------------------------------------------------ the cube
    @staticmethod
    def _cube_key(obs: Observation) -> Optional[tuple]:
        if obs.cube is None:
            return None
        value = 1 if obs.cube.value == 64 else obs.cube.value
        return (value, obs.cube.place)

    def _cube_expected(self) -> tuple:
        cube = self.match.cube
        return (cube.value, "centre" if cube.owner is None else cube_side(cube.owner))

    def _double_seen(self, obs: Observation, doubler: Optional[int] = None) -> bool:
        """True when ``doubler`` (default: the player on roll) has doubled, once
        the cube was seen in its place (centre, or the owner's side) before (a
        cube left turned on a player's side from the last game is not a
        double): the cube shows twice its value, or, whatever face is read (a
        face is easily misread: a 2 as 32, a centred 64 as 16), it has left
        its place for the side of the doubler's opponent, where only a taken
        double puts it."""
        key = self._cube_key(obs)
        expected = self._cube_expected()
        if key is None:
            return False
        if key[1] == expected[1] and key[0] != expected[0] * 2:
            # where it belongs (its face may be misread: a centred 64 read as 16)
            self.w.cube_synced = True
            return False
        if not self.w.cube_synced:
            return False
        if key[0] == expected[0] * 2:
            return True
        doubler = self.match.on_roll if doubler is None else doubler
        return doubler is not None and key[1] != expected[1] and key[1] == cube_side(1 - doubler)

    def _check_cube(self, obs: Observation, player: int) -> bool:
        """While ``player`` is about to roll: a double? True when the cube reading
        was handled (the dice are then not looked at this time)."""
        w = self.w
        key = self._cube_key(obs)
        if not self._double_seen(obs):
            # in place, unread, or not a double: an unexplained cube decides nothing
            if key == self._cube_expected():
                w.reported_cube = None
            return False
        if key == w.reported_cube:
            return True
        problem = self.match.double_error(player)
        if problem:
            w.reported_cube = key
            self._verdict(
                "illegal",
                player,
                reasons=({"code": "illegal_double", "message": problem},),
                record=False,
            )
            return True
        self._push()
        self._act("double", player)
        w.reported_cube = None
        self._set_phase(Phase.CUBE_RESPONSE)
        if key[1] == cube_side(1 - player):
            self._take(1 - player)
        return True

    def _on_cube_response(self, obs: Observation, board: tuple[int, ...]) -> None:
        m = self.match
        doubler = m.on_roll
        taker = 1 - doubler
        key = self._cube_key(obs)
        if key is not None and key[1] == cube_side(taker):  # any face: easily misread
            self._take(taker)
            if obs.dice:
                self._dispatch(obs)
            return
        # dropped: the cube turned back and left in the centre (any face but the
        # offered one: a centred 64 is easily misread), or the checkers set up anew
        dropped = key is not None and key[1] == "centre" and key[0] != m.cube.value * 2
        if dropped or (board == START_SIGNED and self.table_board() != START_SIGNED):
            self.drop(taker, by="table")
            if self.w.phase == Phase.GAME_OVER:
                self._dispatch(obs)
            return
        if len(obs.dice) == 2 and all(d.half == right_half(doubler) for d in obs.dice):
            self._take(taker)  # the doubler rolled: the double was taken
            self._dispatch(obs)

    def _take(self, taker: int) -> None:
        self._push()
        self._act("take", taker)
        self._sync_phase()

    def drop(self, player: int, by: str = "keyboard") -> None:
        """``player`` drops the pending double: the doubler wins the cube's value
        before the double. Raises :class:`RefereeError` when no double waits for
        ``player``'s answer."""
        if self.w.phase != Phase.CUBE_RESPONSE or self.match.cube.responder != player:
            raise RefereeError(f"no double waits for player {player}'s answer")
        self._push()
        self._act("drop", player)
        self._sync_phase()

    def take(self, player: int, by: str = "keyboard") -> None:
        """``player`` takes the pending double (keyboard or dashboard). Raises
        :class:`RefereeError` when no double waits for ``player``'s answer."""
        if self.w.phase != Phase.CUBE_RESPONSE or self.match.cube.responder != player:
            raise RefereeError(f"no double waits for player {player}'s answer")
        self._take(player)

    def double(self, player: int, by: str = "keyboard") -> None:
        """``player`` doubles (keyboard or dashboard). Raises :class:`RefereeError`
        with the rule when the double is not allowed now."""
        if self.w.phase != Phase.ROLL:
            raise RefereeError("a double is offered only before rolling")
        problem = self.match.double_error(player)
        if problem:
            raise RefereeError(problem)
        self._push()
        self._act("double", player)
        self._set_phase(Phase.CUBE_RESPONSE)

    # ------------------------------------------------------------ game end
    def _on_game_over(self, obs: Observation, board: tuple[int, ...]) -> None:
        if self.match.over:
            return
        if board == START_SIGNED:
            self._push()
            self.w.reported_dice = None
            self.w.reported_change = None
            self.w.reported_cube = None
            self.w.cube_synced = False
            self._set_phase(Phase.OPENING)
            if obs.dice:
                self._dispatch(obs)

    # ------------------------------------------------------- resignations
    def resign(self, player: int, level: int, by: str = "keyboard") -> None:
        """``player`` offers to resign at ``level`` (1 single, 2 gammon, 3
        backgammon). Raises :class:`RefereeError` outside a game or for bad values."""
        if player not in (0, 1) or level not in (1, 2, 3):
            raise RefereeError("resign needs a player 0 or 1 and a level 1, 2 or 3")
        if self.w.phase not in (Phase.ROLL, Phase.PLAY, Phase.CUBE_RESPONSE):
            raise RefereeError(f"no resignation while waiting for {self.w.phase.value.replace('_', ' ')}")
        self._push()
        self._act("resign", player, level)
        self._set_phase(Phase.RESIGNATION)

    def answer_resignation(self, accept: bool, by: str = "keyboard") -> None:
        """The opponent accepts (the game ends, level x cube points) or refuses the
        pending resignation. Raises :class:`RefereeError` when none is pending."""
        m = self.match
        if self.w.phase != Phase.RESIGNATION or m.resigner is None:
            raise RefereeError("no resignation is pending")
        self._push()
        answerer = 1 - m.resigner
        if accept:
            self._act("accept", answerer)
            self._sync_phase()
        else:
            self._act("refuse", answerer)
            self._sync_phase()

    # ---------------------------------------------------------- overrides
    @staticmethod
    def _check_dice(dice: Sequence[int]) -> tuple[int, int]:
        try:
            a, b = (int(v) for v in dice)
        except (TypeError, ValueError):
            raise RefereeError(f"dice are two numbers 1-6, got {dice!r}") from None
        if not (1 <= a <= 6 and 1 <= b <= 6):
            raise RefereeError(f"dice are two numbers 1-6, got {dice!r}")
        return a, b

    def set_dice(self, dice: Sequence[int], by: str = "keyboard") -> None:
        """Override a misread roll with ``dice`` (two values 1..6). While a player
        is about to roll it is the roll; during a play it replaces the dice; during
        a correction the finished board is judged again with them. Raises
        :class:`RefereeError`."""
        dice = self._check_dice(dice)
        w = self.w
        m = self.match
        if w.phase == Phase.ROLL:
            self.bus.publish(OverrideEvent(action="set_dice", by=by, detail={"dice": list(dice)}))
            self._roll(m.on_roll, dice)
            return
        if w.phase not in (Phase.PLAY, Phase.CORRECTION):
            raise RefereeError(f"no roll to set while waiting for {w.phase.value.replace('_', ' ')}")
        self._push()
        w.withdrawn = False
        w.roll = ()  # the dice set by hand are not read again
        self.bus.publish(OverrideEvent(action="set_dice", by=by, detail={"dice": list(dice), "was": list(m.dice or ())}))
        self._act("correct", m.position, on_roll=m.on_roll, dice=dice, reason=f"dice set by {by}")
        if w.phase == Phase.CORRECTION and w.illegal_board is not None:
            w.phase = Phase.PLAY
            self._end_turn(w.illegal_board, push=False)
        else:
            self._publish_turn()

    def set_position(self, position_id: str, by: str = "keyboard") -> None:
        """Override the board with a gnubg Position ID. While a player is about to
        roll: the ID is from that player's view and the same player stays on roll.
        During a play or a correction the board is taken as the end of the turn:
        the ID is from the view of the next player, who is then on roll. Raises
        :class:`RefereeError` (a ``ValueError``) for a malformed ID or outside a game."""
        from companion.position import Position

        w = self.w
        m = self.match
        try:
            pos = Position.from_position_id(position_id)
        except ValueError as exc:
            raise RefereeError(f"bad position ID {position_id!r}: {exc}") from None
        if w.phase == Phase.ROLL:
            on_roll = m.on_roll
        elif w.phase in (Phase.PLAY, Phase.CORRECTION):
            on_roll = 1 - m.on_roll
        else:
            raise RefereeError(f"no position to set while waiting for {w.phase.value.replace('_', ' ')}")
        self._push()
        self.bus.publish(OverrideEvent(action="set_position", by=by, detail={"position_id": position_id, "on_roll": on_roll}))
        self._act("correct", pos, on_roll=on_roll, dice=None, reason=f"position set by {by}")
        w.illegal_board = None
        w.reported_change = None
        w.in_progress = None
        w.withdrawn = False
        self._sync_phase()

    def accept_board(self, by: str = "keyboard") -> None:
        """Accept the illegal play on the board as it stands (the referee's call,
        or the opponent's option): the turn passes. Raises :class:`RefereeError`
        unless the referee waits for a correction."""
        from companion.position import Position

        w = self.w
        if w.phase != Phase.CORRECTION or w.illegal_board is None:
            raise RefereeError("there is no illegal play to accept")
        mover = self.match.on_roll
        before = self.view(mover, self.table_board())
        after = self.view(mover, w.illegal_board)
        self._push()
        self.bus.publish(OverrideEvent(action="accept", by=by, detail={"position_id": Position.from_signed(list(after)).position_id()}))
        self._verdict("accepted", mover, reasons=({"code": "accepted", "message": f"the play was accepted by {by}"},),
                      before=before, after=after)
        w.illegal_board = None
        self._act("correct", Position.from_signed(list(swap_signed(after))), on_roll=1 - mover, dice=None,
                  reason=f"illegal play accepted by {by}")
        self._sync_phase()

    def undo(self, by: str = "keyboard") -> None:
        """Undo the last verdict, roll, cube action, resignation or override.
        Raises :class:`RefereeError` when there is nothing to undo."""
        if not self._history:
            raise RefereeError("nothing to undo")
        snap = self._history.pop()
        while len(self.match.actions) > snap.match_actions:
            self.match.undo()
        self.w = snap
        self.bus.publish(OverrideEvent(action="undo", by=by, detail={"waiting_for": snap.phase.value}))
        self._publish_turn()

    # ------------------------------------------------------------ verdicts
    def _verdict(
        self,
        kind: str,
        player: Optional[int],
        play: Optional[str] = None,
        reasons: Sequence[dict[str, str]] = (),
        closest_legal: Optional[str] = None,
        judgement: Optional[Judgement] = None,
        before: Optional[Sequence[int]] = None,
        after: Optional[Sequence[int]] = None,
        points_differing: Sequence[int] = (),
        record: bool = True,
        dice: Optional[Sequence[int]] = None,
    ) -> None:
        from companion.position import Position

        p = 0 if player is None else player
        if before is None:
            before = self.view(p, self.table_board())
        played: tuple[int, ...] = ()
        target = after if kind != "illegal" else (judgement.closest_signed if judgement else None)
        if target is not None:
            played = tuple(sorted(table_point(p, i) for i in range(1, 25) if before[i] != target[i]))
        dice = dice if dice is not None else self.match.dice
        event = VerdictEvent(
            verdict=kind,
            player=p,
            dice=tuple(dice) if dice else (0, 0),
            play=play,
            reasons=tuple(reasons),
            closest_legal=closest_legal,
            position_id_before=Position.from_signed(list(before)).position_id(),
            position_id_after="" if after is None else Position.from_signed(list(after)).position_id(),
            points_differing=tuple(points_differing),
            points_played=played,
        )
        if record:
            self.w.last_verdict = event.to_dict()
        self.bus.publish(event)

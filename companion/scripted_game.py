"""Scripted games: what a camera would see at a table, scene by scene, with the
events a correct referee must publish. Used by the demo recording, the
end-to-end tests and the ``watch`` benchmark.

A :class:`Script` is a list of :class:`Scene` (the table board, the dice, the
cube, whether a hand is over the board, how many frames it lasts) and the
expected events (``{"type": ..., ...}`` subsets of ``Event.to_dict()``).
:func:`random_game` plays seeded games by the rules (``companion.legal``): the
opening roll (ties included), random legal plays animated checker by checker
with hands over the board, cocked rolls, illegal plays and their corrections,
doubles with takes and drops, to the end of the game and its score (money or
match play, scored by ``companion.match.Match``). Ground truth comes from the
rules and the match, never from the referee.

Standard library only (plus the rules and the match).
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any, Optional, Sequence

from companion.observation import CubeReading, DieReading, Observation
from companion.table import START_SIGNED, TableLayout, cube_side, right_half, signed_to_observation, swap_signed

STILL_FRAMES = 5
HAND_FRAMES = 2


@dataclasses.dataclass(frozen=True)
class DieSpec:
    """A die on the table: ``value`` 1..6, ``half`` ``"left"``/``"right"`` of the
    bar in the image (``None``: off the playing field, on the rail beside it),
    ``cocked`` (tilted against the board's edge or a checker), ``slot`` 0 or 1
    (which of two positions in that half), ``owner`` the image side
    (``"bottom"``/``"top"``) of the player whose set it is by colour (``None``:
    the sets are not told apart). Its ``repr`` seeds where thrown dice lie
    (``companion.demo._thrown_dice``): a new field moves the dice of every seeded game."""

    value: int
    half: Optional[str]
    cocked: bool = False
    slot: int = 0
    owner: Optional[str] = None


@dataclasses.dataclass(frozen=True)
class Scene:
    """What the camera sees for ``frames`` frames: ``board`` (26 signed ints,
    player 0's view: the table), ``dice``, ``cube`` (value shown, place; a
    centred cube shows 64), ``hand`` (a hand or arm over the board)."""

    board: tuple[int, ...]
    dice: tuple[DieSpec, ...] = ()
    cube: tuple[int, str] = (64, "centre")
    hand: bool = False
    frames: int = STILL_FRAMES
    note: str = ""


@dataclasses.dataclass
class Script:
    """Scenes and the events a correct referee publishes for them, in order."""

    scenes: list[Scene] = dataclasses.field(default_factory=list)
    expected: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    match_length: int = 0

    @property
    def frames(self) -> int:
        """Total frames."""
        return sum(s.frames for s in self.scenes)


def scene_observation(scene: Scene, layout: TableLayout = TableLayout(), frame_index: int = 0,
                      timestamp_ms: float = 0.0) -> Observation:
    """The Observation a perfect reader would give for ``scene``."""
    dice = []
    for d in scene.dice:
        x = {"right": 820.0, "left": 300.0}.get(d.half or "", 1220.0) + (90.0 * d.slot if d.half else 0.0)
        y = 360.0 if d.half else 200.0 + 90.0 * d.slot
        dice.append(
            DieReading(
                value=d.value,
                center=(x, y),
                box=(x - 22, y - 22, x + 22, y + 22),
                cocked=d.cocked,
                reason="tilted" if d.cocked else None,
                message="the die leans against the board's edge" if d.cocked else None,
                half=d.half,  # type: ignore[arg-type]
                owner=d.owner,  # type: ignore[arg-type]
            )
        )
    value, place = scene.cube
    return signed_to_observation(
        scene.board,
        0,
        layout,
        dice=tuple(dice),
        cube=CubeReading(value=value, place=place),  # type: ignore[arg-type]
        occluded=scene.hand,
        frame_index=frame_index,
        timestamp_ms=timestamp_ms,
    )


def observations(script: Script, layout: TableLayout = TableLayout(), fps: float = 30.0,
                 misread_rate: float = 0.0, seed: int = 0) -> list[tuple[Observation, bool]]:
    """Every frame of ``script`` as (Observation, moving): the first frame of each
    scene that differs from the previous one is moving (things were put down).
    ``misread_rate``: chance that a still frame (not the first two of a scene)
    sees one checker on the neighbouring point (the totals stay possible, so
    only the votes can catch it) or one die as another value; at least two good frames separate two
    misreads, so any three consecutive frames hold at most one."""
    rng = random.Random(seed)
    out = []
    index = 0
    previous: Optional[Scene] = None
    for scene in script.scenes:
        good_since = 2  # still frames read right since the last misread
        for k in range(scene.frames):
            obs = scene_observation(scene, layout, index, index * 1000.0 / fps)
            moving = k == 0 and previous is not None and scene != previous
            if not scene.hand and k >= 2 and good_since >= 2 and rng.random() < misread_rate:
                obs = _misread(obs, rng)
                good_since = 0
            else:
                good_since += 1
            out.append((obs, moving))
            index += 1
        previous = scene
    return out


def _misread(obs: Observation, rng: random.Random) -> Observation:
    """``obs`` with one checker seen on a neighbouring point (empty or of its
    colour), or, when dice are down, one die read as another value."""
    if obs.dice and rng.random() < 0.5:
        dice = list(obs.dice)
        k = rng.randrange(len(dice))
        dice[k] = dataclasses.replace(dice[k], value=dice[k].value % 6 + 1)
        return dataclasses.replace(obs, dice=tuple(dice))
    pts = list(obs.points)
    choices = []
    for p in pts:
        if p.count == 0:
            continue
        for q in (p.point - 1, p.point + 1):
            if 1 <= q <= 24 and (pts[q - 1].count == 0 or pts[q - 1].colour == p.colour):
                choices.append((p.point, q))
    if not choices:
        return obs
    src, dst = rng.choice(choices)
    a, b = pts[src - 1], pts[dst - 1]
    pts[src - 1] = dataclasses.replace(a, count=a.count - 1, colour=a.colour if a.count > 1 else None)
    pts[dst - 1] = dataclasses.replace(b, count=b.count + 1, colour=a.colour)
    return dataclasses.replace(obs, points=tuple(pts))


class _Builder:
    """Builds a script while playing a match by the rules."""

    def __init__(self, match_length: int, seed: int, still_frames: int = STILL_FRAMES,
                 hand_frames: int = HAND_FRAMES) -> None:
        from companion.match import Match

        self.still_frames = still_frames
        self.hand_frames = hand_frames
        self.rng = random.Random(seed)
        self.match = Match(match_length)
        self.script = Script(match_length=match_length)
        self.board = START_SIGNED
        self.cube: tuple[int, str] = (64, "centre")

    # scenes -------------------------------------------------------------
    def show(self, dice: Sequence[DieSpec] = (), frames: Optional[int] = None, note: str = "") -> None:
        frames = self.still_frames if frames is None else frames
        self.script.scenes.append(Scene(self.board, tuple(dice), self.cube, False, frames, note))

    def hand(self, dice: Sequence[DieSpec] = (), frames: Optional[int] = None) -> None:
        frames = self.hand_frames if frames is None else frames
        self.script.scenes.append(Scene(self.board, tuple(dice), self.cube, True, frames))

    def expect(self, **event: Any) -> None:
        self.script.expected.append(event)

    def sync_cube(self) -> None:
        c = self.match.cube
        self.cube = (64, "centre") if c.owner is None else (c.value, cube_side(c.owner))

    # game steps ---------------------------------------------------------
    def opening(self) -> tuple[DieSpec, DieSpec]:
        """Opening rolls until the dice differ; returns the last roll's dice as thrown (player
        0's die in the image's right half, player 1's in the left), which the winner plays as
        they lie (USBGF rules: the winner of the opening roll plays the numbers on both dice)."""
        while True:
            d0, d1 = self.rng.randint(1, 6), self.rng.randint(1, 6)
            self.hand()
            dice = (DieSpec(d0, "right"), DieSpec(d1, "left"))
            self.show(dice)
            self.expect(type="roll", dice=[d0, d1], opening=True)
            self.match.opening_roll((d0, d1))
            if d0 != d1:
                return dice
            self.hand(dice)
            self.show()

    def cocked_roll(self, player: int) -> None:
        a, b = self.rng.randint(1, 6), self.rng.randint(1, 6)
        dice = (DieSpec(a, right_half(player), cocked=True), DieSpec(b, right_half(player), slot=1))
        self.hand()
        self.show(dice)
        self.expect(type="cocked_dice", player=player)
        self.hand(dice)
        self.show()

    def roll(self, player: int) -> tuple[int, int]:
        a, b = self.rng.randint(1, 6), self.rng.randint(1, 6)
        self.hand()
        self.show((DieSpec(a, right_half(player)), DieSpec(b, right_half(player), slot=1)))
        self.expect(type="roll", player=player, dice=[a, b])
        self.match.roll((a, b), player)
        return a, b

    def play(self, player: int, dice_specs: tuple[DieSpec, ...], illegal: bool) -> bool:
        """The player on roll plays; returns True when the game ended."""
        from companion.legal import legal_plays
        from companion.play import apply_steps
        from companion.position import Position

        m = self.match
        before = Position.from_signed(list(self.view(player, self.board)))
        lp = legal_plays(before, m.dice)
        plays = list(lp)
        chosen = self.rng.choice(plays) if plays else None
        steps = [] if chosen is None else [(mv.from_point, mv.to_point) for mv in chosen.moves]
        # animate: one checker move at a time, a hand over the board in between
        pos = before
        for k, step in enumerate(steps):
            pos = apply_steps(pos, [step])
            self.hand(dice_specs)
            self.board = self.table(player, pos.to_signed())
            self.show(dice_specs)
        final = pos
        if illegal and chosen is not None:
            wrong = self.illegal_variant(before, lp, steps)
            if wrong is not None:
                self.hand(dice_specs)
                self.board = self.table(player, wrong.to_signed())
                self.show(dice_specs)
                self.hand()
                self.show()  # the dice are picked up: end of turn
                self.expect(type="verdict", verdict="illegal", player=player)
                self.hand()
                self.board = self.table(player, final.to_signed())
                self.show()
                self.expect(type="verdict", verdict="corrected", player=player)
                return self.commit(player, final)
        self.hand()
        self.show()  # dice picked up
        self.expect(type="verdict", verdict="legal", player=player)
        return self.commit(player, final)

    def commit(self, player: int, final) -> bool:
        events = self.match.play(final, player)
        for e in events:
            d = e.to_dict()
            if d["type"] == "game_end":
                self.expect(type="game_end", winner=d["winner"], points=d["points"], score=list(d["score"]))
                return True
        return False

    def illegal_variant(self, before, lp, steps):
        """A board one pip off the chosen play: a checker stopped one point short
        or moved one point too far (not a legal result, a possible board)."""
        from companion.play import apply_steps

        candidates = []
        for i, (s, t) in enumerate(steps):
            for delta in (-1, 1):
                t2 = t + delta
                if t2 < 1 or t2 >= s or t2 > 24:
                    continue
                alt = steps[:i] + [(s, t2)] + steps[i + 1:]
                try:
                    pos = apply_steps(before, alt)
                except ValueError:
                    continue
                if pos in lp or pos == before:
                    continue
                candidates.append(pos)
        return self.rng.choice(candidates) if candidates else None

    def double(self, player: int, drop: bool) -> bool:
        """``player`` doubles; the opponent takes or drops. True if the game ended."""
        m = self.match
        value = m.cube.value
        self.hand()
        self.cube = (value * 2, "centre")
        self.show()
        self.expect(type="cube", action="double", player=player)
        m.double(player)
        taker = 1 - player
        self.hand()
        if drop:
            events = m.drop(taker)
            self.cube = (64, "centre")
            self.show()
            self.expect(type="cube", action="drop", player=taker)
            for e in events:
                d = e.to_dict()
                if d["type"] == "game_end":
                    self.expect(type="game_end", winner=d["winner"], points=d["points"], score=list(d["score"]))
            return True
        m.take(taker)
        self.cube = (value * 2, cube_side(taker))
        self.show()
        self.expect(type="cube", action="take", player=taker)
        return False

    def new_game_setup(self) -> None:
        self.hand()
        self.board = START_SIGNED
        self.cube = (64, "centre")
        self.show()

    # views ---------------------------------------------------------------
    @staticmethod
    def view(player: int, table: Sequence[int]) -> tuple[int, ...]:
        return tuple(table) if player == 0 else swap_signed(table)

    @staticmethod
    def table(player: int, signed: Sequence[int]) -> tuple[int, ...]:
        return tuple(signed) if player == 0 else swap_signed(signed)


def random_game(
    seed: int,
    match_length: int = 0,
    illegal_rate: float = 0.08,
    cocked_rate: float = 0.06,
    double_rate: float = 0.04,
    drop_rate: float = 0.4,
    max_turns: Optional[int] = None,
    games: int = 1,
    still_frames: int = STILL_FRAMES,
    hand_frames: int = HAND_FRAMES,
) -> Script:
    """A seeded script of ``games`` whole games (the last one ends the script).

    Each turn: possibly a double (``double_rate``, when the match allows it),
    taken or dropped (``drop_rate``); possibly a cocked roll first
    (``cocked_rate``); then a roll and a random legal play, illegal with
    ``illegal_rate`` (then corrected). After ``max_turns`` turns in a game the
    player on roll doubles and the opponent drops, as soon as the match allows
    a double, so games stay short. ``still_frames`` / ``hand_frames``: how
    long a still board / a hand over the board lasts, in frames.
    """
    b = _Builder(match_length, seed, still_frames, hand_frames)
    b.show()
    for game in range(games):
        if game:
            b.new_game_setup()
        specs = b.opening()
        m = b.match
        player = m.on_roll
        turns = 0
        ended = b.play(player, specs, illegal=b.rng.random() < illegal_rate)
        while not ended:
            turns += 1
            player = m.on_roll
            force = max_turns is not None and turns >= max_turns
            if (force or b.rng.random() < double_rate) and m.double_error(player) is None:
                if b.double(player, drop=force or b.rng.random() < drop_rate):
                    break
            if b.rng.random() < cocked_rate:
                b.cocked_roll(player)
            a, c = b.roll(player)
            specs = (DieSpec(a, right_half(player)), DieSpec(c, right_half(player), slot=1))
            ended = b.play(player, specs, illegal=b.rng.random() < illegal_rate)
        if m.over:
            break
    b.show()
    return b.script


COMPARED = {
    "roll": ("player", "dice", "opening"),
    "cocked_dice": ("player",),
    "verdict": ("verdict", "player"),
    "cube": ("action", "player"),
    "game_end": ("winner", "points", "score"),
}


def comparable(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The judged events of a run (rolls, cocked dice, verdicts other than
    ``in_progress``, cube actions, game ends) reduced to the fields a script
    predicts, for comparing with :attr:`Script.expected`. A roll ``revised`` (read again
    where its dice lie, before its play is judged) replaces the roll before it, as it does
    in the match record."""
    out = []
    for e in events:
        t = e.get("type")
        if t not in COMPARED:
            continue
        if t == "verdict" and e.get("verdict") in ("in_progress",):
            continue
        if t == "roll" and e.get("revised"):
            last = max((i for i, o in enumerate(out) if o["type"] == "roll"), default=None)
            if last is not None:
                del out[last]
        out.append({"type": t, **{k: (list(e[k]) if isinstance(e[k], tuple) else e[k]) for k in COMPARED[t] if k in e}})
    return out


VERDICT_STREAM = ("verdict", "cube", "game_end")


def verdict_stream(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The referee's decisions only (verdicts, cube actions, game ends) of
    :func:`comparable` events: what must equal the truth even when a cocked die
    was missed by the camera and taken back as a re-roll."""
    return [e for e in events if e["type"] in VERDICT_STREAM]


def accusation_counts(got: Sequence[dict[str, Any]], expected: Sequence[dict[str, Any]]) -> tuple[int, int, int]:
    """``(caught, false, missed)`` illegal plays of a run: its :func:`comparable` events
    ``got`` against the truth ``expected`` (:func:`expected_comparable`). The two decision
    streams (:func:`verdict_stream`) are aligned (``difflib.SequenceMatcher``; decisions that
    differ in place pair up one for one): an "illegal" verdict paired with an illegal play
    caught it; any other "illegal" verdict is a false accusation, and an illegal play paired
    with no "illegal" verdict was missed. Counting only totals would let a false accusation
    and a missed illegal play of one game cancel out."""
    import difflib
    import json

    a, b = verdict_stream(got), verdict_stream(expected)
    key = [json.dumps(e, sort_keys=True) for e in a], [json.dumps(e, sort_keys=True) for e in b]
    caught = 0
    for _, i1, i2, j1, j2 in difflib.SequenceMatcher(None, *key, autojunk=False).get_opcodes():
        for i, j in zip(range(i1, i2), range(j1, j2)):
            caught += a[i].get("verdict") == "illegal" and b[j].get("verdict") == "illegal"
    accused = sum(1 for e in a if e.get("verdict") == "illegal")
    illegal = sum(1 for e in b if e.get("verdict") == "illegal")
    return caught, accused - caught, illegal - caught


def expected_comparable(script: Script) -> list[dict[str, Any]]:
    """:attr:`Script.expected` reduced like :func:`comparable` (an opening roll's
    player is whoever moves first; a tie names player 0)."""
    out = []
    for e in script.expected:
        t = e["type"]
        d = {"type": t}
        for k in COMPARED[t]:
            if k in e:
                d[k] = e[k]
        if t == "roll" and e.get("opening"):
            d0, d1 = e["dice"]
            d["player"] = 0 if d0 >= d1 else 1
        elif t == "roll":
            d["opening"] = False
        out.append(d)
    return out

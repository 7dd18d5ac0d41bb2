"""Judging an observed change of the board against the rules.

:func:`judge` looks the observed position up among the positions every legal play
would produce (picochess' method), then among the positions of legal prefixes
(a play still in progress: the referee stays silent), and otherwise explains
what went wrong: every reason that applies, each a stable ``code`` and a
sentence a beginner understands, plus the legal play closest to what was done.

Reason codes (stable; the dashboard and the LED board key on them):

=====================  ===========================================================
``count_mismatch``     checkers were added to or removed from the board
``both_colours``       checkers of both colours on one point
``opponent_moved``     the opponent's checkers moved other than by being hit
``hit_not_on_bar``     a hit checker was taken off but not put on the bar
``moved_backwards``    a checker moved away from its home board
``wrong_distance``     a move no die (or combination of the dice) allows
``point_held``         a checker landed on a point the opponent holds
``bar_first``          another checker moved while one was on the bar
``bear_off_outside``   bearing off while a checker is outside the home board
``bear_off_die``       bearing off with a die that does not allow it
``both_dice``          not using both dice when both could be used
``higher_die``         the lower die played when only the higher may be played
``doubles_moves``      fewer moves than possible with doubles
``must_play``          no move made although a legal play exists (``complete``)
``not_legal``          none of the above fits, yet the result is not legal
=====================  ===========================================================

Standard library only.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional, Sequence, Union

from companion.dice import Dice
from companion.legal import LegalPlays, legal_plays
from companion.play import CheckerMove, Play, format_moves
from companion.position import BAR, CHECKERS, OFF, Position, PositionStatus

__all__ = ["judge", "Verdict", "Reason", "KINDS", "REASON_CODES"]

KINDS = ("legal", "illegal", "in_progress", "no_change")
REASON_CODES = ("count_mismatch", "both_colours", "opponent_moved", "hit_not_on_bar",
                "moved_backwards", "wrong_distance", "point_held", "bar_first",
                "bear_off_outside", "bear_off_die", "both_dice", "higher_die",
                "doubles_moves", "must_play", "not_legal")


@dataclasses.dataclass(frozen=True)
class Reason:
    """Why a play is illegal: ``code`` (one of :data:`REASON_CODES`) and ``message``
    (one plain sentence)."""

    code: str
    message: str

    def to_dict(self) -> dict[str, str]:
        """``{"code": ..., "message": ...}``."""
        return {"code": self.code, "message": self.message}


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The judgement of one observed change.

    ``kind``: ``"legal"``, ``"illegal"``, ``"in_progress"`` or ``"no_change"``.
    ``play``: the checker moves seen (the legal play, the prefix played so far,
    or for an illegal change the moves that explain it when they can be found;
    ``None`` otherwise). ``reasons``: empty unless illegal. ``closest_legal``:
    for an illegal change, the legal play whose result is nearest to what was
    seen (``None`` when the player has no legal play). ``dance``: the player has
    no legal play at all (then ``no_change`` is the right outcome).
    """

    kind: str
    play: Optional[Play] = None
    reasons: tuple[Reason, ...] = ()
    closest_legal: Optional[Play] = None
    dance: bool = False

    @property
    def codes(self) -> tuple[str, ...]:
        """The reason codes in order."""
        return tuple(r.code for r in self.reasons)

    def to_dict(self) -> dict[str, Any]:
        """The ``companion check --json`` object: ``{"verdict", "play", "reasons",
        "closest_legal"}`` (``play`` ``""`` when no move is seen, ``closest_legal``
        ``null`` when there is none)."""
        return {
            "verdict": self.kind,
            "play": self.play.notation() if self.play is not None else "",
            "reasons": [r.to_dict() for r in self.reasons],
            "closest_legal": (self.closest_legal.notation()
                              if self.closest_legal is not None else None),
        }


def judge(before: Position, dice: Union[Dice, tuple[int, int]], after: Position,
          complete: bool = False, plays: Optional[LegalPlays] = None) -> Verdict:
    """Judge the change from ``before`` (valid position, player on roll) to the
    observed ``after`` (same player's view, turn not yet passed) with ``dice``.

    ``complete=False`` (a live board): a legal prefix gives ``in_progress`` and an
    unchanged board ``no_change``. ``complete=True`` (the turn is over, e.g. the
    dice were picked up): a prefix or an unchanged board is ``illegal`` when a
    fuller play was possible. ``plays`` may pass a precomputed
    ``legal_plays(before, dice)``. Raises ``ValueError`` (``IllegalPositionError``)
    when ``before`` is not a valid position, ``DiceError`` for bad dice; an
    impossible ``after`` is judged (``count_mismatch``, ...), never raised.

    >>> judge(Position.initial(), Dice(3, 1), Play.from_notation("8/5 6/5")
    ...       .apply_unchecked(Position.initial())).kind
    'legal'
    >>> v = judge(Position.initial(), Dice(3, 1), Play.from_notation("8/5")
    ...           .apply_unchecked(Position.initial()), complete=True)
    >>> v.kind, v.codes
    ('illegal', ('both_dice',))
    """
    if not isinstance(dice, Dice):
        dice = Dice(*dice)
    if plays is None:
        plays = legal_plays(before, dice)
    dance = len(plays) == 0
    if after == before:
        if complete and not dance:
            best = _best_play(plays, after)
            return Verdict("illegal", Play(()), (Reason(
                "must_play", f"You must play when you can: {best.notation()} was possible."),),
                best)
        return Verdict("no_change", Play(()), (), None, dance)
    legal = plays.play_for(after)
    if legal is not None:
        return Verdict("legal", legal, (), None, False)
    if not complete and plays.is_prefix(after):
        return Verdict("in_progress", plays.prefix_play(after), (), None, False)
    return _explain(before, dice, after, plays, complete)


# ----------------------------------------------------------------- diagnosis
def _distance(a: Position, b: Position) -> int:
    """Pips the mover's checkers of ``a`` stand away from those of ``b`` (earth
    mover's distance along the track) plus the opponent's misplaced checkers."""
    carried = 0
    pips = 0
    for x, y in zip(reversed(a.mover), reversed(b.mover)):
        carried += x - y
        pips += abs(carried)
    return pips + sum(abs(x - y) for x, y in zip(a.opponent, b.opponent))


def _best_play(plays: LegalPlays, after: Position,
               seen_steps: Sequence[tuple[int, int]] = ()) -> Optional[Play]:
    """The legal play whose result is nearest to ``after`` (checkers out of place);
    ties go to the play sharing most checker moves with ``seen_steps``."""
    best = None
    best_score = None
    for play in plays:
        assert play.result is not None
        own = [(m.from_point, m.to_point) for m in play.moves]
        shared = 0
        for step in seen_steps:
            if step in own:
                own.remove(step)
                shared += 1
        score = (_distance(play.result, after), -shared)
        if best_score is None or score < best_score:
            best, best_score = play, score
    return best


def _name(p: int) -> str:
    return "the bar" if p == BAR else "off" if p == OFF else f"point {p}"


def _implied_opponent(before: Position, after: Position) -> tuple[int, ...]:
    """The opponent's side as it should be after the mover's checkers in ``after``:
    blots under the mover's checkers hit and on the bar, nothing else changed."""
    opp = list(before.opponent)
    for p in range(1, 25):
        if after.mover[p] and opp[25 - p] == 1:
            opp[25 - p] = 0
            opp[BAR] += 1
    return tuple(opp)


def _explain(before: Position, dice: Dice, after: Position, plays: LegalPlays,
             complete: bool) -> Verdict:
    reasons: list[Reason] = []
    found = None
    if sum(after.mover) == sum(before.mover):
        found = _relaxed_matches(before, dice, after)
    seen_steps = [(s, t) for s, t, _, _ in found[0]] if found else []
    closest = _best_play(plays, after, seen_steps)
    hint = f" {closest.notation()} was possible." if closest is not None else (
        " No legal play exists with this roll." if not plays else "")

    def add(code: str, message: str) -> None:
        if code not in (r.code for r in reasons):
            reasons.append(Reason(code, message))

    status = after.status()
    nm, no = after.count()
    if nm != CHECKERS:
        add("count_mismatch", f"The player on roll now has {nm} checkers instead of 15: "
            f"checkers were {'added' if nm > CHECKERS else 'removed'}.")
    if no != CHECKERS:
        add("count_mismatch", f"The opponent now has {no} checkers instead of 15: "
            f"checkers were {'added' if no > CHECKERS else 'removed'}.")
    if status & PositionStatus.BOTH_COLOURS_ON_POINT:
        pts = [p for p in range(1, 25) if after.mover[p] and after.opponent[25 - p]]
        add("both_colours", "Checkers of both colours stand on "
            + ", ".join(f"point {p}" for p in pts) + ": a hit blot goes to the bar,"
            " and no checker may land on a point the opponent holds.")

    _explain_opponent(before, after, add)

    seen_play: Optional[Play] = None
    movers = {p.result.mover for p in plays}
    if not complete:
        movers.add(before.mover)
        movers.update(pos.mover for pos in plays.prefixes)
    if sum(after.mover) == sum(before.mover) and after.mover in movers:
        play = plays.play_for(Position(after.mover, _implied_opponent(before, after)))
        seen_play = play
    elif sum(after.mover) == sum(before.mover):
        if found is None:
            back = _backwards_point(before, after)
            if back is not None:
                add("moved_backwards", f"A checker moved backwards to {_name(back)}: checkers"
                    " only move forwards, from higher points towards the home board.")
            else:
                add("wrong_distance", f"No die allows {_describe(before, after)}: with "
                    f"{dice.d1}-{dice.d2} a checker moves {_dice_words(dice)} points per die"
                    + (" (or the dice one after the other)." if not dice.is_double else "."))
        else:
            steps, violations = found
            seen_play = Play(tuple(CheckerMove(s, t, h) for s, t, h, _ in steps))
            for code, message in violations:
                add(code, message)
            if not violations:
                _explain_play_rules(dice, plays, steps, hint, add)
    if not reasons:
        add("not_legal", "This is not a legal play with this roll." + hint)
    return Verdict("illegal", seen_play, tuple(reasons), closest, not plays)


def _describe(before: Position, after: Position) -> str:
    """The mover's change as moves: sources and destinations paired highest first."""
    src: list[int] = []
    dst: list[int] = []
    for p in range(25, -1, -1):
        d = after.mover[p] - before.mover[p]
        if d < 0:
            src.extend([p] * -d)
        elif d > 0:
            dst.extend([p] * d)
    moves = [CheckerMove(s, t) for s, t in zip(src, dst) if s > t]
    return format_moves(moves) if moves else "that change"


def _dice_words(dice: Dice) -> str:
    if dice.is_double:
        return f"{dice.d1}"
    return f"{dice.d1} or {dice.d2}"


def _explain_opponent(before: Position, after: Position, add) -> None:
    hits = 0
    moved = False
    for p in range(1, 25):
        bo, ao = before.opponent_at(p), after.opponent_at(p)
        if ao < bo:
            if bo == 1 and ao == 0:  # a blot gone: hit (maybe by a checker passing on)
                hits += 1
            else:
                moved = True
        elif ao > bo:
            moved = True
    if after.opponent[OFF] != before.opponent[OFF]:
        moved = True
    bar_gain = after.opponent[BAR] - before.opponent[BAR]
    if bar_gain < 0:
        moved = True
    if moved or bar_gain > hits:
        add("opponent_moved", "The opponent's checkers must not move during your turn; only "
            "a hit blot leaves its point, for the bar.")
    if bar_gain < hits and sum(after.opponent) < CHECKERS:
        add("hit_not_on_bar", "A hit checker must be placed on the bar, not taken off the board.")


def _backwards_point(before: Position, after: Position) -> Optional[int]:
    """The highest place where more checkers arrived than could come from above
    (a checker moved backwards), else ``None``."""
    arrivals = 0
    departures = 0
    for p in range(25, -1, -1):
        delta = after.mover[p] - before.mover[p]
        if delta > 0:
            arrivals += delta
            if arrivals > departures:
                return p
        elif delta < 0:
            departures -= delta
    return None


def _relaxed_matches(before: Position, dice: Dice, after: Position):
    """Find checker moves, one die each (any subset of the dice, any order), that
    turn ``before``'s mover side into ``after``'s, allowing the single-move rules
    to be broken. Returns ``(steps, violations)`` with the fewest violations
    (``steps``: ``(from, to, hit, die)``), or ``None`` when no such moves exist."""
    target = after.mover
    m = list(before.mover)
    o = [0] * 26  # opponent on the mover's points; o[25] = opponent's bar
    for p in range(1, 25):
        o[p] = before.opponent[25 - p]
    sources = {p for p in range(1, 26) if target[p] < m[p]}
    dice_list = list(dice.moves)
    best: list = [None, None]

    def violations_of(s: int, t: int) -> list[tuple[str, str]]:
        out = []
        if m[BAR] > 0 and s != BAR:
            out.append(("bar_first", f"You have a checker on the bar: it must enter before "
                        f"any other checker moves ({_name(s)} moved)."))
        if t > 0 and o[t] >= 2:
            out.append(("point_held", f"Point {t} is held by the opponent (two or more "
                        "checkers): no checker may land there."))
        if t == 0:
            if any(m[p] for p in range(7, 26)):
                out.append(("bear_off_outside", "You may bear off only when all your "
                            "checkers are in your home board."))
            elif s - die_of[0] < 0 and any(m[p] for p in range(s + 1, 7)):
                out.append(("bear_off_die", f"A {die_of[0]} bears off from {_name(s)} only "
                            "when no checker stands on a higher point; move a checker from "
                            "a higher point instead."))
        return out

    die_of = [0]
    steps: list = []
    viols: list = []

    def rec(remaining: list[int], reached: set[int]) -> None:
        if m == list(target):
            n = len(viols)
            if best[0] is None or n < len(best[1]) or (
                    n == len(best[1]) and len(steps) > len(best[0])):
                best[0], best[1] = list(steps), list(viols)
            return
        if not remaining:
            return
        tried = set()
        for i, d in enumerate(remaining):
            if d in tried:
                continue
            tried.add(d)
            rest = remaining[:i] + remaining[i + 1:]
            for s in sorted(sources | reached, reverse=True):
                if m[s] <= 0:
                    continue
                t = s - d
                if t < 0:
                    t = 0
                die_of[0] = d
                v = violations_of(s, t)
                hit = t > 0 and o[t] == 1
                m[s] -= 1
                m[t] += 1
                if hit:
                    o[t] = 0
                    o[25] += 1
                steps.append((s, t, hit, d))
                viols.extend(v)
                rec(rest, reached | {t} if t else reached)
                for _ in v:
                    viols.pop()
                steps.pop()
                if hit:
                    o[t] = 1
                    o[25] -= 1
                m[t] -= 1
                m[s] += 1

    rec(dice_list, set())
    if best[0] is None:
        return None
    return best[0], best[1]


def _explain_play_rules(dice: Dice, plays: LegalPlays, steps, hint: str, add) -> None:
    used = len(steps)
    if used < plays.max_moves:
        if dice.is_double:
            add("doubles_moves", f"With doubles you must play as many of the four moves as "
                f"you can: {plays.max_moves} were possible, you played {used}." + hint)
        else:
            add("both_dice", "You must use both dice when you can." + hint)
        return
    if used == 1 and plays.max_moves == 1 and not dice.is_double:
        if steps[0][3] == dice.low:
            add("higher_die", "When only one die can be played, you must play the higher "
                f"die ({dice.high})." + hint)
            return
    add("not_legal", "This is not a legal play with this roll." + hint)

"""Legal plays for a position and a roll, one per distinct resulting position.

Rules implemented (standard rules as in gnubg 1.07 ``GenerateMoves``): a play uses
as many dice as possible; when only one die of a non-double can be played, the
higher one must be played if it can; doubles play as many moves as possible;
checkers on the bar enter before anything else moves (no entry point open: the
player dances); a checker may bear off only when all the player's checkers are in
the home board, with the exact die, or with a higher die from the highest
occupied point; there is no obligation to bear off when another checker move
uses the die; landing on a single opposing checker (a blot) hits it. Plays are
told apart by their resulting position, like gnubg's ``hint``.

The generator makes and unmakes checker moves on one mutable board and keys each
resulting position by one integer (balanced base-32 digits of the signed board
plus the opponent's bar), so a play costs a few integer additions. Checker moves
are generated with non-increasing source points only: any legal play can be
reordered that way with the same result (moving a lower checker first never makes
a higher checker's move legal), which removes most transpositions. Prefixes (for
a play still in progress) are computed on demand, in any order of moves.

Standard library only.
"""

from __future__ import annotations

from binascii import b2a_base64
from operator import mul, sub
from typing import Iterator, Optional, Union

from companion.dice import Dice
from companion.play import CheckerMove, Play, apply_steps, format_steps, moves_from_steps
from companion.position import BAR, CHECKERS, Position, PositionError
from companion.position_id import RUNS as _ID_RUNS

__all__ = ["legal_plays", "LegalPlays", "apply_play", "position_key", "IllegalPositionError",
           "IllegalPlayError", "plain_legal_plays", "plain_legal_results"]

_W = tuple(1 << (5 * i) for i in range(27))
_W_OPP_BAR = _W[26]
_W2 = tuple(2 * w for w in _W)


class IllegalPositionError(PositionError):
    """Legal plays were asked for a position whose :meth:`Position.status` is not
    valid (counts other than 15, both colours on a point, ...)."""


class IllegalPlayError(ValueError):
    """A play that the rules do not allow in the position with the roll."""


def _signed(position: Position) -> list[int]:
    """:meth:`Position.to_signed` for a position already known valid (no point holds
    both colours), computed with C-level maps."""
    m, o = position.mover, position.opponent
    return [-o[BAR]] + list(map(sub, m[1:25], o[24:0:-1])) + [m[BAR]]


def position_key(position: Position) -> Optional[int]:
    """The integer key of a position (same player on roll) used by the generator,
    or ``None`` when the position cannot be keyed (both colours on a point, or a
    count above 15 somewhere). Equal keys <=> equal checkers on board and bar."""
    m, o = position.mover, position.opponent
    key = 0
    for p in range(1, 25):
        a, b = m[p], o[25 - p]
        if a and b:
            return None
        v = a - b
        if v > 15 or v < -15:
            return None
        key += v * _W[p]
    if m[BAR] > 15 or o[BAR] > 15:
        return None
    return key + m[BAR] * _W[25] + o[BAR] * _W_OPP_BAR


def _dice_values(dice: Union[Dice, tuple, list]) -> tuple[int, int]:
    if isinstance(dice, Dice):
        return dice.d1, dice.d2
    d = Dice(*dice)
    return d.d1, d.d2


def legal_plays(position: Position, dice: Union[Dice, tuple[int, int]]) -> "LegalPlays":
    """Every legal play of ``dice`` (a :class:`Dice` or two ints) from ``position``.

    Returns a :class:`LegalPlays` view (one play per distinct resulting position;
    empty when the player cannot move). Raises :class:`IllegalPositionError`
    (a ``ValueError``) when ``position.status()`` is not valid, and
    :class:`~companion.dice.DiceError` for impossible dice.

    >>> len(legal_plays(Position.initial(), Dice(3, 1)))
    16
    """
    d1, d2 = _dice_values(dice)
    if position.status():
        problems = " ".join(position.describe_status())
        raise IllegalPositionError(f"no legal plays for an impossible position: {problems}")
    if position.is_game_over():
        raise IllegalPositionError("no legal plays: a player has borne off all 15 checkers, "
                                   "the game is over")
    return LegalPlays(position, dice if isinstance(dice, Dice) else Dice(d1, d2),
                      _generate(position, d1, d2))


def apply_play(position: Position, play: Union[Play, str],
               dice: Union[Dice, tuple[int, int]]) -> Position:
    """The position after a LEGAL ``play`` (a :class:`~companion.play.Play` or its
    notation) of ``dice`` from ``position``, same player still on roll (call
    :meth:`Position.swap` to pass the turn): the checked counterpart of
    :meth:`Play.apply_unchecked <companion.play.Play.apply_unchecked>`. Raises
    :class:`IllegalPlayError` (a ``ValueError``) when the play is not one of the
    legal plays, :class:`~companion.play.NotationError` for unreadable notation.

    >>> apply_play(Position.initial(), "8/5 6/5", (3, 1)).mover[5]
    2
    """
    if isinstance(play, str):
        play = Play.from_notation(play)
    plays = legal_plays(position, dice)
    try:
        result = play.apply_unchecked(position)
    except ValueError as exc:
        raise IllegalPlayError(f"{play.notation()!r} cannot be played here: {exc}") from None
    if result == position and not plays:
        return position
    if result not in plays:
        raise IllegalPlayError(f"{play.notation() or 'no move'} is not a legal play of "
                               f"{plays.dice.d1}-{plays.dice.d2} here")
    return result


def _generate(position: Position, d1: int, d2: int) -> dict[int, tuple]:
    """Key of each resulting position -> a representative step sequence
    ``(s1, t1, s2, t2, ...)`` (sources and targets, 25 = bar, 0 = off)."""
    b = _signed(position)
    key = sum(map(mul, b[1:26], _W[1:26])) + position.opponent[BAR] * _W_OPP_BAR
    outside = sum(position.mover[7:26])  # the mover's checkers outside the home board
    if d1 == d2:
        return _doubles(b, d1, key, outside)
    return _non_doubles(b, d1, d2, key, outside)


def _non_doubles(b: list[int], d1: int, d2: int, key: int, outside: int) -> dict[int, tuple]:
    W, W2, WB = _W, _W2, _W_OPP_BAR
    results: dict[int, tuple] = {}
    for da, db in ((d1, d2), (d2, d1)):
        top, bottom = (25, 24) if b[25] > 0 else (24, 0)
        for s1 in range(top, bottom, -1):
            if b[s1] <= 0:
                continue
            t1 = s1 - da
            hit1 = False
            if t1 > 0:
                c = b[t1]
                if c < -1:
                    continue
                b[s1] -= 1
                if c == -1:
                    b[t1] = 1
                    hit1 = True
                    k1 = key - W[s1] + W2[t1] + WB
                else:
                    b[t1] = c + 1
                    k1 = key - W[s1] + W[t1]
            else:
                if outside:
                    continue
                if t1 < 0:
                    blocked = False
                    for p in range(s1 + 1, 7):
                        if b[p] > 0:
                            blocked = True
                            break
                    if blocked:
                        continue
                t1 = 0
                b[s1] -= 1
                k1 = key - W[s1]
            out1 = outside - 1 if (s1 > 6 and t1 <= 6) else outside
            # second checker move, source not above s1
            if b[25] > 0:
                top2 = 25
                bottom2 = 24
            else:
                top2 = s1 if s1 < 25 else 24
                bottom2 = 0
            for s2 in range(top2, bottom2, -1):
                if b[s2] <= 0:
                    continue
                t2 = s2 - db
                if t2 > 0:
                    c = b[t2]
                    if c < -1:
                        continue
                    if c == -1:
                        results[k1 - W[s2] + W2[t2] + WB] = (s1, t1, s2, t2)
                    else:
                        results[k1 - W[s2] + W[t2]] = (s1, t1, s2, t2)
                else:
                    if out1:
                        continue
                    if t2 < 0:
                        blocked = False
                        for p in range(s2 + 1, 7):
                            if b[p] > 0:
                                blocked = True
                                break
                        if blocked:
                            continue
                    results[k1 - W[s2]] = (s1, t1, s2, 0)
            # unmake
            b[s1] += 1
            if t1 > 0:
                if hit1:
                    b[t1] = -1
                else:
                    b[t1] -= 1
    if results:
        return results
    # Only one die can be played: the higher one if it can, else the lower one.
    for d in (max(d1, d2), min(d1, d2)):
        single = _singles(b, d, key, outside)
        if single:
            return single
    return {}


def _singles(b: list[int], d: int, key: int, outside: int) -> dict[int, tuple]:
    W, W2, WB = _W, _W2, _W_OPP_BAR
    out: dict[int, tuple] = {}
    top = 25 if b[25] > 0 else 24
    bottom = 24 if b[25] > 0 else 0
    for s in range(top, bottom, -1):
        if b[s] <= 0:
            continue
        t = s - d
        if t > 0:
            c = b[t]
            if c < -1:
                continue
            out[key - W[s] + (W2[t] + WB if c == -1 else W[t])] = (s, t)
        else:
            if outside:
                continue
            if t < 0 and any(b[p] > 0 for p in range(s + 1, 7)):
                continue
            out[key - W[s]] = (s, 0)
    return out


def _doubles(b: list[int], d: int, key: int, outside: int) -> dict[int, tuple]:
    W, W2, WB = _W, _W2, _W_OPP_BAR
    by_depth: list[dict[int, tuple]] = [{}, {}, {}, {}, {}]
    steps: list[int] = []

    def rec(depth: int, max_src: int, key: int, outside: int) -> None:
        moved = False
        if b[25] > 0:
            top, bottom = 25, 24
        else:
            top, bottom = (max_src if max_src < 25 else 24), 0
        for s in range(top, bottom, -1):
            if b[s] <= 0:
                continue
            t = s - d
            hit = False
            if t > 0:
                c = b[t]
                if c < -1:
                    continue
                b[s] -= 1
                if c == -1:
                    b[t] = 1
                    hit = True
                    k = key - W[s] + W2[t] + WB
                else:
                    b[t] = c + 1
                    k = key - W[s] + W[t]
            else:
                if outside:
                    continue
                if t < 0:
                    blocked = False
                    for p in range(s + 1, 7):
                        if b[p] > 0:
                            blocked = True
                            break
                    if blocked:
                        continue
                t = 0
                b[s] -= 1
                k = key - W[s]
            moved = True
            steps.append(s)
            steps.append(t)
            if depth == 3:
                by_depth[4][k] = tuple(steps)
            else:
                rec(depth + 1, s, k, outside - 1 if (s > 6 and t <= 6) else outside)
            del steps[-2:]
            b[s] += 1
            if t > 0:
                if hit:
                    b[t] = -1
                else:
                    b[t] -= 1
        if not moved and depth:
            by_depth[depth][key] = tuple(steps)

    rec(0, 25, key, outside)
    for depth in (4, 3, 2, 1):
        if by_depth[depth]:
            return by_depth[depth]
    return {}


def _pairs(steps: tuple) -> list[tuple[int, int]]:
    return [(steps[i], steps[i + 1]) for i in range(0, len(steps), 2)]


class LegalPlays:
    """The legal plays of one roll from one position (a read-only view).

    Iterating gives :class:`~companion.play.Play` objects (``play.result`` is the
    resulting :class:`Position`, same player on roll), one per distinct resulting
    position. ``len(view)``; ``pos in view`` tests a resulting position;
    ``view.play_for(pos)`` gives its play (or ``None``); ``view.results`` is the
    frozenset of resulting positions; ``view.prefixes`` the positions reached by
    proper legal prefixes (a play still in progress); ``view.max_moves`` the
    number of checker moves every legal play makes (0 when the player dances).
    """

    def __init__(self, position: Position, dice: Dice, entries: dict[int, tuple]) -> None:
        self.position = position
        self.dice = dice
        self._entries = entries
        self._plays: Optional[list[Play]] = None
        self._by_key: Optional[dict[int, Play]] = None
        self._prefix_keys: Optional[dict[int, tuple]] = None
        first = next(iter(entries.values()), ())
        self.max_moves = len(first) // 2

    def __len__(self) -> int:
        return len(self._entries)

    def __bool__(self) -> bool:
        return bool(self._entries)

    def _result_for_key(self, key: int) -> Position:
        """The resulting position of the play stored under ``key``."""
        return apply_steps(self.position, _pairs(self._entries[key]))

    def _build(self) -> list[Play]:
        if self._plays is None:
            plays = []
            by_key = {}
            for key, steps in self._entries.items():
                pairs = _pairs(steps)
                play = Play(moves_from_steps(self.position, pairs),
                            result=apply_steps(self.position, pairs))
                plays.append(play)
                by_key[key] = play

            self._plays = plays
            self._by_key = by_key
        return self._plays

    def __iter__(self) -> Iterator[Play]:
        return iter(self._build())

    @property
    def plays(self) -> list[Play]:
        """The plays (in generation order; sort by ``notation()`` for display)."""
        return list(self._build())

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Play):
            item = item.result if item.result is not None else self._apply(item)
            if item is None:
                return False
        if not isinstance(item, Position):
            return False
        key = position_key(item)
        return key is not None and key in self._entries and self._same_off(item)

    def _same_off(self, pos: Position) -> bool:
        # Keys cover board and bar; a legal result also keeps 15 checkers a side.
        return pos.count() == (CHECKERS, CHECKERS)

    def _apply(self, play: Play) -> Optional[Position]:
        try:
            return play.apply_unchecked(self.position)
        except ValueError:
            return None

    def play_for(self, result: Position) -> Optional[Play]:
        """The legal play that gives ``result``, or ``None``."""
        key = position_key(result)
        if key is None or key not in self._entries or not self._same_off(result):
            return None
        if self._by_key is not None:
            return self._by_key[key]
        pairs = _pairs(self._entries[key])
        return Play(moves_from_steps(self.position, pairs), result=result)

    @property
    def results(self) -> frozenset[Position]:
        """The distinct resulting positions (same player on roll)."""
        return frozenset(p.result for p in self._build())

    # ----------------------------------------------------------------- prefixes
    def _prefix_table(self) -> dict[int, tuple]:
        """Key -> steps for every position reached by a proper prefix (1 .. max-1
        checker moves, in any order) of some legal play."""
        if self._prefix_keys is None:
            self._prefix_keys = _prefixes(self.position, self.dice, self.max_moves,
                                          self._entries)
        return self._prefix_keys

    @property
    def prefixes(self) -> frozenset[Position]:
        """Positions after a proper prefix of a legal play (a play in progress)."""
        return frozenset(apply_steps(self.position, _pairs(s))
                         for s in self._prefix_table().values())

    def is_prefix(self, position: Position) -> bool:
        """True when ``position`` is reached by a proper prefix of a legal play."""
        key = position_key(position)
        return (key is not None and self._same_off(position)
                and key in self._prefix_table())

    def prefix_play(self, position: Position) -> Optional[Play]:
        """The checker moves of a proper prefix reaching ``position`` (or ``None``)."""
        key = position_key(position)
        if key is None or not self._same_off(position):
            return None
        steps = self._prefix_table().get(key)
        if steps is None:
            return None
        pairs = _pairs(steps)
        return Play(moves_from_steps(self.position, pairs),
                    result=apply_steps(self.position, pairs))

    def listing(self, notations: Optional[dict[tuple, str]] = None) -> list[tuple[str, str]]:
        """``(notation, position_id)`` of every legal play, sorted by notation: what
        ``companion legal-plays`` prints, without building Play or Position objects.

        ``notations`` remembers the notation of each play (its checker moves with
        hit flags) from call to call: pass one dict for many positions and each
        distinct play is written once. Position IDs are those of the resulting
        positions (same player on roll), as :meth:`Position.position_id` gives.

        >>> legal_plays(Position.initial(), Dice(2, 1)).listing()[0]
        ('13/10', '4HPwATDgc+IBMA')
        """
        if notations is None:
            notations = {}
        m, o = self.position.mover, self.position.opponent
        # The Position ID key's bits place by place, last place first (see
        # key_to_position_id): index 25 - p is the mover's point p (0 = bar), 25 + p
        # the opponent's checkers on the mover's point p, 25 the opponent's bar.
        before = [_ID_RUNS[c] for c in m[25:0:-1] + o[25:0:-1]]
        out = []
        append = out.append
        for steps in self._entries.values():
            r = before[:]
            hits = 0
            i = 0
            for s in steps[::2]:
                t = steps[i + 1]
                r[25 - s] = r[25 - s][:-1]
                if t:
                    r[25 - t] += "1"
                    if r[25 + t] != "0":  # a blot: legal plays land on one checker at most
                        r[25 + t] = "0"
                        r[25] += "1"
                        hits |= 1 << i
                i += 2
            text = notations.get((steps, hits))
            if text is None:
                text = notations[(steps, hits)] = format_steps(steps, hits)
            # key_to_position_id, inline: this loop is the batch interface's hot path
            key = int("".join(r), 2).to_bytes(10, "little")
            append((text, b2a_base64(key, newline=False)[:14].decode("ascii")))
        out.sort()
        return out

    def __repr__(self) -> str:
        return (f"<LegalPlays {len(self)} plays of {self.dice.d1}-{self.dice.d2} from "
                f"{self.position.position_id()}>")


def _single_moves(b: list[int], d: int) -> Iterator[tuple[int, int, bool]]:
    """Legal single checker moves ``(s, t, hit)`` of die ``d`` on signed board ``b``."""
    outside = sum(v for v in b[7:26] if v > 0)
    if b[25] > 0:
        sources = (25,)
    else:
        sources = range(24, 0, -1)
    for s in sources:
        if b[s] <= 0:
            continue
        t = s - d
        if t > 0:
            if b[t] < -1:
                continue
            yield s, t, b[t] == -1
        else:
            if outside:
                continue
            if t < 0 and any(b[p] > 0 for p in range(s + 1, 7)):
                continue
            yield s, 0, False


def _make(b: list[int], s: int, t: int) -> bool:
    b[s] -= 1
    if t > 0:
        if b[t] == -1:
            b[t] = 1
            b[0] -= 1
            return True
        b[t] += 1
    return False


def _unmake(b: list[int], s: int, t: int, hit: bool) -> None:
    b[s] += 1
    if t > 0:
        if hit:
            b[t] = -1
            b[0] += 1
        else:
            b[t] -= 1


def _board_key(b: list[int]) -> int:
    key = -b[0] * _W_OPP_BAR
    for p in range(1, 26):
        key += b[p] * _W[p]
    return key


def _prefixes(position: Position, dice: Dice, max_moves: int,
              finals: dict[int, tuple]) -> dict[int, tuple]:
    """Search every order of checker moves; keep the states (after 1..max-1 moves)
    from which some continuation reaches a legal final position."""
    if max_moves <= 1:
        return {}
    b = position.to_signed()
    good: dict[int, tuple] = {}
    seen: dict[int, bool] = {}
    final_keys = finals

    def rec(remaining: tuple[int, ...], steps: list[int]) -> bool:
        depth = len(steps) // 2
        if depth == max_moves:
            return _board_key(b) in final_keys
        key = _board_key(b)
        memo_key = (key, remaining)
        if memo_key in seen:
            return seen[memo_key]
        ok = False
        tried = set()
        for i, d in enumerate(remaining):
            if d in tried:
                continue
            tried.add(d)
            rest = remaining[:i] + remaining[i + 1:]
            for s, t, _ in list(_single_moves(b, d)):
                hit = _make(b, s, t)
                steps.extend((s, t))
                if rec(rest, steps):
                    ok = True
                    if len(steps) // 2 < max_moves:
                        good.setdefault(_board_key(b), tuple(steps))
                del steps[-2:]
                _unmake(b, s, t, hit)
        seen[memo_key] = ok
        return ok

    moves = dice.moves[:max_moves] if not dice.is_double else (dice.d1,) * 4
    if dice.is_double:
        rec(moves, [])
    else:
        rec((dice.d1, dice.d2), [])
    return good


def plain_legal_plays(position: Position,
                      dice: Union[Dice, tuple[int, int]]) -> dict[Position, tuple[CheckerMove, ...]]:
    """A plain recursive generator: every order of every die, a new board tuple
    per checker move, leaves collected in a dict, then filtered by the rules (most
    dice; the higher die when one die only). It is the baseline of the benchmark
    and an independent cross-check in the tests. Same rules as :func:`legal_plays`;
    returns each resulting position with the checker moves (hit flags set) of the
    first play found that reaches it. Raises :class:`IllegalPositionError` for an
    impossible or finished position."""
    d1, d2 = _dice_values(dice)
    if position.status() or position.is_game_over():
        raise IllegalPositionError("no legal plays for an impossible or finished position")
    dice_list = (d1,) * 4 if d1 == d2 else (d1, d2)
    leaves: dict[tuple[tuple[int, ...], int, int], tuple] = {}

    def rec(board: tuple[int, ...], remaining: tuple[int, ...], moves: tuple, pips: int) -> None:
        moved = False
        for i, d in enumerate(remaining):
            if d in remaining[:i]:
                continue  # the same die value again: same moves
            for s, t, hit in _single_moves(list(board), d):
                moved = True
                nxt = list(board)
                _make(nxt, s, t)
                rec(tuple(nxt), remaining[:i] + remaining[i + 1:], moves + ((s, t, hit),),
                    pips + d)
        if not moved:
            leaves.setdefault((board, len(moves), pips), moves)

    rec(tuple(position.to_signed()), dice_list, (), 0)
    most = max(n for _, n, _ in leaves)
    if most == 0:
        return {}
    best = [(b, p) for b, n, p in leaves if n == most]
    top = max(p for _, p in best)
    out: dict[Position, tuple[CheckerMove, ...]] = {}
    for (b, n, p), moves in leaves.items():
        if n == most and p == top:
            out.setdefault(Position.from_signed(list(b)),
                           tuple(CheckerMove(s, t, hit) for s, t, hit in moves))
    return out


def plain_legal_results(position: Position, dice: Union[Dice, tuple[int, int]]) -> set[Position]:
    """The resulting positions of :func:`plain_legal_plays` (a set)."""
    return set(plain_legal_plays(position, dice))

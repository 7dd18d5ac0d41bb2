"""Jellyfish ``.mat`` match records: parse, validate through our rules, write.

The format is the text gnubg writes with ``export match mat`` and reads with
``import mat`` (eXtreme Gammon and most programs read it too)::

    ; [EventDate "2026.11.20"]

     5 point match

     Game 1
     gnubg : 0                      root : 0
      1)                             52: 13/8 24/22
      2) 62: 24/18 18/16             63: 22/16 16/13
      3)  Doubles => 2                Takes
      4) 32: 16/13 13/11
          Wins 2 points

Player 0 is the left column, player 1 the right one (as gnubg). A roll with
no checker move (``64:``) is a dance or a blocked roll; ``25`` (or ``bar``) is
the bar and ``0`` (or ``off``) is off. The points in ``Wins N points`` are
checked against our scoring; when a game ends without a bear-off or a drop,
the loser resigned at level ``N / cube`` (the format does not record the
resignation itself). ``0 point match`` is a money session.

:func:`parse_mat` gives the raw structure (:class:`MatRecord`);
:func:`import_mat` replays it through :class:`~companion.match.Match` and stops
with a :class:`MatError` naming the game, move number, line and reason at the
first illegal or unparsable entry. :func:`export_mat` writes a match.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Optional

from companion.match import Match, MatchError, MatchRules, PLAY, CUBE_RESPONSE, GAME_OVER, MATCH_OVER

LEFT_WIDTH = 28  # width of player 0's column after "NNN) "
RIGHT_COLUMN = 33  # column where player 1's entries start


class MatError(ValueError):
    """A malformed or illegal match record. ``game``, ``move`` and ``line`` (1-based,
    ``None`` when not applicable) say where; the message says what."""

    def __init__(self, reason: str, *, game: Optional[int] = None, move: Optional[int] = None,
                 line: Optional[int] = None) -> None:
        self.reason, self.game, self.move, self.line = reason, game, move, line
        where = []
        if game is not None:
            where.append(f"game {game}")
        if move is not None:
            where.append(f"move {move}")
        if line is not None:
            where.append(f"line {line}")
        super().__init__((", ".join(where) + ": " if where else "") + reason)


@dataclasses.dataclass(frozen=True)
class MatEntry:
    """One entry of a game: ``player`` 0/1, ``kind`` (``"roll"``, ``"double"``,
    ``"take"``, ``"drop"``, ``"beaver"``, ``"wins"``), ``dice`` for a roll,
    ``moves`` (checker moves as written) for a roll, ``value`` (cube value
    announced, or points won), ``move`` the move number, ``line`` the file line."""

    player: int
    kind: str
    dice: Optional[tuple[int, int]] = None
    moves: str = ""
    value: Optional[int] = None
    move: Optional[int] = None
    line: int = 0


@dataclasses.dataclass(frozen=True)
class MatGame:
    """A game: ``number``, ``score`` at its start as written, ``entries`` in order."""

    number: int
    score: tuple[int, int]
    entries: tuple[MatEntry, ...]
    line: int


@dataclasses.dataclass(frozen=True)
class MatRecord:
    """A parsed file: ``match_length`` (0 money), ``players`` (left, right), ``games``,
    ``tags`` (``; [Key "value"]`` header lines)."""

    match_length: int
    players: tuple[str, str]
    games: tuple[MatGame, ...]
    tags: dict[str, str]


# ----------------------------------------------------------------- parsing

_MATCH_RE = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.I)
_GAME_RE = re.compile(r"^\s*Game\s+(\d+)\s*$", re.I)
_SCORE_RE = re.compile(r"^\s*(.*?)\s*:\s*(\d+)\s+(.*?)\s*:\s*(\d+)\s*$")
_MOVE_RE = re.compile(r"^\s*(\d+)\)")
_WINS_RE = re.compile(r"^(\s*)Wins\s+(\d+)\s+points?(\s+and\s+the\s+match)?\s*$", re.I)
_TAG_RE = re.compile(r'^;\s*\[(\w+)\s+"(.*)"\]\s*$')
_ENTRY_START = re.compile(
    r"(?<![\w/])(?:[1-6][1-6]:|(?:Doubles|Beavers|Raccoons|Takes|Accepts|Drops|Passes|Rejects|Refuses|Wins)\b)",
    re.I,
)
_CUBE_ENTRY = re.compile(r"^(Doubles|Beavers|Raccoons)\s*=>\s*(\d+)$", re.I)
_CHECKER_TOKEN = re.compile(r"^(?:bar|off|\d{1,2})(?:/(?:bar|off|\d{1,2})\*?)+(?:\((\d)\))?$", re.I)


def _entry(text: str, player: int, move: int, line: int) -> MatEntry:
    text = text.strip()
    if text[:2].isdigit() and text[2:3] == ":":
        dice = (int(text[0]), int(text[1]))
        moves = text[3:].strip()
        for token in moves.split():
            if not _CHECKER_TOKEN.match(token):
                raise MatError(f"unparsable checker move {token!r} in {text!r}", move=move, line=line)
        return MatEntry(player, "roll", dice=dice, moves=moves, move=move, line=line)
    cube = _CUBE_ENTRY.match(text)
    if cube:
        kind = "double" if cube.group(1).lower() == "doubles" else "beaver"
        return MatEntry(player, kind, value=int(cube.group(2)), move=move, line=line)
    wins = _WINS_RE.match(text)
    if wins:  # gnubg writes "Wins" on the move line when the right column wins by a drop
        return MatEntry(player, "wins", value=int(wins.group(2)), move=move, line=line)
    word = text.lower()
    if word in ("takes", "accepts"):
        return MatEntry(player, "take", move=move, line=line)
    if word in ("drops", "passes", "rejects", "refuses"):
        return MatEntry(player, "drop", move=move, line=line)
    raise MatError(f"unparsable entry {text!r}", move=move, line=line)


def _move_line(raw: str, number: int, line_no: int, right_column: int = RIGHT_COLUMN) -> list[MatEntry]:
    """The entries of one numbered line; a lone entry belongs to the right player
    when it starts past the middle between the columns (``right_column``: where
    the right player's name starts in the game's score line)."""
    head = _MOVE_RE.match(raw)
    assert head
    rest_start = head.end()
    rest = raw[rest_start:]
    starts = [m.start() for m in _ENTRY_START.finditer(rest)]
    if not starts:
        if rest.strip():
            raise MatError(f"unparsable move line {raw.strip()!r}", move=number, line=line_no)
        raise MatError("empty move line", move=number, line=line_no)
    if rest[: starts[0]].strip():
        raise MatError(f"unparsable text {rest[: starts[0]].strip()!r}", move=number, line=line_no)
    pieces = [rest[a:b] for a, b in zip(starts, starts[1:] + [len(rest)])]
    if len(pieces) > 2:
        raise MatError(f"more than two entries on one line: {raw.strip()!r}", move=number, line=line_no)
    if len(pieces) == 2:
        players = [0, 1]
    else:
        column = rest_start + starts[0]
        players = [1 if column >= (right_column + 6) // 2 else 0]
    return [_entry(p, pl, number, line_no) for p, pl in zip(pieces, players)]


def parse_mat(text: str) -> MatRecord:
    """Parse the text of a ``.mat`` file into a :class:`MatRecord`.

    Checks the layout only (header, games, move numbers, entry syntax), not the
    rules. Raises :class:`MatError` with the line number at the first problem.
    """
    if "\x00" in text:
        raise MatError("binary data, not a .mat match record")
    lines = [line.expandtabs(8) for line in text.splitlines()]
    length: Optional[int] = None
    players: Optional[tuple[str, str]] = None
    tags: dict[str, str] = {}
    games: list[MatGame] = []
    current: Optional[dict[str, Any]] = None
    expect_score = False
    last_move = 0

    def close_game() -> None:
        if current is not None:
            games.append(MatGame(current["number"], current["score"], tuple(current["entries"]),
                                 current["line"]))

    for index, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped.startswith(";"):
            tag = _TAG_RE.match(stripped)
            if tag:
                tags[tag.group(1)] = tag.group(2)
            continue
        game_no = current["number"] if current else None
        if expect_score:
            score = _SCORE_RE.match(raw)
            if not score:
                raise MatError(f"expected the score line 'NAME : N   NAME : N', got {stripped!r}",
                               game=game_no, line=index)
            names = (score.group(1), score.group(3))
            if players is None:
                players = names
            elif names != players:
                raise MatError(f"players {names} differ from the first game's {players}",
                               game=game_no, line=index)
            current["score"] = (int(score.group(2)), int(score.group(4)))
            current["right_column"] = max(score.start(3), 12)
            expect_score = False
            continue
        m = _MATCH_RE.match(raw)
        if m:
            if length is not None or games:
                raise MatError("a second 'N point match' header", line=index)
            length = int(m.group(1))
            continue
        m = _GAME_RE.match(raw)
        if m:
            if length is None:
                raise MatError("'Game' before the 'N point match' header", line=index)
            close_game()
            number = int(m.group(1))
            if number != len(games) + 1:
                raise MatError(f"game {number} follows game {len(games)}", line=index)
            current = {"number": number, "score": None, "entries": [], "line": index}
            expect_score = True
            last_move = 0
            continue
        if current is None:
            if length is None:
                raise MatError(f"not a .mat match record: expected 'N point match', got {stripped[:40]!r}",
                               line=index)
            raise MatError(f"expected 'Game 1', got {stripped[:40]!r}", line=index)
        m = _WINS_RE.match(raw)
        if m:
            player = 1 if len(m.group(1)) >= (current["right_column"] + 6) // 2 else 0
            current["entries"].append(MatEntry(player, "wins", value=int(m.group(2)),
                                               move=last_move or None, line=index))
            continue
        m = _MOVE_RE.match(raw)
        if m:
            number = int(m.group(1))
            if number != last_move + 1:
                raise MatError(f"move {number} follows move {last_move}", game=game_no, line=index)
            last_move = number
            try:
                current["entries"].extend(_move_line(raw, number, index, current["right_column"]))
            except MatError as exc:
                raise MatError(exc.reason, game=game_no, move=number, line=index) from None
            continue
        raise MatError(f"unparsable line {stripped[:60]!r}", game=game_no, line=index)
    if expect_score:
        raise MatError("the record ends after a game header (truncated?)", game=len(games) + 1)
    close_game()
    if length is None:
        raise MatError("not a .mat match record: no 'N point match' header")
    if not games:
        raise MatError("the record holds no game")
    return MatRecord(length, players or ("Player 0", "Player 1"), tuple(games), tags)


# -------------------------------------------------------- checker moves

def _point(token: str) -> int:
    token = token.lower().rstrip("*")
    if token == "bar":
        return 25
    if token == "off":
        return 0
    return int(token)


def checker_moves(notation: str) -> list[tuple[int, int, bool]]:
    """Expand a play's notation into single checker moves ``(from, to, hit)``.

    Points from the mover's view; 25 is the bar, 0 is off. Accepts gnubg and
    Jellyfish forms: ``13/8 24/22``, ``25/23 6/4*``, ``bar/22``, ``6/off``,
    ``8/5(2)``, ``24/20*/16``. Raises :class:`MatError` for a malformed token.
    """
    out: list[tuple[int, int, bool]] = []
    for token in notation.split():
        m = _CHECKER_TOKEN.match(token)
        if not m:
            raise MatError(f"unparsable checker move {token!r}")
        count = int(m.group(1)) if m.group(1) else 1
        body = token[: token.index("(")] if "(" in token else token
        parts = body.split("/")
        try:
            points = [_point(p) for p in parts]
        except ValueError:
            raise MatError(f"unparsable checker move {token!r}") from None
        hits = [p.endswith("*") for p in parts]
        for _ in range(count):
            for i in range(len(points) - 1):
                out.append((points[i], points[i + 1], hits[i + 1]))
    for a, b, _hit in out:
        if not (0 < a <= 25 and 0 <= b < 25 and a > b):
            raise MatError(f"impossible checker move {a}/{b}")
    return out


def apply_notation(position, notation: str):
    """The position after the checker moves of ``notation`` (mover's view).

    Only moves checkers (:meth:`companion.play.Play.apply_unchecked`: a lone
    opponent checker on a landing point is hit); legality is judged by comparing
    the result with ``legal_plays``. Raises :class:`MatError` for unparsable
    notation, a move from a place without a checker of the mover, or onto a
    point the opponent holds.
    """
    from companion.play import Play

    checker_moves(notation)  # our syntax check first: precise messages
    try:
        return Play.from_notation(notation).apply_unchecked(position)
    except ValueError as exc:
        raise MatError(str(exc)) from None


def mat_moves(notation: str) -> str:
    """A play's notation in the form gnubg's ``.mat`` export uses: single checker
    moves, ``25`` for the bar, ``0`` for off, ``*`` on hits (``"bar/22 8/5(2)"`` ->
    ``"25/22 8/5 8/5"``)."""
    return " ".join(f"{a}/{b}{'*' if hit else ''}" for a, b, hit in checker_moves(notation))


# ------------------------------------------------------------ importing

@dataclasses.dataclass
class ImportResult:
    """A replayed record: the :class:`~companion.match.Match` (``match.games`` has the
    score sheet) and the parsed :class:`MatRecord`."""

    match: Match
    record: MatRecord

    def summary(self) -> dict[str, Any]:
        """``{"match_length", "final_score", "players", "games": [{"number", "winner",
        "points", "cube", "crawford"}...]}`` (the ``companion match import --json`` output)."""
        return {
            "match_length": self.match.length,
            "final_score": list(self.match.score),
            "players": list(self.match.players),
            "games": [
                {"number": g.number, "winner": g.winner, "points": g.points, "cube": g.cube,
                 "crawford": g.crawford}
                for g in self.match.games
            ],
        }


def _import(record: MatRecord, rules: MatchRules, allow_unfinished: bool,
            allow_illegal: bool = False) -> Match:
    match = Match(record.match_length, players=record.players, rules=rules)
    for gi, game in enumerate(record.games):
        last_game = gi == len(record.games) - 1

        def fail(reason: str, entry: Optional[MatEntry] = None) -> MatError:
            return MatError(reason, game=game.number, move=entry.move if entry else None,
                            line=entry.line if entry else game.line)

        if game.score is not None and tuple(game.score) != match.score:
            raise fail(f"the record gives the score {game.score[0]}-{game.score[1]} at the start,"
                       f" the replay has {match.score[0]}-{match.score[1]}")
        if match.over:
            raise fail("the match was already over")
        first = True
        for entry in game.entries:
            who = f"{match.players[entry.player]}"
            try:
                if match.phase in (GAME_OVER, MATCH_OVER) and match.game_number == game.number \
                        and entry.kind != "wins":
                    raise fail(f"{who}: entry after the end of the game", entry)
                if entry.kind == "wins":
                    _import_wins(match, entry, game.number, fail)
                    continue
                if entry.kind == "roll":
                    if (match.phase == CUBE_RESPONSE and match.cube.beavers
                            and match.cube.responder == entry.player):
                        match.take(entry.player)  # gnubg writes no "Takes" after a beaver
                    hi, lo = entry.dice
                    if first:
                        if hi == lo:
                            raise fail(f"{who}: the opening roll cannot be a double ({hi}{lo})", entry)
                        big, small = max(hi, lo), min(hi, lo)
                        match.opening_roll((big, small) if entry.player == 0 else (small, big))
                    else:
                        match.roll((hi, lo), player=entry.player)
                    first = False
                    try:
                        after = apply_notation(match.position, entry.moves)
                    except MatError as exc:
                        raise fail(f"{who}: illegal play {entry.moves!r} for {hi}{lo}: {exc.reason}",
                                   entry) from None
                    try:
                        match.play(after, player=entry.player, notation=entry.moves)
                    except MatchError:
                        if allow_illegal:  # the play stood: record it as a referee correction
                            match.correct(after.swap(), on_roll=1 - entry.player, dice=None,
                                          reason=f"illegal play {entry.moves!r} for {hi}{lo} in the record")
                            continue
                        n = max(1, len(match.legal_plays()))
                        what = repr(entry.moves) if entry.moves else "(no move)"
                        if not match.legal_plays():
                            why = "no checker can move"
                        else:
                            why = f"{n} legal play{'s' if n != 1 else ''} give other positions"
                        raise fail(f"{who}: illegal play {what} for {hi}{lo}: {why}", entry) from None
                    continue
                if first:
                    raise fail(f"{who}: a game starts with the opening roll, not a cube action", entry)
                if entry.kind == "double":
                    match.double(entry.player)
                    if entry.value != match.cube.pending_value:
                        raise fail(f"{who}: doubles to {entry.value}, the cube goes to"
                                   f" {match.cube.pending_value}", entry)
                elif entry.kind == "beaver":
                    match.beaver(entry.player)
                    if entry.value != match.cube.pending_value:
                        raise fail(f"{who}: beavers to {entry.value}, the cube goes to"
                                   f" {match.cube.pending_value}", entry)
                elif entry.kind == "take":
                    match.take(entry.player)
                elif entry.kind == "drop":
                    match.drop(entry.player)
            except MatchError as exc:
                raise fail(f"{who}: {entry.kind}: {exc}", entry) from None
        if first:
            if last_game and allow_unfinished:
                break
            raise fail("the game has no moves: the record is truncated")
        if match.phase not in (GAME_OVER, MATCH_OVER):
            if last_game and allow_unfinished:
                break
            raise fail("the game has no result ('Wins N points'): the record is truncated")
    if not allow_unfinished and match.length > 0 and not match.over:
        raise MatError(f"the match to {match.length} is unfinished at {match.score[0]}-{match.score[1]}"
                       " (truncated record?)")
    return match


def _import_wins(match: Match, entry: MatEntry, game: int, fail) -> None:
    who = match.players[entry.player]
    if match.phase in (GAME_OVER, MATCH_OVER) and match.games and match.games[-1].number == game:
        record = match.games[-1]
        if record.winner != entry.player:
            raise fail(f"{who} wins, but {match.players[record.winner]} won the game", entry)
        if record.points != entry.value:
            raise fail(f"{who} wins {entry.value} point(s), the rules give {record.points}"
                       f" ({record.kind}, cube {record.cube})", entry)
        return
    if match.phase == PLAY and match.dice is not None:
        raise fail(f"{who} wins during a roll that was not played", entry)
    if match.phase not in ("roll", CUBE_RESPONSE):
        raise fail(f"{who} wins before the game started", entry)
    cube = match.cube.value
    level, rest = divmod(entry.value, cube)
    if rest or level not in (1, 2, 3):
        raise fail(f"{who} wins {entry.value} point(s): not a resignation at cube {cube}"
                   " (single, gammon or backgammon)", entry)
    match.resign(1 - entry.player, level)
    match.accept(entry.player)


def import_mat(text: str, *, rules: Optional[MatchRules] = None,
               allow_unfinished: bool = False, allow_illegal: bool = False) -> ImportResult:
    """Parse and replay a ``.mat`` record through our rules.

    ``rules``: the match rules; by default the Crawford rule, and for money
    sessions beavers (up to 3) with the Jacoby rule inferred from the record
    (tried off, then on). ``allow_unfinished``: accept a record that stops before
    the match (or the last game) is over. ``allow_illegal``: keep an illegal play
    that can be carried out on the board (one that stood because the opponent
    accepted it) as a referee correction instead of stopping. Raises
    :class:`MatError` naming the game, move number, line and reason at the first
    illegal or unparsable entry.
    """
    record = parse_mat(text)
    if rules is not None:
        return ImportResult(_import(record, rules, allow_unfinished, allow_illegal), record)
    candidates = rules_from_tags(record)
    errors: list[MatError] = []
    for candidate in candidates:
        try:
            return ImportResult(_import(record, candidate, allow_unfinished, allow_illegal), record)
        except MatError as exc:
            errors.append(exc)
    # report the error of the reading that went furthest
    raise max(errors, key=lambda e: (e.game or 0, e.line or 0))


def _switch(value: Optional[str]) -> Optional[bool]:
    if value is None:
        return None
    word = value.strip().lower()
    if word in ("on", "yes", "true", "1"):
        return True
    if word in ("off", "no", "false", "0"):
        return False
    return None


def rules_from_tags(record: MatRecord) -> list[MatchRules]:
    """The rule sets to try for a record, from its header tags (``; [Crawford "Off"]``,
    ``; [Jacoby "On"]``, ``; [Beaver "On"]``, as eXtreme Gammon writes them) and
    otherwise the usual defaults: the Crawford rule in matches; in money play
    beavers (up to 3) and the Jacoby rule tried off, then on."""
    tags = {k.lower(): v for k, v in record.tags.items()}
    crawford = _switch(tags.get("crawford"))
    jacoby = _switch(tags.get("jacoby"))
    beaver = _switch(tags.get("beaver", tags.get("beavers")))
    if record.match_length > 0:
        return [MatchRules(crawford=crawford is not False)]
    beavers = 0 if beaver is False else 3
    options = [jacoby] if jacoby is not None else [False, True]
    return [MatchRules(beavers=beavers, jacoby=j) for j in options]


# ------------------------------------------------------------ exporting

def _play_notation(action: dict[str, Any], before, dice) -> str:
    """The play of ``action`` as gnubg's .mat writes it: one checker move per die."""
    from companion.legal import legal_plays
    from companion.position import Position

    play = legal_plays(before, dice).play_for(Position.from_position_id(action["position_id"]))
    if play is None:
        return ""
    notation = action.get("notation")
    if notation:
        # keep the order of a play written one checker move per die (as imported)
        try:
            if len(checker_moves(notation)) == len(play.moves):
                return mat_moves(notation)
        except MatError:
            pass
    return " ".join(f"{m.from_point}/{m.to_point}{'*' if m.hit else ''}" for m in play.moves)


def board_change_notation(before, after) -> str:
    """Checker moves (gnubg .mat form) that turn ``before`` into ``after``, both from
    the mover's view, whether or not they are legal for any roll: used for an
    illegal play that stood. Sources and destinations are paired from the back
    (highest points first); ``*`` marks a point where an opponent's blot was hit.
    Raises :class:`MatError` when the change is not a movement of the mover's
    checkers (checkers appear or vanish, the opponent's checkers move other than
    to the bar).
    """
    m0, m1 = before.mover, after.mover
    o0, o1 = before.opponent, after.opponent
    sources: list[int] = []
    targets: list[int] = []
    for p in range(26):
        diff = m1[p] - m0[p]
        if diff < 0:
            sources += [p] * -diff
        elif diff > 0:
            targets += [p] * diff
    if len(sources) != len(targets) or 25 in targets or 0 in sources:
        raise MatError("checkers appeared or vanished")
    hits = set()
    for q in range(1, 25):  # opponent's own numbering
        diff = o1[q] - o0[q]
        if diff > 0 or (diff < 0 and not (o0[q] == 1 and o1[q] == 0)):
            raise MatError("the opponent's checkers moved")
        if diff < 0:
            hits.add(25 - q)
    if o1[25] - o0[25] != len(hits) or o1[0] != o0[0]:
        raise MatError("the opponent's checkers moved")
    sources.sort(reverse=True)
    targets.sort(reverse=True)
    moves = []
    for a, b in zip(sources, targets):
        if b >= a:
            raise MatError("a checker moved backwards")
        moves.append(f"{a}/{b}{'*' if b in hits else ''}")
    return " ".join(moves)


def export_mat(match: Match, *, event_date: Optional[str] = None) -> str:
    """The match as a Jellyfish ``.mat`` text in gnubg's layout, with the rules as
    header tags (``; [Crawford "On"]``; ``Jacoby`` and ``Beaver`` for money play).

    Replays ``match.actions`` to recover each play's checker moves. Raises
    :class:`MatError` if the match holds something the format cannot say (a
    referee correction or a set-up from a Match ID).
    """
    out: list[str] = []
    if event_date:
        out.append(f'; [EventDate "{event_date}"]')
    on_off = {True: "On", False: "Off"}
    if match.length > 0:
        out.append(f'; [Crawford "{on_off[match.rules.crawford]}"]')
    else:
        out.append(f'; [Jacoby "{on_off[match.rules.jacoby]}"]')
        out.append(f'; [Beaver "{on_off[match.rules.beavers > 0]}"]')
    out.append("")
    out.append(f" {match.length} point match")
    out.append("")
    replay = Match(match.length, players=match.players, rules=match.rules)
    games: list[list[tuple[int, str]]] = []
    headers: list[tuple[int, int]] = []
    current: Optional[list[tuple[int, str]]] = None
    for action in match.actions:
        kind = action["type"]
        if kind == "setup":
            raise MatError("a match set up from a Match ID cannot be written to a .mat record")
        if kind == "correction" and (action.get("position_id") != replay.position_id()
                                     or action.get("on_roll") != replay.on_roll):
            if not (replay.phase == PLAY and action.get("on_roll") == 1 - replay.on_roll
                    and not action.get("dice")):
                raise MatError(f"game {replay.game_number}: a referee correction of the board"
                               " cannot be written to a .mat record")
            # an illegal play that stood (accepted by the opponent): its checker moves
            from companion.position import Position

            before, dice, player = replay.position, replay.dice, replay.on_roll
            after = Position.from_position_id(action["position_id"]).swap()
            try:
                text = board_change_notation(before, after)
            except MatError as exc:
                raise MatError(f"game {replay.game_number}: a referee correction cannot be"
                               f" written to a .mat record ({exc.reason})") from None
            hi, lo = max(dice), min(dice)
            current.append((player, f"{hi}{lo}: {text} " if text else f"{hi}{lo}: "))
        if kind == "opening_roll" and replay.phase in ("opening_roll", GAME_OVER):
            if current is None or replay.phase == GAME_OVER:
                current = []
                games.append(current)
                headers.append(replay.score)
        if kind == "play":
            before, dice, player = replay.position, replay.dice, replay.on_roll
            text = _play_notation(action, before, dice)
            hi, lo = max(dice), min(dice)
            current.append((player, f"{hi}{lo}: {text} " if text else f"{hi}{lo}: "))
        events = replay.apply(action)
        for e in events:
            if e.type == "cube" and e.action in ("double", "beaver", "raccoon"):
                word = "Doubles" if e.action == "double" else "Beavers"
                current.append((e.player, f" {word} => {e.value}"))
            elif e.type == "cube" and e.action in ("take", "drop"):
                current.append((e.player, " Takes" if e.action == "take" else " Drops"))
            elif e.type == "cube" and e.action == "automatic_double":
                raise MatError(f"game {replay.game_number}: an automatic double cannot be written"
                               " to a .mat record")
            elif e.type == "game_end":
                current.append((e.winner, f"Wins {e.points} point{'s' if e.points != 1 else ''}"))
    for number, (entries, score) in enumerate(zip(games, headers), start=1):
        out.append(f" Game {number}")
        out.append(f" {match.players[0]} : {score[0]}".ljust(RIGHT_COLUMN - 1)
                   + f"{match.players[1]} : {score[1]}")
        lines: list[list[str]] = []
        wins: Optional[tuple[int, str]] = None
        for player, text in entries:
            if text.startswith("Wins"):
                wins = (player, text)
            elif player == 0:
                lines.append([text, ""])
            elif lines and lines[-1][0] and not lines[-1][1]:
                lines[-1][1] = text
            else:
                lines.append(["", text])
        for i, (left, right) in enumerate(lines, start=1):
            out.append(f"{i:3d}) " + left.ljust(LEFT_WIDTH) + right)
        if wins is not None:
            indent = " " * (6 if wins[0] == 0 else RIGHT_COLUMN + 1)
            out.append(indent + wins[1])
        out.append("")
    return "\n".join(out) + "\n"

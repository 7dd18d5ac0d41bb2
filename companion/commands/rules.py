"""``companion legal-plays`` and ``companion check``: the rulebook on the command line.

``legal-plays --position-id PID --dice D1 D2 [--json]`` lists every legal play, one
per distinct resulting position; ``check --position-id PID --dice D1 D2 --after
PID [--complete] [--json]`` judges an observed change. With ``--batch`` both read
one JSON request per line from standard input (keys ``position_id``, ``dice``,
``after``, ``complete``) and write one JSON answer per line; a bad line gets
``{"error": "..."}`` and the batch goes on (exit code 1 at the end if any line
failed). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable, Optional, TextIO, Union

from companion.cli import UserError
from companion.dice import Dice, DiceError
from companion.legal import IllegalPositionError, legal_plays
from companion.position import Position
from companion.position_id import ALPHABET, PositionIdError
from companion.verdict import judge


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``legal-plays`` and ``check`` sub-commands."""
    lp = subparsers.add_parser(
        "legal-plays", help="list every legal play for a position and a roll",
        description="List every legal play (one per distinct resulting position) for a "
                    "gnubg Position ID and a roll.")
    _common(lp)
    lp.set_defaults(func=run_legal_plays)

    ck = subparsers.add_parser(
        "check", help="judge an observed change of the board",
        description="Judge the change from --position-id to --after with the roll: legal, "
                    "illegal (with reasons and the closest legal play), in_progress or "
                    "no_change.")
    _common(ck)
    ck.add_argument("--after", metavar="PID", help="Position ID of the board seen after the play "
                    "(same player on roll)")
    ck.add_argument("--complete", action="store_true",
                    help="the turn is over: an unfinished play is illegal, not in progress")
    ck.set_defaults(func=run_check)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--position-id", metavar="PID", help="gnubg Position ID, player on roll")
    parser.add_argument("--dice", nargs=2, metavar=("D1", "D2"), help="the roll, two values 1..6")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--batch", action="store_true",
                        help="read JSON request lines from standard input, answer one per line")


# ------------------------------------------------------------------ parsing
def _position(pid: Any, what: str = "--position-id") -> Position:
    if pid is None:
        raise UserError(f"missing {what} (a gnubg Position ID)")
    if not isinstance(pid, str):
        raise UserError(f"{what} must be a Position ID string, not {json.dumps(pid)}")
    try:
        pos = Position.from_position_id(pid)
    except PositionIdError as exc:
        raise UserError(f"malformed Position ID for {what}: {exc}") from None
    return pos


def _refuse_impossible(pid: str, pos: Position) -> None:
    """Raise ``UserError`` when ``pos`` (decoded from ``pid``) cannot be played from."""
    problems = pos.describe_status()
    if problems:
        raise UserError(f"position {pid} is impossible: {' '.join(problems)}")
    if pos.is_game_over():
        raise UserError(f"position {pid}: a player has borne off all 15 checkers, "
                        "the game is over")


def _valid_before(pid: Any) -> Position:
    pos = _position(pid)
    _refuse_impossible(pid, pos)
    return pos


def _dice(values: Any) -> Dice:
    if values is None:
        raise UserError("missing --dice (two values 1..6)")
    if not isinstance(values, (list, tuple)) or len(values) != 2:
        raise UserError(f"dice are two values 1..6, not {json.dumps(values)}")
    parsed = []
    for v in values:
        if isinstance(v, str) and v.strip().isdigit():
            v = int(v.strip())
        if isinstance(v, bool) or not isinstance(v, int):
            raise UserError(f"a die is an integer 1..6, not {json.dumps(v)}")
        parsed.append(v)
    try:
        return Dice(parsed[0], parsed[1])
    except DiceError as exc:
        raise UserError(f"impossible dice: {exc}") from None


# ----------------------------------------------------------------- answers
def _listing(request: dict, notations: Optional[dict]) -> tuple[str, Dice, list[tuple[str, str]]]:
    """The request's Position ID, its dice and ``(notation, position_id)`` of each
    legal play, sorted by notation. Raises ``UserError`` for bad input."""
    pid = request.get("position_id")
    pos = _position(pid)
    dice = _dice(request.get("dice"))
    try:
        plays = legal_plays(pos, dice)
    except IllegalPositionError:
        _refuse_impossible(pid, pos)
        raise
    return pid, dice, plays.listing(notations)


def legal_plays_answer(request: dict, notations: Optional[dict] = None) -> dict:
    """``{"position_id", "dice", "plays": [{"play", "position_id"}, ...]}`` for a request
    with ``position_id`` and ``dice``, plays sorted by notation. ``notations``: the
    memo of :meth:`~companion.legal.LegalPlays.listing`, shared by the lines of a
    batch. Raises ``UserError`` for bad input."""
    pid, dice, listing = _listing(request, notations)
    return {"position_id": pid, "dice": dice.as_list(),
            "plays": [{"play": text, "position_id": result} for text, result in listing]}


def legal_plays_line(request: dict, notations: Optional[dict] = None) -> str:
    """:func:`legal_plays_answer` as its JSON text (what ``json.dumps`` writes), written
    directly: notation and Position IDs hold no character that JSON escapes."""
    pid, dice, listing = _listing(request, notations)
    plays = ", ".join(['{"play": "%s", "position_id": "%s"}' % item for item in listing])
    echo = f'"{pid}"' if ALPHABET.issuperset(pid) else json.dumps(pid)
    return '{"position_id": %s, "dice": [%d, %d], "plays": [%s]}' % (echo, dice.d1, dice.d2, plays)


def check_answer(request: dict) -> dict:
    """The ``check --json`` object for a request with ``position_id``, ``dice``,
    ``after`` and optional ``complete``. Raises ``UserError`` for bad input."""
    before = _valid_before(request.get("position_id"))
    dice = _dice(request.get("dice"))
    after = _position(request.get("after"), "--after")
    complete = request.get("complete", False)
    if not isinstance(complete, bool):
        raise UserError(f"complete is true or false, not {json.dumps(complete)}")
    return judge(before, dice, after, complete=complete).to_dict()


# --------------------------------------------------------------- handlers
def _request_from_args(args: argparse.Namespace) -> dict:
    req: dict[str, Any] = {"position_id": args.position_id, "dice": args.dice}
    if hasattr(args, "after"):
        req["after"] = args.after
        req["complete"] = args.complete
    return req


def batch(answer: Callable[[dict], Union[dict, str]], requests: TextIO, answers: TextIO) -> int:
    """Answer one JSON request object per line of ``requests`` with one JSON line on
    ``answers`` (flushed per line); ``answer`` gives the answer object or its JSON
    text. A line that is not a JSON object, or that
    ``answer`` refuses with ``UserError``, gets ``{"error": "line N: ..."}`` and the
    batch goes on. Returns the exit code: 1 when any line failed, else 0."""
    failed = 0
    dumps = json.dumps
    for number, line in enumerate(requests, start=1):
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise UserError("a request line is a JSON object")
            result = answer(request)
        except json.JSONDecodeError as exc:
            failed += 1
            result = {"error": f"line {number}: not JSON: {exc.msg}"}
        except UserError as exc:
            failed += 1
            result = {"error": f"line {number}: {exc}"}
        answers.write((result if isinstance(result, str) else dumps(result)) + "\n")
        answers.flush()
    return 1 if failed else 0


def run_legal_plays(args: argparse.Namespace) -> int:
    """Handler of ``companion legal-plays``."""
    if args.batch:
        notations: dict = {}
        return batch(lambda request: legal_plays_line(request, notations), sys.stdin, sys.stdout)
    answer = legal_plays_answer(_request_from_args(args))
    if args.json:
        print(json.dumps(answer))
        return 0
    if not answer["plays"]:
        print("No legal play: the position stays as it is.")
    for item in answer["plays"]:
        print(f"{item['play']:<28} {item['position_id']}")
    return 0


def run_check(args: argparse.Namespace) -> int:
    """Handler of ``companion check``."""
    if args.batch:
        return batch(check_answer, sys.stdin, sys.stdout)
    answer = check_answer(_request_from_args(args))
    if args.json:
        print(json.dumps(answer))
        return 0
    line = answer["verdict"]
    if answer["play"]:
        line += f": {answer['play']}"
    print(line)
    for reason in answer["reasons"]:
        print(f"  [{reason['code']}] {reason['message']}")
    if answer["closest_legal"] is not None:
        print(f"  closest legal play: {answer['closest_legal']}")
    return 0

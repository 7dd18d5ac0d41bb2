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
from typing import Any, Callable

from companion.cli import UserError
from companion.dice import Dice, DiceError
from companion.legal import legal_plays
from companion.position import Position
from companion.position_id import PositionIdError
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


def _valid_before(pid: Any) -> Position:
    pos = _position(pid)
    problems = pos.describe_status()
    if problems:
        raise UserError(f"position {pid} is impossible: {' '.join(problems)}")
    if pos.is_game_over():
        raise UserError(f"position {pid}: a player has borne off all 15 checkers, "
                        "the game is over")
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
def legal_plays_answer(request: dict) -> dict:
    """``{"position_id", "dice", "plays": [{"play", "position_id"}, ...]}`` for a request
    with ``position_id`` and ``dice``. Raises ``UserError`` for bad input."""
    pos = _valid_before(request.get("position_id"))
    dice = _dice(request.get("dice"))
    plays = legal_plays(pos, dice)
    return {
        "position_id": request["position_id"],
        "dice": dice.as_list(),
        "plays": sorted(({"play": p.notation(), "position_id": p.result.position_id()}
                         for p in plays), key=lambda item: item["play"]),
    }


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


def _batch(answer: Callable[[dict], dict]) -> int:
    failed = 0
    out = sys.stdout
    for number, line in enumerate(sys.stdin, start=1):
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
        out.write(json.dumps(result) + "\n")
        out.flush()
    return 1 if failed else 0


def run_legal_plays(args: argparse.Namespace) -> int:
    """Handler of ``companion legal-plays``."""
    if args.batch:
        return _batch(legal_plays_answer)
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
        return _batch(check_answer)
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

"""``companion match import|show|export``: match records and the match log.

* ``companion match import FILE.mat [--export OUT.mat] [--json] [--log LOG]
  [--allow-unfinished]``: replay a Jellyfish record through our rules; print the
  score sheet (or, with ``--json``, ``{"match_length", "final_score",
  "players", "games": [...]}``); optionally write our own ``.mat`` and/or a
  match log. Exit 2 with one line naming the game, move and reason at the
  first illegal or malformed entry.
* ``companion match show [--log LOG] [--json]``: the score sheet and the
  current state (Position ID, Match ID) of the match in the log.
* ``companion match export [--log LOG] [-o OUT.mat]``: the logged match as ``.mat``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from companion.cli import UserError

#: Where ``companion match show/export`` look for the log by default.
DEFAULT_LOG = "companion-match.sqlite3"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``match`` and its sub-commands to the ``companion`` parser."""
    parser = subparsers.add_parser("match", help="match records (.mat) and the match log")
    sub = parser.add_subparsers(dest="match_command", metavar="SUBCOMMAND")
    parser.set_defaults(func=lambda args: _usage(parser))

    p = sub.add_parser("import", help="replay a Jellyfish .mat record through our rules")
    p.add_argument("file", help="the .mat file")
    p.add_argument("--export", metavar="OUT.mat", help="write the replayed match as .mat")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--log", "--match-log", dest="log", metavar="LOG",
                   help="also write the replayed match to a new match log")
    p.add_argument("--allow-unfinished", action="store_true",
                   help="accept a record that stops before the match is over")
    p.add_argument("--allow-illegal", action="store_true",
                   help="keep illegal plays that stood (accepted by the opponent) instead of stopping")
    p.set_defaults(func=_cmd_import)

    p = sub.add_parser("show", help="score sheet and state of the match in the log")
    p.add_argument("--log", "--match-log", dest="log",
                   default=os.environ.get("COMPANION_MATCH_LOG", DEFAULT_LOG),
                   help=f"match log (default: $COMPANION_MATCH_LOG or {DEFAULT_LOG})")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("export", help="write the match in the log as .mat")
    p.add_argument("--log", "--match-log", dest="log",
                   default=os.environ.get("COMPANION_MATCH_LOG", DEFAULT_LOG),
                   help=f"match log (default: $COMPANION_MATCH_LOG or {DEFAULT_LOG})")
    p.add_argument("-o", "--output", metavar="OUT.mat", help="output file (default: standard output)")
    p.set_defaults(func=_cmd_export)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _read_text(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise UserError(f"{path}: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _write_text(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise UserError(f"{path}: {exc.strerror or exc}") from None


def score_sheet(match) -> str:
    """A plain-text score sheet: one line per game and the current state."""
    kind = "money session" if match.length == 0 else f"match to {match.length}"
    lines = [f"{match.players[0]} vs {match.players[1]}, {kind}"]
    for g in match.games:
        crawford = " (Crawford)" if g.crawford else ""
        lines.append(
            f"game {g.number:>3}: {match.players[g.winner]} wins {g.points} point(s),"
            f" {g.kind}, cube {g.cube}{crawford}; score {g.score_after[0]}-{g.score_after[1]}"
        )
    lines.append(f"score: {match.players[0]} {match.score[0]}, {match.players[1]} {match.score[1]}")
    if match.over:
        lines.append(f"match over: {match.players[match.winner]} wins")
    else:
        flag = " (Crawford game)" if match.crawford else (" (post-Crawford)" if match.post_crawford else "")
        lines.append(f"game {match.game_number}{flag}: waiting for {match.phase.replace('_', ' ')}")
    lines.append(f"Position ID: {match.position_id()}  Match ID: {match.match_id()}")
    return "\n".join(lines)


def _state(match) -> dict[str, Any]:
    return match.to_dict()


def _cmd_import(args: argparse.Namespace) -> int:
    from companion.mat import MatError, export_mat, import_mat

    text = _read_text(args.file)
    try:
        result = import_mat(text, allow_unfinished=args.allow_unfinished,
                            allow_illegal=args.allow_illegal)
    except MatError as exc:
        raise UserError(f"{args.file}: {exc}") from None
    match = result.match
    if args.export:
        _write_text(args.export, export_mat(match))
    if args.log:
        _write_log(args.log, match)
    if args.json:
        print(json.dumps(result.summary()))
    else:
        print(score_sheet(match))
    return 0


def _write_log(path: str, match) -> None:
    from companion.match_log import MatchLog, MatchLogError
    from companion.match import Match

    try:
        log = MatchLog.create(path, match.config())
    except (MatchLogError, OSError) as exc:
        raise UserError(str(exc)) from None
    with log:
        replay = Match.from_config(match.config())
        for action in match.actions:
            log.record(replay, action, replay.apply(action))


def _open_log(path: str):
    from companion.match_log import MatchLog, MatchLogError

    try:
        log = MatchLog.open(path)
        try:
            return log.replay()
        finally:
            log.close()
    except MatchLogError as exc:
        raise UserError(str(exc)) from None


def _cmd_show(args: argparse.Namespace) -> int:
    match = _open_log(args.log)
    if args.json:
        print(json.dumps(_state(match)))
    else:
        print(score_sheet(match))
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from companion.mat import MatError, export_mat

    match = _open_log(args.log)
    try:
        text = export_mat(match)
    except MatError as exc:
        raise UserError(f"{args.log}: {exc}") from None
    if args.output:
        _write_text(args.output, text)
    else:
        sys.stdout.write(text)
    return 0

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
* ``companion match analyse FILE.mat | --log LOG [--plies N] [--worst N] [--json]``:
  GNU Backgammon's review of a whole match (error rates, luck, ratings, the
  worst decisions, each with the ``companion analyse`` line that opens it);
  ``--log LOG --stored`` sums up the analyses stored with the match log during
  play, without running gnubg. Exit 1 with one line when gnubg is not available.
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

    p = sub.add_parser("analyse", help="GNU Backgammon's review of a whole match (.mat or match log)")
    p.add_argument("file", nargs="?", help="the .mat file (or use --log)")
    p.add_argument("--log", "--match-log", dest="log", metavar="LOG", help="a match log recorded by companion watch")
    p.add_argument("--stored", action="store_true",
                   help="with --log: the analyses stored during play, without running gnubg")
    p.add_argument("--plies", type=int, default=2, help="evaluation depth 0-4 (default 2)")
    p.add_argument("--worst", type=int, default=10, metavar="N", help="list the N worst decisions (default 10)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--gnubg", default="/usr/games/gnubg", help="the gnubg program (default /usr/games/gnubg)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds allowed for gnubg (default 600)")
    p.set_defaults(func=_cmd_analyse)


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


def _review_text(review, worst: int) -> str:
    kind = "money session" if review.match_length == 0 else f"match to {review.match_length}"
    a, b = review.stats

    def num(value, fmt="{:.1f}") -> str:
        return "-" if value is None else fmt.format(value)

    rows = [
        ("Unforced moves", a.unforced_moves, b.unforced_moves),
        ("Chequer play error rate (mEMG)", num(a.chequer_rate), num(b.chequer_rate)),
        ("Moves marked doubtful/bad/very bad",
         "/".join(str(a.marked.get(k, 0)) for k in ("doubtful", "bad", "very bad")),
         "/".join(str(b.marked.get(k, 0)) for k in ("doubtful", "bad", "very bad"))),
        ("Close or actual cube decisions", a.cube_decisions, b.cube_decisions),
        ("Cube error rate (mEMG)", num(a.cube_rate), num(b.cube_rate)),
        ("Overall error rate (mEMG)", num(a.overall_rate), num(b.overall_rate)),
        ("Luck rate (mEMG per move)", num(a.luck_rate), num(b.luck_rate)),
        ("Rating", a.rating, b.rating),
    ]
    lines = [f"gnubg {review.plies}-ply review: {review.players[0]} vs {review.players[1]}, {kind}",
             f"{'':<36}{review.players[0]:>16}{review.players[1]:>16}"]
    lines += [f"{name:<36}{str(x):>16}{str(y):>16}" for name, x, y in rows]
    shown = review.decisions[:worst]
    lines.append(f"Worst decisions ({len(shown)} of {len(review.decisions)} that lost equity):")
    for i, d in enumerate(shown, start=1):
        lines.append(f"{i:>3}. {d.sentence(review.players)}")
        lines.append(f"     {d.command()}")
    return "\n".join(lines)


def _stored_text(summary: dict) -> str:
    lines = [f"{summary['analyses']} analyses stored during play"]
    for player, rate in enumerate(summary["error_rates"]):
        value = "-" if rate.get("error_rate") is None else f"{rate['error_rate']:.1f}"
        lines.append(f"player {player}: {rate['plays']} unforced plays, error rate {value} mEMG; "
                     f"{rate['cube_decisions']} cube decisions, {rate['cube_loss']:.3f} lost")
    for d in summary["worst"]:
        label = f" ({d['label']})" if d.get("label") else ""
        made = d["made"] or d["decision"].replace("_", " ")
        lines.append(f"  player {d['player']} {made}: best {d['best']}; loss {d['equity_loss']:.3f}{label}")
    return "\n".join(lines)


def _cmd_analyse(args: argparse.Namespace) -> int:
    from companion.analysis.engine import AnalysisUnavailable, GnubgEngine
    from companion.analysis.match_review import review_match, review_stored

    if (args.file is None) == (args.log is None):
        raise UserError("give either a .mat file or --log LOG")
    if args.stored and args.log is None:
        raise UserError("--stored reads a match log: give --log LOG")
    if not 0 <= args.plies <= 4:
        raise UserError(f"--plies is 0 to 4, not {args.plies}")
    if args.worst < 0:
        raise UserError(f"--worst must be >= 0, not {args.worst}")
    if args.timeout <= 0:
        raise UserError(f"--timeout must be positive, not {args.timeout}")
    if args.stored:
        from companion.analysis.store import stored_analyses

        _open_log(args.log)  # a readable match log, or one line
        summary = review_stored(stored_analyses(args.log))
        summary["worst"] = summary["worst"][:args.worst]
        print(json.dumps(summary) if args.json else _stored_text(summary))
        return 0
    if args.log is not None:
        from companion.mat import MatError, export_mat

        try:
            text = export_mat(_open_log(args.log))
        except MatError as exc:
            raise UserError(f"{args.log}: {exc}") from None
    else:
        text = _read_text(args.file)  # gnubg reads the record itself (it says so when it cannot)
    with GnubgEngine(args.gnubg) as engine:
        try:
            review = review_match(engine, text, plies=args.plies, timeout_s=args.timeout)
        except AnalysisUnavailable as exc:
            print(f"companion match analyse: analysis unavailable: {exc}", file=sys.stderr)
            return 1
        except ValueError as exc:
            raise UserError(f"{args.file or args.log}: {exc}") from None
    print(json.dumps(review.to_dict(args.worst)) if args.json else _review_text(review, args.worst))
    return 0

"""``companion analyse``: GNU Backgammon's judgement of one play or one cube decision.

``analyse --position-id PID --dice D1 D2 [--play "8/5 6/5" | --after PID]``
ranks every legal play of the roll with gnubg's equities (best first; the play
made marked with its equity loss and gnubg's label); without ``--dice`` it gives
gnubg's cube decision before the roll (no double / double, take / double, pass).
``--match-id MID`` sets the match state (gnubg's Match ID, its player on roll
being the Position ID's); without it, a money game with a centred cube.
``--plies N`` (default 2), ``--json``, ``--gnubg PATH``, ``--timeout S``.
Exit 0; 2 for bad input (one line); 1 when gnubg is not available (one line).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from companion.cli import UserError
from companion.commands.rules import _dice, _valid_before


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``analyse`` sub-command."""
    from companion.analysis.analyst import DEFAULT_PLIES
    from companion.analysis.engine import DEFAULT_GNUBG

    p = subparsers.add_parser(
        "analyse", help="GNU Backgammon's ranking of the plays of a roll, or its cube decision",
        description="Rank every legal play of a roll with GNU Backgammon's equities (with --dice), "
                    "or give its cube decision before the roll (without --dice).")
    p.add_argument("--position-id", metavar="PID", help="gnubg Position ID, player on roll")
    p.add_argument("--dice", nargs=2, metavar=("D1", "D2"), help="the roll; leave out for the cube decision")
    p.add_argument("--match-id", metavar="MID", help="gnubg Match ID of the match state "
                   "(default: money game, centred cube)")
    made = p.add_mutually_exclusive_group()
    made.add_argument("--play", metavar="PLAY", help='the play made, in notation ("8/5 6/5")')
    made.add_argument("--after", metavar="PID", help="the Position ID after the play made (mover on roll)")
    p.add_argument("--plies", type=int, default=DEFAULT_PLIES, help=f"evaluation depth 0-4 (default {DEFAULT_PLIES})")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--gnubg", default=DEFAULT_GNUBG, help=f"the gnubg program (default {DEFAULT_GNUBG})")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds allowed for gnubg's answer (default 30)")
    p.set_defaults(func=run_analyse)


def _match_id(text: Any) -> str:
    from companion.analysis.analyst import mover_match_id
    from companion.match_id import MatchIdError, MatchKey

    if text is None:
        return mover_match_id(None, 0)
    try:
        key = MatchKey.decode(text)
        return mover_match_id(text, key.turn)
    except MatchIdError as exc:
        raise UserError(f"malformed Match ID for --match-id: {exc}") from None


def _made_after(args: argparse.Namespace, pos, dice) -> Any:
    from companion.legal import legal_plays
    from companion.position import Position
    from companion.position_id import PositionIdError

    if args.after is not None:
        try:
            Position.from_position_id(args.after)
        except PositionIdError as exc:
            raise UserError(f"malformed Position ID for --after: {exc}") from None
        return args.after
    if args.play is not None:
        wanted = " ".join(args.play.split())
        for play in legal_plays(pos, dice):
            if play.notation() == wanted:
                return play.result.position_id()
        raise UserError(f"{args.play!r} is not a legal play of {dice.d1}-{dice.d2} here "
                        "(write it as gnubg does, e.g. \"8/5 6/5\")")
    return None


def _signed(value: float) -> str:
    return f"{value:+.3f}"


def _print_plays(analysis, after, limit: int = 10) -> None:
    d1, d2 = analysis.dice
    print(f"gnubg {analysis.plies}-ply, dice {d1}-{d2}: {len(analysis.plays)} legal plays")
    if not analysis.plays:
        print("No legal play: the position stays as it is.")
    for rank, ranked in enumerate(analysis.plays, start=1):
        made = rank == analysis.made_rank
        if rank > limit and not made:
            continue
        loss = "" if rank == 1 else f" ({_signed(-ranked.equity_loss)})"
        mark = "*" if made else " "
        print(f"{mark}{rank:>3}. {ranked.play:<28} {_signed(ranked.equity)}{loss}  {ranked.plies}-ply")
    if analysis.made_rank is not None:
        label = f", {analysis.label}" if analysis.label else ""
        print(f"played: {analysis.made} (rank {analysis.made_rank}, equity loss "
              f"{analysis.equity_loss:.3f}{label})")
    elif after is not None:
        print(f"played: {after} is not the result of a legal play of this roll")


def _print_cube(cube) -> None:
    best = cube.optimal
    print(f"gnubg {cube.plies}-ply cube decision")
    for name, value in (("No double", cube.no_double), ("Double, take", cube.double_take),
                        ("Double, pass", cube.double_pass)):
        print(f"  {name:<14} {_signed(value)} ({_signed(value - best)})")
    print(f"gnubg: {cube.action}")


def run_analyse(args: argparse.Namespace) -> int:
    """Handler of ``companion analyse``."""
    import sys

    from companion.analysis.analyst import Analyst
    from companion.analysis.engine import AnalysisUnavailable, GnubgEngine

    pos = _valid_before(args.position_id)
    match_id = _match_id(args.match_id)
    if not 0 <= args.plies <= 4:
        raise UserError(f"--plies is 0 to 4, not {args.plies}")
    if args.timeout <= 0:
        raise UserError(f"--timeout must be positive, not {args.timeout}")
    dice = _dice(args.dice) if args.dice is not None else None
    if dice is None and (args.play or args.after):
        raise UserError("--play and --after need --dice")
    after = _made_after(args, pos, dice) if dice is not None else None
    with GnubgEngine(args.gnubg, timeout_s=args.timeout) as engine:
        analyst = Analyst(engine, plies=args.plies)
        try:
            if dice is not None:
                result = analyst.plays(args.position_id, (dice.d1, dice.d2), match_id, after=after)
            else:
                result = analyst.cube(args.position_id, match_id)
        except AnalysisUnavailable as exc:
            print(f"companion analyse: analysis unavailable: {exc}", file=sys.stderr)
            return 1
        except ValueError as exc:
            raise UserError(str(exc)) from None
    if args.json:
        print(json.dumps(result.to_dict()))
    elif dice is not None:
        _print_plays(result, after)
    else:
        _print_cube(result)
    return 0

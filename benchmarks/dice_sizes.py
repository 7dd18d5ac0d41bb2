"""Dice of every size on registered rendered boards: ``python benchmarks/dice_sizes.py
[--boards 80] [--seed 5100] [--wide] [--die-as-under SHARE] [--json OUT]``.

For each size band of the dice (their side over a checker's diameter: 0.3 small travel dice,
0.45 tournament dice, 0.7-0.8 jumbo dice) ``--boards`` boards are rendered
(:func:`vision.render_roll.render_roll_on_board` with ``die_to_checker``, half of the rolls with a
cocked die, seeds from ``--seed`` on, never trained on; ``--wide``: boards of any colours and
marks; ``--die-as-under``: that share of the dice the colour of what they lie on) and read as
``companion watch`` reads a frame (:meth:`vision.dice.DiceReader.scan`,
:func:`vision.cocked.judge_scan`). Prints per band:
dice found and value accuracy, flat rolls read exactly (both dice, their values, nothing else),
cocked rolls caught (recall) and rolls called cocked that were (precision), cube values right;
then over every band the cubes found and read, the false cubes on the boards without one, and the
flat rolls read exactly per board style and per kind of dice.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: die side / checker diameter bands
BANDS = ((0.28, 0.34), (0.36, 0.44), (0.44, 0.52), (0.52, 0.62), (0.62, 0.72), (0.72, 0.82))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit code (2 for a bad ``--boards`` or a missing model)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=80, help="boards per size band")
    ap.add_argument("--seed", type=int, default=5100, help="first seed (one per band)")
    ap.add_argument("--models", type=pathlib.Path, default=None, help="folder with the ONNX models")
    ap.add_argument("--json", type=pathlib.Path, default=None, help="write the figures here")
    ap.add_argument("--wide", action="store_true",
                    help="boards of any colours, with marked checkers and printed fields")
    ap.add_argument("--die-as-under", type=float, default=0.0,
                    help="share of the dice the colour of what they lie on (a red die on a red point)")
    args = ap.parse_args(argv)
    if args.boards < 1:
        print("error: --boards must be at least 1", file=sys.stderr)
        return 2

    from vision.dice import DiceReader
    from vision.render_roll import evaluate_cocked_rendered

    try:
        reader = DiceReader(args.models)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = {}
    by: dict[str, dict[str, list[int]]] = {}
    print(f"{'die/checker':>12} {'found':>9} {'value':>7} {'flat exact':>11} {'cocked recall':>14} "
          f"{'precision':>10} {'cube value':>11}")
    for k, band in enumerate(BANDS):
        r = evaluate_cocked_rendered(args.boards, reader, seed=args.seed + k, die_to_checker=band,
                                     wide=args.wide, under_share=args.die_as_under)
        rolls, cube = r["rolls"], r["cube"]
        out[f"{band[0]:.2f}-{band[1]:.2f}"] = r
        for key, rows in r["flat_exact_by"].items():
            for name, (exact, n) in rows.items():
                row = by.setdefault(key, {}).setdefault(name, [0, 0])
                row[0] += exact
                row[1] += n
        print(f"{band[0]:.2f}-{band[1]:.2f}".rjust(12),
              f"{r['found']}/{r['dice']}".rjust(9), (f"{r['value_accuracy']:.3f}" if r["value_accuracy"] is not None else "-").rjust(7),
              f"{rolls['flat_exact']}/{rolls['flat']}".rjust(11),
              f"{rolls['caught']}/{rolls['cocked']}".rjust(14),
              (f"{rolls['precision']:.3f}" if rolls["precision"] is not None else "-").rjust(10),
              f"{cube['value_correct']}/{cube['boards_with_cube']}".rjust(11), flush=True)
    cubes = [r["cube"] for r in out.values()]
    print("cubes: found {}/{}, value right {}, place right {}; false cubes {} on {} boards without one".format(
        *(sum(c[key] for c in cubes) for key in ("found", "boards_with_cube", "value_correct", "place_correct",
                                                 "false_cubes", "boards_without_cube"))))
    for key, rows in sorted(by.items()):
        print(f"flat rolls read exactly per {key.replace('_', ' ')}: "
              + ", ".join(f"{name} {e}/{n}" for name, (e, n) in sorted(rows.items())))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Real dice that the reader would drop as checkers: ``python benchmarks/checkers_read_as_dice.py
[--seed 4242] [--boards 150] [--leans free checker rail edge] [--die-to-checker 0.28 0.85]
[--json OUT]``.

Renders rolls on random boards (:func:`vision.render_roll.render_roll_on_board`: boards of any
colours and marks, 70% of the rolls with a cocked die, tilted ones leaning as ``--leans`` says),
reads each as ``companion watch`` does (:class:`vision.reader.BoardReader` with the dice plug-in, told
who rolls) and counts the dice the plug-in reads weakly (below ``vision.cocked.TURNED_DOWN``), those
the reader then takes for checkers (:func:`vision.cocked.checkers_read_as_dice`), and of them the
ones that are real dice of the roll (within 0.6 of a die's side of one): each of those is a die
lost.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def measure(seed: int, boards: int, leans: tuple[str, ...], die_to_checker: tuple[float, float]) -> dict:
    """The counts for ``boards`` rolls of ``seed`` (see the module's doc)."""
    import numpy as np

    from vision.cocked import TURNED_DOWN
    from vision.dice_plugin import DicePlugin
    from vision.reader import BoardReader
    from vision.render_roll import render_roll_on_board

    rng = np.random.default_rng(seed)
    out = dict(boards=boards, dice=0, cocked=0, read_weakly=0, taken_for_checkers=0, real_dice_taken=0,
               cocked_dice_taken=0)
    plugin = DicePlugin()
    for _ in range(boards):
        roll = render_roll_on_board(rng, leans=leans, die_to_checker=die_to_checker, wide=True, cocked_prob=0.7)
        plugin.roller = roll.roller
        plugin.new_frame()
        raw = plugin.dice(roll.image, roll.field)  # the plug-in's dice, before the reader's checkers
        obs = BoardReader(field=roll.field, dice_reader=plugin.dice, cube_reader=plugin.cube).read(roll.image)
        kept = {d.center for d in obs.dice}
        out["dice"] += len(roll.dice)
        out["cocked"] += sum(t.cocked for t in roll.dice)
        out["read_weakly"] += sum(d.confidence < TURNED_DOWN for d in raw)
        for d in raw:
            if d.center in kept:
                continue
            out["taken_for_checkers"] += 1
            real = [t for t in roll.dice if math.hypot(d.center[0] - t.center[0], d.center[1] - t.center[1]) < 0.6 * t.size]
            out["real_dice_taken"] += bool(real)
            out["cocked_dice_taken"] += bool(real) and real[0].cocked
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--boards", type=int, default=150)
    ap.add_argument("--leans", nargs="+", default=["free", "checker", "rail", "edge"],
                    help="how tilted dice are held up (vision.render_roll.LEAN_KINDS)")
    ap.add_argument("--die-to-checker", type=float, nargs=2, default=[0.28, 0.85], metavar=("LOW", "HIGH"))
    ap.add_argument("--json", default=None, help="write the counts here")
    args = ap.parse_args(argv)
    if args.boards < 1:
        print("error: --boards must be at least 1", file=sys.stderr)
        return 2
    out = measure(args.seed, args.boards, tuple(args.leans), tuple(args.die_to_checker))
    out["command"] = "python benchmarks/checkers_read_as_dice.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        pathlib.Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

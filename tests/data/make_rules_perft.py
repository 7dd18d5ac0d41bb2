"""Regenerate ``rules_perft.json``: legal-play counts for seeded positions and all 21
rolls, counted by GNU Backgammon's ``hint`` (never by the companion's generator).

    python tests/data/make_rules_perft.py   # needs /usr/games/gnubg, ~10 s
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from companion.position import Position  # noqa: E402
from companion.sampling import KINDS, random_position  # noqa: E402

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
WORKER = HERE.parent / "rules_gnubg_worker.py"


def main() -> None:
    import random

    rng = random.Random(7)
    positions = [Position.initial()]
    while len(positions) < 120:
        pos = random_position(rng, KINDS[len(positions) % len(KINDS)])
        if pos not in positions:
            positions.append(pos)
    requests = [{"position_id": p.position_id(), "dice": list(r)} for p in positions for r in ROLLS]
    procs = 8
    with tempfile.TemporaryDirectory() as tmp:
        running = []
        for i in range(procs):
            src, dst = pathlib.Path(tmp, f"in{i}"), pathlib.Path(tmp, f"out{i}")
            src.write_text("".join(json.dumps(r) + "\n" for r in requests[i::procs]))
            env = dict(os.environ, RULES_GNUBG_IN=str(src), RULES_GNUBG_OUT=str(dst))
            running.append((subprocess.Popen(["/usr/games/gnubg", "-t", "-q", "-r", "-p",
                                              str(WORKER)], env=env, stdout=subprocess.DEVNULL),
                            dst))
        counts: dict[str, dict[str, int]] = {}
        for proc, dst in running:
            proc.wait()
            for line in dst.read_text().splitlines():
                row = json.loads(line)
                d1, d2 = row["dice"]
                counts.setdefault(row["position_id"], {})[f"{d1}{d2}"] = len(row["results"])
    out = {
        "about": "Distinct legal plays (resulting positions) per roll, counted by GNU "
                 "Backgammon 1.07 hint; positions from companion.sampling (seed 7), "
                 "the first is the starting position. Keys of counts: the two dice.",
    }
    rows = [json.dumps({"position_id": p.position_id(),
                        "counts": dict(sorted(counts[p.position_id()].items()))})
            for p in positions]
    text = ('{"about": ' + json.dumps(out["about"]) + ',\n "positions": [\n  '
            + ",\n  ".join(rows) + "\n]}\n")
    (HERE / "rules_perft.json").write_text(text)
    print(f"{len(positions)} positions x {len(ROLLS)} rolls written")


if __name__ == "__main__":
    main()

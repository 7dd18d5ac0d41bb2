"""Match play speed: .mat import/export, Match actions, and the SQLite match log.

Prints medians and p99s (milliseconds) and ratios against a baseline measured
in the same process:

* random self-play matches (seeded) are played through :class:`Match`
  (baseline: the same actions applied without a log), then through
  :class:`LoggedMatch` (one committed WAL transaction per action,
  ``synchronous=FULL``): per-action latency and the logging overhead ratio;
* replaying a log (resume after a crash) per action;
* ``.mat`` export and import (every play validated by ``legal_plays``) per
  checker play.

Usage: ``python benchmarks/bench_match.py [--matches N] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from companion.mat import export_mat, import_mat  # noqa: E402
from companion.match import Match, MatchRules  # noqa: E402
from companion.match_log import LoggedMatch, MatchLog  # noqa: E402
from match_driver import random_step  # noqa: E402


def random_actions(seed: int, length: int) -> tuple[dict, list[dict]]:
    rng = random.Random(seed)
    match = Match(length, rules=MatchRules(beavers=1, jacoby=True))
    while not match.over and (length or len(match.games) < 4):
        random_step(match, rng, double=0.08, take=0.8)
    return match.config(), match.actions


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=12)
    parser.add_argument("--out", help="also write the figures to this file")
    args = parser.parse_args()

    games = [random_actions(seed, [3, 5, 7, 0][seed % 4]) for seed in range(args.matches)]
    n_actions = sum(len(a) for _, a in games)
    plain, logged, replay, imports, exports = [], [], [], [], []
    n_plays = 0
    with tempfile.TemporaryDirectory() as tmp:
        for index, (config, actions) in enumerate(games):
            match = Match.from_config(config)
            for action in actions:
                t = time.perf_counter()
                match.apply(action)
                plain.append((time.perf_counter() - t) * 1000)
            path = os.path.join(tmp, f"m{index}.sqlite3")
            lm = LoggedMatch.open(path, config)
            for action in actions:
                t = time.perf_counter()
                lm.apply(action)
                logged.append((time.perf_counter() - t) * 1000)
            lm.log.close()
            t = time.perf_counter()
            log = MatchLog.open(path)
            rebuilt = log.replay()
            log.close()
            replay.append((time.perf_counter() - t) * 1000 / len(actions))
            assert rebuilt.match_id() == match.match_id()
            plays = sum(1 for a in actions if a["type"] == "play")
            n_plays += plays
            t = time.perf_counter()
            text = export_mat(match)
            exports.append((time.perf_counter() - t) * 1000 / plays)
            t = time.perf_counter()
            again = import_mat(text, rules=match.rules)
            imports.append((time.perf_counter() - t) * 1000 / plays)
            assert again.match.score == match.score

    lines = [
        f"matches: {len(games)}, actions: {n_actions}, checker plays: {n_plays}",
        f"Match.apply (baseline, no log): median {statistics.median(plain):.3f} ms, p99 {pct(plain, 0.99):.3f} ms",
        f"LoggedMatch.apply (WAL, synchronous=FULL, 1 transaction/action): median "
        f"{statistics.median(logged):.3f} ms, p99 {pct(logged, 0.99):.3f} ms",
        f"logging overhead ratio (median logged / median baseline): "
        f"{statistics.median(logged) / statistics.median(plain):.1f}x",
        f"log open + replay per action: median {statistics.median(replay):.3f} ms",
        f".mat export per checker play: median {statistics.median(exports):.3f} ms",
        f".mat import (validated by legal_plays) per checker play: median "
        f"{statistics.median(imports):.3f} ms, p99 {pct(imports, 0.99):.3f} ms",
    ]
    text = "\n".join(lines)
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(
            "command: python benchmarks/bench_match.py --matches "
            f"{args.matches} --out {args.out}\n" + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

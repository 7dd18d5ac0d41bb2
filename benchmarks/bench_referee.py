"""The referee on seeded games at the observation level (no pixels): accuracy
of the verdict stream against the ground truth, and its cost per observation.

Usage (from the project root)::

    python benchmarks/bench_referee.py                      # 20 games
    python benchmarks/bench_referee.py --games 50 --misread 0.2
    python benchmarks/bench_referee.py --json benchmarks/results/bench_referee.json

Each game (``companion.scripted_game.random_game``, seeds 0..N-1, money and
7-point matches alternately) is played to its end with random legal plays,
illegal plays and their corrections, cocked rolls, doubles, takes and drops;
every frame is an Observation as a perfect reader would give it, except that
a still frame misreads one point by one checker with probability ``--misread``
(the votes must outvote it) and hands cover the board between checker moves.
Printed for the referee and, as the baseline in the same process, for the
same referee without the votes and without the rule that a change needs
motion or a hand (every still frame taken as read): the games
whose verdict stream equals the truth, illegal plays, accusations, false
accusations, missed illegal plays, and the time per frame (stability filter +
referee, median and p99, microseconds).
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="referee accuracy and cost on seeded games")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--misread", type=float, default=0.1)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)

    from companion.bus import EventBus
    from companion.scripted_game import accusation_counts, comparable, expected_comparable, observations, random_game
    from companion.session import Session
    from companion.stability import StabilitySettings

    def run(settings: StabilitySettings, naive: bool = False) -> dict:
        equal = 0
        totals: collections.Counter = collections.Counter()
        per_frame: list[float] = []
        for seed in range(args.games):
            script = random_game(seed, match_length=0 if seed % 2 else 7, illegal_rate=0.1, cocked_rate=0.08,
                                 double_rate=0.03)
            bus = EventBus()
            events: list[dict] = []
            bus.subscribe(lambda e: events.append(e.to_dict()))
            session = Session(bus, reader=None, match_settings={"match_length": script.match_length},
                              stability=settings, report_every_frame=naive)
            for obs, moving in observations(script, misread_rate=args.misread, seed=seed):
                t = time.perf_counter()
                session.feed_observation(obs, moving)
                per_frame.append((time.perf_counter() - t) * 1e6)
            got, expected = comparable(events), expected_comparable(script)
            equal += got == expected
            caught, false, missed = accusation_counts(got, expected)
            totals["illegal_plays"] += caught + missed
            totals["verdicts_expected"] += sum(1 for e in expected if e["type"] == "verdict")
            totals["accusations"] += caught + false
            totals["false_accusations"] += false
            totals["missed_illegal"] += missed
            # "position changed" is an accusation too; the scripts never move a checker out of turn
            totals["false_position_changed"] += sum(1 for e in got if e.get("verdict") == "position_changed")
        per_frame.sort()
        return {
            "games_with_exact_verdict_stream": equal,
            "frames": len(per_frame),
            "us_per_frame": {"median": round(statistics.median(per_frame), 1),
                             "p99": round(per_frame[int(0.99 * (len(per_frame) - 1))], 1)},
            **dict(sorted(totals.items())),
        }

    referee = run(StabilitySettings())
    baseline = run(StabilitySettings(still_ms=0.0, window=1, min_frames=1), naive=True)
    figures = {
        "games": args.games,
        "misread_rate": args.misread,
        "referee (2 of 3 still frames agree; a change needs motion or a hand)": referee,
        "baseline (every still frame taken as read)": baseline,
        "false_alarms": {
            "referee": referee["false_accusations"] + referee["false_position_changed"],
            "baseline": baseline["false_accusations"] + baseline["false_position_changed"],
        },
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        pathlib.Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.json).write_text(json.dumps({"command": " ".join(["python"] + sys.argv), **figures}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Analysis benchmark: agreement with gnubg, 2-ply latency, and the referee's verdict latency.

    python benchmarks/bench_analysis.py [--n 200] [--games 6] [--seed 20261125] [--plies 2]
                                        [--out benchmarks/results/bench_analysis.txt]

1. Agreement: ``--n`` seeded random positions and rolls (``tests/gnubg_text_hint.random_requests``:
   ``companion.sampling`` positions, one in three in a match with a random score and cube)
   analysed by the service (``Analyst`` over one long-lived ``GnubgEngine``) and by gnubg's
   own ``hint`` printed through its command interface; a position agrees when the ranked
   plays, their order, the ply of each and every equity to the 3 printed decimals are the
   same. The same for ``--n // 2`` cube decisions (no double / double, take / double, pass
   and gnubg's action).
2. Latency of one play's analysis at ``--plies``: wall time of ``Analyst.plays`` on the
   same positions (median, 90th percentile); and in the real referee session
   (``tests/web_demo_driver``, the demo game ``--games`` times, the service attached):
   the time from each verdict to its ``analysis`` event on the bus (``elapsed_ms``), the
   moment the dashboard's view pusher renders it.
3. The referee's verdict latency with and without the service (same process, the games
   alternated): wall time of the ``Session.feed_observation`` call that publishes each
   judged verdict (median).
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from gnubg_text_hint import random_requests, text_hints  # noqa: E402
from web_demo_driver import DemoDriver  # noqa: E402

from companion.analysis.analyst import Analyst  # noqa: E402
from companion.analysis.engine import GnubgEngine  # noqa: E402
from companion.analysis.service import AnalysisService  # noqa: E402


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def agreement(analyst, n, seed, plies):
    requests = random_requests(seed=seed, n=n)
    printed = text_hints(requests, plies=plies)
    agree, times, plays = 0, [], 0
    for req, text in zip(requests, printed):
        t0 = time.perf_counter()
        ours = analyst.plays(req["position_id"], req["dice"], req["match_id"])
        times.append(time.perf_counter() - t0)
        plays += len(ours.plays)
        same = [(p.play, round(p.equity + 0.0, 3), p.plies) for p in ours.plays] == \
            [(t[0], t[1], t[2]) for t in text["plays"]]
        agree += same
    cube_requests = random_requests(seed=seed + 1, n=n // 2, with_dice=False)
    cube_printed = text_hints(cube_requests, plies=plies)
    cube_agree = cube_compared = 0
    for req, text in zip(cube_requests, cube_printed):
        cube = text["cube"]
        if len(cube) < 4:
            continue  # gnubg prints no cube analysis where the cube is not available
        ours = analyst.cube(req["position_id"], req["match_id"])
        cube_compared += 1
        cube_agree += all(round(getattr(ours, k) + 0.0, 3) == cube[k]
                          for k in ("no_double", "double_take", "double_pass")) and \
            cube["action"].startswith(ours.action)
    return agree, n, plays, times, cube_agree, cube_compared


def session_run(with_service: bool, plies: int, engine):
    """One demo game; returns (verdict feed times in s, analysis elapsed_ms of the plays)."""
    driver = DemoDriver(mode="teaching")
    service = None
    if with_service:
        service = AnalysisService(driver.bus, Analyst(engine, plies=plies), teaching=lambda: True)
    feed_times, elapsed = [], []
    try:
        frames = driver._frames
        for obs, moving in frames:
            start = len(driver.events)
            t0 = time.perf_counter()
            driver.session.feed_observation(obs, moving)
            dt = time.perf_counter() - t0
            new = driver.events[start:]
            if any(e["type"] == "verdict" and e["verdict"] in ("legal", "corrected", "illegal") for e in new):
                feed_times.append(dt)
                if service is not None:
                    service.wait_idle(60)  # as at a real table: the next play comes seconds later
    finally:
        if service is not None:
            service.wait_idle(60)
            service.close()
    elapsed = [e["elapsed_ms"] for e in driver.events if e["type"] == "analysis" and e["kind"] == "play"]
    return feed_times, elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--plies", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "bench_analysis.txt"))
    args = ap.parse_args()
    lines = []

    def say(text=""):
        print(text, flush=True)
        lines.append(text)

    with GnubgEngine(timeout_s=120) as engine:
        analyst = Analyst(engine, plies=args.plies)
        agree, n, plays, times, cube_agree, cube_n = agreement(analyst, args.n, args.seed, args.plies)
        say(f"agreement with gnubg's printed hint, {args.plies}-ply: {agree}/{n} positions "
            f"({plays} ranked plays); cube decisions {cube_agree}/{cube_n}")
        say(f"Analyst.plays at {args.plies}-ply: median {1000 * statistics.median(times):.0f} ms, "
            f"p90 {1000 * percentile(times, 0.9):.0f} ms, max {1000 * max(times):.0f} ms over {n} positions")
        with_feed, without_feed, elapsed = [], [], []
        for _ in range(args.games):
            f, _ = session_run(False, args.plies, engine)
            without_feed += f
            f, e = session_run(True, args.plies, engine)
            with_feed += f
            elapsed += e
        say(f"verdict -> analysis event in the referee session ({args.plies}-ply, {len(elapsed)} plays): "
            f"median {statistics.median(elapsed):.0f} ms, p90 {percentile(elapsed, 0.9):.0f} ms, "
            f"max {max(elapsed):.0f} ms")
        say(f"referee verdict latency (feed_observation that publishes a verdict, {len(with_feed)} verdicts): "
            f"with the service median {1000 * statistics.median(with_feed):.2f} ms, "
            f"without {1000 * statistics.median(without_feed):.2f} ms")
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

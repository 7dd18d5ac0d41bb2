"""Rules benchmark: legal-play generation throughput and ``check`` verdict latency.

    python benchmarks/bench_rules.py [--n 10000] [--seed 20261121] [--out benchmarks/results/bench_rules.txt]

Positions and rolls: ``companion.sampling.sample`` (seeded; kinds playout, scatter,
bearoff, bar_closed, prime in turn; fair dice, so doubles 1/6). Throughput is
``len(legal_plays(position, dice))`` (every distinct resulting position found) on
one core, best and median of 3 passes; the baseline is the plain recursive
generator ``companion.legal.plain_legal_results`` (every order of every die, each
leaf with its checker moves) run in the same process on the same positions. Times are CPU time of this process (``time.process_time``), so
other load on a shared machine does not count. Verdict latency: ``judge(before, dice, after)`` for observed
boards that are legal plays, legal prefixes and illegal changes (a third each).

JSON-lines interface: the same positions as ``companion legal-plays --batch --json``
requests (one JSON line each), answered by ``companion.commands.rules.batch`` with
``legal_plays_line`` (the command's own answer), and, through the same ``batch``
loop and request parsing, by the plain generator ``plain_legal_plays`` with each
play's notation and resulting Position ID written the plain way
(``Play.notation``, ``Position.position_id``). Both answers must list the same
resulting Position IDs for every request; the two run in turn, three passes each,
and the ratio of their median CPU times is printed (target >= 4x).
"""

from __future__ import annotations

import argparse
import io
import json
import pathlib
import random
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from companion.commands.rules import batch, legal_plays_line  # noqa: E402
from companion.dice import Dice  # noqa: E402
from companion.legal import legal_plays, plain_legal_plays, plain_legal_results  # noqa: E402
from companion.play import Play, apply_steps  # noqa: E402
from companion.position import Position  # noqa: E402
from companion.sampling import sample  # noqa: E402
from companion.verdict import judge  # noqa: E402


def throughput(pairs, fn) -> float:
    """Positions per CPU second of this process (robust on a shared machine)."""
    t0 = time.process_time()
    for pos, dice in pairs:
        fn(pos, dice)
    return len(pairs) / (time.process_time() - t0)


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def verdict_cases(pairs, rng, n):
    cases = []
    for pos, dice in pairs:
        if len(cases) >= n:
            break
        plays = legal_plays(pos, dice)
        if not plays:
            continue
        kind = len(cases) % 3
        play = rng.choice(list(plays))
        steps = [(m.from_point, m.to_point) for m in play.moves]
        if kind == 0:
            after = play.result
        elif kind == 1:
            if len(steps) < 2:
                continue
            after = apply_steps(pos, steps[:rng.randint(1, len(steps) - 1)])
            if after in plays:  # e.g. 4/off equals 4/2 2/off: a legal play already
                continue
        else:
            s, t = steps[0]
            bad = [(s, max(0, t - 1))] + steps[1:]  # one pip too far
            try:
                after = apply_steps(pos, bad, allow_held=True)
            except ValueError:
                continue
            if after in plays:
                continue
        cases.append((("legal", "prefix", "illegal")[kind], pos, dice, after))
    return cases


def plain_answer(request: dict) -> dict:
    """The ``legal-plays --json`` answer from the plain recursive generator, each
    play's notation and Position ID written for every play found."""
    pos = Position.from_position_id(request["position_id"])
    dice = Dice(*request["dice"])
    plays = [{"play": Play(moves).notation(), "position_id": result.position_id()}
             for result, moves in plain_legal_plays(pos, dice).items()]
    return {"position_id": request["position_id"], "dice": dice.as_list(),
            "plays": sorted(plays, key=lambda item: item["play"])}


def run_batch(answer, requests: str) -> tuple[float, str]:
    """CPU seconds of ``batch(answer)`` over the request lines, and its output."""
    out = io.StringIO()
    t0 = time.process_time()
    code = batch(answer, io.StringIO(requests), out)
    seconds = time.process_time() - t0
    assert code == 0, "a request failed"
    return seconds, out.getvalue()


def interface_lines(pairs, passes: int = 3) -> list[str]:
    """The JSON-lines figures: the command's answer against the plain generator
    through the same batch loop, on the same requests."""
    requests = "".join(json.dumps({"position_id": p.position_id(), "dice": d.as_list()}) + "\n"
                       for p, d in pairs)
    fast_runs, plain_runs = [], []
    for _ in range(passes):  # interleaved, so that both meet the same load of the machine
        notations: dict = {}  # one memo per batch, as the command keeps it
        fast_runs.append(run_batch(lambda r: legal_plays_line(r, notations), requests))
        plain_runs.append(run_batch(plain_answer, requests))
    for fast_line, plain_line in zip(fast_runs[0][1].splitlines(), plain_runs[0][1].splitlines()):
        fast_ids = {item["position_id"] for item in json.loads(fast_line)["plays"]}
        plain_ids = {item["position_id"] for item in json.loads(plain_line)["plays"]}
        assert fast_ids == plain_ids, fast_line
    fast_seconds = statistics.median(seconds for seconds, _ in fast_runs)
    plain_seconds = statistics.median(seconds for seconds, _ in plain_runs)
    ratios = sorted(p / f for (f, _), (p, _) in zip(fast_runs, plain_runs))
    n = len(pairs)
    plays = sum(len(json.loads(line)["plays"]) for line in plain_runs[0][1].splitlines())
    return [f"legal-plays --batch --json ({n} request lines, {plays} plays): "
            f"{n / fast_seconds:,.0f} requests/s; plain generator through the same batch loop: "
            f"{n / plain_seconds:,.0f} requests/s (medians of {passes} interleaved passes, CPU "
            f"time); ratio {plain_seconds / fast_seconds:.1f}x (target >= 4x; per pass "
            + ", ".join(f"{r:.1f}" for r in ratios) + ")"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10000, help="positions (default 10000)")
    parser.add_argument("--seed", type=int, default=20261121)
    parser.add_argument("--baseline-n", type=int, default=2000,
                        help="positions for the plain generator (default 2000)")
    parser.add_argument("--verdicts", type=int, default=3000)
    parser.add_argument("--out", type=pathlib.Path, default=None)
    args = parser.parse_args(argv)

    pairs = list(sample(args.seed, args.n))
    doubles = sum(d.is_double for _, d in pairs)
    lines = [f"rules benchmark: {len(pairs)} seeded positions (seed {args.seed}), "
             f"{doubles} doubles, Python {sys.version.split()[0]}, one core"]

    w0 = time.perf_counter()
    fast = [throughput(pairs, lambda p, d: len(legal_plays(p, d))) for _ in range(3)]
    wall = 3 * len(pairs) / (time.perf_counter() - w0)
    base_pairs = pairs[:args.baseline_n]
    fast_same = throughput(base_pairs, lambda p, d: len(legal_plays(p, d)))
    plain = throughput(base_pairs, plain_legal_results)
    lines.append(f"legal_plays: {max(fast):,.0f} positions/s best, {statistics.median(fast):,.0f} "
                 "median of 3 passes, CPU time (target >= 20,000); wall clock on this "
                 f"shared machine: {wall:,.0f}/s")
    lines.append(f"plain recursive generator: {plain:,.0f} positions/s on the first "
                 f"{len(base_pairs)}; legal_plays on the same: {fast_same:,.0f}/s; "
                 f"ratio {fast_same / plain:.1f}x")
    full = throughput(pairs, lambda p, d: [play.result for play in legal_plays(p, d)])
    lines.append(f"  with every Play object and resulting Position built too: {full:,.0f} "
                 "positions/s")
    for label, pick in (("non-doubles", lambda d: not d.is_double),
                        ("doubles", lambda d: d.is_double)):
        sub = [(p, d) for p, d in pairs if pick(d)]
        lines.append(f"  {label}: {throughput(sub, lambda p, d: len(legal_plays(p, d))):,.0f} "
                     f"positions/s over {len(sub)}")

    lines.extend(interface_lines(pairs))

    rng = random.Random(args.seed)
    cases = verdict_cases(pairs, rng, args.verdicts)
    times = {"legal": [], "prefix": [], "illegal": []}
    for kind, pos, dice, after in cases:
        t0 = time.thread_time()
        v = judge(pos, dice, after)
        times[kind].append((time.thread_time() - t0) * 1000)
        expected = {"legal": "legal", "prefix": "in_progress", "illegal": "illegal"}[kind]
        assert v.kind == expected, (kind, v.kind, pos, dice)
    every = [t for ts in times.values() for t in ts]
    lines.append(f"check verdict: median {statistics.median(every):.3f} ms, p99 "
                 f"{percentile(every, 0.99):.3f} ms over {len(every)} verdicts "
                 "(target median < 0.5 ms)")
    for kind, ts in times.items():
        lines.append(f"  {kind}: median {statistics.median(ts):.3f} ms, p99 "
                     f"{percentile(ts, 0.99):.3f} ms ({len(ts)})")
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

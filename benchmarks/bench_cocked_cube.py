"""Share of the cube and cocked-dice checks in the dice time, on one core:
``python benchmarks/bench_cocked_cube.py [--frames N]``.

On registered 1280x720 rendered board frames (a roll and a cube, :func:`vision.render_roll.render_roll_on_board`)
it times separately, per frame:

- the dice scan (detector + classifier, :meth:`vision.dice.DiceReader.scan`; the dice engineer's part),
- the cube (:func:`vision.cube.cube_from_scan`: shortlist, cube network, four-turn value reading),
- the cocked-dice judgement (:func:`vision.cocked.judge_roll`: place, rules and the tilt network),

and prints medians and p99 in milliseconds, the cube + cocked share of the total, and the ratio to
a baseline measured in the same process (a 5x5 Gaussian blur of the frame). Writes
``benchmarks/results/bench_cocked_cube.json``. Target: dice and cube within 10 ms median.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    """Run the benchmark; returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=20, help="rendered board frames")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "benchmarks" / "results" / "bench_cocked_cube.json")
    args = ap.parse_args()

    import cv2
    import numpy as np

    from benchmarks.bench_dice import summary
    from vision.cocked import TiltModel, judge_roll
    from vision.cube import CubeReader, cube_from_scan
    from vision.dice import DiceReader
    from vision.render_roll import render_roll_on_board

    cv2.setNumThreads(1)
    reader, cube_reader, tilt = DiceReader(), CubeReader(), TiltModel()
    rng = np.random.default_rng(0)
    rolls = [render_roll_on_board(rng, cube_prob=1.0) for _ in range(args.frames)]
    frame = rolls[0].image
    base = []
    for _ in range(200):
        t = time.perf_counter()
        cv2.GaussianBlur(frame, (5, 5), 0)
        base.append((time.perf_counter() - t) * 1000)
    times: dict[str, list[float]] = {"dice_scan": [], "cube": [], "cocked": [], "total": []}
    for roll in rolls:
        for k in range(args.repeat + 1):
            t0 = time.perf_counter()
            cands, probs = reader.scan(roll.image, roll.field)
            dice = reader.dice_from_scan(cands, probs)
            t1 = time.perf_counter()
            cube_from_scan(roll.image, cands, probs, roll.field, cube_reader, reader)
            t2 = time.perf_counter()
            judge_roll(dice, roll.field, roll.image, roller=roll.roller, tilt_model=tilt)
            t3 = time.perf_counter()
            if k == 0:
                continue  # warm-up
            times["dice_scan"].append((t1 - t0) * 1000)
            times["cube"].append((t2 - t1) * 1000)
            times["cocked"].append((t3 - t2) * 1000)
            times["total"].append((t3 - t0) * 1000)
    bmed = statistics.median(base)
    res = {k: summary(v) for k, v in times.items()}
    res["baseline_gaussian_blur_1280x720"] = summary(base)
    share = (statistics.median(times["cube"]) + statistics.median(times["cocked"])) / statistics.median(times["total"])
    res["cube_and_cocked_share_of_total"] = share
    res["threads"] = 1
    print(f"baseline (5x5 blur of a 1280x720 frame): median {bmed:.3f} ms")
    for k in ("dice_scan", "cube", "cocked", "total"):
        s = res[k]
        print(f"{k:>10}: median {s['median_ms']:.2f} ms, p99 {s['p99_ms']:.2f} ms, {s['median_ms'] / bmed:.1f}x baseline")
    print(f"cube + cocked: {100 * share:.1f}% of the total (target for dice and cube together: 10 ms median)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"command": " ".join(["python"] + sys.argv), **res}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

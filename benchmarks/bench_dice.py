"""Speed of the dice and cube readers on one core: ``python benchmarks/bench_dice.py [--frames N]``.

- registered 1280x720 board frames (rendered, with a roll and a cube): dice + cube from one
  detector pass (:func:`vision.cube.read_dice_and_cube` with the field: the registered-board
  detector ``dice_detector_field.onnx`` where a die is 10 pixels), the same plus the
  cocked-dice judgement (:func:`vision.cocked.judge_roll`, tilt network included), and the thread
  CPU time of dice + cube;
- free photos (the real dice photos, 640x640 and 640x480): the image pyramid, no field;
- phone-sized free photos: ``--large`` of those photos enlarged (cubic) to 4032 pixels on the
  longer side (4032x3024 and 4032x4032, a phone's 12 megapixels), the reading alone (decoding
  such a JPEG takes longer than reading its dice).

Prints medians and p99 in milliseconds, and the ratio to a baseline measured in the same process
(a 5x5 Gaussian blur of the 1280x720 frame) so runs on different machines can be compared.
Writes ``benchmarks/results/bench_dice.json``. Targets: 10 ms median registered,
50 ms median free photo.
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


def timed(fn, repeat: int) -> list[float]:
    """Run ``fn`` ``repeat`` times; milliseconds per call."""
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def timed_cpu(fn, wall: list[float], cpu: list[float]) -> None:
    """Run ``fn`` once; append its wall-clock and this thread's CPU milliseconds (the CPU time
    is less disturbed when other processes share the cores)."""
    t, c = time.perf_counter(), time.thread_time()
    fn()
    cpu.append((time.thread_time() - c) * 1000)
    wall.append((time.perf_counter() - t) * 1000)


def summary(ms: list[float]) -> dict[str, float]:
    """Median, p99 and mean of a list of milliseconds."""
    s = sorted(ms)
    return {"median_ms": statistics.median(s), "p99_ms": s[min(len(s) - 1, int(0.99 * len(s)))],
            "mean_ms": statistics.fmean(s), "runs": len(s)}


def main() -> int:
    """Run the benchmark; returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=20, help="rendered board frames")
    ap.add_argument("--photos", type=int, default=40, help="real photos")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--large", type=int, default=8, help="real photos enlarged to 4032 pixels, per dataset")
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "benchmarks" / "results" / "bench_dice.json")
    args = ap.parse_args()
    if args.frames < 1 or args.repeat < 1 or args.photos < 0 or args.large < 0:
        print("error: --frames and --repeat must be at least 1, --photos and --large at least 0", file=sys.stderr)
        return 2

    import cv2
    import numpy as np

    from vision.cocked import TiltModel, judge_roll
    from vision.cube import CubeReader, read_dice_and_cube
    from vision.dice import DiceReader
    from vision.dice_data import default_dice_root, iter_datasets
    from vision.render_roll import render_roll_on_board

    cv2.setNumThreads(1)
    reader, cube_reader, tilt = DiceReader(), CubeReader(), TiltModel()
    rng = np.random.default_rng(0)
    rolls = [render_roll_on_board(rng) for _ in range(args.frames)]
    frame = rolls[0].image
    base = timed(lambda: cv2.GaussianBlur(frame, (5, 5), 0), 200)
    reg, reg_cocked = [], []
    cpu_reg: list[float] = []
    for roll in rolls:
        read_dice_and_cube(roll.image, roll.field, reader=reader, cube_reader=cube_reader)  # warm-up
        for _ in range(args.repeat):
            timed_cpu(lambda: read_dice_and_cube(roll.image, roll.field, reader=reader, cube_reader=cube_reader), reg, cpu_reg)

        def full() -> None:
            dice, _ = read_dice_and_cube(roll.image, roll.field, reader=reader, cube_reader=cube_reader)
            judge_roll(dice, roll.field, roll.image, roller=roll.roller, tilt_model=tilt)
        reg_cocked += timed(full, args.repeat)
    free: dict[str, list[float]] = {}
    large: dict[str, list[float]] = {}
    root = default_dice_root()
    if root.is_dir() and args.photos:
        for name, items in iter_datasets(root):
            ims = [cv2.imread(str(it.path)) for it in items[:: max(len(items) // args.photos, 1)][: args.photos]]
            free[name] = []
            for im in ims:
                read_dice_and_cube(im, None, reader=reader, cube_reader=cube_reader)
                free[name] += timed(lambda: read_dice_and_cube(im, None, reader=reader, cube_reader=cube_reader), 2)
            large[name] = []
            for im in ims[:: max(len(ims) // max(args.large, 1), 1)][: args.large]:
                k = 4032 / max(im.shape[:2])
                big = cv2.resize(im, (round(im.shape[1] * k), round(im.shape[0] * k)), interpolation=cv2.INTER_CUBIC)
                read_dice_and_cube(big, None, reader=reader, cube_reader=cube_reader)
                large[name] += timed(lambda: read_dice_and_cube(big, None, reader=reader, cube_reader=cube_reader), 2)
    bmed = statistics.median(base)
    res = {
        "baseline_gaussian_blur_1280x720": summary(base),
        "registered_1280x720_dice_and_cube": summary(reg),
        "registered_1280x720_dice_cube_and_cocked": summary(reg_cocked),
        "registered_1280x720_dice_and_cube_cpu": summary(cpu_reg),
        "free_photo": {k: summary(v) for k, v in free.items()},
        "free_photo_4032": {k: summary(v) for k, v in large.items() if v},
        "threads": 1,
    }
    print(f"baseline (5x5 blur of a 1280x720 frame): median {bmed:.3f} ms")
    for key in ("registered_1280x720_dice_and_cube", "registered_1280x720_dice_cube_and_cocked"):
        s = res[key]
        print(f"{key}: median {s['median_ms']:.2f} ms, p99 {s['p99_ms']:.2f} ms, "
              f"{s['median_ms'] / bmed:.0f}x baseline (target 10 ms)")
    print(f"registered dice and cube, thread CPU time: median "
          f"{res['registered_1280x720_dice_and_cube_cpu']['median_ms']:.2f} ms")
    for k, s in res["free_photo"].items():
        print(f"free photo {k}: median {s['median_ms']:.2f} ms, p99 {s['p99_ms']:.2f} ms, "
              f"{s['median_ms'] / bmed:.0f}x baseline (target 50 ms)")
    for k, s in res["free_photo_4032"].items():
        print(f"free photo {k} enlarged to 4032 pixels: median {s['median_ms']:.2f} ms, p99 {s['p99_ms']:.2f} ms, "
              f"{s['median_ms'] / bmed:.0f}x baseline")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

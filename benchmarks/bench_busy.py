"""Benchmark: reading a frame while every core of the machine is busy.

At a real table the reading shares the machine with the camera, the dashboard and whatever else
runs. The point network's head is a matrix product in numpy; numpy's BLAS would run it on a
thread per core, and when the cores are busy, waiting for those threads costs far more than the
product itself. :meth:`vision.learned_checkers.PointModel.probabilities` runs it on one BLAS
thread (threadpoolctl). This script starts ``--busy`` processes that spin (default: one per
core), then reads the 1280x720 labelled photos of ``../shared/data/boards`` (checkers, dice and
cube, a new frame for the dice plug-in before each read, as ``companion watch`` reads them), in
turns with the shipped model and with the same model whose head runs on as many BLAS threads as
numpy starts (the same-run baseline). Prints wall-clock and CPU medians and their ratio; then
the same for calibration's head adaptation (:func:`vision.board_learning.adapt_head`), which
:func:`vision.board_learning.learn_board` runs on one BLAS thread too.

    python benchmarks/bench_busy.py [--repeat 10] [--busy N]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402 - numpy's BLAS starts before bench_read asks for one thread

from benchmarks.bench_read import frames  # noqa: E402


def _spin(stop) -> None:
    """Keep one core busy until ``stop`` is set."""
    while not stop.is_set():
        sum(range(10_000))


def read_times(model_kind: str, repeat: int) -> dict:
    """Read each photo ``repeat`` times (after two warm-up reads) with the shipped model
    (``"shipped"``) or the baseline (``"baseline"``); wall-clock and CPU milliseconds."""
    from vision.dice_plugin import DicePlugin
    from vision.learned_checkers import PointModel
    from vision.reader import BoardReader

    model = PointModel()
    if model_kind == "baseline":
        model.blas = None  # the head's product on the threads numpy's BLAS starts
    plugin = DicePlugin()
    wall, cpu = [], []
    for _name, img, corners in frames():
        r = BoardReader.from_corners(corners, (img.shape[1], img.shape[0]), point_model=model)
        r.dice_reader, r.cube_reader = plugin.dice, plugin.cube
        for rep in range(repeat + 2):
            plugin.new_frame()
            c0, t0 = time.process_time(), time.perf_counter()
            r.read(img)
            if rep >= 2:
                wall.append((time.perf_counter() - t0) * 1e3)
                cpu.append((time.process_time() - c0) * 1e3)
    return {"wall": wall, "cpu": cpu}


def adapt_times(model_kind: str) -> dict:
    """Calibration's head adaptation (:func:`vision.board_learning.adapt_head`, 4 epochs over
    7,400 random features, the size of a board's compositions) as :func:`learn_board` runs it
    (``"shipped"``: BLAS on one thread) or on numpy's threads (``"baseline"``); seconds."""
    from threadpoolctl import ThreadpoolController

    from vision.board_learning import adapt_head
    from vision.learned_checkers import PointModel

    head = PointModel().shipped_head
    rng = np.random.default_rng(0)
    features = rng.random((7400, head.w1.shape[1]), dtype=np.float32)
    labels, weights = rng.integers(0, 17, 7400), np.ones(7400)
    limit = ThreadpoolController().limit(limits=1, user_api="blas") if model_kind == "shipped" else contextlib.nullcontext()
    c0, t0 = time.process_time(), time.perf_counter()
    with limit:
        adapt_head(head, features, labels, weights, epochs=4)
    return {"wall": [time.perf_counter() - t0], "cpu": [time.process_time() - c0]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=10, help="reads per photo and model and round (default 10)")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of the two models in turns (default 2)")
    ap.add_argument("--busy", type=int, default=os.cpu_count() or 1,
                    help="spinning processes (default: one per core)")
    ap.add_argument("--child", choices=["shipped", "baseline"], help=argparse.SUPPRESS)
    ap.add_argument("--adapt", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(adapt_times(args.child) if args.adapt else read_times(args.child, args.repeat)))
        return 0
    if args.repeat < 1 or args.rounds < 1 or args.busy < 0:
        print("error: --repeat and --rounds must be at least 1 and --busy at least 0", file=sys.stderr)
        return 2
    from threadpoolctl import ThreadpoolController

    blas = [f"{i['internal_api']} {i['num_threads']} threads ({pathlib.Path(i['filepath']).name})"
            for i in ThreadpoolController().info() if i["user_api"] == "blas"]
    names = [n for n, _, _ in frames()]
    stop = multiprocessing.Event()
    spinners = [multiprocessing.Process(target=_spin, args=(stop,), daemon=True) for _ in range(args.busy)]
    for p in spinners:
        p.start()
    # the children's BLAS starts as many threads as it would in ``companion watch`` (bench_read,
    # imported here, asks for one thread through the environment)
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    labels = {"shipped": "one BLAS thread (shipped)", "baseline": "BLAS threads as numpy starts them (baseline)"}
    times = {k: {"wall": [], "cpu": []} for k in labels}
    adapt = {k: {"wall": [], "cpu": []} for k in labels}
    try:
        for _ in range(args.rounds):
            # each model in a process of its own (BLAS threads left spinning by one model's reads
            # would slow the other's), in turns, under the same load
            for kind in labels:
                for extra, into in (([], times), (["--adapt"], adapt)):
                    out = subprocess.run([sys.executable, __file__, "--child", kind, "--repeat", str(args.repeat), *extra],
                                         capture_output=True, text=True, check=True, env=env)
                    got = json.loads(out.stdout.strip().splitlines()[-1])
                    for key in ("wall", "cpu"):
                        into[kind][key] += got[key]
    finally:
        stop.set()
        for p in spinners:
            p.join(5)
    print(f"frames: {', '.join(names)}; {args.repeat} reads each per model and round, {args.rounds} rounds; "
          f"{args.busy} spinning processes on {os.cpu_count()} cores; BLAS libraries: {'; '.join(blas) or 'none found'}")
    med = {}
    for kind, label in labels.items():
        wall, cpu = times[kind]["wall"], times[kind]["cpu"]
        med[kind] = float(np.median(wall))
        print(f"{label}: wall clock median {np.median(wall):.1f} ms, p90 {np.percentile(wall, 90):.1f} ms; "
              f"CPU time median {np.median(cpu):.1f} ms")
    print(f"shipped / baseline, wall-clock median: {med['shipped'] / med['baseline']:.2f}")
    for kind, label in labels.items():
        print(f"calibration's head adaptation (4 epochs, 7,400 samples), {label}: wall clock median "
              f"{np.median(adapt[kind]['wall']):.2f} s, CPU time {np.median(adapt[kind]['cpu']):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark of ``companion watch``: frames per second on one core, and the
latency from the frame in which the dice are picked up to the verdict.

Usage (from the project root)::

    python benchmarks/bench_watch.py                 # rendered 1280x720 game, full pipeline
    python benchmarks/bench_watch.py --turns 4       # shorter
    python benchmarks/bench_watch.py --json benchmarks/results/bench_watch.json

What it does, all in one process pinned to one core (OpenCV and BLAS threads 1):

1. Renders a seeded scripted game (``companion.scripted_game.random_game``)
   with the project's renderers at 1280x720, 30 frames per second of game
   time, and holds the frames in memory (a camera delivers frames in memory);
   the camera is calibrated (the field's corners are given, as ``--corners``).
2. **watch**: every frame through ``Session.process_frame`` (motion ->
   board reader on still frames only -> stability filter -> referee): per-frame
   time, median and p99, sustained frames per second (frames / total time).
3. **baseline** (same process, same frames): the board reader on every frame,
   as a pipeline without the motion gate would run; the ratio of the two.
4. **latency**, live: the frames are delivered at 30 fps by an in-memory
   camera through the grabber thread (the newest frame wins, as with a real
   camera); for every end of turn (the first frame without the dice after a
   play) the wall time from that frame's delivery to its verdict; median, p90
   pooled over ``--runs`` runs (and each run's median), the part of it spent
   processing the frame that gave the verdict (the rest is waiting for the
   frame before it, e.g. a read of a still hand frame, which grows with CPU
   contention), the frames processed and dropped, and how many ends of turn
   were judged on the pick-up frame itself (``StabilitySettings.fast_pickup``).
5. **referee only**: stability filter + referee per observation (no pixels).
6. Checks the decisions (verdicts, cube actions, game ends) and all judged
   events against the script's ground truth, and reports false accusations.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    k = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return values[k]


class _MemoryCamera:
    """A live source that delivers in-memory frames at ``fps`` (wall clock), then
    stops; ``delivered[i]`` is the time frame ``i`` became available."""

    live = True
    description = "in-memory camera"

    def __init__(self, frames: list, fps: float) -> None:
        self.frames = frames
        self.fps = fps
        self.delivered: dict[int, float] = {}
        self._cap = None
        self._next = 0
        self.finished = False

    def open(self) -> None:
        from vision.sources import SourceError

        if self._cap is not None or self.finished:
            raise SourceError("the recording is over")
        self._cap = True
        self.t0 = time.perf_counter()

    def read(self):
        from vision.sources import Frame

        if self._next >= len(self.frames):
            self.finished = True
            return None
        i = self._next
        self._next += 1
        wait = self.t0 + i / self.fps - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        now = time.perf_counter()
        self.delivered[i] = now
        return Frame(self.frames[i], i, (now - self.t0) * 1000.0)

    def close(self) -> None:
        self._cap = None


def _live_run(frames: list, fps: float, reader, grabber_class) -> dict:
    """The pipeline on a live in-memory camera: verdict wall times per frame."""
    from companion.bus import EventBus
    from companion.session import Session

    bus = EventBus()
    verdicts: list[tuple[int, float]] = []
    current = [0]

    def on_event(e) -> None:
        if e.type == "verdict" and e.verdict in ("legal", "illegal"):
            verdicts.append((current[0], time.perf_counter()))

    bus.subscribe(on_event)
    session = Session(bus, reader=reader, match_settings={"match_length": 5})
    camera = _MemoryCamera(frames, fps)
    grabber = grabber_class(camera, backoff_s=60.0).start()
    processed = 0
    started: dict[int, float] = {}
    finished: dict[int, float] = {}
    while True:
        frame = grabber.get(timeout=0.5)
        if frame is None:
            if camera.finished:
                break
            continue
        current[0] = frame.index
        started[frame.index] = time.perf_counter()
        session.process_frame(frame)
        finished[frame.index] = time.perf_counter()
        processed += 1
    grabber.stop()
    return {"verdicts": verdicts, "delivered": camera.delivered, "processed": processed,
            "dropped": len(frames) - processed, "fast_pickups": session.fast_pickups,
            "started": started, "finished": finished}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--turns", type=int, default=8, help="turns before the game is ended by a dropped double")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--fps", type=float, default=30.0)
    parser.add_argument("--still-frames", type=int, default=24, help="frames a still board lasts (0.8 s at 30 fps)")
    parser.add_argument("--hand-frames", type=int, default=6, help="frames a hand moves over the board")
    parser.add_argument("--runs", type=int, default=3, help="live runs for the pick-up latency (pooled)")
    parser.add_argument("--verbose", action="store_true", help="print every end of turn's latency")
    parser.add_argument("--json", metavar="FILE", help="write the figures here")
    args = parser.parse_args(argv)

    import cv2

    cv2.setNumThreads(1)
    if hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
        except OSError:
            pass

    from companion.bus import EventBus
    from companion.commands.watch import _make_reader
    from companion.demo import demo_corners_arg, render_scene
    from companion.scripted_game import (accusation_counts, comparable, expected_comparable, observations, random_game,
                                         verdict_stream)
    from companion.session import Session
    from vision.sources import Frame, FrameGrabber

    w, h = (int(v) for v in args.size.lower().split("x"))
    script = random_game(args.seed, match_length=5, illegal_rate=0.15, cocked_rate=0.1, max_turns=args.turns,
                         still_frames=args.still_frames, hand_frames=args.hand_frames)
    print(f"script: {len(script.scenes)} scenes, {script.frames} frames, {len(script.expected)} expected events", flush=True)

    t0 = time.perf_counter()
    cache: dict = {}
    frames = []
    scene_of_frame = []
    for si, scene in enumerate(script.scenes):
        for k in range(scene.frames):
            # a still board is one picture; a moving hand is a new picture every
            # other frame (rendering every frame would only make this slower)
            key = (scene, k // 2) if scene.hand else scene
            if key not in cache:
                cache[key] = render_scene(scene, size=(w, h), seed=len(cache))
            frames.append(cache[key])
            scene_of_frame.append(si)
    print(f"rendered {len(cache)} distinct pictures in {time.perf_counter() - t0:.1f} s", flush=True)

    # a fixed, calibrated camera (the field's corners known), as at a table
    reader = _make_reader(argparse.Namespace(calibration=None, corners=demo_corners_arg((w, h))))

    # --- watch: the full pipeline -----------------------------------------
    bus = EventBus()
    events: list[tuple[int, dict]] = []
    current = [0]
    bus.subscribe(lambda e: events.append((current[0], e.to_dict())))
    session = Session(bus, reader=reader, match_settings={"match_length": 5})
    per_frame = []
    t_start = time.perf_counter()
    for i, image in enumerate(frames):
        current[0] = i
        t = time.perf_counter()
        session.process_frame(Frame(image, i, i * 1000.0 / args.fps))
        per_frame.append((time.perf_counter() - t) * 1000.0)
    total = time.perf_counter() - t_start
    watch_fps = len(frames) / total

    # --- baseline: the reader on every frame --------------------------------
    base = []
    for image in frames[: min(len(frames), 300)]:
        t = time.perf_counter()
        reader(image)
        base.append((time.perf_counter() - t) * 1000.0)

    # --- latency: dice picked up -> verdict, live at the camera's rate ---------
    # an in-memory camera delivers the frames at --fps through the grabber thread
    # (which keeps only the newest frame, as for a real camera); the verdict's wall
    # time is compared with the time the first frame without the dice was delivered
    starts = {}
    for i, si in enumerate(scene_of_frame):
        starts.setdefault(si, i)
    pickups = {}
    for si in range(2, len(script.scenes)):
        scene, hand, before = script.scenes[si], script.scenes[si - 1], script.scenes[si - 2]
        if not scene.dice and not scene.hand and hand.hand and before.dice and not before.hand:
            pickups[starts[si]] = si  # "the dice were down, a hand took them, the board is still"
    latencies = []
    run_medians = []
    verdict_frame_ms: list[float] = []
    processed = dropped = fast = 0
    for run in range(args.runs):
        live = _live_run(frames, args.fps, reader, FrameGrabber)
        processed += live["processed"]
        dropped += live["dropped"]
        fast += live["fast_pickups"]
        run_latencies = []
        for i, si in sorted(pickups.items()):
            end = starts[si] + script.scenes[si].frames
            delivered = live["delivered"].get(i)
            verdicts = [t for (f, t) in live["verdicts"] if i <= f < end]
            if delivered is None or not verdicts:
                continue
            run_latencies.append((verdicts[0] - delivered) * 1000.0)
            f = next(f for (f, t) in live["verdicts"] if i <= f < end)
            if f in live["started"]:  # the verdict frame's own processing, the rest is queueing
                verdict_frame_ms.append((verdicts[0] - live["started"][f]) * 1000.0)
            if args.verbose:
                st, fi = live["started"].get(i, float("nan")), live["finished"].get(i, float("nan"))
                print(f"run {run} pickup frame {i}: verdict on frame {f}, {run_latencies[-1]:.1f} ms; waited "
                      f"{(st - delivered) * 1000:.1f} ms, processed in {(fi - st) * 1000:.1f} ms", flush=True)
        latencies += run_latencies
        if run_latencies:
            run_medians.append(round(statistics.median(run_latencies), 1))
        print(f"live run {run}: pick-up to verdict median {run_medians[-1] if run_latencies else None} ms "
              f"over {len(run_latencies)} ends of turn", flush=True)

    # --- referee only --------------------------------------------------------
    obs = observations(script, misread_rate=0.0)
    bus2 = EventBus()
    s2 = Session(bus2, reader=None, match_settings={"match_length": 5})
    t = time.perf_counter()
    for o, moving in obs:
        s2.feed_observation(o, moving)
    ref_us = (time.perf_counter() - t) / len(obs) * 1e6

    got = comparable([e for _, e in events])
    expected = expected_comparable(script)
    caught, false_accusations, missed = accusation_counts(got, expected)
    accused, truly_illegal = caught + false_accusations, caught + missed
    figures = {
        "frames": len(frames),
        "size": [w, h],
        "watch_ms_per_frame": {"median": round(statistics.median(per_frame), 2), "p99": round(_pct(per_frame, 0.99), 2)},
        "watch_fps_sustained": round(watch_fps, 1),
        "frames_read_by_reader": session.frames_read,
        "baseline_reader_every_frame_ms": {"median": round(statistics.median(base), 2), "p99": round(_pct(base, 0.99), 2)},
        "baseline_fps": round(1000.0 / statistics.mean(base), 1),
        "speedup_vs_baseline": round(watch_fps / (1000.0 / statistics.mean(base)), 2),
        "pickup_to_verdict_ms_live": {
            "n": len(latencies),
            "median": round(statistics.median(latencies), 1) if latencies else None,
            "p90": round(_pct(latencies, 0.9), 1) if latencies else None,
            "runs": args.runs,
            "median_per_run": run_medians,
            "verdict_frame_processing_ms": {
                "median": round(statistics.median(verdict_frame_ms), 1) if verdict_frame_ms else None,
                "p90": round(_pct(verdict_frame_ms, 0.9), 1) if verdict_frame_ms else None},
            "frames_processed": processed,
            "frames_dropped": dropped,
            "judged_on_the_pickup_frame": fast,
        },
        "referee_only_us_per_observation": round(ref_us, 1),
        "decisions_equal_truth": verdict_stream(got) == verdict_stream(expected),
        "all_events_equal_truth": got == expected,
        "illegal_plays": truly_illegal,
        "accused": accused,
        "false_accusations": false_accusations,
    }
    if got != expected:
        k = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
        figures["first_difference"] = {"index": k, "got": got[k:k + 3], "expected": expected[k:k + 3]}
    print(json.dumps(figures, indent=2))
    if args.json:
        pathlib.Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.json).write_text(json.dumps({"command": " ".join(sys.argv), **figures}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

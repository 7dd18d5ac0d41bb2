"""LED board latency: from a verdict on the bus to the ACK of its LED frame over a pty.

    python benchmarks/bench_leds.py [--frames 200] [--out benchmarks/results/leds.json]

The fake board runs in its own process (``python -m firmware_bridge.fake_board``),
as the real board is another device; the host side is the production path:
``firmware_bridge.attach`` (LedReporter -> SerialLink -> pyserial -> pty). Figures:

* ``verdict_to_ack``: publish an illegal ``VerdictEvent`` -> ``LedsEvent`` published
  after the board's ACK (each verdict lights other points, spaced by more than the
  100 ms rate limit so the limiter itself adds no wait);
* ``send_baseline``: ``SerialLink.send(SetLeds)`` round trip alone, same process, same
  pty: the floor the reporter adds its scheduling to (ratio printed);
* ``codec``: encode + decode of one 28-LED frame, microseconds.
Medians and 99th percentiles in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.bus import EventBus  # noqa: E402
from companion.events import LedsEvent, VerdictEvent  # noqa: E402
import firmware_bridge  # noqa: E402
from firmware_bridge import codec  # noqa: E402
from firmware_bridge.messages import LedState, Pattern, SetLeds  # noqa: E402


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summary(values: list[float]) -> dict[str, float]:
    """``{"n", "median", "p99", "max"}`` of ``values`` (milliseconds)."""
    return {"n": len(values), "median": round(statistics.median(values), 3),
            "p99": round(pct(values, 0.99), 3), "max": round(max(values), 3)}


def main() -> int:
    """Run the benchmark, print the figures and write them to ``--out`` (JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200, help="verdicts to time (default 200)")
    parser.add_argument("--spacing", type=float, default=0.12, help="seconds between verdicts")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "leds.json"))
    args = parser.parse_args()

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    board = subprocess.Popen([sys.executable, "-m", "firmware_bridge.fake_board", "--reset-delay", "0.3", "--quiet"],
                             cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        path = board.stdout.readline().strip()
        bus = EventBus()
        acked = threading.Event()
        arrivals: list[tuple[float, LedsEvent]] = []

        def on_event(event):
            if isinstance(event, LedsEvent):
                arrivals.append((time.perf_counter(), event))
                acked.set()

        bus.subscribe(on_event)
        handle = firmware_bridge.attach(bus, path, link_options={"scan": None})
        if not handle.link.wait_connected(10.0):
            print("the fake board did not answer", file=sys.stderr)
            return 1
        time.sleep(0.3)

        latencies, board_rtt = [], []
        for i in range(args.frames):
            point = i % 24 + 1
            acked.clear()
            start = time.perf_counter()
            bus.publish(VerdictEvent(verdict="illegal", points_differing=(point,), points_played=()))
            if not acked.wait(2.0):
                print(f"verdict {i}: no ACK within 2 s", file=sys.stderr)
                continue
            stamp, event = arrivals[-1]
            assert event.leds[point - 1]["pattern"] == "blink", "the frame shows another point"
            latencies.append((stamp - start) * 1000.0)
            board_rtt.append(event.acked_ms)
            time.sleep(args.spacing)

        frame = SetLeds(tuple(LedState((255, 0, 0), Pattern.BLINK) for _ in range(28)))
        other = SetLeds(tuple(LedState((0, 255, 0), Pattern.STEADY) for _ in range(28)))
        baseline = []
        for i in range(args.frames):
            baseline.append(handle.link.send(frame if i % 2 else other).acked_ms)
        stats = dict(handle.link.stats)
        handle.close()
    finally:
        board.terminate()
        board.wait(5)

    payload = frame.payload()
    reps = 5000
    start = time.perf_counter()
    for i in range(reps):
        codec.FrameDecoder().feed(codec.encode_frame(2, i % 256, payload))
    codec_us = (time.perf_counter() - start) / reps * 1e6

    result = {
        "command": "python benchmarks/bench_leds.py --frames %d" % args.frames,
        "machine": f"{platform.machine()} {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores",
        "verdict_to_ack_ms": summary(latencies),
        "frame_send_to_ack_ms": summary(board_rtt),
        "send_baseline_ms": summary(baseline),
        "ratio_verdict_to_ack_vs_baseline_median": round(statistics.median(latencies) / statistics.median(baseline), 2),
        "codec_encode_decode_us": round(codec_us, 2),
        # 10 bits per byte at 115200 baud: the SET_LEDS frame out and its ACK back.
        "wire_time_at_115200_baud_ms": round((len(codec.encode_frame(2, 0, payload)) + len(codec.encode_frame(5, 0, b"\x00\x00"))) * 10 / 115200 * 1000, 3),
        "link_stats": stats,
    }
    print(f"verdict -> ACK of its LED frame ({len(latencies)} verdicts over a pty, board in another process):")
    print(f"  median {result['verdict_to_ack_ms']['median']:.3f} ms, p99 {result['verdict_to_ack_ms']['p99']:.3f} ms, "
          f"max {result['verdict_to_ack_ms']['max']:.3f} ms")
    print(f"  of which frame sent -> ACK: median {result['frame_send_to_ack_ms']['median']:.3f} ms, "
          f"p99 {result['frame_send_to_ack_ms']['p99']:.3f} ms")
    print(f"baseline SerialLink.send round trip: median {result['send_baseline_ms']['median']:.3f} ms, "
          f"p99 {result['send_baseline_ms']['p99']:.3f} ms (back to back); "
          f"verdict->ACK / baseline median: {result['ratio_verdict_to_ack_vs_baseline_median']}x")
    print(f"codec encode+decode of a 28-LED frame: {codec_us:.2f} us")
    print(f"a real board at 115200 baud adds {result['wire_time_at_115200_baud_ms']} ms of wire time per frame + ACK")
    print(f"link: {stats}")
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

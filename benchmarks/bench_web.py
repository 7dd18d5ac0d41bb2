"""Dashboard speed: from an event on the bus to the browser's DOM showing it, and the cost of many browsers.

Run from the project root:  python benchmarks/bench_web.py [--events 200] [--browsers 20]

What it measures (headless Chromium through Playwright, waitress on loopback):

0. ``demo_game``: the real referee session judging the demo game's readings
   at the camera's pace (10 frames a second); every event the page lists:
   bus -> its log line (``log``) and bus -> the live view showing it (``view``);
   once with one browser, once with 20 open (all on this machine's cores).
1. ``log``: bus ``publish`` -> the event's line in the page's event log.
2. ``board``: bus ``publish`` -> the live board re-drawn with that event's
   state (rendered once on the server, pushed on the same SSE stream).
3. Baseline in the same process: a raw SSE client (a socket reading
   ``/events``, no browser) for the same events; the ratio browser/raw is printed.
4. ``publish()`` duration (what the referee pays) with no browser, with 20
   browsers open, and with 20 raw SSE clients of which one never reads (a stalled
   browser, which must be dropped, not waited for).
5. ``referee_pace``: the real referee judging the whole demo game's readings as
   fast as it can, with no dashboard, 20 dashboards (SSE clients receiving the
   rendered views) and 20 Chromium pages open: milliseconds per frame.

Clocks: the page stamps ``performance.timeOrigin + performance.now()``; the
offset to Python's ``time.time()`` is measured by round trips and removed.
Prints medians and 99th percentiles, and writes ``benchmarks/results/web_latency.json``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import socket
import statistics
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from companion.events import RollEvent  # noqa: E402
from web import create_app, serve  # noqa: E402
from web_stub import StubSession  # noqa: E402
from web_chromium import launch_chromium  # noqa: E402



def pct(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by nearest rank."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = max(0, min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1)))))
    return ordered[k]


def summary(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "median_ms": statistics.median(values), "p99_ms": pct(values, 99), "max_ms": max(values)}


class RawSseClient:
    """A socket reading ``/events`` and stamping each ``id:`` line's arrival (time.time() ms)."""

    def __init__(self, host: str, port: int, read: bool = True, path: str = "/events") -> None:
        self.sock = socket.create_connection((host, port))
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
        self.arrivals: dict[int, float] = {}
        self.read = read
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        if not self.read:
            return
        buffer = b""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return
                now = time.time() * 1000
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.startswith(b"id: "):
                        self.arrivals.setdefault(int(line[4:]), now)
        except OSError:
            return

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def clock_offset(page) -> float:
    """Browser clock minus Python clock (ms), from the tightest of 20 round trips."""
    best = None
    for _ in range(20):
        t0 = time.time() * 1000
        browser = page.evaluate("() => performance.timeOrigin + performance.now()")
        t1 = time.time() * 1000
        if best is None or t1 - t0 < best[0]:
            best = (t1 - t0, browser - (t0 + t1) / 2)
    return best[1]


def publish_series(stub: StubSession, n: int, gap_s: float) -> list[tuple[int, float]]:
    """Publish ``n`` rolls (each changes the dice in the state); returns (event id, publish ms)."""
    sent = []
    base = stub.bus
    for i in range(n):
        dice = (i % 6 + 1, (i // 6) % 6 + 1)
        with stub._lock:  # the state changes first, as a real session does before publishing
            stub._state.update(dice=list(dice), turn=i % 2, waiting_for="play")
        event = RollEvent(player=i % 2, dice=dice)
        base.publish(event)
        sent.append((i, event.time_ms))
        time.sleep(gap_s)
    return sent


def measure_page(page, announcer, sent: list[tuple[int, float]], first_id: int, offset: float) -> list[float]:
    """Bus -> log line (ms) for each event of ``sent`` (ids from ``first_id``)."""
    last_id = first_id + len(sent) - 1
    page.wait_for_selector(f'#log li[data-event-id="{last_id}"]', timeout=30_000)
    page.wait_for_function(f"() => parseInt(document.querySelector('#live').dataset.eventId, 10) >= {last_id}", timeout=30_000)
    received = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('#log li')].map(li => [li.dataset.eventId, parseFloat(li.dataset.receivedMs)]))"
    )
    return [received[str(first_id + i)] - offset - t for i, t in sent if str(first_id + i) in received]


def board_latencies(page, stub, n: int, gap_s: float, offset: float, announcer) -> list[float]:
    """Publish one event at a time and read when the board fragment for it was rendered."""
    out = []
    for i in range(n):
        dice = ((i + 3) % 6 + 1, (i + 1) % 6 + 1)
        with stub._lock:
            stub._state.update(dice=list(dice), turn=i % 2, waiting_for="play")
        event = RollEvent(player=i % 2, dice=dice)
        stub.bus.publish(event)
        event_id = announcer.last_id
        handle = page.wait_for_function(
            f"() => {{ const l = document.querySelector('#live'); return parseInt(l.dataset.eventId, 10) >= {event_id} ? parseFloat(l.dataset.renderedMs) : null; }}",
            timeout=30_000,
            polling=5,
        )
        out.append(handle.json_value() - offset - event.time_ms)
        time.sleep(gap_s)
    return out


def demo_game_latencies(browser, pace_s: float, others: int = 0) -> dict[str, object]:
    """The real referee (``companion.session.Session``) judging the demo game's
    readings at the camera's pace, one browser measured (``others`` more open,
    each in its own context): for every event the page shows in its log,
    bus -> log line and bus -> live view (ms)."""
    from web_demo_driver import DemoDriver

    driver = DemoDriver(mode="teaching")
    app = create_app({"ACCESS_TOKEN": "bench"}, session=driver.session)
    server = serve(app, "127.0.0.1", 0, threads=64)
    other_contexts = []
    try:
        for _ in range(others):
            other_context = browser.new_context(viewport={"width": 1280, "height": 900})
            other = other_context.new_page()
            other.goto(server.url + "/")
            other.wait_for_selector('#connection[data-state="live"]', timeout=60_000)
            other_contexts.append(other_context)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector('#connection[data-state="live"]')
        offset = clock_offset(page)
        first_id = app.extensions["companion"].announcer.last_id + 1
        try:
            driver.until(lambda e: False, pace_s=pace_s)
        except LookupError:
            pass
        last_id = app.extensions["companion"].announcer.last_id
        page.wait_for_selector(f'#log li[data-event-id="{last_id}"]', state="attached", timeout=30_000)
        time.sleep(1.0)
        rows = page.evaluate(
            """(first) => [...document.querySelectorAll('#log li')]
                 .filter(li => parseInt(li.dataset.eventId, 10) >= first)
                 .map(li => [parseInt(li.dataset.eventId, 10), li.dataset.type, parseFloat(li.dataset.timeMs),
                             parseFloat(li.dataset.receivedMs)])""",
            first_id,
        )
        views = page.evaluate("() => window.companionViews.slice()")
        context.close()
    finally:
        for other_context in other_contexts:
            other_context.close()
        server.stop()
    shown = {"roll", "cocked_dice", "verdict", "cube", "game_end", "turn", "resignation", "override"}
    log_ms, view_ms = [], []
    for event_id, kind, time_ms, received in rows:
        if kind not in shown:
            continue
        log_ms.append(received - offset - time_ms)
        later = [t for vid, t in views if vid >= event_id]
        if later:
            view_ms.append(min(later) - offset - time_ms)
    return {
        "events": len(log_ms),
        "log": summary(log_ms),
        "view": summary(view_ms),
        "renders": app.extensions["companion"].views.renders,
    }


def referee_pace(dashboards: int, browser=None, repeats: int = 3) -> dict[str, float]:
    """How fast the real referee judges the whole demo game (248 frames of
    readings, fed as fast as possible) with ``dashboards`` pages open: raw SSE
    clients receiving the rendered views (``browser`` None) or Chromium pages.
    Returns the median ms per frame over ``repeats`` runs."""
    from web_demo_driver import DemoDriver

    per_frame = []
    for _ in range(repeats):
        driver = DemoDriver(mode="teaching")
        app = create_app({"ACCESS_TOKEN": "bench"}, session=driver.session)
        server = serve(app, "127.0.0.1", 0, threads=64)
        clients, contexts = [], []
        try:
            for _ in range(dashboards):
                if browser is None:
                    clients.append(RawSseClient("127.0.0.1", server.port, path="/events?view=1"))
                else:
                    context = browser.new_context(viewport={"width": 1280, "height": 900})
                    page = context.new_page()
                    page.goto(server.url + "/")
                    page.wait_for_selector('#connection[data-state="live"]', timeout=60_000)
                    contexts.append(context)
            time.sleep(0.5)
            frames = len(driver._frames)
            t0 = time.perf_counter()
            driver.rest()
            per_frame.append((time.perf_counter() - t0) * 1000 / frames)
        finally:
            for c in clients:
                c.close()
            for context in contexts:
                context.close()
            server.stop()
    return {"median_ms_per_frame": statistics.median(per_frame), "runs": per_frame}


def publish_cost(stub: StubSession, n: int) -> list[float]:
    """Duration of bus.publish() in ms for ``n`` events (state unchanged)."""
    out = []
    for i in range(n):
        event = RollEvent(player=0, dice=(1 + i % 6, 2))
        t0 = time.perf_counter()
        stub.bus.publish(event)
        out.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.005)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--browsers", type=int, default=20)
    parser.add_argument("--gap-ms", type=float, default=100.0, help="time between events (a real game: seconds)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "web_latency.json"))
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    stub = StubSession()
    app = create_app({"ACCESS_TOKEN": "bench", "SSE_QUEUE_SIZE": 64}, session=stub)
    announcer = app.extensions["companion"].announcer
    server = serve(app, "127.0.0.1", 0, threads=64)
    results: dict[str, object] = {"events": args.events, "gap_ms": args.gap_ms, "browsers": args.browsers}
    gap = args.gap_ms / 1000
    try:
        # Publishing with nobody listening: the referee's baseline cost.
        results["publish_no_browser"] = summary(publish_cost(stub, args.events))

        # Baseline: a raw SSE client (no browser), same events.
        raw = RawSseClient("127.0.0.1", server.port)
        time.sleep(0.3)
        first = announcer.last_id + 1
        sent = publish_series(stub, args.events, gap)
        time.sleep(0.5)
        raw_ms = [raw.arrivals[first + i] - t for i, t in sent if first + i in raw.arrivals]
        raw.close()
        results["raw_sse"] = summary(raw_ms)

        with sync_playwright() as p:
            browser = launch_chromium(p)
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.goto(server.url + "/")
            page.wait_for_selector('#connection[data-state="live"]')
            offset = clock_offset(page)
            results["clock_offset_ms"] = offset

            results["referee_pace_no_dashboard"] = referee_pace(0)
            results[f"referee_pace_{args.browsers}_sse_dashboards"] = referee_pace(args.browsers)
            results[f"referee_pace_{args.browsers}_browsers"] = referee_pace(args.browsers, browser, repeats=1)

            demo = demo_game_latencies(browser, pace_s=0.1)
            results["demo_game_events"] = demo["events"]
            results["demo_game_log"] = demo["log"]
            results["demo_game_view"] = demo["view"]
            results["demo_game_view_renders"] = demo["renders"]
            demo = demo_game_latencies(browser, pace_s=0.1, others=args.browsers - 1)
            results[f"demo_game_log_{args.browsers}_browsers"] = demo["log"]
            results[f"demo_game_view_{args.browsers}_browsers"] = demo["view"]

            first = announcer.last_id + 1
            sent = publish_series(stub, args.events, gap)
            log_ms = measure_page(page, announcer, sent, first, offset)
            results["browser_log_1"] = summary(log_ms)
            results["browser_board_1"] = summary(board_latencies(page, stub, min(100, args.events), gap, offset, announcer))

            # One real browser measured while 19 more dashboards (SSE clients that
            # receive the rendered views as a page does) are open.
            view_clients = [
                RawSseClient("127.0.0.1", server.port, path="/events?view=1") for _ in range(args.browsers - 1)
            ]
            time.sleep(0.5)
            first = announcer.last_id + 1
            sent = publish_series(stub, args.events, gap)
            log_ms = measure_page(page, announcer, sent, first, offset)
            results[f"browser_log_1_plus_{args.browsers - 1}_sse"] = summary(log_ms)
            results[f"browser_board_1_plus_{args.browsers - 1}_sse"] = summary(
                board_latencies(page, stub, min(100, args.events), gap, offset, announcer)
            )
            results[f"publish_with_{args.browsers - 1}_sse_dashboards"] = summary(publish_cost(stub, args.events))
            for c in view_clients:
                c.close()
            publish_cost(stub, 5)  # the server notices the closed streams on its next writes
            time.sleep(0.5)

            # Many browsers open at once.
            # Each in its own context (its own profile and connection pool, like
            # separate devices: Chromium allows 6 connections per host per profile).
            others = []
            other_contexts = []
            for _ in range(args.browsers - 1):
                other_context = browser.new_context(viewport={"width": 1280, "height": 900})
                other = other_context.new_page()
                other.goto(server.url + "/")
                others.append(other)
                other_contexts.append(other_context)
            for other in others:
                other.wait_for_selector('#connection[data-state="live"]', timeout=60_000)
            results["listeners_with_browsers"] = announcer.listener_count
            results[f"publish_with_{args.browsers}_browsers"] = summary(publish_cost(stub, args.events))
            time.sleep(1.0)
            first = announcer.last_id + 1
            sent = publish_series(stub, args.events, gap)
            log_ms = measure_page(page, announcer, sent, first, offset)
            results[f"browser_log_{args.browsers}"] = summary(log_ms)
            results[f"browser_board_{args.browsers}"] = summary(
                board_latencies(page, stub, min(100, args.events), gap, offset, announcer)
            )
            results["dropped_browsers"] = announcer.dropped_count
            results["view_renders"] = app.extensions["companion"].views.renders
            for other_context in other_contexts:
                other_context.close()
            context.close()
            browser.close()

        # 20 raw clients, one of which never reads: publishing must not wait for it.
        time.sleep(0.5)
        clients = [
            RawSseClient("127.0.0.1", server.port, read=(i != 0), path="/events?view=1") for i in range(args.browsers)
        ]
        time.sleep(0.5)
        dropped_before = announcer.dropped_count
        costs = []
        sent_until_drop = None
        for i in range(5000):
            dice = (1 + i % 6, 1 + (i // 6) % 6)
            with stub._lock:
                stub._state.update(dice=list(dice))
            event = RollEvent(player=0, dice=dice)
            t0 = time.perf_counter()
            stub.bus.publish(event)
            costs.append((time.perf_counter() - t0) * 1000)
            if announcer.dropped_count > dropped_before:
                sent_until_drop = i + 1
                break
            time.sleep(0.002)
        results["publish_with_raw_clients_one_stalled"] = summary(costs)
        results["stalled_client_dropped"] = sent_until_drop is not None
        results["events_until_stalled_client_dropped"] = sent_until_drop
        for c in clients:
            c.close()
    finally:
        server.stop()

    base = results["publish_no_browser"]["median_ms"]
    results["ratio_publish_browsers_vs_none"] = results[f"publish_with_{args.browsers}_browsers"]["median_ms"] / base
    results["ratio_browser_log_vs_raw_sse"] = results["browser_log_1"]["median_ms"] / results["raw_sse"]["median_ms"]

    def line(name: str) -> str:
        s = results[name]
        return f"{name:44s} n={s['n']:4d}  median {s['median_ms']:8.3f} ms  p99 {s['p99_ms']:8.3f} ms  max {s['max_ms']:8.3f} ms"

    for key in [k for k, v in results.items() if isinstance(v, dict) and "n" in v]:
        print(line(key))
    for key in [k for k, v in results.items() if isinstance(v, dict) and "median_ms_per_frame" in v]:
        print(f"{key:44s} referee judging the demo game: {results[key]['median_ms_per_frame']:.3f} ms a frame")
    print(f"{'ratio publish, all browsers vs none':44s} {results['ratio_publish_browsers_vs_none']:.2f}")
    print(f"{'ratio browser log vs raw SSE client':44s} {results['ratio_browser_log_vs_raw_sse']:.2f}")
    print(
        f"listeners with browsers open: {results['listeners_with_browsers']}; stalled client dropped: "
        f"{results['stalled_client_dropped']} (after {results['events_until_stalled_client_dropped']} events)"
    )
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

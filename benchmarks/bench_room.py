"""The tournament room under load: many simulated tables through one Mosquitto broker.

Run from the project root:  python benchmarks/bench_room.py [--tables 64] [--seconds 20]

What it measures (Mosquitto on loopback, started here; Debian's ``mosquitto``):

1. ``event_to_hub``: from an event's ``time_ms`` on a table's bus (its
   creation) to the hub's room model applying it, for every event of every
   table; the hub runs in its own process (``Room`` + ``HubListener``, as
   ``companion hub`` runs them). Median and 99th percentile.
2. ``event_to_page``: from the same moment to headless Chromium (Debian's,
   through Playwright) showing that table's card on the director's page with
   the event counted (the card drawn or updated with ``data-events`` at or past
   the event's ``seq``), the page following the hub's event stream as a
   director's browser does.
3. ``hub_cpu``: the hub process's CPU time while the tables play (room model,
   listener and page server with one browser), divided by the wall time
   (1.0 = one core busy).
4. ``page_cpu``: the CPU time of the page's Chromium renderer processes over the
   same interval (from ``/proc``: Linux), divided by the wall time.
5. Baseline in the same run: a bare paho QoS 1 publish -> subscribe round
   trip through the same broker with the same tables running (what the broker
   and the client library cost on their own).

The tables run in this process: real ``Session`` objects fed seeded scripted
games at the demo's pace (``companion.demo.DEMO_FPS`` frames a second each),
each with a real ``TablePublisher`` and SQLite outbox. At the end every hub
count is compared with the tables' outboxes and the numbers lost or doubled
are printed (both must be 0).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import pathlib
import statistics
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def hub_process(url: str, coalesce_s, commands, queue) -> None:
    """Run the hub (room model, listener and the director's page, as ``companion hub``,
    its event stream gathering the changes of ``coalesce_s`` seconds into one message;
    ``None``: the page's default);
    CPU is counted between the first two ``commands``; the report goes to ``queue``
    after the third."""
    from companion.hub_address import parse_hub_url
    from companion.hub_listener import HubListener
    from companion.hub_room import Room
    from web.hub_app import create_hub_app
    from web.server import serve
    from web.tracker import Tracker

    room = Room("bench", follow=Tracker)
    listener = HubListener(parse_hub_url(url), room).start()
    listener.wait_connected(10)
    app = create_hub_app(room, None, None if coalesce_s is None else {"SSE_COALESCE_S": coalesce_s})
    coalesce_s = app.config["SSE_COALESCE_S"]
    server = serve(app, "127.0.0.1", 0)
    queue.put(("ready", (server.url, coalesce_s)))
    commands.get()  # the tables start
    cpu0, wall0 = time.process_time(), time.monotonic()
    commands.get()  # the tables have played for the measured time
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    stop = commands.get()  # the outboxes are drained: report
    counts = {n: room.table(n)["counts"] for n in room.numbers()}
    dup = {n: room.table(n)["duplicates"] for n in room.numbers()}
    queue.put(("done", {"cpu_s": cpu, "wall_s": wall, "latencies": list(room.latencies_ms), "counts": counts,
                        "duplicates": dup, "stop": stop}))
    app.extensions["companion_hub"]["feed"].close()
    server.stop()
    listener.stop()


#: Run in the page before its own script: note when each table's card is drawn or
#: changes its event count (``data-events``), and the events it then shows, on the
#: wall clock (ms since the epoch).
SHOWN_SCRIPT = """
window.cardsShown = [];
new MutationObserver(function (records) {
  var now = Date.now();
  records.forEach(function (r) {
    var nodes = r.type === "attributes" ? [r.target] : r.addedNodes;
    nodes.forEach(function (n) {
      if (n.dataset && n.dataset.table) {
        window.cardsShown.push([Number(n.dataset.table), Number(n.dataset.events), now]);
      }
    });
  });
}).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-events"] });
"""


def renderer_cpu_s() -> float:
    """CPU seconds (user + system) used so far by the Chromium renderer processes
    started below this process (read from ``/proc``; 0.0 where there is none)."""
    parent: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            renderer = b"--type=renderer" in (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (name) ": state, ppid, ...
        parent[int(entry.name)] = int(fields[1])
        if renderer:
            ticks[int(entry.name)] = int(fields[11]) + int(fields[12])  # utime + stime
    me = os.getpid()

    def below_me(pid: int) -> bool:
        while pid > 1:
            pid = parent.get(pid, 0)
            if pid == me:
                return True
        return False

    return sum(t for pid, t in ticks.items() if below_me(pid)) / os.sysconf("SC_CLK_TCK")


def page_latencies(tables, shown) -> list[float]:
    """Milliseconds from each event's creation on its table's bus to the first
    drawing of that table's card that shows it (its ``data-events`` >= the event's
    ``seq``), for the events made while the page was open."""
    by_table: dict[int, list] = {}
    for number, events, at in shown:
        by_table.setdefault(number, []).append((at, events))
    out = []
    for t in tables:
        draws = sorted(by_table.get(t.number, []))
        if not draws:
            continue
        first_draw = draws[0][0]
        rows = t.outbox.rows(1, 10**9)
        times = {seq: event.get("time_ms") for seq, event in rows}
        k = 0
        for seq in sorted(times):
            made = times[seq]
            if not isinstance(made, (int, float)) or made < first_draw:
                continue
            while k < len(draws) and draws[k][1] < seq:
                k += 1
            if k == len(draws):
                break
            out.append(draws[k][0] - made)
    return out


def baseline_round_trip(url: str, n: int = 200) -> list[float]:
    """Milliseconds of a bare paho QoS 1 publish -> subscribe through the broker."""
    import paho.mqtt.client as mqtt

    from companion.hub_address import parse_hub_url

    address = parse_hub_url(url)
    got = threading.Event()
    samples: list[float] = []
    sent = [0.0]

    def on_message(_c, _u, _m):
        samples.append((time.perf_counter() - sent[0]) * 1000.0)
        got.set()

    sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-sub")
    sub.on_message = on_message
    sub.connect(address.host, address.port)
    sub.subscribe("bench/rt", qos=1)
    sub.loop_start()
    pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-pub")
    pub.connect(address.host, address.port)
    pub.loop_start()
    time.sleep(0.5)
    for _ in range(n):
        got.clear()
        sent[0] = time.perf_counter()
        pub.publish("bench/rt", b"x" * 200, qos=1)
        got.wait(2)
        time.sleep(0.01)
    sub.loop_stop()
    pub.loop_stop()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--coalesce-ms", type=float, default=None,
                        help="the page's event stream gathers the changes of this many ms into one message "
                             "(default: the hub's own setting)")
    parser.add_argument("--no-browser", dest="browser", action="store_false",
                        help="skip the page in headless Chromium")
    args = parser.parse_args()
    if args.coalesce_ms is not None and args.coalesce_ms < 0:
        parser.error("--coalesce-ms must be 0 or more")

    from companion.demo import DEMO_FPS
    from mosquitto_broker import Broker
    from room_tables import SimTable

    folder = pathlib.Path(tempfile.mkdtemp(prefix="bench-room-"))
    broker = Broker(folder / "broker").start()
    ctx = multiprocessing.get_context("spawn")
    queue, commands = ctx.Queue(), ctx.Queue()
    coalesce_arg = None if args.coalesce_ms is None else args.coalesce_ms / 1000.0
    hub = ctx.Process(target=hub_process, args=(broker.url, coalesce_arg, commands, queue))
    hub.start()
    kind, (hub_url, coalesce_s) = queue.get(timeout=60)
    assert kind == "ready"
    browser = page = playwright = None
    if args.browser:
        from playwright.sync_api import sync_playwright

        from web_chromium import launch_chromium

        playwright = sync_playwright().start()
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": 1600, "height": 1200})
        page.add_init_script(SHOWN_SCRIPT)
        page.goto(hub_url + "/")
        page.wait_for_selector('#connection[data-state="live"]', timeout=30000)
    tables = [SimTable(broker.url, "bench", n, folder, seed=n, match_length=5, games=9).start()
              for n in range(1, args.tables + 1)]
    commands.put("start")
    t0 = time.monotonic()
    page_cpu0 = renderer_cpu_s()
    frame = 0
    while time.monotonic() - t0 < args.seconds:  # every table at the camera's pace
        for t in tables:
            t.step(1)
        frame += 1
        wait = t0 + frame / DEMO_FPS - time.monotonic()
        if wait > 0:
            time.sleep(wait)
    commands.put("end")
    page_cpu = renderer_cpu_s() - page_cpu0
    page_wall = time.monotonic() - t0
    behind = (time.monotonic() - t0) - frame / DEMO_FPS
    baseline = baseline_round_trip(broker.url)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(t.outbox.unacked_count() for t in tables):
        time.sleep(0.2)
    time.sleep(2.0)
    shown = []
    if page is not None:
        shown = page.evaluate("window.cardsShown")
        browser.close()
        playwright.stop()
    commands.put("report")
    kind, report = queue.get(timeout=60)
    hub.join(10)
    page_lat = page_latencies(tables, shown) if args.browser else []
    lost = doubled = 0
    events = 0
    for t in tables:
        expected = t.outbox.counts()
        got = report["counts"].get(t.number, {})
        events += sum(expected.values())
        for key in set(expected) | set(got):
            diff = got.get(key, 0) - expected.get(key, 0)
            lost += max(0, -diff)
            doubled += max(0, diff)
    for t in tables:
        t.stop()
    broker.stop()
    lat = sorted(report["latencies"])
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]  # noqa: E731
    print(f"tables {args.tables} at {DEMO_FPS:g} frames/s each for {args.seconds:g} s, "
          f"the page's stream gathering {coalesce_s * 1000:g} ms of changes a message "
          f"(the table loop ended {behind:.2f} s behind its pace); {events} events")
    print(f"event_to_hub   median {statistics.median(lat):.1f} ms   p99 {p(0.99):.1f} ms   (n={len(lat)})")
    if page_lat:
        page_lat.sort()
        print(f"event_to_page  median {statistics.median(page_lat):.1f} ms   "
              f"p99 {page_lat[min(len(page_lat) - 1, int(0.99 * len(page_lat)))]:.1f} ms   (n={len(page_lat)}, "
              f"headless Chromium showing the table's card)")
    print(f"baseline paho QoS 1 round trip   median {statistics.median(baseline):.1f} ms   "
          f"p99 {sorted(baseline)[int(0.99 * len(baseline))]:.1f} ms")
    print(f"hub_cpu        {report['cpu_s'] / report['wall_s']:.2f} cores "
          f"({report['cpu_s']:.1f} s CPU over {report['wall_s']:.1f} s)")
    if args.browser:
        print(f"page_cpu       {page_cpu / page_wall:.2f} cores ({page_cpu:.1f} s CPU of Chromium's renderer "
              f"over {page_wall:.1f} s)")
    print(f"lost {lost}   counted twice {doubled}   duplicates dropped at the hub "
          f"{sum(report['duplicates'].values())}")


if __name__ == "__main__":
    main()

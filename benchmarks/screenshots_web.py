"""Screenshots of the dashboard's main states, driven by the real referee session.

Run from the project root:  python benchmarks/screenshots_web.py [--out benchmarks/results]

The session (``companion.session.Session``) judges the demo game's readings
(``tests/web_demo_driver.py``); at each decision the page in headless Chromium
is photographed: ``web_1_start.png`` ... ``web_9_phone.png``. Then a real
``companion watch --source demo --web`` (camera pipeline included) is
photographed: ``web_watch_*.png``. Prints each file.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from web import create_app, serve  # noqa: E402
from web_demo_driver import DemoDriver  # noqa: E402
from web_chromium import launch_chromium  # noqa: E402

TOKEN = "screenshots"


def watch_shots(browser, out: pathlib.Path, shot) -> None:
    """The same states on a running ``companion watch --source demo --web`` (the camera
    pipeline reading the rendered demo frames): ``web_watch_*.png``."""
    import os
    import re
    import socket
    import subprocess

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "watch", "--source", "demo", "--web", f"127.0.0.1:{port}",
         "--keyboard", "off", "--mode", "teaching", "--speed", "0.5"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        url = None
        for line in proc.stdout:
            match = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
            if match and "dashboard" in line:
                url = match.group(1)
                break
        if url is None:
            raise SystemExit("watch did not print its dashboard address")
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.goto(url + "/")
        page.wait_for_selector('#connection[data-state="live"]')
        page.click("#camera-toggle")
        page.wait_for_selector("#dice .die", timeout=60_000)
        page.wait_for_function("() => document.querySelector('#camera').naturalWidth > 0", timeout=30_000)
        shot(page, "web_watch_1_roll_and_camera.png")
        page.wait_for_selector("#alert.illegal", timeout=120_000)
        shot(page, "web_watch_2_illegal.png")
        page.wait_for_selector("#log li.ev-cube", state="attached", timeout=120_000)
        shot(page, "web_watch_3_cube.png")
        context.close()
    finally:
        proc.terminate()
        proc.wait(20)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    from playwright.sync_api import sync_playwright

    def shot(page, name: str) -> None:
        page.wait_for_timeout(300)
        path = out / name
        page.screenshot(path=str(path), full_page=True)
        print(path)

    with sync_playwright() as p:
        browser = launch_chromium(p)
        for mode in ("teaching", "tournament"):
            driver = DemoDriver(mode=mode)
            app = create_app({"ACCESS_TOKEN": TOKEN}, session=driver.session)
            server = serve(app, "127.0.0.1", 0, threads=8)
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            page.goto(server.url + (f"/?token={TOKEN}" if mode == "teaching" else "/"))
            page.wait_for_selector('#connection[data-state="live"]')
            if mode == "teaching":
                shot(page, "web_1_start.png")
                driver.until_type("roll")
                driver.until_type("verdict", verdict="in_progress")
                page.wait_for_selector("#dice .die")
                shot(page, "web_2_roll.png")
                driver.until_type("cocked_dice")
                page.wait_for_selector("#alert.cocked")
                shot(page, "web_3_cocked.png")
                driver.until_type("verdict", verdict="illegal")
                page.wait_for_selector("#alert.illegal")
                shot(page, "web_4_illegal_teaching.png")
                driver.until_type("verdict", verdict="corrected")
                page.wait_for_selector("#alert.corrected")
                shot(page, "web_5_corrected.png")
                driver.until_type("cube", action="double")
                page.wait_for_function("() => document.querySelector('#cube-text').innerText.includes('double offered')")
                shot(page, "web_6_double.png")
                driver.until_type("game_end")
                page.wait_for_selector("#scoresheet-table tr.game")
                shot(page, "web_7_game_over.png")
            else:
                driver.until_type("verdict", verdict="illegal")
                page.wait_for_selector("#alert.illegal")
                shot(page, "web_8_illegal_tournament_viewer.png")
                page.set_viewport_size({"width": 420, "height": 900})
                shot(page, "web_9_phone.png")
            context.close()
            server.stop()
        watch_shots(browser, out, shot)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

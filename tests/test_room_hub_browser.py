"""``companion hub`` as a process, with a real broker, and its page in headless Chromium:
a table that starts playing appears in the grid, its card follows the game live, and
its alerts reach the room's list; after a hub restart the open page loads again and
shows the rebuilt room; the director starts a new match from the table's page."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest
from playwright.sync_api import Error as PlaywrightError

from mosquitto_broker import MOSQUITTO, Broker
from room_tables import SimTable

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not MOSQUITTO.exists(), reason="Mosquitto is not installed (.ci/run installs it)")]

WAIT = 20_000  # ms


def start_hub(broker, repo_root, web="127.0.0.1:0"):
    """``companion hub`` on ``broker`` serving its page at ``web``: (process, page address)."""
    env = dict(os.environ, PYTHONPATH=str(repo_root), COMPANION_HUB_TOKEN="hub-token")
    hub = subprocess.Popen([sys.executable, "-m", "companion", "hub", "--broker", broker.url, "--tournament", "open",
                            "--web", web], cwd=repo_root, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    url = None
    deadline = time.monotonic() + 60
    while url is None and time.monotonic() < deadline:
        m = re.search(r"hub: (http://127\.0\.0\.1:\d+)/ +\(director: .*\?token=hub-token\)", hub.stdout.readline())
        url = m.group(1) if m else None
    assert url, "the hub did not print its address and the director's link"
    return hub, url


def stop_hub(hub):
    hub.terminate()
    try:
        hub.wait(10)
    except subprocess.TimeoutExpired:
        hub.kill()


def evaluate_or_false(page, expression):
    """``expression`` evaluated in the page; False while the page is loading again."""
    try:
        return page.evaluate(expression)
    except PlaywrightError:
        return False


def test_the_hub_page_follows_a_table_live(browser, tmp_path, repo_root):
    broker = Broker(tmp_path / "broker").start()
    hub, url = start_hub(broker, repo_root)
    table = None
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url + "/")
        page.wait_for_selector('#connection[data-state="live"]', timeout=WAIT)
        assert page.locator("#no-tables").count() == 1

        table = SimTable(broker.url, "open", 5, tmp_path, seed=3, match_length=1, games=1, token="hub-token").start()
        table.step(60)
        page.wait_for_selector("#table-5 svg#t5-board", timeout=WAIT)
        while not table.done:
            table.step(40)
            time.sleep(0.02)
        score = table.session.state()["score"]
        page.wait_for_selector(f'#table-5[data-score="{score[0]}-{score[1]}"]', timeout=WAIT)
        page.wait_for_function(f"document.querySelector('#table-5').dataset.events == '{table.outbox.last_seq}'",
                               timeout=WAIT)
        assert page.locator("#results-table tr.result[data-table='5']").count() == 1
        assert page.locator("#alert-list li.room-alert[data-table='5']").count() >= 1

        # the hub restarts at the same address: the open page loads again and shows the rebuilt room
        page.evaluate("window.beforeRestart = true")
        stop_hub(hub)
        hub, _ = start_hub(broker, repo_root, url.removeprefix("http://"))
        rebuilt = ("window.beforeRestart === undefined && document.querySelector('#table-5') !== null"
                   f" && document.querySelector('#table-5').dataset.events == '{table.outbox.last_seq}'")
        deadline = time.monotonic() + WAIT / 1000
        while not evaluate_or_false(page, rebuilt) and time.monotonic() < deadline:  # the page's CSP forbids eval
            time.sleep(0.1)
        assert evaluate_or_false(page, rebuilt), "the page did not load again with the rebuilt room"
        page.wait_for_selector('#connection[data-state="live"]', timeout=WAIT)
        assert page.locator("#table-5 svg#t5-board").count() == 1
        assert page.locator("#results-table tr.result[data-table='5']").count() == 1

        # the director signs in and starts the next match on table 5 from its page
        page.goto(url + "/?token=hub-token")
        page.goto(url + "/table/5")
        form = page.locator('form[data-action="new_match"]')
        form.locator('input[name="player0"]').fill("Cleo")
        form.locator('input[name="player1"]').fill("Dan")
        form.locator("button").click()
        page.wait_for_selector("#command-result.ok", timeout=WAIT)
        assert page.locator("#command-result").inner_text() == "Done: new_match"
        assert table.session.state()["players"] == ["Cleo", "Dan"]
        assert errors == []
    finally:
        context.close()
        if table is not None:
            table.stop()
        stop_hub(hub)
        broker.stop()

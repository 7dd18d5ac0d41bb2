"""The dashboard of a real ``companion watch --source demo --web`` process in headless Chromium.

The demo is the project's built-in recording: an opening roll, a cocked roll,
an illegal play and its correction, a double and a take, a dropped redouble
that ends the game. The browser must show each of them as the referee decides
them. A second process checks match control: a new match from the form and the
``.mat`` download.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import subprocess
import sys
import threading

import pytest
from web_chromium import page_without_errors

pytestmark = pytest.mark.slow

URL = re.compile(r"(http://127\.0\.0\.1:\d+)/")
TOKEN = re.compile(r"token[= ]([A-Za-z0-9_\-]{10,})")


class Watch:
    """A running ``companion watch`` with its dashboard address and token."""

    def __init__(self, repo_root: pathlib.Path, *extra: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(repo_root), PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "watch", "--source", "demo", "--web", "127.0.0.1:0",
             "--keyboard", "off", *extra],
            cwd=repo_root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        self.lines: list[str] = []
        self.url = None
        self.token = None
        found = threading.Event()

        def read() -> None:
            for line in self.proc.stdout:
                self.lines.append(line.rstrip("\n"))
                if self.url is None and "dashboard" in line and URL.search(line):
                    self.url = URL.search(line).group(1)
                    match = TOKEN.search(line)
                    self.token = match.group(1) if match else None
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        # The first run renders the demo's frames (cached afterwards).
        if not found.wait(300) or self.url is None:
            self.stop()
            raise AssertionError("watch did not print its dashboard address:\n" + "\n".join(self.lines[-20:]))

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode


@contextlib.contextmanager
def live_page(browser, repo_root: pathlib.Path):
    """A teaching-mode ``companion watch`` at half speed and a 1400x1000 page on its dashboard,
    once the page is live: yields ``(watch, page)``; afterwards closes both and asserts the page
    raised no script error."""
    watch = Watch(repo_root, "--mode", "teaching", "--speed", "0.5")
    try:
        with page_without_errors(browser, viewport={"width": 1400, "height": 1000}) as page:
            page.goto(watch.url + "/")
            page.wait_for_selector('#connection[data-state="live"]', timeout=30_000)
            yield watch, page
    finally:
        watch.stop()


def test_the_live_dashboard_of_a_running_watch(browser, repo_root, tmp_path):
    with live_page(browser, repo_root) as (watch, page):
        # The starting position as the real session has it, drawn and as text.
        assert page.locator("#board #point-24").get_attribute("data-count") == "2"
        assert page.locator("#board #point-19").get_attribute("data-count") == "-5"
        assert page.locator("#position-id").inner_text() == "4HPwATDgc/ABMA"
        assert "Point 6: 5" in page.locator("#board-text").inner_text()
        assert "opening roll" in page.locator("#waiting").inner_text()
        assert page.locator("#pips").inner_text().count("167") == 2  # teaching mode
        # The camera's events reach the page as they happen: the board status
        # line follows the stability filter, and the log shows the camera.
        page.wait_for_selector("#log li.ev-source", state="attached", timeout=60_000)
        page.wait_for_selector("#board-status", timeout=60_000)
        page.check("#log-all")
        page.wait_for_selector("#log li.ev-board", timeout=60_000)
        # The camera picture with the reading drawn over it.
        page.click("#camera-toggle")
        page.wait_for_function("() => document.querySelector('#camera').naturalWidth > 0", timeout=30_000)
        page.screenshot(path=str(tmp_path / "watch.png"), full_page=True)
        # When the companion stops, the page says so instead of showing a stale board as live.
        watch.stop()
        page.wait_for_selector('#connection[data-state="reconnecting"]', timeout=30_000)
        assert "out of date" in page.locator("#connection").inner_text()
        assert "offline" in page.get_attribute("body", "class")


def test_the_demo_game_shows_live_in_the_browser(browser, repo_root, tmp_path):
    with live_page(browser, repo_root) as (watch, page):
        # Note every alert the page shows, however briefly, and every board it draws.
        page.evaluate(
            """() => {
                 window.seenAlerts = []; window.seenDice = new Set();
                 const note = () => {
                   const a = document.querySelector('#alert');
                   const kind = a ? a.dataset.kind : null;
                   if (kind && window.seenAlerts[window.seenAlerts.length - 1] !== kind) window.seenAlerts.push(kind);
                   const d = document.querySelector('#dice');
                   if (d && d.dataset.dice) window.seenDice.add(d.dataset.dice);
                 };
                 new MutationObserver(note).observe(document.querySelector('#live'),
                   {subtree: true, childList: true, attributes: true, characterData: true});
               }"""
        )
        assert page.locator("#position-id").inner_text() == "4HPwATDgc/ABMA"
        # The opening roll: drawn on the board and listed.
        page.wait_for_selector("#dice .die", timeout=60_000)
        page.wait_for_selector("#log li.ev-roll", state="attached", timeout=30_000)
        page.screenshot(path=str(tmp_path / "demo_roll.png"), full_page=True)
        # The illegal play: shown at once, large, with its points, the reason and the closest legal play.
        alert = page.wait_for_selector("#alert.illegal", timeout=120_000)
        text = alert.inner_text()
        assert "Illegal play" in text and "Closest legal play" in text
        assert page.locator("#board .point.illegal").count() >= 1
        page.screenshot(path=str(tmp_path / "demo_illegal.png"), full_page=True)
        # ... and it clears when the correction is seen.
        page.wait_for_selector("#alert.illegal", state="detached", timeout=60_000)
        assert page.locator("#board .point.illegal").count() == 0
        # The double and the take, then the dropped redouble ends the game.
        page.wait_for_selector("#log li.ev-cube", state="attached", timeout=120_000)
        end = page.wait_for_selector("#log li.ev-game_end", state="attached", timeout=120_000)
        assert "wins 2 points (drop)" in end.inner_text()
        page.screenshot(path=str(tmp_path / "demo_game_over.png"), full_page=True)
        # The cocked roll is listed (its alert lasts until the re-roll is seen,
        # which the referee may see in the same reading).
        cocked = page.locator("#log li.ev-cocked_dice")
        assert cocked.count() == 1 and "rolls again" in cocked.inner_text()
        seen = [kind for kind in page.evaluate("() => window.seenAlerts") if kind != "cocked"]
        assert seen[:2] == ["illegal", "corrected"], seen
        assert len(page.evaluate("() => [...window.seenDice]")) >= 4  # several rolls drawn as they came


def test_new_match_and_mat_download_on_the_real_session(browser, repo_root, tmp_path):
    watch = Watch(repo_root, "--speed", "0.25")
    assert watch.token, "watch prints the access token"
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    try:
        # Without the token: viewing only, and actions are refused.
        page.goto(watch.url + "/")
        page.wait_for_selector('#connection[data-state="live"]', timeout=30_000)
        assert page.locator("#controls").count() == 0
        status = page.evaluate(
            """() => fetch('/api/match/new', {method: 'POST', headers: {'Content-Type': 'application/json'},
                     body: JSON.stringify({players: ['x', 'y']})}).then(r => r.status)"""
        )
        assert status == 401
        # With the token: a new 3-point match between Carol and Dave.
        page.goto(f"{watch.url}/?token={watch.token}")
        page.wait_for_selector('#connection[data-state="live"]', timeout=30_000)
        page.fill('input[name="player0"]', "Carol")
        page.fill('input[name="player1"]', "Dave")
        page.fill('input[name="match_length"]', "3")
        page.select_option('select[name="mode"]', "teaching")
        page.click("#new-match-button")
        page.wait_for_selector("#action-result.ok", timeout=30_000)
        page.wait_for_function("() => document.querySelector('#score').innerText.includes('Carol')", timeout=30_000)
        assert "to 3 points" in page.locator("#match-length").inner_text()
        state = page.evaluate("() => fetch('/api/state').then(r => r.json())")
        assert state["players"] == ["Carol", "Dave"] and state["match_length"] == 3
        # A bad setting is refused with the reason on the page.
        page.fill('input[name="player1"]', "carol")
        page.click("#new-match-button")
        result = page.wait_for_selector("#action-result.error", timeout=30_000)
        assert "different names" in result.inner_text()
        assert page.evaluate("() => fetch('/api/state').then(r => r.json())")["players"] == ["Carol", "Dave"]
        with page.expect_download() as info:
            page.click("#download-mat")
        download = info.value
        assert download.suggested_filename.endswith(".mat")
        text = pathlib.Path(download.path()).read_text()
        assert " 3 point match" in text  # the new match, no game played yet
        page.screenshot(path=str(tmp_path / "demo_new_match.png"), full_page=True)
    finally:
        context.close()
        watch.stop()

"""The dashboard in a real headless Chromium, served by waitress, fed by a session's bus.

These tests drive an in-process session (``web_stub.StubSession``) so every
state can be produced on demand; ``test_web_watch_browser.py`` runs the same
kind of checks against a real ``companion watch --source demo --web`` process.
Screenshots go to pytest's temporary folder (``benchmarks/screenshots_web.py``
writes the committed ones).
"""

from __future__ import annotations

import pathlib
import urllib.error
import urllib.request

import pytest

from web import create_app, serve
from web_chromium import page_without_errors
from web_stub import StubSession

pytestmark = pytest.mark.slow

TOKEN = "browser-token"
WAIT = 15_000  # ms; generous: the machine is shared


@pytest.fixture()
def served():
    import cv2
    import numpy as np

    image = np.zeros((120, 160, 3), np.uint8)
    cv2.rectangle(image, (20, 20), (140, 100), (0, 200, 255), -1)
    ok, jpeg = cv2.imencode(".jpg", image)
    assert ok
    stub = StubSession(frame=jpeg.tobytes())
    app = create_app({"ACCESS_TOKEN": TOKEN}, session=stub)
    server = serve(app, "127.0.0.1", 0, threads=8)
    yield stub, server
    server.stop()
    assert not server.running


@pytest.fixture()
def page(browser, served):
    with page_without_errors(browser, viewport={"width": 1400, "height": 1000}, accept_downloads=True) as page:
        yield page


def open_live(page, server, signed_in: bool = False) -> None:
    page.goto(server.url + (f"/?token={TOKEN}" if signed_in else "/"))
    page.wait_for_selector('#connection[data-state="live"]', timeout=WAIT)


def test_board_updates_from_bus_events(page, served, tmp_path):
    stub, server = served
    open_live(page, server)
    assert page.locator("#board #point-24").get_attribute("data-count") == "2"
    assert page.locator("#dice").get_attribute("data-dice") == ""
    # Screen readers get the board as a named image and as a list of sentences.
    board = page.get_by_role("img", name="Board: Alice (light, bottom) against Bob (dark, top)")
    assert board.count() == 1
    assert "Point 24: 2 Alice checkers" in page.locator("#board-text").inner_text()
    stub.roll(0, (6, 5))
    page.wait_for_selector('#dice[data-dice="6,5"]', timeout=WAIT)
    assert page.locator("#dice-text").inner_text() == "6-5"
    assert "Alice rolled 6-5" in page.locator("#log li").first.inner_text()
    # Alice runs a back checker 24/13: the board and its text follow the state.
    signed = [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 6, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 1, 0]
    stub.set_signed(signed, turn=0)
    stub.publish_verdict("legal", player=0, dice=(6, 5), play="24/13", points_played=(24, 13))
    page.wait_for_selector('#point-13[data-count="6"]', timeout=WAIT)
    assert page.locator("#point-24").get_attribute("data-count") == "1"
    assert "Point 13: 6 Alice checkers" in page.locator("#board-text").inner_text()
    assert page.locator("#alert").count() == 0
    page.screenshot(path=str(tmp_path / "board.png"), full_page=True)


def test_illegal_play_alert_appears_and_clears(page, served, tmp_path):
    stub, server = served
    open_live(page, server)
    stub.roll(0, (3, 1))
    stub.publish_verdict(
        "illegal",
        player=0,
        dice=(3, 1),
        play="8/4",
        reasons=({"code": "distance", "message": "No die shows 4."},),
        closest_legal="8/5 6/5",
        points_differing=(8, 4),
        points_played=(8, 5, 6),
    )
    alert = page.wait_for_selector("#alert.illegal", timeout=WAIT)
    text = alert.inner_text()
    assert "Illegal play" in text and "No die shows 4." in text and "8/5 6/5" in text
    assert "illegal" in page.locator("#point-4").get_attribute("class")
    assert page.get_attribute("#alert", "role") == "alert"
    # The alert is large: at least 2 rem high title text.
    size = page.eval_on_selector("#alert .alert-title", "e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 32
    page.screenshot(path=str(tmp_path / "illegal.png"), full_page=True)
    stub.publish_verdict("corrected", player=0, dice=(3, 1), play="8/5 6/5")
    page.wait_for_selector("#alert.corrected", timeout=WAIT)
    assert page.locator("#alert.illegal").count() == 0
    assert page.locator("#board .point.illegal").count() == 0


def test_cocked_dice_say_roll_again(page, served):
    stub, server = served
    open_live(page, server)
    stub.cocked(1, (5, 2))
    page.wait_for_selector("#alert.cocked", timeout=WAIT)
    assert "roll again" in page.locator("#alert").inner_text()
    assert page.locator("#board .die.cocked").count() == 2
    stub.roll(1, (5, 2))
    page.wait_for_selector("#alert", state="detached", timeout=WAIT)


def test_new_match_from_the_form_and_mat_download(page, served, tmp_path):
    stub, server = served
    open_live(page, server, signed_in=True)
    page.fill('input[name="player0"]', "Carol")
    page.fill('input[name="player1"]', "Dave")
    page.fill('input[name="match_length"]', "7")
    page.select_option('select[name="mode"]', "tournament")
    page.click("#new-match-button")
    page.wait_for_selector("#action-result.ok", timeout=WAIT)
    name, settings = stub.calls[-1]
    assert name == "new_match"
    assert settings["players"] == ["Carol", "Dave"] and settings["match_length"] == 7
    assert settings["mode"] == "tournament"
    page.wait_for_function("() => document.querySelector('#score').innerText.includes('Carol')", timeout=WAIT)
    assert "to 7 points" in page.locator("#match-length").inner_text()
    assert page.locator("#pips").count() == 0  # tournament mode: no pip counts
    with page.expect_download() as info:
        page.click("#download-mat")
    download = info.value
    assert download.suggested_filename.endswith(".mat")
    text = pathlib.Path(download.path()).read_text()
    assert "7 point match" in text and "Carol" in text


def test_bad_input_in_a_form_shows_the_servers_sentence(page, served):
    stub, server = served
    open_live(page, server, signed_in=True)
    page.fill('input[name="player0"]', "Same")
    page.fill('input[name="player1"]', "same")
    page.click("#new-match-button")
    result = page.wait_for_selector("#action-result.error", timeout=WAIT)
    assert "different names" in result.inner_text()
    assert stub.calls == []


def test_a_viewer_without_the_token_has_no_controls_and_cannot_act(page, served):
    stub, server = served
    open_live(page, server)
    assert page.locator("#controls").count() == 0
    status = page.evaluate(
        """() => fetch('/api/match/new', {method: 'POST', headers: {'Content-Type': 'application/json'},
                 body: JSON.stringify({players: ['x', 'y']})}).then(r => r.status)"""
    )
    assert status == 401
    assert stub.calls == []


def test_camera_picture_shows(page, served):
    stub, server = served
    open_live(page, server)
    page.click("#camera-toggle")
    page.wait_for_function("() => document.querySelector('#camera').naturalWidth === 160", timeout=WAIT)
    page.click("#camera-toggle")
    assert page.locator("#camera").is_hidden()


def test_server_stops_and_port_is_closed(served):
    stub, server = served
    with urllib.request.urlopen(server.url + "/api/state", timeout=5) as response:
        assert response.status == 200
    server.stop()
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        urllib.request.urlopen(server.url + "/api/state", timeout=2)


def test_a_dropped_browser_reconnects_and_misses_nothing(page, served):
    stub, server = served
    stub.roll(0, (1, 1))  # before the page opens: in the page's first log
    open_live(page, server)
    announcer = server.app.extensions["companion"].announcer
    assert announcer.listener_count == 1
    # Drop the browser as if its queue had filled, then publish while it is away.
    listener = announcer._listeners[0]
    announcer._drop(listener)
    for dice in ((2, 1), (3, 1), (4, 1)):
        stub.roll(1, dice)
    page.wait_for_function("() => document.querySelectorAll('#log li.ev-roll').length === 4", timeout=WAIT)
    ids = page.eval_on_selector_all("#log li", "lis => lis.map(li => parseInt(li.dataset.eventId, 10))")
    assert sorted(ids) == list(range(1, len(ids) + 1)), "every event once, no gap, no duplicate"
    page.wait_for_selector('#dice[data-dice="4,1"]', timeout=WAIT)

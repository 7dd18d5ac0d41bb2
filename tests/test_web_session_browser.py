"""The dashboard of the real referee session (``companion.session.Session``) in headless Chromium.

The session judges the demo game's readings (``web_demo_driver``); the test
stops at each decision and checks what the browser shows: the roll, the cocked
dice, the illegal play with its points and the closest legal play, its
correction, the double and the take, the game's end on the score sheet, and a
new match started from the form.
"""

from __future__ import annotations

import pathlib

import pytest

from web import create_app, serve
from web_demo_driver import DemoDriver

pytestmark = pytest.mark.slow

TOKEN = "session-token"
WAIT = 15_000


def open_dashboard(browser, driver, mode_signed_in: bool = False):
    app = create_app({"ACCESS_TOKEN": TOKEN}, session=driver.session)
    server = serve(app, "127.0.0.1", 0, threads=8)
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server.url + ("/?token=" + TOKEN if mode_signed_in else "/"))
    page.wait_for_selector('#connection[data-state="live"]', timeout=WAIT)
    return server, context, page, errors


def test_the_real_referee_game_in_the_browser(browser, tmp_path):
    driver = DemoDriver(mode="teaching")
    server, context, page, errors = open_dashboard(browser, driver)
    try:
        assert page.locator("#position-id").inner_text() == "4HPwATDgc/ABMA"
        assert "opening roll" in page.locator("#waiting").inner_text()

        roll = driver.until_type("roll")
        dice = ",".join(str(d) for d in roll["dice"])
        page.wait_for_selector(f'#dice[data-dice="{dice}"]', timeout=WAIT)
        assert "Ann" in page.locator("#turn").inner_text()
        # Teaching mode: the legal plays of the roll, from the rules engine.
        page.wait_for_selector("#hints li", timeout=WAIT)
        hints = page.locator("#hints li").all_inner_texts()
        assert len(hints) >= 1

        # The checkers move before the play is judged: the board follows them.
        progress = driver.until_type("verdict", verdict="in_progress")
        caption = page.wait_for_selector("#board-caption.progress", timeout=WAIT)
        assert progress["play"] in caption.inner_text()
        assert page.locator("#board #point-24").get_attribute("data-count") != "2" or "24" not in progress["play"]

        legal = driver.until_type("verdict", verdict="legal")
        assert legal["play"] in hints
        page.wait_for_function(
            "(pid) => document.querySelector('#position-id').innerText !== pid", arg="4HPwATDgc/ABMA", timeout=WAIT
        )
        assert page.locator("#alert").count() == 0
        assert legal["play"] in page.locator("#log").inner_text()

        driver.until_type("cocked_dice")
        page.wait_for_selector("#alert.cocked", timeout=WAIT)
        assert "roll again" in page.locator("#alert").inner_text()
        page.screenshot(path=str(tmp_path / "cocked.png"), full_page=True)
        driver.until_type("roll")
        page.wait_for_selector("#alert.cocked", state="detached", timeout=WAIT)

        illegal = driver.until_type("verdict", verdict="illegal")
        alert = page.wait_for_selector("#alert.illegal", timeout=WAIT)
        text = alert.inner_text()
        assert illegal["reasons"][0]["message"] in text
        assert illegal["closest_legal"] in text
        for point in illegal["points_differing"]:
            assert "illegal" in page.locator(f"#board #point-{point}").get_attribute("class")
        assert page.locator("#board-caption").count() == 1  # the board as it lies now
        page.screenshot(path=str(tmp_path / "illegal.png"), full_page=True)

        driver.until_type("verdict", verdict="corrected")
        page.wait_for_selector("#alert.corrected", timeout=WAIT)
        assert page.locator("#board .point.illegal").count() == 0
        assert page.locator("#board-caption").count() == 0

        driver.until_type("cube", action="double")
        page.wait_for_function("() => document.querySelector('#cube-text').innerText.includes('double offered')", timeout=WAIT)
        driver.until_type("cube", action="take")
        page.wait_for_selector('#board #cube[data-value="2"]', timeout=WAIT)
        # The "Corrected" notice goes once the next roll is played; the board follows that play.
        driver.until_type("verdict", verdict="in_progress")
        page.wait_for_selector("#board-caption.progress", timeout=WAIT)
        assert page.locator("#alert").count() == 0

        end = driver.until_type("game_end")
        row = page.wait_for_selector("#scoresheet-table tr.game", timeout=WAIT)
        assert row.get_attribute("data-points") == str(end["points"])
        assert f"Ann {end['score'][0]} – {end['score'][1]} Ben" in page.locator("#score").inner_text()
        page.screenshot(path=str(tmp_path / "game_over.png"), full_page=True)
        assert "Game over" in page.locator("#alert").inner_text()

        with page.expect_download() as info:
            page.click("#download-mat")
        download = info.value
        assert download.suggested_filename.endswith(".mat")
        text = pathlib.Path(download.path()).read_text()
        assert " 5 point match" in text
        assert "Ann" in text and "Ben" in text
        assert "Doubles => 2" in text and "Takes" in text and "Drops" in text
    finally:
        context.close()
        server.stop()
    assert errors == []


def test_tournament_mode_shows_the_illegal_play_without_hints(browser):
    driver = DemoDriver(mode="tournament")
    server, context, page, errors = open_dashboard(browser, driver)
    try:
        assert page.locator("#pips").count() == 0
        driver.until_type("roll")
        page.wait_for_selector("#dice .die", timeout=WAIT)
        assert page.locator("#hints").count() == 0
        illegal = driver.until_type("verdict", verdict="illegal")
        alert = page.wait_for_selector("#alert.illegal", timeout=WAIT)
        assert "Illegal play" in alert.inner_text()
        assert illegal["closest_legal"] not in alert.inner_text()
        assert illegal["reasons"][0]["message"] not in page.content()
        assert page.locator("#board .point.hint").count() == 0
        assert page.locator("#board .point.illegal").count() == len(illegal["points_differing"])
    finally:
        context.close()
        server.stop()
    assert errors == []


def test_new_match_on_the_real_session(browser):
    driver = DemoDriver()
    driver.until_type("roll")
    server, context, page, errors = open_dashboard(browser, driver, mode_signed_in=True)
    try:
        page.fill('input[name="player0"]', "Carol")
        page.fill('input[name="player1"]', "Dave")
        page.fill('input[name="match_length"]', "0")
        page.check('input[name="jacoby"]')
        page.click("#new-match-button")
        page.wait_for_selector("#action-result.ok", timeout=WAIT)
        state = driver.session.state()
        assert state["players"] == ["Carol", "Dave"] and state["match_length"] == 0
        page.wait_for_function("() => document.querySelector('#match-length').innerText.includes('money game')", timeout=WAIT)
        assert "opening roll" in page.locator("#waiting").inner_text()
        assert page.locator("#dice").get_attribute("data-dice") == ""
    finally:
        context.close()
        server.stop()
    assert errors == []

"""The teaching panel in headless Chromium: gnubg's ranked plays beside the board.

The real referee session judges the demo game (``web_demo_driver``) with the
analysis service and the real gnubg attached; the page must show the ranked
plays with the play made highlighted, the per-player error rate, gnubg's best
play on the board on request, the cube decision, and "analysis unavailable"
when gnubg is missing. Tournament mode shows no panel at all.
"""

from __future__ import annotations

import pathlib

import pytest

from gnubg_text_hint import GNUBG
from test_web_session_browser import WAIT, open_dashboard
from web_demo_driver import DemoDriver

from companion.analysis.analyst import Analyst
from companion.analysis.engine import GnubgEngine
from companion.analysis.service import AnalysisService
from companion.mat import export_mat

pytestmark = pytest.mark.slow


def _attach(driver: DemoDriver, gnubg: str = GNUBG):
    engine = GnubgEngine(gnubg, timeout_s=30)
    service = AnalysisService(driver.bus, Analyst(engine),
                              teaching=lambda: driver.session.referee.settings.mode == "teaching",
                              match_record=lambda: export_mat(driver.session.referee.match))
    return engine, service


def test_ranked_plays_made_play_and_error_rate_in_the_browser(browser, tmp_path):
    if not pathlib.Path(GNUBG).exists():
        pytest.skip("GNU Backgammon is not installed (.ci/run installs it)")
    driver = DemoDriver(mode="teaching")
    engine, service = _attach(driver)
    server, context, page, errors = open_dashboard(browser, driver)
    try:
        legal = driver.until_type("verdict", verdict="legal")
        made = page.wait_for_selector("#analysis-plays tr.made", timeout=WAIT)
        analysis = next(e for e in driver.events if e["type"] == "analysis")
        a = analysis["analysis"]
        assert legal["play"] in made.inner_text() and "(played)" in made.inner_text()
        assert made.get_attribute("data-rank") == str(a["made_rank"])
        rows = page.locator("#analysis-plays tbody tr")
        assert rows.count() == min(8, len(a["plays"])) + (1 if a["made_rank"] > 8 else 0)
        assert a["plays"][0]["play"] in rows.nth(0).inner_text()
        assert f"{a['plays'][0]['equity']:+.3f}" in rows.nth(0).inner_text()
        summary = page.locator("#analysis-summary").inner_text()
        assert f"rank {a['made_rank']} of {len(a['plays'])}" in summary
        assert f"{analysis['equity_loss']:.3f}" in summary
        rate = page.locator('#error-rates dd[data-player="0"]')
        assert rate.get_attribute("data-error-rate") == f"{1000 * analysis['equity_loss']:.1f}"
        assert "no unforced play yet" in page.locator('#error-rates dd[data-player="1"]').inner_text()

        # gnubg's best play drawn on the board on request
        button = page.locator("#show-best")
        points = button.get_attribute("data-points").split(",")
        assert points and page.locator("#board .point.best-play").count() == 0
        button.click()
        assert page.locator("#board .point.best-play").count() == len(points)
        for p in points:
            assert "best-play" in page.locator(f"#board #point-{p}").get_attribute("class")
        page.screenshot(path=str(tmp_path / "analysis.png"), full_page=True)

        # the double, judged after the cube event
        driver.until_type("cube", action="double")
        page.wait_for_selector("#analysis-cube", timeout=WAIT)
        assert "Ben doubled: gnubg says" in page.locator("#analysis-cube").inner_text()
        assert "gnubg:" in page.locator("#log").inner_text()

        # the game's end: gnubg's review of the match, each worst decision openable
        driver.until_type("game_end")
        assert service.wait_idle(60)
        review = next(e for e in driver.events if e["type"] == "analysis" and e["kind"] == "match")
        page.wait_for_selector("#match-review", timeout=WAIT)
        table = page.locator("#review-table").inner_text()
        for stats in review["analysis"]["stats"]:
            assert stats["rating"] in table
        assert f"{review['analysis']['stats'][0]['overall_rate']:.1f}" in table
        worst = page.locator("#worst-decisions li")
        assert worst.count() == len(review["analysis"]["worst"]) > 0
        first = review["analysis"]["worst"][0]
        assert worst.nth(0).get_attribute("data-position-id") == first["position_id"]
        assert f"companion analyse --position-id {first['position_id']} --match-id {first['match_id']}" \
            in worst.nth(0).inner_text()
        page.screenshot(path=str(tmp_path / "review.png"), full_page=True)
    finally:
        context.close()
        server.stop()
        service.close()
        engine.close()
    assert errors == []


def test_missing_gnubg_says_analysis_unavailable(browser, tmp_path):
    driver = DemoDriver(mode="teaching")
    engine, service = _attach(driver, str(tmp_path / "no-gnubg"))
    server, context, page, errors = open_dashboard(browser, driver)
    try:
        driver.until_type("verdict", verdict="legal")
        note = page.wait_for_selector("#analysis-unavailable", timeout=WAIT)
        assert "GNU Backgammon is not installed" in note.inner_text()
        assert page.locator("#analysis-plays").count() == 0
        assert page.locator("#position-id").inner_text() != "4HPwATDgc/ABMA"  # the referee went on
    finally:
        context.close()
        server.stop()
        service.close()
    assert errors == []


def test_tournament_mode_shows_no_analysis(browser):
    driver = DemoDriver(mode="tournament")
    engine, service = _attach(driver)
    server, context, page, errors = open_dashboard(browser, driver)
    try:
        driver.until_type("verdict", verdict="legal")
        page.wait_for_function(
            "() => document.querySelector('#position-id').innerText !== '4HPwATDgc/ABMA'", timeout=WAIT)
        assert service.wait_idle()
        assert page.locator("#analysis").count() == 0 and engine.starts == 0
    finally:
        context.close()
        server.stop()
        service.close()
        engine.close()
    assert errors == []

"""The analysis service beside the real referee session, with the real gnubg.

The demo game (``web_demo_driver``: legal plays, an illegal play and its
correction, a double and a take, a redouble and a drop) is judged by a real
``Session``; the service listens on its bus. Checked: each analysis comes
after the verdict it follows and equals gnubg's printed ``hint``; tournament
mode starts no gnubg at all; a missing gnubg or one killed mid-game leaves
the verdicts exactly as without the service; the analyses are stored in the
match log's file and the match log still replays.
"""

from __future__ import annotations

import os
import pathlib
import signal

import pytest

from gnubg_text_hint import GNUBG, text_hints, text_match_statistics
from web_demo_driver import DemoDriver

from companion.analysis.analyst import Analyst
from companion.analysis.engine import GnubgEngine
from companion.analysis.service import AnalysisService
from companion.analysis.store import stored_analyses
from companion.mat import export_mat
from companion.match_log import MatchLog


def _need_gnubg() -> None:
    if not pathlib.Path(GNUBG).exists():
        pytest.skip("GNU Backgammon is not installed (.ci/run installs it)")


def _game(mode: str = "teaching", gnubg: str = GNUBG, match_log=None, kill_after: int = 0,
          review: bool = False):
    """Play the demo game with the service attached; returns (events, engine)."""
    driver = DemoDriver(mode=mode, match_log=match_log)
    engine = GnubgEngine(gnubg, timeout_s=30)
    record = (lambda: export_mat(driver.session.referee.match)) if review else None
    service = AnalysisService(driver.bus, Analyst(engine),
                              teaching=lambda: driver.session.referee.settings.mode == "teaching",
                              store_path=match_log, match_record=record)
    try:
        if kill_after:
            driver.until(lambda e: e["type"] == "verdict" and e["verdict"] == "legal")
            assert service.wait_idle()
            os.kill(engine.pid, signal.SIGKILL)
        driver.rest()
        assert service.wait_idle(60)
    finally:
        service.close()
        engine.close()
    return driver.events, engine


def _verdicts(events):
    return [(e["verdict"], e["player"], e["play"], e["position_id_after"]) for e in events
            if e["type"] == "verdict"]


@pytest.mark.slow
def test_every_play_and_cube_decision_is_analysed_after_its_verdict():
    _need_gnubg()
    events, engine = _game()
    analyses = [(i, e) for i, e in enumerate(events) if e["type"] == "analysis"]
    assert engine.starts == 1 and all(e["status"] == "ok" for _, e in analyses)
    judged = [(i, e) for i, e in enumerate(events)
              if e["type"] == "verdict" and e["verdict"] in ("legal", "corrected", "illegal")]
    plays = [(i, e) for i, e in analyses if e["kind"] == "play"]
    assert len(plays) == len(judged) == 7  # 5 legal plays, an illegal one and its correction
    for (vi, verdict), (ai, analysis) in zip(judged, plays):
        assert ai > vi and analysis["verdict_ms"] == verdict["time_ms"]  # the verdict first
        assert analysis["verdict"] == verdict["verdict"] and analysis["player"] == verdict["player"]
        assert analysis["position_id"] == verdict["position_id_before"]
        if verdict["verdict"] == "illegal":
            assert analysis["analysis"]["made"] is None and analysis["equity_loss"] is None
            assert verdict["closest_legal"] in [p["play"] for p in analysis["analysis"]["plays"]]
        else:
            assert analysis["analysis"]["made"] == verdict["play"]
    # the ranked plays are gnubg's own, as it prints them
    printed = text_hints([{"position_id": a["position_id"], "match_id": a["match_id"], "dice": a["dice"]}
                          for _, a in plays])
    for (_, a), text in zip(plays, printed):
        assert [p["play"] for p in a["analysis"]["plays"]] == [t[0] for t in text["plays"]]
        assert [round(p["equity"], 3) for p in a["analysis"]["plays"]] == [t[1] for t in text["plays"]]
        if a["analysis"]["made"] is not None:
            made = [t[0] for t in text["plays"]].index(a["analysis"]["made"])
            assert abs(a["equity_loss"] - (text["plays"][0][1] - text["plays"][made][1])) < 0.0011
    # the cube: double and take, redouble and drop, each judged by its maker
    cube = [(e["decision"], e["player"]) for _, e in analyses if e["kind"] == "cube"]
    assert cube == [("double", 1), ("take", 0), ("double", 0), ("drop", 1)]
    # the running error rate: mEMG per unforced play, from the losses published
    last = plays[-1][1]["error_rates"]
    for player in (0, 1):
        losses = [a["equity_loss"] for _, a in plays if a["player"] == player
                  and a["equity_loss"] is not None and not a["analysis"]["forced"]]
        assert last[player]["plays"] == len(losses)
        assert last[player]["error_rate"] == pytest.approx(1000 * sum(losses) / len(losses))


def test_tournament_mode_runs_no_analysis_at_all():
    _need_gnubg()
    events, engine = _game(mode="tournament")
    assert not [e for e in events if e["type"] == "analysis"]
    assert engine.starts == 0  # gnubg was never started


def test_missing_gnubg_leaves_the_referee_unchanged(tmp_path):
    without = DemoDriver(mode="teaching")
    without.rest()
    events, engine = _game(gnubg=str(tmp_path / "no-gnubg"))
    assert _verdicts(events) == _verdicts(without.events)
    analyses = [e for e in events if e["type"] == "analysis"]
    assert analyses and all(e["status"] == "unavailable" for e in analyses)
    assert "GNU Backgammon is not installed" in analyses[0]["detail"]


def test_gnubg_killed_mid_game_is_restarted_and_nothing_is_lost():
    _need_gnubg()
    without = DemoDriver(mode="teaching")
    without.rest()
    events, engine = _game(kill_after=1)
    assert _verdicts(events) == _verdicts(without.events)
    analyses = [e for e in events if e["type"] == "analysis"]
    assert len(analyses) == 11 and all(e["status"] == "ok" for e in analyses)
    assert engine.starts == 2


def test_analyses_are_stored_with_the_match_log(tmp_path):
    _need_gnubg()
    path = str(tmp_path / "match.sqlite3")
    events, _ = _game(match_log=path)
    published = [e for e in events if e["type"] == "analysis"]
    assert stored_analyses(path) == published
    with MatchLog.open(path) as log:  # the match log itself is intact and replays
        match = log.replay()
    assert match.score == (2, 0)


@pytest.mark.slow
def test_game_end_brings_gnubgs_review_of_the_match(tmp_path):
    _need_gnubg()
    events, _ = _game(review=True)
    end = next(i for i, e in enumerate(events) if e["type"] == "game_end")
    reviews = [(i, e) for i, e in enumerate(events) if e["type"] == "analysis" and e["kind"] == "match"]
    assert len(reviews) == 1 and reviews[0][0] > end
    review = reviews[0][1]
    assert review["status"] == "ok" and review["decision"] == "review"
    # the same figures as gnubg prints for the record of the game
    driver = DemoDriver(mode="teaching")
    driver.rest()
    record = tmp_path / "game.mat"
    record.write_text(export_mat(driver.session.referee.match))
    printed = text_match_statistics(str(record), plies=2)
    for i, stats in enumerate(review["analysis"]["stats"]):
        assert str(stats["unforced_moves"]) == printed[("chequer", "Unforced moves")][i]
        assert f"{-stats['overall_rate']:.1f}" == printed[("overall", "Error rate mEMG")][i]
        assert stats["rating"] == printed[("overall", "Overall rating")][i]
    assert review["analysis"]["worst"][0]["equity_loss"] >= review["analysis"]["worst"][-1]["equity_loss"]


def test_a_new_match_starts_the_error_rates_again():
    _need_gnubg()
    from companion.bus import EventBus
    from companion.events import VerdictEvent
    from companion.legal import legal_plays
    from companion.position import Position

    opening = "4HPwATDgc/ABMA"
    after = next(p.result.position_id() for p in legal_plays(Position.from_position_id(opening), (4, 3))
                 if p.notation() == "13/9 8/5")
    bus = EventBus()
    seen = []
    bus.subscribe(lambda e: seen.append(e.to_dict()) if e.type == "analysis" else None)
    match = [object()]
    with GnubgEngine(GNUBG, timeout_s=30) as engine:
        service = AnalysisService(bus, Analyst(engine), teaching=lambda: True, current_match=lambda: match[0])
        verdict = dict(verdict="legal", player=0, dice=(4, 3), play="13/9 8/5",
                       position_id_before=opening, position_id_after=after)
        bus.publish(VerdictEvent(**verdict))
        bus.publish(VerdictEvent(**verdict))
        assert service.wait_idle()
        match[0] = object()  # a new match from the dashboard
        bus.publish(VerdictEvent(**verdict))
        assert service.wait_idle()
        service.close()
    assert [e["error_rates"][0]["plays"] for e in seen] == [1, 2, 1]
    assert seen[0]["analysis"]["made"] == "13/9 8/5" and seen[0]["label"] == "bad"

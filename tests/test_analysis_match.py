"""``companion match analyse``: gnubg's review of a whole match, against what gnubg prints.

The figures of ``companion match analyse --json`` (error rates of chequer
play, cube and overall, luck rate, rating, unforced moves, cube decisions)
must equal gnubg's own ``show statistics match`` for the same record and
ply (``tests/gnubg_text_hint.py``), for a match and a money session; a match
log gives the same review as the record it was imported from; the analyses
stored during play are summed up without gnubg.
"""

from __future__ import annotations

import json

import pytest

from analysis_cli import need_gnubg, run_companion  # noqa: F401 (need_gnubg: an autouse fixture)
from gnubg_text_hint import text_match_statistics
from web_demo_driver import DemoDriver

from companion.analysis.analyst import Analyst
from companion.analysis.engine import GnubgEngine
from companion.analysis.service import AnalysisService




def _printed(value, decimals: int = 1) -> str:
    return f"{-value:.{decimals}f}" if value else f"-{0:.{decimals}f}"


@pytest.mark.parametrize("name", ["gnubg_export_5pt_match.mat", "gnubg_export_money_session.mat"])
def test_review_equals_gnubg_statistics(capsys, shared_data, name):
    path = shared_data / "rules" / name
    printed = text_match_statistics(str(path), plies=0)
    code, out, _ = run_companion(capsys, "match", "analyse", str(path), "--plies", "0", "--json", "--worst", "50")
    assert code == 0
    review = json.loads(out)
    for i in (0, 1):
        s = review["stats"][i]
        assert str(s["unforced_moves"]) == printed[("chequer", "Unforced moves")][i]
        assert _printed(s["chequer_rate"]) == printed[("chequer", "Error rate mEMG")][i]
        assert str(s["cube_decisions"]) == printed[("cube", "Close or actual cube decisions")][i]
        if s["cube_decisions"]:
            assert _printed(s["cube_rate"]) == printed[("cube", "Error rate mEMG")][i]
            assert _printed(s["cube_error"], 3) == printed[("cube", "Error total EMG")][i]
        assert _printed(s["overall_rate"]) == printed[("overall", "Error rate mEMG")][i]
        assert float(f"{s['luck_rate']:.1f}") == float(printed[("luck", "Luck rate mEMG")][i])
        assert s["rating"] == printed[("overall", "Overall rating")][i]
        # the cube decisions listed add up to gnubg's cube error total
        cube = sum(d["equity_loss"] for d in review["worst"] if d["player"] == i and d["action"] != "move")
        assert cube == pytest.approx(s["cube_error"], abs=1e-6)
    worst = [d["equity_loss"] for d in review["worst"]]
    assert worst == sorted(worst, reverse=True)


def test_each_worst_decision_opens_with_companion_analyse(capsys, shared_data):
    path = shared_data / "rules" / "gnubg_export_5pt_match.mat"
    code, out, _ = run_companion(capsys, "match", "analyse", str(path), "--plies", "0", "--worst", "3")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "gnubg 0-ply review: gnubg vs root, match to 5"
    first = next(i for i, line in enumerate(lines) if line.startswith("  1. "))
    assert "gnubg doubled: gnubg says No double, take; loss 0.356 (very bad)" in lines[first]
    command = lines[first + 1].split()
    assert command[:2] == ["companion", "analyse"]
    code, out, _ = run_companion(capsys, *command[1:], "--plies", "0", "--json")
    cube = json.loads(out)
    assert code == 0 and cube["action"] == "No double, take"
    assert cube["no_double"] - cube["double_take"] == pytest.approx(0.356, abs=0.0006)


def test_match_log_review_equals_the_record_review(capsys, shared_data, tmp_path):
    path = shared_data / "rules" / "gnubg_export_5pt_match.mat"
    log = tmp_path / "match.sqlite3"
    assert run_companion(capsys, "match", "import", str(path), "--log", str(log))[0] == 0
    code, from_log, _ = run_companion(capsys, "match", "analyse", "--log", str(log), "--plies", "0", "--json")
    assert code == 0
    code, from_file, _ = run_companion(capsys, "match", "analyse", str(path), "--plies", "0", "--json")
    assert json.loads(from_log)["stats"] == json.loads(from_file)["stats"]


def test_stored_analyses_are_reviewed_without_gnubg(capsys, tmp_path):
    log = str(tmp_path / "played.sqlite3")
    driver = DemoDriver(mode="teaching", match_log=log)
    with GnubgEngine() as engine:
        service = AnalysisService(driver.bus, Analyst(engine, plies=0), teaching=lambda: True, store_path=log)
        driver.rest()
        assert service.wait_idle(60)
        service.close()
    published = [e for e in driver.events if e["type"] == "analysis"]
    code, out, _ = run_companion(capsys, "match", "analyse", "--log", log, "--stored", "--json",
                        "--gnubg", str(tmp_path / "no-gnubg"))
    summary = json.loads(out)
    assert code == 0 and summary["analyses"] == len(published) == 11
    assert summary["error_rates"] == published[-1]["error_rates"]
    losses = [e["equity_loss"] for e in published if e["equity_loss"]]
    assert [d["equity_loss"] for d in summary["worst"]] == sorted(losses, reverse=True)[:10]


@pytest.mark.parametrize("argv, message", [
    ([], "give either a .mat file or --log LOG"),
    (["x.mat", "--log", "y"], "give either a .mat file or --log LOG"),
    (["x.mat", "--stored"], "--stored reads a match log"),
    (["nowhere.mat"], "nowhere.mat: No such file or directory"),
    (["--log", "nowhere.sqlite3"], "no match log there"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run_companion(capsys, "match", "analyse", *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and message in err


def test_a_record_that_is_not_a_match_is_one_line(capsys, tmp_path):
    bad = tmp_path / "bad.mat"
    bad.write_text("this is not a match record\n")
    code, out, err = run_companion(capsys, "match", "analyse", str(bad))
    assert code == 2 and len(err.strip().splitlines()) == 1 and str(bad) in err


def test_missing_gnubg_is_unavailable(capsys, shared_data, tmp_path):
    path = shared_data / "rules" / "gnubg_export_5pt_match.mat"
    code, out, err = run_companion(capsys, "match", "analyse", str(path), "--gnubg", str(tmp_path / "none"))
    assert code == 1 and err.startswith("companion match analyse: analysis unavailable: GNU Backgammon is not installed")

"""The analysis engine against a real GNU Backgammon that dies, hangs or is missing.

Killed mid-analysis (SIGKILL to the real gnubg while it evaluates at 3-ply):
the engine starts a new gnubg and the answer still comes. Hung (SIGSTOP: a
process that stays alive and never answers): the request fails after the time
limit, the stopped gnubg is killed and reaped, and the next request is answered
by a new one. Missing: every request says why in one sentence.
"""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import pytest

from companion.analysis.analyst import Analyst
from companion.analysis.engine import AnalysisTimeout, AnalysisUnavailable, GnubgEngine

GNUBG = "/usr/games/gnubg"
OPENING = "4HPwATDgc/ABMA"


@pytest.fixture
def engine():
    if not pathlib.Path(GNUBG).exists():
        pytest.skip("GNU Backgammon is not installed (.ci/run installs it)")
    with GnubgEngine(GNUBG, timeout_s=20) as eng:
        yield eng


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_gnubg_killed_mid_analysis_is_restarted_and_the_answer_comes(engine):
    analyst = Analyst(engine, plies=3)  # 3-ply takes about a second: time to kill it mid-way
    Analyst(engine).plays(OPENING, (2, 1))  # starts gnubg
    first = engine.pid
    killer = threading.Timer(0.3, os.kill, (first, signal.SIGKILL))
    killer.start()
    try:
        analysis = analyst.plays(OPENING, (4, 3))
    finally:
        killer.cancel()
    assert not _alive(first)
    assert engine.deaths == 1 and engine.starts == 2
    assert engine.pid not in (None, first)
    assert len(analysis.plays) == 17 and analysis.plays[0].plies == 3
    assert analysis == analyst.plays(OPENING, (4, 3))  # the same as an undisturbed analysis
    assert engine.starts == 2


def test_hung_gnubg_times_out_is_killed_and_replaced(engine):
    Analyst(engine).plays(OPENING, (2, 1))
    hung = engine.pid
    engine.timeout_s = 1.0
    os.kill(hung, signal.SIGSTOP)
    try:
        t0 = time.monotonic()
        with pytest.raises(AnalysisTimeout, match="did not answer within 1 s"):
            Analyst(engine).plays(OPENING, (4, 3))
        assert 1.0 <= time.monotonic() - t0 < 5.0
    finally:
        if _alive(hung):
            os.kill(hung, signal.SIGKILL)
    assert not _alive(hung)  # killed and reaped by the engine
    assert engine.timeouts == 1 and engine.pid is None
    engine.timeout_s = 20
    again = Analyst(engine).plays(OPENING, (4, 3))
    assert again.plays[0].play == "24/21 13/9" and engine.starts == 2


def test_missing_gnubg_is_unavailable_with_one_sentence(tmp_path):
    engine = GnubgEngine(str(tmp_path / "gnubg"))
    with pytest.raises(AnalysisUnavailable, match="GNU Backgammon is not installed"):
        Analyst(engine).plays(OPENING, (4, 3))
    assert engine.starts == 0


def test_gnubg_that_exits_at_once_is_unavailable(tmp_path):
    fake = tmp_path / "gnubg"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    engine = GnubgEngine(str(fake), start_timeout_s=5)
    with pytest.raises(AnalysisUnavailable, match="did not become ready"):
        Analyst(engine).cube(OPENING)


def test_rejected_position_is_a_value_error_and_gnubg_goes_on(engine):
    with pytest.raises(ValueError, match="did not accept position"):
        engine.request({"op": "cube", "position_id": "not-an-id", "match_id": "MAEAAAAAAAAE"})
    assert Analyst(engine).cube(OPENING).action == "No double, take"
    assert engine.starts == 1


def test_cli_says_analysis_unavailable_in_one_line(tmp_path):
    out = subprocess.run([sys.executable, "-m", "companion", "analyse", "--position-id", OPENING,
                          "--dice", "4", "3", "--gnubg", str(tmp_path / "none")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [
        f"companion analyse: analysis unavailable: GNU Backgammon is not installed "
        f"({tmp_path / 'none'} not found; apt-get install gnubg)"]

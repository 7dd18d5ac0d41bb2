"""Agreement of the analysis service with what GNU Backgammon prints.

For seeded random positions and rolls (money games and matches), the ranked
plays, their order, their equities and the ply each was evaluated at, as the
service returns them (gnubg's Python scripting, one long-lived process), must
equal gnubg's own ``hint`` printed through its command interface
(``tests/gnubg_text_hint.py``), to the 3 decimals gnubg prints. The same for
the cube decision before a roll. Size: ``ANALYSIS_GNUBG_N`` positions (default
40; ``benchmarks/bench_analysis.py`` runs 200).
"""

from __future__ import annotations

import os
import pathlib
import re

import pytest

from gnubg_text_hint import GNUBG, random_requests, text_hints

from companion.analysis.analyst import Analyst
from companion.analysis.engine import GnubgEngine

pytestmark = pytest.mark.slow


def _need_gnubg() -> None:
    if not pathlib.Path(GNUBG).exists():
        pytest.skip("GNU Backgammon is not installed (.ci/run installs it)")


def _printed(value: float) -> float:
    return round(value + 0.0, 3)


def test_ranked_plays_equal_gnubg_hint():
    _need_gnubg()
    n = int(os.environ.get("ANALYSIS_GNUBG_N", "40"))
    requests = random_requests(seed=20261125, n=n)
    printed = text_hints(requests)
    with GnubgEngine(timeout_s=60) as engine:
        analyst = Analyst(engine)
        compared = plays_seen = 0
        for req, text in zip(requests, printed):
            ours = analyst.plays(req["position_id"], req["dice"], req["match_id"])
            assert [p.play for p in ours.plays] == [t[0] for t in text["plays"]], req
            for mine, (_, equity, plies) in zip(ours.plays, text["plays"]):
                assert abs(_printed(mine.equity) - equity) <= 1e-9, (req, mine, equity)
                assert mine.plies == plies, (req, mine)
            losses = [p.equity_loss for p in ours.plays]
            assert all(loss >= 0 for loss in losses) and (not losses or losses[0] == 0.0)
            compared += 1
            plays_seen += len(ours.plays)
    assert compared == n and plays_seen > 5 * n  # most rolls have several plays
    assert sum(1 for r in requests if not r["match_id"].startswith("MAE")) > n // 5  # matches too


def test_cube_decisions_equal_gnubg_hint():
    _need_gnubg()
    n = max(10, int(os.environ.get("ANALYSIS_GNUBG_N", "40")) // 2)
    requests = random_requests(seed=20261126, n=n, with_dice=False)
    printed = text_hints(requests)
    compared = doubles = 0
    with GnubgEngine(timeout_s=60) as engine:
        analyst = Analyst(engine)
        for req, text in zip(requests, printed):
            cube = text["cube"]
            if len(cube) < 4:  # gnubg prints no cube analysis where the cube is not available
                continue
            ours = analyst.cube(req["position_id"], req["match_id"])
            for key in ("no_double", "double_take", "double_pass"):
                assert abs(_printed(getattr(ours, key)) - cube[key]) <= 1e-9, (req, key, ours, cube)
            action = re.sub(r"\s*\(.*\)$", "", cube["action"])
            assert ours.action == action, (req, ours.action, cube["action"])
            doubles += ours.should_double
            compared += 1
    assert compared >= n // 2

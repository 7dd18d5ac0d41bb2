"""``companion analyse`` against what GNU Backgammon prints for the same position."""

from __future__ import annotations

import json
import re

import pytest

from analysis_cli import need_gnubg, run_companion  # noqa: F401 (need_gnubg: an autouse fixture)
from gnubg_text_hint import text_hints


OPENING = "4HPwATDgc/ABMA"
MONEY = "MAEAAAAAAAAE"  # money game, centred cube, no Jacoby rule




def test_ranked_plays_json_equal_gnubg_and_the_made_play_is_marked(capsys):
    printed = text_hints([{"position_id": OPENING, "match_id": MONEY, "dice": [4, 3]}])[0]["plays"]
    code, out, _ = run_companion(capsys, "analyse", "--position-id", OPENING, "--dice", "4", "3",
                        "--play", "13/9  8/5", "--json")
    assert code == 0
    answer = json.loads(out)
    assert [p["play"] for p in answer["plays"]] == [t[0] for t in printed]
    assert [round(p["equity"], 3) for p in answer["plays"]] == [t[1] for t in printed]
    rank = [t[0] for t in printed].index("13/9 8/5") + 1
    assert answer["made"] == "13/9 8/5" and answer["made_rank"] == rank
    printed_loss = printed[0][1] - printed[rank - 1][1]
    assert abs(answer["equity_loss"] - printed_loss) < 0.0011
    assert answer["label"] == "bad"  # gnubg: 0.06 <= loss < 0.12
    assert answer["forced"] is False and answer["plies"] == 2


def test_text_output_lists_best_first_and_names_the_made_play(capsys):
    from companion.legal import legal_plays
    from companion.position import Position

    after = next(p.result.position_id() for p in legal_plays(Position.from_position_id(OPENING), (4, 3))
                 if p.notation() == "24/21 13/9")
    code, out, _ = run_companion(capsys, "analyse", "--position-id", OPENING, "--dice", "4", "3", "--after", after)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "gnubg 2-ply, dice 4-3: 17 legal plays"
    assert re.match(r"^\*  1\. 24/21 13/9 +\+0\.00\d  2-ply$", lines[1])
    assert lines[-1].startswith("played: 24/21 13/9 (rank 1, equity loss 0.000")


def test_cube_decision_equals_gnubg(capsys):
    printed = text_hints([{"position_id": "ZxrwQRCMZ/ADEA", "match_id": MONEY, "dice": None}])[0]["cube"]
    code, out, _ = run_companion(capsys, "analyse", "--position-id", "ZxrwQRCMZ/ADEA", "--json")
    assert code == 0
    answer = json.loads(out)
    for key in ("no_double", "double_take", "double_pass"):
        assert round(answer[key], 3) == printed[key]
    assert answer["action"] == "Double, take" == printed["action"]
    assert answer["should_double"] is True and answer["should_take"] is True


def test_match_id_sets_score_and_cube(capsys):
    # 5-point match, 2-1, cube 2 owned by player 1, player 0 on roll: gnubg's printed equities
    code, out, _ = run_companion(capsys, "analyse", "--position-id", OPENING, "--dice", "4", "3",
                        "--match-id", "EYGlACAACAAE", "--json")
    answer = json.loads(out)
    printed = text_hints([{"position_id": OPENING, "match_id": answer["match_id"], "dice": [4, 3]}])
    assert code == 0 and answer["plays"][0]["play"] == printed[0]["plays"][0][0] == "24/20 13/10"
    assert round(answer["plays"][0]["equity"], 3) == printed[0]["plays"][0][1]


@pytest.mark.parametrize("argv, message", [
    (["--position-id", "nonsense", "--dice", "4", "3"], "malformed Position ID"),
    (["--position-id", OPENING, "--dice", "7", "3"], "impossible dice"),
    (["--position-id", OPENING, "--dice", "4", "3", "--play", "13/1"], "is not a legal play of 4-3"),
    (["--position-id", OPENING, "--play", "13/9 8/5"], "--play and --after need --dice"),
    (["--position-id", OPENING, "--match-id", "short"], "malformed Match ID"),
    (["--position-id", OPENING, "--plies", "7"], "--plies is 0 to 4"),
    (["--dice", "4", "3"], "missing --position-id"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run_companion(capsys, "analyse", *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_watch_refuses_a_bad_analysis_depth_in_one_line(repo_root):
    import os
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "companion", "watch", "--no-web", "--keyboard", "off",
                          "--mode", "teaching", "--analysis-plies", "9"], cwd=repo_root,
                         env=dict(os.environ, PYTHONPATH=str(repo_root)), capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == ["companion watch: error: --analysis-plies is 0 to 4, not 9"]


def test_a_board_after_that_no_legal_play_gives_is_said(capsys):
    code, out, _ = run_companion(capsys, "analyse", "--position-id", OPENING, "--dice", "4", "3", "--after", OPENING)
    assert code == 0
    assert out.splitlines()[-1] == f"played: {OPENING} is not the result of a legal play of this roll"
    assert "*" not in "".join(line[:1] for line in out.splitlines())

"""``companion legal-plays`` and ``companion check`` as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from companion.position import Position

START = "4HPwATDgc/ABMA"


def run(repo_root, *args, stdin=None):
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=repo_root, env=env,
                          input=stdin, capture_output=True, text=True, timeout=60)


def test_legal_plays_json_contract(repo_root):
    out = run(repo_root, "legal-plays", "--position-id", START, "--dice", "3", "1", "--json")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["position_id"] == START and answer["dice"] == [3, 1]
    assert len(answer["plays"]) == 16
    by_play = {p["play"]: p["position_id"] for p in answer["plays"]}
    # 8/5 6/5 makes the 5-point: two on 5, four on 6, two on 8
    made = Position.from_position_id(by_play["8/5 6/5"])
    assert (made.mover[5], made.mover[6], made.mover[8]) == (2, 4, 2)
    assert len(set(by_play.values())) == 16


def test_legal_plays_text_and_dance(repo_root):
    out = run(repo_root, "legal-plays", "--position-id", START, "--dice", "6", "6")
    assert out.returncode == 0
    assert "24/18(2) 13/7(2)" in out.stdout.split()  or "24/18(2) 13/7(2)" in out.stdout
    closed = Position.from_signed([0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -3, 6, 0, 0, 0, 0, 0,
                                   -2, -2, -2, -2, -2, -2, 1])
    out = run(repo_root, "legal-plays", "--position-id", closed.position_id(), "--dice", "6", "4",
              "--json")
    assert json.loads(out.stdout)["plays"] == []


def test_check_json_contract(repo_root):
    after = Position.from_position_id(START)
    from companion.play import Play

    legal = Play.from_notation("8/5 6/5").apply_unchecked(after).position_id()
    out = run(repo_root, "check", "--position-id", START, "--dice", "3", "1", "--after", legal,
              "--json")
    assert json.loads(out.stdout) == {"verdict": "legal", "play": "8/5 6/5", "reasons": [],
                                      "closest_legal": None}
    wrong = Play.from_notation("13/9").apply_unchecked(after).position_id()  # that is 4 = 3+1
    assert json.loads(run(repo_root, "check", "--position-id", START, "--dice", "3", "1",
                          "--after", wrong, "--json").stdout)["verdict"] == "legal"
    bad = Play.from_notation("13/8").apply_unchecked(after).position_id()
    answer = json.loads(run(repo_root, "check", "--position-id", START, "--dice", "3", "1",
                            "--after", bad, "--json").stdout)
    assert answer["verdict"] == "illegal"
    assert [r["code"] for r in answer["reasons"]] == ["wrong_distance"]
    assert answer["closest_legal"]
    half = Play.from_notation("8/5").apply_unchecked(after).position_id()
    answer = json.loads(run(repo_root, "check", "--position-id", START, "--dice", "3", "1",
                            "--after", half, "--json").stdout)
    assert answer["verdict"] == "in_progress" and answer["play"] == "8/5"
    text = run(repo_root, "check", "--position-id", START, "--dice", "3", "1", "--after", bad)
    assert text.stdout.startswith("illegal") and "[wrong_distance]" in text.stdout


@pytest.mark.parametrize("args, words", [
    (["legal-plays", "--position-id", "4HPwATDgc/ABM", "--dice", "3", "1"], "14 characters"),
    (["legal-plays", "--position-id", "4HPwATDgc/AB!A", "--dice", "3", "1"], "'!'"),
    (["legal-plays", "--position-id", START, "--dice", "3", "7"], "1..6"),
    (["legal-plays", "--position-id", START, "--dice", "3", "x"], "1..6"),
    (["legal-plays", "--dice", "3", "1"], "--position-id"),
    (["check", "--position-id", START, "--dice", "3", "1"], "--after"),
    (["check", "--position-id", START, "--dice", "3", "1", "--after", "nope"], "--after"),
])
def test_bad_input_is_one_line_and_non_zero(repo_root, args, words):
    out = run(repo_root, *args)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr
    assert words in lines[0]


def test_impossible_position_is_a_user_error(repo_root):
    from companion.position_id import encode_position_id

    fourteen = encode_position_id((0,) * 5 + (4, 0, 3) + (0,) * 4 + (5,) + (0,) * 10 + (2, 0),
                                  (0,) * 5 + (5, 0, 3) + (0,) * 4 + (5,) + (0,) * 10 + (2, 0))
    out = run(repo_root, "legal-plays", "--position-id", fourteen, "--dice", "3", "1")
    # 14 checkers on the board for the opponent means one is borne off: valid
    assert out.returncode == 0
    game_over = encode_position_id((0,) * 25, (0,) * 5 + (5, 0, 3) + (0,) * 4 + (5,) + (0,) * 10
                                   + (2, 0))
    out = run(repo_root, "legal-plays", "--position-id", game_over, "--dice", "3", "1")
    assert out.returncode == 2 and "game is over" in out.stderr


def test_batch_mode_answers_every_line(repo_root):
    lines = [
        json.dumps({"position_id": START, "dice": [3, 1]}),
        "this is not json",
        json.dumps({"position_id": START, "dice": [0, 1]}),
        json.dumps({"position_id": "short", "dice": [3, 1]}),
        json.dumps({"position_id": START, "dice": [6, 6]}),
    ]
    out = run(repo_root, "legal-plays", "--batch", stdin="\n".join(lines) + "\n")
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(answers) == 5
    assert len(answers[0]["plays"]) == 16 and len(answers[4]["plays"]) == 11
    assert all("error" in a for a in answers[1:4])
    assert "line 2" in answers[1]["error"] and "line 3" in answers[2]["error"]
    assert out.returncode == 1  # some lines failed
    checks = [json.dumps({"position_id": START, "dice": [3, 1], "after": START}),
              json.dumps({"position_id": START, "dice": [3, 1], "after": START, "complete": True})]
    out = run(repo_root, "check", "--batch", stdin="\n".join(checks) + "\n")
    kinds = [json.loads(line)["verdict"] for line in out.stdout.splitlines()]
    assert kinds == ["no_change", "illegal"] and out.returncode == 0

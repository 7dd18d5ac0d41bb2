"""``companion match import|show|export`` through the real command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def _run(repo_root, *args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    return subprocess.run([sys.executable, "-m", "companion", "match", *map(str, args)],
                          cwd=cwd or repo_root, env=env, capture_output=True, text=True, timeout=120)


def test_import_json(repo_root, shared_data):
    proc = _run(repo_root, "import", shared_data / "rules" / "gnubg_export_5pt_match.mat", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["match_length"] == 5
    assert data["final_score"] == [6, 4]
    assert data["players"] == ["gnubg", "root"]
    assert [g["number"] for g in data["games"]] == [1, 2, 3, 4, 5]
    assert [g["crawford"] for g in data["games"]] == [False, False, True, False, False]
    assert [(g["winner"], g["points"], g["cube"]) for g in data["games"]] == [
        (0, 2, 2), (1, 4, 2), (0, 1, 1), (0, 1, 1), (0, 2, 1)]


def test_import_export_log_show_export(repo_root, shared_data, tmp_path):
    out = tmp_path / "ours.mat"
    log = tmp_path / "match.sqlite3"
    proc = _run(repo_root, "import", shared_data / "rules" / "gnubg_export_5pt_match.mat",
                "--export", out, "--log", log)
    assert proc.returncode == 0, proc.stderr
    assert "score: gnubg 6, root 4" in proc.stdout and "(Crawford)" in proc.stdout
    again = _run(repo_root, "import", out, "--json")
    assert json.loads(again.stdout)["final_score"] == [6, 4]
    shown = _run(repo_root, "show", "--log", log, "--json")
    assert shown.returncode == 0, shown.stderr
    state = json.loads(shown.stdout)
    assert state["score"] == [6, 4] and state["over"] and state["winner"] == 0
    assert state["match_id"] == "cAqgAGAAIAAE" and state["position_id"] == "AAAA7t8AIQAAAA"
    exported = _run(repo_root, "export", "--log", log)
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout == out.read_text()
    text = _run(repo_root, "show", "--log", log)
    assert "match over: gnubg wins" in text.stdout


def test_bad_input_one_line_errors(repo_root, shared_data, tmp_path):
    bad = tmp_path / "bad.mat"
    text = (shared_data / "rules" / "gnubg_export_5pt_match.mat").read_text()
    bad.write_text(text.replace(" 9) 41: 25/21 22/21", " 9) 41: 25/21 22/20"))
    garbage = tmp_path / "garbage.mat"
    garbage.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00garbage")
    notlog = tmp_path / "notlog.sqlite3"
    notlog.write_text("hello")
    cases = [
        (("import", bad), "game 5, move 9"),
        (("import", garbage), "not a .mat"),
        (("import", tmp_path / "missing.mat"), "No such file"),
        (("show", "--log", tmp_path / "missing.sqlite3"), "no match log"),
        (("show", "--log", notlog), "match log"),
        (("export", "--log", notlog), "match log"),
    ]
    for args, expected in cases:
        proc = _run(repo_root, *args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0], (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_log_refuses_to_overwrite(repo_root, shared_data, tmp_path):
    log = tmp_path / "m.sqlite3"
    mat = shared_data / "rules" / "gnubg_export_5pt_match.mat"
    assert _run(repo_root, "import", mat, "--log", log).returncode == 0
    proc = _run(repo_root, "import", mat, "--log", log)
    assert proc.returncode == 2 and "already exists" in proc.stderr

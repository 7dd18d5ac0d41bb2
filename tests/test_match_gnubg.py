"""Differential test against real GNU Backgammon.

gnubg plays matches and money sessions against itself (0-ply, for speed) and
exports them as .mat; we import every record through our rules and must reach
gnubg's final score and game results; gnubg then imports our re-export and must
find the same score and the same plays. Our own random money sessions with
beavers and the Jacoby rule go the other way (exported by us, read by gnubg).
Everything is generated in the test: nothing is cached in the repository.
"""

from __future__ import annotations

import json
import os
import pathlib
import random
import shutil
import subprocess
import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest

from companion.mat import export_mat, import_mat
from companion.match import Match, MatchRules
from match_driver import random_step

GNUBG = "/usr/games/gnubg"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (os.path.exists(GNUBG) or shutil.which("gnubg")), reason="gnubg not installed"),
]

MATCH_LENGTHS = [1, 2, 3, 4, 5, 7, 9, 3, 5, 7, 2, 4, 5, 3, 1, 7, 5, 3, 2, 11]
MONEY_SESSIONS = [  # (jacoby, beavers, games)
    (True, 3, 6),
    (False, 0, 5),
    (True, 1, 5),
]

DRIVER = textwrap.dedent(r'''
    import gnubg, json, os

    def summary():
        m = gnubg.match(analysis=0, boards=1, statistics=0, verbose=0)
        games = []
        final = [0, 0]
        for g in m["games"]:
            info = g["info"]
            score = [info["score-X"], info["score-O"]]
            actions = []
            for a in g["game"]:
                entry = [a.get("player"), a.get("action")]
                if "dice" in a:
                    entry.append(sorted(a["dice"]))
                if "move" in a:
                    entry.append(sorted([list(x) for x in a["move"]]))
                actions.append(entry)
            winner = {"X": 0, "O": 1}.get(info.get("winner"))
            points = info.get("points-won", 0)
            final = list(score)
            if winner is not None:
                final[winner] += points
            boards = [a["board"] for a in g["game"] if "board" in a]
            games.append({"score": score, "winner": winner, "points": points, "actions": actions,
                          "boards": boards})
        return {"final_score": final, "games": games, "length": m["match-info"]["match-length"]}

    jobs = json.load(open(os.environ["MATCH_JOBS"]))
    out = []
    gnubg.command("set confirm new off")
    for p in (0, 1):
        gnubg.command("set player %d gnubg" % p)
        gnubg.command("set player %d chequerplay evaluation plies 0" % p)
        gnubg.command("set player %d cubedecision evaluation plies 0" % p)
    for job in jobs:
        gnubg.command("set jacoby %s" % ("on" if job.get("jacoby") else "off"))
        gnubg.command("set beavers %d" % job.get("beavers", 0))
        if job["mode"] == "generate":
            gnubg.command("set seed %d" % job["seed"])
            if job["length"]:
                gnubg.command("set automatic game on")
                gnubg.command("new match %d" % job["length"])
            else:
                gnubg.command("set automatic game off")
                gnubg.command("new session")
                for _ in range(job["games"] - 1):
                    gnubg.command("new game")
            gnubg.command("export match mat " + job["file"])
        else:
            gnubg.command("import mat " + job["file"])
        s = summary()
        s["file"] = job["file"]
        out.append(s)
    json.dump(out, open(os.environ["MATCH_OUT"], "w"))
''')


def _run_gnubg(tmp: pathlib.Path, jobs: list[dict], workers: int = 4) -> dict[str, dict]:
    """Run the jobs in ``workers`` gnubg processes; returns the summaries by file."""
    driver = tmp / "driver.py"
    driver.write_text(DRIVER)
    chunks = [jobs[i::workers] for i in range(workers) if jobs[i::workers]]

    def run(index: int) -> list[dict]:
        jobs_file = tmp / f"jobs{index}_{len(jobs)}.json"
        out_file = tmp / f"out{index}_{len(jobs)}.json"
        jobs_file.write_text(json.dumps(chunks[index]))
        env = dict(os.environ, MATCH_JOBS=str(jobs_file), MATCH_OUT=str(out_file))
        proc = subprocess.run([GNUBG, "-t", "-q", "-r", "-p", str(driver)], env=env, cwd=tmp,
                              capture_output=True, text=True, timeout=600)
        assert out_file.exists(), proc.stdout[-2000:] + proc.stderr[-2000:]
        return json.loads(out_file.read_text())

    with ThreadPoolExecutor(len(chunks)) as pool:
        results = [s for part in pool.map(run, range(len(chunks))) for s in part]
    return {s["file"]: s for s in results}


@pytest.fixture(scope="module")
def gnubg_records(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gnubg")
    jobs = []
    for i, length in enumerate(MATCH_LENGTHS):
        jobs.append({"mode": "generate", "file": str(tmp / f"match{i:02d}_{length}pt.mat"),
                     "length": length, "seed": 1000 + i})
    for i, (jacoby, beavers, games) in enumerate(MONEY_SESSIONS):
        jobs.append({"mode": "generate", "file": str(tmp / f"money{i}.mat"), "length": 0,
                     "seed": 2000 + i, "jacoby": jacoby, "beavers": beavers, "games": games})
    return tmp, jobs, _run_gnubg(tmp, jobs)


def test_we_import_every_gnubg_record(gnubg_records):
    _tmp, jobs, summaries = gnubg_records
    assert len(summaries) == len(MATCH_LENGTHS) + len(MONEY_SESSIONS)
    lengths = set()
    for job in jobs:
        gnubg = summaries[job["file"]]
        text = pathlib.Path(job["file"]).read_text()
        result = import_mat(text)
        match = result.match
        assert list(match.score) == gnubg["final_score"], job["file"]
        assert [(g.winner, g.points) for g in match.games] == [
            (g["winner"], g["points"]) for g in gnubg["games"]], job["file"]
        # every checker play and double replayed from the position gnubg had
        # (gnubg's Position ID before each move and double, in order)
        for ours, theirs in zip(match_games_actions(match), gnubg["games"]):
            moves = sum(1 for a in theirs["actions"] if a[1] == "move")
            assert ours["plays"] == moves, job["file"]
            assert ours["boards"] == theirs["boards"], job["file"]
        if job["length"]:
            assert match.over, job["file"]
        lengths.add(job["length"])
    assert len(lengths) >= 8


def match_games_actions(match: Match) -> list[dict]:
    """Per game: how many plays we replayed, and our Position ID before each
    play and double (the view of the player acting)."""
    out: list[dict] = []
    replay = Match.from_config(match.config())
    current = None
    for action in match.actions:
        if action["type"] == "opening_roll" and replay.phase in ("opening_roll", "game_over") and (
                current is None or replay.phase == "game_over"):
            current = {"plays": 0, "boards": []}
            out.append(current)
        if action["type"] == "play":
            current["plays"] += 1
        if action["type"] in ("play", "double"):
            current["boards"].append(replay.position_id())
        replay.apply(action)
    return out


def test_gnubg_reads_our_export_with_same_score_and_plays(gnubg_records):
    tmp, jobs, summaries = gnubg_records
    read_jobs = []
    for job in jobs:
        result = import_mat(pathlib.Path(job["file"]).read_text())
        ours = tmp / ("ours_" + pathlib.Path(job["file"]).name)
        ours.write_text(export_mat(result.match))
        read_jobs.append({"mode": "read", "file": str(ours), "jacoby": job.get("jacoby", False),
                          "beavers": job.get("beavers", 0), "original": job["file"]})
        read_jobs.append({"mode": "read", "file": job["file"], "jacoby": job.get("jacoby", False),
                          "beavers": job.get("beavers", 0), "original": job["file"]})
    read = _run_gnubg(tmp, read_jobs)
    for job in read_jobs[::2]:
        ours, original = read[job["file"]], read[job["original"]]
        assert ours["final_score"] == summaries[job["original"]]["final_score"], job["file"]
        assert ours["final_score"] == original["final_score"], job["file"]
        assert [g["actions"] for g in ours["games"]] == [g["actions"] for g in original["games"]], job["file"]


def _random_money_session(seed: int, rules: MatchRules, games: int) -> Match:
    rng = random.Random(seed)
    match = Match(0, players=("Alice", "Bob"), rules=rules)
    while len(match.games) < games:
        random_step(match, rng, double=0.1, beaver=0.4, take=0.9)
    return match


def test_gnubg_reads_our_money_sessions_with_beavers_and_jacoby(tmp_path):
    jobs, ours = [], {}
    for i, (jacoby, beavers) in enumerate([(True, 1), (True, 3), (False, 2)]):
        rules = MatchRules(jacoby=jacoby, beavers=beavers)
        match = _random_money_session(300 + i, rules, games=6)
        path = tmp_path / f"session{i}.mat"
        text = export_mat(match)
        path.write_text(text)
        assert "Beavers =>" in text
        ours[str(path)] = match
        jobs.append({"mode": "read", "file": str(path), "jacoby": jacoby, "beavers": beavers})
    read = _run_gnubg(tmp_path, jobs, workers=3)
    for file, match in ours.items():
        assert read[file]["final_score"] == list(match.score), file
        assert [(g["winner"], g["points"]) for g in read[file]["games"]] == [
            (g.winner, g.points) for g in match.games], file

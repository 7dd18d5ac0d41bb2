"""The SQLite match log: append, replay, corruption reports, and SIGKILL-and-resume."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from companion.match import Match, MatchError, MatchRules
from companion.match_log import LoggedMatch, MatchLog, MatchLogError

CONFIG = Match(5, players=("Ann", "Ben"), rules=MatchRules()).config()


def _play_some(match: Match) -> None:
    match.opening_roll((3, 1))
    match.play("8/5 6/5")
    match.double(1)
    match.take(0)
    match.roll((6, 4))
    match.play("24/18 18/14")


def test_logged_match_persists_every_action(tmp_path):
    path = tmp_path / "m.sqlite3"
    match = LoggedMatch.open(path, CONFIG)
    _play_some(match)
    assert len(match.log) == 6
    with pytest.raises(MatchError):
        match.double(1)  # not his turn, and the opponent owns the cube: not logged
    assert len(match.log) == 6
    state = (match.match_id(), match.position_id(), match.score, match.phase)
    match.log.close()
    resumed = LoggedMatch.open(path)
    assert (resumed.match_id(), resumed.position_id(), resumed.score, resumed.phase) == state
    assert resumed.actions == match.actions
    resumed.undo()
    assert len(resumed.log) == 7 and resumed.phase == "play"
    resumed.log.close()
    again = LoggedMatch.open(path, CONFIG)
    assert again.phase == "play" and again.dice == (6, 4)
    again.log.close()


def test_log_is_wal_and_one_row_per_event(tmp_path):
    path = tmp_path / "m.sqlite3"
    match = LoggedMatch.open(path, CONFIG)
    _play_some(match)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    rows = conn.execute("SELECT seq, kind FROM events ORDER BY seq").fetchall()
    assert rows == [(1, "opening_roll"), (2, "play"), (3, "double"), (4, "take"), (5, "roll"), (6, "play")]
    conn.close()
    records = list(match.log.records())
    assert records[3].result["match_id"] and records[3].action == {"type": "take", "player": 0}
    match.log.close()


def test_game_end_is_logged_as_its_own_event(tmp_path):
    path = tmp_path / "m.sqlite3"
    match = LoggedMatch.open(path, CONFIG)
    match.opening_roll((3, 1))
    match.play("8/5 6/5")
    match.double(1)
    match.drop(0)
    records = list(match.log.records())
    assert [r.action["type"] for r in records[-2:]] == ["drop", "game_end"]
    end = records[-1].action
    assert (end["winner"], end["points"], end["kind"], end["score"]) == (1, 1, "drop", [0, 1])
    assert match.log.games_ended() == [records[-1].result["game_end"]]
    assert match.log.actions() == match.actions
    match.log.close()
    # the process dies between the action and its game end: the resume completes it
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM events WHERE seq = (SELECT MAX(seq) FROM events)")
    conn.commit()
    conn.close()
    resumed = LoggedMatch.open(path)
    assert resumed.score == (0, 1) and resumed.phase == "game_over"
    assert [r.action["type"] for r in resumed.log.records()][-2:] == ["drop", "game_end"]
    resumed.opening_roll((6, 5))
    resumed.log.close()
    # a game end missing in the middle of the log is corruption
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM events WHERE kind = 'game_end'")
    conn.execute("UPDATE events SET seq = seq - 1 WHERE seq > 5")
    conn.commit()
    conn.close()
    with pytest.raises(MatchLogError):
        LoggedMatch.open(path)


def test_other_config_refused(tmp_path):
    path = tmp_path / "m.sqlite3"
    LoggedMatch.open(path, CONFIG).log.close()
    with pytest.raises(MatchLogError, match="different match"):
        LoggedMatch.open(path, Match(7).config())
    with pytest.raises(MatchLogError, match="already exists"):
        MatchLog.create(path, CONFIG)
    with pytest.raises(MatchLogError, match="no match log"):
        LoggedMatch.open(tmp_path / "none.sqlite3")


def _logged(tmp_path):
    path = tmp_path / "m.sqlite3"
    match = LoggedMatch.open(path, CONFIG)
    _play_some(match)
    match.log.close()
    return path


def test_tampered_row_is_reported(tmp_path):
    path = _logged(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("""UPDATE events SET action = '{"player":1,"type":"take"}' WHERE seq = 4""")
    conn.commit()
    conn.close()
    with pytest.raises(MatchLogError, match="event 4 is corrupt"):
        MatchLog.open(path)


def test_missing_row_is_reported(tmp_path):
    path = _logged(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM events WHERE seq = 3")
    conn.commit()
    conn.close()
    with pytest.raises(MatchLogError, match="event 3 is missing"):
        MatchLog.open(path)


def test_result_that_does_not_replay_is_reported(tmp_path):
    path = _logged(tmp_path)
    log = MatchLog.open(path)
    # a row whose checksum is right but whose stored result is not what replay gives
    log.append({"type": "double", "player": 1}, {"match_id": "AAAAAAAAAAAA", "position_id": "x",
                                                  "game_end": None})
    with pytest.raises(MatchLogError, match="event 7"):
        log.replay()
    log.close()


@pytest.mark.parametrize("damage", ["garbage", "truncate", "empty", "zero_page"])
def test_damaged_file_is_reported(tmp_path, damage):
    path = _logged(tmp_path)
    # fold the WAL into the main file so that damaging the file damages the data
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"this is not a database at all" * 100)
    elif damage == "truncate":
        path.write_bytes(data[: len(data) // 2 + 100])
    elif damage == "empty":
        path.write_bytes(b"")
    else:
        page = 4096 if len(data) >= 3 * 4096 else len(data) // 3
        path.write_bytes(data[:page] + b"\xff" * page + data[2 * page:])
    with pytest.raises(MatchLogError):
        LoggedMatch.open(path)


CHILD = textwrap.dedent(r'''
    import random, sys
    sys.path.insert(0, sys.argv[1])
    sys.path.insert(0, sys.argv[1] + "/tests")
    from companion.match_log import LoggedMatch
    from match_driver import random_step

    def step(m, rng):
        return random_step(m, rng, double=0.1, resign=0.01, take=0.7, undo=0.02)

    path, seed = sys.argv[2], int(sys.argv[3])
    m = LoggedMatch.open(path, {"length": 5, "players": ["Ann", "Ben"], "rules": {}})
    print("resumed", len(m.log), m.match_id(), flush=True)
    while not m.over:
        step(m, random.Random(f"{seed}:{len(m.log)}"))
        print("ack", len(m.log), flush=True)
    print("done", len(m.log), m.match_id(), m.position_id(), flush=True)
''')


def _child(tmp_path, repo_root, log, seed):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    return subprocess.Popen([sys.executable, str(script), str(repo_root), str(log), str(seed)],
                            stdout=subprocess.PIPE, text=True)


def test_sigkill_at_random_events_resumes_identically(tmp_path, repo_root):
    seed = 20261121
    reference = tmp_path / "reference.sqlite3"
    proc = _child(tmp_path, repo_root, reference, seed)
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    done = out.strip().splitlines()[-1].split()
    ref_log = MatchLog.open(reference)
    ref_actions = ref_log.actions()
    ref_rows = len(ref_log)
    ref_log.close()
    assert done[0] == "done" and int(done[1]) == ref_rows > len(ref_actions) > 50

    rng = random.Random(7)
    path = tmp_path / "killed.sqlite3"
    kills = 0
    acked = 0
    for _ in range(60):
        proc = _child(tmp_path, repo_root, path, seed)
        first = proc.stdout.readline().split()
        assert first[0] == "resumed"
        assert int(first[1]) >= acked  # nothing acknowledged was lost
        target = int(first[1]) + rng.randint(1, max(2, len(ref_actions) // 6))
        finished = False
        for line in proc.stdout:
            words = line.split()
            if words[0] == "ack":
                acked = int(words[1])
                if acked >= target:
                    proc.send_signal(signal.SIGKILL)
                    kills += 1
                    break
            if words[0] == "done":
                finished = True
                break
        proc.wait(timeout=60)
        proc.stdout.close()
        if finished:
            break
    assert finished and kills >= 3
    log = MatchLog.open(path)
    assert log.actions() == ref_actions and len(log) == ref_rows
    resumed = log.replay()
    log.close()
    assert (resumed.match_id(), resumed.position_id()) == (done[2], done[3])
    assert resumed.over


def test_sigkill_mid_write_keeps_a_readable_log(tmp_path, repo_root):
    """Kill without waiting for an acknowledgement (possibly inside a transaction)."""
    path = tmp_path / "m.sqlite3"
    rng = random.Random(3)
    for _ in range(5):
        proc = _child(tmp_path, repo_root, path, 99)
        proc.stdout.readline()
        os.kill(proc.pid, 0)
        import time

        time.sleep(rng.uniform(0.01, 0.15))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        proc.stdout.close()
        log = MatchLog.open(path)  # raises if the kill left it corrupt
        log.replay()
        log.close()

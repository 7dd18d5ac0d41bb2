"""Differential test against the real GNU Backgammon: for seeded random positions
and rolls (weighted towards the bar, closed boards, primes, bear-offs and doubles)
the set of resulting positions of ``legal_plays`` must equal gnubg's ``hint`` list,
and each play must be written exactly as gnubg writes it.

Size: ``RULES_GNUBG_N`` positions (default 10,000), spread over
``RULES_GNUBG_PROCS`` gnubg processes (default 8: each ``hint`` call sleeps about
10 ms, so processes overlap well even on two cores).
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import subprocess
import sys

import pytest

from companion.legal import legal_plays
from companion.sampling import KINDS, sample

GNUBG = pathlib.Path("/usr/games/gnubg")
WORKER = pathlib.Path(__file__).with_name("rules_gnubg_worker.py")


def _run_gnubg(requests: list[dict], procs: int, tmp_path: pathlib.Path) -> dict:
    shards = [requests[i::procs] for i in range(procs)]
    running = []
    for i, shard in enumerate(shards):
        src = tmp_path / f"in{i}.jsonl"
        dst = tmp_path / f"out{i}.jsonl"
        src.write_text("".join(json.dumps(r) + "\n" for r in shard))
        env = dict(os.environ, RULES_GNUBG_IN=str(src), RULES_GNUBG_OUT=str(dst))
        proc = subprocess.Popen([str(GNUBG), "-t", "-q", "-r", "-p", str(WORKER)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
        running.append((proc, dst))
    answers = {}
    for proc, dst in running:
        _, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, err.decode(errors="replace")[-2000:]
        for line in dst.read_text().splitlines():
            row = json.loads(line)
            answers[(row["position_id"], tuple(row.get("dice", ())))] = row
    return answers


@pytest.mark.slow
def test_legal_plays_equal_gnubg_hint(tmp_path):
    if not GNUBG.exists():
        pytest.skip("GNU Backgammon is not installed (.ci/run installs it)")
    n = int(os.environ.get("RULES_GNUBG_N", "10000"))
    procs = int(os.environ.get("RULES_GNUBG_PROCS", "8"))
    requests = []
    seen = set()
    for pos, dice in sample(seed=20261121, n=2 * n, doubles_weight=0.3):
        req = (pos.position_id(), (dice.d1, dice.d2))
        if req not in seen:
            seen.add(req)
            requests.append({"position_id": req[0], "dice": list(req[1])})
            if len(requests) == n:
                break
    assert len(requests) == n  # n distinct (position, roll) pairs
    answers = _run_gnubg(requests, procs, tmp_path)
    assert len(answers) == len(requests)

    differences = []
    notation_differences = []
    notations: dict = {}  # one memo for the whole run, as in a batch
    stats = collections.Counter()
    for i, req in enumerate(requests):
        pid, dice = req["position_id"], tuple(req["dice"])
        row = answers[(pid, dice)]
        assert "error" not in row, row
        from companion.position import Position

        ours = legal_plays(Position.from_position_id(pid), dice)
        our_ids = sorted(p.result.position_id() for p in ours)
        gnubg_ids = sorted(row["results"])
        assert len(set(gnubg_ids)) == len(gnubg_ids), row  # gnubg lists each position once
        if our_ids != gnubg_ids:
            differences.append({"position_id": pid, "dice": dice, "ours": our_ids,
                                "gnubg": gnubg_ids, "gnubg_moves": row["moves"]})
        else:
            # same notation as gnubg for each resulting position, from the plays and
            # from the listing that ``legal-plays --batch --json`` writes
            ours_text = {p.result.position_id(): p.notation() for p in ours}
            listing = ours.listing(notations)
            assert listing == sorted((text, result) for result, text in ours_text.items())
            for result_id, move in zip(row["results"], row["moves"]):
                stats["plays"] += 1
                if ours_text[result_id] != move:
                    notation_differences.append((pid, dice, move, ours_text[result_id]))
        stats["doubles" if dice[0] == dice[1] else "non-doubles"] += 1
        stats["no legal play" if not ours else f"{ours.max_moves} checker moves"] += 1
        pos = Position.from_position_id(pid)
        if pos.bar()[0]:
            stats["mover on the bar"] += 1
        if pos.all_home():
            stats["bearing off"] += 1
        if ours and ours.max_moves == 1 and dice[0] != dice[1]:
            stats["one die only"] += 1
    print(f"\ngnubg differential: {len(requests)} positions, {len(differences)} differences;",
          dict(sorted(stats.items())), file=sys.stderr)
    assert not differences, json.dumps(differences[:5], indent=1)
    assert not notation_differences, notation_differences[:10]
    # the sample really covers the hard parts
    assert stats["mover on the bar"] > len(requests) // 10
    assert stats["bearing off"] > len(requests) // 20
    assert stats["one die only"] > len(requests) // 50
    assert stats["no legal play"] > len(requests) // 50
    assert set(KINDS) == {"playout", "scatter", "bearoff", "bar_closed", "prime"}

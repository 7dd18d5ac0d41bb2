"""The perft file: legal-play counts per roll counted by gnubg (tests/data/rules_perft.json)."""

from __future__ import annotations

import json

from companion.dice import Dice
from companion.legal import legal_plays
from companion.position import Position


def test_counts_match_the_perft_file(repo_root):
    data = json.loads((repo_root / "tests" / "data" / "rules_perft.json").read_text())
    checked = 0
    wrong = []
    for row in data["positions"]:
        pos = Position.from_position_id(row["position_id"])
        assert len(row["counts"]) == 21
        for roll, count in row["counts"].items():
            got = len(legal_plays(pos, Dice(int(roll[0]), int(roll[1]))))
            if got != count:
                wrong.append((row["position_id"], roll, got, count))
            checked += 1
    assert not wrong, wrong[:10]
    assert checked >= 2500
    # the starting position, as every backgammon program counts it
    opening = data["positions"][0]
    assert opening["position_id"] == "4HPwATDgc/ABMA"
    assert opening["counts"]["31"] == 16 and opening["counts"]["66"] == 11

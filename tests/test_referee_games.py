"""Twenty seeded games from start to finish, seen as a camera would report them
(hands over the board, misread frames, cocked rolls, illegal plays and their
corrections, doubles, takes and drops): the referee's judged events equal the
ground truth from the rules and the match, with no false accusation."""

from __future__ import annotations

import collections

import pytest

from companion.bus import EventBus
from companion.scripted_game import comparable, expected_comparable, observations, random_game
from companion.session import Session


def run_script(script, misread_rate=0.1, seed=0):
    bus = EventBus()
    events = []
    bus.subscribe(lambda e: events.append(e.to_dict()))
    session = Session(bus, reader=None, match_settings={"match_length": script.match_length})
    for obs, moving in observations(script, misread_rate=misread_rate, seed=seed):
        session.feed_observation(obs, moving)
    return events, session


@pytest.mark.slow
def test_twenty_seeded_games_give_the_ground_truth_verdicts():
    totals = collections.Counter()
    for seed in range(20):
        script = random_game(seed, match_length=0 if seed % 2 else 7, illegal_rate=0.1, cocked_rate=0.08,
                             double_rate=0.03)
        events, session = run_script(script, misread_rate=0.1, seed=seed)
        got, expected = comparable(events), expected_comparable(script)
        assert got == expected, f"seed {seed}"
        for e in expected:
            totals[e["type"] + ":" + str(e.get("verdict", e.get("action", "")))] += 1
        accused = sum(1 for e in events if e["type"] == "verdict" and e["verdict"] == "illegal")
        assert accused == sum(1 for e in expected if e.get("verdict") == "illegal")  # none false, none missed
        assert expected[-1]["type"] == "game_end" and session.state()["score"] == expected[-1]["score"]
    # the games exercise every kind of decision the referee makes
    assert totals["verdict:illegal"] >= 20 and totals["verdict:corrected"] == totals["verdict:illegal"]
    assert totals["cocked_dice:"] >= 10 and totals["cube:take"] >= 1 and totals["cube:drop"] >= 1
    assert totals["game_end:"] == 20


def test_a_match_to_three_points_over_several_games():
    script = random_game(101, match_length=3, games=6, double_rate=0.05)
    events, session = run_script(script, seed=101)
    assert comparable(events) == expected_comparable(script)
    ends = [e for e in events if e["type"] == "game_end"]
    assert ends and ends[-1]["match_over"] and max(ends[-1]["score"]) >= 3
    assert session.state()["waiting_for"] == "game_over"


def test_the_match_record_of_a_refereed_match_reads_back():
    from companion.mat import import_mat

    script = random_game(33, match_length=3, games=6, double_rate=0.05)
    events, session = run_script(script, seed=33)
    text = session.match_record()
    summary = import_mat(text).summary()
    ends = [e for e in events if e["type"] == "game_end"]
    assert summary["final_score"] == list(ends[-1]["score"])
    assert [(g["winner"], g["points"]) for g in summary["games"]] == [(e["winner"], e["points"]) for e in ends]

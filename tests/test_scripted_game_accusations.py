"""Counting caught, false and missed accusations of a referee run against the script's truth
(``companion.scripted_game.accusation_counts``): a false accusation in one turn and a missed
illegal play in another must not cancel out."""

from __future__ import annotations

from companion.scripted_game import accusation_counts


def _verdict(v: str, player: int = 0) -> dict:
    return {"type": "verdict", "verdict": v, "player": player}


def test_a_false_accusation_and_a_missed_illegal_play_are_both_counted():
    expected = [{"type": "roll", "dice": [5, 2]}, _verdict("legal"), _verdict("illegal", 1), _verdict("legal")]
    got = [{"type": "roll", "dice": [5, 1]}, _verdict("illegal"), _verdict("legal", 1), _verdict("legal")]
    assert accusation_counts(got, expected) == (0, 1, 1)


def test_caught_illegal_plays_pair_up_even_when_a_decision_is_missing():
    expected = [_verdict("legal"), _verdict("illegal", 1), _verdict("legal"), _verdict("illegal", 1)]
    got = [_verdict("illegal", 1), _verdict("legal"), _verdict("illegal", 1)]  # the first turn not judged
    assert accusation_counts(got, expected) == (2, 0, 0)
    assert accusation_counts(expected, expected) == (2, 0, 0)
    assert accusation_counts([], expected) == (0, 0, 2)
    assert accusation_counts(expected, []) == (0, 2, 0)

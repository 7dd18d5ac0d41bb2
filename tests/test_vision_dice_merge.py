"""Merging detector candidates across pyramid levels and thinning the readings."""

from __future__ import annotations

from companion.observation import DieReading
from vision.dice import Candidate, merge_candidates, thin_dice


def reading(x: float, y: float, side: float, value: int, confidence: float) -> DieReading:
    h = side / 2
    return DieReading(value=value, center=(x, y), box=(x - h, y - h, x + h, y + h), confidence=confidence)


def test_same_die_from_two_levels_is_one_candidate():
    a = Candidate((100.0, 100.0), 40.0, 0.9)
    b = Candidate((104.0, 98.0), 46.0, 0.6)
    assert merge_candidates([b, a], 0.6) == [a]


def test_candidates_at_one_place_merge_whatever_their_sizes():
    die = Candidate((100.0, 100.0), 40.0, 0.6)
    pip = Candidate((101.0, 100.0), 12.0, 0.9)
    assert merge_candidates([die, pip], 0.6) == [pip]


def test_two_dice_side_by_side_are_both_kept():
    a = Candidate((100.0, 100.0), 40.0, 0.9)
    b = Candidate((142.0, 100.0), 40.0, 0.8)
    assert merge_candidates([a, b], 0.6) == [a, b]


def test_thin_dice_keeps_the_more_confident_reading_at_one_place():
    die = reading(100, 100, 40, 5, 0.95)
    again = reading(104, 102, 36, 6, 0.70)
    other = reading(150, 100, 40, 2, 0.50)
    assert thin_dice([again, other, die], 0.6) == [die, other]


def test_a_pip_read_as_a_one_inside_a_die_is_dropped_even_when_surer():
    die = reading(100, 100, 40, 5, 0.80)
    pip = reading(101, 100, 12, 1, 0.97)
    assert thin_dice([pip, die], 0.6, 2.5) == [die]
    # a small die beside a large one is not inside it and stays
    small = reading(135, 100, 20, 3, 0.9)
    assert thin_dice([small, die], 0.6, 2.5) == [small, die]

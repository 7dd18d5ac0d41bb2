"""The stability filter and the table mapping (no rules library needed)."""

from __future__ import annotations

import dataclasses

import pytest

from companion.observation import Counts, PointReading
from companion.stability import StabilityFilter, StabilitySettings, totals_problem
from companion.table import (
    START_SIGNED,
    TableLayout,
    infer_layout,
    observation_to_signed,
    roll_dice,
    signed_to_observation,
    swap_signed,
)


def _start(mover=0, **kw):
    return signed_to_observation(START_SIGNED, mover, **kw)


def test_start_position_on_the_table():
    obs = _start(0)
    # player 0 (dark, bottom): 5 on table 6, 3 on 8, 5 on 13, 2 on 24
    by_point = {p.point: (p.count, p.colour) for p in obs.points if p.count}
    assert by_point[6] == (5, "dark") and by_point[24] == (2, "dark")
    assert by_point[19] == (5, "light") and by_point[1] == (2, "light")
    assert obs.off == Counts(0, 0)
    # the starting position is the same table from either player's view
    obs1 = signed_to_observation(START_SIGNED, 1)
    assert {p.point: (p.count, p.colour) for p in obs1.points if p.count} == by_point


def test_signed_round_trip_and_swap():
    signed = list(START_SIGNED)
    signed[6] -= 1
    signed[3] += 1
    signed[0] = -1
    signed[1] += 1  # an opponent checker hit and on the bar
    obs = signed_to_observation(signed, 1, TableLayout(("light", "dark")))
    layout = TableLayout(("light", "dark"))
    assert observation_to_signed(obs, layout, 1) == tuple(signed)
    assert observation_to_signed(obs, layout, 0) == swap_signed(signed)
    assert swap_signed(swap_signed(signed)) == tuple(signed)
    assert obs.bar.light == 1 and obs.bar.dark == 0  # player 1 plays dark: the opponent (light) is on the bar


def test_infer_layout():
    assert infer_layout(_start(0)).colours == ("dark", "light")
    assert infer_layout(_start(0, layout=TableLayout(("light", "dark")))).colours == ("light", "dark")


def test_dice_land_in_the_rollers_right_half():
    assert [d.half for d in roll_dice(0, (3, 1))] == ["right", "right"]
    assert [d.half for d in roll_dice(1, (3, 1))] == ["left", "left"]
    assert [d.half for d in roll_dice(0, (3, 1), opening=True)] == ["right", "left"]


def _feed(filt, obs, n, t0, moving=False, step=33.3):
    out = []
    for i in range(n):
        r = filt.push(dataclasses.replace(obs, timestamp_ms=t0 + i * step), moving)
        if r is not None:
            out.append(r)
    return out, t0 + n * step


def test_stable_only_after_still_time_and_once_per_change():
    filt = StabilityFilter(StabilitySettings(still_ms=100, window=3, min_frames=3))
    obs = _start(0)
    out, t = _feed(filt, obs, 3, 0.0)
    assert out == [] and filt.status == "settling"  # only 66 ms still
    out, t = _feed(filt, obs, 5, t)
    assert len(out) == 1 and out[0].points == obs.points
    out, t = _feed(filt, obs, 1, t, moving=True)
    assert out == [] and filt.status == "moving"
    out, t = _feed(filt, obs, 10, t)
    assert out == []  # unchanged board: not emitted again
    rolled = dataclasses.replace(obs, dice=roll_dice(0, (3, 1)))
    out, t = _feed(filt, rolled, 10, t)
    assert len(out) == 1 and [d.value for d in out[0].dice] == [3, 1]


def test_occluded_frames_never_count():
    filt = StabilityFilter(StabilitySettings(still_ms=0, window=3, min_frames=1))
    obs = dataclasses.replace(_start(0), occluded=True)
    out, _ = _feed(filt, obs, 10, 0.0)
    assert out == [] and filt.status == "occluded"
    obs = dataclasses.replace(_start(0), unreadable_points=(3, 4))
    out, _ = _feed(filt, obs, 10, 0.0)
    assert out == []


def test_votes_outvote_a_misread_frame():
    filt = StabilityFilter(StabilitySettings(still_ms=0, window=5, min_frames=5, quorum=0.6))
    good = _start(0)
    pts = list(good.points)
    pts[5] = PointReading(6, 4, "dark")  # one frame misreads point 6
    bad = dataclasses.replace(good, points=tuple(pts))
    seq = [good, good, bad, good, good]
    outs = [filt.push(dataclasses.replace(o, timestamp_ms=i * 33.0), False) for i, o in enumerate(seq)]
    assert outs[:4] == [None] * 4
    assert outs[4] is not None and outs[4].points[5].count == 5


def test_the_voted_bar_keeps_the_distribution_of_a_frame_that_read_it():
    filt = StabilityFilter(StabilitySettings(still_ms=0, window=5, min_frames=5, quorum=0.6))
    good = dataclasses.replace(_start(0), bar_distribution=((0, 0, 0.9), (0, 1, 0.1)))
    bad = dataclasses.replace(good, bar=Counts(light=0, dark=1), bar_distribution=((0, 1, 0.6), (0, 0, 0.4)))
    seq = [good, good, good, good, bad]  # the newest frame misreads the bar
    outs = [filt.push(dataclasses.replace(o, timestamp_ms=i * 33.0), False) for i, o in enumerate(seq)]
    assert outs[4] is not None and (outs[4].bar.light, outs[4].bar.dark) == (0, 0)
    assert outs[4].bar_distribution == good.bar_distribution


def test_no_quorum_means_no_reading():
    filt = StabilityFilter(StabilitySettings(still_ms=0, window=4, min_frames=4, quorum=0.75))
    good = _start(0)
    pts = list(good.points)
    pts[5] = PointReading(6, 4, "dark")
    bad = dataclasses.replace(good, points=tuple(pts))
    outs = [filt.push(dataclasses.replace(o, timestamp_ms=i), False) for i, o in enumerate([good, bad, good, bad])]
    assert outs == [None] * 4 and filt.status == "undecided"


def test_impossible_totals_are_held():
    good = _start(0)
    pts = list(good.points)
    pts[5] = PointReading(6, 7, "dark")  # 17 dark checkers
    bad = dataclasses.replace(good, points=tuple(pts), off_visible=False)
    assert "17 dark" in totals_problem(bad)
    filt = StabilityFilter(StabilitySettings(still_ms=0, window=1, min_frames=1))
    assert filt.push(bad, False) is None and filt.status == "held" and "17 dark" in filt.held_reason
    visible = dataclasses.replace(good, off=Counts(light=2, dark=0))
    assert "do not make 15" in totals_problem(visible)
    assert totals_problem(good) is None


def test_settings_are_validated():
    with pytest.raises(ValueError):
        StabilitySettings(quorum=0)
    with pytest.raises(ValueError):
        StabilitySettings(window=0)


def test_the_filter_says_whether_anything_moved_between_two_stable_boards():
    filt = StabilityFilter(StabilitySettings(still_ms=0, window=3, min_frames=2))
    obs = _start(0)
    rolled = dataclasses.replace(obs, dice=roll_dice(0, (3, 1)))
    out, t = _feed(filt, obs, 3, 0.0)
    assert out and filt.last_disturbed  # the first board
    out, t = _feed(filt, rolled, 3, t)  # the dice appear, no motion at all: a misreading
    assert out and not filt.last_disturbed
    out, t = _feed(filt, obs, 1, t, moving=True)
    out, t = _feed(filt, obs, 3, t)
    assert out and filt.last_disturbed  # something moved in between


def test_rules_positions_to_observations_and_back():
    from companion.play import Play
    from companion.position import Position
    from companion.table import observation_to_position, position_to_observation, roll_dice

    after = Play.from_notation("24/18 13/11").apply_unchecked(Position.initial())
    for mover in (0, 1):
        obs = position_to_observation(after, mover, dice=roll_dice(mover, (6, 2)))
        assert observation_to_position(obs, TableLayout(), mover) == after
        assert [d.half for d in obs.dice] == (["right"] * 2 if mover == 0 else ["left"] * 2)
    # the other player's view of the same table is the swapped position
    obs = position_to_observation(after, 0)
    assert observation_to_position(obs, TableLayout(), 1) == after.swap()

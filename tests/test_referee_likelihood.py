"""The referee weighs a probabilistic reading against the boards the game allows
(companion.likelihood): a reading the camera cannot tell from a legal board is that board; only a
reading far more likely than every legal one is judged as read."""

from __future__ import annotations

import dataclasses

import pytest

from companion.likelihood import log_likelihood, most_likely_board
from companion.observation import Counts, Observation, PointReading
from companion.scripted_game import DieSpec, Scene, scene_observation
from companion.table import START_SIGNED
from test_referee_machine import Table, opening, play_board


def _signed(p: PointReading) -> int:
    return 0 if p.count == 0 else (p.count if p.colour == "light" else -p.count)


def with_distributions(obs: Observation, unsure: dict[int, dict[int, float]]) -> Observation:
    """``obs`` with a distribution on every point: sure (0.999) of its reading, except the points
    of ``unsure`` (image point -> {signed count: probability}), whose most likely entry becomes
    the reading."""
    points = []
    for p in obs.points:
        dist = unsure.get(p.point, {_signed(p): 0.999})
        best = max(dist, key=dist.get)
        points.append(PointReading(p.point, abs(best), None if best == 0 else ("light" if best > 0 else "dark"),
                                   tuple(sorted(dist.items(), key=lambda kv: -kv[1]))))
    return dataclasses.replace(obs, points=tuple(points))


def test_an_ambiguous_point_is_read_as_the_allowed_board():
    obs = with_distributions(scene_observation(Scene(START_SIGNED, (), (64, "centre"))), {})
    # Player 0 plays dark (the default layout): 5 dark on point 6 is -5 in image terms.
    unsure = with_distributions(obs, {6: {-4: 0.55, -5: 0.44}})
    read = list(START_SIGNED)
    read[6] = 4
    assert most_likely_board(unsure, read, [START_SIGNED], "dark") == START_SIGNED
    sure = with_distributions(obs, {6: {-4: 0.9989, -5: 0.0001}})
    assert most_likely_board(sure, read, [START_SIGNED], "dark") == tuple(read)
    # The same reading from a reader without probabilities is left as it is.
    plain = dataclasses.replace(unsure, points=tuple(PointReading(p.point, p.count, p.colour) for p in unsure.points))
    assert most_likely_board(plain, read, [START_SIGNED], "dark") == tuple(read)


def test_log_likelihood_counts_points_and_bar():
    obs = with_distributions(scene_observation(Scene(START_SIGNED, (), (64, "centre"))), {6: {-4: 0.6, -5: 0.4}})
    start = log_likelihood(obs, START_SIGNED, "dark")
    moved = list(START_SIGNED)
    moved[6], moved[25] = 4, 1  # one on the bar: the bar reads none
    assert log_likelihood(obs, moved, "dark") < start - 3.0
    hidden = dataclasses.replace(obs, unreadable_points=(6,))
    assert log_likelihood(hidden, moved[:25] + [0], "dark") == pytest.approx(log_likelihood(hidden, START_SIGNED, "dark"))
    with pytest.raises(ValueError):
        log_likelihood(obs, START_SIGNED[:24], "dark")
    assert isinstance(obs.bar, Counts)
    # A bar the reader cannot vouch for (an arm across it) is left out of the likelihood.
    on_bar = list(START_SIGNED)
    on_bar[25] = 2
    assert log_likelihood(obs, on_bar, "dark") < start - 6.0
    bar_hidden = dataclasses.replace(obs, bar_unreadable=True)
    assert log_likelihood(bar_hidden, on_bar, "dark") == pytest.approx(log_likelihood(bar_hidden, START_SIGNED, "dark"))


def test_a_bar_the_reader_is_unsure_of_is_weighed_by_its_distribution():
    """A hit blot on the bar that the reader gives 16% (its bar reading: none) is the allowed
    board; the same reading given 0.1% stays as read (a checker gone from the board)."""
    hit = list(START_SIGNED)
    hit[24], hit[25] = 1, 1  # one of player 0's (dark) back checkers is on the bar
    read = list(hit)
    read[25] = 0
    obs = with_distributions(scene_observation(Scene(tuple(read), (), (64, "centre"))), {})
    assert (obs.bar.light, obs.bar.dark) == (0, 0)
    unsure = dataclasses.replace(obs, bar_distribution=((0, 0, 0.836), (0, 1, 0.160), (0, 2, 0.003)))
    assert unsure.bar_probability(0, 1) == pytest.approx(0.160) and unsure.bar_probability(1, 0) == 0.0
    assert obs.bar_probability(0, 1) is None
    assert most_likely_board(unsure, read, [hit], "dark") == tuple(hit)
    sure = dataclasses.replace(obs, bar_distribution=((0, 0, 0.998), (0, 1, 0.001)))
    assert most_likely_board(sure, read, [hit], "dark") == tuple(read)
    # Without a bar distribution one checker's difference costs BAR_MISS: more than the allowed ratio.
    assert most_likely_board(obs, read, [hit], "dark") == tuple(read)
    # The bar's colours count: a light checker on the bar is not the dark one the board has.
    light = dataclasses.replace(obs, bar_distribution=((0, 0, 0.836), (1, 0, 0.160)))
    assert log_likelihood(light, hit, "dark") < log_likelihood(unsure, hit, "dark") - 5.0


def _play_then_pick_up(unsure: dict[int, dict[int, float]]):
    """Opening 3-1 for player 0, who plays 8/5 6/5; the camera's reading of the result as
    ``unsure`` says (image points); then the dice are picked up."""
    t = Table()
    opening(t, 3, 1)
    dice = [DieSpec(3, "right"), DieSpec(1, "left")]
    after = play_board(0, [(8, 5), (6, 5)], t.board)
    t.hand()
    t.board = after
    for k in range(5):
        obs = scene_observation(Scene(after, tuple(dice), t.cube), t.layout, timestamp_ms=t.t)
        t.session.feed_observation(with_distributions(obs, unsure), moving=k == 0)
        t.t += 33.3
    t.hand()
    for k in range(5):
        obs = scene_observation(Scene(after, (), t.cube), t.layout, timestamp_ms=t.t)
        t.session.feed_observation(with_distributions(obs, unsure), moving=k == 0)
        t.t += 33.3
    return [e for e in t.judged("verdict")]


def test_a_legal_play_misread_on_two_points_is_not_an_accusation():
    # After 8/5 6/5 point 6 holds 4 dark and point 7 none; the camera leans to 3 and 1 (a checker
    # moved backwards: illegal as read), but not by much.
    verdicts = _play_then_pick_up({6: {-3: 0.6, -4: 0.4}, 7: {-1: 0.6, 0: 0.4}})
    assert [v["verdict"] for v in verdicts] == ["legal"] and verdicts[0]["play"] == "8/5 6/5"


def test_an_illegal_reading_far_more_likely_than_every_legal_board_is_judged():
    verdicts = _play_then_pick_up({6: {-3: 0.999, -4: 0.0005}, 7: {-1: 0.999, 0: 0.0005}})
    assert [v["verdict"] for v in verdicts] == ["illegal"]

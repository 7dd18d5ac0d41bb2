"""Veined checkers in the renderer (marble, wood grain): each checker its own pattern, plain boards unchanged."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.render_board import STYLES, BoardState, random_marks, render_board, random_style


def _faces(rendered, colour):
    """Grey pixels of the inner face (0.3 of a checker's diameter around its centre) of each
    checker of ``colour`` on the points, as (N, 81) arrays sampled on the same offsets."""
    import cv2

    grey = cv2.cvtColor(rendered.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    on_points = [(x, y, p) for x, y, c, p in rendered.checkers if c == colour and 1 <= p <= 24]
    by_point: dict = {}
    for x, y, p in on_points:
        by_point.setdefault(p, []).append((x, y))
    diameter = np.median([np.hypot(*np.subtract(a[1], a[0])) for a in by_point.values() if len(a) > 1])
    r = 0.3 * diameter
    yy, xx = np.mgrid[-r:r:9j, -r:r:9j]
    return np.array([grey[(y + yy).round().astype(int), (x + xx).round().astype(int)].ravel() for x, y, _ in on_points])


def test_veined_checkers_carry_their_own_veins_and_plain_ones_none():
    plain = render_board(BoardState.starting(), seed=3)
    veined = render_board(BoardState.starting(), style=dataclasses.replace(STYLES["tournament"], checker_veins=0.6), seed=3)
    for colour in ("light", "dark"):
        p, v = _faces(plain, colour), _faces(veined, colour)
        assert len(p) == len(v) == 15
        assert np.median(v.std(axis=1)) > 3 * np.median(p.std(axis=1)) + 2  # veins on every face
        diffs = [np.abs(v[i] - v[j]).mean() for i in range(len(v)) for j in range(i + 1, len(v))]
        assert min(diffs) > 0.5 and np.median(diffs) > 5  # each checker its own pattern
    same_seed = render_board(BoardState.starting(), style=dataclasses.replace(STYLES["tournament"], checker_veins=0.6), seed=3)
    assert np.array_equal(veined.image, same_seed.image)
    assert veined.checkers == plain.checkers


def test_no_veins_renders_as_before_and_draws_no_more_random_numbers():
    base = STYLES["wood"] if "wood" in STYLES else next(iter(STYLES.values()))
    a = render_board(BoardState.starting(), style=base, seed=5).image
    b = render_board(BoardState.starting(), style=dataclasses.replace(base, checker_veins=0.0), seed=5).image
    assert np.array_equal(a, b)
    r1, r2 = np.random.default_rng(11), np.random.default_rng(11)
    s1 = random_marks(r1, random_style(r1))
    s2 = random_marks(r2, random_style(r2), veins=0.0)
    assert s1 == s2 and s1.checker_veins == 0.0 and r1.random() == r2.random()


def test_random_marks_veins_a_share_of_the_boards():
    rng = np.random.default_rng(2)
    got = [random_marks(rng, STYLES["tournament"], veins=0.5).checker_veins for _ in range(400)]
    veined = [v for v in got if v > 0]
    assert 0.4 < len(veined) / len(got) < 0.6
    assert all(0.15 <= v <= 0.8 for v in veined)

"""Veined checkers in the renderer (marble, wood grain): each checker its own pattern, plain boards unchanged."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.render_board import STYLES, BoardState, render_board


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


def test_no_veins_renders_as_before():
    base = STYLES["wood"] if "wood" in STYLES else next(iter(STYLES.values()))
    a = render_board(BoardState.starting(), style=base, seed=5).image
    b = render_board(BoardState.starting(), style=dataclasses.replace(base, checker_veins=0.0), seed=5).image
    assert np.array_equal(a, b)


def test_a_veined_scene_is_the_plain_scene_but_for_the_checkers_faces():
    from vision.render_roll import random_board_scene

    plain = random_board_scene(np.random.default_rng(4), wide=True)
    veined = random_board_scene(np.random.default_rng(4), wide=True, veins=0.6)
    assert plain.checkers == veined.checkers and np.array_equal(plain.field.homography, veined.field.homography)
    changed = np.abs(plain.image.astype(int) - veined.image.astype(int)).max(axis=2) > 0
    inside = np.zeros_like(changed)
    for x, y, r in plain.checkers:
        yy, xx = np.ogrid[:changed.shape[0], :changed.shape[1]]
        inside |= (xx - x) ** 2 + (yy - y) ** 2 <= (1.2 * r) ** 2
    assert changed.any() and not (changed & ~inside).any()


def test_real_dice_boards_vein_a_share_of_the_boards_and_keep_the_rest():
    from vision.dice_cutouts import CutDie, real_dice_boards

    patch = np.full((30, 30, 3), 235, np.uint8)
    patch[12:18, 12:18] = 20  # a one
    die = CutDie(patch, np.ones((30, 30), np.float32), 30.0, 1, "synthetic")
    plain = real_dice_boards(8, np.random.default_rng(3), [die], veins=0.0)
    veined = real_dice_boards(8, np.random.default_rng(3), [die], veins=0.5)
    assert [it.boxes.tolist() for _, it in plain] == [it.boxes.tolist() for _, it in veined]
    same = [np.array_equal(a, b) for (a, _), (b, _) in zip(plain, veined)]
    assert any(same) and not all(same)

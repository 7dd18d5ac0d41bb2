"""The renderer's cocked dice: leaning dice rest against what holds them up, and the truth says so."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.render_dice import CUBE_VALUES, CubeLook, DIE_STYLES, cube_face_texture, draw_cube, draw_die
from vision.render_roll import (LEAN_KINDS, _lean_pose, lean_direction, random_board_scene, render_roll_on_board)


def _canvas() -> np.ndarray:
    return np.full((160, 160, 3), (40, 120, 40), np.uint8)


@pytest.mark.parametrize("toward", [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1)])
def test_the_raised_side_faces_the_support(toward):
    # seen straight down, a leaning die shows the side face it lifted: the die's outline reaches
    # further from the top face's centre towards the support than away from it
    img = _canvas()
    d = draw_die(img, (80, 80), 50, 4, tilt_deg=30, tilt_dir_deg=lean_direction(toward), shadow=0.0)
    cx, cy = d.center
    x0, y0, x1, y1 = d.box
    ux, uy = np.array(toward, float) / np.linalg.norm(toward)
    reach_towards = max((x1 - cx) * ux if ux > 0 else (x0 - cx) * ux, 0) + max((y1 - cy) * uy if uy > 0 else (y0 - cy) * uy, 0)
    reach_away = max((x0 - cx) * -ux if ux > 0 else (x1 - cx) * -ux, 0) + max((y0 - cy) * -uy if uy > 0 else (y1 - cy) * -uy, 0)
    assert reach_towards > reach_away + 5, (d, reach_towards, reach_away)


def test_a_flat_die_seen_straight_down_is_a_square():
    img = _canvas()
    d = draw_die(img, (80, 80), 50, 2, shadow=0.0)
    x0, y0, x1, y1 = d.box
    assert abs((x1 - x0) - 50) < 2 and abs((y1 - y0) - 50) < 2
    assert abs(d.center[0] - 80) < 1 and abs(d.center[1] - 80) < 1


@pytest.mark.parametrize("lean", LEAN_KINDS)
def test_lean_poses_on_a_board(lean):
    rng = np.random.default_rng(3)
    scene = random_board_scene(rng)
    poses = [p for p in (_lean_pose(rng, scene, lean, "right", (8.0, 45.0), []) for _ in range(6)) if p is not None]
    assert poses, lean
    fw = scene.field.size[0]
    for x, y, tilt, _, _ in poses:
        fx, fy = scene.field.to_field(np.array([[x, y]]))[0]
        assert scene.field.image_half(fx) == "right" and 0 <= fy < scene.field.size[1] and fx < fw
        assert 8.0 <= tilt <= 45.0
        if lean == "checker":
            # right beside a checker: the die's edge reaches over it
            near = min(math.hypot(x - cx, y - cy) - r for cx, cy, r in scene.checkers)
            assert near < 0.5 * scene.die_px
        if lean == "edge":
            assert tilt >= 40.0


def test_tilted_rolls_carry_their_truth():
    rng = np.random.default_rng(8)
    tilts = []
    for _ in range(6):
        roll = render_roll_on_board(rng, cocked_prob=1.0, kinds=("tilted",), tilt_range=(5.0, 30.0), cube_prob=0.0)
        cocked = [d for d in roll.dice if d.cocked]
        assert len(cocked) == 1 and cocked[0].reason == "tilted"
        tilts.append(cocked[0].tilt_deg)
        assert all(d.tilt_deg == 0 and not d.cocked for d in roll.dice if d is not cocked[0])
    assert all(5.0 <= t <= 30.0 for t in tilts)


def test_cube_looks():
    rng = np.random.default_rng(0)
    for k in range(20):
        style = DIE_STYLES[k % len(DIE_STYLES)]
        look = CubeLook.random(rng, style)
        for v in CUBE_VALUES:
            tex = cube_face_texture(v, style, look=look)
            ink = np.abs(tex.astype(int) - np.array(style.body)).sum(axis=2) > 60
            assert 0.02 < ink.mean() < 0.9, (look, v)  # something printed, not a blot
    logo = CubeLook(logo="QX")
    plain = cube_face_texture(64, DIE_STYLES[0], look=CubeLook())
    assert not np.array_equal(cube_face_texture(64, DIE_STYLES[0], look=logo), plain)
    assert np.array_equal(cube_face_texture(2, DIE_STYLES[0], look=logo), cube_face_texture(2, DIE_STYLES[0]))
    img = _canvas()
    c = draw_cube(img, (80, 80), 50, 8, look=CubeLook(disc=(0, 200, 255)))
    b, g, r = (img[..., i].astype(int) for i in range(3))
    assert c.value == 8 and ((r > g + 20) & (g > b + 80)).sum() > 100  # the (shaded) orange disc


@pytest.mark.parametrize("ratio", [0.3, 0.78])
def test_dice_of_a_chosen_size_beside_a_cube_of_its_own(ratio):
    # small travel dice and jumbo dice: the die's side follows the checker, the cube does not
    rng = np.random.default_rng(8)
    for _ in range(3):
        roll = render_roll_on_board(rng, cocked_prob=0.0, cube_prob=1.0, die_to_checker=(ratio, ratio))
        checker = 2 * roll.checkers[0][2]
        assert all(d.size == pytest.approx(ratio * checker, rel=1e-6) for d in roll.dice)
        if roll.cube is not None:
            assert 0.55 * checker <= roll.cube.size <= 0.9 * checker
        assert roll.board_style

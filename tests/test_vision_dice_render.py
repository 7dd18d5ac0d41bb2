"""The synthetic dice and cube renderer: drawn pixels and ground truth agree."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision.dice_photos import synthetic_training_images
from vision.render_dice import (CUBE_VALUES, DIE_STYLES, PIPS, DieStyle, RenderError, die_face_texture, draw_cube, draw_die)


def _canvas() -> np.ndarray:
    return np.full((120, 120, 3), (60, 110, 150), np.uint8)


@pytest.mark.parametrize("value", range(1, 7))
def test_flat_die_shows_its_value_as_dark_pips(value):
    img = _canvas()
    d = draw_die(img, (60, 60), 60, value, style=DIE_STYLES[0], shadow=0.0)
    assert d.value == value and not d.cocked and d.reason is None
    # Count the dark blobs (pips) on the white top face.
    import cv2

    x0, y0, x1, y1 = (int(v) for v in d.box)
    face = cv2.cvtColor(img[y0 + 2:y1 - 2, x0 + 2:x1 - 2], cv2.COLOR_BGR2GRAY)
    n, _ = cv2.connectedComponents((face < 100).astype(np.uint8))
    assert n - 1 == len(PIPS[value])


def test_tilted_die_is_cocked_and_keeps_the_upper_face():
    img = _canvas()
    d = draw_die(img, (60, 60), 40, 5, tilt_deg=30, tilt_dir_deg=45)
    assert d.cocked and d.reason == "tilted" and d.value == 5
    # leaning past 45 degrees brings another face up
    d2 = draw_die(_canvas(), (60, 60), 40, 5, tilt_deg=80, tilt_dir_deg=0)
    assert d2.value != 5


def test_drawing_changes_only_the_die_region():
    img = _canvas()
    before = img.copy()
    d = draw_die(img, (60, 60), 30, 3, shadow=0.0)
    changed = np.argwhere(np.any(img != before, axis=2))
    assert len(changed) > 400
    x0, y0, x1, y1 = d.box
    assert changed[:, 1].min() >= x0 - 2 and changed[:, 1].max() <= x1 + 2
    assert changed[:, 0].min() >= y0 - 2 and changed[:, 0].max() <= y1 + 2


def test_bad_values_raise_value_errors():
    with pytest.raises(RenderError):
        draw_die(_canvas(), (60, 60), 30, 7)
    with pytest.raises(ValueError):
        draw_die(_canvas(), (60, 60), 1, 3)
    with pytest.raises(RenderError):
        draw_cube(_canvas(), (60, 60), 30, 3)


def test_cube_truth_and_synthetic_images():
    c = draw_cube(_canvas(), (60, 60), 40, 16, yaw_deg=30)
    assert c.value == 16 and abs(c.center[0] - 60) < 2 and abs(c.center[1] - 60) < 2
    items = synthetic_training_images(3, np.random.default_rng(0), cube_prob=1.0)
    assert len(items) == 3
    for img, item in items:
        assert img.dtype == np.uint8 and img.ndim == 3
        assert len(item.values) >= 1 and set(item.values.tolist()) <= set(range(1, 7))
        assert set(item.cube_values.tolist()) <= set(CUBE_VALUES)


def test_a_marbled_die_shows_both_body_colours_in_a_pattern_of_its_seed():
    # marbled dice (veins of a second colour) widen the styles synthetic training sees
    style = DieStyle("marbled", (60, 60, 70), (40, 40, 220), marble=(170, 170, 180), marble_seed=3)
    tex = die_face_texture(5, style).astype(int)
    body = np.abs(tex - np.array(style.body)).sum(axis=2) < 30
    vein = np.abs(tex - np.array(style.marble)).sum(axis=2) < 30
    assert body.mean() > 0.2 and vein.mean() > 0.03
    assert np.array_equal(die_face_texture(5, style), die_face_texture(5, style))
    other = dataclasses.replace(style, marble_seed=4)
    assert not np.array_equal(die_face_texture(5, style), die_face_texture(5, other))
    # the pips are still drawn over the veins
    assert (np.abs(tex - np.array(style.pips)).sum(axis=2) < 30).mean() > 0.05


@pytest.mark.parametrize("value", range(1, 7))
def test_a_translucent_die_shows_its_hidden_pips_faintly_and_its_own_in_full(value):
    # smoky translucent dice: the opposite face's pips show through, mirrored and blurred
    clear = DieStyle("smoky", (60, 58, 62), (40, 40, 200), alpha=0.85)
    smoky = dataclasses.replace(clear, ghost=0.5)
    side = 96
    plain, ghosted = die_face_texture(value, clear, side).astype(int), die_face_texture(value, smoky, side).astype(int)

    def redness(tex: np.ndarray, x: float, y: float) -> int:  # red minus blue at face point (x, y)
        b, _, r = tex[int(round(y * side)), int(round(x * side))]
        return int(r - b)

    for fx, fy in PIPS[7 - value]:
        x, y = 0.5 + 0.72 * (0.5 - fx), 0.5 + 0.72 * (fy - 0.5)
        if any(abs(x - a) < 0.12 and abs(y - b) < 0.12 for a, b in PIPS[value]):
            continue  # under one of the face's own pips
        assert redness(plain, x, y) < 10
        # between the body and a pip: seen, but not mistaken for a pip of the face
        assert 15 < redness(ghosted, x, y) < 0.7 * (200 - 40)
    for fx, fy in PIPS[value]:
        assert redness(ghosted, fx, fy) > 0.9 * (200 - 40)
    assert np.array_equal(die_face_texture(value, dataclasses.replace(smoky, ghost=0.0), side), plain)


def test_rolls_and_touching_pairs_draw_only_the_kinds_of_dice_asked_for():
    # leave-one-dice-kind-out draws training boards without one kind and test boards of it alone
    pytest.importorskip("vision.render_board")
    from vision.render_roll import render_roll_on_board
    from vision.render_touching import render_touching

    black = next(s for s in DIE_STYLES if s.name == "black")
    rest = tuple(s for s in DIE_STYLES if s.name != "black")
    rng = np.random.default_rng(3)
    assert {d.style for _ in range(4) for d in render_roll_on_board(rng, dice_styles=(black,)).dice} == {"black"}
    assert "black" not in {d.style for _ in range(12) for d in render_roll_on_board(rng, dice_styles=rest).dice}
    pair = None
    while pair is None:
        try:
            pair = render_touching(rng, dice_styles=(black,))
        except RenderError:
            continue
    assert {d.style for d in pair.truth_touching + pair.truth_apart} == {"black"}


def test_a_roll_can_draw_its_dice_the_colour_of_what_they_lie_on(monkeypatch):
    # benchmarks/dice_sizes.py --die-as-under: dice the colour of the point or the field under them
    # (their outline lost, their pips alone stand out)
    pytest.importorskip("vision.render_board")
    import vision.render_roll as render_roll

    drawn = []
    draw = render_roll.draw_die

    def recording(image, center, size, value, **kw):
        x, y = (int(round(v)) for v in center)
        drawn.append((image[y, x].astype(float), kw["style"]))
        return draw(image, center, size, value, **kw)

    monkeypatch.setattr(render_roll, "draw_die", recording)
    for seed in range(3):
        roll = render_roll.render_roll_on_board(np.random.default_rng(seed), cocked_prob=0.0, wide=True,
                                                under_share=1.0)
        assert [d.style for d in roll.dice] == ["as-under", "as-under"]
        for under, style in drawn:
            assert np.abs(np.array(style.body, float) - under).max() < 40, (under, style.body)
            assert abs(np.mean(style.pips) - np.mean(style.body)) > 80  # the pips stand out
        drawn.clear()
        plain = render_roll.render_roll_on_board(np.random.default_rng(seed), cocked_prob=0.0, wide=True)
        assert "as-under" not in {d.style for d in plain.dice}
        drawn.clear()

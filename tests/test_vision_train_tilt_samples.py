"""The tilt network's training samples (``vision/training/train_tilt.py``; numpy and OpenCV only,
no torch needed): dice of every size on boards of any colours, some the colour of what they lie
on."""

from __future__ import annotations

import numpy as np

from vision.training.train_tilt import _board_dice_chunk, _style, board_dice, board_dice_parallel


def test_a_die_as_under_takes_the_colour_it_lies_on_with_pips_that_stand_out():
    rng = np.random.default_rng(0)
    red = np.array([40, 40, 190], np.uint8)
    styles = [_style(rng, red, under_share=1.0) for _ in range(20)]
    for s in styles:
        assert s.name == "as-under"
        assert np.abs(np.array(s.body, float) - red).max() < 40
        assert s.pips == (240, 240, 240)  # white pips on a dark red die
    ivory = np.array([200, 228, 240], np.uint8)
    assert _style(rng, ivory, under_share=1.0).pips == (20, 20, 20)
    # without the share the built-in and random styles are drawn as before, from the same numbers
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    assert [_style(a) for _ in range(10)] == [_style(b, red, under_share=0.0) for _ in range(10)]


def test_board_dice_of_every_size_give_labelled_patches():
    for lo, hi in ((0.28, 0.32), (0.78, 0.82)):
        x, y, tilts = board_dice(np.random.default_rng(1), 3, per_board=4, views=1, log=lambda m: None,
                                 die_to_checker=(lo, hi), wide=1.0, under_share=0.5)
        assert x.dtype == np.uint8 and x.shape[1:] == (32, 32, 3) and len(x) == len(y) == len(tilts)
        assert set(np.unique(y)) <= {0, 1}
        assert ((y == 1) == (tilts > 0)).all()
        assert 0 < int(y.sum()) < len(y)  # flat and tilted dice both drawn


def test_a_spot_on_a_point_edge_lies_on_a_long_edge_of_a_point_of_that_half():
    from vision.render_roll import random_board_scene
    from vision.training.train_tilt import _on_point_edge

    rng = np.random.default_rng(2)
    found = 0
    for k in range(6):
        scene = random_board_scene(np.random.default_rng(k), (0.28, 0.34))
        for half in ("left", "right"):
            at = _on_point_edge(rng, scene, half)
            if at is None:
                continue
            found += 1
            fx, fy = scene.field.to_field(np.array([at]))[0]
            assert scene.field.image_half(fx) == half
            dist = []
            for g in scene.field.points():
                tip = np.array([(g.x0 + g.x1) / 2, g.base_y + g.direction * g.length])
                for corner in (np.array([g.x0, g.base_y]), np.array([g.x1, g.base_y])):
                    d = tip - corner
                    t = np.clip(np.dot([fx, fy] - corner, d) / np.dot(d, d), 0, 1)
                    dist.append(np.hypot(*(corner + t * d - [fx, fy])))
            assert min(dist) < 1.0  # canonical pixels: on the line
            assert all(np.hypot(at[0] - cx, at[1] - cy) > r for cx, cy, r in scene.checkers)
    assert found >= 8


def test_some_flat_dice_rest_on_a_checker_whatever_the_edge_share(monkeypatch):
    """15% of the flat dice are drawn on top of a checker (centred on it), with or without the
    dice moved onto point edges."""
    import vision.render_dice as render_dice
    import vision.render_roll as render_roll

    scenes, drawn = [], []
    real_scene, real_draw = render_roll.random_board_scene, render_dice.draw_die

    def scene(*a, **k):
        scenes.append(real_scene(*a, **k))
        return scenes[-1]

    def draw(img, center, *a, **k):
        drawn.append((len(scenes) - 1, center, k.get("tilt_deg", 0.0)))
        return real_draw(img, center, *a, **k)

    monkeypatch.setattr(render_roll, "random_board_scene", scene)
    monkeypatch.setattr(render_dice, "draw_die", draw)
    for share in (0.0, 0.5):
        scenes.clear(); drawn.clear()
        board_dice(np.random.default_rng(7), 6, per_board=8, views=1, log=lambda m: None, edge_share=share)
        on_checker = sum(1 for b, (x, y), tilt in drawn if tilt == 0
                         and any(np.hypot(x - cx, y - cy) < 0.5 for cx, cy, _ in scenes[b].checkers))
        assert on_checker >= 2, share


def test_boards_drawn_by_several_processes_are_the_chunks_of_their_seeds():
    kwargs = dict(die_to_checker=(0.28, 0.85), wide=0.5, under_share=0.15, edge_share=0.4)
    x, y, tilts = board_dice_parallel(3, 3, 2, log=lambda m: None, **kwargs)
    # two processes, boards 2 + 1, each chunk its own generator seeded by (seed, chunk)
    parts = [_board_dice_chunk((3, i, n, 2, kwargs)) for i, n in enumerate((2, 1))]
    assert np.array_equal(x, np.concatenate([p[0] for p in parts]))
    assert np.array_equal(y, np.concatenate([p[1] for p in parts]))
    assert np.array_equal(tilts, np.concatenate([p[2] for p in parts]))
    assert x.shape[1:] == (32, 32, 3) and len(x) == len(y) and 0 < int(y.sum()) < len(y)
    # a chunk differs from another chunk of the same seed
    assert not np.array_equal(parts[0][0][:4], parts[1][0][:4])


def test_augmented_patches_keep_their_layout_unless_mirrored_and_vary_in_light():
    """:func:`augment` changes light, colour, blur and noise but not where things are: a patch
    bright on its left stays brighter on its left unless mirrored, and about half are mirrored."""
    from vision.training.train_tilt import augment

    patches = np.full((400, 32, 32, 3), 60, np.uint8)
    patches[:, :, :16] = 200
    kept = augment(patches, np.random.default_rng(1), mirror=False)
    assert kept.shape == patches.shape and kept.dtype == np.uint8
    left, right = kept[:, :, :12].mean(axis=(1, 2, 3)), kept[:, :, 20:].mean(axis=(1, 2, 3))
    assert (left > right + 40).all()
    assert kept[:, :, :12].mean(axis=(1, 2, 3)).std() > 10  # brightness differs from patch to patch
    assert (kept != patches).any(axis=(1, 2, 3)).all()
    turned = augment(patches, np.random.default_rng(1))
    flipped = (turned[:, :, 20:].mean(axis=(1, 2, 3)) > turned[:, :, :12].mean(axis=(1, 2, 3)))
    assert 150 < flipped.sum() < 250

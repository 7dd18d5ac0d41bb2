"""The tilt network's training samples (``vision/training/train_tilt.py``; numpy and OpenCV only,
no torch needed): dice of every size on boards of any colours, some the colour of what they lie
on."""

from __future__ import annotations

import numpy as np

from vision.training.train_tilt import _style, board_dice


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

"""The free-photo image pyramid of the dice detector and its resize."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice import pyramid_scales, resize


def test_small_photo_is_not_enlarged_beyond_the_first_two_levels():
    # a 640x480 photo: 192 and 384 pixels wide (not enlarged to 768)
    assert pyramid_scales(640, (192, 384, 768)) == pytest.approx([0.3, 0.6])
    # nor searched at nearly its own resolution (pips would be proposed as small dice)
    assert pyramid_scales(800, (192, 384, 768)) == pytest.approx([0.24, 0.48])
    assert pyramid_scales(1000, (192, 384, 768)) == pytest.approx([0.192, 0.384, 0.768])


def test_shipped_pyramid_has_a_level_between_the_first_two_halvings():
    # a 640x480 photo: 192, 272 and 384 pixels wide (the first three always), not 768
    assert pyramid_scales(640, (192, 272, 384, 768), fixed=3) == pytest.approx([0.3, 0.425, 0.6])
    assert pyramid_scales(800, (192, 272, 384, 768), fixed=3) == pytest.approx([0.24, 0.34, 0.48])
    assert pyramid_scales(1000, (192, 272, 384, 768), fixed=3) == pytest.approx([0.192, 0.272, 0.384, 0.768])
    # a tiny image: enlarged at most four times, levels closer than 1.4x dropped
    assert pyramid_scales(100, (192, 272, 384, 768), fixed=3) == pytest.approx([1.92, 2.72, 3.84])
    assert pyramid_scales(60, (192, 272, 384, 768), fixed=3) == pytest.approx([3.2])


def test_large_frame_gets_three_halvings():
    assert pyramid_scales(1536, (192, 384, 768)) == pytest.approx([0.125, 0.25, 0.5])


def test_tiny_image_is_enlarged_at_most_four_times_and_scales_do_not_repeat():
    # 100 pixels: 192 -> 1.92x, 384 -> 3.84x, 768 would enlarge: dropped
    assert pyramid_scales(100, (192, 384, 768)) == pytest.approx([1.92, 3.84])
    assert pyramid_scales(50, (192, 384, 768)) == pytest.approx([3.84])


def test_resize_shrinks_by_area_and_keeps_the_mean():
    rng = np.random.default_rng(1)
    img = rng.integers(0, 256, (720, 848, 3), dtype=np.uint8)
    for size in ((424, 360), (300, 255), (848, 720), (1000, 849)):
        out = resize(img, size)
        assert out.shape == (size[1], size[0], 3) and out.dtype == np.uint8
        assert abs(float(out.mean()) - float(img.mean())) < 1.5
    # an exact halving averages 2x2 blocks (no aliasing of a one-pixel checkerboard)
    board = (np.indices((64, 64)).sum(axis=0) % 2 * 255).astype(np.uint8)[..., None].repeat(3, 2)
    half = resize(board, (32, 32))
    assert np.all(np.abs(half.astype(int) - 128) <= 1)
    third = resize(board, (20, 20))
    assert np.all(np.abs(third.astype(int) - 128) <= 40)

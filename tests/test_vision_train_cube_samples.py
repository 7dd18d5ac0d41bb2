"""The cube network's training samples: a cube cut by the photo's edge, as the real photos show
one (``vision/training/train_cube.py``; numpy only, no torch needed)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.training.train_cube import _cut_at_edge


@pytest.mark.parametrize("seed", range(12))
def test_a_cube_cut_at_the_edge_keeps_its_centre_and_loses_at_most_a_third(seed):
    rng = np.random.default_rng(seed)
    img = np.zeros((128, 128, 3), np.uint8)
    img[44:84, 44:84] = 255  # a cube of side 40 centred at (64, 64)
    img[64, 64] = (0, 0, 255)  # its centre pixel
    cut, (x, y) = _cut_at_edge(img, (64.0, 64.0), 40.0, rng)
    assert cut.shape[2] == 3 and cut.shape[:2] != img.shape[:2]
    assert tuple(cut[int(y), int(x)]) == (0, 0, 255)  # the centre is mapped into the cut image
    # the image now ends 8-20 pixels from the centre on one side, so 0-12 of the cube's 40
    # pixels are cut off; what remains of the cube is still most of it
    white = int((cut == 255).all(axis=2).sum())
    assert 0.65 * 40 * 40 <= white <= 40 * 40
    edge = min(x, y, cut.shape[1] - 1 - x, cut.shape[0] - 1 - y)
    assert 7 <= edge <= 21

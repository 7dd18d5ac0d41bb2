"""A one's pip marks the centre of its top face: :func:`vision.top_face.pip_centre` and the
reader's re-centring of ones on free photos."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.dice import DiceReader, DiceSettings
from vision.dice_data import load_dataset
from vision.evaluate_dice import evaluate_real, use_held_out
from vision import top_face
from vision.top_face import pip_centre


def _die(pip_at=(0.0, 0.0), white=True, side=40):
    m = 2 * side  # the die in the middle of a table four sides wide
    img = np.full((2 * m, 2 * m, 3), (60, 110, 160), np.uint8)  # wood-ish table
    body, pip = ((235, 235, 235), (20, 20, 20)) if white else ((30, 30, 30), (240, 240, 240))
    cv2.rectangle(img, (m - side // 2, m - side // 2), (m + side // 2, m + side // 2), body, -1)
    cx, cy = m + pip_at[0], m + pip_at[1]
    cv2.circle(img, (int(round(cx * 8)), int(round(cy * 8))), int(0.11 * side * 8), pip, -1, cv2.LINE_AA, shift=3)
    return img, (cx, cy)


@pytest.mark.parametrize("white", [True, False])
def test_pip_centre_finds_the_pip_of_an_off_centre_reading(white):
    img, truth = _die(pip_at=(6.5, -7.0), white=white)
    got = pip_centre(img, (80.0, 80.0), 40.0)
    assert got is not None
    assert math.hypot(got[0] - truth[0], got[1] - truth[1]) < 1.0


@pytest.mark.parametrize("white", [True, False])
@pytest.mark.parametrize("side", [160, 300, 600])
def test_pip_centre_of_a_big_die_is_found_in_a_shrunk_copy_as_precisely(white, side, monkeypatch):
    # a die of a phone photo (hundreds of pixels) is searched at 128 pixels: the same centre to a
    # hundredth of its side as the full-size search, and the pip's own centre
    k = side / 40
    img, truth = _die(pip_at=(6.5 * k, -7.0 * k), white=white, side=side)
    assert side > top_face.SEARCH_SIDE
    got = pip_centre(img, (2.0 * side, 2.0 * side), float(side))
    # read from a centre a twentieth of the side off the die's, the pip is found as well
    off = pip_centre(img, (2.05 * side, 1.95 * side), float(side))
    monkeypatch.setattr(top_face, "SEARCH_SIDE", math.inf)
    full = pip_centre(img, (2.0 * side, 2.0 * side), float(side))
    for centre in (got, off):
        assert centre is not None
        assert math.hypot(centre[0] - truth[0], centre[1] - truth[1]) < 0.01 * side
        assert math.hypot(centre[0] - full[0], centre[1] - full[1]) < 0.01 * side


def test_pip_centre_gives_none_for_a_blank_face_and_rejects_bad_sizes():
    img = np.full((160, 160, 3), 200, np.uint8)
    assert pip_centre(img, (80.0, 80.0), 40.0) is None
    with pytest.raises(ValueError):
        pip_centre(img, (80.0, 80.0), 0.0)
    # a reading at the image's corner, over the table only: no pip
    img, _ = _die()
    assert pip_centre(img, (2.0, 3.0), 40.0) is None


def test_recentred_ones_are_found_on_oblique_real_photos(shared_data):
    # matteop65 boxes a one by its pip alone: a reading is matched only within half that box,
    # so an oblique one is found only when its reading sits on its top face's centre
    # (fold 0's photos of ones, read by the free-photo models' copies that never saw them)
    ones = [it for it in load_dataset(shared_data / "dice" / "matteop65")
            if len(it.values) and (it.values == 1).all() and it.fold() == 0]
    on = evaluate_real(ones, DiceReader(settings=use_held_out(DiceSettings())), None)
    off = evaluate_real(ones, DiceReader(settings=use_held_out(DiceSettings(recentre_ones=0))), None)
    assert on["found"] >= off["found"] + 3, (on["found"], off["found"])
    assert on["false_dice"] <= off["false_dice"]
    assert on["correct"] >= off["correct"]

"""The keep rule of the dice reader: detector confidence and the wider second reading."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice import Candidate, DiceReader, DiceSettings
from vision.backgrounds import random_background
from vision.render_dice import draw_die


@pytest.fixture(scope="module")
def reader():
    return DiceReader()


def probs(value_p: float, value: int = 3) -> np.ndarray:
    """One (8,) probability row: ``value_p`` on ``value``, the rest on "not a die" and a 1."""
    p = np.zeros(8)
    p[value - 1] = value_p
    p[0 if value != 1 else 1] += (1 - value_p) * 0.4
    p[6] = (1 - value_p) * 0.6
    return p


def test_detector_confidence_lowers_the_value_threshold(reader):
    st = reader.settings
    sure = Candidate((50.0, 50.0), 20.0, st.accept_peak + 0.05)
    weak = Candidate((150.0, 50.0), 20.0, st.accept_peak - 0.05)
    p = probs((st.accept + st.peak_accept) / 2)  # between the two thresholds, above "not a die"
    assert [d.value for d in reader.dice_from_scan([sure], p[None])] == [3]
    assert reader.dice_from_scan([weak], p[None]) == []
    # below the lowered threshold, or below "not a die", nothing is kept even when the detector is sure
    assert reader.dice_from_scan([sure], probs(st.peak_accept - 0.05)[None]) == []
    q = probs(0.45); q[6] = 0.5; q[0] = 0.05
    assert reader.dice_from_scan([sure], q[None]) == []


def test_free_photo_detector_peaks_follow_their_own_threshold(reader):
    # the free-photo detector peaks higher than the registered-board one: its candidates keep a
    # value only from photo_peak_accept (0.5, the plain threshold), the board's from peak_accept
    st = reader.settings
    assert st.photo_peak_accept > st.peak_accept
    board = Candidate((50.0, 50.0), 20.0, st.accept_peak + 0.05)
    photo = Candidate((50.0, 50.0), 20.0, st.accept_peak + 0.05, photo=True)
    p = probs((st.photo_peak_accept + st.peak_accept) / 2)
    assert [d.value for d in reader.dice_from_scan([board], p[None])] == [3]
    assert reader.dice_from_scan([photo], p[None]) == []
    assert [d.value for d in reader.dice_from_scan([photo], probs(st.photo_peak_accept + 0.02)[None])] == [3]
    # the detector marks what it proposes on a free photo, not on a registered board
    rng = np.random.default_rng(5)
    img = random_background(rng, (320, 240))
    draw_die(img, (160, 120), 40, 4, yaw_deg=10)
    free = [c for level in reader.level_candidates(img)[0] for c in level]
    assert free and all(c.photo for c in free)
    assert all(not c.photo for c in reader.candidates(img, die_px=40.0))


def test_wider_rereading_changes_only_unsure_patches(reader):
    rng = np.random.default_rng(3)
    img = random_background(rng, (320, 240))
    die = draw_die(img, (160, 120), 40, 5, yaw_deg=20)
    cands = [Candidate(die.center, 40.0, 0.9), Candidate(die.center, 26.0, 0.9),
             Candidate((40.0, 40.0), 30.0, 0.3)]
    plain = DiceReader(settings=DiceSettings(wider=()))
    a, b = reader.classify(img, cands), plain.classify(img, cands)
    assert a.shape == b.shape == (3, 8)
    np.testing.assert_allclose(a.sum(axis=1), 1.0, atol=1e-6)
    for i in range(3):
        if b[i].max() >= reader.settings.sure or b[i, :6].sum() < reader.settings.wider_min:
            np.testing.assert_allclose(a[i], b[i], atol=1e-9)
    # the well-centred, well-sized die is read as a 5 by both
    assert int(np.argmax(a[0, :6])) == 4 and int(np.argmax(b[0, :6])) == 4
    # the die whose size the detector underestimated is unsure; read wider, its value comes out right
    assert b[1].max() < reader.settings.sure and not np.allclose(a[1], b[1])
    assert int(np.argmax(a[1, :6])) == 4

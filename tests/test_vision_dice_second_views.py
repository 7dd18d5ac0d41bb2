"""Second views (DiceReader.second_views): a spot whose merged candidate is not read as a die gets
the candidates the merge dropped around it read too."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision.dice import Candidate, DiceReader, DiceSettings
from vision.dice_data import load_dataset
from vision.evaluate_dice import HELD_OUT, evaluate_real, use_held_out
from vision.backgrounds import random_background
from vision.render_dice import DIE_STYLES, draw_die


@pytest.fixture(scope="module")
def reader():
    return DiceReader()


def _table_with_two_dice():
    rng = np.random.default_rng(3)
    img = random_background(rng, (640, 480))
    a = draw_die(img, (200, 240), 44, 5, yaw_deg=10, style=DIE_STYLES[0])
    b = draw_die(img, (440, 240), 44, 3, yaw_deg=25, style=DIE_STYLES[0])
    return img, a, b


def test_a_second_view_reads_the_die_the_merged_candidate_missed(reader):
    img, a, b = _table_with_two_dice()
    # the merge kept a view off the die's centre at die a (read "not a die"), a good one at die b
    off = Candidate((a.center[0] + 18, a.center[1] - 14), 44.0, 0.8)
    good_b = Candidate(b.center, 44.0, 0.8)
    fixed = [off, good_b]
    probs = reader.classify(img, fixed)
    assert [d.value for d in reader.dice_from_scan(fixed, probs)] == [3]
    # the detector's other views of die a (dropped by the merge) and of die b
    view_a = Candidate(a.center, 42.0, 0.5)
    view_b = Candidate((b.center[0] + 3, b.center[1]), 40.0, 0.5)
    st = reader.settings
    probs[0, :6] = np.maximum(probs[0, :6], st.second_views)  # the off view: some chance of a die
    cands, more = reader.second_views(img, [off, view_a, good_b, view_b], fixed, list(fixed), probs)
    assert len(cands) == 3 and cands[2].second and cands[2].center == view_a.center  # b's view not read
    dice = reader.dice_from_scan(cands, more)
    assert sorted(d.value for d in dice) == [3, 5]
    # off: nothing added
    off_reader = DiceReader(settings=dataclasses.replace(reader.settings, second_views=None))
    assert off_reader.second_views(img, [off, view_a, good_b, view_b], fixed, list(fixed), probs)[0] == fixed


def test_a_second_view_needs_the_stricter_acceptance(reader):
    img, a, _ = _table_with_two_dice()
    c = Candidate(a.center, 44.0, 0.95)
    p = np.zeros((1, 8))
    p[0, 4], p[0, 6] = 0.55, 0.45  # a five at 0.55, peak 0.95: a die by the detector-peak rule
    assert [d.value for d in reader.dice_from_scan([c], p)] == [5]
    assert reader.dice_from_scan([dataclasses.replace(c, second=True)], p) == []
    p[0, 4], p[0, 6] = 0.65, 0.35
    assert [d.value for d in reader.dice_from_scan([dataclasses.replace(c, second=True)], p)] == [5]


def test_held_out_photos_more_dice_no_more_wrong_values(shared_data):
    # fold 0 read by the copies of the free-photo models that never saw it (every 4th photo; all of
    # fold 0: matteop65 +4 dice found, nell-byler +5, no more wrong values, one more false die)
    held = DiceReader(settings=use_held_out(DiceSettings()))
    assert held.settings.detector.startswith(HELD_OUT)
    without = DiceReader(settings=use_held_out(DiceSettings(second_views=None)))
    for name in ("matteop65", "nell-byler"):
        items = [it for it in load_dataset(shared_data / "dice" / name) if it.fold() == 0][::4]
        on, off = evaluate_real(items, held, 0), evaluate_real(items, without, 0)
        assert on["found"] >= off["found"] + 1, (name, on["found"], off["found"])
        assert on["found"] - on["correct"] <= off["found"] - off["correct"], name
        assert on["false_dice"] <= off["false_dice"], name

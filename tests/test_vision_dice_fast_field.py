"""The optional fast detector for registered boards (``DiceSettings.field_detector``)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice import DiceReader, DiceSettings
from vision.evaluate_dice import match
from vision.render_dice import render_roll_on_board


@pytest.fixture(scope="module")
def fast():
    return DiceReader(settings=DiceSettings(field_detector="dice_detector_fast.onnx"))


def test_fast_field_detector_reads_rendered_rolls(fast):
    rng = np.random.default_rng(11)
    found = right = total = false = 0
    for _ in range(12):
        roll = render_roll_on_board(rng, cocked_prob=0.0)
        dice = fast.read(roll.image, roll.field)
        gc = np.array([d.center for d in roll.dice])
        pc = np.array([d.center for d in dice]).reshape(-1, 2)
        pairs = match(pc, gc, np.array([d.size for d in roll.dice]))
        total += len(gc)
        found += len(pairs)
        false += len(dice) - len(pairs)
        right += sum(dice[i].value == roll.dice[j].value for i, j in pairs)
    assert found >= total - 2 and right >= found - 1 and false <= 1


def test_free_photos_still_use_the_main_detector(fast):
    plain = DiceReader()
    rng = np.random.default_rng(2)
    roll = render_roll_on_board(rng, cocked_prob=0.0)
    a, b = fast.candidates(roll.image), plain.candidates(roll.image)
    assert [c.center for c in a] == [c.center for c in b]
    # with the die size known, the fast detector proposes its own candidates
    die = roll.dice[0].size
    assert [c.center for c in fast.candidates(roll.image, die)] != [c.center for c in plain.candidates(roll.image, die)]


def test_missing_field_detector_is_reported():
    with pytest.raises(FileNotFoundError):
        DiceReader(settings=DiceSettings(field_detector="no_such_detector.onnx"))

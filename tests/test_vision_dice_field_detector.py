"""The registered-board detector (``dice_detector_field.onnx``, ``DiceSettings.field_detector``)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice import DiceReader, DiceSettings
from vision.evaluate_dice import match

pytest.importorskip("vision.render_board")
from vision.render_roll import render_roll_on_board  # noqa: E402


@pytest.fixture(scope="module")
def reader():
    return DiceReader()


def test_field_detector_reads_rendered_rolls(reader):
    # seed 11 is neither a training, validation nor test seed of the models
    assert reader.settings.field_detector == "dice_detector_field.onnx"
    rng = np.random.default_rng(11)
    found = right = total = false = 0
    for _ in range(12):
        roll = render_roll_on_board(rng, cocked_prob=0.0)
        dice = reader.read(roll.image, roll.field)
        gc = np.array([d.center for d in roll.dice])
        pc = np.array([d.center for d in dice]).reshape(-1, 2)
        pairs = match(pc, gc, np.array([d.size for d in roll.dice]))
        total += len(gc)
        found += len(pairs)
        false += len(dice) - len(pairs)
        right += sum(dice[i].value == roll.dice[j].value for i, j in pairs)
    assert found >= total - 1 and right >= found - 1 and false <= 1, (found, right, total, false)


def test_free_photos_use_the_main_detector(reader):
    main = DiceReader(settings=DiceSettings(field_detector=None, field_die_input_px=12.0))
    rng = np.random.default_rng(2)
    roll = render_roll_on_board(rng, cocked_prob=0.0)
    a, b = reader.candidates(roll.image), main.candidates(roll.image)
    assert [c.center for c in a] == [c.center for c in b]
    # with the die size known, the field detector proposes its own candidates, on a smaller input
    die = roll.dice[0].size
    assert [c.center for c in reader.candidates(roll.image, die)] != [c.center for c in main.candidates(roll.image, die)]


def test_missing_field_detector_is_reported():
    with pytest.raises(FileNotFoundError, match="no_such_detector.onnx"):
        DiceReader(settings=DiceSettings(field_detector="no_such_detector.onnx"))

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


@pytest.mark.parametrize("band", [(0.28, 0.34), (0.72, 0.82)], ids=["travel dice", "jumbo dice"])
def test_dice_of_any_size_are_read_on_a_registered_board(reader, band):
    # the board implies tournament dice (about 0.45 of a checker); smaller and larger dice are read
    # all the same (seed 31 is neither a training, validation nor benchmark seed)
    from vision.render_roll import evaluate_cocked_rendered

    r = evaluate_cocked_rendered(20, reader, seed=31, cocked_prob=0.0, cube_prob=0.5, die_to_checker=band)
    rolls = r["rolls"]
    assert rolls["flat"] == 20
    # benchmarks/dice_sizes.py reads 94/94 travel and 92/97 jumbo rolls exactly (the detector
    # trained for tournament dice only: 53/97 jumbo)
    assert rolls["flat_exact"] >= 18, r
    assert sum(n for _, n in r["flat_exact_by"]["board_style"].values()) == 20
    assert sum(e for e, _ in r["flat_exact_by"]["dice_style"].values()) == rolls["flat_exact"]

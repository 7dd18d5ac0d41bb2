"""The dice reader on real photographs and rendered dice, and its input checks."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice import DiceReader, ImageError, read_dice
from vision.dice_data import load_dataset
from vision.evaluate_dice import evaluate_real, match
from vision.backgrounds import random_background
from vision.render_dice import DIE_STYLES, draw_die


@pytest.fixture(scope="module")
def reader():
    return DiceReader()


def test_real_photos_of_both_datasets(reader, shared_data):
    # A spread-out sample; the full held-out figures come from `python -m vision.evaluate_dice`.
    for name in ("nell-byler", "matteop65"):
        res = evaluate_real(load_dataset(shared_data / "dice" / name), reader, None, limit=12)
        assert res["labelled"] >= 12
        assert res["found_rate"] >= 0.85, (name, res["errors"])
        assert res["value_accuracy"] >= 0.95, (name, res["errors"])
        assert res["false_rate"] <= 0.05, (name, res["errors"])


@pytest.mark.parametrize("style", DIE_STYLES[:6], ids=lambda s: s.name)
def test_rendered_dice_of_several_styles(reader, style):
    rng = np.random.default_rng(7)
    img = random_background(rng, (640, 480))
    truth = []
    for i, v in enumerate((1, 2, 3, 4, 5, 6)):
        truth.append(draw_die(img, (90 + 95 * i, 160 + 140 * (i % 2)), 42, v, yaw_deg=17 * i, style=style))
    dice = reader.read(img)
    pc = np.array([d.center for d in dice]).reshape(-1, 2)
    gc = np.array([t.center for t in truth])
    pairs = match(pc, gc, np.full(len(truth), 42.0))
    assert len(pairs) == 6 and len(dice) == 6
    assert sorted(dice[i].value == truth[j].value for i, j in pairs).count(True) >= 5


def test_empty_table_has_no_dice(reader):
    img = np.full((480, 640, 3), (50, 90, 140), np.uint8)
    assert reader.read(img) == []


def test_bad_images_raise(reader):
    with pytest.raises(ImageError):
        read_dice(np.zeros((10, 10, 3), np.float32), reader=reader)
    with pytest.raises(ValueError):
        reader.read(np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(FileNotFoundError):
        DiceReader("/nonexistent/models")

"""Hard examples for the dice classifiers (vision/training/mining.py; onnxruntime, no torch): a
detector's false alarms, with the registered-board detector searched as ``companion watch``
searches, on a rendered board with hinges on its bar."""

from __future__ import annotations

import pathlib

import numpy as np

from vision.dice_data import LabelledImage
from vision.render_hinges import draw_bar_hinges
from vision.render_roll import render_roll_on_board
from vision.training.mining import mine_hard_negatives

MODELS = pathlib.Path(__file__).resolve().parent.parent / "vision" / "models"


def _hinged_board(seed: int):
    rng = np.random.default_rng(seed)
    roll = render_roll_on_board(rng, cocked_prob=0.0, cube_prob=0.0)
    image = roll.image.copy()
    hinges = draw_bar_hinges(image, roll.field, rng)
    boxes = np.array([[d.center[0] - d.size / 2, d.center[1] - d.size / 2, d.center[0] + d.size / 2,
                       d.center[1] + d.size / 2] for d in roll.dice])
    item = LabelledImage("rendered-board", pathlib.Path("board.png"), boxes, np.array([d.value for d in roll.dice]),
                         (image.shape[1], image.shape[0]))
    return image, item, hinges, roll


def test_the_registered_board_detector_adds_the_hinges_screws_as_not_a_die():
    image, item, hinges, roll = _hinged_board(0)
    lines: list[str] = []
    found = {}
    for name, field in (("main", None), ("field", MODELS / "dice_detector_field.onnx")):
        bad, matched = mine_hard_negatives([(image, item)], MODELS / "dice_detector.onnx", lines.append,
                                           field_detector=field)
        found[name] = bad.get(0, [])
        assert len(matched[0]) == 2  # both dice matched by the main detector either way
        for x, y, _ in found[name]:  # no false alarm on a die
            assert all(np.hypot(x - d.center[0], y - d.center[1]) > 0.5 * d.size for d in roll.dice)
    assert set(found["main"]) <= set(found["field"])
    on_hinges = [(x, y) for x, y, _ in found["field"] if any(h[0] <= x <= h[2] and h[1] <= y <= h[3] for h in hinges)]
    assert len(on_hinges) > sum(any(h[0] <= x <= h[2] and h[1] <= y <= h[3] for h in hinges)
                                for x, y, _ in found["main"])
    assert lines and lines[-1].startswith("hard negatives:")


def test_a_free_photo_is_not_searched_by_the_registered_board_detector():
    image, item, _, _ = _hinged_board(1)
    photo = LabelledImage("nell-byler", item.path, item.boxes, item.values, item.size)
    mined = [mine_hard_negatives([(image, photo)], MODELS / "dice_detector.onnx", lambda line: None,
                                 field_detector=field)[0] for field in (None, MODELS / "dice_detector_field.onnx")]
    assert mined[0] == mined[1]

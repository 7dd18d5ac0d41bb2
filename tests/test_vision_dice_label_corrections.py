"""Label mistakes of the real dice photos: :mod:`vision.label_corrections` and
``python -m vision.evaluate_dice --label-corrections``."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from vision.dice import DiceReader, DiceSettings
from vision.dice_data import DatasetError, LabelledImage, iter_datasets
from vision.evaluate_dice import evaluate_real, main, use_held_out
from vision.label_corrections import load_label_corrections, with_corrections

SHIPPED = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "dice_label_corrections.json"


def _photo(name="a.jpg"):
    boxes = np.array([[10, 10, 40, 40], [100, 10, 130, 40], [10, 100, 40, 130]], np.float64)
    return LabelledImage("set", pathlib.Path("/x") / name, boxes, np.array([2, 5, 1], np.int64), (200, 200))


def _write(tmp_path, entries):
    path = tmp_path / "fixes.json"
    path.write_text(json.dumps(entries))
    return path


def test_a_value_is_corrected_a_label_dropped_and_a_missing_die_added(tmp_path):
    path = _write(tmp_path, [
        {"dataset": "set", "image": "a.jpg", "labelled": 2, "at": [25, 25], "value": 3, "why": "three pips"},
        {"dataset": "set", "image": "a.jpg", "labelled": 1, "at": [25.5, 115], "value": None, "why": "no die"},
        {"dataset": "set", "image": "a.jpg", "labelled": None, "box": [150, 150, 180, 180], "value": 6},
        {"dataset": "set", "image": "other.jpg", "labelled": 4, "at": [1, 1], "value": 5},
    ])
    fixed, applied = with_corrections([_photo(), _photo("b.jpg")], load_label_corrections(path))
    assert applied == 3
    a, b = fixed
    assert a.values.tolist() == [3, 5, 6]
    assert a.boxes.tolist() == [[10, 10, 40, 40], [100, 10, 130, 40], [150, 150, 180, 180]]
    assert b.values.tolist() == [2, 5, 1]  # another photo: unchanged
    assert _photo().values.tolist() == [2, 5, 1]  # the input is not changed


def test_a_correction_that_no_longer_matches_the_labels_is_an_error(tmp_path):
    # the value differs, or the box moved by more than two pixels
    for entry in ({"dataset": "set", "image": "a.jpg", "labelled": 4, "at": [25, 25], "value": 3},
                  {"dataset": "set", "image": "a.jpg", "labelled": 2, "at": [29, 25], "value": 3}):
        with pytest.raises(DatasetError, match="no label"):
            with_corrections([_photo()], load_label_corrections(_write(tmp_path, [entry])))


@pytest.mark.parametrize("text", [
    "not json",
    '{"dataset": "set"}',
    '[{"image": "a.jpg", "labelled": 2, "at": [1, 1], "value": 3}]',
    '[{"dataset": "set", "image": "a.jpg", "labelled": 7, "at": [1, 1], "value": 3}]',
    '[{"dataset": "set", "image": "a.jpg", "labelled": 2, "at": [1, 1], "value": 2}]',
    '[{"dataset": "set", "image": "a.jpg", "labelled": 2, "at": [1], "value": 3}]',
    '[{"dataset": "set", "image": "a.jpg", "labelled": null, "box": [5, 5, 1, 1], "value": 3}]',
    '[{"dataset": "set", "image": "a.jpg", "labelled": null, "box": [1, 1, 5, 5], "value": null}]',
    '[{"dataset": "set", "image": "a.jpg", "labelled": true, "at": [1, 1], "value": 3}]',
])
def test_a_malformed_corrections_file_is_a_clear_error(tmp_path, text, capsys):
    path = tmp_path / "fixes.json"
    path.write_text(text)
    with pytest.raises(DatasetError):
        load_label_corrections(path)
    # the evaluation says so and stops, no traceback
    assert main(["--label-corrections", str(path), "--limit", "1"]) == 2
    assert "error" in capsys.readouterr().err


def test_the_shipped_corrections_match_the_real_labels_and_the_photos(shared_data):
    # every correction still finds its label; read by the reader, the corrected photos have fewer
    # wrong values and false dice against the corrected labels than against the labels as they are
    corrections = load_label_corrections(SHIPPED)
    names = {(c.dataset, c.image) for c in corrections}
    photos = [it for _, items in iter_datasets(shared_data / "dice") for it in items if (it.dataset, it.path.name) in names]
    fixed, applied = with_corrections(photos, corrections)
    assert applied == len(corrections) and len(photos) == len(names)
    reader = DiceReader(settings=use_held_out(DiceSettings()))
    raw, new = evaluate_real(photos, reader, None), evaluate_real(fixed, reader, None)
    wrong_raw, wrong_new = raw["found"] - raw["correct"], new["found"] - new["correct"]
    assert wrong_new + new["false_dice"] <= wrong_raw + raw["false_dice"] - 8, (raw, new)
    assert new["found"] >= raw["found"]

"""Training labels: boxes of a one's pip alone (matteop65's convention) become boxes of the die."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from vision.dice_data import LabelledImage, load_dataset, pip_label_ratio, with_die_boxes


def _item(name: str, sides, values, centre=(100.0, 100.0)) -> LabelledImage:
    boxes = np.array([[centre[0] + 80 * k - s / 2, centre[1] - s / 2, centre[0] + 80 * k + s / 2, centre[1] + s / 2]
                      for k, s in enumerate(sides)], dtype=np.float64).reshape(-1, 4)
    return LabelledImage("t", pathlib.Path(name), boxes, np.asarray(values, dtype=np.int64), (640, 480))


def _sides(it: LabelledImage) -> np.ndarray:
    return np.maximum(it.boxes[:, 2] - it.boxes[:, 0], it.boxes[:, 3] - it.boxes[:, 1])


def test_pip_boxes_take_the_side_of_the_photos_other_dice_or_the_dataset_ratio():
    items = [_item("a.jpg", [40, 42, 18], [3, 5, 1]), _item("b.jpg", [44, 20], [6, 1]),
             _item("c.jpg", [16, 24], [1, 1])]
    ratio = pip_label_ratio(items)
    assert ratio == pytest.approx(np.median([18 / 41, 20 / 44]))
    a, b, c = with_die_boxes(items)
    assert _sides(a) == pytest.approx([40, 42, 41])
    assert _sides(b) == pytest.approx([44, 44])
    # a photo of ones only: its boxes widened by the dataset's ratio, centres kept
    assert _sides(c) == pytest.approx([16 / ratio, 24 / ratio])
    assert c.centers == pytest.approx(items[2].centers)
    assert list(c.values) == [1, 1]


def test_datasets_that_box_whole_dice_are_unchanged():
    items = [_item("a.jpg", [40, 42, 39], [3, 5, 1]), _item("b.jpg", [30, 31], [1, 1])]
    assert pip_label_ratio(items) is None
    out = with_die_boxes(items)
    for old, new in zip(items, out):
        assert np.array_equal(old.boxes, new.boxes)


def test_matteop65_ones_get_die_sized_boxes(shared_data):
    items = load_dataset(shared_data / "dice" / "matteop65")
    fixed = with_die_boxes(items)
    mixed = [(o, n) for o, n in zip(items, fixed) if (o.values == 1).any() and (o.values != 1).any()]
    assert mixed, "matteop65 has photos with ones among other values"
    for old, new in mixed:
        others = np.median(_sides(old)[old.values != 1])
        ones = _sides(new)[new.values == 1]
        assert np.all(ones >= 0.7 * others - 1e-9)
        assert np.array_equal(_sides(old)[old.values != 1], _sides(new)[new.values != 1])
    nell = load_dataset(shared_data / "dice" / "nell-byler")
    assert pip_label_ratio(nell) is None

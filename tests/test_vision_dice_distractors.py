"""Marks that are not dice (printed text, checkers, scales, symbols, a clock's digits) on synthetic
training photos."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice_photos import synthetic_training_images
from vision.render_distractors import draw_distractors, marks_photos


def test_each_mark_is_drawn_where_asked_and_its_boxes_lie_on_it():
    rng = np.random.default_rng(7)
    for _ in range(12):  # a dozen marks of random kinds
        img = np.full((200, 300, 3), 128, np.uint8)
        boxes, radii = draw_distractors(img, rng, 30.0, [(150.0, 100.0)])
        changed = np.argwhere(np.abs(img.astype(int) - 128).sum(axis=2) > 30)
        assert len(changed) > 20, "the mark left the image unchanged"
        ys, xs = changed[:, 0], changed[:, 1]
        assert np.hypot(xs - 150, ys - 100).max() <= radii[0] + 2
        assert len(boxes) >= 1
        for x0, y0, x1, y1 in boxes:
            side = x1 - x0
            assert 30 * 0.8 <= side <= 30 * 1.25 and abs((y1 - y0) - side) < 1e-9
            assert np.hypot((x0 + x1) / 2 - 150, (y0 + y1) / 2 - 100) <= radii[0]


def test_a_die_side_too_small_for_marks_is_refused():
    with pytest.raises(ValueError):
        draw_distractors(np.zeros((50, 50, 3), np.uint8), np.random.default_rng(0), 2.0, [(25.0, 25.0)])


def test_synthetic_photos_keep_dice_off_the_marks():
    out = synthetic_training_images(12, np.random.default_rng(3), distractors=1.0)
    assert sum(len(it.distractor_boxes) for _, it in out) >= 12
    for _, it in out:
        if not len(it.values):
            continue
        sizes = np.maximum(it.boxes[:, 2] - it.boxes[:, 0], it.boxes[:, 3] - it.boxes[:, 1])
        for x0, y0, x1, y1 in it.distractor_boxes:
            d = np.hypot(it.centers[:, 0] - (x0 + x1) / 2, it.centers[:, 1] - (y0 + y1) / 2)
            assert np.all(d > 0.55 * sizes), "a 'not a die' box sits on a labelled die"


def test_no_marks_unless_asked_and_shares_are_checked():
    out = synthetic_training_images(4, np.random.default_rng(3))
    assert all(len(it.distractor_boxes) == 0 for _, it in out)
    with pytest.raises(ValueError):
        synthetic_training_images(1, np.random.default_rng(3), distractors=1.5)


def test_the_free_photo_reader_reads_no_die_on_marks_that_are_not_dice():
    """Printed text, checkers and their icons, scales, symbols and a clock's digits on a table:
    the shipped free-photo classifier is trained to turn them down (the previous one read 33
    false dice on 360 such marks, ``benchmarks/dice_marks.py``)."""
    import cv2

    from vision.dice import DiceReader

    cv2.setNumThreads(1)
    reader = DiceReader()
    false = sum(len(reader.read(img)) for img in marks_photos(20, np.random.default_rng(2024)))
    assert false <= 2, f"{false} dice read on 120 marks that are not dice"

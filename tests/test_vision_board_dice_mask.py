"""Dice are not checkers: the dice the plug-in finds are masked out of the checker evidence."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion.observation import DieReading
from vision.checkers import CheckerReadError, CheckerSettings, dice_mask_from_boxes, read_checkers, warp_for_reading
from vision.reader import BoardReader, load_image
from vision.registration import FIELD_HEIGHT, FIELD_WIDTH, field_from_corners
from vision.render_board import BoardState, Lighting, render_board
from vision.render_dice import draw_die


def _opening_with_dice(style: str):
    """The opening position with three dice: on empty point 3's base, on point 6's base
    checker (a stack of five) and on point 1's outer checker (two)."""
    r = render_board(BoardState.starting(), style, lighting=Lighting(blur=0.6, noise=2, gradient=0.15))
    by_point: dict[int, list[tuple[float, float]]] = {}
    for x, y, _, p in r.checkers:
        by_point.setdefault(p, []).append((x, y))
    # Image layout: point 1 bottom right, point 6 by the bar; bases nearest the bottom edge.
    p1 = max(by_point[1], key=lambda c: c[1])
    p6 = max(by_point[6], key=lambda c: c[1])
    p1_top = min(by_point[1], key=lambda c: c[1])
    empty3 = (p1[0] + (p6[0] - p1[0]) * 2 / 5, p1[1])
    size = abs(p6[0] - p1[0]) / 5 * 0.5  # half a point wide
    dice = []
    for (x, y), v in ((empty3, 5), (p6, 3), (p1_top, 6)):
        d = draw_die(r.image, (x, y), size, v, yaw_deg=20.0)
        dice.append(DieReading(d.value, d.center, d.box))
    return r, dice


@pytest.mark.parametrize("style", ["tournament", "walnut", "green"])
def test_dice_on_points_change_no_count(style):
    r, dice = _opening_with_dice(style)
    h, w = r.image.shape[:2]
    reader = BoardReader(field=field_from_corners(r.corners, (w, h)), dice_reader=lambda img, fld: dice)
    obs = reader.read(r.image).to_dict()
    assert [(p["count"], p["colour"]) for p in obs["points"]] == \
        [(p["count"], p["colour"]) for p in r.truth["points"]]
    assert obs["unreadable_points"] == []
    assert [d["value"] for d in obs["dice"]] == [5, 3, 6]


def test_mask_covers_the_box_on_the_working_field():
    corners = np.array([[100, 50], [1180, 50], [1180, 670], [100, 670]], float)
    field = field_from_corners(corners, (1280, 720))
    s = CheckerSettings().work_scale
    shape = (int(round(FIELD_HEIGHT * s)), int(round(FIELD_WIDTH * s)))
    # A 40-pixel box around the image centre: the field's centre on the working field.
    mask = dice_mask_from_boxes([(620, 340, 660, 380)], field, shape, s, grow=0.0)
    ys, xs = np.nonzero(mask)
    assert abs(xs.mean() - shape[1] / 2) < 1.5 and abs(ys.mean() - shape[0] / 2) < 1.5
    expected = (40 * FIELD_WIDTH / 1080 * s + 1) * (40 * FIELD_HEIGHT / 620 * s + 1)  # pixels, border included
    assert 0.8 * expected < mask.sum() < 1.2 * expected
    assert not dice_mask_from_boxes([], field, shape, s).any()


def test_mask_of_the_wrong_shape_is_refused():
    r = render_board(BoardState.starting(), "tournament")
    h, w = r.image.shape[:2]
    field = field_from_corners(r.corners, (w, h))
    small = warp_for_reading(r.image, field)
    with pytest.raises(CheckerReadError):
        read_checkers(small, field, dice_mask=np.ones((3, 3), bool))


def test_real_photo_die_on_an_empty_point(shared_data):
    # test6: a black die lies on the empty ivory point 8 (bottom row, 0-based index 4).
    from vision.evaluate import label_dice, label_truth

    boards = shared_data / "boards"
    label = json.loads((boards / "labels" / "test6.json").read_text())
    truth = label_truth(label)
    image = load_image(boards / label["file"])
    h, w = image.shape[:2]
    reader = BoardReader(field=field_from_corners(truth["corners"], (w, h)),
                         dice_reader=lambda img, fld: label_dice(label, fld))
    obs = reader.read(image).to_dict()
    assert obs["points"][7]["count"] == 0 and obs["points"][7]["colour"] is None
    assert truth["points"][7][0] == 0

"""Dice are not checkers: the dice the plug-in finds are masked out of the classical reader's
evidence and covered in the learned reader's crops."""

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
    # The classical reader masks the dice out of its evidence: every count exact.
    r, dice = _opening_with_dice(style)
    h, w = r.image.shape[:2]
    reader = BoardReader(field=field_from_corners(r.corners, (w, h)), dice_reader=lambda img, fld: dice,
                         point_model=None)
    obs = reader.read(r.image).to_dict()
    assert [(p["count"], p["colour"]) for p in obs["points"]] == \
        [(p["count"], p["colour"]) for p in r.truth["points"]]
    assert obs["unreadable_points"] == []
    assert [d["value"] for d in obs["dice"]] == [5, 3, 6]


@pytest.mark.parametrize("style", ["tournament", "walnut", "green"])
def test_dice_on_points_leave_the_learned_reader_open_to_the_truth(style):
    # The learned reader covers the dice found. Points without a die read exactly; where a die
    # hides most of a checker, or lies where one would stand, the true count keeps enough
    # probability for the referee to accept the board the game allows (companion.likelihood).
    from companion.likelihood import ALLOWED_RATIO

    r, dice = _opening_with_dice(style)
    h, w = r.image.shape[:2]
    reader = BoardReader(field=field_from_corners(r.corners, (w, h)), dice_reader=lambda img, fld: dice)
    obs = reader.read(r.image)
    truth = [(p["count"], p["colour"]) for p in r.truth["points"]]
    under_dice = {1, 3, 6}
    got = [(p.count, p.colour) for p in obs.points]
    assert [g for i, g in enumerate(got) if i + 1 not in under_dice] == \
        [t for i, t in enumerate(truth) if i + 1 not in under_dice]
    for point in under_dice:
        reading = obs.points[point - 1]
        count, colour = truth[point - 1]
        signed = 0 if count == 0 else (count if colour == "light" else -count)
        best = max(pr for _, pr in reading.distribution)
        assert reading.probability(signed) >= best / ALLOWED_RATIO, (point, reading.distribution)
    # only the empty point whose first place the die covers may be flagged (read as 0 or 1 below
    # UNSURE_UNDER_DIE: the die could hide a lone checker); the stacks under dice are read
    assert set(obs.unreadable_points) <= {3}


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
    # The classical reader on test6: a black die lies on the empty ivory point 8 (bottom row,
    # 0-based index 4).
    from vision.evaluate import label_dice, label_truth

    boards = shared_data / "boards"
    label = json.loads((boards / "labels" / "test6.json").read_text())
    truth = label_truth(label)
    image = load_image(boards / label["file"])
    h, w = image.shape[:2]
    reader = BoardReader(field=field_from_corners(truth["corners"], (w, h)),
                         dice_reader=lambda img, fld: label_dice(label, fld), point_model=None)
    obs = reader.read(image).to_dict()
    assert obs["points"][7]["count"] == 0 and obs["points"][7]["colour"] is None
    assert truth["points"][7][0] == 0


# --- the counting rules these changes added (pure functions) -------------------------------

def test_stack_count_bridges_at_most_two_faint_slots():
    from vision.checkers import _stack_count

    s = CheckerSettings()
    assert _stack_count(np.array([1.2, 0.8, 0.75, 1.3, 0.1]), s) == 4  # two faint ones inside a stack
    assert _stack_count(np.array([1.2, 0.8, 0.75, 0.8, 1.3]), s) == 1  # three faint: an uneven empty point
    assert _stack_count(np.array([1.2, 0.5, 1.3]), s) == 1  # too faint to bridge


def test_stack_count_under_a_die():
    from vision.checkers import _stack_count

    s = CheckerSettings()
    # A die hides the base slot but a checker stands beyond it: checkers do not float.
    assert _stack_count(np.array([0.0, 1.5, 0.2]), s, covered=np.array([0.9, 0.0, 0.0])) == 2
    # A die's remains are no faint checker: a covered faint slot starts no faint run.
    assert _stack_count(np.array([1.4, 0.8, 0.8, 1.2]), s, covered=np.array([0.0, 0.4, 0.0, 0.0])) == 1
    assert _stack_count(np.array([1.4, 0.8, 0.8, 1.2]), s) == 4  # the same slots without the die
    assert _stack_count(np.array([0.0, 0.1]), s, covered=np.array([0.9, 0.0])) == 0


def _line(place, n, colour, arc, outlined=False):
    from vision.checkers import Checker

    return [Checker(0.0, float(k), (50.0, 128.0, 128.0), 1.5, place, colour, outlined, arc) for k in range(n)]


def test_over_fifteen_a_rimless_line_is_cloth():
    from vision.checkers import _colour_only_lines

    s = CheckerSettings()
    outlined = _line(1, 5, "dark", 3.0, True) + _line(6, 5, "dark", 3.0, True) + _line(12, 2, "dark", 3.0, True)
    sleeve = _line(17, 4, "dark", 0.05)
    assert _colour_only_lines(outlined + sleeve, set(), s) == [17]
    # A dark stack on a dark point still shows faint rims: not cloth.
    assert _colour_only_lines(outlined + _line(17, 4, "dark", 0.6), set(), s) == []
    # At 15 or fewer nothing is called cloth, and unreadable points are left out.
    assert _colour_only_lines(outlined[:9] + sleeve, set(), s) == []
    assert _colour_only_lines(outlined + sleeve, {17}, s) == []

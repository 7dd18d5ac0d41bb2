"""Real dice cut out of the labelled dice photos and pasted onto boards (``vision/dice_cutouts.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice_cutouts import CutDie, against_checker, cut_dice, cut_die, paste_die, real_dice_boards, support
from vision.dice_data import load_dataset, with_die_boxes


@pytest.fixture(scope="module")
def photos(shared_data):
    items = with_die_boxes(load_dataset(shared_data / "dice" / "nell-byler"))
    return [it for it in items if it.fold() == 1][:6]


def test_a_die_is_cut_from_its_grey_card_with_its_pips(photos):
    import cv2

    cut = cut_dice(photos)
    assert len(cut) >= 0.5 * sum(len(it.values) for it in photos)
    for die in cut:
        box_area = die.alpha.shape[0] * die.alpha.shape[1]
        inside = die.alpha > 0.5
        assert 0.15 * box_area < inside.sum() < 0.8 * box_area  # the box grown by a quarter a side
        # the cut is one solid region: the pips are inside it (holes filled)
        n, _ = cv2.connectedComponents(inside.astype(np.uint8))
        assert n == 2
        assert 1 <= die.value <= 6 and die.source.endswith(".jpg")
    # the grey card is left out: the die differs from the ring around it
    die = cut[0]
    ring = (die.alpha < 0.05)
    assert np.abs(die.patch[die.alpha > 0.9].mean(0) - die.patch[ring].mean(0)).max() > 15


def test_a_box_on_the_bare_card_is_not_a_die():
    card = np.full((120, 120, 3), 180, np.uint8)
    card += np.random.default_rng(0).integers(0, 6, card.shape, dtype=np.uint8)
    assert cut_die(card, np.array([40.0, 40.0, 80.0, 80.0]), 3) is None
    assert cut_die(card, np.array([40.0, 40.0, 45.0, 45.0]), 3) is None  # too small to be a die


def test_a_pasted_die_covers_its_place_at_its_size_and_nothing_far_from_it():
    patch = np.full((40, 40, 3), 200, np.uint8)
    patch[10:30, 10:30] = (20, 20, 200)  # a red die 20 pixels a side on a light card
    alpha = np.zeros((40, 40), np.float32)
    alpha[10:30, 10:30] = 1
    die = CutDie(patch, alpha, 20.0, 4, "test")
    board = np.full((200, 300, 3), (40, 120, 40), np.uint8)
    paste_die(board, die, (150.0, 100.0), 30.0, 0.0)
    red = (board[..., 2] > 150) & (board[..., 1] < 80)
    ys, xs = np.nonzero(red)
    assert abs(xs.mean() - 150) < 1.5 and abs(ys.mean() - 100) < 1.5
    assert 26 <= xs.max() - xs.min() + 1 <= 32  # the die's side, scaled from 20 to 30 pixels
    changed = np.abs(board.astype(int) - (40, 120, 40)).sum(2) > 0
    ys, xs = np.nonzero(changed)
    assert xs.min() >= 150 - 36 and xs.max() <= 150 + 36 and ys.max() <= 100 + 36  # die and shadow only
    paste_die(board, die, (-100.0, -100.0), 30.0, 0.0)  # wholly outside: nothing happens


def test_real_dice_boards_give_labelled_real_dice_at_the_board_size(photos):
    cut = cut_dice(photos)
    items = real_dice_boards(3, np.random.default_rng(2), cut, die_to_checker=(0.5, 0.6))
    assert len(items) == 3
    for image, item in items:
        assert image.shape == (720, 1280, 3) and item.dataset == "real-on-board"
        assert len(item.boxes) == 2 and set(item.values) <= {d.value for d in cut}
        sides = item.boxes[:, 2] - item.boxes[:, 0]
        assert (sides > 12).all() and (sides < 40).all()
        for (x0, y0, x1, y1) in item.boxes:  # a die was pasted there: it is not the board around it
            inner = image[int(y0) + 2:int(y1) - 2, int(x0) + 2:int(x1) - 2].reshape(-1, 3).astype(float)
            assert inner.std(0).max() > 8
    with pytest.raises(ValueError, match="no real die"):
        real_dice_boards(1, np.random.default_rng(0), [])


def test_a_turned_die_reaches_half_its_side_along_its_axes_and_more_toward_its_corners():
    assert support(20.0, 0.0, 0.0) == pytest.approx(10.0)
    assert support(20.0, 0.0, 90.0) == pytest.approx(10.0)
    assert support(20.0, 0.0, 45.0) == pytest.approx(10.0 * 2 ** 0.5)
    assert support(20.0, 30.0, -30.0) == pytest.approx(10.0)  # turned by 30: its axis points to -30 in the image
    assert support(20.0, 30.0, 0.0) == pytest.approx(10.0 * (np.cos(np.pi / 6) + np.sin(np.pi / 6)))


def test_a_die_against_a_checker_lies_0_to_2_pixels_from_its_rim_and_clear_of_the_others():
    rng = np.random.default_rng(0)
    checkers = np.array([[100.0, 100.0], [140.0, 100.0]])
    for yaw in (0.0, 20.0, 45.0):
        for _ in range(20):
            at = against_checker(checkers, 20.0, 12.0, yaw, rng)
            d = np.hypot(*(checkers - at).T)
            k = int(np.argmin(d))
            toward = np.degrees(np.arctan2(*(checkers[k] - at)[::-1]))  # from the die to its checker
            gap = d[k] - 20.0 - support(12.0, yaw, toward)
            assert -1e-6 <= gap <= 2 + 1e-6
            assert d[1 - k] >= 20.0 + 12.0 / np.sqrt(2) + 1 - 1e-6
    assert against_checker(np.zeros((0, 2)), 20.0, 12.0, 0.0, rng) is None
    assert against_checker(checkers, 20.0, 12.0, 0.0, rng, allowed=lambda at: False) is None


def test_real_dice_lie_face_to_face_apart_or_by_a_checker_as_the_placements_say(photos):
    """Touching dice 0-2 pixels apart, dice apart 1.5 sides or more, both dice placed by a checker
    (where against a rim is tested above); no positive share is an error."""
    cut = cut_dice(photos)
    touching = real_dice_boards(6, np.random.default_rng(4), cut, placements=(0, 1, 0))
    gaps = []
    for image, item in touching:
        assert len(item.boxes) == 2 and len(item.values) == 2
        centres = (item.boxes[:, :2] + item.boxes[:, 2:]) / 2
        sides = item.boxes[:, 2] - item.boxes[:, 0]
        gaps.append(float(np.hypot(*(centres[1] - centres[0]))) - sides.mean())
    # face to face with 0-2 pixels between: the second die was put beside the first in (nearly) all
    assert sum(-0.01 <= g <= 2.01 for g in gaps) >= 5
    apart = real_dice_boards(6, np.random.default_rng(4), cut, placements=(1, 0, 0))
    for _, item in apart:
        centres = (item.boxes[:, :2] + item.boxes[:, 2:]) / 2
        assert np.hypot(*(centres[1] - centres[0])) >= 1.5 * (item.boxes[0, 2] - item.boxes[0, 0]) - 1e-6
    leaning = real_dice_boards(3, np.random.default_rng(5), cut, placements=(0, 0, 1))
    assert all(len(item.boxes) == 2 for _, item in leaning)
    with pytest.raises(ValueError, match="placements"):
        real_dice_boards(1, np.random.default_rng(0), cut, placements=(0, 0, 0))


def test_hinges_are_drawn_across_the_bar_and_nowhere_else():
    from vision.registration import field_from_corners
    from vision.render_hinges import draw_bar_hinges

    corners = np.array([[100.0, 50.0], [1180.0, 50.0], [1180.0, 670.0], [100.0, 670.0]])
    field = field_from_corners(corners, (1280, 720))
    image = np.full((720, 1280, 3), (30, 90, 30), np.uint8)
    boxes = draw_bar_hinges(image, field, np.random.default_rng(4))
    assert len(boxes) == 2
    bar = field.to_image(np.array([[field.bar_x0, 0.0], [field.bar_x1, 0.0]]))[:, 0]
    changed = np.abs(image.astype(int) - (30, 90, 30)).sum(2) > 12
    ys, xs = np.nonzero(changed)
    assert bar[0] - 3 <= xs.min() and xs.max() <= bar[1] + 3  # on the bar only
    top, bottom = sorted(boxes, key=lambda b: b[1])
    assert top[3] < 360 < bottom[1]  # one hinge in each end of the bar
    for x0, y0, x1, y1 in boxes:
        assert 0.3 * (bar[1] - bar[0]) <= x1 - x0 <= 0.85 * (bar[1] - bar[0])
        plate = changed[int(y0):int(y1), int(x0):int(x1)]
        assert plate.mean() > 0.8  # a solid plate

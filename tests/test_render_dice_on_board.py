"""vision.render_dice.draw_die_on_board: a die drawn lying in the plane of a board seen obliquely."""

import numpy as np
import pytest


def _oblique():
    import cv2

    from vision.registration import FIELD_HEIGHT, FIELD_WIDTH

    canon = np.array([[0, 0], [FIELD_WIDTH, 0], [FIELD_WIDTH, FIELD_HEIGHT], [0, FIELD_HEIGHT]], np.float32)
    seen = np.array([[300, 120], [980, 60], [1180, 560], [150, 660]], np.float32)  # a strong keystone and turn
    return cv2.getPerspectiveTransform(canon, seen).astype(np.float64)


def test_a_flat_die_lies_square_in_the_board_s_plane():
    import cv2

    from vision.registration import FIELD_HEIGHT, FIELD_WIDTH
    from vision.render_dice import draw_die_on_board

    h = _oblique()
    image = np.full((720, 1280, 3), 200, np.uint8)
    at, side = (320.0, 300.0), 40.0
    die = draw_die_on_board(image, h, at, side, 5, yaw_deg=0.0, shadow=0.0)
    assert die.value == 5 and not die.cocked
    v = h @ np.array([at[0], at[1], 1.0])
    assert np.hypot(die.center[0] - v[0] / v[2], die.center[1] - v[1] / v[2]) < 2.0
    # seen from above again (the board's homography undone), the die is a square of its side
    top = cv2.warpPerspective(image, np.linalg.inv(h), (FIELD_WIDTH, FIELD_HEIGHT), borderValue=(200, 200, 200))
    ys, xs = np.nonzero(np.abs(top.astype(int) - 200).max(axis=2) > 40)
    width, height = xs.max() - xs.min() + 1, ys.max() - ys.min() + 1
    assert width == pytest.approx(side, abs=3) and height == pytest.approx(side, abs=3)
    # in the photo it is foreshortened as the board is: not the square draw_die would draw there
    x0, y0, x1, y1 = die.box
    assert abs((x1 - x0) - (y1 - y0)) > 3
    assert 0.7 * min(x1 - x0, y1 - y0) < die.size < max(x1 - x0, y1 - y0)  # the top face's side in the photo


def test_only_the_die_s_footprint_changes_and_bad_sizes_are_refused():
    from vision.render_dice import RenderError, draw_die_on_board

    h = _oblique()
    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    before = image.copy()
    die = draw_die_on_board(image, h, (100.0, 450.0), 30.0, 2, yaw_deg=25.0, tilt_deg=20.0)
    assert die.cocked and die.reason == "tilted"
    changed = np.nonzero(np.abs(image.astype(int) - before).max(axis=2) > 0)
    assert len(changed[0]) > 100
    x0, y0, x1, y1 = die.box
    reach = 0.6 * max(x1 - x0, y1 - y0)  # the shadow reaches a little beyond the die's box
    assert changed[1].min() > x0 - reach and changed[1].max() < x1 + reach
    assert changed[0].min() > y0 - reach and changed[0].max() < y1 + reach
    with pytest.raises(RenderError):
        draw_die_on_board(image, h, (100.0, 450.0), 0.0, 2)
    with pytest.raises(RenderError):
        draw_die_on_board(image, h, (100.0, 450.0), 30.0, 7)

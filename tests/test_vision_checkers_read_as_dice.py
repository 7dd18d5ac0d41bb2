"""A checker, or its print, that the dice reader takes for a weakly read die is that checker when the
checker reader counts it surely (vision.cocked.checkers_read_as_dice, vision.reader.BoardReader)."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

from companion.observation import DieReading
from vision.cocked import CHECKER_SURE, TURNED_DOWN, checkers_read_as_dice, weak_dice
from vision.registration import field_from_corners

ROOT = pathlib.Path(__file__).resolve().parent.parent

CORNERS = np.array([[140.0, 60.0], [1140.0, 60.0], [1140.0, 660.0], [140.0, 660.0]])


def _die(field, at, side, confidence, reason="tilted"):
    """A die centred at field units ``at``, boxed ``side`` field units, in image pixels."""
    (x, y), (x1, _) = field.to_image(np.array([at, (at[0] + side, at[1])], np.float64))
    half = (x1 - x) / 2
    return DieReading(value=3, center=(float(x), float(y)), box=(x - half, y - half, x + half, y + half),
                      confidence=confidence, cocked=reason is not None, reason=reason)


def test_weak_dice_on_a_surely_read_checker_are_that_checker():
    field = field_from_corners(CORNERS, (1280, 720))
    d = float(field.checker_size[0])
    g = field.point(20)
    checker = (g.centre_x, g.base_y + g.direction * d / 2)  # the point's first checker
    dice = [
        _die(field, checker, 0.85 * d, 0.2),  # the checker itself, boxed whole
        _die(field, (checker[0], checker[1] - 0.2 * d), 0.55 * d, 0.32),  # a spot of its print
        _die(field, checker, 0.85 * d, 0.9, reason=None),  # a die read surely on the checker: a die
        _die(field, (checker[0] + 0.75 * d, checker[1]), 0.6 * d, 0.2),  # leaning beside it: a die
        _die(field, (checker[0] + 0.55 * d, checker[1]), 0.6 * d, 0.2),  # on its rim: less than 0.6 on it
    ]
    assert weak_dice(dice) == [0, 1, 3, 4]
    assert checkers_read_as_dice(dice, field, [checker]) == [0, 1]
    assert checkers_read_as_dice(dice, field, []) == []
    # the bar: checkers stand anywhere along it, so a checker-sized weak die on its middle line in a
    # half the reader counts checkers in is one of them; a die-sized one is not
    bar_x = 0.5 * (field.bar_x0 + field.bar_x1)
    on_bar = [_die(field, (bar_x, 0.3 * field.size[1]), 0.9 * d, 0.28, reason="on_bar"),
              _die(field, (bar_x, 0.3 * field.size[1]), 0.5 * d, 0.28, reason="on_bar")]
    assert checkers_read_as_dice(on_bar, field, [], ["top"]) == [0]
    assert checkers_read_as_dice(on_bar, field, [], ["bottom"]) == []
    assert TURNED_DOWN <= 0.5 and 0.5 < CHECKER_SURE < 1.0


def _photo(shared_data, name):
    import cv2

    label = json.loads((shared_data / "boards" / "labels" / f"{name}.json").read_text())
    return cv2.imread(str(shared_data / "boards" / label["file"])), label


def test_star_printed_checkers_by_the_far_rail_of_a_real_board_are_no_dice(shared_data):
    """The real empty board test4 seen by a game's camera, with the real checkers of hough_test5
    (black with a printed star, some marbled) alone on every point by the far rail: the dice
    reader takes some for dice (weakly), the reader reports none and reads every point."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from photo_composites import cut_discs
    from photo_games import PhotoBoard

    from companion.demo import game_camera
    from vision.dice_plugin import DicePlugin
    from vision.evaluate import label_truth
    from vision.reader import BoardReader
    from vision.render_board import BoardState

    board, board_label = _photo(shared_data, "test4")
    field = field_from_corners(label_truth(board_label)["corners"], (board.shape[1], board.shape[0]), validate=False)
    image, label = _photo(shared_data, "hough_test5")
    points = [(0, None)] * 24
    for p in range(12, 24):
        points[p] = (1, "dark")
    points[0], points[5], points[7], points[10] = (3, "dark"), (5, "light"), (5, "light"), (5, "light")
    state = BoardState(tuple(points), (("light", 0), ("dark", 0)), (("light", 0), ("dark", 0)))
    painter = PhotoBoard(board, field, cut_discs(image, label), game_camera(1904)[0], seed=1904)
    drawn = painter(state)
    seen = field_from_corners(np.array(painter.pose.corners), (1280, 720))
    plugin = DicePlugin(die_scale=1.49)  # the players' dice as the games of this camera learn them
    taken = plugin.dice(drawn.image, seen)
    assert taken and all(d.confidence < TURNED_DOWN for d in taken)
    plugin.new_frame()
    obs = BoardReader(field=seen, dice_reader=plugin.dice, cube_reader=plugin.cube).read(drawn.image)
    assert obs.dice == ()
    assert [(p.count, p.colour if p.count else None) for p in obs.points] == list(state.points)


def test_the_reader_drops_the_weak_die_on_a_checker_and_keeps_the_others():
    """On a rendered board, a dice reader that reports a weak die on point 19's first checker, a
    weak die in the open and a sure die on point 6's first checker: the reader drops the first only
    and reads every point as it stands (the dice that stay are covered as before)."""
    from vision.reader import BoardReader
    from vision.render_board import BoardState, CameraPose, Lighting, render_board

    counts = [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2]  # the opening
    pose = CameraPose.looking_down(tilt=0.06)
    r = render_board(BoardState.from_counts(counts), "walnut", pose, Lighting(noise=2, jpeg=85), seed=0)
    field = field_from_corners(r.corners, pose.image_size)
    d = float(field.checker_size[0])
    first = {p: (field.point(p).centre_x, field.point(p).base_y + field.point(p).direction * d / 2) for p in (6, 19)}
    g = field.point(16)  # an empty point: its middle, clear of every checker
    reported = [_die(field, first[19], 0.85 * d, 0.2), _die(field, (g.centre_x, 0.25 * field.size[1]), 0.5 * d, 0.3),
                _die(field, first[6], 0.5 * d, 0.95, reason=None)]
    obs = BoardReader(field=field, dice_reader=lambda image, f: list(reported)).read(r.image)
    assert obs.dice == tuple(reported[1:])
    want = [(abs(n), None if n == 0 else ("light" if n > 0 else "dark")) for n in counts]
    assert [(p.count, p.colour if p.count else None) for p in obs.points] == want

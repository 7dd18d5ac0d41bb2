"""benchmarks/photo_games.py: whole games laid out on the real empty board (test4), seen by another
camera, with the real checkers of another photo, through calibration and ``companion watch``."""

import json
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from photo_composites import cut_discs  # noqa: E402
from photo_games import PhotoBoard, main  # noqa: E402


def _photo(shared_data, name):
    import cv2

    label = json.loads((shared_data / "boards" / "labels" / f"{name}.json").read_text())
    return cv2.imread(str(shared_data / "boards" / label["file"])), label


def _painter(shared_data, checkers="test8", seed=1005):
    from companion.demo import game_camera
    from vision.evaluate import label_truth
    from vision.registration import field_from_corners

    board, board_label = _photo(shared_data, "test4")
    field = field_from_corners(label_truth(board_label)["corners"], (board.shape[1], board.shape[0]), validate=False)
    image, label = _photo(shared_data, checkers)
    return PhotoBoard(board, field, cut_discs(image, label), game_camera(seed)[0], seed=seed)


def test_the_opening_seen_by_another_camera_reads_as_the_opening(shared_data):
    from vision.reader import BoardReader
    from vision.registration import field_from_corners
    from vision.render_board import BoardState

    painter = _painter(shared_data)
    state = BoardState.starting()
    drawn = painter(state)
    assert drawn.image.shape == (720, 1280, 3) and drawn.image.dtype == np.uint8
    assert len(drawn.checkers) == 30
    # every checker's centre lies inside the camera's field
    corners = np.array(painter.pose.corners)
    xs, ys = [c[0] for c in drawn.checkers], [c[1] for c in drawn.checkers]
    assert corners[:, 0].min() < min(xs) and max(xs) < corners[:, 0].max()
    assert corners[:, 1].min() < min(ys) and max(ys) < corners[:, 1].max()
    field = field_from_corners(corners, (1280, 720))
    obs = BoardReader(field=field).read(drawn.image)
    assert [(r.count, r.colour if r.count else None) for r in obs.points] == list(state.points)


def test_a_checker_that_stays_looks_the_same_when_another_moves(shared_data):
    from vision.render_board import BoardState

    painter = _painter(shared_data)
    before = BoardState.starting()
    points = list(before.points)
    points[23], points[22] = (1, points[23][1]), (1, points[23][1])  # one back checker moved on one pip
    after = BoardState(tuple(points), before.bar, before.off)
    a, b = painter(before).image.astype(int), painter(after).image.astype(int)
    changed = np.abs(a - b).max(axis=2) > 0
    assert changed.any()
    h = painter.field_to_image
    # nothing changes on point 15, far from points 23 and 24
    g = painter.field.point(15)
    v = h @ np.array([g.centre_x, g.base_y + 40, 1.0])
    x, y = int(v[0] / v[2]), int(v[1] / v[2])
    assert not changed[y - 30:y + 30, x - 30:x + 30].any()


@pytest.mark.slow
def test_a_game_on_the_photo_board_is_judged_as_it_was_played(shared_data, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["--data", str(shared_data / "boards"), "--checkers", "test8", "--first", "607",
                 "--json", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["games"] == 1 and got["bad_frames_reported"] == 2
    assert got["decisions_equal"] == 1 and got["false_accusations"] == 0, got
    assert got["illegal_plays"] == got["accusations"] >= 1
    assert got["still_frames"] >= 20 and got["still_points_right"] >= 0.99 * got["still_points"]
    assert "game 607" in capsys.readouterr().out


def test_nothing_to_compose_is_one_clear_line(tmp_path, capsys):
    assert main(["--games", "0"]) == 2
    assert "--games must be at least 1" in capsys.readouterr().err
    assert main(["--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no labelled empty board") and len(err.strip().splitlines()) == 1

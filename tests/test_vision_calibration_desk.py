"""The calibration page's work without the page (vision.calibration_desk): the corners it starts
from, the corners it takes, learning in the background, the reading's marks, saving."""

from __future__ import annotations

import json

import numpy as np
import pytest

from aruco_markers import with_aruco
from calibration_frames import LATER, OPENING, QUICK, misreading_model, rendered, signed
from vision.calibration_desk import CalibrationDesk, first_corners, parse_page_corners, reading_marks
from vision.profile import load_profile
from vision.reader import BoardReader
from vision.registration import field_from_corners
from vision.render_board import BoardState, CameraPose, render_board

@pytest.fixture(scope="module")
def opening():
    return rendered(OPENING)


def test_first_corners_from_markers_then_the_board_then_an_inset(opening):
    smaller = render_board(BoardState.from_counts(OPENING), "green", CameraPose.looking_down(scale=0.72))
    corners, how = first_corners(with_aruco(smaller))
    assert how == "aruco" and np.allclose(corners, smaller.corners, atol=8)  # the markers sit a quiet zone off
    corners, how = first_corners(opening.image)
    assert how == "found" and np.allclose(corners, opening.corners, atol=6)
    corners, how = first_corners(np.full((400, 600, 3), 128, np.uint8))
    assert how == "inset" and corners.tolist() == [[60, 40], [540, 40], [540, 360], [60, 360]]


@pytest.mark.parametrize("value, words", [
    ([[0, 0], [1, 0], [1, 1]], "four [x, y] pairs"),
    ("here", "four [x, y] pairs"),
    ([[0, 0], [1, 0], [1, 1], ["a", 1]], "numbers"),
    ([[0, 0], [1, 0], [1, 1], [float("nan"), 1]], "finite"),
])
def test_page_corners_must_be_four_pairs_of_numbers(value, words):
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        parse_page_corners(value)


def test_marks_sit_on_their_points_columns(opening):
    field = field_from_corners(opening.corners, (1280, 720))
    obs = BoardReader(field=field).read(opening.image)
    marks = reading_marks(obs, field)
    assert [m["point"] for m in marks["points"]] == list(range(1, 25))
    for m in marks["points"]:
        g = field.point(m["point"])
        fx, fy = field.to_field(np.array([[m["x"], m["y"]]]))[0]
        assert g.x0 < fx < g.x1, m                      # in the point's column
        assert abs(fy - g.base_y) > 0.5 * g.length, m  # past the checkers of a stack of five
    assert marks["bar"] == {"light": 0, "dark": 0}


def test_bad_corners_and_orientation_are_refused_at_once(opening, tmp_path):
    desk = CalibrationDesk(opening.image, tmp_path / "p.json", learning=QUICK)
    with pytest.raises(ValueError, match="outside"):
        desk.start([[-5000, -5000], [100, 0], [100, 100], [0, 100]])
    with pytest.raises(ValueError, match="anticlockwise"):
        desk.start(opening.corners[::-1].tolist())
    with pytest.raises(ValueError, match="orientation must be one of"):
        desk.start(opening.corners.tolist(), "upside-down")
    with pytest.raises(ValueError, match="learn this board first"):
        desk.save()
    assert desk.state()["state"] == "ready" and not (tmp_path / "p.json").exists()


def test_a_frame_not_in_the_opening_position_is_refused_naming_the_points(tmp_path):
    later = rendered(LATER, seed=3)
    desk = CalibrationDesk(later.image, tmp_path / "p.json", learning=QUICK)
    desk.start(later.corners.tolist())
    assert desk.wait(120)
    state = desk.state()
    assert state["state"] == "refused" and "opening position" in state["error"] and "want" in state["error"]
    assert "\n" not in state["error"] and state["reading"] is None
    with pytest.raises(ValueError, match="learn this board first"):
        desk.save()


def test_keeps_the_shipped_reader_where_it_reads_the_opening(opening, tmp_path):
    out = tmp_path / "club" / "green.json"
    desk = CalibrationDesk(opening.image, out, learning=QUICK)
    desk.start(opening.corners.tolist())
    assert desk.wait(120)
    state = desk.state()
    assert state["state"] == "learned", state["error"]
    assert state["learned"]["adapted"] is False and state["learned"]["before"] is None
    assert signed(state["reading"]["points"]) == OPENING
    assert desk.save() == str(out)
    data = json.loads(out.read_text())
    assert "point_head" not in data and not (out.parent / "green.points.npz").exists()


def test_learns_reads_and_saves_what_read_then_uses(opening, tmp_path):
    out = tmp_path / "club" / "green.json"
    desk = CalibrationDesk(opening.image, out, learning=QUICK, point_model=misreading_model(tmp_path))
    stages = []
    desk.start(opening.corners.tolist())
    while not desk.wait(0.05):
        stages.append((desk.state()["stage"], desk.state()["fraction"]))
    state = desk.state()
    assert state["state"] == "learned", state["error"]
    assert "learning this board" in {s for s, _ in stages}
    assert signed(state["reading"]["points"]) == OPENING
    assert state["learned"]["adapted"] is True
    assert 0 <= state["learned"]["before"] <= 1 and state["learned"]["seconds"] > 0
    assert desk.save() == str(out) and desk.wait_saved(0)
    assert desk.state()["state"] == "saved" and desk.state()["saved"] == str(out)
    data = json.loads(out.read_text())
    assert data["point_head"] == "green.points.npz" and (out.parent / "green.points.npz").is_file()
    assert data["corners"]["top_left"] == pytest.approx(list(opening.corners[0]), abs=0.01)
    # The profile reads this board with what it learned.
    obs = BoardReader.from_profile(load_profile(out), (1280, 720)).read(opening.image)
    got = [0 if p.count == 0 else (p.count if p.colour == "light" else -p.count) for p in obs.points]
    assert got == OPENING and all(p.distribution for p in obs.points)


def test_learns_the_dice_shown_beside_the_board(opening, tmp_path):
    """With ``learn_dice``: travel dice (0.7 of the board's die) lying on the frame beside the
    field are measured with the board, their size saved in the profile; a frame without dice
    keeps the board's calibration and says the dice were not learned."""
    from vision.dice_size import board_die_px
    from vision.render_dice import DIE_STYLES, draw_die

    image = opening.image.copy()
    field = field_from_corners(opening.corners, (1280, 720))
    side = 0.7 * board_die_px(field, image.shape)
    fw, fh = field.size
    for k, fy in enumerate((0.3, 0.7)):
        x, y = field.to_image(np.array([[1.05 * fw, fy * fh]]))[0]
        draw_die(image, (float(x), float(y)), side, 3 + k, yaw_deg=20.0 * k, style=DIE_STYLES[0])
    out = tmp_path / "travel.json"
    desk = CalibrationDesk(image, out, learning=QUICK, learn_dice=True)
    desk.start(opening.corners.tolist())
    assert desk.wait(300)
    state = desk.state()
    assert state["state"] == "learned", state["error"]
    assert state["dice"]["die_scale"] == pytest.approx(0.7, rel=0.25), state["dice"]
    from vision.dice_size import own_size

    assert state["dice"]["own_size"] is own_size(state["dice"]["die_scale"])
    assert not state["dice"]["sets"] and "whose dice are whose not learned" in state["dice"]["note"]
    desk.save()
    assert json.loads(out.read_text())["die_scale"] == pytest.approx(state["dice"]["die_scale"], abs=1e-3)

    bare = CalibrationDesk(opening.image, tmp_path / "bare.json", learning=QUICK, learn_dice=True)
    bare.start(opening.corners.tolist())
    assert bare.wait(300)
    state = bare.state()
    assert state["state"] == "learned" and state["dice"]["die_scale"] is None and not state["dice"]["own_size"]
    assert state["dice"]["note"].startswith("dice not learned: no die seen")

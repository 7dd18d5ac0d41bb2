"""The doubling cube: found, read (any look, any turn) and placed, on rendered and real boards."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.cube import CubeReader, cube_from_scan, cube_place, off_points
from vision.dice import DiceReader

registration = pytest.importorskip("vision.registration")


@pytest.fixture(scope="module")
def readers():
    return DiceReader(), CubeReader()


@pytest.fixture()
def field():
    return registration.field_from_corners(np.array([[100, 50], [740, 50], [740, 650], [100, 650]], float), (840, 700))


def test_places(field):
    bar_x = (field.bar_x0 + field.bar_x1) / 2
    to_image = lambda x, y: tuple(field.to_image(np.array([[x, y]], float))[0])  # noqa: E731
    w, h = field.size
    assert off_points(to_image(bar_x, h / 2), field)
    assert off_points((60, 300), field)  # on the frame beside the field
    assert not off_points(to_image(w * 0.8, h * 0.3), field)
    assert off_points((5, 5), None)
    assert cube_place(to_image(bar_x, h / 2), field) == "centre"
    assert cube_place(to_image(bar_x, h * 0.05), field) == "top"
    assert cube_place(to_image(bar_x, h * 0.95), field) == "bottom"
    assert cube_place((400, 690), None, (840, 700)) == "bottom"
    with pytest.raises(ValueError):
        cube_place((1, 1))


def test_cubes_on_rendered_boards(readers):
    from vision.render_roll import evaluate_cocked_rendered

    # seed 77: not a seed the cube network was trained or validated on
    res = evaluate_cocked_rendered(24, readers[0], seed=77, cocked_prob=0.0, cube_prob=0.6)["cube"]
    assert res["boards_with_cube"] >= 10
    assert res["found"] >= 0.8 * res["boards_with_cube"], res
    assert res["value_correct"] >= 0.9 * res["found"], res
    assert res["place_correct"] >= 0.9 * res["found"], res
    assert res["false_cubes"] == 0, res


def test_cubes_on_real_board_photos(readers, shared_data):
    import cv2

    reader, cube_reader = readers
    boards = shared_data / "boards"
    labelled = found = right = centred = centred_right = false = 0
    for label in sorted((boards / "labels").glob("*.json")):
        lab = json.loads(label.read_text())
        img = cv2.imread(str(next((boards / "images").glob(label.stem + ".*"))))
        c = lab["corners"]
        corners = np.array([c["top_left"], c["top_right"], c["bottom_right"], c["bottom_left"]], float)
        field = registration.field_from_corners(corners, (img.shape[1], img.shape[0]), validate=False)
        cands, probs = reader.scan(img, field)
        got = cube_from_scan(img, cands, probs, field, cube_reader, reader)
        truth = lab.get("cube")
        if truth is None:
            false += got is not None
            continue
        labelled += 1
        side = np.linalg.norm(corners[1] - corners[0]) / 30
        if got is None or np.hypot(*(np.array(got.center) - truth["xy"])) > 1.5 * side:
            false += got is not None
            continue
        found += 1
        right += got.value == truth["value"]
        if truth.get("centered"):
            centred += 1
            centred_right += got.place == "centre"
    assert labelled == 8
    # frame0's logo cube, sized by the detector as a die, reads as 16 at that one size; read at
    # the sizes of CUBE_SCALES it reads right. hough_test5's cube lies at the photo's edge, boxed
    # at two thirds of its side, and test6's shows its 2 on its side in a tray: the cube network
    # is trained on crops of half to 1.35 times the cube and on cubes cut by the photo's edge
    assert found == 8 and right == 8, (found, right)
    assert centred_right == centred
    assert false == 0


def test_reading_at_several_sizes_averages_each_size(readers):
    from vision.dice import Candidate
    from vision.render_roll import render_roll_on_board

    rng = np.random.default_rng(5)
    roll = next(r for r in (render_roll_on_board(rng, cube_prob=1.0) for _ in range(10)) if r.cube is not None)
    cube_reader = readers[1]
    cand = Candidate(center=roll.cube.center, size=0.8 * roll.cube.size, score=1.0)
    one = cube_reader.probabilities(roll.image, [cand], turns=4)
    assert np.allclose(cube_reader.probabilities(roll.image, [cand], turns=4, scales=(1.0,)), one)
    each = [cube_reader.probabilities(roll.image, [Candidate(center=cand.center, size=cand.size * z, score=1.0)],
                                      turns=4) for z in (0.75, 1.25)]
    both = cube_reader.probabilities(roll.image, [cand, cand], turns=4, scales=(0.75, 1.25))
    assert both.shape == (2, 7)
    assert np.allclose(both[0], (each[0][0] + each[1][0]) / 2, atol=1e-6)
    assert not np.allclose(each[0], each[1], atol=1e-3)  # the sizes read differently
    with pytest.raises(ValueError):
        cube_reader.probabilities(roll.image, [cand], scales=(1.0, 0.0))


@pytest.mark.parametrize("seed, band, index, value, turned_down", [(6100, (0.28, 0.34), 3, 32, True),
                                                                    (6100, (0.75, 0.85), 37, 64, False)])
def test_a_cube_turned_down_at_the_first_look_is_looked_at_again(readers, seed, band, index, value, turned_down):
    """Validation boards of benchmarks/dice_sizes.py. Seed 6100: a large cube on the bar, sized
    by the detector at about 0.6 of its side, is turned down at that size ("not a die"); looked
    at again larger (CUBE_LOOK_AGAIN) it is the cube, with its value. The same seed with jumbo dice
    (0.75-0.85 of a checker), its 38th board: a cube the classifier doubts even looked at again
    larger, the cube from CUBE_ACCEPT_AGAIN; at the first look it lies near the bar of acceptance (turned
    down under OpenCV 5.0.0, accepted with its value under 5.1.0), so ``turned_down`` is asserted
    only for the bar cube."""
    from vision.render_roll import render_roll_on_board

    reader, cube_reader = readers
    rng = np.random.default_rng(seed)
    roll = [render_roll_on_board(rng, die_to_checker=band) for _ in range(index + 1)][-1]
    assert roll.cube is not None and roll.cube.value == value
    cands, probs = reader.scan(roll.image, roll.field)
    sizes, first = [c.size for c in cands], probs.copy()
    first_look = cube_from_scan(roll.image, cands, probs, roll.field, cube_reader)
    assert first_look is None if turned_down else (first_look is None or first_look.value == value)
    got = cube_from_scan(roll.image, cands, probs, roll.field, cube_reader, reader)
    assert got is not None
    assert np.hypot(*(np.array(got.center) - roll.cube.center)) < roll.cube.size / 2
    assert (got.value, got.place) == (value, roll.cube.place)
    # the scan itself is left as it was
    assert [c.size for c in cands] == sizes and np.array_equal(probs, first)


def test_a_candidate_the_cube_network_turns_down_passes_the_look_to_the_next(readers, shared_data):
    """Real photo test10: a candidate on the gold checkers of a point, its cube score (halved on
    the points) given a little above the real cube's on the bar (as read, another checker's and the
    cube's lie within 0.01 of each other), is called "not a cube" by the cube network; the real
    cube, next in score, is then the cube. With only the checker above CUBE_ACCEPT nothing is
    found."""
    import cv2

    from vision.cube import CUBE_ACCEPT, ON_POINTS_WEIGHT
    from vision.dice import Candidate

    boards = shared_data / "boards"
    lab = json.loads((boards / "labels" / "test10.json").read_text())
    img = cv2.imread(str(next((boards / "images").glob("test10.*"))))
    c = lab["corners"]
    corners = np.array([c["top_left"], c["top_right"], c["bottom_right"], c["bottom_left"]], float)
    field = registration.field_from_corners(corners, (img.shape[1], img.shape[0]), validate=False)
    checker = Candidate(center=(326.0, 220.0), size=37.4, score=0.3)
    cube = Candidate(center=(999.0, 392.0), size=29.2, score=0.55)
    assert not off_points(checker.center, field) and off_points(cube.center, field)
    cube_reader = readers[1]
    assert cube_reader.probabilities(img, [checker], turns=4, scales=(0.75, 0.9, 1.05, 1.2))[0, 6] > 0.5
    probs = np.zeros((2, 8))
    probs[:, 7] = [0.9, 0.44]  # scores 0.45 (on a point) and 0.44
    assert 0.9 * ON_POINTS_WEIGHT > 0.44 >= CUBE_ACCEPT
    got = cube_from_scan(img, [checker, cube], probs, field, cube_reader)
    assert got is not None and got.center == cube.center
    assert (got.value, got.place) == (lab["cube"]["value"], "centre")
    probs[1, 7] = 0.2
    assert cube_from_scan(img, [checker, cube], probs, field, cube_reader) is None

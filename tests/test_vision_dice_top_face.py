"""A one's pip marks the centre of its top face: :func:`vision.top_face.pip_centre` and the
reader's re-centring of ones on free photos."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.dice import DiceReader, DiceSettings
from vision.dice_data import load_dataset
from vision.evaluate_dice import evaluate_real, use_held_out
from vision import top_face
from vision.top_face import face_centre, on_top_faces, pip_centre

from companion.observation import DieReading
from dice_faces import draw_face, table


def _die(pip_at=(0.0, 0.0), white=True, side=40):
    m = 2 * side  # the die in the middle of a table four sides wide
    img = np.full((2 * m, 2 * m, 3), (60, 110, 160), np.uint8)  # wood-ish table
    body, pip = ((235, 235, 235), (20, 20, 20)) if white else ((30, 30, 30), (240, 240, 240))
    cv2.rectangle(img, (m - side // 2, m - side // 2), (m + side // 2, m + side // 2), body, -1)
    cx, cy = m + pip_at[0], m + pip_at[1]
    cv2.circle(img, (int(round(cx * 8)), int(round(cy * 8))), int(0.11 * side * 8), pip, -1, cv2.LINE_AA, shift=3)
    return img, (cx, cy)


@pytest.mark.parametrize("white", [True, False])
def test_pip_centre_finds_the_pip_of_an_off_centre_reading(white):
    img, truth = _die(pip_at=(6.5, -7.0), white=white)
    got = pip_centre(img, (80.0, 80.0), 40.0)
    assert got is not None
    assert math.hypot(got[0] - truth[0], got[1] - truth[1]) < 1.0


@pytest.mark.parametrize("white", [True, False])
@pytest.mark.parametrize("side", [160, 300, 600])
def test_pip_centre_of_a_big_die_is_found_in_a_shrunk_copy_as_precisely(white, side, monkeypatch):
    # a die of a phone photo (hundreds of pixels) is searched at 128 pixels: the same centre to a
    # hundredth of its side as the full-size search, and the pip's own centre
    k = side / 40
    img, truth = _die(pip_at=(6.5 * k, -7.0 * k), white=white, side=side)
    assert side > top_face.SEARCH_SIDE
    got = pip_centre(img, (2.0 * side, 2.0 * side), float(side))
    # read from a centre a twentieth of the side off the die's, the pip is found as well
    off = pip_centre(img, (2.05 * side, 1.95 * side), float(side))
    monkeypatch.setattr(top_face, "SEARCH_SIDE", math.inf)
    full = pip_centre(img, (2.0 * side, 2.0 * side), float(side))
    for centre in (got, off):
        assert centre is not None
        assert math.hypot(centre[0] - truth[0], centre[1] - truth[1]) < 0.01 * side
        assert math.hypot(centre[0] - full[0], centre[1] - full[1]) < 0.01 * side


def test_pip_centre_gives_none_for_a_blank_face_and_rejects_bad_sizes():
    img = np.full((160, 160, 3), 200, np.uint8)
    assert pip_centre(img, (80.0, 80.0), 40.0) is None
    with pytest.raises(ValueError):
        pip_centre(img, (80.0, 80.0), 0.0)
    # a reading at the image's corner, over the table only: no pip
    img, _ = _die()
    assert pip_centre(img, (2.0, 3.0), 40.0) is None


def test_recentred_ones_are_found_on_oblique_real_photos(shared_data):
    # matteop65 boxes a one by its pip alone: a reading is matched only within half that box,
    # so an oblique one is found only when its reading sits on its top face's centre
    # (fold 0's photos of ones, read by the free-photo models' copies that never saw them)
    ones = [it for it in load_dataset(shared_data / "dice" / "matteop65")
            if len(it.values) and (it.values == 1).all() and it.fold() == 0]
    on = evaluate_real(ones, DiceReader(settings=use_held_out(DiceSettings())), None)
    off = evaluate_real(ones, DiceReader(settings=use_held_out(DiceSettings(recentre_ones=0))), None)
    assert on["found"] >= off["found"] + 3, (on["found"], off["found"])
    assert on["false_dice"] <= off["false_dice"]
    assert on["correct"] >= off["correct"]


def _oblique_three(side=120):
    """A three on top (pips squashed to 0.75) above the five facing the camera (0.6), and the
    die's outline: centre (x, y) and side, pixels."""
    img = table(560)
    draw_face(img, (200, 150), side, 3, 0.75)
    draw_face(img, (200, 150 + 0.675 * side), side, 5, 0.6)
    top, bottom = 150 - 0.375 * side, 150 + 0.675 * side + 0.3 * side
    return img, (200.0, (top + bottom) / 2), bottom - top


def test_face_centre_is_the_top_face_of_a_die_seen_at_an_angle():
    side = 120
    img, at, outline = _oblique_three(side)
    got = face_centre(img, at, outline, 3)
    assert got is not None and math.dist(got, (200, 150)) < 0.03 * side
    # read from too near the front face, the three's far pip is out of reach: the roundest pips
    # left are not clearly the top face's, so no centre rather than a wrong one
    assert face_centre(img, (200.0, 150 + 0.34 * side), float(side), 3) is None
    # seen from above, the face is the die
    img = table(560)
    draw_face(img, (280, 280), side, 6, 1.0)
    got = face_centre(img, (285.0, 275.0), float(side), 6)
    assert got is not None and math.dist(got, (280, 280)) < 0.03 * side
    # too few pips for the value: no centre
    assert face_centre(img, (285.0, 275.0), float(side), 6 + 1) is None


def test_on_top_faces_moves_the_centre_and_keeps_the_box():
    side = 120
    img, (x, y), outline = _oblique_three(side)
    box = (x - outline / 2, y - outline / 2, x + outline / 2, y + outline / 2)
    die = DieReading(value=3, center=(x, y), box=box, confidence=0.9)
    one = DieReading(value=1, center=(420.0, 420.0), box=(400.0, 400.0, 440.0, 440.0), confidence=0.9)
    moved, kept = on_top_faces(img, [die, one], 0.5)
    assert math.dist(moved.center, (200, 150)) < 0.03 * side and moved.box == box and moved.value == 3
    assert kept == one
    # farther than the reach allows: not moved
    assert on_top_faces(img, [die], 0.1) == [die]
    # a face found well below its reading (a die cut by the photo's top edge shows only its lower
    # pips): not believed
    flat = table(560)
    draw_face(flat, (280, 295), 100, 6, 1.0)
    above = DieReading(value=6, center=(280.0, 280.0), box=(220.0, 220.0, 340.0, 340.0), confidence=0.9)
    low = face_centre(flat, above.center, 120.0, 6)
    assert low is not None and math.dist(low, (280, 295)) < 2.0
    assert on_top_faces(flat, [above], 0.5) == [above]


def test_face_centre_finds_the_labelled_top_faces_of_oblique_real_dice(shared_data):
    # matteop65 boxes a die's top face; read from a centre a fifth of a side below it (where a
    # detector that never saw oblique dice centres the outline), the face's centre is found
    # within a quarter of the box for nine dice in ten, and never elsewhere
    counts = {"near": 0, "none": 0, "far": 0}
    for it in load_dataset(shared_data / "dice" / "matteop65")[::6]:
        img = None
        for (x0, y0, x1, y1), v, c in zip(it.boxes, it.values, it.centers):
            if v < 2:
                continue
            img = cv2.imread(str(it.path)) if img is None else img
            size = max(x1 - x0, y1 - y0)
            side = 1.5 * size
            got = face_centre(img, (c[0], c[1] + 0.2 * side), side, int(v))
            key = "none" if got is None else "near" if math.dist(got, c) < 0.25 * size else "far"
            counts[key] += 1
    total = sum(counts.values())
    assert total >= 100, counts
    assert counts["far"] == 0 and counts["near"] >= 0.9 * total, counts

"""vision.board_marks: the board's own die-like spots, learned at calibration, on real photos."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from vision.board_marks import PATCH, SAME_SIZE, BoardMarks, BoardMarksError, Mark, find_marks
from vision.dice_plugin import DicePlugin
from vision.dice_size import board_die_px
from vision.profile import Profile, ProfileError, load_profile, save_profile

#: test10's hinge screws on the bar, image pixels: a travel die's size reads them as ones.
HINGES = (595, 135, 635, 205)
#: Small dice's size on test10 (times the board's die) where the screws read as ones.
TRAVEL = 0.6


@pytest.fixture(scope="module")
def test10(shared_data):
    import cv2

    from vision.evaluate import label_truth
    from vision.registration import field_from_corners

    label = json.loads((shared_data / "boards" / "labels" / "test10.json").read_text())
    image = cv2.imread(str(shared_data / "boards" / label["file"]))
    field = field_from_corners(label_truth(label)["corners"], (image.shape[1], image.shape[0]), validate=False)
    plugin = DicePlugin()
    marks = find_marks([image], field, plugin.reader, board_die_px(field, image.shape))
    return image, field, label, marks


def on_hinges(dice) -> list:
    x0, y0, x1, y1 = HINGES
    return [d for d in dice if x0 <= d.center[0] <= x1 and y0 <= d.center[1] <= y1]


def own(dice, label) -> list[int]:
    """Values of the dice read within 12 pixels of the photo's own labelled dice."""
    return sorted(d.value for d in dice for o in label["dice"] if np.hypot(*(np.array(d.center) - o["xy"])) < 12)


def test_hinge_screws_are_marks_and_the_photos_own_dice_are_not(test10):
    image, field, label, marks = test10
    bare = DicePlugin(die_scale=TRAVEL).dice(image, field)
    assert len(on_hinges(bare)) >= 2  # without the marks, the screws read as dice
    known = DicePlugin(die_scale=TRAVEL, marks=marks).dice(image, field)
    assert on_hinges(known) == []
    assert own(known, label) == sorted(o["value"] for o in label["dice"]) == [2, 5]
    assert len(known) == 2
    at = field.to_image(np.array([m.center for m in marks.marks]))
    for o in label["dice"]:  # the photo's dice, read surely at most sizes, are no marks
        assert np.min(np.hypot(*(at - o["xy"]).T)) > 10


def test_a_mark_holds_under_other_light_and_a_registration_a_pixel_off(test10):
    image, field, label, marks = test10
    lighter = np.clip(image.astype(np.float32) * 1.2, 0, 255).astype(np.uint8)
    for frame in (lighter, np.roll(lighter, (1, 1), axis=(0, 1))):
        assert on_hinges(DicePlugin(die_scale=TRAVEL).dice(frame, field))
        assert on_hinges(DicePlugin(die_scale=TRAVEL, marks=marks).dice(frame, field)) == []


def test_a_real_die_landing_on_a_mark_is_read(test10, shared_data):
    from vision.dice_cutouts import cut_dice, paste_die
    from vision.dice_data import load_dataset, with_die_boxes

    image, field, label, marks = test10
    dice = cut_dice([it for it in with_die_boxes(load_dataset(shared_data / "dice" / "nell-byler")) if it.fold() == 0][:3])
    die = next(d for d in dice if d.value in (3, 4, 5))
    frame = image.copy()
    side = board_die_px(field, image.shape) * 0.9
    paste_die(frame, die, (615.0, 172.0), side, 20.0)  # over the screws
    read = DicePlugin(die_scale=0.9, marks=marks).dice(frame, field)
    assert [d.value for d in on_hinges(read)] == [die.value]


def test_marks_go_through_the_profile_json(tmp_path, test10):
    _, _, _, marks = test10
    assert len(marks) >= 2
    path = save_profile(Profile(name="t", corners=np.eye(4, 2) * 100 + 1, board_marks=marks), tmp_path / "p.json")
    back = load_profile(path).board_marks
    assert len(back) == len(marks)
    for a, b in zip(marks.marks, back.marks):
        assert np.array_equal(a.patch, b.patch) and a.patch.shape == (PATCH, PATCH)
        assert np.allclose(a.center, b.center, atol=0.01) and abs(a.scale - b.scale) < 1e-4
    assert "board_marks" not in Profile(name="t").to_dict()


@pytest.mark.parametrize("bad, message", [
    ({"patch": 8, "marks": []}, "16 pixels"),
    ({"patch": 16, "marks": [{"x": 1, "y": 2, "scale": 1, "grey": "!!"}]}, "bad board_marks"),
    ({"patch": 16, "marks": [{"x": 1, "y": 2, "scale": 1, "grey": "AAAA"}]}, "3 bytes"),
    ({"patch": 16, "marks": [{"x": 1, "y": 2, "scale": -1, "grey": "A" * 340 + "AA=="}]}, "positive"),
    ({"patch": 16}, "bad board_marks"),
])
def test_a_broken_board_marks_entry_is_a_clear_error(tmp_path, bad, message):
    with pytest.raises(BoardMarksError, match=message):
        BoardMarks.from_dict(bad)
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"version": 1, "name": "t", "board_marks": bad}))
    with pytest.raises(ProfileError, match=message):
        load_profile(path)


def test_a_mark_of_another_look_does_not_drop_a_die(test10):
    image, field, label, marks = test10
    blank = BoardMarks(tuple(Mark(m.center, m.scale, np.tile(np.arange(PATCH, dtype=np.uint8) * 15, (PATCH, 1)))
                             for m in marks.marks))
    assert len(on_hinges(DicePlugin(die_scale=TRAVEL, marks=blank).dice(image, field))) >= 2


def test_calibrate_learns_the_marks_and_read_uses_them(repo_root, shared_data, tmp_path, test10):
    """``companion calibrate`` stores the marks; ``companion read --calibration`` with travel dice's
    size reads the photo's two dice and not the screws."""
    image, field, label, marks = test10
    c = label["corners"]
    corners = ",".join(f"{v:g}" for k in ("top_left", "top_right", "bottom_right", "bottom_left") for v in c[k])
    photo = shared_data / "boards" / label["file"]
    out = tmp_path / "board.json"

    def run(*args):
        return subprocess.run([sys.executable, "-m", "companion", *args], cwd=repo_root, capture_output=True,
                              text=True, timeout=300)

    proc = run("calibrate", str(photo), f"--corners={corners}", "--learn", "none", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert len(data["board_marks"]["marks"]) >= 2
    assert f"board marks: {len(data['board_marks']['marks'])} places of this board look like a die" in proc.stdout
    data["die_scale"] = TRAVEL
    out.write_text(json.dumps(data))
    proc = run("read", str(photo), "--calibration", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    read = json.loads(proc.stdout)["dice"]
    assert sorted(d["value"] for d in read) == [2, 5]
    del data["board_marks"]
    out.write_text(json.dumps(data))
    proc = run("read", str(photo), "--calibration", str(out), "--json")
    assert len(json.loads(proc.stdout)["dice"]) > 2



def test_the_cube_is_read_on_a_calibrated_board_though_a_mark_lies_under_it(shared_data):
    """test2's cube on the left rail reads as a die-like place at some sizes, so a mark lies
    there: the cube is read with the marks as without them."""
    import cv2

    from vision.evaluate import label_truth
    from vision.registration import field_from_corners

    label = json.loads((shared_data / "boards" / "labels" / "test2.json").read_text())
    image = cv2.imread(str(shared_data / "boards" / label["file"]))
    field = field_from_corners(label_truth(label)["corners"], (image.shape[1], image.shape[0]), validate=False)
    plugin = DicePlugin()
    marks = find_marks([image], field, plugin.reader, board_die_px(field, image.shape))
    at = field.to_image(np.array([m.center for m in marks.marks])).reshape(-1, 2)
    assert np.min(np.hypot(*(at - label["cube"]["xy"]).T)) < 15
    cube = DicePlugin(marks=marks).cube(image, field)
    assert cube is not None and cube.value == label["cube"]["value"] == 64
    assert np.hypot(*(np.array(cube.center) - label["cube"]["xy"])) < 15


def test_the_dice_shown_to_learn_the_dice_are_no_marks(repo_root):
    """Small dice (0.45 of the board's die) lying on the calibration frame read surely at fewer
    than three sizes, so the frame alone takes them for marks; ``--learn-dice`` reads them as the
    players' dice and no mark is left where they lie."""
    sys.path.insert(0, str(repo_root / "tests"))
    from calibration_frames import OPENING, rendered

    from vision.calibrate import calibrate_board, learn_dice
    from vision.registration import field_from_corners
    from vision.render_dice import DIE_STYLES, draw_die

    opening = rendered(OPENING)
    field = field_from_corners(opening.corners, (1280, 720))
    image, spots = opening.image.copy(), []
    for k, (fx, fy) in enumerate(((0.62, 0.5), (0.8, 0.45))):
        x, y = field.to_image(np.array([[fx * field.size[0], fy * field.size[1]]]))[0]
        spots.append((x, y))
        draw_die(image, (float(x), float(y)), 0.45 * board_die_px(field, image.shape), 3 + k, style=DIE_STYLES[3])
    profile, _, _ = calibrate_board(image, corners=opening.corners, learn="none")

    def near_dice(marks):
        at = field.to_image(np.array([m.center for m in marks.marks])).reshape(-1, 2)
        return sum(np.hypot(*(at - s).T).min() < 5 for s in spots) if len(at) else 0

    assert near_dice(profile.board_marks) == 2
    learned, _ = learn_dice(image, profile)
    assert learned.die_scale is not None and near_dice(learned.board_marks) == 0


@pytest.fixture(scope="module")
def stars(shared_data):
    """hough_test5 (navy checkers with a white star, red ones), its field, and its marks learned
    with its checkers known, as calibration knows the opening's."""
    import cv2

    from vision.calibrate import checker_centres
    from vision.evaluate import label_truth
    from vision.registration import field_from_corners

    label = json.loads((shared_data / "boards" / "labels" / "hough_test5.json").read_text())
    image = cv2.imread(str(shared_data / "boards" / label["file"]))
    truth = label_truth(label)
    field = field_from_corners(truth["corners"], (image.shape[1], image.shape[0]), validate=False)
    counts = [n if p not in truth["occluded"] else 0 for p, (n, _) in enumerate(truth["points"], start=1)]
    die_px = board_die_px(field, image.shape)
    marks = find_marks([image], field, DicePlugin().reader, die_px, checkers=checker_centres(field, counts))
    return image, field, die_px, marks


def _empty_spot(field, image):
    """Image pixels of a spot of the field's right half between the rows of points, a point from
    the bar: no checker lies there in hough_test5 (the maker's logo, a star, lies further right)."""
    x = field.bar_x1 + 0.8 * field.point_width
    return tuple(float(v) for v in field.to_image(np.array([[x, field.size[1] / 2]]))[0])


def test_a_checker_s_printed_mark_goes_where_the_checker_goes(stars):
    import cv2

    image, field, die_px, marks = stars
    on = [m for m in marks.marks if m.on_checker]
    assert len(on) >= 3  # the navy checkers' stars
    mark = max(on, key=lambda m: m.scale)
    side = mark.scale * die_px
    at = field.to_image(np.array([mark.center]))[0]
    r = int(round(0.6 * side))
    x, y = int(round(at[0])), int(round(at[1]))
    disc = image[y - r:y + r, x - r:x + r]
    moved = image.copy()
    tx, ty = (int(round(v)) for v in _empty_spot(field, image))
    turned = cv2.warpAffine(disc, cv2.getRotationMatrix2D((r, r), 135, 1.0), (2 * r, 2 * r), borderMode=cv2.BORDER_REFLECT)
    circle = np.hypot(*np.mgrid[-r:r, -r:r]) < 0.5 * side
    moved[ty - r:ty + r, tx - r:tx + r][circle] = turned[circle]
    assert marks.covered(moved, field, die_px, [((tx, ty), side)]) == [True]
    assert marks.covered(image, field, die_px, [((tx, ty), side)]) == [False]  # no checker there before


def test_a_die_is_not_taken_for_a_checker_s_mark(stars):
    from vision.render_dice import DIE_STYLES, draw_die

    image, field, die_px, marks = stars
    spot = _empty_spot(field, image)
    jumbo = 0.9 * max(m.scale for m in marks.marks if m.on_checker) * die_px  # as large as a checker's print
    for side in (die_px, jumbo):
        for value in range(1, 7):
            for style in DIE_STYLES:
                frame = image.copy()
                draw_die(frame, spot, side, value, yaw_deg=20.0 * value, style=style)
                assert marks.covered(frame, field, die_px, [(spot, side)]) == [False], (side, value, style.name)


def test_a_checker_s_mark_goes_through_the_profile_json(tmp_path, stars):
    _, _, _, marks = stars
    path = save_profile(Profile(name="t", corners=np.eye(4, 2) * 100 + 1, board_marks=marks), tmp_path / "p.json")
    back = load_profile(path).board_marks
    assert [m.on_checker for m in back.marks] == [m.on_checker for m in marks.marks]
    assert any(m.on_checker for m in back.marks) and not all(m.on_checker for m in back.marks)
    bad = marks.to_dict()
    bad["marks"][0]["on_checker"] = "yes"
    with pytest.raises(BoardMarksError, match="true or false"):
        BoardMarks.from_dict(bad)


def test_every_die_like_spot_of_the_calibration_frame_is_a_mark_but_its_dice(stars, shared_data):
    """hough_test5 read again at every size calibration scans: each candidate read as a die
    (values together at least TESTED), but the photo's own two dice, lies on a mark; the small
    spots of its starred checkers (a highlight, a point of the star, read as a small die) are
    marks of their own, not folded into the checker's print read whole."""
    from vision.board_marks import SCALES, TESTED

    image, field, die_px, marks = stars
    label = json.loads((shared_data / "boards" / "labels" / "hough_test5.json").read_text())
    reader = DicePlugin().reader
    tested = 0
    for s in SCALES:
        cands, probs = reader.scan(image, field, die_px * s)
        for c, p in zip(cands, probs):
            x, y = c.outline_center or c.center
            if p[:6].sum() < TESTED or np.argmax(p) == 7 or any(
                    np.hypot(x - d["xy"][0], y - d["xy"][1]) < max(c.size, die_px) for d in label["dice"]):
                continue
            tested += 1
            assert marks.covered(image, field, die_px, [((x, y), c.size)]) == [True], (s, round(x), round(y), c.size)
    assert tested >= 10
    on = [m for m in marks.marks if m.on_checker]
    assert any(not m.on_checker and m.scale * SAME_SIZE < o.scale
               and np.hypot(*(np.subtract(m.center, o.center))) < field.checker_size[0] / 2 for m in marks.marks for o in on)

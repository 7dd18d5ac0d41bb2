"""Reading checkers: rendered boards with ground truth (every rule of reading), real photos."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from board_views import seen_from

from vision.calibrate import CalibrationError, learn_colours_opening
from vision.checkers import CheckerReadError, CheckerSettings, read_checkers
from vision.reader import BoardReader
from vision.registration import field_from_corners
from vision.render_board import STYLES, BoardState, CameraPose, Hand, Lighting, random_state, render_board


def _read(rendered, **kwargs):
    h, w = rendered.image.shape[:2]
    reader = BoardReader(field=field_from_corners(rendered.corners, (w, h), kwargs.pop("orientation", "bottom-right")),
                         **kwargs)
    return reader.read(rendered.image).to_dict()


def _pairs(obs_or_truth):
    return [(p["count"], p["colour"]) for p in obs_or_truth["points"]]


@pytest.mark.parametrize("style", list(STYLES))
def test_opening_position_in_every_style(style):
    r = render_board(BoardState.starting(), style, lighting=Lighting(blur=0.8, noise=3, gradient=0.2, jpeg=85))
    obs = _read(r)
    assert _pairs(obs) == _pairs(r.truth)
    assert obs["bar"] == {"light": 0, "dark": 0}
    assert obs["off"] == {"light": 0, "dark": 0}  # inferred: all 30 on the points


def test_dark_on_dark_and_light_on_light():
    # Dark checkers on the dark points and light ones on the light points, touching stacks.
    counts = [0] * 24
    for p in (2, 4, 6, 14, 16, 18):  # dark-point columns of the tournament style get dark checkers
        counts[p - 1] = -2
    for p in (1, 3, 13, 15, 17):
        counts[p - 1] = 1
    state = BoardState.from_counts(counts)
    for style in ("tournament", "walnut"):
        r = render_board(state, style, lighting=Lighting(blur=0.6, noise=2))
        assert _pairs(_read(r)) == _pairs(r.truth), style


def test_perspective_and_lighting():
    state = BoardState.from_counts([2, 0, -2, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 0])
    pose = CameraPose.looking_down(tilt=0.12, turn_deg=3.0, scale=0.8, aspect=STYLES["walnut"].geometry.aspect)
    r = render_board(state, "walnut", pose, Lighting(brightness=0.85, gradient=0.35, gradient_deg=30, blur=1.0,
                                                     noise=4, jpeg=80))
    assert _pairs(_read(r)) == _pairs(r.truth)


def test_tall_stacks_of_six():
    counts = [0] * 24
    counts[5], counts[12], counts[18] = 6, 6, -6
    counts[0], counts[23] = -6, -3
    state = BoardState.from_counts(counts)
    r = render_board(state, "fmgammon", lighting=Lighting(blur=0.5, noise=2))
    assert _pairs(_read(r)) == _pairs(r.truth)


def test_checkers_on_the_bar():
    counts = [0] * 24
    counts[5], counts[7], counts[18] = 5, 3, -5
    counts[11], counts[0] = -4, -2
    state = BoardState.from_counts(counts, bar=(1, 2))
    r = render_board(state, "tournament", lighting=Lighting(blur=0.5, noise=2))
    obs = _read(r)
    assert obs["bar"] == {"light": 1, "dark": 2}
    assert _pairs(obs) == _pairs(r.truth)


@pytest.mark.parametrize("orientation", ["bottom-right", "bottom-left", "top-right", "top-left"])
def test_all_four_layouts(orientation):
    """The same board photographed from the four sides reads the same for the reference player."""
    r = render_board(BoardState.from_counts([-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 1, 0, 1]),
                     "green", lighting=Lighting(blur=0.5))
    img, c = seen_from(r.image, r.corners, orientation)
    h, w = img.shape[:2]
    reader = BoardReader(field=field_from_corners(c, (w, h), orientation), orientation=orientation)
    assert _pairs(reader.read(img).to_dict()) == _pairs(r.truth)


def test_hand_over_points_makes_them_unreadable():
    state = BoardState.starting()
    r = render_board(state, "tournament", hands=[Hand(at=(0.62, 0.86), from_edge="bottom")],
                     lighting=Lighting(blur=0.5))
    obs = _read(r)
    truth = set(r.truth["unreadable_points"])
    assert truth, "the rendered hand should cover some points"
    found = set(obs["unreadable_points"])
    assert found & truth, (found, truth)
    assert obs["occluded"] is True
    # Points far from the hand are still read right.
    for p in (13, 17, 19, 24, 12):
        assert (obs["points"][p - 1]["count"], obs["points"][p - 1]["colour"]) == _pairs(r.truth)[p - 1]


def test_random_positions_mostly_right():
    """Held-out style check: random positions, styles, poses and lighting (not tuned on)."""
    rng = np.random.default_rng(2024)
    styles = list(STYLES)
    right = total = 0
    for i in range(10):
        style = styles[i % len(styles)]
        state = random_state(rng, max_stack=5, bar_prob=0.0)
        pose = CameraPose.looking_down(scale=float(rng.uniform(0.78, 0.92)), tilt=float(rng.uniform(-0.08, 0.08)),
                                       turn_deg=float(rng.uniform(-3, 3)), aspect=STYLES[style].geometry.aspect)
        r = render_board(state, style, pose, Lighting(blur=float(rng.uniform(0, 1)), noise=3), seed=i)
        got, want = _pairs(_read(r)), _pairs(r.truth)
        right += sum(g == t for g, t in zip(got, want))
        total += 24
    assert right / total >= 0.97, f"{right}/{total}"


def test_learned_colours_from_the_opening_position():
    r = render_board(BoardState.starting(), "walnut", lighting=Lighting(blur=0.5))
    field = field_from_corners(r.corners, (1280, 720))
    colours = learn_colours_opening(r.image, field)
    assert colours.light[0] > colours.dark[0] + 60  # ivory is far lighter than burgundy
    # A frame with only one colour on the board is read with the learned colours.
    counts = [0] * 24
    counts[5], counts[7] = -5, -3
    r2 = render_board(BoardState.from_counts(counts), "walnut", lighting=Lighting(blur=0.5))
    obs = BoardReader(field=field, colours=colours).read(r2.image).to_dict()
    assert _pairs(obs)[5] == (5, "dark") and _pairs(obs)[7] == (3, "dark")
    # An empty board is not the opening position.
    empty = render_board(BoardState.from_counts([0] * 24), "walnut")
    with pytest.raises(CalibrationError):
        learn_colours_opening(empty.image, field)


def test_bad_field_image_raises():
    field = field_from_corners([[0, 0], [640, 0], [640, 600], [0, 600]], (640, 600))
    with pytest.raises(CheckerReadError):
        read_checkers(np.zeros((10, 10), np.uint8), field)
    with pytest.raises(ValueError):
        BoardReader(field=field).read(np.zeros((600, 640, 3), np.float32))


def _label_pairs(label):
    from vision.evaluate import label_truth

    return label_truth(label)


def test_real_photos_with_labelled_corners(shared_data):
    """The real photos: per-point accuracy over all readable points, the boards without a hand
    read exactly right, and at most one point misread without being flagged unreadable (a hand
    over a stack may make a point unreadable; a silent wrong count is the costly error). The
    figures are in benchmarks/RESULTS.md."""
    from vision.evaluate import score
    from vision.reader import load_image

    folder = shared_data / "boards"
    right = total = silent = 0
    boards_ok = set()
    for path in sorted((folder / "labels").glob("*.json")):
        label = json.loads(path.read_text())
        truth = _label_pairs(label)
        image = load_image(folder / label["file"])
        h, w = image.shape[:2]
        obs = BoardReader(field=field_from_corners(truth["corners"], (w, h))).read(image).to_dict()
        s = score(obs, truth)
        right += s["point_ok"]
        total += s["points"]
        silent += s["silent_misses"]
        if s["board_ok"]:
            boards_ok.add(path.stem)
    assert right / total >= 0.98, f"{right}/{total}"
    assert silent <= 1, silent
    assert {"frame0", "test1", "test2", "test4", "test8", "test10"} <= boards_ok


def test_settings_round_trip():
    s = CheckerSettings(edge_min=9.5, fit_halves=False)
    again = CheckerSettings.from_dict(json.loads(json.dumps(s.to_dict())))
    assert again == s
    with pytest.raises(ValueError):
        CheckerSettings.from_dict({"no_such_setting": 1})


@pytest.mark.parametrize("style,light,dark", [("tournament", 11, 10), ("fmgammon", 9, 12)])
def test_overlapping_tall_stacks(style, light, dark):
    """Points with more checkers than fit in a line: the checkers overlap up to the middle."""
    counts = [0] * 24
    counts[5], counts[12] = light, 15 - light
    counts[18], counts[0] = -dark, -(15 - dark)
    r = render_board(BoardState.from_counts(counts), style, stack="overlap", lighting=Lighting(blur=0.5, noise=2))
    assert _pairs(_read(r)) == _pairs(r.truth)


def test_borne_off_checkers_are_inferred_in_the_bear_off():
    counts = [0] * 24
    counts[0], counts[2], counts[5] = 3, 4, 2  # light: 9 in its home board, 6 borne off
    counts[23], counts[20], counts[12] = -5, -5, -2  # dark: not all home, so nothing inferred
    r = render_board(BoardState.from_counts(counts, off=(6, 3)), "green", lighting=Lighting(blur=0.5))
    obs = _read(r)
    assert _pairs(obs) == _pairs(r.truth)
    # The tray is in view: both sides' borne-off checkers are counted there (vision/trays.py);
    # from the board alone dark's 3 could not be inferred (see tests/test_vision_board_trays.py).
    assert obs["off"] == {"light": 6, "dark": 3}
    assert obs["off_visible"] is True


def test_large_photos_read_like_small_ones():
    """A 4K-class photo (the field five times the working size) reads the same."""
    r = render_board(BoardState.starting(), "walnut", CameraPose.looking_down(image_size=(3840, 2160),
                                                                              aspect=STYLES["walnut"].geometry.aspect),
                     Lighting(blur=2.0, noise=3))
    assert _pairs(_read(r)) == _pairs(r.truth)


def test_a_line_of_both_colours_is_unreadable():
    """A point holds one colour: a clearly light and a clearly dark checker in one line
    is a sleeve or a shadow over it; a one-colour line, or a bar checker, is not."""
    from vision.checkers import Checker, CheckerColours, _mixed_points

    model = CheckerColours(light=(220.0, 128.0, 135.0), dark=(40.0, 128.0, 128.0))
    settings = CheckerSettings()
    lab_light, lab_dark, between = (215.0, 128.0, 134.0), (45.0, 128.0, 128.0), (130.0, 128.0, 131.0)
    found = [Checker(10, 10, lab_dark, 2.0, 7), Checker(10, 30, between, 2.0, 7), Checker(10, 50, lab_light, 2.0, 7),
             Checker(40, 10, lab_dark, 2.0, 8), Checker(40, 30, lab_dark, 2.0, 8),
             Checker(70, 10, lab_light, 2.0, 9), Checker(70, 30, between, 2.0, 9),
             Checker(100, 10, lab_light, 2.0, 0), Checker(100, 30, lab_dark, 2.0, 0)]
    assert _mixed_points(found, model, settings) == [7]
    assert _mixed_points(found, None, settings) == []


def test_real_photos_without_a_hand_have_no_unreadable_point(shared_data):
    """Precision of the hand detector on real photos: a board with nothing over it
    (shadows of the bar, a tray's wall inside the field) has no unreadable point."""
    from vision.evaluate import label_truth
    from vision.reader import load_image

    folder = shared_data / "boards"
    flagged = {}
    checked = 0
    for path in sorted((folder / "labels").glob("*.json")):
        label = json.loads(path.read_text())
        if label.get("occluded_points"):
            continue
        truth = label_truth(label)
        image = load_image(folder / label["file"])
        h, w = image.shape[:2]
        obs = BoardReader(field=field_from_corners(truth["corners"], (w, h))).read(image).to_dict()
        checked += 1
        if obs["unreadable_points"] or obs["occluded"]:
            flagged[path.stem] = obs["unreadable_points"]
    assert checked >= 5
    assert not flagged, flagged


@pytest.mark.parametrize("factor", [0.7, 1.25])
@pytest.mark.parametrize("style", list(STYLES))
def test_a_cast_shadow_or_a_bright_patch_is_no_hand_and_no_checker(style, factor):
    """The soft shadow of something beside the board (30% darker), or a lamp's brighter
    patch (25% brighter), over a third of the field scales its colours without changing
    them: no point becomes unreadable and every point is still read right."""
    r = render_board(BoardState.starting(), style, lighting=Lighting(blur=0.6, noise=2))
    h, w = r.image.shape[:2]
    field = field_from_corners(r.corners, (w, h))
    quad = np.array([[0.3, 0.0], [0.95, 0.0], [0.95, 0.45], [0.3, 0.45]]) * np.array(field.size)
    pts = cv2.perspectiveTransform(quad[None].astype(np.float64), np.linalg.inv(field.homography))[0]
    shade = np.ones((h, w), np.float32)
    cv2.fillConvexPoly(shade, np.round(pts).astype(np.int32), factor)
    shade = cv2.GaussianBlur(shade, (0, 0), 5)
    shaded = np.clip(r.image.astype(np.float32) * shade[..., None], 0, 255).astype(np.uint8)
    obs = BoardReader(field=field).read(shaded).to_dict()
    assert obs["unreadable_points"] == []
    assert _pairs(obs) == _pairs(r.truth)


def test_a_checker_off_the_point_centre_line_is_looked_at_again():
    """A checker's outline a tenth of a point off the centre line scores clearly higher at
    the shifted look (``offcentre_shift``) than on the centre line."""
    from vision.checkers import _arc_scores, _columns, _gradients, _lab, _offcentre_arc

    settings = CheckerSettings()
    h, w = 300, 320
    field = np.full((h, w, 3), 200, np.uint8)
    halves = (0.0, 0.47, 0.53, 1.0) * 2
    cols = _columns(w, h, halves)
    i = 18  # point 19, top row
    pw = float(cols.widths[i])
    rx = ry = 0.5 * pw * settings.checker_diameter
    v = 1.5 * 2 * ry  # the second slot from the base
    cx, cy = cols.centres[i] + 0.1 * pw, cols.bases[i] + v
    cv2.circle(field, (int(round(cx)), int(round(cy))), int(round(rx)), (60, 60, 60), 2, cv2.LINE_AA)
    gx, gy = _gradients(_lab(field))
    centred = _arc_scores(gx, gy, np.array([cols.centres[i]]), np.array([cy]), rx, ry, np.array([1.0]),
                          np.arange(20, 161, 10), same_radius=True)[0]
    shifted = _offcentre_arc(gx, gy, cols, i, v, rx, ry, 2 * ry, pw, settings)
    assert shifted >= 1.2 * centred, (shifted, centred)


def test_a_fixed_camera_reads_a_frame_alike_with_its_cached_geometry():
    """The classical reader: the first frame fits the halves and the checker size; later
    frames reuse them (and skip the size search): the same frame reads the same either way."""
    rng = np.random.default_rng(8)
    for i, style in enumerate(("walnut", "felt")):
        r = render_board(random_state(rng, max_stack=6), style, lighting=Lighting(blur=0.6, noise=2), seed=i)
        h, w = r.image.shape[:2]
        reader = BoardReader(field=field_from_corners(r.corners, (w, h)), point_model=None)
        first = reader.read(r.image).to_dict()
        assert reader._geometry is not None
        again = reader.read(r.image).to_dict()
        for key in ("points", "bar", "unreadable_points"):
            assert first[key] == again[key]


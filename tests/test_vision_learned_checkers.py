"""The learned checker reader: point crops, the point network, probabilities in the Observation,
and calibration teaching it a board (vision.point_crops, vision.learned_checkers, vision.board_learning)."""

from __future__ import annotations

import dataclasses
import json
import pathlib
import re
import sys

import numpy as np
import pytest

from vision.board_learning import BoardLearningError, BoardParts, compose, cut_parts, learn_board, learned_line
from vision.evaluate import label_truth
from vision.learned_checkers import PointHead, PointModel, softmax
from vision.point_crops import CROP_HEIGHT, CROP_WIDTH, LINE_PLACES, bar_crops, point_crops, places_under, points_under
from vision.reader import BoardReader, load_image
from vision.registration import RegistrationError, field_from_corners
from vision.render_board import BoardState, CameraPose, Lighting, render_board

#: The opening position as signed counts of points 1..24 (> 0 light, whose home board is 1-6).
OPENING = [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2]


@pytest.fixture(scope="module")
def model():
    return PointModel()


def _rendered(counts, style="walnut", bar=(0, 0), seed=0):
    pose = CameraPose.looking_down(tilt=0.06)
    r = render_board(BoardState.from_counts(counts, bar=bar), style, pose, Lighting(noise=2, jpeg=85), seed=seed)
    return r, field_from_corners(r.corners, pose.image_size)


def test_crops_put_every_points_base_on_the_first_row():
    counts = [0] * 24
    counts[0] = 1    # point 1: bottom row, rightmost
    counts[12] = -1  # point 13: top row, leftmost
    r, field = _rendered(counts)
    empty, _ = _rendered([0] * 24)
    crops, before = point_crops(r.image, field), point_crops(empty.image, field)
    assert crops.shape == (24, CROP_HEIGHT, CROP_WIDTH, 3) and crops.dtype == np.uint8
    diff = np.abs(crops.astype(int) - before.astype(int)).mean(axis=(2, 3))  # (24, rows)
    dh = int(field.checker_size[1] * 0.4)
    for p in (1, 13):
        assert diff[p - 1, :dh].mean() > 8, p         # the checker stands at the base: the crop's top
        assert diff[p - 1, 2 * dh:].mean() < 3, p     # and nothing changed further up the point
    others = [p for p in range(1, 25) if p not in (1, 13, 2, 12, 14, 24)]  # neighbours show an edge of it
    assert diff[[p - 1 for p in others]].mean() < 3


def _two_lone_checkers():
    """A rendered board with a checker on point 1 (bottom row, rightmost) and one on point 13
    (top row, leftmost): (its field, the checkers' image centres by point, ``box(x, y)`` the
    image box of a die of half a point's width centred there)."""
    counts = [0] * 24
    counts[0] = 1
    counts[12] = -1
    r, field = _rendered(counts)
    at = {p: (x, y) for x, y, _, p in r.checkers}
    side = 0.5 * np.ptp(field.to_image(np.array([[0.0, 0.0], [field.point_width, 0.0]]))[:, 0])

    def box(x, y):
        return (x - side / 2, y - side / 2, x + side / 2, y + side / 2)

    return field, at, box


def test_points_under_boxes_are_the_points_whose_column_and_half_they_overlap():
    field, at, box = _two_lone_checkers()
    assert points_under(field, [box(*at[1])]) == {1}
    assert points_under(field, [box(*at[13])]) == {13}
    assert points_under(field, [box(*at[1]), box(*at[13])]) == {1, 13}
    # on the line between points 1 and 2, in the middle of the field's bottom half
    edge = field.to_image(np.array([[field.point(1).x0, 0.75 * field.size[1]]]))[0]
    assert points_under(field, [box(*edge)]) == {1, 2}
    # on the bar, across the middle of the field: the bar alone
    mid = field.to_image(np.array([[0.5 * field.size[0], 0.5 * field.size[1]]]))[0]
    assert points_under(field, [box(*mid)]) == {"bar"}
    assert points_under(field, []) == frozenset()


def test_places_under_boxes_count_checkers_from_the_points_base():
    field, at, box = _two_lone_checkers()
    step = field.checker_size[1]

    def place(point, k):  # the image centre of checker place k of ``point``
        g = field.point(point)
        return field.to_image(np.array([[g.centre_x, g.base_y + g.direction * (k + 0.5) * step]]))[0]

    assert places_under(field, [box(*at[1])]) == {1: frozenset({0})}  # on the lone checker at the base
    assert places_under(field, [box(*at[13])]) == {13: frozenset({0})}
    assert places_under(field, [box(*place(1, 3))]) == {1: frozenset({3})}
    assert places_under(field, [box(*place(13, 2)), box(*place(13, 4))]) == {13: frozenset({2, 4})}
    # between two places: both; beyond a line of five: the point, no place
    between = field.to_image(np.array([[field.point(7).centre_x, field.size[1] - 2.0 * step]]))[0]
    assert places_under(field, [box(*between)]) == {7: frozenset({1, 2})}
    assert places_under(field, [box(*place(20, LINE_PLACES))]) == {20: frozenset()}
    assert set(places_under(field, [box(*place(20, LINE_PLACES))])) == points_under(field, [box(*place(20, LINE_PLACES))])
    assert places_under(field, []) == {}


def test_crops_of_a_frame_of_another_size_are_refused():
    r, field = _rendered([0] * 24)
    with pytest.raises(RegistrationError, match="1280x720"):
        point_crops(r.image[:400], field)


def test_rendered_board_read_with_probabilities(model):
    counts = list(OPENING)
    counts[5] = 4  # one light checker on the bar
    r, field = _rendered(counts, bar=(1, 0))
    obs = BoardReader(field=field, point_model=model).read(r.image)
    got = [0 if p.count == 0 else (p.count if p.colour == "light" else -p.count) for p in obs.points]
    assert got == counts
    assert obs.bar.light == 1 and obs.bar.dark == 0
    for p in obs.points:
        total = sum(v for _, v in p.distribution)  # given that the point can be seen
        assert 0.98 <= total <= 1.0 + 1e-6 and 0.0 <= p.hidden < 0.5  # pairs below 0.001 are left out
        best = p.distribution[0][0]
        assert best == (0 if p.count == 0 else (p.count if p.colour == "light" else -p.count))
        assert p.probability(best) == pytest.approx(p.distribution[0][1])
    out = obs.to_dict()["points"][0]
    assert out["distribution"][0][0] == -2 and "hidden" in out  # point 1: two dark checkers


def test_real_photos_none_of_which_the_network_saw(model, shared_data):
    """Every real photo is unseen (the network trains on synthetic crops only)."""
    right = total = 0
    for path in sorted((shared_data / "boards" / "labels").glob("*.json")):
        label = json.loads(path.read_text())
        truth = label_truth(label)
        image = load_image(shared_data / "boards" / label["file"])
        field = field_from_corners(truth["corners"], (image.shape[1], image.shape[0]))
        obs = BoardReader(field=field, point_model=model).read(image)
        for p in range(1, 25):
            if p in truth["occluded"]:
                continue
            n, c = truth["points"][p - 1]
            total += 1
            right += obs.points[p - 1].count == n and (n == 0 or obs.points[p - 1].colour == c)
    assert total > 190
    assert right / total >= 0.95, f"{right}/{total}"


def test_head_round_trip_and_bad_files(model, tmp_path):
    head = model.shipped_head
    path = head.save(tmp_path / "h.npz")
    again = PointHead.load(path)
    feats = np.random.default_rng(0).normal(size=(3, head.w1.shape[1])).astype(np.float32)
    assert np.allclose(head.logits(feats), again.logits(feats))
    (tmp_path / "bad.npz").write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match="cannot read"):
        PointHead.load(tmp_path / "bad.npz")
    np.savez(tmp_path / "shape.npz", w1=head.w1, b1=head.b1, w2=head.w2[:5], b2=head.b2)
    with pytest.raises(ValueError, match="wrong shapes"):
        PointHead.load(tmp_path / "shape.npz")


def test_the_head_runs_on_one_blas_thread_and_gives_the_same_probabilities(model):
    """A busy machine must not wait for numpy's BLAS threads: the head's product runs with BLAS
    limited to one thread (and the limit is lifted afterwards); the probabilities are the plain
    head's."""
    from threadpoolctl import ThreadpoolController

    seen = []
    plain = PointHead.logits

    def blas_threads():
        # numpy's BLAS, loaded with numpy before any PointModel, is among the model's libraries
        return {i["filepath"]: i["num_threads"] for i in model.blas.info() if i["user_api"] == "blas"}

    class Watching(PointHead):
        def logits(self, features):
            seen.append(blas_threads())
            return plain(self, features)

    assert blas_threads(), ThreadpoolController().info()
    h = model.shipped_head
    watched = model.with_head(Watching(h.w1, h.b1, h.w2, h.b2))
    r, field = _rendered(OPENING)
    crops = point_crops(r.image, field)
    before = blas_threads()
    probs = watched.probabilities(crops)
    assert seen and set(seen[0]) == set(before) and all(n == 1 for n in seen[0].values()), seen
    assert blas_threads() == before
    np.testing.assert_allclose(probs, softmax(plain(h, model.features(crops))), rtol=1e-5, atol=1e-7)


def test_without_threadpoolctl_the_model_still_reads_and_says_so(model, monkeypatch, caplog):
    """An install older than the threadpoolctl dependency: the point network still reads, the
    same probabilities, and the log says what is missing."""
    import logging
    import sys

    monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # import threadpoolctl raises ImportError
    with caplog.at_level(logging.WARNING, logger="vision.learned_checkers"):
        bare = PointModel()
    assert bare.blas is None
    assert any("threadpoolctl is not installed" in r.getMessage() for r in caplog.records)
    r, field = _rendered(OPENING)
    crops = point_crops(r.image, field)
    np.testing.assert_allclose(bare.probabilities(crops), model.probabilities(crops), rtol=1e-5, atol=1e-7)


def test_cut_parts_of_the_opening():
    r, field = _rendered(OPENING)
    parts = cut_parts(point_crops(r.image, field), bar_crops(r.image, field), field.checker_size)
    assert len(parts.empty) == 16 and parts.bar.shape[0] == 2
    assert len(parts.checkers["near"]) >= 12 and len(parts.checkers["far"]) >= 12
    # Near (points 6, 8, 13, 24) are light here, far dark: the patches say so.
    near = np.median([p.mean() for p in parts.checkers["near"]])
    far = np.median([p.mean() for p in parts.checkers["far"]])
    assert near > far + 60


def test_cut_parts_of_a_labelled_position_leave_out_skipped_points_and_a_bar_that_is_not_empty():
    counts = [0] * 24
    counts[2], counts[4], counts[9], counts[15], counts[20] = 3, 2, -4, -1, 2  # points 3, 5, 10, 16, 21
    r, field = _rendered(counts)
    position = {3: (3, "near"), 5: (2, "near"), 10: (4, "far"), 16: (1, "far"), 21: (2, "near")}
    parts = cut_parts(point_crops(r.image, field), bar_crops(r.image, field)[:0], field.checker_size,
                      position, frozenset({5, 7}))
    # 19 empty points less point 7; point 5's checkers left out with it
    assert len(parts.empty) == 18 and len(parts.bar) == 0
    assert len(parts.checkers["near"]) == 5 and len(parts.checkers["far"]) == 5
    near = np.median([p.mean() for p in parts.checkers["near"]])
    far = np.median([p.mean() for p in parts.checkers["far"]])
    assert near > far + 60  # positive counts are the light set here
    # with no bar crops, compositions are made on the empty points alone (none on the bar)
    xs, ys = compose(parts, 120, np.random.default_rng(1))
    assert len(xs) == 120 and set(ys.tolist()) <= set(range(17))


def test_compositions_hold_as_many_checkers_as_their_labels_say():
    """Grey empty points and white checkers: the white run up the crop's middle is the label's length."""
    dh, dw = 19.0, 18.0
    mask = np.zeros((19, 18), np.float32)
    import cv2

    cv2.ellipse(mask, (9, 9), (8, 8), 0, 0, 360, 1.0, -1)
    parts = BoardParts(empty=np.full((4, CROP_HEIGHT, CROP_WIDTH, 3), 60, np.uint8),
                       bar=np.full((2, CROP_HEIGHT, CROP_WIDTH, 3), 60, np.uint8),
                       checkers={"near": [np.full((19, 18, 3), 255, np.uint8)],
                                 "far": [np.full((19, 18, 3), 255, np.uint8)]},
                       mask=mask, dh=dh, dw=dw)
    xs, ys = compose(parts, 400, np.random.default_rng(3))
    assert xs.shape == (400, CROP_HEIGHT, CROP_WIDTH, 3) and set(ys.tolist()) <= set(range(17))
    within = []
    for x, y in zip(xs, ys):
        if not 1 <= y <= 5:
            continue
        column = x[:, CROP_WIDTH // 2 - 2:CROP_WIDTH // 2 + 3].mean(axis=(1, 2))
        within.append(abs(int((column > 125).sum()) - y * dh) <= 0.7 * dh)
    # Dice and hands (one sample in ten each) may hide or add a few rows; the rest must match.
    assert len(within) > 150 and np.mean(within) >= 0.85, np.mean(within)
    empty = [x for x, y in zip(xs, ys) if y == 0]
    assert empty and np.median([int((x[:, CROP_WIDTH // 2].mean(axis=1) > 125).sum()) for x in empty]) == 0


def test_calibration_keeps_the_shipped_reader_where_it_reads_the_opening(model):
    r, field = _rendered(OPENING, style="ivory")
    learned = learn_board(r.image, field, model, samples=800, generic=200)
    assert learned.head is None and learned.before is None and learned.after is None
    assert learned.near_colour == "light" and learned.light[0] > learned.dark[0]
    assert learned_line(learned) == "read this board's opening right as shipped: nothing to learn, the shipped reader kept"


def test_calibration_teaches_a_board_whose_opening_it_reads_right_but_unsurely(model, shared_data, monkeypatch):
    """``SURE_OPENING``: frame2's black and white checkers laid out in the opening on the real
    empty board test4 (``benchmarks/photo_composites.py``) are read right as shipped, but a
    stack at below 0.9, so the board is learned all the same; test8's black and white checkers
    are read surely, and nothing is adapted."""
    import cv2

    from vision import board_learning
    from vision.board_learning import SURE_OPENING, check_opening

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "benchmarks"))
    from photo_composites import cut_discs, lay_out

    def photo(name):
        label = json.loads((shared_data / "boards" / "labels" / f"{name}.json").read_text())
        return cv2.imread(str(shared_data / "boards" / label["file"])), label

    board, board_label = photo("test4")
    field = field_from_corners(label_truth(board_label)["corners"], (board.shape[1], board.shape[0]), validate=False)
    frames = {name: lay_out(board, field, BoardState.starting(), cut_discs(*photo(name)), np.random.default_rng(7))
              for name in ("frame2", "test8")}
    sure = learn_board(frames["test8"], field, model, samples=300, generic=100)
    assert sure.head is None and check_opening(frames["test8"], field, model, sure, sure=SURE_OPENING) == []
    taught = learn_board(frames["frame2"], field, model, samples=300, generic=100)
    assert taught.head is not None
    as_shipped = dataclasses.replace(taught, head=None)
    assert check_opening(frames["frame2"], field, model, as_shipped) == []  # read right ...
    unsure = check_opening(frames["frame2"], field, model, as_shipped, sure=SURE_OPENING)
    assert unsure and all(re.fullmatch(r"\d+ \(read \d+ (light|dark) at 0\.\d\d\)", u) for u in unsure), unsure
    # An adaptation that cannot read the opening back (a head that reads every point as empty)
    # is not kept where the shipped head read it right: the shipped head is, and nothing is refused.
    blind = dataclasses.replace(model.shipped_head, b2=model.shipped_head.b2 + 100.0 * (np.arange(17) == 0))
    monkeypatch.setattr(board_learning, "adapt_to_parts", lambda *a, **k: (blind, 0.5, 0.6))
    kept = learn_board(frames["frame2"], field, model, samples=300, generic=100)
    assert kept.head is None and kept.light == taught.light


def test_calibration_teaches_a_reader_that_misreads_the_board(tmp_path):
    from calibration_frames import misreading_model

    misreading = misreading_model(tmp_path)
    r, field = _rendered(OPENING, style="ivory")
    before = BoardReader(field=field, point_model=misreading).read(r.image)
    assert [p.count for p in before.points if abs(OPENING[p.point - 1]) == 5] != [5, 5, 5, 5]
    learned = learn_board(r.image, field, misreading, samples=800, generic=200)
    assert learned.head is not None and learned.after >= learned.before
    assert re.fullmatch(r"learned this board in \d+ s: its own compositions read right \d+\.\d% -> \d+\.\d%",
                        learned_line(learned)), learned_line(learned)
    assert learned.near_colour == "light" and learned.light[0] > learned.dark[0]
    # The adapted head reads a later position of this board, stacks of five included.
    later = [-2, 0, 0, 2, 0, 4, 0, 2, 0, 0, 0, -5, 4, 0, 0, 0, -3, 0, -4, -1, 0, 0, 0, 3]
    r2, _ = _rendered(later, style="ivory", seed=3)
    obs = BoardReader(field=field, point_model=misreading.with_head(learned.head)).read(r2.image)
    got = [0 if p.count == 0 else (p.count if p.colour == "light" else -p.count) for p in obs.points]
    assert sum(a == b for a, b in zip(got, later)) >= 23 and got[11] == -5
    # A frame that is not the opening position: refused, naming the points that disagree.
    with pytest.raises(BoardLearningError, match=r"points .*\(read .*want"):
        learn_board(r2.image, field, misreading, samples=300, generic=100)


def _run(repo_root, *args, timeout=300):
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(repo_root))
    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=repo_root, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _one_line_error(proc):
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_calibrate_keeps_the_shipped_reader_and_read_uses_the_profile(repo_root, tmp_path):
    import cv2

    r, _field = _rendered(OPENING, style="green")
    frame = tmp_path / "opening.png"
    cv2.imwrite(str(frame), r.image)
    profile = tmp_path / "club" / "green.json"
    profile.parent.mkdir()
    (profile.parent / "green.points.npz").write_bytes(b"a head of an earlier calibration")
    proc = _run(repo_root, "calibrate", str(frame), f"--corners={r.corners_arg}", "--learn", "opening",
                "--out", str(profile))
    assert proc.returncode == 0, proc.stderr
    assert "opening right as shipped" in proc.stdout and "nothing to learn" in proc.stdout
    data = json.loads(profile.read_text())
    assert "point_head" not in data and data["colours"] is not None
    assert not (profile.parent / "green.points.npz").exists()
    later = [-2, 0, 0, 2, 0, 4, 0, 2, 0, 0, 0, -5, 4, 0, 0, 0, -3, 0, -4, -1, 0, 0, 0, 3]
    r2, _ = _rendered(later, style="green", seed=5)
    cv2.imwrite(str(tmp_path / "later.png"), r2.image)
    proc = _run(repo_root, "read", str(tmp_path / "later.png"), "--calibration", str(profile), "--json")
    assert proc.returncode == 0, proc.stderr
    points = json.loads(proc.stdout)["points"]
    got = [0 if p["count"] == 0 else (p["count"] if p["colour"] == "light" else -p["count"]) for p in points]
    assert got == later
    assert all("distribution" in p for p in points)


def test_read_uses_the_head_a_board_taught_and_names_it_when_gone(repo_root, tmp_path):
    import cv2

    from calibration_frames import misreading_model

    from vision.calibrate import calibrate_board, save_calibration

    r, _field = _rendered(OPENING, style="green")
    prof, _obs, learned = calibrate_board(r.image, corners=r.corners, learn="opening",
                                          learning={"samples": 800, "generic": 200},
                                          point_model=misreading_model(tmp_path))
    assert learned is not None and learned.head is not None
    profile = tmp_path / "club" / "green.json"
    save_calibration(prof, learned, profile)
    data = json.loads(profile.read_text())
    assert data["point_head"] == "green.points.npz" and (profile.parent / "green.points.npz").is_file()
    later = [-2, 0, 0, 2, 0, 4, 0, 2, 0, 0, 0, -5, 4, 0, 0, 0, -3, 0, -4, -1, 0, 0, 0, 3]
    r2, _ = _rendered(later, style="green", seed=5)
    cv2.imwrite(str(tmp_path / "later.png"), r2.image)
    # Corners given beside the profile: still the board's learned reader.
    proc = _run(repo_root, "read", str(tmp_path / "later.png"), "--calibration", str(profile),
                f"--corners={r2.corners_arg}", "--json")
    assert proc.returncode == 0, proc.stderr
    points = json.loads(proc.stdout)["points"]
    got = [0 if p["count"] == 0 else (p["count"] if p["colour"] == "light" else -p["count"]) for p in points]
    assert sum(a == b for a, b in zip(got, later)) >= 23 and all("distribution" in p for p in points)
    # The learned file gone: one line, nothing read.
    (profile.parent / "green.points.npz").unlink()
    line = _one_line_error(_run(repo_root, "read", str(tmp_path / "later.png"), "--calibration", str(profile)))
    assert "green.points.npz" in line and "calibrate again" in line


def test_calibrate_refuses_what_it_cannot_learn_from(repo_root, tmp_path):
    import cv2

    r, _ = _rendered([-2, 0, 0, 2, 0, 4, 0, 2, 0, 0, 0, -5, 4, 0, 0, 0, -3, 0, -4, -1, 0, 0, 0, 3])
    frame = tmp_path / "not_opening.png"
    cv2.imwrite(str(frame), r.image)
    line = _one_line_error(_run(repo_root, "calibrate", str(frame), f"--corners={r.corners_arg}", "--learn", "opening",
                                "--out", str(tmp_path / "p.json")))
    assert "opening position" in line and "want" in line
    assert not (tmp_path / "p.json").exists() and not (tmp_path / "p.points.npz").exists()
    o, _ = _rendered(OPENING)
    cv2.imwrite(str(tmp_path / "opening.png"), o.image)
    cv2.imwrite(str(tmp_path / "small_empty.png"), cv2.resize(o.image, (640, 360)))
    line = _one_line_error(_run(repo_root, "calibrate", str(tmp_path / "opening.png"), f"--corners={o.corners_arg}",
                                "--learn", "opening", "--empty", str(tmp_path / "small_empty.png"),
                                "--out", str(tmp_path / "p.json")))
    assert "640x360" in line and "same camera" in line
    assert not (tmp_path / "p.json").exists()


def test_a_die_hiding_a_lone_checker_keeps_its_colour():
    """A found die covers the middle of the lone dark checker it lies on: the colour comes
    from what shows of the checker's disc, not from the grey cover."""
    from vision.learned_checkers import first_checker_colours
    from vision.point_crops import CROP_SCALE, cover_box

    counts = [0] * 24
    counts[8], counts[9] = -1, 1  # point 9 one dark checker, point 10 one light checker
    r, field = _rendered(counts, style="tournament")
    crops = point_crops(r.image, field)
    dh = field.checker_size[1] * CROP_SCALE
    plain = first_checker_colours(crops[[8, 9]], dh, np.array([1, 1]))
    covered = crops[[8, 9]].copy()
    cx = covered.shape[2] / 2
    for crop in covered:  # a die as wide as 0.7 of the checker over its middle
        cover_box(crop, (cx - 0.35 * dh, 0.15 * dh, cx + 0.35 * dh, 0.85 * dh))
    hidden = first_checker_colours(covered, dh, np.array([1, 1]))
    assert plain[0, 0] + 60 < plain[1, 0]  # dark and light apart in lightness
    for own, other in ((0, 1), (1, 0)):  # each still far nearer its own set's lightness (rims are grey)
        assert abs(hidden[own, 0] - plain[own, 0]) + 50 < abs(hidden[own, 0] - plain[other, 0])


def _distribution(point, count, hidden=0.0, light=0.9, sure=0.98):
    counts = [(1.0 - sure) / 15] * 16
    counts[count] = sure
    from vision.learned_checkers import PointDistribution

    return PointDistribution(point, tuple(counts), hidden, light)


def test_an_arm_across_the_bar_makes_the_bar_unreadable():
    """A half of the bar the network calls hidden (or is unsure of) counts nothing: the
    Observation says ``bar_unreadable`` and ``occluded``, and infers nothing borne off."""
    from vision.learned_checkers import BoardDistribution, bar_unreadable, to_checker_reading
    from vision.reader import build_observation

    r, field = _rendered(OPENING)
    points = tuple(_distribution(p, abs(n), light=0.9 if n > 0 else 0.1) for p, n in enumerate(OPENING, 1))
    clear = BoardDistribution(points, (_distribution(0, 1, light=0.9), _distribution(0, 2, light=0.1)), None)
    armed = BoardDistribution(points, (_distribution(0, 1, light=0.9), _distribution(0, 12, hidden=0.8, light=0.1)), None)
    unsure = BoardDistribution(points, (_distribution(0, 3, light=0.9, sure=0.3), _distribution(0, 0)), None)
    obs = build_observation(to_checker_reading(clear, field, 1.0), field, board=clear)
    assert not bar_unreadable(clear) and not obs.bar_unreadable and not obs.occluded
    assert (obs.bar.light, obs.bar.dark) == (1, 2)
    # The bar's distribution: the two halves independent, each of one colour.
    (lt, dk, p), *rest = obs.bar_distribution
    assert (lt, dk) == (1, 2) and p == pytest.approx((0.98 * 0.9) ** 2, rel=1e-3)
    assert obs.bar_probability(2, 1) == pytest.approx((0.98 * 0.1) ** 2, rel=1e-3)  # colours swapped
    assert all(v >= 1e-3 for *_, v in rest) and sum(v for *_, v in obs.bar_distribution) <= 1.0 + 1e-9
    assert obs.to_dict()["bar_distribution"][0] == [1, 2, round(p, 4)]
    for board, light in ((armed, 1), (unsure, 0)):
        obs = build_observation(to_checker_reading(board, field, 1.0), field, board=board)
        assert bar_unreadable(board) and obs.bar_unreadable and obs.occluded
        assert (obs.bar.light, obs.bar.dark) == (light, 0) and obs.unreadable_points == ()
        assert obs.to_dict()["bar_unreadable"] is True


def test_a_dark_arm_over_a_rendered_bar_is_not_read_as_checkers(model):
    counts = list(OPENING)
    counts[5], counts[18] = 4, -4  # one of each side on the bar
    pose = CameraPose.looking_down(tilt=0.06)
    from vision.render_board import Hand

    reads = []
    for hands in ([], [Hand(at=(0.5, 0.6), from_edge="bottom", colour=(40, 40, 60))]):
        r = render_board(BoardState.from_counts(counts, bar=(1, 1)), "tournament", pose, Lighting(noise=2, jpeg=85),
                         hands, seed=3)
        reads.append(BoardReader(field=field_from_corners(r.corners, pose.image_size), point_model=model).read(r.image))
    clear, armed = reads
    assert (clear.bar.light, clear.bar.dark) == (1, 1) and not clear.bar_unreadable and not clear.occluded
    assert clear.bar_distribution[0][:2] == (1, 1) and clear.bar_probability(0, 0) < 0.01
    assert armed.bar_unreadable and armed.occluded and armed.bar.light + armed.bar.dark <= 2


def test_a_die_on_the_first_place_of_an_empty_or_lone_point_asks_for_sureness():
    """A die covering a point's first place may hide a lone checker or lie on the empty point:
    read as 0 or 1 below UNSURE_UNDER_DIE the point is unreadable; a surer reading, a point of
    two, or a point with no die there is read as before."""
    import dataclasses

    from vision.learned_checkers import UNSURE_UNDER_DIE, first_place_covered, unsure
    from vision.point_crops import CROP_SCALE, cover_box, point_crops

    doubt = (UNSURE_UNDER_DIE + 0.4) / 2  # between the general flag (0.4) and UNSURE_UNDER_DIE
    for count in (0, 1):
        d = _distribution(3, count, sure=doubt)
        assert not unsure(d)
        assert unsure(dataclasses.replace(d, die_on_first=True))
        assert not unsure(dataclasses.replace(_distribution(3, count, sure=0.95), die_on_first=True))
    assert not unsure(dataclasses.replace(_distribution(3, 2, sure=doubt), die_on_first=True))

    r, field = _rendered(OPENING)
    crops = point_crops(r.image, field)[:3].copy()
    dh = field.checker_size[1] * CROP_SCALE
    cx = crops.shape[2] / 2
    cover_box(crops[0], (cx - 0.25 * dh, 0.25 * dh, cx + 0.25 * dh, 0.75 * dh))  # on the first place
    cover_box(crops[1], (cx - 0.25 * dh, 1.25 * dh, cx + 0.25 * dh, 1.75 * dh))  # on the second
    assert first_place_covered(crops, dh).tolist() == [True, False, False]


def test_a_die_on_an_empty_ivory_point_of_a_real_board_is_not_read_as_a_checker(model, shared_data):
    """test6 (walnut, ivory checkers on ivory points): a die lies on empty point 8 where a first
    checker would stand; the point is flagged unreadable while the die is there, never read as a
    checker without a flag."""
    from vision.dice_plugin import DicePlugin

    label = json.loads((shared_data / "boards" / "labels" / "test6.json").read_text())
    truth = label_truth(label)
    image = load_image(shared_data / "boards" / label["file"])
    reader = BoardReader(field=field_from_corners(truth["corners"], (image.shape[1], image.shape[0])), point_model=model)
    plugin = DicePlugin()
    reader.dice_reader, reader.cube_reader = plugin.dice, plugin.cube
    obs = reader.read(image)
    assert truth["points"][7][0] == 0
    assert 8 in obs.unreadable_points
    for p in range(1, 25):  # every other point read right, none flagged
        if p != 8:
            n, c = truth["points"][p - 1]
            assert obs.points[p - 1].count == n and (n == 0 or obs.points[p - 1].colour == c), p
            assert p not in obs.unreadable_points

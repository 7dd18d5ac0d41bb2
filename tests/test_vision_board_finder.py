"""Automatic board finding (vision/board_finder.py) on rendered boards and real photos."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.board_finder import _edge_score, _segment_quads, find_board
from vision.registration import RegistrationError
from vision.render_board import STYLES, BoardState, CameraPose, Lighting, random_state, render_board


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance, over the four cyclic orders of ``found`` (the reader settles the rows)."""
    return min(float(np.linalg.norm(np.roll(found, k, axis=0) - truth, axis=1).max()) for k in range(4))


def mean_side(q: np.ndarray) -> float:
    return float(np.mean(np.linalg.norm(q - np.roll(q, 1, axis=0), axis=1)))


def scale_about_centre(q: np.ndarray, f: float) -> np.ndarray:
    c = q.mean(axis=0)
    return c + f * (q - c)


@pytest.mark.parametrize("style", list(STYLES))
def test_turned_board_in_steep_perspective_is_found(style):
    """A board turned 15 degrees with strong keystone: a near-horizontal/vertical line
    search cannot bound it; the line families in any direction can."""
    rng = np.random.default_rng(3)
    pose = CameraPose.looking_down(scale=0.72, tilt=0.22, turn_deg=15, aspect=STYLES[style].geometry.aspect,
                                   shift=(40, 0))
    r = render_board(random_state(rng, max_stack=5), style, pose, Lighting(gradient=0.2, noise=2, blur=0.6),
                     background=(60, 140, 90), seed=4)
    q = find_board(r.image)
    assert corner_error(q, r.corners) <= 0.05 * mean_side(r.corners)


@pytest.mark.parametrize("style, turn, tilt", [("green", -18, -0.2), ("felt", 15, 0.22), ("green", 20, 0.1)])
def test_line_family_candidates_include_the_field(style, turn, tilt):
    """Among the line-family quadrilaterals of a turned, tilted board whose field edges are
    unbroken lines, one lies within 3% of the field. (Where the points' bases break the
    edge, e.g. black points on a black frame, the contour candidates find it instead.)"""
    pose = CameraPose.looking_down(scale=0.7, tilt=tilt, turn_deg=turn, aspect=STYLES[style].geometry.aspect)
    r = render_board(BoardState.starting(), style, pose, background=(170, 60, 120), seed=2)
    s = 640 / 1280
    small = cv2.resize(r.image, (640, 360), interpolation=cv2.INTER_AREA)
    quads = _segment_quads(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY))
    assert quads, "no quadrilateral from line families"
    best = min(corner_error(q / s, r.corners) for q in quads)
    assert best <= 0.03 * mean_side(r.corners)


@pytest.mark.parametrize("style", ["tournament", "fmgammon", "felt"])
def test_edge_score_prefers_the_field_to_frame_or_points(style):
    """The side test peaks on the field: pushed out onto the frame or pulled in over the
    points, the candidate scores lower."""
    pose = CameraPose.looking_down(scale=0.8, tilt=0.1, turn_deg=5, aspect=STYLES[style].geometry.aspect)
    r = render_board(BoardState.starting(), style, pose, background=(90, 150, 60), seed=1)
    lab = cv2.cvtColor(r.image, cv2.COLOR_BGR2LAB)
    true = _edge_score(lab, r.corners)
    assert true > _edge_score(lab, scale_about_centre(r.corners, 1.08)) + 0.1
    assert true > _edge_score(lab, scale_about_centre(r.corners, 0.9)) + 0.1


def test_found_on_most_rendered_boards():
    """Twelve rendered boards of every style, varied perspective, lighting and table colour:
    at least nine found within 5% (the benchmark gets 26/40 on each of two seeds)."""
    rng = np.random.default_rng(17)
    styles = list(STYLES)
    found = 0
    for i in range(12):
        style = styles[i % len(styles)]
        pose = CameraPose.looking_down(scale=float(rng.uniform(0.6, 0.9)), tilt=float(rng.uniform(-0.2, 0.2)),
                                       turn_deg=float(rng.uniform(-12, 12)), aspect=STYLES[style].geometry.aspect,
                                       shift=(float(rng.uniform(-80, 80)), float(rng.uniform(-20, 20))))
        light = Lighting(brightness=float(rng.uniform(0.85, 1.1)), gradient=float(rng.uniform(0, 0.3)),
                         gradient_deg=float(rng.uniform(0, 360)), noise=float(rng.uniform(0, 4)))
        bg = tuple(int(v) for v in rng.integers(30, 220, 3))
        r = render_board(random_state(rng, max_stack=5), style, pose, light, background=bg, seed=i)
        try:
            q = find_board(r.image)
        except RegistrationError:
            continue
        found += corner_error(q, r.corners) <= 0.05 * mean_side(r.corners)
    assert found >= 9


def test_table_without_a_board_is_refused():
    """Wood grain, a book and a mug on a table: no board, a one-line error."""
    rng = np.random.default_rng(5)
    img = np.empty((720, 1280, 3), np.uint8)
    img[:] = (60, 95, 140)
    for y in range(0, 720, 9):
        cv2.line(img, (0, y), (1279, y + int(rng.integers(-6, 6))), (50, 80, 125), 2)
    cv2.rectangle(img, (200, 150), (560, 610), (40, 40, 160), -1)
    cv2.rectangle(img, (220, 170), (540, 590), (230, 230, 225), 3)
    cv2.circle(img, (900, 360), 110, (200, 200, 205), -1)
    img = (img + rng.normal(0, 3, img.shape)).clip(0, 255).astype(np.uint8)
    with pytest.raises(RegistrationError) as exc:
        find_board(img)
    assert "\n" not in str(exc.value) and "no board" in str(exc.value)


def test_real_photos_found(shared_data):
    """The labelled photos: at least 7 of 9 found within 5% of the field's side (the old
    finder also found 7; it got 153/208 points in auto mode, this one 164/208)."""
    data = shared_data / "boards"
    found = 0
    labels = sorted((data / "labels").glob("*.json"))
    assert len(labels) >= 9
    for path in labels:
        label = json.loads(path.read_text())
        c = label["corners"]
        truth = np.array([c["top_left"], c["top_right"], c["bottom_right"], c["bottom_left"]], np.float64)
        img = cv2.imread(str(data / label["file"]))
        try:
            q = find_board(img)
        except RegistrationError:
            continue
        found += corner_error(q, truth) <= 0.05 * mean_side(truth)
    assert found >= 7


def test_quick_shortlist_keeps_the_full_scoring_choice():
    """The quick signature only shortlists: on rendered boards in varied poses the finder
    with the shortlist picks what scoring every candidate in full picks."""
    rng = np.random.default_rng(41)
    styles = list(STYLES)
    for i in range(4):
        style = styles[i % len(styles)]
        pose = CameraPose.looking_down(scale=float(rng.uniform(0.6, 0.9)), tilt=float(rng.uniform(-0.2, 0.2)),
                                       turn_deg=float(rng.uniform(-12, 12)), aspect=STYLES[style].geometry.aspect)
        bg = tuple(int(v) for v in rng.integers(30, 220, 3))
        r = render_board(random_state(rng, max_stack=5), style, pose, Lighting(noise=2), background=bg, seed=i)
        try:
            full = find_board(r.image, shortlist=10 ** 6)
        except RegistrationError:
            with pytest.raises(RegistrationError):
                find_board(r.image)
            continue
        assert np.abs(find_board(r.image) - full).max() < 1e-6


def test_quick_scores_rank_the_field_above_near_misses():
    """The quick signature of the true field beats a quad over half the board and the field
    turned the other way (rows along the short sides). (Like the full signature it
    tolerates a shift by about a point; :func:`_edge_score` settles that.)"""
    from vision.board_finder import _quick_scores

    r = render_board(BoardState.starting(), "walnut", lighting=Lighting(noise=2))
    lab = cv2.GaussianBlur(cv2.cvtColor(r.image, cv2.COLOR_BGR2LAB), (5, 5), 0)
    q = r.corners.astype(np.float64)
    half = np.array([q[0], 0.5 * (q[0] + q[1]), 0.5 * (q[3] + q[2]), q[3]])
    turned = np.array([q[3], q[0], q[1], q[2]])
    s = _quick_scores(lab, np.stack([q, half, turned]))
    assert s[0] > 0.4
    assert s[0] > max(s[1:]) + 0.1, s


@pytest.mark.parametrize("style", ["tournament", "walnut"])
def test_refining_brings_a_side_pushed_out_back_to_the_field_edge(style):
    """A found field whose top side lies on the frame (3% out) and whose right side lies
    over the points (3% in) is moved back towards the field's edges."""
    from vision.board_finder import _refine_sides

    r = render_board(BoardState.starting(), style, lighting=Lighting(noise=2))
    lab = cv2.cvtColor(r.image, cv2.COLOR_BGR2LAB)
    q = r.corners.astype(np.float64)
    off = q.copy()
    down = (q[3] - q[0]) * 0.03
    across = (q[1] - q[0]) * 0.03
    off[0] -= down
    off[1] -= down
    off[1] -= across
    off[2] -= across
    refined = _refine_sides(lab, off)
    assert corner_error(refined, q) < 0.75 * corner_error(off, q), (corner_error(refined, q), corner_error(off, q))

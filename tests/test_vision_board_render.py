"""The synthetic board renderer and the evaluation helpers."""

from __future__ import annotations

import numpy as np
import pytest

from vision.evaluate import label_truth, main as evaluate_main, score
from vision.registration import FIELD_HEIGHT, FIELD_WIDTH
from vision.render_board import (
    STYLES,
    BoardState,
    CameraPose,
    Hand,
    Lighting,
    RenderError,
    random_state,
    render_board,
)


def test_starting_position_has_fifteen_a_side():
    s = BoardState.starting()
    light = sum(n for n, c in s.points if c == "light")
    dark = sum(n for n, c in s.points if c == "dark")
    assert light == dark == 15
    assert s.points[5] == (5, "light") and s.points[0] == (2, "dark")


@pytest.mark.parametrize("bad", [
    lambda: BoardState(((0, None),) * 23),
    lambda: BoardState.from_counts([16] + [0] * 23),
    lambda: BoardState.from_counts([8, 8] + [0] * 22),
    lambda: BoardState(((1, None),) + ((0, None),) * 23),
])
def test_bad_states_raise(bad):
    with pytest.raises(RenderError):
        bad()


def test_render_returns_image_and_truth():
    state = BoardState.from_counts([0] * 5 + [3] + [0] * 6 + [-2] + [0] * 11, bar=(1, 1), off=(2, 0))
    r = render_board(state, "walnut", CameraPose.looking_down(image_size=(800, 600), tilt=0.1, aspect=1.09),
                     Lighting(gradient=0.3, blur=1, noise=3, jpeg=80))
    assert r.image.shape == (600, 800, 3) and r.image.dtype == np.uint8
    assert r.truth["points"][5] == {"point": 6, "count": 3, "colour": "light"}
    assert r.truth["points"][12] == {"point": 13, "count": 2, "colour": "dark"}
    assert r.truth["bar"] == {"light": 1, "dark": 1} and r.truth["off"] == {"light": 2, "dark": 0}
    # One drawn checker per checker: points, bar (place 0) and off (place 25).
    places = [p for _, _, _, p in r.checkers]
    assert places.count(6) == 3 and places.count(13) == 2 and places.count(0) == 2 and places.count(25) == 2
    # The field corners map through the homography.
    fc = np.array([[0, 0, 1], [FIELD_WIDTH, FIELD_HEIGHT, 1]], float) @ r.field_to_image.T
    assert np.allclose(fc[:, :2] / fc[:, 2:], r.corners[[0, 2]], atol=1e-6)
    # Point 6's checkers lie in the image's bottom-right quadrant (reference numbering).
    xs = [x for x, _, _, p in r.checkers if p == 6]
    ys = [y for _, y, _, p in r.checkers if p == 6]
    assert min(xs) > r.corners[:, 0].mean() and min(ys) > r.corners[:, 1].mean()


def test_hands_are_marked_in_the_truth():
    r = render_board(BoardState.starting(), "green", hands=[Hand(at=(0.2, 0.1), from_edge="top")])
    assert r.truth["occluded"] is True
    assert r.hand_mask.any()
    assert set(r.truth["unreadable_points"]) <= set(range(13, 19)) | {19}
    assert r.truth["unreadable_points"]


def test_unknown_style_raises():
    with pytest.raises(RenderError):
        render_board(BoardState.starting(), "no-such-style")


def test_random_states_are_legal_counts():
    rng = np.random.default_rng(3)
    for _ in range(20):
        s = random_state(rng)
        light = sum(n for n, c in s.points if c == "light") + s.bar_count("light") + s.off_count("light")
        dark = sum(n for n, c in s.points if c == "dark") + s.bar_count("dark") + s.off_count("dark")
        assert light == dark == 15


def test_every_style_renders_distinct_boards():
    means = {name: render_board(BoardState.starting(), name).image.mean(axis=(0, 1)) for name in STYLES}
    values = list(means.values())
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            assert np.abs(values[i] - values[j]).max() > 2


def test_label_truth_maps_image_layout_to_read_numbering():
    label = {
        "top": [{"n": 2, "c": "B"}] + [{"n": 0, "c": None}] * 11,
        "bottom": [{"n": 0, "c": None}] * 11 + [{"n": 3, "c": "W"}],
        "bar_checkers": {"B": 1, "W": 0},
        "occluded_points": ["bottom:0", "top:11"],
        "corners": {"top_left": [0, 0], "top_right": [10, 0], "bottom_right": [10, 10], "bottom_left": [0, 10]},
    }
    t = label_truth(label)
    assert t["points"][12] == (2, "dark")  # top-left = point 13
    assert t["points"][0] == (3, "light")  # bottom-right = point 1
    assert t["occluded"] == {12, 24}
    assert t["bar"] == {"light": 0, "dark": 1}
    obs = {"points": [{"point": p, "count": n, "colour": c} for p, (n, c) in enumerate(t["points"], 1)],
           "bar": {"light": 0, "dark": 1}, "unreadable_points": [12]}
    s = score(obs, t)
    assert s["board_ok"] and s["points"] == 22 and s["occluded_found"] == 1
    obs["points"][0] = {"point": 1, "count": 2, "colour": "light"}
    s = score(obs, t)
    assert not s["board_ok"] and s["misses"] == [{"point": 1, "expected": [3, "light"], "read": [2, "light"]}]


def test_evaluate_writes_csv(shared_data, tmp_path, capsys):
    out = tmp_path / "eval.csv"
    assert evaluate_main(["--data", str(shared_data / "boards"), "--csv", str(out)]) == 0
    text = capsys.readouterr().out
    assert "whole board right" in text and "points right" in text
    rows = out.read_text().strip().splitlines()
    assert rows[0].startswith("image,board_ok") and len(rows) == 1 + len(list((shared_data / "boards" / "labels").glob("*.json")))


def test_evaluate_synthetic_runs(tmp_path, capsys):
    assert evaluate_main(["--synthetic", "3", "--seed", "5", "--csv", str(tmp_path / "s.csv")]) == 0
    assert "3 rendered boards" in capsys.readouterr().out


def test_marks_are_drawn_on_the_checkers_and_the_field():
    """A style's ``checker_mark`` changes every checker's face and nothing else on the point; its
    ``field_print`` changes the field's middle band between the tips and leaves the points alone."""
    import dataclasses

    plain = STYLES["tournament"]
    marked = dataclasses.replace(plain, checker_mark="FM", mark_shade=0.6)
    printed = dataclasses.replace(plain, field_print="www.example.com", print_colour=(40, 40, 200))
    state = BoardState.starting()
    a = render_board(state, plain, seed=3)
    b = render_board(state, marked, seed=3)
    c = render_board(state, printed, seed=3)
    diff_b = np.abs(a.image.astype(int) - b.image.astype(int)).sum(axis=2) > 30
    diff_c = np.abs(a.image.astype(int) - c.image.astype(int)).sum(axis=2) > 30
    # every checker's centre region changed; the rest of the image did not
    for x, y, _colour, _p in a.checkers:
        r = 6
        assert diff_b[int(y) - r:int(y) + r, int(x) - r:int(x) + r].any()
    far = np.ones_like(diff_b)
    for x, y, _colour, _p in a.checkers:
        far[max(int(y) - 40, 0):int(y) + 40, max(int(x) - 40, 0):int(x) + 40] = False
    assert not diff_b[far].any()
    # the print lies in the field's middle band, both halves, clear of the checkers
    f2i = a.field_to_image
    mid = [(FIELD_WIDTH * fx, FIELD_HEIGHT * 0.5) for fx in (0.25, 0.75)]
    for mx, my in mid:
        p = f2i @ np.array([mx, my, 1.0])
        x, y = int(p[0] / p[2]), int(p[1] / p[2])
        assert diff_c[y - 40:y + 40, x - 200:x + 200].sum() > 200
    assert not diff_c[far & ~_band(c, 0.4, 0.6)].any()


def _band(r, y0: float, y1: float) -> np.ndarray:
    """Image pixels whose field height lies between ``y0`` and ``y1`` (fractions)."""
    h, w = r.image.shape[:2]
    inv = np.linalg.inv(r.field_to_image)
    yy, xx = np.mgrid[0:h, 0:w]
    p = inv @ np.stack([xx.ravel(), yy.ravel(), np.ones(h * w)])
    fy = (p[1] / p[2]).reshape(h, w) / FIELD_HEIGHT
    return (fy > y0) & (fy < y1)


def test_random_styles_with_marks():
    """``random_style(marks=True)`` draws the same colours as without marks from the same random
    numbers, then marks; the plain random board scene is the built-in styles as always."""
    from vision.render_board import random_style
    from vision.render_roll import random_board_scene

    plain = random_style(np.random.default_rng(4))
    styles = [random_style(np.random.default_rng(s), marks=True) for s in range(30)]
    assert dataclasses_equal_but_marks(plain, styles[4])
    assert any(s.checker_mark for s in styles) and any(s.field_print for s in styles)
    assert any(not s.checker_mark for s in styles)
    names = {random_board_scene(np.random.default_rng(s)).style for s in range(6)}
    assert names <= set(STYLES)
    wide = [random_board_scene(np.random.default_rng(s), wide=True) for s in range(6)]
    assert {w.style for w in wide} - set(STYLES)  # some of random colours


def dataclasses_equal_but_marks(a, b) -> bool:
    import dataclasses

    return dataclasses.replace(b, checker_mark="", mark_shade=a.mark_shade, field_print="",
                               print_colour=a.print_colour) == a

"""Borne-off checkers read in the bear-off tray (vision/trays.py): rendered boards with the
tray in view, boards with none borne off, frames cropped at the field, a real photo."""

from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest
from board_views import seen_from

from vision.profile import Profile
from vision.reader import BoardReader
from vision.registration import field_from_corners
from vision.render_board import BoardState, CameraPose, Lighting, render_board
from vision.trays import TraySettings, read_trays, tray_in_view


def _read(image, corners, **kwargs):
    h, w = image.shape[:2]
    return BoardReader(field=field_from_corners(corners, (w, h)), **kwargs).read(image).to_dict()


def _pairs(obs_or_truth):
    return [(p["count"], p["colour"]) for p in obs_or_truth["points"]]


def _bearing_off(light_home, dark_home):
    """Signed counts: light on points 1.. (its home board), dark on 24.. (its home board)."""
    counts = [0] * 24
    for i, n in enumerate(light_home):
        counts[i] = n
    for i, n in enumerate(dark_home):
        counts[23 - i] = -n
    return counts


@pytest.mark.parametrize("style,light_home,dark_home,lighting", [
    ("fmgammon", (3, 2, 0, 1), (4, 0, 0, 3), Lighting(blur=1.0, noise=3)),
    ("green", (2, 2, 2, 2, 2, 2), (1,), Lighting(blur=0.8, noise=2, gradient=0.2, jpeg=85)),
    ("felt", (1,), (2, 2, 2, 2, 2, 2), Lighting(blur=0.5, noise=2)),
    ("fmgammon", (), (5, 5), Lighting(blur=0.7)),  # light has borne off all 15
])
def test_borne_off_checkers_are_counted_in_the_tray(style, light_home, dark_home, lighting):
    counts = _bearing_off(light_home, dark_home)
    off = (15 - sum(light_home), 15 - sum(dark_home))
    r = render_board(BoardState.from_counts(counts, off=off), style, lighting=lighting)
    # The colours are learned once from the opening position (one side alone on the board
    # cannot say whether it is the light or the dark one).
    opening = render_board(BoardState.starting(), style, lighting=lighting)
    colours = BoardReader(field=field_from_corners(opening.corners, (1280, 720))).read_full(opening.image).checkers.colour_model
    obs = _read(r.image, r.corners, colours=colours)
    assert _pairs(obs) == _pairs(r.truth)
    assert obs["off"] == r.truth["off"] == {"light": off[0], "dark": off[1]}
    if style == "felt":
        # The felt's black tray lies within reach of its black checkers' colour: the tray may
        # count more dark checkers than there are, and then the dark side's off is inferred.
        assert obs["off_source"] in ("trays", "mixed")
    else:
        assert obs["off_source"] == "trays" and obs["off_visible"] is True and obs["off_trays"] is None
    assert "trays" in obs["timings_ms"]


def test_a_checker_hit_while_bearing_off_is_counted_from_the_tray():
    # Light bore off 4, then was hit: one on the bar, so the board alone says nothing is off.
    counts = _bearing_off((3, 3, 2, 2), ())
    counts[12], counts[20], counts[18] = -8, -4, -3
    state = BoardState.from_counts(counts, bar=(1, 0), off=(4, 0))
    r = render_board(state, "green", lighting=Lighting(blur=0.6, noise=2))
    obs = _read(r.image, r.corners)
    assert obs["bar"] == {"light": 1, "dark": 0}
    assert obs["off"] == {"light": 4, "dark": 0} and obs["off_source"] == "trays"
    # Without the tray, inferring `off` from the checkers seen cannot count them.
    assert _read(r.image, r.corners, trays=TraySettings(enabled=False))["off"] == {"light": 0, "dark": 0}


@pytest.mark.parametrize("style", ["fmgammon", "green", "felt", "walnut"])
def test_no_checkers_borne_off_reads_zero(style):
    r = render_board(BoardState.starting(), style, lighting=Lighting(blur=0.8, noise=3))
    obs = _read(r.image, r.corners)
    assert obs["off"] == {"light": 0, "dark": 0}
    # walnut's tray looks like its dark checkers: dark is inferred there.
    assert obs["off_source"] == ("mixed" if style == "walnut" else "trays")


def test_dark_checkers_in_a_dark_tray_fall_back_to_the_inference_and_say_so():
    # Tournament style: the tray is as dark as the dark checkers, their stripes cannot be
    # told apart (one long dark run): dark is inferred, light still counted in the tray.
    counts = _bearing_off((3, 2, 0, 1), (4, 0, 0, 3))
    r = render_board(BoardState.from_counts(counts, off=(9, 8)), "tournament", lighting=Lighting(blur=1.0))
    obs = _read(r.image, r.corners)
    assert obs["off"] == {"light": 9, "dark": 8}  # dark inferred: all home
    assert obs["off_source"] == "mixed" and obs["off_visible"] is False
    assert obs["off_trays"]["light"] == 9 and obs["off_trays"]["dark"] != 8


def test_dark_tray_light_hit_while_bearing_off_still_counts_light():
    counts = _bearing_off((3, 3, 2, 2), ())
    counts[12], counts[20], counts[18] = -8, -4, -3
    r = render_board(BoardState.from_counts(counts, bar=(1, 0), off=(4, 0)), "tournament",
                     lighting=Lighting(blur=0.6, noise=2))
    obs = _read(r.image, r.corners)
    assert obs["off"] == {"light": 4, "dark": 0} and obs["off_source"] == "mixed"


def test_a_tray_count_that_disagrees_with_the_board_is_not_used():
    # One light checker is missing from the frame altogether (in a player's hand): 5 on the
    # board and 9 in the tray make 14, so the tray's light count is not used; light is
    # inferred as 15 - 5 and the tray's figure is reported aside.
    counts = _bearing_off((3, 2), (4, 0, 0, 3))
    r = render_board(BoardState.from_counts(counts, off=(9, 8)), "green", lighting=Lighting(blur=0.8))
    obs = _read(r.image, r.corners)
    assert obs["off"] == {"light": 10, "dark": 8}  # light inferred as 15 - 5
    assert obs["off_source"] == "mixed" and obs["off_trays"] == {"light": 9, "dark": 8}


def test_frame_cropped_at_the_field_keeps_the_inferred_value():
    counts = _bearing_off((3, 2, 0, 1), (4, 0, 0, 3))
    state = BoardState.from_counts(counts, off=(9, 8))
    # The field's right edge two pixels inside the frame's right edge: the tray is cut off.
    pose = CameraPose((1280, 720), ((600, 40), (1277, 40), (1277, 680), (600, 680)))
    r = render_board(state, "fmgammon", pose=pose, lighting=Lighting(blur=0.8))
    h, w = r.image.shape[:2]
    assert not tray_in_view(field_from_corners(r.corners, (w, h)), TraySettings())
    obs = _read(r.image, r.corners)
    assert obs["off"] == {"light": 9, "dark": 8}
    assert obs["off_source"] == "inferred" and obs["off_trays"] is None and obs["off_visible"] is False


def test_real_photo_cropped_at_the_field_keeps_its_reading(shared_data, repo_root):
    label = json.loads((shared_data / "boards" / "labels" / "frame0.json").read_text())
    c = label["corners"]
    corners = np.array([c[k] for k in ("top_left", "top_right", "bottom_right", "bottom_left")], float)
    image = cv2.imread(str(shared_data / "boards" / "images" / "frame0.jpg"))
    full = _read(image, corners)
    right = int(np.ceil(max(corners[1, 0], corners[2, 0]))) + 2
    cropped = np.ascontiguousarray(image[:, :right])
    obs = _read(cropped, corners)
    assert obs["off_source"] == "inferred" and obs["off_trays"] is None
    assert obs["off"] == full["off"] == {"light": 0, "dark": 0}  # the label: none borne off
    assert _pairs(obs) == _pairs(full)


def test_cli_json_has_the_off_source(tmp_path, repo_root):
    counts = _bearing_off((3, 2, 0, 1), (4, 0, 0, 3))
    r = render_board(BoardState.from_counts(counts, off=(9, 8)), "green", lighting=Lighting(blur=0.8))
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), r.image)
    out = subprocess.run([sys.executable, "-m", "companion", "read", str(path), f"--corners={r.corners_arg}", "--json"],
                         cwd=repo_root, capture_output=True, text=True, env={"PYTHONPATH": str(repo_root)}, check=True)
    obs = json.loads(out.stdout)
    assert obs["off"] == {"light": 9, "dark": 8} and obs["off_source"] == "trays"


def test_read_trays_is_none_without_colours_or_when_disabled():
    r = render_board(BoardState.starting(), "green")
    field = field_from_corners(r.corners, r.image.shape[1::-1])
    assert read_trays(r.image, field, None) is None
    reading = BoardReader(field=field).read_full(r.image).checkers
    assert read_trays(r.image, field, reading.colour_model, TraySettings(enabled=False)) is None
    tray = read_trays(r.image, field, reading.colour_model)
    assert tray is not None and tray.counts == {"light": 0, "dark": 0} and tray.confident


def test_tray_settings_in_a_profile_round_trip_and_reject_bad_values():
    p = Profile(trays=TraySettings(gap=0.03, width=0.1))
    data = p.to_dict()
    assert data["trays"]["gap"] == 0.03
    assert Profile.from_dict(json.loads(json.dumps(data))).trays == p.trays
    assert "trays" not in Profile().to_dict()  # defaults are not written
    with pytest.raises(ValueError, match="tray settings"):
        TraySettings.from_dict({"width": 2.0})
    with pytest.raises(ValueError, match="unknown tray settings"):
        TraySettings.from_dict({"wdth": 0.1})


@pytest.mark.parametrize("orientation", ["bottom-right", "bottom-left", "top-right", "top-left"])
def test_the_tray_is_found_beside_the_home_boards_in_all_four_layouts(orientation):
    """Photographed from the four sides (the tray then lies on the image's left or right),
    the borne-off checkers are counted in the tray beside the home boards."""
    counts = _bearing_off((3, 2, 0, 1), (4, 0, 0, 3))
    r = render_board(BoardState.from_counts(counts, off=(9, 8)), "green", lighting=Lighting(blur=0.6))
    img, c = seen_from(r.image, r.corners, orientation)
    h, w = img.shape[:2]
    reader = BoardReader(field=field_from_corners(c, (w, h), orientation), orientation=orientation)
    obs = reader.read(img).to_dict()
    assert obs["off"] == {"light": 9, "dark": 8} and obs["off_source"] == "trays"
    # Black out the frame beyond the field's home-board side: no checkers in the tray any
    # more, which disagrees with the board, so the value is inferred (both sides all home).
    xs = reader.field.to_image(np.array([[reader.field.size[0], 0.0], [reader.field.size[0], 600.0]]))[:, 0]
    cut = img.copy()
    if xs.mean() > w / 2:
        cut[:, int(xs.max()) + 2:] = 0
    else:
        cut[:, :int(xs.min()) - 1] = 0
    cut_obs = reader.read(cut).to_dict()
    assert cut_obs["off_source"] == "inferred" and cut_obs["off"] == {"light": 9, "dark": 8}


def test_annotation_outlines_the_tray_it_read():
    from vision.annotate import annotate

    counts = _bearing_off((3, 2, 0, 1), (4, 0, 0, 3))
    r = render_board(BoardState.from_counts(counts, off=(9, 8)), "green", lighting=Lighting(blur=0.6))
    reader = BoardReader(field=field_from_corners(r.corners, (1280, 720)))
    res = reader.read_full(r.image)
    pic = annotate(r.image, res.field, res.observation, res.checkers, reader.settings.work_scale, trays=reader.trays)
    fw, fh = res.field.size
    edge = res.field.to_image(np.array([[fw * (1 + reader.trays.gap), fh / 2]]))[0].round().astype(int)
    patch = pic[edge[1] - 3:edge[1] + 4, edge[0] - 3:edge[0] + 4].reshape(-1, 3)
    assert any(tuple(p) == (255, 128, 0) for p in patch)  # the tray's blue outline
    assert not any(tuple(p) == (255, 128, 0) for p in r.image[edge[1] - 3:edge[1] + 4, edge[0] - 3:edge[0] + 4].reshape(-1, 3))

"""``companion read`` and ``companion calibrate`` as a user runs them (real subprocesses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import cv2
import numpy as np
import pytest

from aruco_markers import with_aruco
from vision.render_board import BoardState, Lighting, render_board


def run(repo_root, *args, timeout=120):
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=repo_root, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def opening(tmp_path_factory):
    r = render_board(BoardState.starting(), "tournament", lighting=Lighting(blur=0.6, noise=2))
    path = tmp_path_factory.mktemp("boards") / "opening.png"
    cv2.imwrite(str(path), r.image)
    return path, r


def _check_one_line_error(proc):
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    assert "error" in lines[0]


def test_read_json_shape(repo_root, opening):
    path, r = opening
    proc = run(repo_root, "read", str(path), f"--corners={r.corners_arg}", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [p["point"] for p in out["points"]] == list(range(1, 25))
    assert set(out["points"][0]) == {"point", "count", "colour", "distribution", "hidden"}
    assert all(abs(sum(pr for _, pr in p["distribution"]) - 1.0) < 0.01 for p in out["points"])
    assert out["bar"] == {"light": 0, "dark": 0}
    assert set(out["off"]) == {"light", "dark"}
    assert isinstance(out["unreadable_points"], list) and isinstance(out["timings_ms"], dict)
    assert out["dice"] == [] and out["cube"] is None
    want = [(p["count"], p["colour"]) for p in r.truth["points"]]
    assert [(p["count"], p["colour"]) for p in out["points"]] == want


def test_read_text_and_annotate(repo_root, opening, tmp_path):
    path, r = opening
    pic = tmp_path / "seen.png"
    proc = run(repo_root, "read", str(path), f"--corners={r.corners_arg}", "--annotate", str(pic))
    assert proc.returncode == 0, proc.stderr
    assert "13-24:" in proc.stdout and "12- 1:" in proc.stdout
    img = cv2.imread(str(pic))
    assert img is not None and img.shape == r.image.shape
    assert np.abs(img.astype(int) - r.image.astype(int)).sum() > 0  # something was drawn


def test_corner_outside_the_image_is_accepted(repo_root, tmp_path):
    """A photo that crops the board: the first corner lies at negative coordinates."""
    r = render_board(BoardState.starting(), "green")
    crop = r.image[20:, 40:].copy()
    path = tmp_path / "cropped.png"
    cv2.imwrite(str(path), crop)
    c = r.corners - np.array([40, 20])
    c[0] = c[0] - np.array([60, 40])  # pretend the top-left corner is off the picture
    corners = ",".join(f"{v:.1f}" for v in c.ravel())
    proc = run(repo_root, "read", str(path), f"--corners={corners}", "--json")
    assert proc.returncode == 0, proc.stderr
    first = json.loads(proc.stdout)
    assert len(first["points"]) == 24
    # The same with a space after --corners (the value starts with a minus sign).
    proc = run(repo_root, "read", str(path), "--corners", corners, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["points"] == first["points"]


def test_read_finds_the_board_itself(repo_root, opening):
    path, r = opening
    proc = run(repo_root, "read", str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    want = [(p["count"], p["colour"]) for p in r.truth["points"]]
    got = [(p["count"], p["colour"]) for p in out["points"]]
    assert sum(g == w for g, w in zip(got, want)) >= 22


@pytest.mark.parametrize("case", ["missing", "empty", "not_image", "truncated", "folder", "no_board", "concave",
                                  "crossed", "collapsed", "far_outside", "not_finite", "bad_count",
                                  "bad_calibration", "bad_annotate_dir", "bad_annotate_name", "tiny"])
def test_bad_input_gives_one_line_error(repo_root, opening, tmp_path, case):
    path, r = opening
    if case == "missing":
        proc = run(repo_root, "read", str(tmp_path / "nope.jpg"))
    elif case == "empty":
        empty = tmp_path / "empty.jpg"
        empty.write_bytes(b"")
        proc = run(repo_root, "read", str(empty))
    elif case == "not_image":
        txt = tmp_path / "notes.png"
        txt.write_text("not a picture")
        proc = run(repo_root, "read", str(txt))
    elif case == "truncated":
        cut = tmp_path / "cut.png"
        cut.write_bytes(path.read_bytes()[:200])  # a download that stopped early
        proc = run(repo_root, "read", str(cut))
    elif case == "folder":
        proc = run(repo_root, "read", str(tmp_path))
    elif case == "crossed":  # top-left and top-right swapped: a bow tie
        proc = run(repo_root, "read", str(path), "--corners=900,100,100,100,900,600,100,600")
    elif case == "collapsed":
        proc = run(repo_root, "read", str(path), "--corners=100,100,100,100,100,100,100,100")
    elif case == "not_finite":
        proc = run(repo_root, "read", str(path), "--corners=nan,0,900,0,900,700,0,inf")
    elif case == "no_board":
        blank = tmp_path / "table.png"
        rng = np.random.default_rng(0)
        cv2.imwrite(str(blank), (rng.normal(120, 10, (480, 640, 3))).clip(0, 255).astype(np.uint8))
        proc = run(repo_root, "read", str(blank))
    elif case == "concave":
        proc = run(repo_root, "read", str(path), "--corners=100,100,900,100,300,300,100,600")
    elif case == "far_outside":
        proc = run(repo_root, "read", str(path), "--corners=-5000,0,900,0,900,700,0,700")
    elif case == "bad_count":
        proc = run(repo_root, "read", str(path), "--corners=1,2,3,4")
    elif case == "bad_calibration":
        bad = tmp_path / "bad.json"
        bad.write_text("{not json")
        proc = run(repo_root, "read", str(path), "--calibration", str(bad))
    elif case == "bad_annotate_name":
        proc = run(repo_root, "read", str(path), f"--corners={r.corners_arg}", "--annotate", str(tmp_path / "x.txt"))
    elif case == "tiny":
        tiny = tmp_path / "tiny.png"
        cv2.imwrite(str(tiny), np.zeros((10, 10, 3), np.uint8))
        proc = run(repo_root, "read", str(tiny))
    else:
        proc = run(repo_root, "read", str(path), f"--corners={r.corners_arg}", "--annotate",
                   str(tmp_path / "no" / "such" / "dir" / "x.png"))
    _check_one_line_error(proc)


def test_calibrate_writes_a_profile_that_read_uses(repo_root, opening, tmp_path):
    path, r = opening
    profile = tmp_path / "cal" / "stream.json"
    proc = run(repo_root, "calibrate", str(path), f"--corners={r.corners_arg}", "--learn", "opening",
               "--name", "stream", "--out", str(profile))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(profile.read_text())
    assert data["name"] == "stream" and data["orientation"] == "bottom-right"
    assert data["colours"]["light"][0] > data["colours"]["dark"][0]
    assert data["corners"]["top_left"] == pytest.approx(list(r.corners[0]), abs=0.01)
    # Reading with the profile alone (no --corners) gives the opening position.
    proc = run(repo_root, "read", str(path), "--calibration", str(profile), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [(p["count"], p["colour"]) for p in out["points"]] == [(p["count"], p["colour"]) for p in r.truth["points"]]


def test_calibrate_refuses_a_non_opening_frame(repo_root, tmp_path):
    r = render_board(BoardState.from_counts([0] * 24), "tournament")
    path = tmp_path / "empty_board.png"
    cv2.imwrite(str(path), r.image)
    proc = run(repo_root, "calibrate", str(path), f"--corners={r.corners_arg}", "--learn", "opening",
               "--out", str(tmp_path / "p.json"))
    _check_one_line_error(proc)
    assert not (tmp_path / "p.json").exists()


def test_read_real_photo_with_labelled_corners(repo_root, shared_data):
    label = json.loads((shared_data / "boards" / "labels" / "test8.json").read_text())
    c = label["corners"]
    corners = ",".join(str(v) for k in ("top_left", "top_right", "bottom_right", "bottom_left") for v in c[k])
    proc = run(repo_root, "read", str(shared_data / "boards" / label["file"]), f"--corners={corners}", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # test8: a white checker on the bar; bottom row from the right: 2 black on point 1.
    assert out["bar"] == {"light": 1, "dark": 0}
    assert (out["points"][0]["count"], out["points"][0]["colour"]) == (2, "dark")


def test_aruco_profile_finds_the_board_in_every_frame(repo_root, tmp_path):
    from vision.render_board import STYLES, CameraPose

    pose = CameraPose.looking_down(scale=0.72, aspect=STYLES["walnut"].geometry.aspect)
    r = render_board(BoardState.starting(), "walnut", pose, lighting=Lighting(blur=0.4))
    path = tmp_path / "aruco.png"
    cv2.imwrite(str(path), with_aruco(r))
    profile = tmp_path / "aruco.json"
    proc = run(repo_root, "calibrate", str(path), "--aruco", "--learn", "opening", "--out", str(profile))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(profile.read_text())
    assert data["aruco"]["ids"] == [0, 1, 2, 3]
    assert data["corners"]["bottom_right"] == pytest.approx(list(r.corners[2]), abs=8)
    data["corners"] = None  # find the markers per frame instead of trusting fixed corners
    profile.write_text(json.dumps(data))
    proc = run(repo_root, "read", str(path), "--calibration", str(profile), "--json")
    assert proc.returncode == 0, proc.stderr
    got = [(p["count"], p["colour"]) for p in json.loads(proc.stdout)["points"]]
    assert got == [(p["count"], p["colour"]) for p in r.truth["points"]]
    # Without the markers in view the profile's reader says so.
    plain = tmp_path / "plain.png"
    cv2.imwrite(str(plain), r.image)
    _check_one_line_error(run(repo_root, "read", str(plain), "--calibration", str(profile)))

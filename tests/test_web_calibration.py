"""The calibration page's routes (web.calibration) with Flask's test client around a real desk
(vision.calibration_desk) on rendered frames, and ``companion calibrate --web`` serving them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import cv2
import numpy as np
import pytest

from calibration_frames import LATER, OPENING, QUICK, misreading_model, rendered, signed
from vision.calibration_desk import CalibrationDesk
from web.calibration import create_calibration_app

TOKEN = "calibration-token"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def opening():
    return rendered(OPENING)


@pytest.fixture()
def client(opening, tmp_path):
    # A network that misreads this board's stacks of five: the page follows an adaptation.
    desk = CalibrationDesk(opening.image, tmp_path / "club" / "green.json", learning=QUICK,
                           point_model=misreading_model(tmp_path))
    app = create_calibration_app(desk, {"ACCESS_TOKEN": TOKEN})
    return app.test_client(), desk, tmp_path / "club" / "green.json"


def test_page_shows_the_frame_with_the_corners_found(client, opening):
    c, _desk, _out = client
    page = c.get("/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'viewBox="0 0 1280 720"' in html and 'data-source="found"' in html
    assert html.count('class="handle"') == 4 and 'data-signed-in="false"' in html and "Viewing only" in html
    assert page.headers["Content-Security-Policy"].startswith("default-src 'self'")
    frame = c.get("/frame.jpg")
    assert frame.mimetype == "image/jpeg"
    picture = cv2.imdecode(np.frombuffer(frame.data, np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape == (720, 1280, 3) and np.abs(picture.astype(int) - opening.image).mean() < 4
    state = c.get("/api/state").get_json()
    assert state["state"] == "ready" and state["image_size"] == [1280, 720]
    assert np.allclose(state["corners"], opening.corners, atol=6) and state["reading"] is None


def test_signing_in_gives_the_page_its_csrf_token(client):
    c, _desk, _out = client
    assert c.get("/?token=wrong").status_code == 403
    signed_in = c.get(f"/?token={TOKEN}")
    assert signed_in.status_code == 303 and signed_in.headers["Location"] == "/"
    html = c.get("/").get_data(as_text=True)
    assert 'data-signed-in="true"' in html and "Viewing only" not in html
    csrf = html.split('name="csrf-token" content="')[1].split('"')[0]
    assert len(csrf) > 10
    # The browser's session needs its CSRF token; with it the action goes through (to a refusal here).
    assert c.post("/api/save").status_code == 403
    assert c.post("/api/save", headers={"X-CSRF-Token": csrf}).status_code == 409


def test_actions_need_the_token(client, opening):
    c, desk, _out = client
    body = {"corners": opening.corners.tolist()}
    assert c.post("/api/learn", json=body).status_code == 401
    assert c.post("/api/learn", json=body, headers={"Authorization": "Bearer nope"}).status_code == 403
    assert c.post("/api/learn", json=body, headers={**BEARER, "Origin": "http://evil.example"}).status_code == 403
    assert c.post("/api/save").status_code == 401
    assert desk.state()["state"] == "ready"


def test_viewing_off_loopback_needs_the_token(opening, tmp_path):
    desk = CalibrationDesk(opening.image, tmp_path / "p.json", corners=opening.corners)
    c = create_calibration_app(desk, {"ACCESS_TOKEN": TOKEN, "VIEW_REQUIRES_TOKEN": True}).test_client()
    for path in ("/", "/frame.jpg", "/api/state"):
        assert c.get(path).status_code == 401, path
    assert c.get("/api/state", headers=BEARER).status_code == 200


@pytest.mark.parametrize("body, status, words", [
    ({"corners": [[-5000, -5000], [1200, 60], [1200, 660], [60, 660]]}, 400, "outside"),
    ({"corners": [[0, 0], [1, 0], [1, 1]]}, 400, "four [x, y] pairs"),
    ({"corners": [[0, 0], [1, 0], [1, 1], ["a", "b"]]}, 400, "numbers"),
    ({"corners": [[300, 60], [980, 60], [990, 660], [290, 660]], "orientation": "sideways"}, 400, "orientation"),
    ({"corners": [[300, 60], [980, 60], [990, 660], [290, 660]], "orientation": 3}, 400, "orientation"),
    ({"points": []}, 400, "send JSON"),
    ("not json", 400, "send JSON"),
])
def test_bad_learning_requests_get_one_line(client, body, status, words):
    c, desk, _out = client
    if isinstance(body, str):
        res = c.post("/api/learn", data=body, headers=BEARER, content_type="text/plain")
    else:
        res = c.post("/api/learn", json=body, headers=BEARER)
    assert res.status_code == status
    error = res.get_json()["error"]
    assert words in error and "\n" not in error and "Traceback" not in error
    assert desk.state()["state"] == "ready"


def test_saving_before_learning_is_refused(client):
    c, _desk, out = client
    res = c.post("/api/save", headers=BEARER)
    assert res.status_code == 409 and "learn this board first" in res.get_json()["error"]
    assert not out.exists()
    assert c.get("/api/save").status_code == 405 and "error" in c.get("/api/save").get_json()


def test_learn_follow_confirm_save(client, opening):
    c, desk, out = client
    res = c.post("/api/learn", json={"corners": opening.corners.tolist(), "orientation": "bottom-right"},
                 headers=BEARER)
    assert res.status_code == 202 and res.get_json()["state"] == "learning"
    again = c.post("/api/learn", json={"corners": opening.corners.tolist()}, headers=BEARER)
    assert again.status_code == 409 and "wait for it to finish" in again.get_json()["error"]
    seen = []
    while not desk.wait(0.05):
        now = c.get("/api/state").get_json()
        seen.append((now["state"], now["stage"], now["fraction"]))
    stages = {"starting", "composing this board", "reading the compositions", "learning this board", "done"}
    assert seen and all(state in ("learning", "learned") and stage in stages and 0 <= fraction <= 1
                        for state, stage, fraction in seen), seen
    assert any(stage == "learning this board" and fraction > 0 for _, stage, fraction in seen), seen
    state = c.get("/api/state").get_json()
    assert state["state"] == "learned", state["error"]
    assert state["learned"]["adapted"] is True
    assert signed(state["reading"]["points"]) == OPENING
    assert all(0 <= p["x"] < 1280 and 0 <= p["y"] < 720 for p in state["reading"]["points"])
    # the board's die-like places, drawn where the profile keeps them
    marks = state["board_marks"]
    assert marks and all(0 <= m["x"] < 1280 and 0 <= m["y"] < 720 and 5 < m["side"] < 60 for m in marks)
    saved = c.post("/api/save", headers=BEARER)
    assert saved.status_code == 200 and saved.get_json() == {"saved": str(out)}
    assert json.loads(out.read_text())["point_head"] == "green.points.npz"
    assert len(json.loads(out.read_text())["board_marks"]["marks"]) == len(marks)
    assert c.get("/api/state").get_json()["state"] == "saved"


def test_a_frame_not_in_the_opening_position_is_refused(tmp_path):
    later = rendered(LATER, seed=3)
    desk = CalibrationDesk(later.image, tmp_path / "p.json", learning=QUICK)
    c = create_calibration_app(desk, {"ACCESS_TOKEN": TOKEN}).test_client()
    assert c.post("/api/learn", json={"corners": later.corners.tolist()}, headers=BEARER).status_code == 202
    assert desk.wait(120)
    state = c.get("/api/state").get_json()
    assert state["state"] == "refused" and "opening position" in state["error"] and "want" in state["error"]
    assert c.post("/api/save", headers=BEARER).status_code == 409
    assert not (tmp_path / "p.json").exists()


def _companion(repo_root, *args, **kwargs):
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    return subprocess.Popen([sys.executable, "-m", "companion", *args], cwd=repo_root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


def test_calibrate_web_serves_the_page_until_interrupted(repo_root, opening, tmp_path):
    frame = tmp_path / "opening.png"
    cv2.imwrite(str(frame), opening.image)
    out = tmp_path / "p.json"
    proc = _companion(repo_root, "calibrate", str(frame), "--web", "--port", "0", "--out", str(out))
    try:
        line = proc.stdout.readline()
        assert line.startswith("calibration page: http://127.0.0.1:"), (line, proc.stderr.read())
        url, token = line.split(": ", 1)[1].strip().split("/?token=")
        with urllib.request.urlopen(url + "/api/state", timeout=10) as r:
            assert json.load(r)["corners_source"] == "found"
        request = urllib.request.Request(url + "/api/learn", method="POST",
                                         data=json.dumps({"corners": [[0, 0], [1, 0], [1, 1], [0, 1]]}).encode(),
                                         headers={"Authorization": f"Bearer {token}",
                                                  "Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 400 and "too small" in json.load(refused.value)["error"]
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
    assert not out.exists()


@pytest.mark.slow
def test_calibrate_web_learns_saves_and_ends(repo_root, opening, tmp_path):
    """The whole page flow over HTTP with the command's own reader, which reads this board's
    opening as shipped: nothing is adapted, and the profile names no head."""
    frame = tmp_path / "opening.png"
    cv2.imwrite(str(frame), opening.image)
    out = tmp_path / "club" / "green.json"
    proc = _companion(repo_root, "calibrate", str(frame), "--web", "--port", "0", "--out", str(out))
    try:
        url, token = proc.stdout.readline().split(": ", 1)[1].strip().split("/?token=")
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

        def post(path, body):
            request = urllib.request.Request(url + path, method="POST", data=json.dumps(body).encode(), headers=headers)
            with urllib.request.urlopen(request, timeout=10) as r:
                return r.status, json.load(r)

        with urllib.request.urlopen(url + "/api/state", timeout=10) as r:
            corners = json.load(r)["corners"]
        assert post("/api/learn", {"corners": corners})[0] == 202
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            with urllib.request.urlopen(url + "/api/state", timeout=10) as r:
                state = json.load(r)
            if state["state"] != "learning":
                break
            time.sleep(1)
        assert state["state"] == "learned", state["error"]
        assert state["learned"]["adapted"] is False
        assert signed(state["reading"]["points"]) == OPENING
        assert post("/api/save", {}) == (200, {"saved": str(out)})
        stdout, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0 and stdout == "" and err.strip() == f"profile written to {out}"
    assert "point_head" not in json.loads(out.read_text())
    assert not (out.parent / "green.points.npz").exists()


@pytest.mark.parametrize("extra, words", [
    (["--learn", "reading"], "opening position"),
    (["--port", "70000"], "--port"),
    (["--out", "/proc/no/such/p.json"], "cannot write"),
    (["--out", "."], "is a folder"),
])
def test_calibrate_web_refuses_what_the_page_cannot_do(repo_root, opening, tmp_path, extra, words):
    frame = tmp_path / "opening.png"
    cv2.imwrite(str(frame), opening.image)
    args = ["calibrate", str(frame), "--web", "--port", "0", *extra]
    if "--out" not in extra:
        args += ["--out", str(tmp_path / "p.json")]
    proc = _companion(repo_root, *args)
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()  # a page served by mistake ends with the test
    assert proc.returncode == 2 and out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], err

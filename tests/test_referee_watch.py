"""``companion watch`` end to end: the command line, faults, real photos, rendered games."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import cv2
import numpy as np

from companion.bus import EventBus
from companion.scripted_game import comparable, expected_comparable, observations, random_game
from companion.session import Session


def _watch(repo_root, *args, timeout=600, env_extra=None):
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "companion", "watch", "--no-web", "--keyboard", "off", *args],
        cwd=repo_root, env=env, capture_output=True, text=True, timeout=timeout,
    )


def test_a_missing_source_is_one_line_and_exit_2(repo_root, tmp_path):
    r = _watch(repo_root, "--source", str(tmp_path / "nothing-here"))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [f"companion watch: error: no such file, folder or camera: {tmp_path / 'nothing-here'}"]
    r = _watch(repo_root, "--source", str(tmp_path), "--match-length", "-3")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


def test_an_outage_of_the_source_keeps_the_game():
    """The camera goes away in the middle of a play and comes back: the outage is
    reported, the referee's state is kept, and the verdicts are still right."""
    script = random_game(21, match_length=5, illegal_rate=0.2, max_turns=6)
    frames = observations(script)
    bus = EventBus()
    events = []
    bus.subscribe(lambda e: events.append(e.to_dict()))
    session = Session(bus, reader=None, match_settings={"match_length": 5})
    cut = len(frames) // 2
    for obs, moving in frames[:cut]:
        session.feed_observation(obs, moving)
    before = session.state()
    session.on_source_status("lost", "camera 0 stopped delivering frames")
    session.on_source_status("reconnecting", "reopening camera 0 (after 0.5 s)")
    session.on_source_status("ok", "camera 0 back")
    after = session.state()
    assert {k: after[k] for k in ("position_id", "match_id", "waiting_for")} == {
        k: before[k] for k in ("position_id", "match_id", "waiting_for")}
    for obs, moving in frames[cut:]:
        session.feed_observation(obs, moving)
    assert [e["status"] for e in events if e["type"] == "source"] == ["lost", "reconnecting", "ok"]
    assert comparable(events) == expected_comparable(script)


def test_the_real_photos_go_through_watch(repo_root, shared_data):
    folder = shared_data / "boards" / "images"
    r = _watch(repo_root, "--source", str(folder), "--stills", "--events-jsonl", "-")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines()]
    photos = len([p for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".png")])
    # every photo gives a reading, a held reading or a bad frame: none is lost
    seen = {e["frame_index"] for e in events if e["type"] in ("observation", "board") and e.get("frame_index", -1) >= 0}
    bad = {int(e["detail"].split()[1]) for e in events if e["type"] == "source" and e["status"] == "bad_frame"}
    assert seen | bad == set(range(photos))
    assert any(e["type"] == "source" and e["status"] == "ended" for e in events)
    # one report per photo, by name, with what it showed (or why it was not read)
    reports = [e for e in events if e["type"] == "reading"]
    names = sorted((p.name for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".png")),
                   key=lambda n: [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", n)])
    assert [e["name"] for e in reports] == names
    assert [e["frame_index"] for e in reports] == list(range(photos))
    for e in reports:
        assert e["status"] in ("read", "occluded", "held", "unreadable")
        assert (e["status"] == "unreadable") == (not e["observation"])
        assert e["status"] == "read" or e["detail"]
        if e["observation"]:
            assert len(e["observation"]["points"]) == 24
    assert any(e["status"] == "read" for e in reports)  # how many: benchmarks/watch_photos.py
    human = r.stderr.splitlines()
    assert sum(line.startswith("photo ") for line in human) == photos
    assert any(line.startswith("photos: ") for line in human)


def test_watch_serves_the_dashboard_while_it_runs(repo_root, tmp_path):
    """``--web HOST:PORT``: the dashboard answers with the session's state."""
    import re
    import time
    import urllib.request

    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(15):
        cv2.imwrite(str(folder / f"f{i:03d}.png"), np.full((48, 64, 3), 90, np.uint8))
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "watch", "--keyboard", "off", "--source", str(folder), "--fps", "5",
         "--speed", "1", "--web", "127.0.0.1:0", "--stills"],
        cwd=repo_root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            m = re.search(r"dashboard: (http://127\.0\.0\.1:\d+)/", line)
            if m:
                url = m.group(1)
        assert url, "the dashboard's address was not printed"
        with urllib.request.urlopen(url + "/api/state", timeout=10) as response:
            state = json.loads(response.read())
        assert state["waiting_for"] == "opening_roll" and state["match_length"] == 5
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_watch_drives_the_fake_led_board(repo_root, tmp_path):
    """``--serial fake``: the LED bridge is attached to the bus (its link events
    arrive in the JSON lines) and closed at the end."""
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(10):
        cv2.imwrite(str(folder / f"f{i:03d}.png"), np.full((48, 64, 3), 90, np.uint8))
    r = _watch(repo_root, "--source", str(folder), "--fps", "5", "--speed", "1", "--stills", "--serial", "fake",
               "--events-jsonl", "-", env_extra={"NO_COLOR": "1"})
    assert r.returncode == 0, r.stderr[-1500:]
    links = [json.loads(line) for line in r.stdout.splitlines() if '"type": "link"' in line]
    assert links and links[0]["state"] in ("connecting", "connected")


def test_corrupt_and_wrong_size_frames_are_reported_and_survived(repo_root, tmp_path):
    """Rendered frames of a still board with a corrupt file and a half-size frame
    slipped in: both are reported as bad frames, the board is still read, and
    the run ends normally."""
    from companion.demo import DEMO_LAYOUT, demo_corners_arg, render_script
    from companion.scripted_game import Scene, Script
    from companion.table import START_SIGNED

    folder = tmp_path / "frames"
    render_script(Script(scenes=[Scene(START_SIGNED, frames=8)]), folder)
    (folder / "frame00002a.jpg").write_bytes(b"\xff\xd8 not a picture")
    cv2.imwrite(str(folder / "frame00004a.jpg"), cv2.resize(cv2.imread(str(folder / "frame00004.jpg")), (640, 360)))
    r = _watch(repo_root, "--source", str(folder), "--corners", demo_corners_arg(), "--events-jsonl", "-",
               "--bottom-colour", DEMO_LAYOUT.colours[0])
    assert r.returncode == 0, r.stderr[-1500:]
    events = [json.loads(line) for line in r.stdout.splitlines()]
    bad = [e["detail"] for e in events if e["type"] == "source" and e["status"] == "bad_frame"]
    assert len(bad) == 2 and "cannot decode" in bad[0] and "640x360" in bad[1]
    readings = [e["observation"] for e in events if e["type"] == "observation"]
    assert readings, "the still board was never read"
    counts = [p["count"] for p in readings[-1]["points"]]
    assert counts == [2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 5, 5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, 2]


def test_a_still_board_is_read_a_few_times_then_reused(tmp_path):
    """In process: rendered frames of a still board through the real reader. The
    reader runs on the first still frames only (the votes), later identical
    frames reuse the reading; the dashboard's camera picture is a JPEG."""
    from companion.commands.watch import make_frame_reader
    from companion.demo import DEMO_SIZE, demo_pose, render_scene
    from companion.scripted_game import Scene
    from companion.table import START_SIGNED
    from vision.sources import Frame

    image = render_scene(Scene(START_SIGNED))
    reader = make_frame_reader(corners=demo_pose().corners)
    events = []
    bus = EventBus()
    bus.subscribe(lambda e: events.append(e.to_dict()))
    session = Session(bus, reader=reader)
    assert session.latest_frame_jpeg() is None
    for i in range(12):
        session.process_frame(Frame(image, i, i * 33.3))
    frames = session.state()["frames"]
    assert frames["seen"] == 12 and frames["read"] == 3 and frames["reused"] == 8  # first frame: motion unknown
    assert len([e for e in events if e["type"] == "observation"]) == 1
    jpeg = session.latest_frame_jpeg()
    picture = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape == (DEMO_SIZE[1], DEMO_SIZE[0], 3)


def test_checker_discs_for_the_on_checker_rule_land_on_the_checkers():
    """With ``--die-on-checker cocked`` the dice judge needs the checkers as image
    discs: they must sit on the checkers the renderer drew."""
    from companion.commands.watch import _checker_discs
    from companion.demo import DEMO_SIZE, demo_pose
    from vision.reader import BoardReader
    from vision.render_board import BoardState, render_board

    out = render_board(BoardState.starting(), pose=demo_pose())
    reader = BoardReader.from_corners(np.array(demo_pose().corners), DEMO_SIZE)
    discs = _checker_discs(reader.read_full(out.image), reader.settings.work_scale)
    assert len(discs) >= 25
    truth = [(x, y) for x, y, _, point in out.checkers if 1 <= point <= 24]
    for x, y, r in discs:
        nearest = min(((x - tx) ** 2 + (y - ty) ** 2) ** 0.5 for tx, ty in truth)
        assert nearest < r and 5 < r < 40


def test_keyboard_commands_in_a_running_watch(repo_root, tmp_path):
    """``--keyboard on`` with commands on standard input: answers are printed,
    a mistake is one line, ``q`` ends the run early with exit code 0."""
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(50):
        cv2.imwrite(str(folder / f"f{i:03d}.png"), np.full((48, 64, 3), 90, np.uint8))
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    r = subprocess.run(
        [sys.executable, "-m", "companion", "watch", "--no-web", "--keyboard", "on", "--source", str(folder),
         "--fps", "5", "--speed", "1", "--stills"],
        cwd=repo_root, env=env, input="s\nd 9 9\nu\nq\n", capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 0, r.stderr[-1500:]
    out = r.stdout
    assert "waiting for opening roll" in out  # the state
    assert "error: dice are two numbers 1-6" in out or "error: no roll to set" in out
    assert "error: nothing to undo" in out
    assert "bye" in out
    assert "done: " in out and "done: 50 frames" not in out  # quit before the folder's end


def test_dice_thrown_onto_a_still_board_are_seen_in_the_next_frame():
    """The same rendered board (same noise) without and with dice: the dice
    reading of the second frame must not be the first frame's (the dice
    plug-in's scan cache is per frame)."""
    from companion.commands.watch import make_frame_reader
    from companion.demo import DEMO_LAYOUT, demo_pose, render_scene
    from companion.scripted_game import DieSpec, Scene
    from companion.table import START_SIGNED

    reader = make_frame_reader(corners=demo_pose().corners)
    if reader.dice_plugin is None:
        import pytest

        pytest.skip("the dice models are not installed")
    empty = render_scene(Scene(START_SIGNED), layout=DEMO_LAYOUT, seed=0)
    thrown = render_scene(Scene(START_SIGNED, (DieSpec(3, "right"), DieSpec(1, "left"))), layout=DEMO_LAYOUT, seed=0)
    assert reader(empty).dice == ()
    assert sorted(d.value for d in reader(thrown).dice) == [1, 3]


def test_a_single_photo_is_read_on_its_own_without_stills(repo_root, shared_data):
    """``--source PHOTO`` (no ``--stills``): one frame cannot be still for the
    motion gate, so watch reads it as a photo, and says so."""
    photo = shared_data / "boards" / "images" / "frame0.jpg"
    r = _watch(repo_root, "--source", str(photo))
    assert r.returncode == 0, r.stderr[-1500:]
    lines = r.stdout.splitlines()
    assert lines[0] == "a single photo: each photo is read on its own (as --stills)"
    report = [line for line in lines if line.startswith("photo frame0.jpg: ")]
    assert len(report) == 1 and " sees " in report[0]
    assert "photos: 1 " in r.stdout

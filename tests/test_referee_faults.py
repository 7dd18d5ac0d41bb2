"""Faults in a running ``companion watch``: a network camera that goes away in
the middle of a game and comes back.

A real MJPEG-over-HTTP camera (``multipart/x-mixed-replace``, as IP cameras
serve it) streams rendered frames of a game: the opening roll 3-1, then the
camera leaves the network for a second, comes back on the same address, and
the player at the bottom plays 8/5 6/5 and picks up the dice. ``watch`` must
report the outage (lost, reconnecting, ok), keep the game (no second opening
roll, the roll still in force) and judge the play after the outage."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import cv2
import pytest
from table_boards import board_after
from mjpeg_camera import MjpegCamera

from companion.scripted_game import DieSpec, Scene
from companion.table import START_SIGNED




class _GameCamera(MjpegCamera):
    """Streams ``frames`` (JPEG bytes) at ``fps``; at frame ``cut`` it ends the
    stream and sets :attr:`at_cut` (the test then takes the camera off the
    network and brings it back); after the last frame it repeats it."""

    def __init__(self, frames, cut, fps=15.0):
        self.frames, self.cut = frames, cut
        self.cursor = 0
        self.at_cut = threading.Event()
        self.lock = threading.Lock()
        super().__init__(self._stream, interval_s=1.0 / fps)

    def _stream(self):
        while True:
            with self.lock:
                if self.cursor == self.cut and not self.at_cut.is_set():
                    self.at_cut.set()
                    return  # the camera drops off
                data = self.frames[min(self.cursor, len(self.frames) - 1)]
                self.cursor += 1
            yield data


def _ctrl_c_as_at_a_terminal():
    # a test run started in the background by a non-interactive shell (`bash .ci/run &`)
    # ignores SIGINT, and a child started with SIGINT ignored keeps ignoring it: Python then
    # installs no KeyboardInterrupt handler and the Ctrl-C below would not stop `watch`
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_a_network_camera_that_goes_away_mid_game_keeps_the_game(repo_root):
    from companion.demo import DEMO_LAYOUT, demo_corners_arg, render_scene

    opening = (DieSpec(3, "right"), DieSpec(1, "left"))
    played = board_after([(8, 5), (6, 5)])
    scenes = [
        (Scene(START_SIGNED), 10),
        (Scene(START_SIGNED, hand=True), 2),
        (Scene(START_SIGNED, opening), 12),
        # --- the camera is away here ---
        (Scene(START_SIGNED, opening), 10),
        (Scene(played, opening, hand=True), 2),
        (Scene(played, opening), 12),
        (Scene(played, hand=True), 2),
        (Scene(played), 12),
    ]
    frames, cut = [], None
    for n, (scene, count) in enumerate(scenes):
        if n == 3:
            cut = len(frames)
        for k in range(count):
            image = render_scene(scene, layout=DEMO_LAYOUT, seed=100 + k if scene.hand else 0)
            frames.append(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 88])[1].tobytes())
    camera = _GameCamera(frames, cut)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "watch", "--no-web", "--keyboard", "off", "--source", camera.url,
         "--corners", demo_corners_arg(), "--bottom-colour", DEMO_LAYOUT.colours[0], "--events-jsonl", "-"],
        cwd=repo_root, env=dict(os.environ, PYTHONPATH=str(repo_root)), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, preexec_fn=_ctrl_c_as_at_a_terminal,
    )
    events = []
    judged = threading.Event()

    def collect():
        for line in proc.stdout:
            events.append(json.loads(line))
            if events[-1]["type"] == "verdict" and events[-1]["verdict"] in ("legal", "illegal"):
                judged.set()

    err_lines: list[str] = []

    def collect_stderr():
        # drained as it comes: a child blocked on a full stderr pipe cannot exit
        for line in proc.stderr:
            err_lines.append(line)

    collector = threading.Thread(target=collect, daemon=True)
    collector.start()
    err_collector = threading.Thread(target=collect_stderr, daemon=True)
    err_collector.start()
    try:
        assert camera.at_cut.wait(120), "the stream was never read up to the outage"
        camera.stop()  # off the network
        time.sleep(1.5)
        camera.start()  # back on the same address
        judged.wait(180)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("watch did not exit 30 s after Ctrl-C; its stderr ended with:\n"
                        + "".join(err_lines)[-3000:])
    finally:
        if proc.poll() is None:
            proc.kill()
        camera.stop()
    collector.join(10)
    err_collector.join(10)
    stderr = "".join(err_lines)
    assert "Traceback" not in stderr, stderr[-2000:]
    statuses = [e["status"] for e in events if e["type"] == "source"]
    assert statuses[0] == "ok" and "lost" in statuses and "reconnecting" in statuses, statuses
    assert statuses.index("lost") < len(statuses) - 1 - statuses[::-1].index("ok"), statuses  # back after it
    judged = [(e["type"], e.get("dice"), e.get("verdict"), e.get("play")) for e in events
              if e["type"] == "roll" or (e["type"] == "verdict" and e["verdict"] != "in_progress")]
    assert judged == [("roll", [3, 1], None, None), ("verdict", [3, 1], "legal", "8/5 6/5")], judged
    lost_at = next(i for i, e in enumerate(events) if e["type"] == "source" and e["status"] == "lost")
    roll_at = next(i for i, e in enumerate(events) if e["type"] == "roll")
    assert roll_at < lost_at  # rolled before the outage, played after it

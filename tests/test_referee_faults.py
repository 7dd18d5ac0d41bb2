"""Faults in a running ``companion watch``: a network camera that goes away in
the middle of a game and comes back.

A real MJPEG-over-HTTP camera (``multipart/x-mixed-replace``, as IP cameras
serve it) streams rendered frames of a game: the opening roll 3-1, then the
camera leaves the network for a second, comes back on the same address, and
the player at the bottom plays 8/5 6/5 and picks up the dice. ``watch`` must
report the outage (lost, reconnecting, ok), keep the game (no second opening
roll, the roll still in force) and judge the play after the outage."""

from __future__ import annotations

import http.server
import json
import os
import signal
import socketserver
import subprocess
import sys
import threading
import time

import cv2
import pytest

from companion.scripted_game import DieSpec, Scene
from companion.table import START_SIGNED


def _board(moves):
    b = list(START_SIGNED)
    for src, dst in moves:
        b[src] -= 1
        b[dst] += 1
    return tuple(b)


class _GameCamera:
    """Streams ``frames`` (JPEG bytes) at ``fps``; at frame ``cut`` it ends the
    stream and sets :attr:`at_cut` (the test then takes the camera off the
    network and brings it back); after the last frame it repeats it."""

    def __init__(self, frames, cut, fps=15.0):
        camera = self
        self.frames, self.cut, self.fps = frames, cut, fps
        self.cursor = 0
        self.at_cut = threading.Event()
        self.lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                while True:
                    with camera.lock:
                        if camera.cursor == camera.cut and not camera.at_cut.is_set():
                            camera.at_cut.set()
                            return  # the camera drops off
                        data = camera.frames[min(camera.cursor, len(camera.frames) - 1)]
                        camera.cursor += 1
                    try:
                        self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(data))
                        self.wfile.write(data + b"\r\n")
                    except (BrokenPipeError, ConnectionResetError, OSError):
                        return
                    time.sleep(1.0 / camera.fps)

        class Server(socketserver.ThreadingTCPServer):
            allow_reuse_address = True
            daemon_threads = True

        self._server_class, self._handler = Server, Handler
        self.port = 0
        self.start()

    def start(self):
        self.server = self._server_class(("127.0.0.1", self.port), self._handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/stream.mjpg"


@pytest.mark.slow
def test_a_network_camera_that_goes_away_mid_game_keeps_the_game(repo_root):
    from companion.demo import DEMO_LAYOUT, demo_corners_arg, render_scene

    opening = (DieSpec(3, "right"), DieSpec(1, "left"))
    played = _board([(8, 5), (6, 5)])
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
        stderr=subprocess.PIPE, text=True,
    )
    events = []
    judged = threading.Event()

    def collect():
        for line in proc.stdout:
            events.append(json.loads(line))
            if events[-1]["type"] == "verdict" and events[-1]["verdict"] in ("legal", "illegal"):
                judged.set()

    collector = threading.Thread(target=collect, daemon=True)
    collector.start()
    try:
        assert camera.at_cut.wait(120), "the stream was never read up to the outage"
        camera.stop()  # off the network
        time.sleep(1.5)
        camera.start()  # back on the same address
        judged.wait(180)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        camera.stop()
    collector.join(10)
    stderr = proc.stderr.read()
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

"""``companion leds check`` and the standalone fake board, run as processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from firmware_bridge.link import SerialLink


def run(repo_root, *args, timeout=60):
    env = dict(os.environ, PYTHONPATH=str(repo_root), NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=repo_root, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_check_against_the_fake_board_lights_every_point_then_clears(repo_root):
    done = run(repo_root, "leds", "check", "--serial", "fake", "--step", "0.01")
    assert done.returncode == 0, done.stderr
    assert "connected: fake-leds firmware 1.0.0, 28 LEDs" in done.stdout
    lines = [line for line in done.stderr.splitlines() if line.startswith("leds 1-24")]
    chase = [line for line in lines if "●" in line.split("|")[0] and line.count("●") == 1]
    assert len(chase) == 24  # one white point after the other
    assert chase[0].startswith("leds 1-24 ●·····") and chase[-1].split(" |")[0].endswith("·····●")
    assert lines[-1] == "leds 1-24 ······ ······ ······ ······ | bar · | off · · | status ·"


def test_check_reports_a_missing_board_in_one_line(repo_root, tmp_path):
    done = run(repo_root, "leds", "check", "--serial", str(tmp_path / "ttyNONE"), "--timeout", "0.5")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"companion leds: error: no LED board answered on {tmp_path / 'ttyNONE'} within 0.5 s"]


def test_check_rejects_a_bad_profile_in_one_line(repo_root, tmp_path):
    profile = tmp_path / "board.json"
    profile.write_text(json.dumps({"leds": {"status": 3}}))
    done = run(repo_root, "leds", "check", "--serial", "fake", "--profile", str(profile))
    assert done.returncode == 2
    assert done.stderr.strip() == "companion leds: error: an LED index is used twice in the layout"


def test_standalone_fake_board_serves_another_process(repo_root):
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    board = subprocess.Popen([sys.executable, "-m", "firmware_bridge.fake_board", "--reset-delay", "0.2", "--quiet"],
                             cwd=repo_root, env=env, stdout=subprocess.PIPE, text=True)
    try:
        path = board.stdout.readline().strip()
        link = SerialLink(path, scan=None).start()
        try:
            assert link.wait_connected(5.0)
            assert link.hello.led_count == 28
        finally:
            link.close()
    finally:
        board.terminate()
        board.wait(5)

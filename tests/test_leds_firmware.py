"""The firmware's frame parser (C++ header) compiled with g++ and run on the host
against the same vector file as the Python codec."""

from __future__ import annotations

import shutil
import subprocess

import pytest

GXX = shutil.which("g++")


@pytest.mark.skipif(GXX is None, reason="g++ is not installed: cannot compile the firmware parser test")
def test_firmware_parser_passes_the_shared_vectors(repo_root, tmp_path):
    fw = repo_root / "firmware_bridge" / "firmware"
    exe = tmp_path / "test_frame_parser"
    flags = ["-std=c++11", "-Wall", "-Wextra", "-Werror", "-g", "-O1"]
    sanitize = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
    cmd = [GXX, *flags, *sanitize, f"-I{fw / 'include'}", str(fw / "test" / "test_frame_parser.cpp"), "-o", str(exe)]
    build = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if build.returncode != 0 and "sanitize" in build.stderr:
        cmd = [c for c in cmd if c not in sanitize]
        build = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe), str(repo_root / "firmware_bridge" / "vectors" / "frames.txt")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 failures" in run.stdout
    vectors = int(run.stdout.split(" vectors")[0].split()[-1])
    assert vectors >= 100


@pytest.mark.skipif(GXX is None, reason="g++ is not installed: cannot compile the firmware sketch on the host")
def test_firmware_sketch_runs_on_the_host(repo_root, tmp_path):
    """src/main.cpp with stand-ins for Arduino.h and FastLED.h: HELLO at boot, ACK and
    lit pixels after SET_LEDS, NACK out of range, blanking 3 s after the last host frame."""
    fw = repo_root / "firmware_bridge" / "firmware"
    exe = tmp_path / "test_firmware_main"
    cmd = [GXX, "-std=c++11", "-Wall", "-Wextra", "-Werror", f"-I{fw / 'test' / 'host_stubs'}",
           f"-I{fw / 'include'}", str(fw / "test" / "test_firmware_main.cpp"), "-o", str(exe)]
    build = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout
    assert "0 failures" in run.stdout
    ini = (fw / "platformio.ini").read_text()
    assert "framework = arduino" in ini and "FastLED" in ini

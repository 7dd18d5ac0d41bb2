"""benchmarks/bench_dice.py: the dice and cube reading times, and its bad arguments."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_dice.py"), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_registered_frames_alone_are_timed(tmp_path):
    out = tmp_path / "bench.json"
    res = _bench("--frames", "1", "--repeat", "1", "--photos", "0", "--large", "0", "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert "registered_1280x720_dice_and_cube: median" in res.stdout
    assert "free photo" not in res.stdout  # no photos asked for, none read
    figures = json.loads(out.read_text())
    assert figures["registered_1280x720_dice_and_cube"]["median_ms"] > 0
    assert figures["free_photo"] == {}


def test_counts_below_their_least_are_one_clear_line():
    for bad in (("--photos", "-1"), ("--frames", "0"), ("--repeat", "0"), ("--large", "-2")):
        res = _bench(*bad)
        assert res.returncode == 2
        assert res.stderr.startswith("error:") and "Traceback" not in res.stderr

"""``companion dice``: JSON contract, annotation and clear errors for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import cv2
import numpy as np

from vision.backgrounds import random_background
from vision.render_dice import DIE_STYLES, draw_die


def _run(repo_root, *args):
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    return subprocess.run([sys.executable, "-m", "companion", "dice", *map(str, args)], cwd=repo_root,
                          env=env, capture_output=True, text=True, timeout=120)


def test_reads_a_real_photo_as_json(repo_root, shared_data, tmp_path):
    photo = shared_data / "dice" / "matteop65" / "images" / "four_1.jpg"
    out = tmp_path / "seen.png"
    res = _run(repo_root, photo, "--json", "--annotate", out)
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert [d["value"] for d in data["dice"]] == [4]
    die = data["dice"][0]
    # the label: centre (313, 216) in the 640x480 photo
    assert abs(die["center"][0] - 313) < 15 and abs(die["center"][1] - 216) < 15
    x0, y0, x1, y1 = die["box"]
    assert x0 < die["center"][0] < x1 and y0 < die["center"][1] < y1
    assert 0.5 < die["confidence"] <= 1.0
    seen = cv2.imread(str(out))
    assert seen is not None and seen.shape == (480, 640, 3)


def test_reads_a_rendered_roll_as_text(repo_root, tmp_path):
    img = random_background(np.random.default_rng(4), (640, 480))
    img[:] = (90, 130, 60)
    draw_die(img, (200, 240), 44, 6, yaw_deg=20, style=DIE_STYLES[0])
    draw_die(img, (420, 250), 44, 2, yaw_deg=-35, style=DIE_STYLES[0])
    path = tmp_path / "roll.png"
    cv2.imwrite(str(path), img)
    res = _run(repo_root, path)
    assert res.returncode == 0, res.stderr
    lines = [ln for ln in res.stdout.splitlines() if ln.startswith("die ")]
    assert [ln.split()[1] for ln in lines] == ["6", "2"]


def test_bad_input_is_one_line_and_exit_2(repo_root, tmp_path):
    res = _run(repo_root, tmp_path / "missing.jpg")
    assert res.returncode == 2 and "no such image file" in res.stderr and "Traceback" not in res.stderr
    junk = tmp_path / "junk.jpg"
    junk.write_text("not a picture")
    res = _run(repo_root, junk)
    assert res.returncode == 2 and "cannot read" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    res = _run(repo_root, tmp_path)
    assert res.returncode == 2 and "is a folder" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    img = tmp_path / "ok.png"
    cv2.imwrite(str(img), np.zeros((40, 40, 3), np.uint8))
    res = _run(repo_root, img, "--annotate", tmp_path / "nowhere" / "out.png")
    assert res.returncode == 2 and "does not exist" in res.stderr
    # an image too small to hold a die: the reader's reason, one line, no traceback
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.zeros((3, 3, 3), np.uint8))
    res = _run(repo_root, tiny, "--json")
    assert res.returncode == 2 and "H, W >= 8" in res.stderr and "Traceback" not in res.stderr
    assert res.stdout == ""


def test_bad_input_through_python_m_companion_cli_is_one_line_too(repo_root, tmp_path):
    # run as ``python -m companion.cli`` the module is ``__main__``; its own UserError class is not
    # the one the commands raise, and a user's mistake came out as a traceback
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    res = subprocess.run([sys.executable, "-m", "companion.cli", "dice", str(tmp_path / "missing.jpg")],
                         cwd=repo_root, env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "no such image file" in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_reads_a_photo_of_oblique_dice_as_the_reader_does(repo_root, shared_data):
    # the command gives the free-photo reader's dice (front faces dropped, dice centred on their
    # top faces): matteop65 dice_42, five ones seen at an angle
    from vision.dice import DiceReader

    photo = shared_data / "dice" / "matteop65" / "images" / "dice_42.jpg"
    res = _run(repo_root, photo, "--json")
    assert res.returncode == 0, res.stderr
    got = [(d["value"], d["center"]) for d in json.loads(res.stdout)["dice"]]
    want = [(d.value, [round(d.center[0], 1), round(d.center[1], 1)]) for d in DiceReader().read(cv2.imread(str(photo)))]
    assert got == want
    assert {v for v, _ in got} == {1}  # no front face read as a five or a two

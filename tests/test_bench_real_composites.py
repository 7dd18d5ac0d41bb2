"""benchmarks/real_composites.py: the point network on positions composed from the real photos' own parts."""

import json
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from real_composites import main, photo_parts  # noqa: E402


def test_a_photo_with_a_hand_and_dice_gives_parts_without_the_points_they_cover(shared_data):
    import cv2

    label = json.loads((shared_data / "boards" / "labels" / "frame2.json").read_text())
    image = cv2.imread(str(shared_data / "boards" / label["file"]))
    parts = photo_parts(image, label)
    # frame2: a hand over five points (top 8-10, bottom 4-5) whose neighbours are left out too;
    # its bar is empty, so both halves are kept
    assert parts is not None and len(parts.bar) == 2
    assert 0 < len(parts.empty) < 24 and parts.checkers["near"] and parts.checkers["far"]
    light = np.median([p.mean() for p in parts.checkers["near"]])
    dark = np.median([p.mean() for p in parts.checkers["far"]])
    assert light > dark + 60  # frame0's camera: white checkers and black ones
    empty_board = json.loads((shared_data / "boards" / "labels" / "test4.json").read_text())
    assert photo_parts(cv2.imread(str(shared_data / "boards" / empty_board["file"])), empty_board) is None


def test_every_labelled_photo_is_composed_and_read(shared_data, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["--data", str(shared_data / "boards"), "--crops", "60", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "test4: no checker in its label" in text and "all photos, network:" in text
    rows = json.loads(out.read_text())["photos"]
    assert len(rows) == 8
    for row in rows:
        right, total = row["network"]["all"]
        assert total == 60 and sum(row["network"][k][1] for k in ("empty", "1-5", "6-15", "hidden")) == 60
        assert right >= 0.6 * total, row  # far above chance (17 classes): the parts are real checkers and points


def test_no_photos_or_no_crops_is_a_clear_error(tmp_path, capsys):
    assert main(["--data", str(tmp_path)]) == 2
    assert "no labelled photos" in capsys.readouterr().err
    assert main(["--data", str(tmp_path), "--rendered", "2", "--crops", "0"]) == 2
    assert "--crops must be at least 1" in capsys.readouterr().err


def test_rendered_boards_are_composed_alike_without_photos(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["--data", str(tmp_path), "--rendered", "3", "--crops", "50", "--seed", "40", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert rows["photos"] == [] and 1 <= len(rows["rendered"]) <= 3
    right = sum(r["network"]["all"][0] for r in rows["rendered"])
    total = sum(r["network"]["all"][1] for r in rows["rendered"])
    assert total == 50 * len(rows["rendered"]) and right >= 0.75 * total
    assert "rendered boards, network:" in capsys.readouterr().out

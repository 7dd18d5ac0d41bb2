"""benchmarks/real_dice_on_boards.py: held-out real dice pasted onto the real board photos and read."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from real_dice_on_boards import KINDS, Board, main, place_roll  # noqa: E402


def test_dice_are_placed_clear_of_the_stacks_a_hand_and_the_photos_own_dice(shared_data):
    import cv2

    label = json.loads((shared_data / "boards" / "labels" / "frame2.json").read_text())
    board = Board(cv2.imread(str(shared_data / "boards" / label["file"])), label)
    rng = np.random.default_rng(0)
    cw = board.checker[0]
    for kind in KINDS:
        for _ in range(10):
            spots = place_roll(board, kind, 0.5, (10.0, 50.0), rng)
            assert spots is not None
            at = board.field.to_field(np.array([s[0] for s in spots]))
            # both dice on the playing field, off the bar
            assert all(board.field.half_of(float(x)) for x, _ in at)
            first, second = np.array(spots[0][0]), np.array(spots[1][0])
            gap = np.linalg.norm(first - second)
            if kind == "touching":
                assert spots[0][1] <= gap <= spots[0][1] + 2.01  # side by side, 0-2 pixels apart
            if kind == "apart":
                assert gap >= 1.5 * spots[0][1]
            for x, y in at:  # frame2's hand covers top points 8-10 (from the left) and bottom 4-5
                assert board.free(np.array([x, y]), 0.1 * cw) or kind == "by a checker"


def test_the_benchmark_reads_pasted_real_dice_on_every_photo(shared_data, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["--boards", str(shared_data / "boards"), "--dice", str(shared_data / "dice"), "--rolls", "1",
                 "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "held-out dice cut out of" in text and "calibrated:" in text and "per photo" in text
    rows = json.loads(out.read_text())["frames"]
    assert {r["photo"] for r in rows} >= {"frame0", "test10", "test2", "test4"}
    assert {r["kind"] for r in rows} == set(KINDS)
    found = sum(r["as read"]["found"] for r in rows)
    located = sum(r["as read"]["located"] for r in rows)
    assert found <= located <= 2 * len(rows)
    assert found >= 0.5 * 2 * len(rows)  # real dice are read on real boards, most of them
    assert sum(r["as read"]["false"] for r in rows) <= 2
    # calibrated: the dice's size and the board's marks known (no hinge read as a die)
    assert sum(r["calibrated"]["found"] for r in rows) >= found
    assert sum(r["calibrated"]["false"] for r in rows) == 0


def test_nothing_to_read_is_a_clear_error(shared_data, tmp_path, capsys):
    assert main(["--rolls", "0"]) == 2
    assert "--rolls must be at least 1" in capsys.readouterr().err
    assert main(["--dice", str(tmp_path)]) == 2
    assert "error:" in capsys.readouterr().err
    assert main(["--dice", str(shared_data / "dice"), "--boards", str(tmp_path)]) == 2
    assert "no labelled board photos" in capsys.readouterr().err
    assert main(["--dice", str(shared_data / "dice"), "--models", str(tmp_path)]) == 2  # no networks there
    assert "error:" in capsys.readouterr().err


def test_fold_1_pastes_the_training_folds_dice(shared_data, tmp_path, capsys):
    """``--fold 1``: the dice the networks were trained on (a validation set for settings), never
    a fold-0 photo's."""
    from vision.dice_data import load_dataset

    out = tmp_path / "r.json"
    boards = tmp_path / "boards"
    (boards / "labels").mkdir(parents=True)
    label = json.loads((shared_data / "boards" / "labels" / "frame0.json").read_text())
    (boards / "labels" / "frame0.json").write_text(json.dumps(label))
    (boards / label["file"]).parent.mkdir(parents=True, exist_ok=True)
    (boards / label["file"]).write_bytes((shared_data / "boards" / label["file"]).read_bytes())
    assert main(["--boards", str(boards), "--dice", str(shared_data / "dice"), "--rolls", "3", "--fold", "1",
                 "--json", str(out)]) == 0
    assert "training-fold dice cut out of" in capsys.readouterr().out
    folds = {it.path.name: it.fold() for it in load_dataset(shared_data / "dice" / "nell-byler")}
    rows = json.loads(out.read_text())["frames"]
    assert rows and {folds[r["source"]] for r in rows} == {1}

"""benchmarks/photo_composites.py: positions laid out on the real empty board (test4) with the
real checkers of the other photos, read by the whole reader."""

import json
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from photo_composites import cut_discs, lay_out, main  # noqa: E402


def _photo(shared_data, name):
    import cv2

    label = json.loads((shared_data / "boards" / "labels" / f"{name}.json").read_text())
    return cv2.imread(str(shared_data / "boards" / label["file"])), label


def test_the_checkers_cut_are_the_photo_s_two_sets(shared_data):
    image, label = _photo(shared_data, "test1")
    discs = cut_discs(image, label)
    light, dark = discs.patches["light"], discs.patches["dark"]
    assert len(light) >= 3 and len(dark) >= 3
    # test1: white checkers and black ones; each disc centred on a checker, so its middle is the
    # checker's colour
    middle = lambda p: float(p[p.shape[0] // 3: 2 * p.shape[0] // 3, p.shape[1] // 3: 2 * p.shape[1] // 3].mean())
    assert min(middle(p) for p in light) > max(middle(p) for p in dark) + 60
    board, board_label = _photo(shared_data, "test4")
    assert not any(cut_discs(board, board_label).patches.values())  # the empty board has none


def test_the_opening_laid_out_on_the_empty_board_reads_as_the_opening(shared_data):
    from vision.evaluate import label_truth
    from vision.reader import BoardReader
    from vision.registration import field_from_corners
    from vision.render_board import BoardState

    board, board_label = _photo(shared_data, "test4")
    field = field_from_corners(label_truth(board_label)["corners"], (board.shape[1], board.shape[0]), validate=False)
    image, label = _photo(shared_data, "test8")
    state = BoardState.starting()
    frame = lay_out(board, field, state, cut_discs(image, label), np.random.default_rng(1))
    assert frame.shape == board.shape and frame.dtype == np.uint8
    assert np.abs(frame.astype(int) - board).max() > 100  # checkers were laid out
    obs = BoardReader(field=field).read(frame)
    assert [(r.count, r.colour if r.count else None) for r in obs.points] == list(state.points)


def test_every_checker_photo_is_laid_out_and_scored(shared_data, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["--data", str(shared_data / "boards"), "--positions", "2", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert len(rows) == 8 and all(r["as read"]["points"] == 48 and not r["calibrated"] for r in rows)
    right = sum(r["as read"]["right"] for r in rows)
    assert right >= 0.9 * 8 * 48, rows  # the reader reads these boards, not chance
    assert "all, as read: points" in capsys.readouterr().out


def test_no_empty_board_is_a_clear_error(shared_data, tmp_path, capsys):
    assert main(["--data", str(tmp_path)]) == 2
    assert "no labelled empty board" in capsys.readouterr().err
    assert main(["--data", str(shared_data / "boards"), "--positions", "0"]) == 2
    assert "--positions must be at least 1" in capsys.readouterr().err

"""The dice evaluation's bookkeeping: which models saw which photos (vision/models/training.json)."""

from __future__ import annotations

import json
import shutil

import pytest

from vision.dice import MODELS, DiceReader, DiceSettings
from vision.evaluate_dice import HELD_OUT, main, not_held_out, use_held_out
from vision.model_folds import record_folds, trained_folds


def test_shipped_manifest_names_every_dice_model():
    folds = trained_folds(MODELS)
    paths = [p for p in MODELS.rglob("*.onnx") if p.name.startswith("dice_")]  # the dice models saw real photos
    assert len(paths) >= 8
    for path in paths:
        name = path.relative_to(MODELS).as_posix()
        assert name in folds, name
        assert set(folds[name]) <= {0, 1} and folds[name], (name, folds[name])


def test_held_out_copies_are_held_out_on_fold_0():
    # the held-out figures in benchmarks/RESULTS.md come from `python -m vision.evaluate_dice --fold 0 --held-out`:
    # no model it reads with saw fold 0; the shipped free-photo models saw every photo
    assert not_held_out(DiceReader(), 0) == ["dice_detector.onnx", "dice_classifier_photo.onnx"]
    held_out = DiceReader(settings=use_held_out(DiceSettings()))
    assert not_held_out(held_out, 0) == []
    assert f"{HELD_OUT}/dice_classifier_photo.onnx" in not_held_out(held_out, 1)
    assert f"{HELD_OUT}/dice_detector.onnx" in not_held_out(held_out, None)


def test_models_trained_on_a_fold_are_named(tmp_path):
    for path in MODELS.glob("*.onnx"):
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "training.json").write_text(json.dumps({"dice_classifier_photo.onnx": {"trained_on_folds": [0, 1]},
                                                        "dice_detector.onnx": {"trained_on_folds": [1]}}))
    reader = DiceReader(tmp_path)
    assert not_held_out(reader, 0) == ["dice_classifier_photo.onnx"]
    assert not_held_out(reader, 1) == ["dice_detector.onnx", "dice_classifier_photo.onnx"]
    (tmp_path / "training.json").unlink()
    assert trained_folds(tmp_path) == {} and not_held_out(reader, 0) == []


def test_broken_manifest_is_a_clear_error(tmp_path, capsys):
    for path in MODELS.glob("*.onnx"):
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "training.json").write_text('{"dice_detector.onnx": [1]')
    with pytest.raises(ValueError, match="training manifest"):
        trained_folds(tmp_path)
    (tmp_path / "training.json").write_text('{"dice_detector.onnx": {"folds": [1]}}')
    assert main(["--models", str(tmp_path), "--fold", "0", "--limit", "1"]) == 2
    assert "not a training manifest" in capsys.readouterr().err


def test_training_records_its_folds_and_keeps_the_others(tmp_path):
    record_folds(tmp_path, "dice_detector.onnx", 0)
    record_folds(tmp_path, "dice_classifier_photo.onnx", "all")
    record_folds(tmp_path, "dice_classifier.onnx", 1)
    assert trained_folds(tmp_path) == {"dice_detector.onnx": [1], "dice_classifier_photo.onnx": [0, 1],
                                       "dice_classifier.onnx": [0]}
    record_folds(tmp_path, "dice_detector.onnx", None)  # retrained on everything
    assert trained_folds(tmp_path)["dice_detector.onnx"] == [0, 1]
    (tmp_path / "training.json").write_text("not json")
    with pytest.raises(ValueError):
        record_folds(tmp_path, "dice_tilt.onnx", 0)
    assert (tmp_path / "training.json").read_text() == "not json"


@pytest.mark.parametrize("px", ["0", "200"])
def test_field_die_px_out_of_range_is_a_clear_error(px, capsys):
    assert main(["--field-die-px", px, "--limit", "1"]) == 2
    assert "--field-die-px must be 4..64" in capsys.readouterr().err


def test_held_out_flag_reads_with_the_copies_that_never_saw_fold_0(capsys):
    args = ["--fold", "0", "--dataset", "matteop65", "--limit", "2"]
    assert main(args) == 0
    assert "not held-out figures" in capsys.readouterr().out  # the shipped models saw fold 0
    assert main(args + ["--held-out"]) == 0
    out = capsys.readouterr().out
    assert "not held-out" not in out and "== matteop65: 2 images" in out


def test_held_out_flag_without_the_copies_is_a_clear_error(tmp_path, capsys):
    for path in MODELS.glob("*.onnx"):
        shutil.copy(path, tmp_path / path.name)
    assert main(["--models", str(tmp_path), "--fold", "0", "--held-out", "--limit", "1"]) == 2
    assert "dice model missing" in capsys.readouterr().err


def test_dice_kind_out_compares_networks_without_and_with_a_kind(tmp_path, capsys):
    # networks identical to the shipped float32 ones stand in for a training without black dice:
    # the same boards read by the same networks must give the same figures on both sides
    (tmp_path / "black").mkdir()
    shutil.copy(MODELS / "dice_detector_field.onnx", tmp_path / "black" / "dice_detector.onnx")
    shutil.copy(MODELS / "dice_classifier.onnx", tmp_path / "black" / "dice_classifier.onnx")
    (tmp_path / "not-a-kind").mkdir()
    out = tmp_path / "kinds.json"
    assert main(["--dice-kind-out", str(tmp_path), "--rendered", "3", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    rows = [line.split() for line in text.splitlines() if line.strip().startswith("black")]
    assert len(rows) == 1 and "not-a-kind" not in text
    res = json.loads(out.read_text())["dice_kind_out"]
    assert list(res) == ["black"]
    without, with_ = res["black"]["without"], res["black"]["with"]
    assert without["boards"] == 3 and without["rolls"] == with_["rolls"] and without["found"] == with_["found"]
    assert without["dice"] == 6


def test_dice_kind_out_without_a_kind_folder_or_with_a_broken_network_is_one_line(tmp_path, capsys):
    assert main(["--dice-kind-out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no folder named after a kind of dice" in err[0]
    (tmp_path / "gold").mkdir()
    (tmp_path / "gold" / "dice_classifier.onnx").write_bytes(b"not a network")
    assert main(["--dice-kind-out", str(tmp_path), "--rendered", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "dice_classifier.onnx is not a readable ONNX network" in err[0]

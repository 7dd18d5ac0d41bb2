"""The 8-bit networks: made from the shipped float networks and run in their place only when
they were; the detectors and the value classifiers stay float (vision/onnx_model.py,
vision/training/quantize.py)."""

import logging
import shutil

import numpy as np
import pytest

from vision.dice import MODELS
from vision.model_folds import trained_folds
from vision.onnx_model import OnnxNet, file_sha256, load_onnx, quantized_path
from vision.training.quantize import QUANTIZED, main


@pytest.mark.parametrize("name", sorted(QUANTIZED))
def test_each_shipped_quantization_is_of_the_shipped_float_network_and_is_run(name):
    net = load_onnx(MODELS / name)
    assert net.path == quantized_path(MODELS / name)
    assert net.path.name == name.replace(".onnx", ".int8.onnx")
    assert net.metadata()["float_sha256"] == file_sha256(MODELS / name)
    assert "7-bit" in net.metadata()["quantization"]


@pytest.mark.parametrize("name", ["dice_detector_field.onnx", "dice_detector.onnx", "dice_classifier_photo.onnx",
                                  "dice_classifier.onnx"])
def test_the_detectors_and_the_value_classifiers_stay_float(name):
    assert not quantized_path(MODELS / name).exists()
    assert load_onnx(MODELS / name).path == MODELS / name


def test_a_quantization_of_another_network_is_not_run(tmp_path, caplog):
    """A float network trained again without a new quantization: the old 8-bit file lies beside
    it, but it was made from other bytes, so the float network is run and the log says why."""
    shutil.copy(MODELS / "dice_cube.onnx", tmp_path / "dice_tilt.onnx")
    shutil.copy(quantized_path(MODELS / "dice_tilt.onnx"), tmp_path / "dice_tilt.int8.onnx")
    with caplog.at_level(logging.WARNING, logger="vision.onnx_model"):
        net = load_onnx(tmp_path / "dice_tilt.onnx")
    assert net.path == tmp_path / "dice_tilt.onnx"
    assert "was not made from dice_tilt.onnx" in caplog.text
    (tmp_path / "dice_tilt.onnx").unlink()
    with pytest.raises(FileNotFoundError):  # no float network: the 8-bit one alone is not run
        load_onnx(tmp_path / "dice_tilt.onnx")


def test_the_tool_quantizes_a_network_from_the_boards_it_reads(tmp_path):
    """A bounded run of ``python -m vision.training.quantize``: six rendered boards set the tilt
    network's ranges; the file it writes is run in the float network's place and scores the
    recorded patches as the float network does."""
    for p in MODELS.glob("*.onnx"):
        if not p.name.endswith(".int8.onnx"):
            shutil.copy(p, tmp_path / p.name)
    shutil.copy(MODELS / "point_counter.head.npz", tmp_path)
    (tmp_path / "training.json").write_text('{"dice_tilt.onnx": {"trained_on_folds": [1]}}')
    assert main(["--models", str(tmp_path), "--boards", "6", "--nets", "dice_tilt.onnx"]) == 0
    assert trained_folds(tmp_path)["dice_tilt.int8.onnx"] == [1]  # the real photos its float network saw
    q = load_onnx(tmp_path / "dice_tilt.onnx")
    assert q.path == tmp_path / "dice_tilt.int8.onnx"
    from vision.training.quantize import record_inputs

    blobs = np.concatenate([b for b in record_inputs(tmp_path, 3, seed=77)["dice_tilt.onnx"]])
    f = OnnxNet(tmp_path / "dice_tilt.onnx").run(blobs)
    g = q.run(blobs)
    assert len(blobs) >= 4
    assert (f.argmax(1) == g.argmax(1)).mean() >= 0.9
    assert not np.array_equal(f, g)  # it is another network, not a copy


def test_the_tool_says_which_network_is_missing(tmp_path, capsys):
    assert main(["--models", str(tmp_path), "--boards", "1"]) == 2
    assert "missing" in capsys.readouterr().err

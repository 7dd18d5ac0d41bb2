"""The registered-board detector quantized to 8-bit integers (``vision.training.quantize_detector``,
``dice_detector_field.int8.onnx``) reads what its float32 source reads."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np
import pytest

from vision.dice import MODELS, DiceReader, DiceSettings
from vision.onnx_model import load_onnx

pytest.importorskip("vision.render_board")
from vision.render_roll import render_roll_on_board  # noqa: E402

SOURCE = MODELS / "dice_detector_field.onnx"


def _values(reader: DiceReader, roll) -> list[int]:
    return sorted(d.value for d in reader.read(roll.image, roll.field))


@pytest.mark.parametrize("band", [(0.28, 0.34), (0.44, 0.52), (0.72, 0.82)], ids=["travel", "tournament", "jumbo"])
def test_the_shipped_8bit_detector_reads_the_dice_the_float_detector_reads(band):
    # seed 13 is neither a training, calibration, validation nor benchmark seed
    int8 = DiceReader()
    float32 = DiceReader(settings=DiceSettings(field_detector="dice_detector_field.onnx"))
    assert int8.settings.field_detector == "dice_detector_field.int8.onnx"
    rng = np.random.default_rng(13)
    rolls = [render_roll_on_board(rng, cocked_prob=0.0, die_to_checker=band) for _ in range(8)]
    truth = [sorted(d.value for d in r.dice) for r in rolls]
    right_int8 = sum(_values(int8, r) == t for r, t in zip(rolls, truth))
    right_float = sum(_values(float32, r) == t for r, t in zip(rolls, truth))
    assert right_int8 >= 7 and right_int8 >= right_float - 1, (right_int8, right_float)


def test_quantize_writes_an_8bit_network_whose_output_layer_stays_float(tmp_path):
    import onnx

    from vision.training.quantize_detector import calibration_blobs, quantize

    blobs = calibration_blobs(SOURCE, 2, seed=5)
    assert blobs and all(b.ndim == 4 and b.shape[2] % 8 == 0 and b.shape[3] % 8 == 0 for b in blobs)
    out = tmp_path / "q.onnx"
    quantize(SOURCE, out, blobs)
    graph = onnx.load(str(out)).graph
    ops = [n.op_type for n in graph.node]
    assert ops.count("QuantizeLinear") >= 5 and ops.count("DequantizeLinear") >= 5
    last = next(n for n in graph.node if "output" in n.output)
    assert last.op_type == "Conv"  # the heatmap and the log size are not rounded to 8 bits
    a, q = load_onnx(SOURCE).run(blobs[0])[0], load_onnx(out).run(blobs[0])[0]
    assert a.shape == q.shape
    assert np.abs(a[0] - q[0]).max() < 1.5 and np.abs(a[1] - q[1]).mean() < 0.05


def test_quantize_refuses_no_calibration_inputs(tmp_path):
    from vision.training.quantize_detector import quantize

    with pytest.raises(ValueError, match="no calibration inputs"):
        quantize(SOURCE, tmp_path / "q.onnx", [])
    assert not (tmp_path / "q.onnx").exists()


def test_a_missing_source_network_is_one_line_and_exit_2(tmp_path):
    p = subprocess.run([sys.executable, "-m", "vision.training.quantize_detector", "--source",
                        str(tmp_path / "none.onnx"), "--out", str(tmp_path / "q.onnx"), "--boards", "1"],
                       capture_output=True, text=True, cwd=pathlib.Path(__file__).resolve().parents[1])
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [f"error: no network at {tmp_path / 'none.onnx'}"]
    assert not (tmp_path / "q.onnx").exists()

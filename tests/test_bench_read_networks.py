"""benchmarks/bench_read.py --networks: every network run of a read is timed, and only while asked."""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_read import NetworkClock, float_networks  # noqa: E402

from vision.dice_plugin import DicePlugin  # noqa: E402
from vision.learned_checkers import PointModel  # noqa: E402
from vision.onnx_model import OnnxNet  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.render_board import BoardState, render_board  # noqa: E402


def test_the_clock_times_each_network_of_a_read_and_then_lets_go():
    r = render_board(BoardState.starting())
    plugin = DicePlugin()
    reader = BoardReader.from_corners(r.corners, (r.image.shape[1], r.image.shape[0]), point_model=PointModel())
    reader.dice_reader, reader.cube_reader = plugin.dice, plugin.cube
    plain = OnnxNet.run
    with NetworkClock() as clock:
        reader.read(r.image)
    assert OnnxNet.run is plain
    # the point network reads the 24 points (and the bar) in one run; the dice detector runs once
    assert [b for b, _ in clock.runs["point_counter.int8.onnx"]] == [26]  # its 8-bit quantization
    assert len(clock.runs["dice_detector_field.onnx"]) == 1
    assert all(ms > 0 for runs in clock.runs.values() for _, ms in runs)
    reader.read(r.image)  # no longer timed
    assert len(clock.runs["point_counter.int8.onnx"]) == 1


def test_the_same_run_baseline_reads_with_the_float_networks():
    shipped, model = DicePlugin(), PointModel()
    baseline, float_model = float_networks(DicePlugin(), PointModel())
    assert shipped.reader.classifier.path.name == "dice_classifier.onnx"  # float: its 8-bit file read a checker as a 1
    assert shipped.tilt.net.path.name == "dice_tilt.int8.onnx"
    assert model.net.path.name == "point_counter.int8.onnx"
    assert baseline.reader.classifier.path.name == "dice_classifier.onnx"
    assert baseline.tilt.net.path.name == "dice_tilt.onnx"
    assert float_model.net.path.name == "point_counter.onnx"
    assert shipped.cube_reader.net.path.name == "dice_cube.int8.onnx"
    assert baseline.cube_reader.net.path.name == "dice_cube.onnx"
    assert float_networks(None, None) == (None, None)

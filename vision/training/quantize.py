"""Make the 8-bit quantizations of the networks that :func:`vision.onnx_model.load_onnx` runs.

    python -m vision.training.quantize [--models vision/models] [--boards 300] [--seed 9400]

For each network of :data:`QUANTIZED` it writes ``name.int8.onnx`` beside ``name.onnx``
(:func:`vision.onnx_model.quantized_path`): onnxruntime's static quantization
(``onnxruntime.quantization.quantize_static``, QDQ format), weights signed 8-bit per output
channel reduced to 7 bits (``reduce_range``: the 8-bit kernels of CPUs without VNNI add pairs of
products in 16 bits and would saturate), activations unsigned 8-bit, their ranges the minimum and
maximum seen while the float networks read ``--boards`` rendered boards
(:func:`vision.render_roll.render_roll_on_board`, dice of every size band of
``benchmarks/dice_sizes.py``, every other board of any colours; drawn from seed 9400, never used
to measure) as ``companion watch`` reads them (:meth:`vision.dice.DiceReader.scan`,
:func:`vision.cocked.judge_scan`, :func:`vision.cube.cube_from_scan`, then the checkers by
:class:`vision.reader.BoardReader` with the point network, the dice and cube covered). The SHA-256 of the float
file goes into the quantized file's metadata (``float_sha256``), so a float network trained again
is never run through an old quantization; ``training.json`` (:mod:`vision.model_folds`) gets the
float network's folds for the 8-bit file.

Which networks are quantized was chosen on the validation boards (``benchmarks/dice_sizes.py
--seed 6100``, ``python -m vision.evaluate --synthetic 60 --seed 37 --synthetic-dice --dice model``),
games and scenes (benchmarks/RESULTS.md, "Speed"): the dice detectors stay float (an 8-bit
registered-board detector boxed dice and cubes otherwise: cube values lost, a red six of
validation game 1018 read as a 3), and so does the registered-board value classifier (its 8-bit
quantization read a checker's printed mark on a real board photo, ``test6`` of shared/data/boards,
as a one in 32 of the 36 frames of ``benchmarks/real_dice_on_boards.py``, the float network in
none; a rendered 1280x720 frame's dice and cube read as fast with either). Needs the ``onnx``
package (``pip install -e ".[test]"``).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
from typing import Any, Sequence

import numpy as np

#: the networks made 8-bit
QUANTIZED = ("dice_tilt.onnx", "point_counter.onnx", "dice_cube.onnx")

#: die side / checker diameter bands of the calibration boards (those of benchmarks/dice_sizes.py)
BANDS = ((0.28, 0.34), (0.36, 0.44), (0.44, 0.52), (0.52, 0.62), (0.62, 0.72), (0.72, 0.82))


class RecordingNet:
    """A network that keeps every input it runs (``inputs``: (N, C, H, W) float32 arrays) and
    otherwise is ``net``."""

    def __init__(self, net: Any) -> None:
        self.net = net
        self.path = net.path
        self.inputs: list[np.ndarray] = []

    def run(self, blob: np.ndarray) -> np.ndarray:
        """``net.run(blob)``, ``blob`` kept."""
        self.inputs.append(np.ascontiguousarray(blob, np.float32).copy())
        return self.net.run(blob)


def record_inputs(models: pathlib.Path, boards: int, seed: int) -> dict[str, list[np.ndarray]]:
    """The inputs each float network of :data:`QUANTIZED` in ``models`` runs while ``boards``
    rendered boards are read (see the module docstring; the dice detector runs as shipped):
    {file name: [(N, C, H, W) float32]}. Raises ``FileNotFoundError`` when a network is missing."""
    from vision.cocked import TiltModel, judge_scan
    from vision.cube import CubeReader, cube_from_scan
    from vision.dice import DiceReader
    from vision.learned_checkers import PointModel
    from vision.onnx_model import OnnxNet
    from vision.reader import BoardReader
    from vision.render_roll import render_roll_on_board

    reader = DiceReader(models)
    point_model = PointModel(models / "point_counter.onnx")
    point_model.net = RecordingNet(OnnxNet(models / "point_counter.onnx"))
    tilt, cube_reader = TiltModel(models), CubeReader(models)
    tilt.net = RecordingNet(OnnxNet(models / "dice_tilt.onnx"))
    cube_reader.net = RecordingNet(OnnxNet(models / "dice_cube.onnx"))
    rng = np.random.default_rng(seed)
    for i in range(boards):
        roll = render_roll_on_board(rng, die_to_checker=BANDS[i % len(BANDS)], wide=(i // len(BANDS)) % 2 == 1)
        cands, probs = reader.scan(roll.image, roll.field)
        dice = judge_scan(roll.image, cands, probs, reader, roll.field, roller=roll.roller, tilt_model=tilt)
        cube = cube_from_scan(roll.image, cands, probs, roll.field, cube_reader, reader)
        # the checkers, their crops covered where those dice and that cube lie
        BoardReader(field=roll.field, point_model=point_model, dice_reader=lambda image, field: dice,
                    cube_reader=lambda image, field: cube).read(roll.image)
    nets = (tilt.net, cube_reader.net, point_model.net)
    return {n.path.name: n.inputs for n in nets}


def quantize(float_path: pathlib.Path, inputs: Sequence[np.ndarray], out: pathlib.Path) -> pathlib.Path:
    """Quantize the float network at ``float_path`` to ``out`` (see the module docstring), its
    activation ranges from ``inputs`` ((N, C, H, W) float32 arrays it reads). Returns ``out``.
    Raises ``ValueError`` when ``inputs`` is empty."""
    import onnx
    import onnxruntime as ort
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from vision.onnx_model import file_sha256

    if not inputs:
        raise ValueError(f"no inputs recorded for {float_path.name}")
    name = ort.InferenceSession(str(float_path), providers=["CPUExecutionProvider"]).get_inputs()[0].name

    class Inputs(CalibrationDataReader):
        def __init__(self) -> None:
            self.left = iter(inputs)

        def get_next(self) -> dict[str, np.ndarray] | None:
            blob = next(self.left, None)
            return None if blob is None else {name: blob}

    pre = out.with_name(out.name + ".pre.onnx")
    try:
        quant_pre_process(str(float_path), str(pre), skip_symbolic_shape=True)
        quantize_static(str(pre), str(out), Inputs(), quant_format=QuantFormat.QDQ, per_channel=True,
                        reduce_range=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        calibrate_method=CalibrationMethod.MinMax)
    finally:
        pre.unlink(missing_ok=True)
    q = onnx.load(str(out))
    for key, value in (("float_sha256", file_sha256(float_path)),
                       ("quantization", f"QDQ, 7-bit per-channel weights, 8-bit activations (MinMax over "
                                        f"{len(inputs)} runs)")):
        entry = q.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(q, str(out))
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (see the module docstring); returns the exit code (2 for a missing
    network)."""
    from vision.dice import MODELS
    from vision.model_folds import record_folds, trained_folds
    from vision.onnx_model import quantized_path

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=pathlib.Path, default=MODELS, help="folder of the float networks")
    ap.add_argument("--boards", type=int, default=300, help="rendered boards whose reading sets the ranges")
    ap.add_argument("--seed", type=int, default=9400)
    ap.add_argument("--runs", type=int, default=300, help="at most this many recorded runs per network")
    ap.add_argument("--nets", nargs="+", default=list(QUANTIZED), choices=list(QUANTIZED))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    try:
        recorded = record_inputs(args.models, args.boards, args.seed)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    for net in args.nets:
        runs = recorded[net]
        keep = sorted(rng.permutation(len(runs))[:args.runs])
        out = quantize(args.models / net, [runs[k] for k in keep], quantized_path(args.models / net))
        folds = trained_folds(args.models)
        if net in folds:  # the 8-bit network saw the real photos its float network saw
            unseen = [f for f in (0, 1) if f not in folds[net]]
            record_folds(args.models, out.name, unseen[0] if unseen else None)
        print(f"{out}: {len(keep)} of {len(runs)} runs, {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

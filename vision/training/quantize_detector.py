"""Quantize the registered-board dice detector to 8-bit integers (onnxruntime's static
quantization, QDQ format):

    python -m vision.training.quantize_detector --source vision/models/dice_detector_field.onnx \
        --out vision/models/dice_detector_field.int8.onnx --boards 64 --seed 77

The activation ranges are measured on the detector's own inputs as :meth:`vision.dice.DiceReader.scan`
feeds them at run time (every pass over ``--boards`` rendered registered boards,
:func:`vision.render_roll.render_roll_on_board` with dice of 0.28-0.85 of a checker's diameter),
so the quantized network sees the ranges it meets in a frame. Weights are signed 8-bit per output
channel, activations unsigned 8-bit (onnxruntime's ``QuantType.QInt8`` / ``QUInt8``). The
calibration seed must differ from the evaluation seeds (``benchmarks/dice_sizes.py`` 5100 and
6100, ``vision.evaluate_dice --rendered`` 1234 and 99).

Needs onnxruntime only (its ``quantization`` package), not torch.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
from typing import Any

import numpy as np


class _Recorder:
    """Stands in for a :class:`vision.onnx_model.OnnxNet`: runs it and keeps every input blob."""

    def __init__(self, net: Any) -> None:
        self.net = net
        self.blobs: list[np.ndarray] = []

    def run(self, blob: np.ndarray) -> np.ndarray:
        """The wrapped network's output for ``blob``; ``blob`` is kept."""
        self.blobs.append(np.ascontiguousarray(blob, np.float32))
        return self.net.run(blob)


def calibration_blobs(source: pathlib.Path, boards: int, seed: int,
                      die_to_checker: tuple[float, float] = (0.28, 0.85)) -> list[np.ndarray]:
    """The detector input blobs ((1, 3, H, W) float32, H and W multiples of 8) of ``boards``
    rendered registered boards read by :meth:`vision.dice.DiceReader.scan` with ``source`` as its
    registered-board detector."""
    from vision.dice import DiceReader
    from vision.onnx_model import load_onnx
    from vision.render_roll import render_roll_on_board

    reader = DiceReader()
    reader.field_detector = recorder = _Recorder(load_onnx(source))
    rng = np.random.default_rng(seed)
    for _ in range(boards):
        roll = render_roll_on_board(rng, die_to_checker=die_to_checker)
        reader.scan(roll.image, roll.field)
    return recorder.blobs


def quantize(source: pathlib.Path, out: pathlib.Path, blobs: list[np.ndarray]) -> None:
    """Write the static 8-bit quantization of the ONNX network ``source`` to ``out``, its
    activation ranges measured on ``blobs`` (min-max). The layers that write the network's
    outputs stay in float32: the heatmap logits and the log size share one output tensor, and one
    8-bit scale over both would round a die's size by about a tenth. Raises ``ValueError`` when
    ``blobs`` is empty."""
    import onnx
    import onnxruntime as ort
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    if not blobs:
        raise ValueError("no calibration inputs")
    graph = onnx.load(str(source)).graph
    outputs = {o.name for o in graph.output}
    last = [n.name for n in graph.node if outputs & set(n.output)]
    name = ort.InferenceSession(str(source), providers=["CPUExecutionProvider"]).get_inputs()[0].name

    class Feed(CalibrationDataReader):
        def __init__(self) -> None:
            self.items = iter(blobs)

        def get_next(self) -> dict[str, np.ndarray] | None:
            blob = next(self.items, None)
            return None if blob is None else {name: blob}

    with tempfile.TemporaryDirectory() as tmp:
        pre = pathlib.Path(tmp) / "pre.onnx"
        # the detector takes any input size, which symbolic shape inference cannot follow
        quant_pre_process(str(source), str(pre), skip_symbolic_shape=True)
        quantize_static(str(pre), str(out), Feed(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, nodes_to_exclude=last)


def main(argv: list[str] | None = None) -> int:
    """Command line; returns the exit code (2 for a missing or unreadable source network)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=pathlib.Path, default=pathlib.Path("vision/models/dice_detector_field.onnx"))
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("vision/models/dice_detector_field.int8.onnx"))
    ap.add_argument("--boards", type=int, default=64, help="rendered calibration boards")
    ap.add_argument("--seed", type=int, default=77, help="render seed of the calibration boards")
    args = ap.parse_args(argv)
    import cv2

    cv2.setNumThreads(1)
    try:
        blobs = calibration_blobs(args.source, args.boards, args.seed)
        quantize(args.source, args.out, blobs)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{args.out}: quantized on {len(blobs)} detector inputs of {args.boards} boards")
    return 0


if __name__ == "__main__":
    sys.exit(main())

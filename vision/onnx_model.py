"""The project's ONNX networks, run by onnxruntime on the CPU.

onnxruntime runs the project's small convolutional networks 3-5x faster than OpenCV's DNN
module on one core, with the same outputs (``benchmarks/bench_onnx.py`` measures both in one
run; figures in ``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import pathlib

import numpy as np


class OnnxNet:
    """One ONNX network on one CPU thread (onnxruntime's ``CPUExecutionProvider``).

    ``path``: the ``.onnx`` file. Raises ``FileNotFoundError`` when it is missing and
    ``ValueError`` when it is not a readable ONNX network.
    """

    def __init__(self, path: pathlib.Path | str, threads: int = 1) -> None:
        import onnxruntime as ort

        p = pathlib.Path(path)
        if not p.is_file():
            raise FileNotFoundError(f"no network at {p}")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(p), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types for a broken file
            raise ValueError(f"{p.name} is not a readable ONNX network: {str(exc).splitlines()[0]}") from None
        self.path = p
        self.input = self.session.get_inputs()[0].name

    def run(self, blob: np.ndarray) -> np.ndarray:
        """The network's first output for ``blob`` (an (N, C, H, W) float32 array, the
        network's input layout): float32, e.g. (N, classes) logits."""
        return self.session.run(None, {self.input: np.ascontiguousarray(blob, np.float32)})[0]


def load_onnx(path: pathlib.Path | str) -> OnnxNet:
    """The :class:`OnnxNet` of the ONNX file at ``path`` (one thread). Raises
    ``FileNotFoundError`` or ``ValueError`` as :class:`OnnxNet` does."""
    return OnnxNet(path)

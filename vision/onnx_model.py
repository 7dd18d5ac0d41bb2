"""The project's ONNX networks, run by onnxruntime on the CPU.

onnxruntime runs the project's small convolutional networks 3-5x faster than OpenCV's DNN
module on one core, with the same outputs (``benchmarks/bench_onnx.py`` measures both in one
run; figures in ``benchmarks/RESULTS.md``). Where a network's 8-bit quantization lies beside it
(``python -m vision.training.quantize``), :func:`load_onnx` runs that instead: about twice as fast
on one core.
"""

from __future__ import annotations

import hashlib
import logging
import pathlib

import numpy as np

#: the file name ending of a network's 8-bit quantization, beside the float network
QUANTIZED_SUFFIX = ".int8.onnx"


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

    def metadata(self) -> dict[str, str]:
        """The ONNX file's own metadata (``metadata_props``), e.g. ``float_sha256`` of a quantized
        network (:func:`quantized_path`)."""
        return dict(self.session.get_modelmeta().custom_metadata_map)


def quantized_path(path: pathlib.Path | str) -> pathlib.Path:
    """Where the 8-bit quantization of the network at ``path`` lies: ``name.int8.onnx`` beside
    ``name.onnx`` (made by ``python -m vision.training.quantize``)."""
    p = pathlib.Path(path)
    return p.with_name(p.stem + QUANTIZED_SUFFIX)


def file_sha256(path: pathlib.Path | str) -> str:
    """The SHA-256 of a file's bytes, hex. Raises ``OSError`` when it cannot be read."""
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def load_onnx(path: pathlib.Path | str) -> OnnxNet:
    """The network at ``path`` (one thread): its 8-bit quantization (:func:`quantized_path`) when
    one lies beside it and was made from this very file (its ``float_sha256`` metadata), else the
    float network itself; a quantization of another file is not run, and the log says so.

    The 8-bit networks have 7-bit weights (onnxruntime's ``reduce_range``), so that the 8-bit
    kernels of CPUs without VNNI do not saturate: they read as on CPUs with VNNI.
    Raises ``FileNotFoundError`` or ``ValueError`` as :class:`OnnxNet` does."""
    p = pathlib.Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"no network at {p}")
    q = quantized_path(p)
    if q.is_file():
        net = OnnxNet(q)
        if net.metadata().get("float_sha256") == file_sha256(p):
            return net
        logging.getLogger(__name__).warning(
            "%s was not made from %s: running the float network (python -m vision.training.quantize "
            "makes it again)", q.name, p.name)
    return OnnxNet(p)

"""Loading the project's ONNX networks into OpenCV's DNN module."""

from __future__ import annotations

import pathlib
from typing import Any


def load_onnx(path: pathlib.Path | str) -> Any:
    """The ``cv2.dnn.Net`` of the ONNX file at ``path``.

    On OpenCV 5 the classic DNN engine is asked for (``cv2.dnn.ENGINE_CLASSIC``): for the
    project's small convolutional networks it gives the same outputs as the default new engine
    and runs about 1.5x faster on one core (detector on a 400x264 input: 2.6 ms against 4.4 ms;
    32x32 patch classifiers: 1.4 ms against 2.1 ms for six patches). OpenCV 4 has one engine.
    Raises ``cv2.error`` when the file is not a readable ONNX network.
    """
    import cv2

    engine = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    if engine is None:
        return cv2.dnn.readNetFromONNX(str(path))
    return cv2.dnn.readNetFromONNX(str(path), engine)


class AveragedNets:
    """Several classifiers read as one: the same ``setInput`` / ``forward`` as a ``cv2.dnn.Net``,
    ``forward`` giving the log of the members' mean softmax, (N, C) float32, so that a softmax of
    it is their averaged probabilities (networks trained alike from other seeds err on
    different patches; measured in vision/models/README.md, twelfth session). ``nets``: the ``cv2.dnn.Net`` s (at least one, the same classes).
    Raises ``ValueError`` for no nets or members whose outputs differ in shape."""

    def __init__(self, nets: list[Any]) -> None:
        if not nets:
            raise ValueError("AveragedNets needs at least one network")
        self.nets = list(nets)
        self._blob: Any = None

    def setInput(self, blob: Any) -> None:  # noqa: N802 (cv2.dnn.Net's name)
        self._blob = blob

    def forward(self) -> Any:
        import numpy as np

        if self._blob is None:
            raise ValueError("AveragedNets.forward before setInput")
        total = None
        for net in self.nets:
            net.setInput(self._blob)
            logits = net.forward().astype(np.float64)
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            if total is not None and total.shape != p.shape:
                raise ValueError(f"averaged networks disagree on their output: {total.shape} vs {p.shape}")
            total = p if total is None else total + p
        return np.log(np.maximum(total / len(self.nets), 1e-30)).astype(np.float32)


"""Run each shipped ONNX network by onnxruntime and by OpenCV's DNN module, in the same process.

Usage: ``python benchmarks/bench_onnx.py [--repeat N]``. Prints, per network and input size, the
median milliseconds of one pass on one thread for each engine, their ratio, and the largest
difference between their outputs. The project runs its networks with onnxruntime
(:mod:`vision.onnx_model`); OpenCV's DNN module is the baseline.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: (network file, input shape of one pass as the readers use it)
CASES = [
    ("point_counter.onnx", (26, 3, 120, 28)),
    ("dice_detector_field.onnx", (1, 3, 264, 400)),
    ("dice_detector.onnx", (1, 3, 360, 640)),
    ("dice_classifier.onnx", (6, 3, 32, 32)),
    ("dice_classifier_photo.onnx", (6, 3, 32, 32)),
    ("dice_cube.onnx", (8, 3, 32, 32)),
    ("dice_tilt.onnx", (2, 3, 32, 32)),
]


def _median_ms(fn, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> int:
    """Print the table; returns 0."""
    import cv2

    from vision.onnx_model import load_onnx

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=50)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    rng = np.random.default_rng(0)
    print(f"{'network':30s} {'input':18s} {'onnxruntime':>12s} {'OpenCV DNN':>11s} {'ratio':>6s} {'max diff':>9s}")
    for name, shape in CASES:
        path = ROOT / "vision" / "models" / name
        blob = rng.normal(0, 1, shape).astype(np.float32)
        ort_net = load_onnx(path)
        cv_net = cv2.dnn.readNetFromONNX(str(path))

        def cv_run() -> np.ndarray:
            cv_net.setInput(blob)
            return cv_net.forward()

        diff = float(np.abs(ort_net.run(blob) - cv_run()).max())
        a = _median_ms(lambda: ort_net.run(blob), args.repeat)
        b = _median_ms(cv_run, args.repeat)
        print(f"{name:30s} {'x'.join(map(str, shape)):18s} {a:9.2f} ms {b:8.2f} ms {a / b:6.2f} {diff:9.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

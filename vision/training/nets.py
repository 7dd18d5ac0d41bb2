"""The two small dice networks (torch, training only; inference runs the exported ONNX with onnxruntime).

- :class:`DiceDetector`: fully convolutional, (N, 3, H, W) -> (N, 2, H/4, W/4): channel 0 the die
  centre heatmap (logits), channel 1 log(die side / DETECT_DIE_PX) at the centre cell.
- :class:`DiceClassifier`: (N, 3, 32, 32) -> (N, 7) logits: top-face pip value 1..6 (index 0..5)
  and 6 = "not a die".
"""

from __future__ import annotations

import torch
from torch import nn


def _cbr(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride=stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class DiceDetector(nn.Module):
    """Die centres and sizes at stride 4 (see module docstring). ``widths``: the channels at
    strides 2, 4 and 8 (onnxruntime runs convolutions in blocks of 16 channels on AVX-512, so
    multiples of 16 cost least per channel)."""

    def __init__(self, widths: tuple[int, int, int] = (16, 32, 48)) -> None:
        super().__init__()
        a, b, c = widths
        self.s2 = _cbr(3, a, 2)
        self.s4 = nn.Sequential(_cbr(a, b, 2), _cbr(b, b))
        self.s8 = nn.Sequential(_cbr(b, c, 2), _cbr(c, c), _cbr(c, c, dilation=2))
        self.lat = nn.Conv2d(c, b, 1)
        self.fuse = _cbr(b, b)
        self.head = nn.Conv2d(b, 2, 1)
        with torch.no_grad():
            self.head.bias[0] = -4.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, 3, H, W) -> (N, 2, H/4, W/4); H and W multiples of 8."""
        f4 = self.s4(self.s2(x))
        f8 = self.s8(f4)
        up = nn.functional.interpolate(self.lat(f8), scale_factor=2.0, mode="nearest")
        return self.head(self.fuse(f4 + up))


class DiceClassifier(nn.Module):
    """Top-face value (or not a die) from a 32x32 patch (see module docstring)."""

    def __init__(self, width: int = 16, classes: int = 7) -> None:
        super().__init__()
        w = width
        self.body = nn.Sequential(
            _cbr(3, w), _cbr(w, w), nn.MaxPool2d(2),
            _cbr(w, 2 * w), _cbr(2 * w, 2 * w), nn.MaxPool2d(2),
            _cbr(2 * w, 4 * w), _cbr(4 * w, 4 * w), nn.MaxPool2d(2),
            _cbr(4 * w, 4 * w),
        )
        self.fc = nn.Linear(4 * w, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, 3, 32, 32) -> (N, classes) logits."""
        f = self.body(x)
        return self.fc(f.mean(dim=(2, 3)))


class PointCounter(nn.Module):
    """Checkers on one point from its crop (:mod:`vision.point_crops`): (N, 3, 120, 28)
    float32, each crop standardised per channel ((x - mean) / (std + 8), its own mean and
    spread, so the network sees shapes rather than one board's colours) -> (N, 17) logits:
    counts 0..15 and 16 = hidden (a hand or an object over the checkers). Strided 3x3
    convolutions (widths 12, 24, 24, 48, 48) keep the cost near 4 M multiply-adds a crop;
    the head sees the whole column (a flattened 15x4 map), where the stack ends matters."""

    def __init__(self, classes: int = 17, width: int = 12) -> None:
        super().__init__()
        w = width
        self.body = nn.Sequential(
            _cbr(3, w, 2), _cbr(w, 2 * w, 2), _cbr(2 * w, 2 * w),
            _cbr(2 * w, 4 * w, 2), _cbr(4 * w, 4 * w),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(4 * w * 15 * 4, 64), nn.ReLU(inplace=True),
                                  nn.Linear(64, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, 3, 120, 28) -> (N, classes) logits."""
        return self.head(self.body(x))

"""Labelled dice photographs: loading the YOLO-labelled datasets in ``../shared/data/dice``.

Each dataset folder holds ``images/<name>.jpg`` and ``labels/<name>.txt`` with one line per die,
``class cx cy w h`` (YOLO format, coordinates normalised to the image size) where
class = pip value - 1. See ``../shared/data/README.md``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pathlib
from typing import Iterator

import numpy as np


@dataclasses.dataclass(frozen=True)
class LabelledImage:
    """One photo and its dice: ``boxes`` (N, 4) float64 ``x0, y0, x1, y1`` in image pixels,
    ``values`` (N,) int64 pip values 1..6, ``size`` ``(width, height)`` in pixels; synthetic images
    may also hold doubling cubes (``cube_boxes`` (M, 4), ``cube_values`` (M,) in 2..64)."""

    dataset: str
    path: pathlib.Path
    boxes: np.ndarray
    values: np.ndarray
    size: tuple[int, int]
    cube_boxes: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 4)))
    cube_values: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def centers(self) -> np.ndarray:
        """(N, 2) float64 box centres in pixels."""
        return np.stack([(self.boxes[:, 0] + self.boxes[:, 2]) / 2,
                         (self.boxes[:, 1] + self.boxes[:, 3]) / 2], axis=1)

    def fold(self, folds: int = 2) -> int:
        """A stable fold index in ``0..folds-1`` from the file name (for held-out splits)."""
        digest = hashlib.sha1(self.path.name.encode()).digest()
        return digest[0] % folds


class DatasetError(ValueError):
    """A dice dataset folder is missing or malformed."""


def load_dataset(folder: pathlib.Path) -> list[LabelledImage]:
    """Load every labelled image in ``folder`` (``images/`` + ``labels/``), sorted by name.

    Raises :class:`DatasetError` when the folder has no ``images`` or a label line is malformed.
    Image sizes are read from the JPEG header via OpenCV (the image is decoded once).
    """
    import cv2

    folder = pathlib.Path(folder)
    images = folder / "images"
    labels = folder / "labels"
    if not images.is_dir() or not labels.is_dir():
        raise DatasetError(f"{folder} has no images/ and labels/ folders")
    out: list[LabelledImage] = []
    for img_path in sorted(images.iterdir()):
        if img_path.suffix.lower() not in (".jpg", ".jpeg", ".png"):
            continue
        label_path = labels / (img_path.stem + ".txt")
        if not label_path.exists():
            continue
        image = cv2.imread(str(img_path), cv2.IMREAD_REDUCED_COLOR_2)
        if image is None:
            raise DatasetError(f"cannot read {img_path}")
        height, width = image.shape[0] * 2, image.shape[1] * 2
        boxes, values = [], []
        for line_no, line in enumerate(label_path.read_text().splitlines(), 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 5:
                raise DatasetError(f"{label_path}:{line_no}: expected 5 fields, got {len(parts)}")
            cls, cx, cy, w, h = (float(p) for p in parts)
            boxes.append(((cx - w / 2) * width, (cy - h / 2) * height,
                          (cx + w / 2) * width, (cy + h / 2) * height))
            values.append(int(cls) + 1)
        out.append(LabelledImage(folder.name, img_path,
                                 np.asarray(boxes, dtype=np.float64).reshape(-1, 4),
                                 np.asarray(values, dtype=np.int64), (width, height)))
    return out


def iter_datasets(root: pathlib.Path) -> Iterator[tuple[str, list[LabelledImage]]]:
    """Yield ``(name, images)`` for every dataset folder under ``root`` (e.g. ``shared/data/dice``)."""
    for sub in sorted(pathlib.Path(root).iterdir()):
        if (sub / "images").is_dir():
            yield sub.name, load_dataset(sub)


def default_dice_root() -> pathlib.Path:
    """``shared/data/dice`` beside the project (or ``$COMPANION_SHARED_DATA/dice``)."""
    import os

    env = os.environ.get("COMPANION_SHARED_DATA")
    if env:
        return pathlib.Path(env) / "dice"
    root = pathlib.Path(__file__).resolve().parents[1]
    for base in (root.parent, root.parent.parent):
        if (base / "shared" / "data").is_dir():
            return base / "shared" / "data" / "dice"
    return root.parent / "shared" / "data" / "dice"

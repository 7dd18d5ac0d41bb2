"""Labelled dice photographs: loading the YOLO-labelled datasets in ``../shared/data/dice``.

Each dataset folder holds ``images/<name>.jpg`` and ``labels/<name>.txt`` with one line per die,
``class cx cy w h`` (YOLO format, coordinates normalised to the image size) where
class = pip value - 1. See ``../shared/data/README.md``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pathlib
from typing import Iterator, Optional

import numpy as np


@dataclasses.dataclass(frozen=True)
class LabelledImage:
    """One photo and its dice: ``boxes`` (N, 4) float64 ``x0, y0, x1, y1`` in image pixels,
    ``values`` (N,) int64 pip values 1..6, ``size`` ``(width, height)`` in pixels; synthetic images
    may also hold doubling cubes (``cube_boxes`` (M, 4), ``cube_values`` (M,) in 2..64) and marks
    that are not dice (``distractor_boxes`` (K, 4): printed text, checkers, scales, symbols, a
    clock's digits; see
    :mod:`vision.render_distractors`), which training reads as "not a die"."""

    dataset: str
    path: pathlib.Path
    boxes: np.ndarray
    values: np.ndarray
    size: tuple[int, int]
    cube_boxes: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 4)))
    cube_values: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    distractor_boxes: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 4)))

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


#: A box of the value one smaller than this share of the median side of the other dice in its
#: photo boxes the pip alone, not the die (matteop65 labels its ones so: median 0.44).
PIP_LABEL_RATIO = 0.7


def pip_label_ratio(items: list[LabelledImage]) -> Optional[float]:
    """The median ratio (box side / median side of the photo's other dice) of the value-one labels
    that box the pip alone (below :data:`PIP_LABEL_RATIO`), over the photos of ``items`` that also
    hold other values; None when no such label exists (the dataset boxes whole dice)."""
    ratios = []
    for it in items:
        sides = np.maximum(it.boxes[:, 2] - it.boxes[:, 0], it.boxes[:, 3] - it.boxes[:, 1])
        others = sides[it.values != 1]
        if len(others) == 0:
            continue
        med = float(np.median(others))
        ratios += [s / med for s in sides[it.values == 1] if s < PIP_LABEL_RATIO * med]
    # a dataset boxes its ones' pips when most of its ones are so boxed
    n_ones = sum(int((it.values == 1).sum()) for it in items if (it.values != 1).any())
    if not ratios or len(ratios) < 0.5 * n_ones:
        return None
    return float(np.median(ratios))


def with_die_boxes(items: list[LabelledImage]) -> list[LabelledImage]:
    """``items`` of one dataset with every box covering the die (top face), for training.

    Some datasets box only the pip of a one (matteop65: the box is 0.44 times the die's side). Such
    a box, centred where it is, gets the side of the photo's other dice (their median), or, in a
    photo of ones only, its own side divided by the dataset's :func:`pip_label_ratio`. Datasets
    that box whole dice are returned unchanged. (Evaluation keeps the original boxes.)"""
    ratio = pip_label_ratio(items)
    if ratio is None:
        return list(items)
    out = []
    for it in items:
        sides = np.maximum(it.boxes[:, 2] - it.boxes[:, 0], it.boxes[:, 3] - it.boxes[:, 1])
        others = sides[it.values != 1]
        new = sides.copy()
        for k in np.nonzero(it.values == 1)[0]:
            if len(others):
                med = float(np.median(others))
                if sides[k] < PIP_LABEL_RATIO * med:
                    new[k] = med
            else:
                new[k] = sides[k] / ratio
        c = it.centers
        square = np.stack([c[:, 0] - new / 2, c[:, 1] - new / 2, c[:, 0] + new / 2, c[:, 1] + new / 2], axis=1)
        boxes = np.where((new != sides)[:, None], square.reshape(-1, 4), it.boxes)
        out.append(dataclasses.replace(it, boxes=boxes))
    return out

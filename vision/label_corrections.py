"""Mistakes in the labels of the real dice photos, and the photos with them corrected.

The held-out evaluation (:mod:`vision.evaluate_dice`) scores readings against the labels of
``shared/data/dice``; a few labels are wrong (a top face of three labelled 2, a die nobody
labelled, a die labelled on the bare table), each seen in the photo itself. The evaluation
reports its figures against the labels as they are; with ``--label-corrections FILE`` (the list
kept in ``benchmarks/dice_label_corrections.json``) it scores against the corrected labels too.
Training uses the labels as they are unless asked (``python -m vision.training.train_dice
--label-corrections FILE``).

The file is a JSON list of objects:

- ``dataset``, ``image``: the dataset folder and the photo's file name;
- ``labelled``: the value the label gives (1..6), or null for a die with no label;
- ``at``: ``[x, y]`` the labelled box's centre in image pixels (when ``labelled`` is set: the
  label to correct, found within :data:`AT_TOLERANCE` pixels);
- ``box``: ``[x0, y0, x1, y1]`` in image pixels, the die to add (when ``labelled`` is null);
- ``value``: the value on the die's top face (1..6), or null when there is no die (the label is
  dropped);
- ``why``: what the photo shows.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
from typing import Any, Optional, Sequence

import numpy as np

from vision.dice_data import DatasetError, LabelledImage

#: pixels: how far a correction's ``at`` may lie from the labelled box's centre it corrects
AT_TOLERANCE = 2.0


@dataclasses.dataclass(frozen=True)
class LabelCorrection:
    """One corrected label (see the module docstring for the fields; pixels, values 1..6)."""

    dataset: str
    image: str
    labelled: Optional[int]
    value: Optional[int]
    at: Optional[tuple[float, float]] = None
    box: Optional[tuple[float, float, float, float]] = None
    why: str = ""


def _value(entry: dict[str, Any], key: str, where: str) -> Optional[int]:
    v = entry.get(key)
    if v is None:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 6:
        raise DatasetError(f"{where}: {key} must be a pip value 1..6 or null, got {v!r}")
    return v


def _numbers(entry: dict[str, Any], key: str, n: int, where: str) -> tuple[float, ...]:
    v = entry.get(key)
    if not isinstance(v, list) or len(v) != n or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
        raise DatasetError(f"{where}: {key} must be a list of {n} numbers (pixels), got {v!r}")
    return tuple(float(x) for x in v)


def load_label_corrections(path: pathlib.Path | str) -> list[LabelCorrection]:
    """The corrections in the JSON file ``path``.

    Raises :class:`vision.dice_data.DatasetError` for an unreadable or malformed file (not a
    list, a field missing or of the wrong type, a correction that changes nothing)."""
    path = pathlib.Path(path)
    try:
        entries = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"cannot read the label corrections {path}: {exc}") from exc
    if not isinstance(entries, list):
        raise DatasetError(f"{path}: expected a JSON list of corrections")
    out = []
    for k, entry in enumerate(entries):
        where = f"{path} entry {k}"
        if not isinstance(entry, dict) or not isinstance(entry.get("dataset"), str) or not isinstance(entry.get("image"), str):
            raise DatasetError(f"{where}: needs 'dataset' and 'image' names")
        labelled, value = _value(entry, "labelled", where), _value(entry, "value", where)
        if labelled == value:
            raise DatasetError(f"{where}: 'labelled' and 'value' are the same ({value}); nothing to correct")
        if labelled is None:
            x0, y0, x1, y1 = _numbers(entry, "box", 4, where)
            if not (x1 > x0 and y1 > y0):
                raise DatasetError(f"{where}: box must have x1 > x0 and y1 > y0")
            out.append(LabelCorrection(entry["dataset"], entry["image"], None, value, box=(x0, y0, x1, y1),
                                       why=str(entry.get("why", ""))))
        else:
            ax, ay = _numbers(entry, "at", 2, where)
            out.append(LabelCorrection(entry["dataset"], entry["image"], labelled, value, at=(ax, ay),
                                       why=str(entry.get("why", ""))))
    return out


def with_corrections(items: Sequence[LabelledImage],
                     corrections: Sequence[LabelCorrection]) -> tuple[list[LabelledImage], int]:
    """``items`` with the ``corrections`` of their dataset and photos applied, and how many were
    applied (corrections of photos not in ``items`` are skipped: a fold, another dataset).

    Raises :class:`vision.dice_data.DatasetError` when a correction no longer matches its photo's
    labels (no box of the ``labelled`` value within :data:`AT_TOLERANCE` pixels of ``at``): the
    labels changed and the list must be checked again."""
    out, applied = [], 0
    for it in items:
        mine = [c for c in corrections if c.dataset == it.dataset and c.image == it.path.name]
        if not mine:
            out.append(it)
            continue
        boxes, values = it.boxes.copy(), it.values.copy()
        keep = np.ones(len(values), bool)
        extra_boxes, extra_values = [], []
        centres = it.centers
        for c in mine:
            if c.labelled is None:
                extra_boxes.append(c.box)
                extra_values.append(c.value)
                continue
            d = np.hypot(centres[:, 0] - c.at[0], centres[:, 1] - c.at[1]) if len(centres) else np.zeros(0)
            hits = np.nonzero((d <= AT_TOLERANCE) & (values == c.labelled) & keep)[0]
            if not len(hits):
                raise DatasetError(f"{it.dataset}/{it.path.name}: no label {c.labelled} at {list(c.at)} to correct "
                                   "(the labels changed?)")
            k = int(hits[np.argmin(d[hits])])
            if c.value is None:
                keep[k] = False
            else:
                values[k] = c.value
        if extra_boxes:
            boxes = np.vstack([boxes[keep], np.asarray(extra_boxes, dtype=np.float64)])
            values = np.concatenate([values[keep], np.asarray(extra_values, dtype=np.int64)])
        else:
            boxes, values = boxes[keep], values[keep]
        out.append(dataclasses.replace(it, boxes=boxes.reshape(-1, 4), values=values))
        applied += len(mine)
    return out, applied

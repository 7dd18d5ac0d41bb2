"""Which folds of the real dice photos each model in a models folder was trained on.

``training.json`` beside the ONNX files: ``{"dice_detector.onnx": {"trained_on_folds": [1]}, ...}``
(folds: :meth:`vision.dice_data.LabelledImage.fold`). The training scripts write it
(:func:`record_folds`); ``python -m vision.evaluate_dice`` reads it (:func:`trained_folds`) to say
when its figures are not held out.
"""

from __future__ import annotations

import json
import pathlib

MANIFEST = "training.json"


def trained_folds(models_dir: pathlib.Path | str) -> dict[str, list[int]]:
    """{model file name: folds of the real photos it was trained on} from ``training.json`` in
    ``models_dir``; empty when the file is missing. Raises ``ValueError`` for a file that is not
    such a JSON object."""
    path = pathlib.Path(models_dir) / MANIFEST
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text())
        return {str(k): [int(f) for f in v["trained_on_folds"]] for k, v in data.items()}
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise ValueError(f"{path}: not a training manifest ({e})") from e


def record_folds(models_dir: pathlib.Path | str, name: str, held_out: int | str | None) -> None:
    """Record in ``models_dir``'s ``training.json`` that model file ``name`` was trained on every
    fold (0 and 1) but ``held_out`` (0, 1, or None / ``"all"``: none held out). Other entries are
    kept; a broken manifest raises ``ValueError`` (see :func:`trained_folds`) and is not overwritten."""
    folds = trained_folds(models_dir)
    keep = [0, 1] if held_out in (None, "all") else [f for f in (0, 1) if f != int(held_out)]
    folds[name] = keep
    path = pathlib.Path(models_dir) / MANIFEST
    lines = [f'  "{k}": {{"trained_on_folds": {json.dumps(v)}}}' for k, v in sorted(folds.items())]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")

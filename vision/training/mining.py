"""Hard examples for the dice classifiers: a detector's false alarms and its matches on labelled
images (numpy and onnxruntime only; ``vision.training.train_dice`` trains on them)."""

from __future__ import annotations

import pathlib
from typing import Optional

import numpy as np

from vision.dice_data import LabelledImage


def die_sizes(item: LabelledImage) -> np.ndarray:
    """(N,) die sides in pixels: the larger side of each box."""
    return np.maximum(item.boxes[:, 2] - item.boxes[:, 0], item.boxes[:, 3] - item.boxes[:, 1])


#: Registered-board datasets, mined at their dice's size.
BOARD_DATASETS = ("rendered-board", "real-on-board")
#: With ``field_detector``, :func:`mine_hard_negatives` also searches each registered board at these
#: multiples of its dice's side: ``companion watch`` searches at the board's die size (a tournament
#: die) whatever the dice's own, and at 0.55 and 1.3 of it for a flat pair it has not found
#: (:data:`vision.dice_size.FINE_SCALE`, :data:`vision.dice_size.OWN_SIZE_FROM`), so dice of 0.3-0.8
#: of a checker are searched at about 0.6-1.7 times their side.
FIELD_MINE_SCALES = (0.6, 1.0, 1.7)


def mine_hard_negatives(items, detector: pathlib.Path, log, radius: float = 0.5,
                        finest_max_scale: float = 0.77, pyramid: tuple[int, ...] = (192, 384, 768),
                        field_detector: Optional[pathlib.Path] = None) -> tuple[dict, dict]:
    """Run the detector ``detector`` (an exported dice_detector.onnx) over ``items`` ([(image
    (H, W, 3) uint8 BGR, :class:`vision.dice_data.LabelledImage`)]; ``log`` takes the summary line,
    a str): its candidates
    farther than ``radius`` x size from every labelled die or cube, or smaller than 0.6 x the
    nearest one's side (a pip or part of a die; false alarms, {item index: [(x, y, size), ...]})
    and those matched to a labelled die (centre within half its
    side, size within 0.7..1.5 of its side; {item index: [(x, y, size, value), ...]}, the nearest
    candidate per die). ``pyramid``, ``finest_max_scale``: the free photos' pyramid
    (:class:`vision.dice.DiceSettings`); (192, 384, 640) and 1.0 mine 640-pixel photos at their
    own resolution too. ``field_detector``: a registered-board detector (an exported
    dice_detector_field.onnx) whose false alarms on the registered boards (:data:`BOARD_DATASETS`),
    searched as :meth:`vision.dice.DiceReader.scan` searches a board at :data:`FIELD_MINE_SCALES`
    times their dice's side, are added (the candidates the shipped classifier is shown at run
    time: a hinge's screw heads on the bar, a checker's rim); its matches are not used."""
    import shutil
    import tempfile

    from vision.dice import DiceReader, DiceSettings

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(detector, pathlib.Path(tmp) / "dice_detector.onnx")
        # the classifier is not used here; any valid ONNX of the right name will do
        shutil.copy(detector, pathlib.Path(tmp) / "dice_classifier.onnx")
        # the first two levels always, as the shipped models were mined (see --mine-pyramid)
        # the main detector on rendered boards too (at the 12-pixel dice it is trained for)
        reader = DiceReader(tmp, DiceSettings(peak=0.15, finest_max_scale=finest_max_scale, pyramid=tuple(pyramid),
                                          pyramid_fixed=2, photo_classifier=None, recentre_ones=0,
                                          field_detector=None, field_die_input_px=12.0))
        field_reader = None
        if field_detector is not None:
            shutil.copy(field_detector, pathlib.Path(tmp) / "dice_detector_field.onnx")
            field_reader = DiceReader(tmp, DiceSettings(photo_classifier=None, recentre_ones=0))
        out, matched = {}, {}
        n = m = 0
        for idx, (img, item) in enumerate(items):
            die_px = None
            if item.dataset in BOARD_DATASETS:
                die_px = float(np.median(die_sizes(item)))
            cands = reader.candidates(img, die_px)
            field_cands = []
            if field_reader is not None and die_px is not None:
                field_cands = [c for s in FIELD_MINE_SCALES for c in field_reader.candidates(img, die_px * s)]
            boxes = np.concatenate([item.boxes, item.cube_boxes]) if len(item.cube_boxes) else item.boxes
            cen = np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1)
            sz = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
            bad = []
            best: dict[int, tuple[float, tuple]] = {}
            for c in cands:
                d = np.hypot(cen[:, 0] - c.center[0], cen[:, 1] - c.center[1]) if len(cen) else np.array([np.inf])
                if np.all(d > radius * (sz if len(sz) else 1)):
                    bad.append((c.center[0], c.center[1], c.size))
                    continue
                j = int(np.argmin(d))
                if c.size < 0.6 * sz[j]:
                    # a pip or a part of the die taken for a small die: "not a die"
                    bad.append((c.center[0], c.center[1], c.size))
                    continue
                if (j < len(item.values) and d[j] < 0.5 * sz[j] and 0.7 <= c.size / sz[j] <= 1.5
                        and d[j] < best.get(j, (np.inf,))[0]):
                    best[j] = (float(d[j]), (c.center[0], c.center[1], c.size, int(item.values[j])))
            for c in field_cands:
                d = np.hypot(cen[:, 0] - c.center[0], cen[:, 1] - c.center[1]) if len(cen) else np.array([np.inf])
                if np.all(d > radius * (sz if len(sz) else 1)):
                    bad.append((c.center[0], c.center[1], c.size))
            if bad:
                out[idx] = bad
                n += len(bad)
            if best:
                matched[idx] = [b for _, b in best.values()]
                m += len(best)
    log(f"hard negatives: {n} detector false alarms in {len(out)} images; {m} dice matched by the detector")
    return out, matched

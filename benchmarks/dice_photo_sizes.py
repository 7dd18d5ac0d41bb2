"""The dice reader on free photos larger than the labelled 640-pixel ones:
``python benchmarks/dice_photo_sizes.py [--fold 0] [--every 1] [--held-out]``.

The real dice photos of a fold (``shared/data/dice``, fold 0 by default; ``--held-out``: read with
the free-photo models' copies that never saw fold 0, so the figures are held out) are read

- as they are (640x480 and 640x640),
- enlarged three times (cubic; 1920 pixels: a phone's photo of a few big dice),
- placed in the middle of a canvas two and three times as large, filled with the photo's median
  colour, the photo's edges blended into it (dice 2-3% of the photo's side: a photo of a whole
  board or table),

and each reading is scored as ``python -m vision.evaluate_dice`` scores it (a die is found when a
reading lies within half its labelled side of its centre). Prints found / value / false per
dataset and variant, and the median milliseconds per photo.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def variant(img: np.ndarray, kind: str, factor: int) -> tuple[np.ndarray, float, tuple[float, float]]:
    """The photo as ``kind`` ("as is", "enlarged", "canvas") with ``factor``: the image, the scale
    of its dice against the original and the offset (x, y) of the original's origin, pixels."""
    import cv2

    if kind == "enlarged":
        return cv2.resize(img, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC), float(factor), (0.0, 0.0)
    if kind == "canvas":
        # the photo in the middle of a table of its median colour, its edges blended over a tenth
        # of its size (a hard-edged inset reads at coarse scales as one large die)
        h, w = img.shape[:2]
        canvas = np.empty((h * factor, w * factor, 3), np.float32)
        canvas[:] = np.median(img.reshape(-1, 3), axis=0)
        oy, ox = (h * factor - h) // 2, (w * factor - w) // 2
        ramp = max(min(h, w) // 10, 1)
        ay = np.clip(np.minimum(np.arange(h), np.arange(h)[::-1]) / ramp, 0, 1)
        ax = np.clip(np.minimum(np.arange(w), np.arange(w)[::-1]) / ramp, 0, 1)
        alpha = np.minimum(ay[:, None], ax[None, :])[:, :, None]
        canvas[oy:oy + h, ox:ox + w] = alpha * img + (1 - alpha) * canvas[oy:oy + h, ox:ox + w]
        return canvas.round().astype(np.uint8), 1.0, (float(ox), float(oy))
    return img, 1.0, (0.0, 0.0)


def main(argv: list[str] | None = None) -> int:
    import cv2

    from vision.dice import DiceReader, DiceSettings
    from vision.dice_data import default_dice_root, iter_datasets
    from vision.evaluate_dice import match, use_held_out

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fold", type=int, default=0, help="the fold of the photos read (0: held out)")
    ap.add_argument("--every", type=int, default=1, help="read every n-th photo only")
    ap.add_argument("--settings", default="{}", help="DiceSettings fields as JSON (experiments)")
    ap.add_argument("--held-out", action="store_true",
                    help="read with the free-photo models' copies trained without fold 0 (vision/models/heldout)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    try:
        fields = {k: tuple(v) if isinstance(v, list) else v for k, v in json.loads(args.settings).items()}
        settings = DiceSettings(**fields)
    except (ValueError, TypeError, AttributeError) as exc:
        ap.error(f"--settings: {exc}")
    if args.held_out:
        use_held_out(settings)
    reader = DiceReader(settings=settings)
    variants = [("as is", 1), ("enlarged", 3), ("canvas", 2), ("canvas", 3)]
    for name, data in iter_datasets(default_dice_root()):
        items = [it for it in data if it.fold() == args.fold][:: args.every]
        for kind, factor in variants:
            labelled = found = right = false = 0
            times = []
            for it in items:
                img, scale, (ox, oy) = variant(cv2.imread(str(it.path)), kind, factor)
                t = time.perf_counter()
                dice = reader.read(img)
                times.append((time.perf_counter() - t) * 1000)
                centres = (np.array([d.center for d in dice]).reshape(-1, 2) - [ox, oy]) / scale
                sizes = np.maximum(it.boxes[:, 2] - it.boxes[:, 0], it.boxes[:, 3] - it.boxes[:, 1])
                pairs = match(centres, it.centers, sizes)
                labelled += len(it.values)
                found += len(pairs)
                right += sum(dice[i].value == int(it.values[j]) for i, j in pairs)
                false += len(dice) - len(pairs)
            label = kind if factor == 1 else f"{kind} x{factor}"
            print(f"{name:>10} {label:>12}: {len(items)} photos, {labelled} dice: found {100 * found / labelled:5.1f}%"
                  f"  value {100 * right / max(found, 1):5.1f}%  false {100 * false / labelled:4.1f}%"
                  f"  median {statistics.median(times):.0f} ms", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

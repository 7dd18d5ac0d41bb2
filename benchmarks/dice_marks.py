"""False dice on photos of marks that are not dice (printed text, checkers, scales, symbols,
a clock's display; :mod:`vision.render_distractors`), read as free photos.

    python benchmarks/dice_marks.py [--classifier PATH ...] [--photos 60] [--seed 99]

Each photo is a random table background (640x480) with six marks sized for dice of 18-60
pixels; every die read is a false die. With several ``--classifier`` files (free-photo
classifier ONNX; ``shipped`` for ``vision/models/dice_classifier_photo.onnx``) each reads the
same photos. The marks are drawn by the generator the shipped classifier is trained with (other
seeds), so this measures what training taught, not dice of the world: the board photos
(``benchmarks/dice_board_photos.py``) are the real check.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--classifier", nargs="+", default=["shipped"],
                    help="free-photo classifier ONNX files ('shipped': the shipped one)")
    ap.add_argument("--photos", type=int, default=60)
    ap.add_argument("--seed", type=int, default=99)
    args = ap.parse_args()
    import cv2

    from vision.dice import DiceReader, DiceSettings

    import numpy as np

    from vision.render_distractors import marks_photos

    cv2.setNumThreads(1)
    photos = marks_photos(args.photos, np.random.default_rng(args.seed))
    for cls in args.classifier:
        settings = DiceSettings()
        if cls != "shipped":
            if not pathlib.Path(cls).is_file():
                print(f"no classifier at {cls}", file=sys.stderr)
                return 2
            settings.photo_classifier = cls
        reader = DiceReader(None, settings)
        counts = [len(reader.read(img)) for img in photos]
        print(f"{cls}: {sum(counts)} false dice on {len(photos)} photos of {6 * len(photos)} marks "
              f"({sum(c > 0 for c in counts)} photos with any)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

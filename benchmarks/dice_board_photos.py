"""The real board photos read as free photos: dice found, wrong values and false dice.

`companion dice BOARD.jpg` reads a board photo without registration, as any photo: checkers,
their printed icons, the maker's text and printed scales must not be read as dice. This reads
each photo of ``../shared/data/boards`` as it is and enlarged 2x and 3x (a closer or sharper
camera) with the free-photo reader, scores it against the labelled dice (a reading counts for a
labelled die within ``--reach`` pixels of the photo at 1x) and prints per photo what it read.

    python benchmarks/dice_board_photos.py [--classifier PATH] [--scales 1 2 3]

``--classifier`` reads with another free-photo classifier (an experiment's ONNX file) in place of
``vision/models/dice_classifier_photo.onnx``. Exit code 2 when the board data is missing.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def score(truth: list[tuple[int, float, float]], read: list[tuple[int, float, float]],
          reach: float) -> tuple[int, int, int]:
    """(found, wrong values, false dice): each labelled die ``(value, x, y)`` takes the nearest
    unused reading within ``reach`` pixels; readings left over are false dice."""
    used: set[int] = set()
    found = wrong = 0
    for v, x, y in truth:
        best, dist = None, reach
        for k, (_, rx, ry) in enumerate(read):
            d = ((rx - x) ** 2 + (ry - y) ** 2) ** 0.5
            if k not in used and d <= dist:
                best, dist = k, d
        if best is not None:
            used.add(best)
            found += 1
            wrong += read[best][0] != v
    return found, wrong, len(read) - len(used)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=pathlib.Path, default=ROOT.parent / "shared" / "data" / "boards")
    ap.add_argument("--classifier", type=pathlib.Path, default=None,
                    help="free-photo classifier ONNX to read with (default: the shipped one)")
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--reach", type=float, default=25.0,
                    help="a reading counts for a labelled die within this many pixels of the photo at 1x")
    args = ap.parse_args()
    import cv2

    from vision.dice import DiceReader, DiceSettings

    if not (args.boards / "images").is_dir():
        print(f"no board photos in {args.boards}/images", file=sys.stderr)
        return 2
    settings = DiceSettings()
    if args.classifier is not None:
        settings.photo_classifier = str(args.classifier)
    reader = DiceReader(None, settings)
    totals = {f: [0, 0, 0, 0, 0] for f in args.scales}  # labelled, found, wrong, false, exact photos
    n = 0  # photos read
    for path in sorted((args.boards / "images").iterdir()):
        label = json.loads((args.boards / "labels" / f"{path.stem}.json").read_text())
        truth = [(int(d["value"]), float(d["xy"][0]), float(d["xy"][1])) for d in label.get("dice", [])]
        img = cv2.imread(str(path))
        if img is None:
            print(f"{path.name}: unreadable, skipped", file=sys.stderr)
            continue
        n += 1
        row = []
        for f in args.scales:
            im = img if f == 1 else cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC)
            read = [(d.value, d.center[0] / f, d.center[1] / f) for d in reader.read(im)]
            found, wrong, false = score(truth, read, args.reach)
            exact = found == len(truth) and wrong == 0 and false == 0
            t = totals[f]
            t[0] += len(truth); t[1] += found; t[2] += wrong; t[3] += false; t[4] += exact
            row.append(f"{f}x {sorted(v for v, _, _ in read)}{'' if exact else ' X'}")
        print(f"{path.name:22s} truth {sorted(v for v, _, _ in truth)}  " + " | ".join(row))
    for f, (lab, found, wrong, false, exact) in totals.items():
        print(f"{f}x: {exact}/{n} photos exact; dice {found}/{lab} found, {wrong} wrong values, {false} false dice")
    return 0


if __name__ == "__main__":
    sys.exit(main())

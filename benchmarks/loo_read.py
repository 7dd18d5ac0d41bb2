"""Leave-one-photo-out check of the reader's main thresholds on the labelled photos.

For each photo, ``edge_min``, ``colour_floor`` and ``arc_noise_k`` (``vision.checkers.CheckerSettings``)
are chosen on the other photos (fewest misread points, first of a fixed grid on
ties) and the held-out photo is read with them; the held-out figures are printed
next to the defaults' figures on all photos. Registration uses the labelled corners.

    python benchmarks/loo_read.py [--data ../shared/data/boards] [--dice labels]

``--dice labels`` masks the labelled dice out (as the dice plug-in does in ``companion read``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from vision.checkers import CheckerSettings  # noqa: E402
from vision.evaluate import label_dice, label_truth, score  # noqa: E402
from vision.reader import BoardReader, load_image  # noqa: E402
from vision.registration import field_from_corners  # noqa: E402

GRID = [dict(edge_min=e, colour_floor=c, arc_noise_k=q) for e in (6.0, 8.0, 10.0, 12.0) for c in (14.0, 18.0, 22.0, 26.0)
        for q in (0.0, 3.0, 4.0)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=pathlib.Path, default=ROOT.parent / "shared" / "data" / "boards")
    ap.add_argument("--dice", choices=["none", "labels"], default="none",
                    help="labels: mask the labelled dice out of the checker evidence")
    args = ap.parse_args()
    data = args.data if (args.data / "labels").is_dir() else ROOT.parent.parent / "shared" / "data" / "boards"
    photos = []
    for path in sorted((data / "labels").glob("*.json")):
        label = json.loads(path.read_text())
        photos.append((path.stem, load_image(data / label["file"]), label_truth(label), label))
    err = np.zeros((len(GRID), len(photos)), int)
    ok = np.zeros((len(GRID), len(photos)), int)
    for gi, kv in enumerate(GRID):
        settings = dataclasses.replace(CheckerSettings(), **kv)
        for pi, (_, image, truth, label) in enumerate(photos):
            h, w = image.shape[:2]
            reader = BoardReader(field=field_from_corners(truth["corners"], (w, h)), settings=settings)
            if args.dice == "labels":
                reader.dice_reader = lambda img, fld, _label=label: label_dice(_label, fld)
            s = score(reader.read(image).to_dict(), truth)
            err[gi, pi], ok[gi, pi] = s["points"] - s["point_ok"], s["board_ok"]
    total = sum(24 - len(t["occluded"]) for _, _, t, _ in photos)
    held_err = held_ok = 0
    for pi, (name, _, _, _) in enumerate(photos):
        gi = int(np.argmin(err.sum(axis=1) - err[:, pi]))
        held_err += err[gi, pi]
        held_ok += ok[gi, pi]
        print(f"{name:14s} chosen on the others: {GRID[gi]}  held-out misreads: {err[gi, pi]}")
    dflt = CheckerSettings()
    d = GRID.index(dict(edge_min=dflt.edge_min, colour_floor=dflt.colour_floor, arc_noise_k=dflt.arc_noise_k))
    print(f"leave-one-photo-out: points right {total - held_err}/{total} ({100.0 * (total - held_err) / total:.1f}%), "
          f"boards right {held_ok}/{len(photos)}")
    print(f"defaults on all photos: points right {total - err[d].sum()}/{total}, boards right {ok[d].sum()}/{len(photos)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

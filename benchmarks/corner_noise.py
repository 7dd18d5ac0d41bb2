"""How the reading holds up when the given corners are off.

Each labelled photo is read three times per noise level with every corner moved
by a uniform random offset of up to AMP pixels (per axis, scaled to a 1280-pixel
wide image); prints points right and boards right per level.

    python benchmarks/corner_noise.py [--levels 0 5 10 20] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from vision.evaluate import label_truth, score  # noqa: E402
from vision.reader import BoardReader, load_image  # noqa: E402
from vision.registration import field_from_corners  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=pathlib.Path, default=ROOT.parent / "shared" / "data" / "boards")
    ap.add_argument("--levels", type=float, nargs="+", default=[0.0, 5.0, 10.0, 20.0])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    data = args.data if (args.data / "labels").is_dir() else ROOT.parent.parent / "shared" / "data" / "boards"
    photos = [(json.loads(p.read_text())) for p in sorted((data / "labels").glob("*.json"))]
    images = [load_image(data / label["file"]) for label in photos]
    for amp in args.levels:
        rng = np.random.default_rng(args.seed)
        right = total = boards = reads = 0
        for label, image in zip(photos, images):
            truth = label_truth(label)
            h, w = image.shape[:2]
            for _ in range(3):
                corners = truth["corners"] + rng.uniform(-amp, amp, (4, 2)) * max(w, h) / 1280
                s = score(BoardReader(field=field_from_corners(corners, (w, h))).read(image).to_dict(), truth)
                right += s["point_ok"]
                total += s["points"]
                boards += s["board_ok"]
                reads += 1
        print(f"corners off by up to {amp:4.1f} px: points right {right}/{total} ({100.0 * right / total:.1f}%), "
              f"boards right {boards}/{reads}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

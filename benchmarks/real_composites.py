"""The point network on positions composed from real board photos: ``python
benchmarks/real_composites.py [--data DIR] [--crops 600] [--seed 5] [--model ONNX] [--adapt]
[--rendered N] [--json OUT]``.

Each labelled real photo of ``--data`` (default ``../shared/data/boards``) is registered from its
labelled corners and cut into its own parts as calibration cuts a board
(:func:`vision.board_learning.cut_parts`, given the labelled position instead of the opening):
its empty points, its bar when nothing lies on it, and each checker set's checkers from the
places of their stacks; points a hand covers (and their neighbours), points under a labelled die
or the cube, and points holding more than a line are left out. :func:`vision.board_learning.compose`
then lays those parts out as ``--crops`` point crops of other positions of that very board
(stacks of 0-15 in a line, squeezed or two high, on the bar, other light, hands and dice over
them), which the point network reads (the shipped one, or ``--model`` with its head beside it;
no photo, real or composed, is in the shipped network's training data). ``--adapt`` also adapts
the network to each board as ``companion calibrate`` would
(:func:`vision.board_learning.adapt_to_parts`, on compositions of another seed) and reads the
same crops with the adapted head. Prints, per photo, the crops whose count (0-15, or hidden
under a hand) is read right (``network``: as given, ``adapted``: adapted to that board), by kind
of crop; a photo whose label holds no checker (an empty board) is listed as such.

What the figures measure: a board's real texture, light and checkers in many more positions
than its photo shows, and the cut-and-paste itself. Pasted checkers carry the point they were
cut from and are cut on the line's places, so a stack whose checkers lie off them gives patches
cut through two checkers; a hand or a cup beside a point labelled readable gives "empty" points
that are partly covered. Compositions of rendered boards (whose boards the network reads right)
(``--rendered N``: random colours, camera and light, composed alike from seed ``--seed`` on)
are read at about 93% (benchmarks/RESULTS.md), so these figures are lower bounds and compare
networks or calibration on one board, not a board reading's accuracy.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
from typing import Any, Optional

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

#: Kinds of crops the figures are split by: (name, test on the label).
KINDS = (("empty", lambda y: y == 0), ("1-5", lambda y: 1 <= y <= 5), ("6-15", lambda y: 6 <= y <= 15),
         ("hidden", lambda y: y > 15))


def photo_parts(image: np.ndarray, label: dict[str, Any]) -> Optional[Any]:
    """The :class:`vision.board_learning.BoardParts` of one labelled photo (``image`` (H, W, 3)
    uint8 BGR, ``label`` its JSON label, ``../shared/data/boards/README.md``), or None when the
    label holds no checker. Raises ``vision.registration.RegistrationError`` for corners that
    do not register."""
    from vision.board_learning import cut_parts
    from vision.evaluate import label_truth
    from vision.point_crops import CROP_HEIGHT, CROP_SCALE, bar_crops, point_crops, points_under
    from vision.registration import FIELD_WIDTH, field_from_corners

    truth = label_truth(label)
    field = field_from_corners(truth["corners"], (image.shape[1], image.shape[0]))
    counts = {p: (n, "near" if c == "light" else "far") for p, (n, c) in enumerate(truth["points"], start=1) if n}
    if not counts:
        return None
    per_line = int(CROP_HEIGHT // (field.checker_size[1] * CROP_SCALE))
    skip = set()
    for p in truth["occluded"]:  # a hand over a point reaches its neighbours in the row
        skip |= {q for q in (p - 1, p, p + 1) if (q - 1) // 12 == (p - 1) // 12}
    skip |= {p for p, (n, _) in counts.items() if n > per_line}
    corners = truth["corners"]
    px_per_unit = float(np.linalg.norm(corners[1] - corners[0])) / FIELD_WIDTH
    side = 0.8 * field.checker_size[0] * px_per_unit
    objects = [d["xy"] for d in label.get("dice") or []] + ([label["cube"]["xy"]] if (label.get("cube") or {}).get("xy") else [])
    under = points_under(field, [(x - side / 2, y - side / 2, x + side / 2, y + side / 2) for x, y in objects])
    skip |= {p for p in under if p != "bar"}
    bar = bar_crops(image, field)
    if sum(truth["bar"].values()) or "bar" in under:
        bar = bar[:0]
    return cut_parts(point_crops(image, field), bar, field.checker_size, counts, frozenset(skip))


def rendered_parts(seed: int) -> Any:
    """The :class:`vision.board_learning.BoardParts` of a rendered board of random colours under a
    random camera and light (``benchmarks/calibration_openings.py``'s ``random_board``) showing a
    random position of stacks up to five, drawn from ``seed``; None when it lacks a set or an
    empty point."""
    from calibration_openings import random_board

    from vision.board_learning import cut_parts
    from vision.point_crops import bar_crops, point_crops
    from vision.registration import field_from_corners
    from vision.render_board import random_state, render_board

    rng = np.random.default_rng(seed)
    style, pose, lighting = random_board(rng, f"random{seed}")
    state = random_state(rng, max_stack=5, bar_prob=0.0)
    r = render_board(state, style, pose, lighting, seed=seed, jitter=float(rng.uniform(0, 0.05)))
    field = field_from_corners(r.corners, pose.image_size)
    counts = {p: (n, "near" if c == "light" else "far") for p, (n, c) in enumerate(state.points, start=1) if n}
    parts = cut_parts(point_crops(r.image, field), bar_crops(r.image, field), field.checker_size, counts)
    return parts if parts.checkers["near"] and parts.checkers["far"] and len(parts.empty) else None


def read_right(head: Any, features: np.ndarray, labels: np.ndarray) -> dict[str, list[int]]:
    """Per kind of crop (:data:`KINDS`) and ``all``: [read right, crops]."""
    got = head.logits(features).argmax(1)
    out = {name: [int((got[m] == labels[m]).sum()), int(m.sum())]
           for name, test in KINDS for m in [np.array([test(int(y)) for y in labels], bool)]}
    out["all"] = [int((got == labels).sum()), len(labels)]
    return out


def figures(row: dict[str, Any]) -> str:
    """One board's figures as a line: per network, crops read right in all and by kind."""
    out = []
    for which in ("network", "adapted"):
        if which in row:
            r = row[which]
            out.append(f"{which} {r['all'][0]}/{r['all'][1]} (" + ", ".join(
                f"{k} {r[k][0]}/{r[k][1]}" for k, _ in KINDS if r[k][1]) + ")")
    return "; ".join(out)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit code (2 when there is nothing to compose)."""
    import cv2

    from vision.board_learning import adapt_to_parts, compose, crop_features
    from vision.learned_checkers import PointModel
    from vision.registration import RegistrationError

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = pathlib.Path(os.environ.get("COMPANION_SHARED_DATA", ROOT.parent / "shared" / "data")) / "boards"
    ap.add_argument("--data", type=pathlib.Path, default=default, help="labelled board photos (images/, labels/)")
    ap.add_argument("--crops", type=int, default=600, help="composed crops per photo")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--model", type=pathlib.Path, default=None,
                    help="the point network's ONNX file, its head beside it (default the shipped one)")
    ap.add_argument("--adapt", action="store_true", help="also read them with the network adapted to each board")
    ap.add_argument("--rendered", type=int, default=0,
                    help="also compose this many rendered boards of random colours (seeds --seed on)")
    ap.add_argument("--json", type=pathlib.Path, default=None, help="write the figures here")
    args = ap.parse_args(argv)
    labels = sorted((args.data / "labels").glob("*.json"))
    if args.crops < 1 or args.rendered < 0:
        print("error: --crops must be at least 1 and --rendered at least 0", file=sys.stderr)
        return 2
    if not labels and not args.rendered:
        print(f"error: no labelled photos under {args.data} (and no --rendered boards)", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    model = PointModel() if args.model is None else PointModel(args.model)
    def composed(name: str, parts: Any) -> dict[str, Any]:
        xs, ys = compose(parts, args.crops, np.random.default_rng(args.seed))
        feats = crop_features(model, xs)
        row = {"board": name, "checkers": {k: len(v) for k, v in parts.checkers.items()},
               "empty_points": len(parts.empty), "bar": len(parts.bar), "network": read_right(model.shipped_head, feats, ys)}
        if args.adapt:
            head, _, _ = adapt_to_parts(model, parts, seed=args.seed + 1)
            row["adapted"] = read_right(head, feats, ys)
        return row

    rows: dict[str, list[dict[str, Any]]] = {"photos": [], "rendered": []}
    for path in labels:
        label = json.loads(path.read_text())
        image = cv2.imread(str(args.data / label.get("file", "")))
        if image is None:
            print(f"{path.stem}: image unreadable, skipped")
            continue
        try:
            parts = photo_parts(image, label)
        except RegistrationError as exc:
            print(f"{path.stem}: {exc}, skipped")
            continue
        if parts is None:
            print(f"{path.stem}: no checker in its label, nothing to compose")
            continue
        if len(parts.empty) == 0:
            print(f"{path.stem}: no empty point in view, nothing to compose on")
            continue
        row = composed(path.stem, parts)
        rows["photos"].append(row)
        print(f"{path.stem}: {row['checkers']['near']}+{row['checkers']['far']} checkers, "
              f"{row['empty_points']} empty points; " + figures(row), flush=True)
    for seed in range(args.seed, args.seed + args.rendered):
        parts = rendered_parts(seed)
        if parts is not None:
            rows["rendered"].append(composed(f"random{seed}", parts))
    for kind, name in (("photos", "all photos"), ("rendered", f"{len(rows['rendered'])} rendered boards")):
        for which in ("network", "adapted"):
            if rows[kind] and which in rows[kind][0]:
                right = sum(r[which]["all"][0] for r in rows[kind])
                total = sum(r[which]["all"][1] for r in rows[kind])
                print(f"{name}, {which}: {right}/{total} crops read right ({100 * right / max(total, 1):.2f}%)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"command": "python benchmarks/real_composites.py " + " ".join(argv or sys.argv[1:]),
                                         **rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

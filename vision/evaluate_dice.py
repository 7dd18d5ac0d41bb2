"""Evaluate the dice reader: ``python -m vision.evaluate_dice [--fold K] [--models DIR] [--json OUT]``.

On the labelled real photographs (``../shared/data/dice``, every dataset folder) it reports per
dataset and per face:

- **found**: labelled dice matched by a reading (centre within half the die's side), over all
  labelled dice; **missed** the rest;
- **value accuracy**: matched dice whose value is right, over matched dice;
- **false dice**: readings matching no labelled die, over labelled dice;
- **cocked**: flat real dice called cocked by the tilt test (must be 0);
- the median time per photo in milliseconds (one core).

With ``--fold K`` only images of held-out fold K are scored (train with
``python -m vision.training.train_dice --fold K`` first) so the figures are held-out. The shipped
free-photo detector and classifier are trained on every labelled photo; ``--fold 0 --held-out``
reads with their copies trained without fold 0 (``vision/models/heldout/``), the same recipe.
``--rendered N`` also scores cocked-dice detection on N rendered boards (:mod:`vision.render_dice`),
and the flat rolls read exactly per board style and per kind of dice (dice of every size:
``benchmarks/dice_sizes.py``).
``--dice-kind-out ROOT`` reads rendered boards of each kind of dice with networks trained without
that kind (``ROOT/KIND``) and with it (:mod:`vision.evaluate_dice_kinds`; ``--rendered N`` boards
per kind, default 100).
``--label-corrections benchmarks/dice_label_corrections.json`` scores against the labels with the
mistakes seen in the photos corrected (:mod:`vision.label_corrections`; default: as labelled).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import time
from typing import Any, Optional, Sequence

import numpy as np

from vision.dice_data import DatasetError, LabelledImage, default_dice_root, iter_datasets
from vision.label_corrections import load_label_corrections, with_corrections
from vision.model_folds import trained_folds


def match(pred_centers: np.ndarray, gt_centers: np.ndarray, gt_sizes: np.ndarray,
          radius: float = 0.5) -> list[tuple[int, int]]:
    """Greedy one-to-one matching by distance: pairs ``(pred_index, gt_index)`` whose centres are
    closer than ``radius`` times the labelled die's side. Arrays are (N, 2) / (M, 2) / (M,)."""
    pairs = []
    if len(pred_centers) == 0 or len(gt_centers) == 0:
        return pairs
    d = np.linalg.norm(pred_centers[:, None, :] - gt_centers[None, :, :], axis=2)
    ok = d < radius * gt_sizes[None, :]
    order = np.argsort(d, axis=None)
    used_p, used_g = set(), set()
    for flat in order:
        i, j = divmod(int(flat), d.shape[1])
        if not ok[i, j]:
            break
        if i in used_p or j in used_g:
            continue
        used_p.add(i); used_g.add(j)
        pairs.append((i, j))
    return pairs


class Tally:
    """Counts for one group of dice (a dataset or a face)."""

    def __init__(self) -> None:
        self.labelled = 0
        self.found = 0
        self.correct = 0
        self.false = 0
        self.cocked = 0
        self.confusions: dict[str, int] = {}

    def as_dict(self) -> dict[str, Any]:
        """Counts and ratios (ratios None when undefined)."""
        return {
            "labelled": self.labelled, "found": self.found, "missed": self.labelled - self.found,
            "correct": self.correct, "false_dice": self.false, "flat_called_cocked": self.cocked,
            "found_rate": self.found / self.labelled if self.labelled else None,
            "value_accuracy": self.correct / self.found if self.found else None,
            "false_rate": self.false / self.labelled if self.labelled else None,
            "confusions": dict(sorted(self.confusions.items())),
        }


#: The models folder's subfolder with copies of the free-photo models trained without fold 0.
HELD_OUT = "heldout"


def use_held_out(settings: Any) -> Any:
    """``settings`` (:class:`vision.dice.DiceSettings`, changed in place and returned) reading free
    photos with the copies of the detector and the classifier (``photo_classifier``) trained
    without fold 0 (:data:`HELD_OUT`)."""
    settings.detector = f"{HELD_OUT}/dice_detector.onnx"
    settings.photo_classifier = f"{HELD_OUT}/dice_classifier_photo.onnx"
    return settings


def not_held_out(reader: Any, fold: Optional[int]) -> list[str]:
    """The model files of ``reader`` (:class:`vision.dice.DiceReader`) that were trained on photos
    of ``fold`` (:func:`trained_folds`), so the figures on that fold are not held out; all models
    with a manifest entry when ``fold`` is None (every photo is scored)."""
    st = reader.settings
    used = [st.detector, "dice_classifier.onnx", st.field_detector, st.photo_classifier,
            "dice_tilt.onnx"]
    folds = trained_folds(reader.models_dir)
    return [name for name in dict.fromkeys(n for n in used if n)
            if name in folds and (fold is None or fold in folds[name])]


def evaluate_real(images: Sequence[LabelledImage], reader, fold: int | None, limit: int | None = None) -> dict[str, Any]:
    """Score ``reader`` on labelled photos (only fold ``fold`` when given); see module docstring."""
    import cv2

    from vision.cocked import TILT_THRESHOLD, TiltModel, tilt_score

    try:
        tilt = TiltModel(reader.models_dir)
    except FileNotFoundError:
        tilt = None

    total, faces = Tally(), {v: Tally() for v in range(1, 7)}
    times = []
    worst: list[tuple[str, str]] = []
    if fold is not None:
        images = [it for it in images if it.fold() == fold]
    if limit:
        images = images[:: max(len(images) // limit, 1)][:limit]
    for item in images:
        img = cv2.imread(str(item.path))
        t0 = time.perf_counter()
        dice = reader.read(img)
        times.append((time.perf_counter() - t0) * 1000)
        pc = np.array([d.center for d in dice], dtype=np.float64).reshape(-1, 2)
        sizes = np.maximum(item.boxes[:, 2] - item.boxes[:, 0], item.boxes[:, 3] - item.boxes[:, 1])
        pairs = match(pc, item.centers, sizes)
        matched_p = {i for i, _ in pairs}
        matched_g = {j for _, j in pairs}
        total.labelled += len(item.values)
        for j, v in enumerate(item.values.tolist()):
            faces[v].labelled += 1
            if j not in matched_g:
                worst.append((item.path.name, f"missed {v} at {item.centers[j].round().tolist()}"))
        for i, j in pairs:
            v = int(item.values[j])
            got = dice[i].value
            for t in (total, faces[v]):
                t.found += 1
                t.correct += got == v
                if got != v:
                    t.confusions[f"{v}->{got}"] = t.confusions.get(f"{v}->{got}", 0) + 1
            if got != v:
                worst.append((item.path.name, f"read {v} as {got} ({dice[i].confidence:.2f})"))
            if tilt is not None and tilt_score(img, dice[i], None, tilt) > TILT_THRESHOLD:
                total.cocked += 1
                faces[v].cocked += 1
        for i, d in enumerate(dice):
            if i not in matched_p:
                total.false += 1
                worst.append((item.path.name, f"false die {d.value} at {[round(c) for c in d.center]} ({d.confidence:.2f})"))
    out = total.as_dict()
    out["per_face"] = {str(v): t.as_dict() for v, t in faces.items()}
    out["images"] = len(times)
    out["median_ms"] = statistics.median(times) if times else None
    out["errors"] = [f"{a}: {b}" for a, b in worst]
    return out


def evaluate_boards(boards_dir: pathlib.Path, reader) -> dict[str, Any]:
    """Dice and cube on the hand-labelled real board photos (``shared/data/boards``), each registered
    from its labelled corners and judged as ``companion read`` judges them
    (:func:`vision.cocked.judge_scan`): dice found / value right, flat dice called cocked (the
    roller is not labelled, so only place and tilt are judged), cube found / value / place."""
    import json as _json

    import cv2

    from vision.cocked import TiltModel, judge_scan
    from vision.cube import CubeReader, cube_from_scan
    from vision.registration import field_from_corners

    try:
        tilt = TiltModel(reader.models_dir)
    except FileNotFoundError:
        tilt = None
    try:
        cube_reader = CubeReader(reader.models_dir)
    except FileNotFoundError:
        cube_reader = None
    res = {"photos": 0, "dice": 0, "found": 0, "correct": 0, "false_dice": 0, "flat_called_cocked": 0,
           "cubes": 0, "cube_found": 0, "cube_value": 0, "cube_place": 0, "details": []}
    for label_path in sorted((boards_dir / "labels").glob("*.json")):
        lab = _json.loads(label_path.read_text())
        img_path = next((p for p in (boards_dir / "images").glob(label_path.stem + ".*")), None)
        if img_path is None or "corners" not in lab:
            continue
        img = cv2.imread(str(img_path))
        c = lab["corners"]
        corners = np.array([c["top_left"], c["top_right"], c["bottom_right"], c["bottom_left"]], float)
        field = field_from_corners(corners, (img.shape[1], img.shape[0]), validate=False)
        cands, probs = reader.scan(img, field)
        dice = judge_scan(img, cands, probs, reader, field, tilt_model=tilt)
        truth = lab.get("dice") or []
        res["photos"] += 1
        res["dice"] += len(truth)
        gc = np.array([t["xy"] for t in truth], float).reshape(-1, 2)
        pc = np.array([d.center for d in dice], float).reshape(-1, 2)
        die_px = (np.linalg.norm(corners[1] - corners[0]) + np.linalg.norm(corners[2] - corners[3])) / 2 / 30
        pairs = match(pc, gc, np.full(len(gc), die_px), radius=0.6)
        res["found"] += len(pairs)
        res["false_dice"] += len(dice) - len(pairs)
        for i, j in pairs:
            res["correct"] += dice[i].value == truth[j]["value"]
            res["flat_called_cocked"] += bool(truth[j].get("flat", True) and dice[i].cocked)
        cube = None if cube_reader is None else cube_from_scan(img, cands, probs, field, cube_reader, reader)
        note = {"photo": img_path.name, "truth": [t["value"] for t in truth],
                "read": [(d.value, round(d.confidence, 2), d.reason) for d in dice],
                "cube_truth": (lab.get("cube") or {}).get("value"),
                "cube_read": None if cube is None else (cube.value, cube.place, round(cube.confidence, 2))}
        if lab.get("cube"):
            res["cubes"] += 1
            t = lab["cube"]
            if cube is not None and np.hypot(*(np.array(cube.center) - t["xy"])) < 1.5 * die_px:
                res["cube_found"] += 1
                res["cube_value"] += cube.value == t["value"]
                if t.get("centered"):  # only centred cubes have a labelled place
                    res["cube_place"] += cube.place == "centre"
        res["details"].append(note)
    return res


def _fmt(x: float | None) -> str:
    return "  n/a " if x is None else f"{100 * x:6.2f}%"


def print_report(name: str, res: dict[str, Any], errors: int) -> None:
    """Print one dataset's table."""
    print(f"== {name}: {res['images']} images, {res['labelled']} dice, median {res['median_ms']:.1f} ms/photo")
    print(f"   {'face':>5} {'dice':>5} {'found':>8} {'value':>8} {'false':>8} {'cocked':>6}")
    rows = [("all", res)] + [(f, r) for f, r in res["per_face"].items()]
    for label, r in rows:
        print(f"   {label:>5} {r['labelled']:5d} {_fmt(r['found_rate'])} {_fmt(r['value_accuracy'])} "
              f"{_fmt(r['false_rate']) if label == 'all' else '     - '} {r['flat_called_cocked']:6d}")
    if res["confusions"]:
        print("   confusions (true->read):", res["confusions"])
    for e in res["errors"][:errors]:
        print("   ", e)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point; returns the exit code."""
    ap = argparse.ArgumentParser(prog="python -m vision.evaluate_dice", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=pathlib.Path, default=None, help="dice dataset root (default shared/data/dice)")
    ap.add_argument("--models", type=pathlib.Path, default=None, help="folder with the ONNX models")
    ap.add_argument("--fold", type=int, default=None, help="score only held-out fold K (0 or 1)")
    ap.add_argument("--dataset", default=None, help="score only this dataset folder")
    ap.add_argument("--limit", type=int, default=None, help="score at most N photos per dataset (spread out)")
    ap.add_argument("--boards", action="store_true", help="also score the labelled real board photos")
    ap.add_argument("--rendered", type=int, default=0, help="also score cocked dice on N rendered boards")
    ap.add_argument("--dice-kind-out", type=pathlib.Path, default=None, metavar="ROOT",
                    help="leave-one-dice-kind-out: ROOT/KIND holds networks trained without that kind of dice "
                         "(train_dice --without-dice-kind KIND); reads rendered boards of each kind")
    ap.add_argument("--errors", type=int, default=10, help="list this many errors per dataset")
    ap.add_argument("--json", type=pathlib.Path, default=None, help="write the figures here")
    ap.add_argument("--field-detector", default=None, metavar="FILE",
                    help="detector for registered boards (DiceSettings.field_detector, default "
                         "dice_detector_field.onnx; 'none': the main detector, with --field-die-px 12)")
    ap.add_argument("--field-die-px", type=float, default=None, metavar="PX",
                    help="with a registered board, run the detector where a die is PX pixels "
                         "(DiceSettings.field_die_input_px; a field detector trained for smaller dice)")
    ap.add_argument("--photo-classifier", default=None, metavar="FILE",
                    help="value classifier for free photos (DiceSettings.photo_classifier), a file in the models "
                         "folder")
    ap.add_argument("--detector", default=None, metavar="FILE",
                    help="detector for free photos (DiceSettings.detector), a file in the models folder")
    ap.add_argument("--label-corrections", type=pathlib.Path, default=None, metavar="FILE",
                    help="score against the labels with these corrections (JSON, see vision/label_corrections.py; "
                         "benchmarks/dice_label_corrections.json lists the mistakes seen in the photos)")
    ap.add_argument("--held-out", action="store_true",
                    help=f"read free photos with the models' copies trained without fold 0 ({HELD_OUT}/ in the "
                         "models folder; the shipped ones saw every photo); use with --fold 0")
    args = ap.parse_args(argv)
    import cv2

    from vision.dice import DiceReader

    cv2.setNumThreads(1)
    if args.dice_kind_out is not None:
        from vision.evaluate_dice_kinds import evaluate_dice_kinds, print_dice_kinds

        try:
            kinds = evaluate_dice_kinds(args.dice_kind_out, args.rendered or 100)
        except (FileNotFoundError, ValueError) as e:
            print(f"evaluate_dice: error: {e}", file=sys.stderr)
            return 2
        print_dice_kinds(kinds)
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps({"dice_kind_out": kinds}, indent=1))
        return 0
    root = args.data or default_dice_root()
    if not root.is_dir():
        print(f"evaluate_dice: error: no dice data at {root}", file=sys.stderr)
        return 2
    from vision.dice import DiceSettings

    settings = DiceSettings()
    if args.field_detector is not None:
        settings.field_detector = None if args.field_detector.lower() == "none" else args.field_detector
    if args.field_die_px is not None:
        if not 4 <= args.field_die_px <= 64:
            print(f"evaluate_dice: error: --field-die-px must be 4..64 pixels, got {args.field_die_px}", file=sys.stderr)
            return 2
        settings.field_die_input_px = args.field_die_px
    if args.held_out:
        use_held_out(settings)
    if args.photo_classifier:
        settings.photo_classifier = args.photo_classifier
    if args.detector:
        settings.detector = args.detector
    try:
        reader = DiceReader(args.models, settings)
        seen = not_held_out(reader, args.fold)
    except (FileNotFoundError, ValueError) as e:
        print(f"evaluate_dice: error: {e}", file=sys.stderr)
        return 2
    corrections = []
    if args.label_corrections is not None:
        try:
            corrections = load_label_corrections(args.label_corrections)
        except DatasetError as e:
            print(f"evaluate_dice: error: {e}", file=sys.stderr)
            return 2
    results: dict[str, Any] = {"fold": args.fold, "models": str(args.models or "vision/models"), "datasets": {},
                               "not_held_out": seen,
                               "label_corrections": str(args.label_corrections) if corrections else None}
    if seen:
        print(f"note: {', '.join(seen)} trained on "
              f"{'these photos' if args.fold is None else f'fold {args.fold}'} too: not held-out figures "
              f"(see vision/models/training.json)")
    for name, images in iter_datasets(root):
        if args.dataset and name != args.dataset:
            continue
        if corrections:
            try:
                images, applied = with_corrections([it for it in images if args.fold is None or it.fold() == args.fold],
                                                   corrections)
            except DatasetError as e:
                print(f"evaluate_dice: error: {e}", file=sys.stderr)
                return 2
            print(f"{name}: scored against the labels with {applied} correction(s) from {args.label_corrections}")
        res = evaluate_real(images, reader, args.fold, args.limit)
        results["datasets"][name] = res
        print_report(name, res, args.errors)
    if args.boards:
        r = results["real_boards"] = evaluate_boards(root.parent / "boards", reader)
        print(f"== real board photos: {r['photos']} photos, {r['dice']} dice: found {r['found']}, value right "
              f"{r['correct']}, false dice {r['false_dice']}, flat called cocked {r['flat_called_cocked']}; "
              f"cubes {r['cubes']}: found {r['cube_found']}, value right {r['cube_value']}, "
              f"centred ones read as centre {r['cube_place']}")
        for d in r["details"]:
            print("   ", d)
    if args.rendered:
        from vision.render_roll import evaluate_cocked_rendered

        results["rendered_cocked"] = evaluate_cocked_rendered(args.rendered, reader)
        results["rendered_cocked_small_tilts"] = evaluate_cocked_rendered(
            args.rendered, reader, seed=99, kinds=("tilted",), tilt_range=(3.0, 8.0))
        r = results["rendered_cocked"]
        print(f"== rendered boards: {r['boards']} boards, {r['dice']} dice ({r['cocked']} cocked): "
              f"cocked recall {_fmt(r['recall'])}, precision {_fmt(r['precision'])}, "
              f"value accuracy {_fmt(r['value_accuracy'])}, found {_fmt(r['found_rate'])}")
        for reason, rr in r["per_reason"].items():
            what = "called cocked" if reason.startswith("flat") else "caught"
            print(f"   {reason:>16}: {rr['caught']}/{rr['total']} {what} ({rr['found']} found)")
        print(f"   tilted by angle (total, caught): {r['tilt_bins_total_caught']}")
        ro = r["rolls"]
        print(f"   rolls (the referee's verdict: a die called cocked or only one die seen): cocked rolls caught "
              f"{ro['caught']}/{ro['cocked']} ({ro['caught_by_die_not_seen']} by the die not seen), recall "
              f"{_fmt(ro['recall'])}, precision {_fmt(ro['precision'])}; flat rolls called cocked "
              f"{ro['flat_called_cocked']}/{ro['flat']}; flat rolls read exactly {ro['flat_exact']}/{ro['flat']}")
        for key, rows in sorted(r["flat_exact_by"].items()):
            print(f"   flat rolls read exactly per {key.replace('_', ' ')}: "
                  + ", ".join(f"{name} {e}/{n}" for name, (e, n) in sorted(rows.items())))
        c = r["cube"]
        print(f"   cube: {c['found']}/{c['boards_with_cube']} found, value right {c['value_correct']}, place right "
              f"{c['place_correct']}, false cubes {c['false_cubes']}/{c['boards_without_cube']} boards without one")
        s2 = results["rendered_cocked_small_tilts"]
        print(f"== small tilts (3-8 degrees, not in the target): recall {_fmt(s2['recall'])}, precision {_fmt(s2['precision'])}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        for res in results["datasets"].values():
            res["errors"] = res["errors"][:50]
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

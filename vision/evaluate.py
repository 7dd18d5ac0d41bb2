"""Evaluate the board reader on labelled photos (or rendered boards).

    python -m vision.evaluate [--data ../shared/data/boards] [--mode corners|auto]
                              [--csv benchmarks/results/board_eval.csv] [--pictures DIR]
    python -m vision.evaluate --synthetic 60 [--seed 1] [--synthetic-dice]
    ... [--dice none|labels|model]

Real photos: ``DATA/labels/<name>.json`` beside ``DATA/images/`` (the labels'
format is described in ``../shared/data/boards/README.md``: per point counts and
colour letters in image layout). ``--mode corners`` registers with the labelled
corners (the reading stage alone); ``--mode auto`` finds the board itself.
Synthetic: random positions drawn by :mod:`vision.render_board` in every style,
camera pose, lighting and stacking mode, with their ground truth.

Dice: ``--dice labels`` hands the reader the labelled dice (a box around each
label's centre, 0.6 of a checker wide; for rendered boards the drawn dice's boxes)
as a dice plug-in would, so the masking of dice out of the checker evidence is
measured apart from the dice detector; ``--dice model`` runs the dice engineer's
:class:`vision.dice_plugin.DicePlugin` (its models in ``vision/models``).
``--synthetic-dice`` draws two flat dice on every rendered board (on empty
points, on checkers, on the bar's edge or anywhere on the field).

Prints layered accuracy, as chesscog does: whole board exactly right (every
readable point's count and colour, and the bar), per point (count; count and
colour), the bar, occlusion (unreadable points found / labelled), and per-stage
timings; writes one CSV row per image, and for every image with a misread an
annotated picture (``--pictures``) showing what was read and what was expected.

Colour letters of the labels map to ``light``/``dark`` by lightness: W (white,
ivory) > S (silver) > G (gold) > R (red, burgundy) > B (black); of the two sets on a
board the one earlier in that order is ``light``.
"""

from __future__ import annotations

import argparse
import csv
import json
import pathlib
import sys
import time
from typing import Any, Optional

import numpy as np

LETTER_ORDER = "WSGRB"
ROOT = pathlib.Path(__file__).resolve().parent.parent


def label_truth(label: dict[str, Any]) -> dict[str, Any]:
    """Turn an image-layout label into ``companion read`` terms.

    Returns ``{"points": [(count, colour)] * 24, "bar": {"light", "dark"},
    "occluded": set of points, "corners": (4, 2) array}`` (points 1..24 in order).
    """
    letters = sorted({p["c"] for p in label["top"] + label["bottom"] if p["c"]}, key=LETTER_ORDER.index)
    for k in (label.get("bar_checkers") or {}):
        if k not in letters and k in LETTER_ORDER:
            letters = sorted(set(letters) | {k}, key=LETTER_ORDER.index)
    names = {}
    if letters:
        names[letters[0]] = "light"
    if len(letters) > 1:
        names[letters[1]] = "dark"
    points: list[tuple[int, Optional[str]]] = [(0, None)] * 24
    for i, p in enumerate(label["bottom"]):
        points[12 - i - 1] = (int(p["n"]), names.get(p["c"]) if p["n"] else None)
    for i, p in enumerate(label["top"]):
        points[13 + i - 1] = (int(p["n"]), names.get(p["c"]) if p["n"] else None)
    occluded = set()
    for o in label.get("occluded_points", []):
        row, idx = o.split(":")
        occluded.add(12 - int(idx) if row == "bottom" else 13 + int(idx))
    bar = {"light": 0, "dark": 0}
    for k, v in (label.get("bar_checkers") or {}).items():
        if k in names:
            bar[names[k]] += int(v)
    c = label["corners"]
    corners = np.array([c["top_left"], c["top_right"], c["bottom_right"], c["bottom_left"]], float)
    return {"points": points, "bar": bar, "occluded": occluded, "corners": corners}


def score(obs_dict: dict[str, Any], truth: dict[str, Any]) -> dict[str, Any]:
    """Compare a reading (``Observation.to_dict()``) with the truth from :func:`label_truth`
    (or a renderer's truth turned into the same shape). Unreadable-labelled points are
    not scored. Returns counts of right points, the misreads (``misses``; ``silent_misses``: those
    the reading did not also flag unreadable, the silent wrong answers) and the whole-board
    verdict."""
    scored = [p for p in range(1, 25) if p not in truth["occluded"]]
    count_ok = colour_ok = 0
    misses = []
    for p in scored:
        n, c = truth["points"][p - 1]
        got = obs_dict["points"][p - 1]
        ok_n = got["count"] == n
        ok_c = ok_n and (n == 0 or got["colour"] == c)
        count_ok += ok_n
        colour_ok += ok_c
        if not ok_c:
            misses.append({"point": p, "expected": [n, c], "read": [got["count"], got["colour"]]})
    bar_ok = obs_dict["bar"] == truth["bar"]
    unreadable = set(obs_dict["unreadable_points"])
    return {
        "points": len(scored), "count_ok": count_ok, "point_ok": colour_ok, "bar_ok": bar_ok,
        "board_ok": colour_ok == len(scored) and bar_ok, "misses": misses,
        "silent_misses": sum(m["point"] not in unreadable for m in misses),
        "occluded_found": len(unreadable & truth["occluded"]), "occluded_labelled": len(truth["occluded"]),
        "unreadable_extra": len(unreadable - truth["occluded"]),
    }


def _summary(rows: list[dict[str, Any]], title: str) -> str:
    n = len(rows)
    pts = sum(r["points"] for r in rows)
    lines = [title,
             f"  whole board right (points and bar): {sum(r['board_ok'] for r in rows)}/{n}",
             f"  points right (count and colour):    {sum(r['point_ok'] for r in rows)}/{pts} "
             f"({100.0 * sum(r['point_ok'] for r in rows) / max(pts, 1):.1f}%)",
             f"  point counts right:                 {sum(r['count_ok'] for r in rows)}/{pts} "
             f"({100.0 * sum(r['count_ok'] for r in rows) / max(pts, 1):.1f}%)",
             f"  points misread and not flagged:     {sum(r['silent_misses'] for r in rows)}",
             f"  bar right:                          {sum(r['bar_ok'] for r in rows)}/{n}",
             f"  occluded points found:              {sum(r['occluded_found'] for r in rows)}/"
             f"{sum(r['occluded_labelled'] for r in rows)} (extra unreadable: {sum(r['unreadable_extra'] for r in rows)})"]
    stages: dict[str, list[float]] = {}
    for r in rows:
        for k, v in r["timings"].items():
            stages.setdefault(k, []).append(v)
    if stages:
        lines.append("  timings (median ms): " + ", ".join(f"{k} {np.median(v):.1f}" for k, v in stages.items()
                                                         if "." not in k))
    return "\n".join(lines)


def label_dice(label: dict[str, Any], field: Any) -> list[Any]:
    """The labelled dice of a photo as :class:`~companion.observation.DieReading` with a
    square box 0.6 of a checker wide around each labelled centre (the labels give no box)."""
    from companion.observation import DieReading

    out = []
    cw = field.checker_size[0]
    for d in label.get("dice") or []:
        x, y = (float(v) for v in d["xy"])
        f = field.to_field(np.array([[x, y]]))[0]
        a, b = field.to_image(np.array([[f[0] - cw / 2, f[1]], [f[0] + cw / 2, f[1]]]))
        half = 0.3 * float(np.linalg.norm(b - a))
        out.append(DieReading(int(d["value"]), (x, y), (x - half, y - half, x + half, y + half)))
    return out


def _model_plugin() -> Any:
    from vision.dice_plugin import DicePlugin

    return DicePlugin()


def evaluate_photos(data: pathlib.Path, mode: str, pictures: Optional[pathlib.Path],
                    dice: str = "none", point_model: Any = None) -> list[dict[str, Any]]:
    """Read every labelled photo under ``data``; returns one result row per image.
    ``dice``: ``"none"``, ``"labels"`` (labelled dice as the plug-in's answer) or
    ``"model"`` (:class:`vision.dice_plugin.DicePlugin`); ``point_model``: the learned
    reader's :class:`vision.learned_checkers.PointModel`, or ``None`` for the classical reader."""
    import cv2

    from vision.annotate import annotate
    from vision.reader import BoardReader, load_image
    from vision.registration import RegistrationError, field_from_corners

    rows = []
    for path in sorted((data / "labels").glob("*.json")):
        label = json.loads(path.read_text())
        truth = label_truth(label)
        image = load_image(data / label["file"])
        h, w = image.shape[:2]
        t0 = time.perf_counter()
        try:
            if mode == "corners":
                reader = BoardReader(field=field_from_corners(truth["corners"], (w, h)), point_model=point_model)
            else:
                reader = BoardReader(point_model=point_model)
            if dice == "labels":
                reader.dice_reader = lambda img, fld, _label=label: label_dice(_label, fld)
            elif dice == "model":
                plugin = _model_plugin()
                reader.dice_reader = plugin.dice
            result = reader.read_full(image)
        except RegistrationError as exc:
            rows.append({"image": path.stem, "error": str(exc), "points": 24 - len(truth["occluded"]),
                         "count_ok": 0, "point_ok": 0, "bar_ok": False, "board_ok": False, "misses": [], "silent_misses": 0,
                         "occluded_found": 0, "occluded_labelled": len(truth["occluded"]), "unreadable_extra": 0,
                         "timings": {}, "corner_error_px": None})
            continue
        wall = (time.perf_counter() - t0) * 1e3
        obs = result.observation.to_dict()
        row = score(obs, truth)
        row["image"] = path.stem
        row["error"] = ""
        row["timings"] = dict(obs["timings_ms"], wall=wall)
        from vision.registration import image_order_corners

        found = image_order_corners(result.field.corners, result.field.orientation)
        row["corner_error_px"] = float(np.abs(found - truth["corners"]).max())
        rows.append(row)
        if pictures is not None and not row["board_ok"]:
            pictures.mkdir(parents=True, exist_ok=True)
            pic = annotate(image, result.field, result.observation, result.checkers, reader.settings.work_scale,
                           expected=truth["points"])
            cv2.imwrite(str(pictures / f"{path.stem}_{mode}.png"), pic)
    return rows


def draw_dice_on_board(rendered: Any, rng: np.random.Generator, n: int = 2) -> list[Any]:
    """Draw ``n`` flat dice on a :class:`~vision.render_board.RenderedBoard` (its image in
    place): each on an empty point's base, on a checker, or anywhere on the field.
    Returns their :class:`~vision.render_dice.RenderedDie` truth (box in image pixels)."""
    from vision.registration import FIELD_HEIGHT, FIELD_WIDTH
    from vision.render_dice import DIE_STYLES, draw_die

    f2i = rendered.field_to_image

    def to_img(x: float, y: float) -> tuple[float, float]:
        p = f2i @ np.array([x, y, 1.0])
        return float(p[0] / p[2]), float(p[1] / p[2])

    a, b = np.array(to_img(FIELD_WIDTH / 2, FIELD_HEIGHT / 2)), np.array(to_img(FIELD_WIDTH / 2 + 10, FIELD_HEIGHT / 2))
    px = float(np.linalg.norm(b - a)) / 10
    die_px = FIELD_WIDTH / 30.0 * float(rng.uniform(0.85, 1.2)) * px
    checkers = [(x, y) for x, y, _, p in rendered.checkers if 1 <= p <= 24]
    empty = [i for i, pt in enumerate(rendered.truth["points"]) if pt["count"] == 0]
    style = DIE_STYLES[int(rng.integers(len(DIE_STYLES)))]
    out = []
    for _ in range(n):
        kind = rng.choice(["empty", "checker", "anywhere"], p=[0.45, 0.25, 0.3])
        if kind == "checker" and checkers:
            x, y = checkers[int(rng.integers(len(checkers)))]
        elif kind == "empty" and empty:
            p = empty[int(rng.integers(len(empty)))] + 1
            # point p's base: bottom row 1..12 right to left, top row 13..24 left to right
            col = (12 - p) if p <= 12 else (p - 13)
            half_w = FIELD_WIDTH * 0.46
            fx = (col + 0.5) / 6 * half_w if col < 6 else FIELD_WIDTH - (12 - col - 0.5) / 6 * half_w
            fy = FIELD_HEIGHT * (0.93 if p <= 12 else 0.07) + float(rng.uniform(-0.03, 0.03)) * FIELD_HEIGHT
            x, y = to_img(fx, fy)
        else:
            x, y = to_img(float(rng.uniform(0.05, 0.95)) * FIELD_WIDTH, float(rng.uniform(0.08, 0.92)) * FIELD_HEIGHT)
        out.append(draw_die(rendered.image, (x, y), die_px, int(rng.integers(1, 7)),
                            yaw_deg=float(rng.uniform(0, 360)), style=style))
    return out


def evaluate_synthetic(n: int, seed: int, pictures: Optional[pathlib.Path], dice: str = "none",
                       draw_dice: bool = False, settings: Optional[Any] = None,
                       point_model: Any = None) -> list[dict[str, Any]]:
    """Render ``n`` random boards (all styles, poses, lighting, stacking, some hands) and read them;
    ``draw_dice``: two dice on each; ``dice``: as :func:`evaluate_photos` (``"labels"``: the drawn boxes);
    ``settings``: a :class:`vision.checkers.CheckerSettings` for the reader (default: its defaults);
    ``point_model``: as in :func:`evaluate_photos`."""
    import cv2

    from vision.annotate import annotate
    from vision.reader import BoardReader
    from vision.registration import field_from_corners
    from vision.render_board import LOW_CONTRAST_STYLES, STYLES, CameraPose, Hand, Lighting, random_state, render_board

    rng = np.random.default_rng(seed)
    known = {**STYLES, **LOW_CONTRAST_STYLES}
    styles = list(known)
    rows = []
    for i in range(n):
        style = styles[i % len(styles)]
        state = random_state(rng, max_stack=6)
        pose = CameraPose.looking_down(scale=float(rng.uniform(0.75, 0.95)), tilt=float(rng.uniform(-0.12, 0.12)),
                                       turn_deg=float(rng.uniform(-4, 4)), aspect=known[style].geometry.aspect,
                                       shift=(float(rng.uniform(-60, 60)), float(rng.uniform(-10, 10))))
        light = Lighting(brightness=float(rng.uniform(0.8, 1.15)), gradient=float(rng.uniform(0, 0.35)),
                         gradient_deg=float(rng.uniform(0, 360)), blur=float(rng.uniform(0, 1.2)),
                         noise=float(rng.uniform(0, 5)), jpeg=int(rng.choice([0, 85, 70])))
        hands = [Hand(at=(float(rng.uniform(0.1, 0.9)), float(rng.choice([0.12, 0.88]))),
                      from_edge="bottom" if rng.random() < 0.5 else "top")] if rng.random() < 0.2 else []
        r = render_board(state, style, pose, light, hands, seed=i)
        truth = {"points": [(p["count"], p["colour"]) for p in r.truth["points"]], "bar": r.truth["bar"],
                 "occluded": set(r.truth["unreadable_points"]), "corners": r.corners}
        field = field_from_corners(r.corners, pose.image_size)
        drawn = draw_dice_on_board(r, np.random.default_rng([seed, i, 7])) if draw_dice else []
        reader = BoardReader(field=field, point_model=point_model, **({} if settings is None else {"settings": settings}))
        if dice == "labels":
            from companion.observation import DieReading

            truth_dice = [DieReading(d.value, d.center, d.box) for d in drawn]
            reader.dice_reader = lambda img, fld, _d=truth_dice: _d
        elif dice == "model":
            reader.dice_reader = _model_plugin().dice
        t0 = time.perf_counter()
        result = reader.read_full(r.image)
        wall = (time.perf_counter() - t0) * 1e3
        obs = result.observation.to_dict()
        row = score(obs, truth)
        row.update(image=f"synthetic_{i:03d}_{style}", error="", timings=dict(obs["timings_ms"], wall=wall),
                   corner_error_px=0.0)
        rows.append(row)
        if pictures is not None and not row["board_ok"]:
            pictures.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(pictures / f"{row['image']}.png"),
                        annotate(r.image, field, result.observation, result.checkers, reader.settings.work_scale,
                                 expected=truth["points"]))
    return rows


def _rendered_truth(r: Any) -> dict[str, Any]:
    return {"points": [(p["count"], p["colour"]) for p in r.truth["points"]], "bar": r.truth["bar"],
            "occluded": set(r.truth["unreadable_points"]), "corners": r.corners}


def evaluate_board_out(style_name: str, n: int, seed: int, model: Any,
                       progress: Optional[Any] = None) -> dict[str, list[dict[str, Any]]]:
    """One rendered board style, never seen by the point network, read before and after
    calibration: the style's opening position is rendered under one camera (a random tilt,
    turn and light), the network learns the board from it
    (:func:`vision.board_learning.learn_board`), and ``n`` random positions of that board
    under the same camera (the light changing, a hand now and then) are read with the shipped
    network and with the adapted one. Returns ``{"shipped": rows, "calibrated": rows}``
    (rows as :func:`score`, plus ``image``, ``timings``), and ``"calibration"``: one row
    with the adaptation's figures and what calibration said of it (``said``,
    :func:`vision.board_learning.learned_line`)."""
    from vision.board_learning import learn_board, learned_line
    from vision.reader import BoardReader
    from vision.registration import field_from_corners
    from vision.render_board import (LOW_CONTRAST_STYLES, STYLES, BoardState, CameraPose, Hand, Lighting, random_state,
                                     render_board)
    from vision.checkers import CheckerColours

    style = {**STYLES, **LOW_CONTRAST_STYLES}[style_name]
    rng = np.random.default_rng([seed, sum(map(ord, style_name))])
    pose = CameraPose.looking_down(scale=float(rng.uniform(0.78, 0.92)), tilt=float(rng.uniform(-0.1, 0.1)),
                                   turn_deg=float(rng.uniform(-3, 3)), aspect=style.geometry.aspect)
    base_light = dict(gradient=float(rng.uniform(0, 0.3)), gradient_deg=float(rng.uniform(0, 360)),
                      blur=float(rng.uniform(0, 0.8)), noise=float(rng.uniform(1, 4)), jpeg=85)
    opening = render_board(BoardState.starting(), style, pose, Lighting(**base_light), seed=seed)
    field = field_from_corners(opening.corners, pose.image_size)
    learned = learn_board(opening.image, field, model, progress=progress)
    colours = CheckerColours(learned.light, learned.dark)
    readers = {"shipped": BoardReader(field=field, point_model=model),
               "calibrated": BoardReader(field=field, point_model=model.with_head(learned.head), colours=colours)}
    out: dict[str, list[dict[str, Any]]] = {k: [] for k in readers}
    out["calibration"] = [{"before": learned.before, "after": learned.after, "seconds": learned.seconds,
                           "said": learned_line(learned)}]
    for i in range(n):
        light = Lighting(brightness=float(rng.uniform(0.85, 1.15)), **base_light)
        hands = [Hand(at=(float(rng.uniform(0.1, 0.9)), float(rng.choice([0.12, 0.88]))),
                      from_edge="bottom" if rng.random() < 0.5 else "top")] if rng.random() < 0.15 else []
        r = render_board(random_state(rng, max_stack=7), style, pose, light, hands,
                         stack="two_high" if rng.random() < 0.2 else "overlap", seed=seed * 1000 + i,
                         jitter=float(rng.uniform(0, 0.08)))
        truth = _rendered_truth(r)
        for name, reader in readers.items():
            t0 = time.perf_counter()
            obs = reader.read_full(r.image).observation.to_dict()
            row = score(obs, truth)
            row.update(image=f"{style_name}_{i:03d}", error="", timings=dict(obs["timings_ms"],
                                                                             wall=(time.perf_counter() - t0) * 1e3))
            out[name].append(row)
    return out


def leave_one_board_out(data: pathlib.Path, n: int, seed: int, model: Any) -> int:
    """``--leave-one-board-out``: every board read by a network that never saw it, per board
    and overall: the real photos (each its own board), then each rendered style, before and
    after calibration on that style's opening position; "misread unflagged" counts the points
    read wrong that the reading did not flag unreadable. Prints the tables; returns 0."""
    from vision.render_board import LOW_CONTRAST_STYLES, STYLES

    def line(name: str, rows: list[dict[str, Any]]) -> str:
        pts = sum(r["points"] for r in rows)
        ok = sum(r["point_ok"] for r in rows)
        return (f"  {name:22s} points {ok:4d}/{pts:4d} ({100.0 * ok / max(pts, 1):5.1f}%)  "
                f"boards {sum(r['board_ok'] for r in rows):3d}/{len(rows):3d}  "
                f"bar {sum(r['bar_ok'] for r in rows):3d}/{len(rows):3d}  "
                f"misread unflagged {sum(r['silent_misses'] for r in rows):2d}")

    print("The point network is trained on synthetic crops only (vision/render_crops.py): no real photo and no")
    print("rendered board style below was seen in training; settings were chosen on held-back synthetic crops.")
    if (data / "labels").is_dir():
        rows = evaluate_photos(data, "corners", None, "model", model)
        print(f"Real photos ({data}), labelled corners, the dice plug-in's dice covered, no calibration:")
        for r in rows:
            print(line(r["image"], [r]))
        print(line("all real photos", rows))
    print(f"Rendered boards, {n} random positions each, one camera per board:")
    allrows: dict[str, list[dict[str, Any]]] = {"shipped": [], "calibrated": []}
    for style in [*STYLES, *LOW_CONTRAST_STYLES]:
        res = evaluate_board_out(style, n, seed, model)
        cal = res["calibration"][0]
        print(line(f"{style} shipped", res["shipped"]))
        print(line(f"{style} calibrated", res["calibrated"]) + f"  ({cal['said']})")
        for k in allrows:
            allrows[k] += res[k]
    print(line("all rendered, shipped", allrows["shipped"]))
    print(line("all rendered, calibrated", allrows["calibrated"]))
    return 0


def write_csv(rows: list[dict[str, Any]], path: pathlib.Path) -> None:
    """One row per image: verdicts, counts right, misses (JSON) and timings."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["image", "board_ok", "points", "point_ok", "count_ok", "bar_ok", "occluded_labelled",
                     "occluded_found", "unreadable_extra", "corner_error_px", "total_ms", "misses", "error"])
        for r in rows:
            wr.writerow([r["image"], int(r["board_ok"]), r["points"], r["point_ok"], r["count_ok"], int(r["bar_ok"]),
                         r["occluded_labelled"], r["occluded_found"], r["unreadable_extra"],
                         "" if r.get("corner_error_px") is None else round(r["corner_error_px"], 1),
                         round(r["timings"].get("total", 0.0), 2), json.dumps(r["misses"]), r["error"]])


def main(argv: Optional[list[str]] = None) -> int:
    """Command line entry point; returns the exit code."""
    ap = argparse.ArgumentParser(prog="python -m vision.evaluate", description="Evaluate the board reader.")
    ap.add_argument("--data", type=pathlib.Path, default=ROOT.parent / "shared" / "data" / "boards",
                    help="folder with images/ and labels/ (default ../shared/data/boards)")
    ap.add_argument("--mode", choices=["corners", "auto"], default="corners",
                    help="register with the labelled corners, or find the board automatically")
    ap.add_argument("--synthetic", type=int, metavar="N", help="evaluate on N rendered boards instead")
    ap.add_argument("--seed", type=int, default=1, help="seed for --synthetic (default 1)")
    ap.add_argument("--dice", choices=["none", "labels", "model"], default="none",
                    help="dice given to the reader: none, the labelled ones, or the dice plug-in's (models)")
    ap.add_argument("--synthetic-dice", action="store_true", help="draw two dice on every rendered board")
    ap.add_argument("--reader", choices=["learned", "classical"], default="learned",
                    help="the checker reader: learned (the point network, what every read uses; the default) or "
                         "classical (the hand-tuned baseline)")
    ap.add_argument("--model", type=pathlib.Path, help="the point network's ONNX file (default the shipped one)")
    ap.add_argument("--leave-one-board-out", action="store_true",
                    help="per board, read by a network that never saw it: the real photos, then every rendered "
                         "style before and after calibration on its opening position (--synthetic N positions "
                         "each, default 20)")
    ap.add_argument("--csv", type=pathlib.Path, help="write one row per image here")
    ap.add_argument("--pictures", type=pathlib.Path, help="write annotated pictures of misread images here")
    args = ap.parse_args(argv)
    point_model = None
    if args.reader == "learned" or args.leave_one_board_out:
        from vision.learned_checkers import MODEL_PATH, PointModel

        point_model = PointModel(args.model or MODEL_PATH)
    if args.leave_one_board_out:
        data = args.data if (args.data / "labels").is_dir() else ROOT.parent.parent / "shared" / "data" / "boards"
        return leave_one_board_out(data, args.synthetic or 20, args.seed, point_model)
    if args.synthetic:
        rows = evaluate_synthetic(args.synthetic, args.seed, args.pictures, args.dice, args.synthetic_dice,
                                  point_model=point_model)
        title = (f"{args.synthetic} rendered boards (seed {args.seed}"
                 f"{', two dice drawn on each' if args.synthetic_dice else ''}; dice given: {args.dice})")
    else:
        data = args.data
        if not (data / "labels").is_dir():
            alt = ROOT.parent.parent / "shared" / "data" / "boards"
            if args.data == ap.get_default("data") and (alt / "labels").is_dir():
                data = alt
            else:
                print(f"python -m vision.evaluate: error: no labels/ folder in {data}", file=sys.stderr)
                return 2
        rows = evaluate_photos(data, args.mode, args.pictures, args.dice, point_model)
        title = f"{len(rows)} labelled photos in {data} (registration: {args.mode}; dice given: {args.dice})"
    for r in rows:
        status = "ok " if r["board_ok"] else "MISS"
        detail = r["error"] or ", ".join(f"{m['point']}: read {m['read'][0]}{(m['read'][1] or '-')[0]} "
                                         f"want {m['expected'][0]}{(m['expected'][1] or '-')[0]}" for m in r["misses"])
        if not r["bar_ok"] and not r["error"]:
            detail = (detail + "; " if detail else "") + "bar"
        print(f"{status} {r['image']:28s} {r['point_ok']:2d}/{r['points']:2d} {detail}")
    print(_summary(rows, title))
    if args.csv:
        write_csv(rows, args.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The tilt network's scores on the still scenes of rendered games: ``python benchmarks/tilt_scenes.py
[--first 0] [--games 12] [--die-to-checker 0.3|demo] [--thresholds 0.85 0.9 0.93 0.95] [--json OUT]
[--tilt-models DIR ...]``.

Renders the games of ``benchmarks/bench_rendered_games.py --style each --camera varied
--dice-scatter`` (game N: seed 1000 + N), reads the first frame of every still scene with dice as
``companion watch`` reads it (one :class:`vision.dice_plugin.DicePlugin` per game, told who rolls, the
dice's size learned on the game's first flat pair) and scores each die read with the tilt network
(:func:`vision.cocked.roll_tilt_scores`, the highest of its views). A scene's score is its highest
die's. Prints, per threshold, the scenes with a cocked roll scored above it (caught) and the scenes
whose dice all lie flat scored above it (called tilted), and the highest flat scores: the figures
:data:`vision.cocked.TILT_THRESHOLD` is chosen on (on validation games, never on held-out ones).
``--tilt-models`` scores the same dice (read as shipped) with other tilt networks too (each folder's
``dice_tilt.onnx``), so networks are compared on one rendering of the games.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import tempfile
from typing import Any, Optional, Sequence

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def scene_scores(game: int, die_to_checker: Optional[float] = 0.3, models: Any = None,
                 tilt_models: Sequence[pathlib.Path] = ()) -> list[dict]:
    """One dict per still scene with dice of rendered game ``game`` (seed 1000 + ``game``):
    ``scene`` (its index in the script), ``cocked`` (the scene shows a cocked roll), ``score``
    (0..1, the highest tilt score of the dice read; 0 when none is read), ``dice_read``, ``dice``
    (each die read: its tilt score and the confidence of its value).
    ``die_to_checker``: the dice's side over a checker's diameter (``None``: the demo's);
    ``models``: the model folder (default ``vision/models``); ``tilt_models``: more folders whose
    ``dice_tilt.onnx`` scores the same dice, each scene's ``scores`` ``{folder: score}``. Raises
    ``FileNotFoundError`` when a model is missing."""
    from bench_rendered_games import BOARD_STYLES, game_script

    from companion.demo import demo_corners_arg, game_camera, render_script
    from companion.table import right_half
    from vision.cocked import TiltModel, roll_tilt_scores
    from vision.dice_plugin import DicePlugin
    from vision.dice_size import search_die_px
    from vision.reader import load_image
    from vision.registration import field_from_corners, parse_corners

    script = game_script(game)
    pose, lighting = game_camera(1000 + game)
    plugin = DicePlugin(models, learn_size=True)
    others = {str(folder): TiltModel(folder) for folder in tilt_models}
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        render_script(script, folder, die_to_checker=die_to_checker, style=BOARD_STYLES[game % len(BOARD_STYLES)],
                      pose=pose, lighting=lighting, dice_scatter=1000 + game)
        field = None
        index = 0
        for k, scene in enumerate(script.scenes):
            first, index = index, index + scene.frames
            if scene.hand or not scene.dice:
                continue
            image = load_image(folder / f"frame{first:05d}.jpg")
            if field is None:
                field = field_from_corners(parse_corners(demo_corners_arg(pose=pose)), (image.shape[1], image.shape[0]))
            # the player to roll, as the referee tells `watch`: the one whose right-hand board the
            # dice lie in (None at the opening roll, one die in each half)
            halves = {d.half for d in scene.dice if d.half}
            plugin.roller = None if len(halves) != 1 else ("bottom" if halves == {right_half(0)} else "top")
            plugin.new_frame()
            dice = plugin.dice(image, field)
            die_px = search_die_px(field, image.shape, plugin.die_scale)
            scores = roll_tilt_scores(image, dice, field, plugin.tilt, die_px=die_px) \
                if plugin.tilt is not None else []
            row = {"game": game, "scene": k, "cocked": any(d.cocked for d in scene.dice),
                   "score": float(max(scores, default=0.0)), "dice_read": len(dice),
                   "dice": [[float(x), float(d.confidence)] for x, d in zip(scores, dice)]}
            if others:
                row["scores"] = {name: float(max(roll_tilt_scores(image, dice, field, tm, die_px=die_px), default=0.0))
                                 for name, tm in others.items()}
            out.append(row)
    return out


def scores_by(scenes: list[dict], model: Optional[str] = None) -> tuple[list[float], list[float]]:
    """The (cocked, flat) scenes' scores by ``model`` (a ``--tilt-models`` folder; default the
    shipped network)."""
    def score(s: dict) -> float:
        return s["score"] if model is None else s["scores"][model]

    return [score(s) for s in scenes if s["cocked"]], [score(s) for s in scenes if not s["cocked"]]


def summary(scenes: list[dict], thresholds: list[float], model: Optional[str] = None) -> list[dict]:
    """Per threshold: ``caught`` (cocked scenes scored above it), ``cocked`` (cocked scenes),
    ``flat_called`` (flat scenes scored above it), ``flat`` (flat scenes); ``model``: by that
    folder's scores (``--tilt-models``), default the shipped network's."""
    cocked, flat = scores_by(scenes, model)
    return [{"threshold": t, "caught": sum(x > t for x in cocked), "cocked": len(cocked),
             "flat_called": sum(x > t for x in flat), "flat": len(flat)} for t in thresholds]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit code (2 for a bad argument or a missing model)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--first", type=int, default=0, help="first game (seed 1000 + N)")
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--die-to-checker", type=lambda v: None if v == "demo" else float(v), default=0.3,
                    help="the dice's side over a checker's diameter, or demo (the demo's dice, about 0.67)")
    ap.add_argument("--thresholds", type=float, nargs="+", default=[0.85, 0.9, 0.93, 0.95])
    ap.add_argument("--models", type=pathlib.Path, default=None, help="folder with the ONNX models")
    ap.add_argument("--json", type=pathlib.Path, default=None, help="write every scene's score here")
    ap.add_argument("--tilt-models", type=pathlib.Path, nargs="+", default=[], metavar="DIR",
                    help="also score the dice with the dice_tilt.onnx in each of these folders")
    args = ap.parse_args(argv)
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return 2
    scenes: list[dict] = []
    try:
        for g in range(args.first, args.first + args.games):
            scenes += scene_scores(g, args.die_to_checker, args.models, args.tilt_models)
            print(f"game {g}: {sum(s['game'] == g for s in scenes)} still scenes with dice", flush=True)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for model in [None, *map(str, args.tilt_models)]:
        if args.tilt_models:
            print(f"tilt network: {model or 'shipped'}")
        for r in summary(scenes, args.thresholds, model):
            print(f"threshold {r['threshold']:.3f}: cocked scenes called {r['caught']}/{r['cocked']}, "
                  f"flat scenes called {r['flat_called']}/{r['flat']}")
        cocked, flat = (sorted(v) for v in scores_by(scenes, model))
        print("highest flat scores: " + ", ".join(f"{x:.3f}" for x in flat[-8:]))
        print("cocked scores: " + ", ".join(f"{x:.3f}" for x in cocked))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"command": "python benchmarks/tilt_scenes.py " + " ".join(argv or sys.argv[1:]),
                                         "scenes": scenes}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

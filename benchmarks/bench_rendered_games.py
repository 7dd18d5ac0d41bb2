"""Rendered games through ``companion watch`` (frames -> verdicts), with figures.

Usage (from the project root)::

    python benchmarks/bench_rendered_games.py                  # 20 games
    python benchmarks/bench_rendered_games.py --games 5 --json benchmarks/results/bench_rendered_games.json
    python benchmarks/bench_rendered_games.py --games 5 --calibrate   # the learned reader, calibrated per game
    python benchmarks/bench_rendered_games.py --games 20 --die-to-checker 0.3 --learn-dice   # dice measured per game
    python benchmarks/bench_rendered_games.py --die-to-checker 0.8     # jumbo dice (0.3: travel dice)
    python benchmarks/bench_rendered_games.py --games 12 --style each --calibrate   # a board style per game
    python benchmarks/bench_rendered_games.py --games 12 --style each --camera varied --calibrate  # and a camera
    python benchmarks/bench_rendered_games.py --games 12 --style each --camera varied --dice-scatter  # dice anywhere

Each game is ``companion.scripted_game.random_game(1000 + g, match_length=5,
illegal_rate=0.3, cocked_rate=0.2, max_turns=4)`` drawn by the project's
renderers at 1280x720 (``companion.demo.render_script``: hands over the board
while checkers move, red dice, cocked dice leaning 30 degrees, the cube on the
frame; the board style ``--style``, default the demo's ``tournament``; ``each``: game N
drawn in the Nth of :data:`vision.render_board.STYLES` and ``LOW_CONTRAST_STYLES`` in turn),
with a corrupt file and a half-size frame slipped in, and run through
``python -m companion watch --source FOLDER --corners ... --events-jsonl -``.
Printed: games whose decisions (verdicts, cube actions, game ends) equal the
truth, games whose every judged event equals it, illegal plays and
accusations, false accusations, rolls seen, rolls called cocked (``cocked_caught``), of them
calls beyond a game's cocked rolls (``cocked_false``), and cocked rolls not called (``cocked_missed``),
bad frames survived, and the wall time per frame; then the still frames read one by one as
``companion read`` reads them (each still scene without a hand, with the game's profile when one
was made): frames with every point and the bar right, points right, and frames of flat dice whose
values are read exactly (:func:`still_frames`).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.render_board import LOW_CONTRAST_STYLES, STYLES  # noqa: E402 - after the path is set

#: The rendered board styles, in the order ``--style each`` takes them.
BOARD_STYLES = (*STYLES, *LOW_CONTRAST_STYLES)


def game_script(game: int):
    """The ``companion.scripted_game.Script`` of game ``game`` (seed 1000 + ``game``), as
    this benchmark plays it."""
    from companion.scripted_game import random_game

    return random_game(1000 + game, match_length=5, illegal_rate=0.3, cocked_rate=0.2, max_turns=4)


def first_flat_roll(script) -> int:
    """The index of the first frame of ``script`` (a :class:`companion.scripted_game.Script`) that
    shows two or more dice, none cocked, and no hand. Raises ``ValueError`` when there is none."""
    index = 0
    for scene in script.scenes:
        if len(scene.dice) >= 2 and not scene.hand and not any(d.cocked for d in scene.dice):
            return index
        index += scene.frames
    raise ValueError("no frame with a flat roll in this game")


def unordered_rolls(events: list[dict]) -> list[dict]:
    """``events`` with the dice of every roll but the opening one sorted (the opening roll's
    order says whose die is whose)."""
    return [dict(e, dice=sorted(e["dice"])) if e.get("type") == "roll" and not e.get("opening") else e
            for e in events]


def still_frames(script, folder: pathlib.Path, profile: pathlib.Path | None, layout, corners: str) -> dict[str, int]:
    """Each still scene of ``script`` without a hand (its first frame in ``folder``) read as
    ``companion read`` reads it (with ``profile``, else ``corners``; the dice plug-in
    with the profile's dice, one plug-in for the game's frames in turn, which learns the dice's
    size on the first flat pair when the profile has none, as ``companion watch`` does), against
    the scene's truth. Returns counts: ``still_frames``,
    ``still_frames_right`` (every point and the bar), ``still_points``, ``still_points_right``
    (count and colour), ``still_frames_with_flat_dice`` (every die flat), ``still_dice_exact``
    (the dice's values read exactly, none called cocked)."""
    from companion.table import signed_to_points
    from vision.dice_plugin import DicePlugin
    from vision.profile import load_profile
    from vision.reader import BoardReader, load_image
    from vision.registration import field_from_corners, parse_corners

    out = dict(still_frames=0, still_frames_right=0, still_points=0, still_points_right=0,
               still_frames_with_flat_dice=0, still_dice_exact=0)
    reader = None
    index = 0
    for scene in script.scenes:
        first, index = index, index + scene.frames
        if scene.hand:
            continue
        image = load_image(folder / f"frame{first:05d}.jpg")
        if reader is None:
            size = (image.shape[1], image.shape[0])
            prof = load_profile(profile) if profile else None
            reader = (BoardReader.from_profile(prof, size) if prof else
                      BoardReader(field=field_from_corners(parse_corners(corners), size)))
            plugin = DicePlugin(dice_sets=prof.dice_sets if prof else None, die_scale=prof.die_scale if prof else None,
                                learn_size=True, marks=prof.board_marks if prof else None)
            reader.dice_reader, reader.cube_reader = plugin.dice, plugin.cube
        obs = reader.read(image)
        points, bar, _ = signed_to_points(scene.board, 0, layout)
        right = sum(p.count == o.count and (p.count == 0 or p.colour == o.colour) for p, o in zip(points, obs.points))
        out["still_frames"] += 1
        out["still_points"] += 24
        out["still_points_right"] += right
        out["still_frames_right"] += right == 24 and (obs.bar.light, obs.bar.dark) == (bar.light, bar.dark)
        if scene.dice and not any(d.cocked for d in scene.dice):
            out["still_frames_with_flat_dice"] += 1
            out["still_dice_exact"] += (sorted(d.value for d in obs.dice) == sorted(d.value for d in scene.dice)
                                  and not any(d.cocked for d in obs.dice))
    return out



def slip_in_bad_frames(folder: pathlib.Path) -> list[pathlib.Path]:
    """Add a corrupt file and a half-size copy of the fourth frame to the game's frames in
    ``folder`` (the watcher must report both and go on); returns the game's own frames, in order."""
    import cv2

    frames = sorted(folder.glob("frame*.jpg"))
    (folder / "frame00002a.jpg").write_bytes(b"\xff\xd8 this is not a picture")
    cv2.imwrite(str(folder / "frame00003a.jpg"), cv2.resize(cv2.imread(str(frames[3])), (480, 270)))
    return frames


def calibrate(frame: pathlib.Path, corners: str, profile: pathlib.Path, *options: str) -> str:
    """Run ``python -m companion calibrate FRAME --corners=CORNERS OPTIONS --out PROFILE``;
    returns "" when the profile was written, else the end of what it printed to stderr."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    c = subprocess.run([sys.executable, "-m", "companion", "calibrate", str(frame), f"--corners={corners}", *options,
                        "--out", str(profile)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    return "" if c.returncode == 0 else (c.stderr.strip()[-300:] or f"exit {c.returncode}")


def new_totals() -> dict:
    """The counts :func:`judge_game` and :func:`still_frames` add to, all zero."""
    return {"games": 0, "decisions_equal": 0, "all_events_equal": 0, "illegal_plays": 0,
            "accusations": 0, "false_accusations": 0, "missed_illegal": 0, "verdicts": 0,
            "rolls_expected": 0, "rolls_seen": 0, "rolls_revised": 0, "cocked_expected": 0, "cocked_caught": 0,
            "cocked_taken_back_as_reroll": 0, "cocked_false": 0, "cocked_missed": 0, "bad_frames_reported": 0,
            "frames": 0, "watch_seconds": 0.0,
            "still_frames": 0, "still_frames_right": 0, "still_points": 0, "still_points_right": 0,
            "still_frames_with_flat_dice": 0, "still_dice_exact": 0}


def judge_game(script, folder: pathlib.Path, board: list[str], scattered: bool, totals: dict, differing: list,
               all_differ: list, frames: int, name: str, about: dict, keep: bool = False) -> None:
    """Run ``python -m companion watch`` over the frames in ``folder`` (``board``: its
    ``--corners`` or ``--calibration`` arguments) and add the game's figures to ``totals``
    (:func:`new_totals`); ``script`` (a :class:`companion.scripted_game.Script`) gives the truth,
    ``scattered``: the dice were thrown anywhere (a roll's two dice are compared as a set),
    ``frames``: the frames in ``folder``. A game whose decisions differ is listed in
    ``differing`` (``name``), one whose events differ in ``all_differ`` (``about`` and the first
    events that differ); ``keep``: write the events to ``folder/events.jsonl``. Prints a line."""
    from companion.demo import DEMO_LAYOUT
    from companion.scripted_game import accusation_counts, comparable, expected_comparable, verdict_stream

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "companion", "watch", "--no-web", "--keyboard", "off", "--source", str(folder),
         "--fps", "10", *board, "--bottom-colour", DEMO_LAYOUT.colours[0],
         "--match-length", "5", "--events-jsonl", "-"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800,
    )
    totals["watch_seconds"] += time.perf_counter() - t
    totals["frames"] += frames
    if r.returncode != 0:
        differing.append(f"{name}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
        return
    if keep:
        (folder / "events.jsonl").write_text(r.stdout)
    events = [json.loads(line) for line in r.stdout.splitlines()]
    got, expected = comparable(events), expected_comparable(script)
    if scattered:  # thrown dice lie in any order: a roll's two dice are compared as a set
        got, expected = unordered_rolls(got), unordered_rolls(expected)
    totals["bad_frames_reported"] += sum(1 for e in events if e["type"] == "source" and e["status"] == "bad_frame")
    decisions_equal = verdict_stream(got) == verdict_stream(expected)
    totals["decisions_equal"] += decisions_equal
    totals["all_events_equal"] += got == expected
    if not decisions_equal:
        differing.append(f"{name} ({', '.join(f'{k} {v}' for k, v in about.items())})")
    if got != expected:
        k = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
        all_differ.append({**about, "index": k, "got": got[k:k + 2], "expected": expected[k:k + 2]})
    caught, false, missed = accusation_counts(got, expected)
    totals["illegal_plays"] += caught + missed
    totals["accusations"] += caught + false
    totals["false_accusations"] += false
    totals["missed_illegal"] += missed
    totals["verdicts"] += sum(1 for e in expected if e["type"] == "verdict")
    totals["rolls_expected"] += sum(1 for e in expected if e["type"] == "roll")
    called = 0
    for e in events:
        if e["type"] == "roll" and e.get("revised"):
            totals["rolls_revised"] += 1  # the same roll read again: seen once
        elif e["type"] == "roll":
            totals["rolls_seen"] += 1
        elif e["type"] == "cocked_dice":
            if e["reasons"] and e["reasons"][0]["code"] == "rolled_again":
                totals["cocked_taken_back_as_reroll"] += 1
                totals["rolls_seen"] -= 1
            else:
                totals["cocked_caught"] += 1
                called += 1
    cocked = sum(1 for e in expected if e["type"] == "cocked_dice")
    totals["cocked_expected"] += cocked
    # per game: calls beyond the game's cocked rolls are false calls, cocked rolls beyond its
    # calls were missed
    totals["cocked_false"] += max(0, called - cocked)
    totals["cocked_missed"] += max(0, cocked - called)
    print(f"{name} ({', '.join(f'{k} {v}' for k, v in about.items())}): decisions "
          f"{'equal' if decisions_equal else 'DIFFER'}, all events {'equal' if got == expected else 'differ'}", flush=True)

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="rendered games through companion watch")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--keep", metavar="DIR", help="keep each game's frames and events (DIR/gameN/, events.jsonl) here")
    parser.add_argument("--first", type=int, default=0, help="first game number (seed 1000 + N)")
    parser.add_argument("--calibrate", action="store_true",
                        help="calibrate on each game's first frame (companion calibrate --learn opening: the learned "
                             "reader adapted to the board) and watch with that profile instead of --corners")
    parser.add_argument("--learn-dice", action="store_true",
                        help="calibrate on the frame of each game's first flat roll (companion calibrate --learn none "
                             "--learn-dice: the dice's size) and watch with that profile instead of --corners")
    parser.add_argument("--die-to-checker", type=float, default=None, metavar="R",
                        help="dice whose side is R times a checker's diameter (default: the demo's, about 0.67)")
    parser.add_argument("--style", default="tournament", choices=[*BOARD_STYLES, "each"],
                        help="the board's style (default tournament, the demo's); each: one style per game in turn")
    parser.add_argument("--camera", default="demo", choices=["demo", "varied"],
                        help="demo: the demo's camera and even light; varied: each game its own camera (tilt, turn, "
                             "distance) and light (gradient, blur, noise), drawn from the game's seed")
    parser.add_argument("--dice-scatter", action="store_true",
                        help="the dice lie where a throw leaves them (anywhere in their half: on points, on checkers, "
                             "against each other) instead of side by side on the half's middle line")
    args = parser.parse_args(argv)
    if args.calibrate and args.learn_dice:
        parser.error("--calibrate and --learn-dice calibrate on different frames: give one of them")

    from companion.demo import DEMO_LAYOUT, demo_corners_arg, game_camera, render_script

    totals = new_totals()
    totals["games"] = args.games
    differing = []
    all_differ = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.keep:
            tmp = args.keep
        for g in range(args.first, args.first + args.games):
            script = game_script(g)
            folder = pathlib.Path(tmp) / f"game{g}"
            style = BOARD_STYLES[g % len(BOARD_STYLES)] if args.style == "each" else args.style
            pose, lighting = game_camera(1000 + g) if args.camera == "varied" else (None, None)
            render_script(script, folder, die_to_checker=args.die_to_checker, style=style, pose=pose, lighting=lighting,
                          dice_scatter=1000 + g if args.dice_scatter else None)
            frames = slip_in_bad_frames(folder)
            corners = demo_corners_arg(pose=pose)
            board = ["--corners", corners]
            if args.calibrate:
                profile = pathlib.Path(tmp) / f"game{g}.json"
                refused = calibrate(frames[0], corners, profile, "--learn", "opening")
                if refused:
                    differing.append(f"game {g}: calibration refused: {refused}")
                    continue
                board = ["--calibration", str(profile)]
            if args.learn_dice:
                profile = pathlib.Path(tmp) / f"game{g}.json"
                try:
                    shown = frames[first_flat_roll(script)]
                except ValueError as exc:
                    differing.append(f"game {g}: {exc}")
                    continue
                refused = calibrate(shown, corners, profile, "--learn", "none", "--learn-dice")
                if refused:
                    differing.append(f"game {g}: calibration refused: {refused}")
                    continue
                board = ["--calibration", str(profile)]
            still = still_frames(script, folder, profile if args.calibrate or args.learn_dice else None, DEMO_LAYOUT,
                                 corners)
            for k, v in still.items():
                totals[k] += v
            frames_n = len(frames) + 2
            judge_game(script, folder, board, args.dice_scatter, totals, differing, all_differ, frames_n,
                       f"game {g}", {"game": g, "seed": 1000 + g, "style": style}, keep=bool(args.keep))
    report(totals, differing, all_differ, args.json)
    return 0


def report(totals: dict, differing: list, all_differ: list, out: str | None) -> None:
    """Print ``totals`` (with the watcher's milliseconds a frame and the games that differ) as
    JSON, and write it with the command and the libraries' versions to ``out`` when given."""
    import cv2
    import numpy
    import onnxruntime

    totals["watch_ms_per_frame"] = round(1000.0 * totals.pop("watch_seconds") / max(1, totals["frames"]), 1)
    totals["games_whose_decisions_differ"] = differing
    totals["games_whose_events_differ"] = all_differ
    print(json.dumps(totals, indent=2))
    if out:
        pathlib.Path(out).parent.mkdir(parents=True, exist_ok=True)
        versions = {"python": sys.version.split()[0], "numpy": numpy.__version__, "opencv": cv2.__version__,
                    "onnxruntime": onnxruntime.__version__}
        pathlib.Path(out).write_text(json.dumps({"command": " ".join(["python"] + sys.argv), "versions": versions,
                                                 **totals}, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())

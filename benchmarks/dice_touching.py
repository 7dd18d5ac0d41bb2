"""Two dice lying against each other on rendered boards: are they read as two dice?

``python benchmarks/dice_touching.py [--boards N] [--seed S] [--threshold P ...]``

Each board (:func:`vision.render_touching.render_touching`) is read four times through the
dice plug-in (:class:`vision.dice_plugin.DicePlugin`, as ``companion read`` reads a registered
frame): two touching dice (footprints 0-2 pixels apart, each at its own yaw, sides 0.3-0.8 of a
checker's diameter, on the field or over checkers), the same dice two to four sides farther apart (the
same-run baseline), the first die alone (one die must stay one) and the board without dice (no
die may appear). Printed per reader setting:
frames read exactly right (every die, with its value) and frames with the right number of dice,
per place and per size band; the reader without the touching rule (``touching=None``) and with
each ``--threshold`` (default: the shipped :class:`vision.dice_settings.DiceSettings` value); with
``--learn-size`` also the shipped setting with the dice's size learned from each scene's ``apart``
frame (:mod:`vision.dice_size`; the apart figures of that row are then read on the frame it learned from).
Also the median time of a registered 1280x720 frame with the touching pair, the pair apart and no
dice (``--timing`` boards of the next seed), with and without the rule.
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import statistics
import sys
import time
from typing import Any, Optional, Sequence

import numpy as np


def plugin_reader(threshold: Optional[float], models: Optional[pathlib.Path] = None, learn_size: bool = False):
    """``read(image, field)`` through a :class:`vision.dice_plugin.DicePlugin` whose reader's
    ``touching`` setting is ``threshold`` (None: the rule off); ``models``: the dice reader's
    models folder (default ``vision/models``). With ``learn_size``: ``(read, calibrate)``, the
    plug-in's ``die_scale`` learned by ``calibrate(scene)`` from the scene's ``apart`` frame as
    ``companion calibrate --learn-dice`` learns it (:func:`vision.dice_size.learn_die_scale`;
    ``None`` when no die is seen there)."""
    from vision.dice import DiceReader
    from vision.dice_plugin import DicePlugin
    from vision.dice_size import DiceSizeError, learn_die_scale

    plugin = DicePlugin()
    if models is not None:
        plugin.reader = DiceReader(models)
    plugin.reader.settings = dataclasses.replace(plugin.reader.settings, touching=threshold)

    def read(image: np.ndarray, field: Any) -> list:
        plugin.new_frame()
        return plugin.dice(image, field)

    def calibrate(scene: Any) -> None:
        try:
            plugin.die_scale = learn_die_scale(scene.apart, scene.field, plugin.reader)
        except DiceSizeError:
            plugin.die_scale = None

    return (read, calibrate) if learn_size else read


def main(argv: Sequence[str] | None = None) -> int:
    import cv2

    from vision.dice_settings import DiceSettings
    from vision.render_touching import evaluate_touching, format_touching, render_touching

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=200, help="boards (default 200)")
    ap.add_argument("--seed", type=int, default=2600, help="render seed (default 2600)")
    ap.add_argument("--threshold", type=float, nargs="*", default=None,
                    help="touching thresholds to compare (default: the shipped one)")
    ap.add_argument("--timing", type=int, default=20, help="frames timed per setting (default 20)")
    ap.add_argument("--models", type=pathlib.Path, default=None, help="the dice reader's models folder")
    ap.add_argument("--learn-size", action="store_true",
                    help="also read with the dice's size learned from each scene's apart frame (the shipped threshold)")
    args = ap.parse_args(argv)
    if args.boards < 1 or any(not 0 < t <= 1 for t in args.threshold or []):
        print("error: --boards must be at least 1 and thresholds in (0, 1]", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    thresholds = args.threshold or [DiceSettings().touching]
    reads = {"rule off": plugin_reader(None, args.models),
             **{f"touching {t:g}": plugin_reader(t, args.models) for t in thresholds}}
    calibrations = {}
    if args.learn_size:
        name = f"touching {DiceSettings().touching:g}, size learned"
        reads[name], calibrations[name] = plugin_reader(DiceSettings().touching, args.models, learn_size=True)
    print(f"seed {args.seed}")
    for name, res in evaluate_touching(args.boards, reads, seed=args.seed, calibrations=calibrations).items():
        print(format_touching(name, res))
    if args.timing:
        rng = np.random.default_rng(args.seed + 1)
        scenes = [render_touching(rng) for _ in range(args.timing)]
        times: dict[tuple[str, str], list[float]] = {}
        for sc in scenes:
            for calibrate in calibrations.values():
                calibrate(sc)
            for kind in ("touching", "apart", "empty"):
                for name, read in reads.items():  # interleaved: the same load on every setting
                    t = time.perf_counter()
                    read(getattr(sc, kind), sc.field)
                    times.setdefault((name, kind), []).append((time.perf_counter() - t) * 1000)
        for name in reads:
            print(f"{name}: median per frame (one thread): " + ", ".join(
                f"{kind} {statistics.median(times[name, kind]):.2f} ms" for kind in ("touching", "apart", "empty")))
    return 0


if __name__ == "__main__":
    sys.exit(main())

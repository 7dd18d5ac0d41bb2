"""Synthetic photos of scattered dice and cubes for training the dice models, with labels.

Dice and cubes are drawn by :mod:`vision.render_dice` on table-like backgrounds
(:mod:`vision.backgrounds`), with marks that are not dice (:mod:`vision.render_distractors`)
on a share of the photos.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Optional, Sequence

import numpy as np

from vision.backgrounds import random_background
from vision.render_dice import CUBE_STYLES, CUBE_VALUES, DIE_STYLES, DieStyle, draw_cube, draw_die
from vision.render_distractors import draw_distractors

__all__ = ["synthetic_training_images"]


def synthetic_training_images(n: int, rng: np.random.Generator, backgrounds: Sequence[np.ndarray] = (),
                              cube_prob: float = 0.5, marbled: float = 0.0,
                              translucent: float = 0.0, distractors: float = 0.0,
                              dice_styles: Sequence[DieStyle] = DIE_STYLES) -> list[tuple[np.ndarray, Any]]:
    """``n`` synthetic photos of scattered dice (flat and tilted, every style) and sometimes a cube,
    on random table backgrounds or copies of ``backgrounds``; returns ``[(image, LabelledImage)]``
    (:class:`vision.dice_data.LabelledImage`, dataset ``"synthetic"``). 30% of the dice get
    random colours, and this share of those (``marbled``, 0..1) veins of a third colour
    (:class:`DieStyle` ``marble``), and the share ``translucent`` (0..1) of those a translucent,
    often dark body through which the hidden faces' pips show (:class:`DieStyle` ``ghost``);
    the share ``distractors`` (0..1) of the photos also gets 1-6 marks that are not dice (printed
    text, checkers with icons, scales, symbols, a clock's digits:
    :func:`vision.render_distractors.draw_distractors`,
    drawn first, the dice kept off them; ``LabelledImage.distractor_boxes``);
    0, 0 and 0 draw exactly what the shipped detector was trained on. The other 70% are of
    ``dice_styles``. Raises ValueError for a
    share outside 0..1."""
    for share in (marbled, translucent, distractors):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"a share is 0..1, not {share}")
    import pathlib

    from vision.dice_data import LabelledImage

    out = []
    for k in range(n):
        if len(backgrounds) and rng.random() < 0.5:
            img = backgrounds[int(rng.integers(len(backgrounds)))].copy()
        else:
            img = random_background(rng, (int(rng.choice([640, 800])), int(rng.choice([480, 640]))))
        h, w = img.shape[:2]
        size = float(np.exp(rng.uniform(np.log(18), np.log(70))))
        oblique = float(rng.uniform(0, 0.35)) if rng.random() < 0.5 else 0.0
        taken: list[tuple[float, float, float]] = []
        boxes, values, cboxes, cvalues = [], [], [], []

        def free_spot(s: float) -> Optional[tuple[float, float]]:
            for _ in range(30):
                x, y = rng.uniform(s, w - s), rng.uniform(s, h - s)
                if all(math.hypot(x - a, y - b) > 1.3 * (s + r) / 2 + 2 for a, b, r in taken):
                    return x, y
            return None

        dboxes = np.zeros((0, 4))
        if distractors > 0 and rng.random() < distractors:
            spots = [(float(rng.uniform(size, w - size)), float(rng.uniform(size, h - size)))
                     for _ in range(int(rng.integers(1, 7)))]
            dboxes, radii = draw_distractors(img, rng, size, spots)
            taken += [(x, y, 1.6 * r) for (x, y), r in zip(spots, radii)]

        if rng.random() < cube_prob:
            cs = size * rng.uniform(1.1, 1.5)
            spot = free_spot(cs)
            if spot:
                st = CUBE_STYLES[int(rng.integers(len(CUBE_STYLES)))]
                cube = draw_cube(img, spot, cs, int(rng.choice(CUBE_VALUES)), yaw_deg=rng.uniform(0, 360),
                                 style=st, oblique=oblique)
                taken.append((spot[0], spot[1], cs * 1.3))
                cx, cy = cube.center
                cboxes.append((cx - cs / 2, cy - cs / 2, cx + cs / 2, cy + cs / 2))
                cvalues.append(cube.value)
        for _ in range(int(rng.integers(1, 9))):
            s = size * rng.uniform(0.9, 1.1)
            spot = free_spot(s)
            if spot is None:
                break
            style = dice_styles[int(rng.integers(len(dice_styles)))]
            if rng.random() < 0.3:
                style = DieStyle("random", tuple(int(v) for v in rng.integers(0, 256, 3)),
                                 tuple(int(v) for v in rng.integers(0, 256, 3)),
                                 pip_scale=float(rng.uniform(0.75, 1.2)))
                if marbled > 0 and rng.random() < marbled:
                    style = dataclasses.replace(style, marble=tuple(int(v) for v in rng.integers(0, 256, 3)),
                                                marble_seed=int(rng.integers(1 << 30)))
                if translucent > 0 and rng.random() < translucent:
                    body = np.array(style.body, np.float64) * (rng.uniform(0.15, 0.6) if rng.random() < 0.6 else 1.0)
                    style = dataclasses.replace(style, body=tuple(int(v) for v in body),
                                                alpha=float(rng.uniform(0.75, 0.95)),
                                                ghost=float(rng.uniform(0.2, 0.65)))
            tilt = float(rng.uniform(3, 40)) if rng.random() < 0.25 else 0.0
            d = draw_die(img, spot, s, int(rng.integers(1, 7)), yaw_deg=rng.uniform(0, 360), tilt_deg=tilt,
                         tilt_dir_deg=rng.uniform(0, 360), style=style, oblique=oblique)
            taken.append((spot[0], spot[1], s * 1.4))
            cx, cy = d.center
            boxes.append((cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2))
            values.append(d.value)
        item = LabelledImage("synthetic", pathlib.Path(f"synthetic_{k}.png"),
                             np.asarray(boxes, np.float64).reshape(-1, 4), np.asarray(values, np.int64), (w, h),
                             np.asarray(cboxes, np.float64).reshape(-1, 4), np.asarray(cvalues, np.int64),
                             dboxes)
        out.append((img, item))
    return out

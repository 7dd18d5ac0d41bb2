"""Two dice lying against each other on a registered board, read as two dice.

The registered-board detector (:class:`vision.dice.DiceReader`, stride 4 at a die of about 10
pixels) puts two dice whose sides touch 2-3 heatmap cells apart: their heat often forms one peak,
between the dice or on one of them, and the pair is read as one die. When the reader
(:meth:`vision.dice.DiceReader._scan_field`) reads none, one or three dice (the dice of a roll, and
of each player's set, come in twos), :func:`touching_dice` reads, around each die read (around each
candidate whose values 1..6 together reach :data:`SPLIT_PARENT` when no die is read), the two ways
a touching pair can look like one die:

- **split**: the candidate lies between two dice: two patches of side ``size / k`` (``k`` in
  :data:`SPLIT_RATIOS`: the detector sizes the pair 1.25-1.9 times one die) on either side of its
  centre, ``0.55`` of that side away, along :data:`DIRECTIONS` directions over half a turn;
- **neighbour**: the candidate is on one die: one patch of its side (or of the smaller sides of
  :data:`NEIGHBOUR_SIDES`, a candidate boxed over both dice) beside it, its centre
  :data:`NEIGHBOUR_STEPS` of those sides away, along twice as many directions over a whole turn.

The one hypothesis whose dice are all read with a value (its probability above "not a die" and
"cube") at the lowest probability highest wins, when that probability reaches
:class:`vision.dice_settings.DiceSettings` ``touching`` and the new dice are not on another die
read. A lone die reads as a die in no such patch pair (off-centre halves of it are "not a die" or
unsure values); a candidate turned down beside a die read is not split (it is more often a tilted
die, whose top and side faces read as two dice: ``benchmarks/dice_touching.py`` and the rendered
cocked-dice boards, ``vision/dice_settings.py``).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Optional, Sequence

import numpy as np

__all__ = ["SPLIT_RATIOS", "SPLIT_OFFSET", "DIRECTIONS", "NEIGHBOUR_SIDES", "NEIGHBOUR_STEPS", "SPLIT_PARENT",
           "touching_dice"]

#: The detected candidate's side over one die's side, for a candidate between two dice.
SPLIT_RATIOS = (1.25, 1.5, 1.8)
#: How far each die of a split lies from the candidate's centre, in die sides.
SPLIT_OFFSET = 0.55
#: Directions of a split over half a turn (a neighbour's: twice as many over a whole turn).
DIRECTIONS = 8
#: Distances of a neighbour's centre from the die read, in die sides.
NEIGHBOUR_STEPS = (1.0, 1.2, 1.45)
#: A neighbour's side over the candidate's: its own, or less where the candidate is boxed over
#: both dice (small dice touching are boxed 1.3-1.9 times one die).
NEIGHBOUR_SIDES = (1.0, 0.7)
#: A candidate not read as a die is split when its values 1..6 together are at least this probable.
SPLIT_PARENT = 0.5


def _value_probability(p: np.ndarray) -> float:
    """The most likely value's probability when it beats "not a die" and "cube", else 0."""
    v = float(p[:6].max())
    return v if v >= p[6] and v >= p[7] else 0.0


def touching_dice(reader: Any, image: np.ndarray, cands: Sequence[Any], probs: np.ndarray,
                  threshold: float) -> tuple[list[Any], np.ndarray]:
    """The scanned candidates of a registered frame with one touching pair recovered, when found.

    ``reader``: :class:`vision.dice.DiceReader`; ``image``: (H, W, 3) uint8 BGR; ``cands`` /
    ``probs`` ((N, 8)) as :meth:`vision.dice.DiceReader.scan` gives them (N may be 0); ``threshold``: the lowest
    probability the hypothesis's every die must be read at (see module docstring). Returns new
    ``(cands, probs)``: a split replaces its candidate by the two dice, a neighbour is added; the
    inputs unchanged when no hypothesis reaches ``threshold``. The new candidates keep the detector
    peak of the candidate they come from.
    """
    held = [k for k, (c, p) in enumerate(zip(cands, probs)) if reader.dice_from_scan([c], p[None])]
    # a candidate turned down is split only when no die is read: beside a die read it is more
    # often a tilted die, whose top and side faces read as two dice
    parents = held or [k for k, p in enumerate(probs) if p[:6].sum() >= SPLIT_PARENT]
    hyps: list[tuple[Optional[int], list[Any]]] = []  # (candidate replaced or None, new candidates)
    for k in parents:
        c = cands[k]
        x, y = c.center
        for ratio in SPLIT_RATIOS:
            side = c.size / ratio
            for j in range(DIRECTIONS):
                a = math.pi * j / DIRECTIONS
                dx, dy = SPLIT_OFFSET * side * math.cos(a), SPLIT_OFFSET * side * math.sin(a)
                hyps.append((k, [_new_candidate(c, (x - dx, y - dy), side), _new_candidate(c, (x + dx, y + dy), side)]))
        if k not in held:
            continue
        for share in NEIGHBOUR_SIDES:
            side = c.size * share
            for step in NEIGHBOUR_STEPS:
                for j in range(2 * DIRECTIONS):
                    a = math.pi * j / DIRECTIONS
                    hyps.append((None, [_new_candidate(c, (x + step * side * math.cos(a),
                                                           y + step * side * math.sin(a)), side)]))

    def clear(replaced: Optional[int], new: list[Any]) -> bool:
        # the new dice must not lie on another die read (a neighbour lies over a side from its own)
        return all(math.hypot(n.center[0] - cands[k].center[0], n.center[1] - cands[k].center[1])
                   >= 0.8 * max(n.size, cands[k].size) for n in new for k in held if k != replaced)

    hyps = [h for h in hyps if clear(*h)]
    if not hyps:
        return list(cands), probs
    flat = [n for _, new in hyps for n in new]
    p = reader.classify(image, flat, wider=False)
    best, best_at, at = threshold, None, 0
    for h, (_, new) in enumerate(hyps):
        score = min(_value_probability(p[at + i]) for i in range(len(new)))
        if score >= best:
            best, best_at = score, (h, at)
        at += len(new)
    if best_at is None:
        return list(cands), probs
    h, at = best_at
    replaced, new = hyps[h]
    new_probs = p[at: at + len(new)]
    keep = [i for i in range(len(cands)) if i != replaced]
    out = [cands[i] for i in keep] + new
    return out, np.vstack([probs[keep], new_probs])


def _new_candidate(parent: Any, center: tuple[float, float], size: float) -> Any:
    """A :class:`vision.dice.Candidate` at ``center`` (image pixels) of side ``size`` with
    ``parent``'s detector peak, made from ``parent`` (this module is imported by the reader)."""
    return dataclasses.replace(parent, center=center, size=size, outline_center=None, second=False, photo=False)

"""The doubling cube: where it lies and the value on its top face.

The dice detector also proposes the cube (a large die with numbers); the dice classifier's
"doubling cube" class and a second small network (``vision/models/dice_cube.onnx``, trained on
rendered cubes of many looks by ``python -m vision.training.train_cube``) tell it apart, and the
second network reads its top face (2, 4, 8, 16, 32 or 64, or a maker's logo in place of 64, at any
rotation) from a 32x32 patch.

Place: ``"centre"`` when the cube lies in the middle band of the board (on the bar or on the side
rail between the players, where it starts), else ``"top"`` or ``"bottom"``: the side of the image
of the player who owns it.
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Any, Optional, Sequence

import numpy as np

from companion.observation import CubeReading
from vision.dice import Candidate, DiceReader, as_bgr
from vision.onnx_model import load_onnx

MODELS = pathlib.Path(__file__).resolve().parent / "models"
CUBE_VALUES = (2, 4, 8, 16, 32, 64)
#: Minimum cube score (see :func:`cube_from_scan`) for a candidate to be the cube.
CUBE_ACCEPT = 0.3
#: Weight of a cube candidate on the points (see :func:`cube_from_scan`).
ON_POINTS_WEIGHT = 0.5
#: A first cube reading at least this sure of a value is not read again turned and resized
#: (on the validation boards below, 0.95 reads 126 of 140 cube values right against 124 at 0.9,
#: as many as reading every cube again, at 0.39 ms median a frame instead of 5.8).
SURE = 0.95
#: Sizes (times the detector's) at which an unsure cube is read again, each at four quarter turns:
#: the detector is trained on dice and often sizes the larger cube too small or too large, and a
#: crop that cuts the number off or takes in the tray misreads it. Chosen on 200 rendered validation
#: boards (``render_roll_on_board``, seed 4242; with :data:`SURE`: cube value right 119 -> 126 of
#: the 140 cubes, 133 -> 134 found; sizes 0.8 and 1.2 alone: 124; one turn at each size: 126, but
#: the real board photos' upside-down digits need the turns).
CUBE_SCALES = (0.75, 0.9, 1.05, 1.2)
#: Weight of 64 when the cube lies in the centre (a centred cube has not been turned yet).
CENTRE_PRIOR = 2.0
#: The middle band (fraction of the field's height, or the image's height without a field).
CENTRE_BAND = (0.36, 0.64)
#: On a registered board where no candidate is the cube, the candidates off the points that read
#: as no die are classified again cropped this many times larger: the detector, trained on dice,
#: often sizes a large cube at half to two thirds of its side, and the classifier then calls the
#: tight crop "not a die". Chosen on validation boards (``benchmarks/dice_sizes.py``, seed 6100,
#: 60 boards a band: cubes found 209 -> 229 of 234, no false cube on the 126 boards without one;
#: ``render_roll_on_board`` seed 4242: 136 -> 138 of 140; 1.3 and 1.6 together, 1.4 and 1.8, or
#: 1.2 to 2.0 in five steps found the same cubes).
CUBE_LOOK_AGAIN = 1.5
#: Minimum cube score at that second look (a cube the classifier doubts at its own size; the
#: cube network must still not call it "not a cube"). Chosen on the same boards: 0.3, 0.25, 0.2 and
#: 0.1 find 229, 232, 233 and 233 of the 234 cubes of seed 6100 and 138 of 140 of seed 4242, no
#: false cube at any of them.
CUBE_ACCEPT_AGAIN = 0.2


class CubeReader:
    """Reads the cube value from patches (``dice_cube.onnx`` in ``models``, default
    ``vision/models``). Raises ``FileNotFoundError`` when the model file is missing.

    The network gives the values 2, 4, 8, 16, 32, 64 and (newer models, 7 outputs) "not a cube".
    """

    def __init__(self, models: pathlib.Path | str | None = None) -> None:
        path = (pathlib.Path(models) if models is not None else MODELS) / "dice_cube.onnx"
        if not path.is_file():
            raise FileNotFoundError(f"cube model missing: {path}")
        self.net = load_onnx(path)

    def probabilities(self, image_bgr: np.ndarray, cands: Sequence[Candidate], turns: int = 1,
                      scales: Sequence[float] = (1.0,)) -> np.ndarray:
        """(N, 7) float64 probabilities of the values 2, 4, 8, 16, 32, 64 and of "not a cube"
        (column 6; 0 for a 6-output model) for each candidate, averaged over ``turns`` quarter
        turns of its patch (the number on a cube may face any way) and over ``scales``: each
        candidate cropped at each of these multiples of its size, all in one network pass.
        Raises ``ValueError`` when a scale is not positive."""
        from vision.dice_patches import CUBE_CONTEXT, crop_patch, patches_blob

        scales = tuple(float(z) for z in scales)
        if not scales or any(not z > 0 for z in scales):
            raise ValueError(f"scales must be positive, got {scales}")
        if not cands:
            return np.zeros((0, 7))
        blob = patches_blob([crop_patch(image_bgr, c.center, c.size * z, context=CUBE_CONTEXT)
                             for z in scales for c in cands])
        if turns > 1:
            blob = np.ascontiguousarray(np.concatenate([np.rot90(blob, k, axes=(2, 3)) for k in range(turns)]))
        logits = self.net.run(blob).astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        # (readings, N, classes): every turn of every scale of a candidate averaged
        p = (e / e.sum(axis=1, keepdims=True)).reshape(max(turns, 1) * len(scales), len(cands), -1)
        if p.shape[2] == 6:
            p = np.concatenate([p, np.zeros(p.shape[:2] + (1,))], axis=2)
        return p.mean(axis=0)


def cube_place(center: tuple[float, float], field: Any = None, image_size: Optional[tuple[int, int]] = None) -> str:
    """``"centre"``, ``"top"`` or ``"bottom"`` for a cube at image pixel ``center``.

    With a ``field`` (:class:`vision.registration.Field`) the canonical y decides (the field's
    top/bottom in canonical terms are mapped back to the image's sides through the orientation);
    without one the image's height ``image_size`` ``(width, height)`` does.
    Raises ``ValueError`` when neither is given.
    """
    if field is not None:
        fx, fy = field.to_field(np.array([center], dtype=np.float64))[0]
        frac = fy / field.size[1]
        flipped = getattr(field, "orientation", "bottom-right") in ("top-right", "top-left")
    elif image_size is not None:
        frac = center[1] / image_size[1]
        flipped = False
    else:
        raise ValueError("cube_place needs a field or the image size")
    if CENTRE_BAND[0] <= frac <= CENTRE_BAND[1]:
        return "centre"
    top = frac < 0.5
    if flipped:
        top = not top
    return "top" if top else "bottom"


def off_points(center: tuple[float, float], field: Any) -> bool:
    """True when image pixel ``center`` lies off the points: on the bar, or outside the playing
    field (rails, trays, frame, table); always True without a ``field``."""
    if field is None:
        return True
    fx, fy = field.to_field(np.array([center], dtype=np.float64))[0]
    w, h = field.size
    if not (0 <= fx < w and 0 <= fy < h):
        return True
    return bool(field.bar_x0 <= fx < field.bar_x1)


def cube_from_scan(image_bgr: np.ndarray, cands: Sequence[Candidate], probs: np.ndarray, field: Any,
                   cube_reader: CubeReader, reader: Optional[DiceReader] = None) -> Optional[CubeReading]:
    """The most likely cube among scanned candidates (:meth:`DiceReader.scan`), or ``None``.

    A candidate's cube score is the dice classifier's "doubling cube" probability, halved on the
    points of a registered board (the cube is kept on the bar, the rail or in a tray; it crosses
    the points only while a double is offered). The best one is the cube when its score reaches
    :data:`CUBE_ACCEPT` and the cube network (reading it at four quarter turns and the sizes
    :data:`CUBE_SCALES` when its first reading's best value is below :data:`SURE`) does not call
    it "not a cube" (above 0.5); when it does, the next best candidate from that score is looked
    at (a checker scored a little above the real cube must not hide it). Its value is the
    network's most likely one; a cube in the centre (no double yet) shows 64 by the rules, so
    there 64's probability is weighted by :data:`CENTRE_PRIOR` before the most likely value is
    taken.

    With a ``field`` and the ``reader`` that scanned (``probs`` (N, 8) as
    :meth:`DiceReader.classify` gives them), a frame where no candidate is the cube is looked at
    again: the candidates off the points that read as no die are classified cropped
    :data:`CUBE_LOOK_AGAIN` times larger (:func:`cube_looked_again`), and the best one is the cube
    from a score of :data:`CUBE_ACCEPT_AGAIN`.
    """
    found = _cube_among(image_bgr, cands, probs, field, cube_reader, CUBE_ACCEPT)
    if found is None and reader is not None and field is not None:
        cands, probs = cube_looked_again(image_bgr, cands, probs, field, reader)
        found = _cube_among(image_bgr, cands, probs, field, cube_reader, CUBE_ACCEPT_AGAIN)
    return found


def cube_looked_again(image_bgr: np.ndarray, cands: Sequence[Candidate], probs: np.ndarray, field: Any,
                      reader: DiceReader) -> tuple[list[Candidate], np.ndarray]:
    """``cands`` and ``probs`` ((N, 8) float64, :meth:`DiceReader.classify`) with each candidate
    off the points (:func:`off_points`) that reads as no die classified again cropped
    :data:`CUBE_LOOK_AGAIN` times larger; the larger view replaces the first when its "doubling
    cube" probability is higher. ``image_bgr`` (H, W, 3) uint8 BGR; returns new lists, the inputs
    are not changed."""
    idx = [k for k, c in enumerate(cands)
           if off_points(c.center, field) and not reader.dice_from_scan([c], probs[k:k + 1])]
    cands = list(cands)
    if not idx:
        return cands, probs
    views = [dataclasses.replace(cands[k], size=cands[k].size * CUBE_LOOK_AGAIN) for k in idx]
    again = reader.classify(image_bgr, views, wider=False)
    probs = probs.copy()
    for k, view, p in zip(idx, views, again):
        if p[7] > probs[k, 7]:
            cands[k], probs[k] = view, p
    return cands, probs


def _cube_among(image_bgr: np.ndarray, cands: Sequence[Candidate], probs: np.ndarray, field: Any,
                cube_reader: CubeReader, accept: float) -> Optional[CubeReading]:
    """One look of :func:`cube_from_scan`: the cube among ``cands`` from a cube score of
    ``accept``, or None."""
    if len(cands) == 0:
        return None
    # a weight is at most 1, so only candidates whose cube probability reaches ``accept`` can be
    # the cube: the place (a homography per candidate) is looked up for those alone
    able = np.nonzero(probs[:, 7] >= accept)[0]
    if len(able) == 0:
        return None
    weight = np.array([1.0 if off_points(cands[i].center, field) else ON_POINTS_WEIGHT for i in able])
    score = probs[able, 7] * weight
    for k in np.argsort(-score, kind="stable"):
        if score[k] < accept:
            return None
        best = int(able[k])
        cand = cands[best]
        pc = cube_reader.probabilities(image_bgr, [cand])[0]
        if pc[:6].max() < SURE:  # unsure: read it at four quarter turns and four sizes and average
            pc = cube_reader.probabilities(image_bgr, [cand], turns=4, scales=CUBE_SCALES)[0]
        if pc[6] <= 0.5:  # else the cube network says: not a cube, and the next candidate is looked at
            break
    else:
        return None
    pv = pc[:6]
    h, w = image_bgr.shape[:2]
    place = cube_place(cand.center, field, (w, h))
    weighted = pv * np.where(np.arange(6) == 5, CENTRE_PRIOR if place == "centre" else 1.0, 1.0)
    k = int(np.argmax(weighted))
    conf = float(weighted[k] / max(weighted.sum(), 1e-12)) * float(probs[best, 7])
    return CubeReading(value=CUBE_VALUES[k], place=place, center=cand.center, confidence=conf)


def read_cube(image_bgr: np.ndarray, field: Any = None, *, reader: Optional[DiceReader] = None,
              cube_reader: Optional[CubeReader] = None) -> Optional[CubeReading]:
    """The doubling cube in the frame ((H, W, 3) uint8 BGR), or ``None`` when none is seen.

    ``field``: the registered board (or None: a free photo, place from the image's halves).
    Raises :class:`vision.dice.ImageError` for a malformed image.
    """
    image_bgr = as_bgr(image_bgr)
    reader = reader or DiceReader()
    cands, probs = reader.scan(image_bgr, field)
    return cube_from_scan(image_bgr, cands, probs, field, cube_reader or CubeReader(), reader)


def read_dice_and_cube(image_bgr: np.ndarray, field: Any = None, *, reader: Optional[DiceReader] = None,
                       cube_reader: Optional[CubeReader] = None):
    """Dice and cube from one detector pass: ``(list[DieReading], CubeReading | None)``; the
    dice as :meth:`vision.dice.DiceReader.read` gives them."""
    image_bgr = as_bgr(image_bgr)
    reader = reader or DiceReader()
    cands, probs = reader.scan(image_bgr, field)
    dice = reader.dice_from_scan(cands, probs)
    if field is None:
        dice = reader.free_photo_dice(image_bgr, cands, probs, dice)
    try:
        cr = cube_reader or CubeReader()
    except FileNotFoundError:
        return dice, None
    return dice, cube_from_scan(image_bgr, cands, probs, field, cr, reader)

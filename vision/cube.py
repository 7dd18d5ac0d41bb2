"""The doubling cube: where it lies and the value on its top face.

The dice detector also proposes the cube (a large die with numbers); the dice classifier tells
it apart ("doubling cube" class) and a second small network reads its top face (2, 4, 8, 16, 32 or
64 at any rotation) from a 32x32 patch (``vision/models/dice_cube.onnx``, trained on rendered
cubes by ``python -m vision.training.train_dice --only cube``).

Place: ``"centre"`` when the cube lies in the middle band of the board (on the bar or on the side
rail between the players, where it starts), else ``"top"`` or ``"bottom"``: the side of the image
of the player who owns it.
"""

from __future__ import annotations

import pathlib
from typing import Any, Optional, Sequence

import numpy as np

from companion.observation import CubeReading
from vision.dice import Candidate, DiceReader, as_bgr

MODELS = pathlib.Path(__file__).resolve().parent / "models"
CUBE_VALUES = (2, 4, 8, 16, 32, 64)
#: Minimum probability of the "doubling cube" class for a candidate to be the cube.
CUBE_ACCEPT = 0.5
#: The middle band (fraction of the field's height, or the image's height without a field).
CENTRE_BAND = (0.36, 0.64)


class CubeReader:
    """Reads the cube value from patches (``dice_cube.onnx`` in ``models``, default
    ``vision/models``). Raises ``FileNotFoundError`` when the model file is missing."""

    def __init__(self, models: pathlib.Path | str | None = None) -> None:
        import cv2

        path = (pathlib.Path(models) if models is not None else MODELS) / "dice_cube.onnx"
        if not path.is_file():
            raise FileNotFoundError(f"cube model missing: {path}")
        self.net = cv2.dnn.readNetFromONNX(str(path))

    def values(self, image_bgr: np.ndarray, cands: Sequence[Candidate]) -> np.ndarray:
        """(N, 6) float64 probabilities of the values 2, 4, 8, 16, 32, 64 for each candidate."""
        from vision.dice_patches import CUBE_CONTEXT, crop_patch, patches_blob

        if not cands:
            return np.zeros((0, 6))
        self.net.setInput(patches_blob([crop_patch(image_bgr, c.center, c.size, context=CUBE_CONTEXT)
                                        for c in cands]))
        logits = self.net.forward().astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)


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


def cube_from_scan(image_bgr: np.ndarray, cands: Sequence[Candidate], probs: np.ndarray, field: Any,
                   cube_reader: CubeReader) -> Optional[CubeReading]:
    """The most likely cube among scanned candidates (:meth:`DiceReader.scan`), or ``None``."""
    if len(cands) == 0:
        return None
    j = int(np.argmax(probs[:, 7]))
    if probs[j, 7] < CUBE_ACCEPT:
        return None
    pv = cube_reader.values(image_bgr, [cands[j]])[0]
    k = int(np.argmax(pv))
    h, w = image_bgr.shape[:2]
    place = cube_place(cands[j].center, field, (w, h))
    return CubeReading(value=CUBE_VALUES[k], place=place, center=cands[j].center,
                       confidence=float(pv[k] * probs[j, 7]))


def read_cube(image_bgr: np.ndarray, field: Any = None, *, reader: Optional[DiceReader] = None,
              cube_reader: Optional[CubeReader] = None) -> Optional[CubeReading]:
    """The doubling cube in the frame ((H, W, 3) uint8 BGR), or ``None`` when none is seen.

    ``field``: the registered board (or None: a free photo, place from the image's halves).
    Raises :class:`vision.dice.ImageError` for a malformed image.
    """
    image_bgr = as_bgr(image_bgr)
    reader = reader or DiceReader()
    cands, probs = reader.scan(image_bgr, field)
    return cube_from_scan(image_bgr, cands, probs, field, cube_reader or CubeReader())


def read_dice_and_cube(image_bgr: np.ndarray, field: Any = None, *, reader: Optional[DiceReader] = None,
                       cube_reader: Optional[CubeReader] = None):
    """Dice and cube from one detector pass: ``(list[DieReading], CubeReading | None)``."""
    image_bgr = as_bgr(image_bgr)
    reader = reader or DiceReader()
    cands, probs = reader.scan(image_bgr, field)
    dice = reader.dice_from_scan(cands, probs)
    try:
        cr = cube_reader or CubeReader()
    except FileNotFoundError:
        return dice, None
    return dice, cube_from_scan(image_bgr, cands, probs, field, cr)

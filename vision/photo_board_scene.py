"""Real board photos as boards to draw dice on: the labelled photos of ``shared/data/boards`` seen
by another camera, with their checkers where their labels put them.

A :class:`vision.render_roll.BoardScene` made from a photo carries the photo's own field, points,
checkers, light and JPEG, which no rendered board has; the tilt network's training draws dice on
them (``vision.training.train_tilt --photo-boards``). The photo is warped by a random homography
(each corner of the image moved up to :data:`CAMERA_JITTER` of its width), as another camera above
the same board sees it; the real dice and cube of the photo are kept clear of
(:attr:`PhotoBoard.objects`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import pathlib
from typing import Any, Optional

import numpy as np

__all__ = ["PhotoBoard", "load_photo_boards", "photo_board_scene", "CAMERA_JITTER"]

#: How far each corner of a photo may move, as a share of the photo's width, when it is seen by
#: another camera.
CAMERA_JITTER = 0.04


@dataclasses.dataclass(frozen=True)
class PhotoBoard:
    """A labelled board photo: ``name`` (its label's file stem), ``image`` (H, W, 3) uint8 BGR,
    ``corners`` (4, 2) float64 image-order field corners (TL, TR, BR, BL; pixels), ``points`` 24
    ``(count, colour)`` of points 1..24 (:func:`vision.evaluate.label_truth`), ``objects`` ``(x, y,
    radius)`` image pixels of the real dice and cube lying on it."""

    name: str
    image: np.ndarray
    corners: np.ndarray
    points: tuple[tuple[int, Optional[str]], ...]
    objects: tuple[tuple[float, float, float], ...]


def load_photo_boards(folder: pathlib.Path | str, leave_out_empty: bool = True) -> list[PhotoBoard]:
    """The labelled photos under ``folder`` (``labels/*.json`` and the images they name) with
    their field's corners labelled, by name; unreadable images and labels without corners are
    skipped. ``leave_out_empty``: photos labelled ``empty_board`` are left out (the board of
    ``benchmarks/photo_games.py``, kept unseen)."""
    import cv2

    from vision.evaluate import label_truth

    folder = pathlib.Path(folder)
    out = []
    for path in sorted((folder / "labels").glob("*.json")) if (folder / "labels").is_dir() else []:
        label = json.loads(path.read_text())
        if "corners" not in label or (leave_out_empty and label.get("empty_board")):
            continue
        image = cv2.imread(str(folder / label.get("file", "")))
        if image is None:
            continue
        truth = label_truth(label)
        corners = np.asarray(truth["corners"], float)
        side = float(np.linalg.norm(corners[1] - corners[0])) / 15
        found = [d["xy"] for d in label.get("dice") or [] if "xy" in d]
        if label.get("cube") and "xy" in label["cube"]:
            found.append(label["cube"]["xy"])
        out.append(PhotoBoard(path.stem, image, corners, tuple(truth["points"]),
                              tuple((float(x), float(y), 1.5 * side) for x, y in found)))
    return out


def photo_board_scene(rng: np.random.Generator, board: PhotoBoard,
                      die_to_checker: Optional[tuple[float, float]] = None) -> tuple[Any, list[tuple[float, float, float]]]:
    """``board`` seen by another camera, as a :class:`vision.render_roll.BoardScene` (its image a
    fresh warped copy) and the ``(x, y, radius)`` image pixels of its real dice and cube there.
    The die's side is drawn from ``die_to_checker`` (low, high) times a checker's diameter (None:
    1/30 of the field's width times 0.85..1.2, as :func:`vision.render_roll.random_board_scene`);
    the camera is 1..2.5 image widths above the board (straight down one time in six). Raises
    :class:`vision.registration.RegistrationError` when the photo's corners do not make a field."""
    import cv2

    from vision.registration import field_from_corners
    from vision.render_roll import BoardScene

    h, w = board.image.shape[:2]
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    moved = frame + rng.uniform(-CAMERA_JITTER, CAMERA_JITTER, (4, 2)).astype(np.float32) * w
    warp = cv2.getPerspectiveTransform(frame, moved).astype(np.float64)
    image = cv2.warpPerspective(board.image, warp, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)

    def seen(pts: np.ndarray) -> np.ndarray:
        q = np.hstack([pts, np.ones((len(pts), 1))]) @ warp.T
        return q[:, :2] / q[:, 2:3]

    field = field_from_corners(seen(board.corners), (w, h), validate=False)
    f2i = np.linalg.inv(np.asarray(field.homography, dtype=np.float64))
    fw, fh = field.size

    def to_img(x: float, y: float) -> np.ndarray:
        p = f2i @ np.array([x, y, 1.0])
        return p[:2] / p[2]

    px_per_unit = float(np.linalg.norm(to_img(fw / 2 + 10, fh / 2) - to_img(fw / 2, fh / 2))) / 10
    cw, ch = field.checker_size
    checkers = []
    for p, (n, colour) in enumerate(board.points, start=1):
        if not n or colour is None:
            continue
        g = field.point(p)
        step = ch if n <= 5 else ch * 4 / (n - 1)
        for i in range(n):
            x, y = to_img(g.centre_x, g.base_y + g.direction * (0.5 * ch + i * step))
            checkers.append((float(x), float(y), cw / 2 * px_per_unit))
    if die_to_checker is None:
        die_units = fw / 30.0 * float(rng.uniform(0.85, 1.2))
    else:
        die_units = cw * float(rng.uniform(*die_to_checker))
    cam_height = math.inf if rng.random() < 1 / 6 else float(rng.uniform(1.0, 2.5)) * w
    objects = [(float(x), float(y), r) for (x, y), (_, _, r) in
               zip(seen(np.array([o[:2] for o in board.objects], float).reshape(-1, 2)), board.objects)]
    scene = BoardScene(image, field, f2i, tuple(checkers), die_units, die_units * px_per_unit, cam_height,
                       f"photo {board.name}")
    return scene, objects

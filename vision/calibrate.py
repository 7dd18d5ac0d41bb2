"""Calibration: register a board in a frame, learn its checker colours, make a profile.

Two ways to learn the two checker colours (never hard-coded):

* ``opening``: the frame shows the opening position, whose layout is known. The
  inner colours of the checkers on points 6, 8, 13 and 24 (one player) and 1, 12, 17
  and 19 (the other) are averaged; the lighter set is ``light``.
* ``reading``: the frame's own reading, confirmed by the user (keeping the profile);
  the two colour clusters found become the profile's colours.

The spots of the board that look like a die (``board_marks``, :mod:`vision.board_marks`) are
learned from the frame, and from the empty board's frame when given.
The dice's size (``die_scale``, :mod:`vision.dice_size`) and the two players' dice colours
(``dice_sets``, :mod:`vision.dice_sets`) are learned on request (:func:`learn_dice`) from a frame
with the dice lying flat on the board, each player's dice on his own side for the colours.
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import TYPE_CHECKING, Callable, Mapping, Optional, Sequence

import numpy as np

from companion.observation import Observation
from vision.board_marks import BoardMarks
from vision.checkers import CheckerColours, CheckerSettings, read_checkers, warp_for_reading
from vision.profile import Profile, save_profile
from vision.reader import BoardReader
from vision.registration import CameraModel, Field, field_from_corners

if TYPE_CHECKING:
    from vision.board_learning import LearnedBoard
    from vision.learned_checkers import PointModel

#: The opening position (reference numbering): checkers per point of the player whose
#: home board holds points 1-6, and of the other player.
OPENING_NEAR = {6: 5, 8: 3, 13: 5, 24: 2}
OPENING_FAR = {1: 2, 12: 5, 17: 3, 19: 5}


class CalibrationError(ValueError):
    """The frame cannot be used to calibrate (e.g. not the opening position)."""


def learn_colours_opening(image_bgr: np.ndarray, field: Field,
                          settings: CheckerSettings = CheckerSettings()) -> CheckerColours:
    """Checker colours from a frame of the opening position.

    Samples the inner disc of every checker slot the opening position fills (the
    slots' places follow the board geometry at the working scale), then reads the
    frame with those colours as a check. Raises :class:`CalibrationError` when the
    two sets' colours are too alike or fewer than 20 of the 24 points read as the
    opening position.
    """
    import cv2

    small = warp_for_reading(image_bgr, field, settings)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = lab.shape[:2]
    s = small.shape[1] / field.size[0]
    pw_w, ph = field.checker_size
    k = max(3, int(round(0.45 * pw_w * s)) | 1)
    inner = cv2.blur(lab, (k, k))
    sets = []
    for layout in (OPENING_NEAR, OPENING_FAR):
        samples = []
        for p, n in layout.items():
            g = field.point(p)
            for i in range(min(n, 5)):
                y = (g.base_y + g.direction * (i + 0.5) * ph) * s
                x = g.centre_x * s
                samples.append(inner[int(np.clip(round(y), 0, h - 1)), int(np.clip(round(x), 0, w - 1))])
        sets.append(np.median(np.array(samples), axis=0))
    a, b = sets
    if np.linalg.norm(a - b) < settings.colour_split:
        raise CalibrationError("the two checker sets look alike: is the board in the opening position?")
    light, dark = (a, b) if a[0] >= b[0] else (b, a)
    colours = CheckerColours(tuple(float(v) for v in light), tuple(float(v) for v in dark))  # type: ignore[arg-type]
    # Check: read with these colours, the frame must show the opening layout.
    reading = read_checkers(small, field, settings, colours, occlusion=False)
    near_colour = "light" if (a is light) else "dark"
    far_colour = "dark" if near_colour == "light" else "light"
    expected = [(0, None)] * 24
    for p, n in OPENING_NEAR.items():
        expected[p - 1] = (n, near_colour)
    for p, n in OPENING_FAR.items():
        expected[p - 1] = (n, far_colour)
    agree = sum((reading.counts[i], reading.colours[i]) == expected[i] for i in range(24))
    if agree < 20:
        raise CalibrationError(f"the frame does not show the opening position ({agree}/24 points agree)")
    return colours


def calibrate_board(image_bgr: np.ndarray, corners: Optional[np.ndarray] = None, aruco: Optional[dict] = None,
                    orientation: str = "bottom-right", learn: str = "reading",
                    camera: Optional[CameraModel] = None, name: str = "board",
                    notes: str = "", settings: CheckerSettings = CheckerSettings(),
                    empty_bgr: Optional[np.ndarray] = None,
                    progress: Optional[Callable[[str, float], None]] = None,
                    learning: Optional[Mapping[str, int]] = None, point_model: Optional[PointModel] = None
                    ) -> tuple[Profile, Observation, Optional[LearnedBoard]]:
    """Make a :class:`Profile` from one frame.

    ``corners``: (4, 2) image-order field corners, else ``aruco`` markers, else the
    board is found automatically. ``learn``: ``"opening"`` (the frame shows the opening
    position: the point network learns this board, :func:`vision.board_learning.learn_board`,
    optionally with ``empty_bgr``, a frame of the empty board, and ``progress`` told along the
    way; ``learning``: keyword arguments for ``learn_board``, e.g. ``{"samples": 300}`` for a
    quicker, rougher adaptation; ``point_model``: the point network read and taught, default
    the shipped :class:`~vision.learned_checkers.PointModel`), ``"reading"`` (the colours of this frame's reading, see the module's doc) or
    ``"none"`` (colours are then clustered in every frame). Returns the profile, the frame's
    reading with what was learned, and the :class:`~vision.board_learning.LearnedBoard` (with
    ``"opening"``; its head, when one was adapted, is to be saved beside the profile, see
    :func:`save_calibration`).
    Raises :class:`CalibrationError` (e.g. not the opening position, naming the points that
    disagree) or :class:`~vision.registration.RegistrationError` (e.g. an empty-board frame of
    another size).
    """
    h, w = image_bgr.shape[:2]
    if corners is None:
        reader = BoardReader(aruco=aruco, orientation=orientation)
        field = reader.register(image_bgr)
        from vision.registration import image_order_corners

        corners = image_order_corners(field.corners, orientation)
    if camera is not None and tuple(camera.image_size) != (w, h):
        raise CalibrationError(f"the lens calibration is for {camera.image_size[0]}x{camera.image_size[1]} frames, "
                               f"this frame is {w}x{h}")
    if empty_bgr is not None and empty_bgr.shape[:2] != (h, w):
        raise CalibrationError(f"the empty board's frame is {empty_bgr.shape[1]}x{empty_bgr.shape[0]}, "
                               f"the opening's {w}x{h}: use two frames of the same camera")
    field = field_from_corners(corners, (w, h), orientation, camera=camera)
    learned = None
    model = None
    counts: Sequence[int] = ()  # the checkers of each point of the frame, where calibration knows them
    if learn == "opening":
        from vision.board_learning import BoardLearningError, learn_board
        from vision.learned_checkers import PointModel

        try:
            model = point_model or PointModel()
            learned = learn_board(image_bgr, field, model, empty_bgr, progress=progress, **dict(learning or {}))
        except BoardLearningError as exc:
            raise CalibrationError(str(exc)) from None
        colours = CheckerColours(learned.light, learned.dark)
        model = model.with_head(learned.head)
        counts = [{**OPENING_NEAR, **OPENING_FAR}.get(p, 0) for p in range(1, 25)]
    elif learn == "none":
        colours = None
    elif learn == "reading":
        reading = read_checkers(warp_for_reading(image_bgr, field, settings), field, settings)
        if reading.colour_model is None:
            raise CalibrationError("could not find two checker colours in this frame; "
                                   "use a frame with both sets in view or --learn opening")
        colours = reading.colour_model
        counts = list(reading.counts)
    else:
        raise CalibrationError(f"learn must be 'opening', 'reading' or 'none', got {learn!r}")
    profile = Profile(name=name, image_size=(w, h), corners=np.asarray(corners, float),
                      aruco=aruco, orientation=orientation,
                      camera=camera, colours=colours, settings=settings, notes=notes,
                      board_marks=board_marks([f for f in (image_bgr, empty_bgr) if f is not None], field,
                                              checker_centres(field, counts)))
    obs = BoardReader(field=field, settings=settings, colours=colours, orientation=orientation,
                      point_model=model).read(image_bgr)
    return profile, obs, learned


def checker_centres(field: Field, counts: Sequence[int]) -> list[tuple[float, float]]:
    """The canonical field centres of the checkers of points 1..24 holding ``counts`` (24
    numbers, or none), the first five of a point in its line."""
    out = []
    for p, n in enumerate(counts, start=1):
        g = field.point(p)
        ch = field.checker_size[1]
        out += [(g.centre_x, g.base_y + g.direction * (i + 0.5) * ch) for i in range(min(int(n), 5))]
    return out


def board_marks(frames: list[np.ndarray], field: Field,
                checkers: Sequence[tuple[float, float]] = ()) -> Optional[BoardMarks]:
    """The die-like marks of the board registered as ``field`` in ``frames`` ((H, W, 3) uint8
    BGR: the calibration frame, and the empty board's when given;
    :func:`vision.board_marks.find_marks`; ``checkers``: the calibration frame's checkers'
    canonical centres, whose marks move with them), or ``None`` when the dice models are
    missing (no dice are read then either)."""
    from vision.board_marks import find_marks
    from vision.dice import DiceReader
    from vision.dice_size import board_die_px

    try:
        reader = DiceReader()
    except FileNotFoundError:
        return None
    return find_marks(frames, field, reader, board_die_px(field, frames[0].shape), checkers=checkers)


def save_calibration(profile: Profile, learned: Optional[LearnedBoard], out: str | pathlib.Path) -> Profile:
    """Write a calibration: ``profile`` as JSON to ``out`` (folders made as needed) and, when
    ``learned`` (from :func:`calibrate_board` with ``learn="opening"``) holds an adapted head,
    that head beside it as ``<out stem>.points.npz``, named by the profile's ``point_head``;
    without one, a head file left there by an earlier calibration is removed once the profile
    is written (the profile reads with the shipped head). Returns the profile as written.
    Raises ``OSError`` when a file cannot be written."""
    out = pathlib.Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    head_file = out.with_name(out.stem + ".points.npz")
    if learned is not None and learned.head is not None:
        head = learned.head.save(head_file)
        profile = dataclasses.replace(profile, point_head=str(head.resolve()))
    save_profile(profile, out)
    if profile.point_head is None:
        head_file.unlink(missing_ok=True)
    return profile


def learn_dice(image_bgr: np.ndarray, profile: Profile) -> tuple[Profile, Optional[str]]:
    """``(profile, note)``: ``profile`` with ``die_scale`` and ``dice_sets`` learned from the frame
    ``image_bgr`` ((H, W, 3) uint8 BGR, the size of the profile's ``image_size``) with dice lying
    flat on its registered board. Their size is measured (:func:`vision.dice_size.learn_die_scale`);
    the dice read (:class:`vision.dice.DiceReader`) in the bottom half are the bottom player's set
    and those in the top half the top player's (:func:`vision.dice_sets.learn_dice_sets`), and no
    board mark lies where they lie (:func:`without_dice`). With one
    set of dice in view (a half without dice) or two sets alike, the size alone is learned and
    ``note`` says why the sets were not (else ``None``). Raises :class:`CalibrationError` when the
    profile has no corners, the dice models are missing or no die is seen."""
    from vision.dice import DiceReader
    from vision.dice_sets import DiceSetsError, learn_dice_sets
    from vision.dice_size import DiceSizeError, learn_die_scale

    h, w = image_bgr.shape[:2]
    field = profile.field((w, h))
    if field is None:
        raise CalibrationError("learning the dice needs the board's corners in the profile")
    try:
        reader = DiceReader()
        dice = reader.read(image_bgr, field)
        scale = learn_die_scale(image_bgr, field, reader, board_dice=dice)
    except FileNotFoundError as exc:
        raise CalibrationError(f"cannot read dice: {exc}") from None
    except DiceSizeError as exc:
        raise CalibrationError(str(exc)) from None
    try:
        sets, note = learn_dice_sets(image_bgr, dice, field), None
    except DiceSetsError as exc:
        sets, note = None, f"whose dice are whose not learned: {exc}"
    return dataclasses.replace(profile, dice_sets=sets, die_scale=scale,
                               board_marks=without_dice(profile.board_marks, dice, field)), note


def without_dice(marks: Optional[BoardMarks], dice: list, field: Field) -> Optional[BoardMarks]:
    """``marks`` less those lying within a die's side of one of ``dice``
    (:class:`~companion.observation.DieReading`, image pixels) on the board registered as
    ``field``: the dice shown at calibration are dice, however unsurely read at some sizes."""
    if not marks or not dice:
        return marks
    at = field.to_image(np.array([m.center for m in marks.marks], np.float64))
    keep = [m for m, xy in zip(marks.marks, at)
            if all(np.hypot(xy[0] - d.center[0], xy[1] - d.center[1]) > d.box[2] - d.box[0] for d in dice)]
    return BoardMarks(tuple(keep))

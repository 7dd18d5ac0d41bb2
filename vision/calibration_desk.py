"""The calibration page's work: one frame, the corners the user sets, learning in the background.

A :class:`CalibrationDesk` holds what ``companion calibrate --web`` calibrates from: a frame
of the opening position (and optionally one of the empty board), where the profile goes, and
the field corners to start from (:func:`first_corners`: the ArUco markers when the frame shows
them, else the board found automatically, else an inset of the frame). :meth:`~CalibrationDesk.start`
runs :func:`vision.calibrate.calibrate_board` with ``learn="opening"`` in a background thread
(the point network learns this board, :func:`vision.board_learning.learn_board`);
:meth:`~CalibrationDesk.state` reports its progress and then the reading of the frame, each
point's count with where to draw it on the picture; :meth:`~CalibrationDesk.save` writes the
profile and the adapted head, when one was learned (:func:`vision.calibrate.save_calibration`).

Everything it answers is plain JSON-able data, so that the page (:mod:`web.calibration`,
which never imports vision) only carries it. States: ``"ready"`` (nothing learned yet),
``"learning"``, ``"learned"`` (the reading waits for the user to confirm it), ``"refused"``
(``error``: the one-line reason, e.g. not the opening position, naming the points that
disagree) and ``"saved"``.
"""

from __future__ import annotations

import logging
import pathlib
import threading
from typing import Any, Mapping, Optional

import numpy as np

from companion.observation import Observation
from vision.registration import (ORIENTATIONS, CameraModel, Field, RegistrationError, detect_aruco_corners,
                                 detect_board_corners, field_from_corners)

log = logging.getLogger(__name__)

#: The corners to start from when neither markers nor the board are found: this fraction of
#: the frame's width and height in from each edge.
INSET = 0.1


def first_corners(image_bgr: np.ndarray, aruco: Optional[Mapping[str, Any]] = None) -> tuple[np.ndarray, str]:
    """Field corners to start the page's handles from, and how they were found.

    ``image_bgr``: (H, W, 3) uint8 BGR frame; ``aruco``: the markers' ``{"dictionary", "ids"}``
    (default DICT_4X4_50, ids 0-3). Returns ((4, 2) float64 image-order corners TL, TR, BR, BL
    in pixels, ``"aruco"`` | ``"found"`` | ``"inset"``): the markers' inner corners
    (:func:`~vision.registration.detect_aruco_corners`), else the board found automatically
    (:func:`~vision.registration.detect_board_corners`), else :data:`INSET` in from the frame's edges.
    """
    markers = dict(aruco or {})
    try:
        return detect_aruco_corners(image_bgr, markers.get("dictionary", "DICT_4X4_50"),
                                    markers.get("ids", (0, 1, 2, 3))), "aruco"
    except RegistrationError:
        pass
    try:
        return detect_board_corners(image_bgr), "found"
    except RegistrationError:
        pass
    h, w = image_bgr.shape[:2]
    x0, x1, y0, y1 = INSET * w, (1 - INSET) * w, INSET * h, (1 - INSET) * h
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64), "inset"


def parse_page_corners(value: Any) -> np.ndarray:
    """The page's corners ``[[x, y], ...]`` (four pairs of finite numbers, image pixels, TL, TR,
    BR, BL) as a (4, 2) float64 array; raises ``ValueError`` naming what is wrong."""
    try:
        corners = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("corners must be four [x, y] pairs of numbers") from None
    if corners.shape != (4, 2):
        raise ValueError("corners must be four [x, y] pairs of numbers (top-left, top-right, bottom-right, "
                         "bottom-left)")
    if not np.all(np.isfinite(corners)):
        raise ValueError("corners must be finite numbers")
    return corners


def reading_marks(obs: Observation, field: Field) -> dict[str, Any]:
    """Where the page draws the reading of ``obs`` over the picture: ``{"points": [{"point",
    "count", "colour", "hidden", "x", "y"}], "bar": {...}, "off": {...}}``; ``x``, ``y`` (image
    pixels) lie on the point's centre line 90% of the way from its base to its tip, beside
    the checkers rather than over them."""
    points = []
    for pr in obs.points:
        g = field.point(pr.point)
        x, y = field.to_image(np.array([[g.centre_x, g.base_y + g.direction * 0.9 * g.length]]))[0]
        points.append({"point": pr.point, "count": pr.count, "colour": pr.colour,
                       "hidden": pr.point in obs.unreadable_points, "x": round(float(x), 1), "y": round(float(y), 1)})
    return {"points": points, "bar": obs.bar.to_dict(), "off": obs.off.to_dict()}


def board_marks_drawn(marks: Any, field: Any, shape: tuple[int, ...]) -> list[dict[str, float]]:
    """Where the page draws the board's die-like marks (:class:`vision.board_marks.BoardMarks`,
    or None: none): ``[{"x", "y", "side"}]``, image pixels of a frame of ``shape`` registered as
    ``field``."""
    from vision.dice_size import board_die_px

    if not marks:
        return []
    die = board_die_px(field, shape)
    at = field.to_image(np.array([m.center for m in marks.marks], np.float64))
    return [{"x": round(float(x), 1), "y": round(float(y), 1), "side": round(float(m.scale * die), 1)}
            for m, (x, y) in zip(marks.marks, at)]


class CalibrationDesk:
    """One calibration for the page, learning in a background thread (see the module's doc).

    ``image_bgr``: (H, W, 3) uint8 BGR frame of the opening position; ``out``: where
    :meth:`save` writes the profile (JSON; an adapted head beside it); ``orientation``,
    ``aruco``, ``camera``, ``name``, ``notes``, ``empty_bgr``: as for
    :func:`vision.calibrate.calibrate_board`; ``corners``: (4, 2) image-order corners to start
    from (else :func:`first_corners`); ``learning``: keyword arguments for
    :func:`vision.board_learning.learn_board` (e.g. fewer ``samples``: quicker, rougher);
    ``learn_dice``: also learn the dice lying flat on the frame (:func:`vision.calibrate.learn_dice`:
    their size and, with a pair on each side, whose dice are whose); ``point_model``: the point
    network read and taught (:class:`vision.learned_checkers.PointModel`), default the shipped one.
    """

    def __init__(self, image_bgr: np.ndarray, out: str | pathlib.Path, *, orientation: str = "bottom-right",
                 corners: Optional[np.ndarray] = None, aruco: Optional[dict] = None,
                 camera: Optional[CameraModel] = None, name: str = "board", notes: str = "",
                 empty_bgr: Optional[np.ndarray] = None, learning: Optional[Mapping[str, int]] = None,
                 learn_dice: bool = False, point_model: Optional[Any] = None) -> None:
        import cv2

        if orientation not in ORIENTATIONS:
            raise ValueError(f"orientation must be one of {', '.join(ORIENTATIONS)}, got {orientation!r}")
        self.image = image_bgr
        self.out = pathlib.Path(out)
        self.orientation = orientation
        self.aruco, self.camera, self.name, self.notes = aruco, camera, name, notes
        self.empty = empty_bgr
        self.learning = dict(learning or {})
        self.learn_dice = learn_dice
        self.point_model = point_model
        self._dice: Optional[dict[str, Any]] = None
        if corners is not None:
            self.corners, self.corners_source = np.asarray(corners, np.float64).reshape(4, 2), "given"
        else:
            self.corners, self.corners_source = first_corners(image_bgr, aruco)
        ok, jpeg = cv2.imencode(".jpg", image_bgr, [cv2.IMWRITE_JPEG_QUALITY, 90])
        if not ok:
            raise ValueError("cannot encode the frame as JPEG")
        self._jpeg = jpeg.tobytes()
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._saved = threading.Event()
        self._status: dict[str, Any] = {"state": "ready", "stage": "", "fraction": 0.0, "error": None}
        self._result: Optional[tuple[Any, Observation, Any, Field]] = None
        self._saved_to: Optional[str] = None

    @property
    def image_size(self) -> tuple[int, int]:
        """The frame's (width, height) in pixels."""
        return (int(self.image.shape[1]), int(self.image.shape[0]))

    def frame_jpeg(self) -> bytes:
        """The frame as JPEG bytes (quality 90)."""
        return self._jpeg

    def start(self, corners: Any, orientation: Optional[str] = None) -> None:
        """Start learning this board from the frame with ``corners`` (as :func:`parse_page_corners`
        takes them) and ``orientation`` (default the desk's). Returns at once; :meth:`state`
        follows. Raises ``ValueError`` (one line) for bad corners or orientation, or while
        learning already runs."""
        c = parse_page_corners(corners)
        orientation = orientation or self.orientation
        field_from_corners(c, self.image_size, orientation, camera=self.camera)  # RegistrationError: a ValueError
        with self._lock:
            if not self._idle.is_set():
                raise ValueError("this board is being learned already: wait for it to finish")
            self._idle.clear()
            self._status = {"state": "learning", "stage": "starting", "fraction": 0.0, "error": None}
            self._result, self._saved_to, self._dice = None, None, None
            self.orientation = orientation
        thread = threading.Thread(target=self._learn, args=(c, orientation), name="calibration", daemon=True)
        thread.start()

    def _progress(self, stage: str, fraction: float) -> None:
        with self._lock:
            self._status.update(stage=stage, fraction=min(max(float(fraction), 0.0), 1.0))

    def _learn(self, corners: np.ndarray, orientation: str) -> None:
        from vision.calibrate import CalibrationError, calibrate_board

        try:
            profile, obs, learned = calibrate_board(
                self.image, corners=corners, aruco=self.aruco, orientation=orientation, learn="opening",
                camera=self.camera, name=self.name, notes=self.notes, empty_bgr=self.empty,
                progress=self._progress, learning=self.learning, point_model=self.point_model)
            field = field_from_corners(corners, self.image_size, orientation, camera=self.camera)
            dice = None
            if self.learn_dice:
                profile, dice = self._learned_dice(profile)
            with self._lock:
                self._result = (profile, obs, learned, field)
                self._dice = dice
                self._status = {"state": "learned", "stage": "done", "fraction": 1.0, "error": None}
        except (CalibrationError, RegistrationError) as exc:
            with self._lock:
                self._status = {"state": "refused", "stage": "", "fraction": 0.0, "error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - a failure must reach the page, not end a thread silently
            log.exception("calibration failed")
            with self._lock:
                self._status = {"state": "refused", "stage": "", "fraction": 0.0,
                                "error": f"the calibration failed ({type(exc).__name__}: {exc}); see the log"}
        finally:
            self._idle.set()

    def _learned_dice(self, profile: Any) -> tuple[Any, dict[str, Any]]:
        """``profile`` with the dice learned from the frame, and what the page says of them:
        ``{"die_scale", "own_size", "sets", "note"}`` (``own_size``: the dice are searched at their
        own size, :func:`vision.dice_size.own_size`; ``note``: why the sets, or the dice, were
        not learned). A frame without dice keeps the board's calibration: the dice are then not
        learned."""
        from vision.calibrate import CalibrationError, learn_dice
        from vision.dice_size import own_size

        self._progress("learning the dice", 1.0)
        try:
            profile, note = learn_dice(self.image, profile)
        except CalibrationError as exc:
            return profile, {"die_scale": None, "own_size": False, "sets": False, "note": f"dice not learned: {exc}"}
        return profile, {"die_scale": round(float(profile.die_scale), 3), "own_size": own_size(profile.die_scale),
                         "sets": profile.dice_sets is not None, "note": note}

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait until no learning runs; True unless ``timeout`` seconds passed first."""
        return self._idle.wait(timeout)

    def wait_saved(self, timeout: Optional[float] = None) -> bool:
        """Wait until :meth:`save` has written the profile; True unless ``timeout`` passed first."""
        return self._saved.wait(timeout)

    def state(self) -> dict[str, Any]:
        """Everything the page shows: ``state``, ``stage``, ``fraction`` (0..1), ``error`` (a
        line or None), ``image_size`` [w, h], ``corners`` (the starting corners, [[x, y]] * 4),
        ``corners_source``, ``orientation`` (and the ``orientations`` to choose from), ``out`` (the profile's path), ``saved`` (the
        path written, or None), ``reading`` (:func:`reading_marks`, or None before a
        reading) and ``learned`` (``adapted``: whether the reader was adapted to this board, false
        when the shipped reader read the opening right; ``before``, ``after``: accuracy on
        held-back compositions of this board before and after adapting, or None; ``seconds``), or None; ``dice`` (with
        ``learn_dice``, once learned: ``die_scale``, ``own_size``, ``sets``, ``note``), or None;
        ``board_marks``: the places of the board that look like a die (:func:`board_marks_drawn`),
        or None before a reading."""
        with self._lock:
            out: dict[str, Any] = dict(self._status)
            result, saved, dice = self._result, self._saved_to, self._dice
        out.update(image_size=list(self.image_size), corners=[[round(float(v), 1) for v in c] for c in self.corners],
                   corners_source=self.corners_source, orientation=self.orientation,
                   orientations=list(ORIENTATIONS), out=str(self.out), saved=saved,
                   reading=None, learned=None, dice=dice, board_marks=None)
        if result is not None:
            profile, obs, learned, field = result
            out["reading"] = reading_marks(obs, field)
            out["board_marks"] = board_marks_drawn(profile.board_marks, field, self.image.shape)
            out["learned"] = {"adapted": learned.head is not None,
                              "before": None if learned.before is None else round(learned.before, 4),
                              "after": None if learned.after is None else round(learned.after, 4),
                              "seconds": round(learned.seconds, 1)}
            if saved is not None:
                out["state"] = "saved"
        return out

    def save(self) -> str:
        """Write the profile and its learned head (:func:`vision.calibrate.save_calibration`);
        returns the profile's path. Raises ``ValueError`` before anything was learned and
        ``OSError`` when the files cannot be written."""
        from vision.calibrate import save_calibration

        with self._lock:
            result = self._result
        if result is None:
            raise ValueError("nothing to save yet: learn this board first")
        profile, _obs, learned, _field = result
        save_calibration(profile, learned, self.out)
        with self._lock:
            self._saved_to = str(self.out)
        self._saved.set()
        return str(self.out)


"""One frame in, one :class:`~companion.observation.Observation` out.

:class:`BoardReader` ties the stages together: registration (given corners, a
profile, ArUco markers or automatic detection), the checker reader
(:mod:`vision.checkers`), and pluggable dice and cube readers. A dice reader is any
callable ``(image_bgr, field) -> Sequence[DieReading]`` and a cube reader any
callable ``(image_bgr, field) -> Optional[CubeReading]`` (``image_bgr`` the
(H, W, 3) uint8 BGR frame, ``field`` its :class:`~vision.registration.Field`);
without them ``dice`` is empty and ``cube`` is ``None``.

Example::

    reader = BoardReader.from_corners(corners, (1280, 720))
    obs = reader.read(frame)
    print(obs.to_dict()["points"][0])
"""

from __future__ import annotations

import dataclasses
import pathlib
import time
from typing import Callable, Optional, Sequence

import numpy as np

from companion.observation import Counts, CubeReading, DieReading, Observation, PointReading
from vision.learned_checkers import (BoardDistribution, PointDistribution, PointModel, bar_unreadable, read_board,
                                     to_checker_reading, unsure)
from vision.cocked import CHECKER_SURE, checkers_read_as_dice, weak_dice
from vision.point_crops import cover_boxes, small_field
from vision.checkers import (CheckerColours, CheckerReading, CheckerSettings, dice_mask_from_boxes, read_checkers,
                             warp_for_reading)
from vision.registration import Field, RegistrationError, field_from_corners
from vision.trays import TrayReading, TraySettings, read_trays, tray_maps

DiceReader = Callable[[np.ndarray, Field], Sequence[DieReading]]
CubeReader = Callable[[np.ndarray, Field], Optional[CubeReading]]

#: Checkers per side in backgammon.
CHECKERS_PER_SIDE = 15


class ImageError(ValueError):
    """An image file that cannot be used (missing, unreadable, empty, not a picture)."""


def load_image(path: str | pathlib.Path) -> np.ndarray:
    """Read an image file as (H, W, 3) uint8 BGR (``cv2.imread``; grey and alpha converted).

    Raises :class:`ImageError` with a one-line reason for a missing, empty or
    undecodable file, or an image smaller than 32x32 pixels.
    """
    import cv2

    p = pathlib.Path(path)
    if not p.exists():
        raise ImageError(f"no such file: {p}")
    if p.is_dir():
        raise ImageError(f"{p} is a folder, not an image")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ImageError(f"cannot read {p}: {exc.strerror or exc}") from None
    if not data:
        raise ImageError(f"{p} is empty")
    # A truncated or corrupt file makes the decoders log warnings on stderr: the one
    # line below says what is wrong, so they are silenced for this call.
    logging = getattr(getattr(cv2, "utils", None), "logging", None)
    level = logging.getLogLevel() if logging is not None else None
    try:
        if logging is not None:
            logging.setLogLevel(logging.LOG_LEVEL_SILENT)
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    finally:
        if logging is not None:
            logging.setLogLevel(level)
    if img is None:
        raise ImageError(f"{p} is not an image OpenCV can decode")
    if img.shape[0] < 32 or img.shape[1] < 32:
        raise ImageError(f"{p} is too small ({img.shape[1]}x{img.shape[0]}) to hold a board")
    return img


@dataclasses.dataclass
class ReadResult:
    """A reading with its working parts: the :class:`Observation`, the
    :class:`~vision.checkers.CheckerReading`, the :class:`Field` used and the working
    field image ((h, w, 3) uint8 BGR: at the classical reader's working scale, or the learned
    reader's small field with its border, :func:`vision.point_crops.small_field`)."""

    observation: Observation
    checkers: CheckerReading
    field: Field
    field_image: np.ndarray


@dataclasses.dataclass
class BoardReader:
    """Reads frames of one board and camera.

    ``field``: a fixed registration, or ``None`` to find the board in every frame
    (ArUco markers when ``aruco`` is set, else automatic detection); ``settings``:
    checker reader settings; ``colours``: learned checker colours (``None``: cluster
    per frame); ``dice_reader`` / ``cube_reader``: optional plug-ins;
    ``orientation`` and ``geometry`` apply to per-frame registrations;
    ``mask_dice``: the dice and the cube the plug-ins find are masked out of the
    checker evidence (a die on an empty point is no checker, a die on a checker
    hides none); ``trays``: where the bear-off tray is (:mod:`vision.trays`); ``off``
    comes from the tray when it is in view, read with confidence and agrees with 15
    minus the checkers seen, else it is inferred. ``point_model``: the checker reader,
    the point network (:mod:`vision.learned_checkers`; by default the shipped one;
    :meth:`from_profile` gives it a board's head adapted at calibration), whose probabilities
    go into the :class:`Observation`; it covers the dice and the cube found in its crops
    (:func:`vision.point_crops.cover_boxes`) when ``mask_dice`` is set. ``None`` reads with
    the classical reader (:mod:`vision.checkers`: ``settings``), the baseline of
    ``python -m vision.evaluate --reader classical`` and ``benchmarks/bench_read.py``.
    """

    field: Optional[Field] = None
    settings: CheckerSettings = CheckerSettings()
    colours: Optional[CheckerColours] = None
    dice_reader: Optional[DiceReader] = None
    cube_reader: Optional[CubeReader] = None
    aruco: Optional[dict] = None
    orientation: str = "bottom-right"
    infer_off: bool = True
    mask_dice: bool = True
    trays: TraySettings = TraySettings()
    point_model: Optional[PointModel] = dataclasses.field(default_factory=PointModel)
    _geometry: Optional[tuple[Field, tuple[float, ...], float]] = dataclasses.field(default=None, repr=False)
    _tray_maps: Optional[tuple[Field, object]] = dataclasses.field(default=None, repr=False)

    @classmethod
    def from_corners(cls, corners: np.ndarray, image_size: tuple[int, int], **kwargs) -> "BoardReader":
        """A reader for a fixed camera: ``corners`` (4, 2) image-order field corners."""
        orientation = kwargs.get("orientation", "bottom-right")
        return cls(field=field_from_corners(corners, image_size, orientation), **kwargs)

    @classmethod
    def from_profile(cls, profile, image_size: Optional[tuple[int, int]] = None, **kwargs) -> "BoardReader":
        """A reader from a :class:`~vision.profile.Profile` (``image_size`` of the frames
        to come, default the profile's own)."""
        size = image_size or profile.image_size
        field = profile.field(size) if (profile.corners is not None and size is not None) else None
        kwargs.setdefault("trays", getattr(profile, "trays", TraySettings()))
        if "point_model" not in kwargs:
            kwargs["point_model"] = point_model_for(profile)
        return cls(field=field, settings=profile.settings, colours=profile.colours, aruco=profile.aruco,
                   orientation=profile.orientation, **kwargs)

    def register(self, image_bgr: np.ndarray) -> Field:
        """The :class:`Field` for this frame; raises ``RegistrationError`` when the board
        cannot be found or the frame's size does not match the fixed registration."""
        h, w = image_bgr.shape[:2]
        if self.field is not None:
            if tuple(self.field.image_size) != (w, h):
                raise RegistrationError(
                    f"frame is {w}x{h} but the registration is for {self.field.image_size[0]}x{self.field.image_size[1]}")
            return self.field
        if self.aruco:
            from vision.registration import detect_aruco_corners

            corners = detect_aruco_corners(image_bgr, self.aruco.get("dictionary", "DICT_4X4_50"),
                                           self.aruco.get("ids", (0, 1, 2, 3)))
        else:
            from vision.registration import detect_board_corners

            corners = detect_board_corners(image_bgr)
        return field_from_corners(corners, (w, h), self.orientation)

    def read_full(self, image_bgr: np.ndarray, frame_index: int = 0, timestamp_ms: float = 0.0) -> ReadResult:
        """Read a frame and keep the working parts (see :class:`ReadResult`).

        ``image_bgr``: (H, W, 3) uint8 BGR. Raises ``ValueError`` subclasses for a bad
        image or a board that cannot be registered.
        """
        if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
            raise ValueError("expected an (H, W, 3) uint8 BGR image")
        if image_bgr.dtype != np.uint8:
            raise ValueError(f"expected uint8 pixels, got {image_bgr.dtype}")
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        field = self.register(image_bgr)
        t1 = time.perf_counter()
        timings["registration"] = (t1 - t0) * 1e3
        if self.point_model is not None:
            small = small_field(image_bgr, field)
        else:
            small = warp_for_reading(image_bgr, field, self.settings)
        t2 = time.perf_counter()
        timings["warp"] = (t2 - t1) * 1e3
        dice: tuple[DieReading, ...] = ()
        cube: Optional[CubeReading] = None
        if self.dice_reader is not None:
            td = time.perf_counter()
            dice = tuple(self.dice_reader(image_bgr, field))
            timings["dice"] = (time.perf_counter() - td) * 1e3
        if self.cube_reader is not None:
            tc = time.perf_counter()
            cube = self.cube_reader(image_bgr, field)
            timings["cube"] = (time.perf_counter() - tc) * 1e3
        boxes = [d.box for d in dice if d.box is not None]
        if cube is not None and getattr(cube, "box", None) is not None:
            boxes.append(cube.box)
        t2 = time.perf_counter()
        if self.point_model is not None:
            # The network is trained on crops whose dice are covered the same way.
            learned = None if self.colours is None else (self.colours.light, self.colours.dark)
            board = read_board(cover_boxes(small, field, boxes) if self.mask_dice else small, field, self.point_model,
                               learned)
            reading = to_checker_reading(board, field, self.settings.work_scale)
            if self.mask_dice and weak_dice(dice):
                board, reading, dice = self._checkers_taken_for_dice(small, field, dice, cube, learned, board, reading)
            t3 = time.perf_counter()
            timings["checkers"] = (t3 - t2) * 1e3
            return self._finish(image_bgr, field, reading, dice, cube, timings, frame_index, timestamp_ms, t0, t3,
                                small, board)
        dice_mask = None
        if self.mask_dice and boxes:
            dice_mask = dice_mask_from_boxes(boxes, field, small.shape[:2], self.settings.work_scale)
        t2 = time.perf_counter()
        fixed = self.field is not None
        cached = self._geometry if (fixed and self._geometry is not None and self._geometry[0] is field) else None
        reading = read_checkers(small, field, self.settings, self.colours,
                                halves=None if cached is None else cached[1],
                                diameter=None if cached is None else cached[2], dice_mask=dice_mask)
        if fixed and cached is None:
            # The bar gap and the checkers' size of a fixed board: fitted once per registration.
            self._geometry = (field, reading.halves, reading.diameter)
        t3 = time.perf_counter()
        timings["checkers"] = (t3 - t2) * 1e3
        for k, v in reading.timings_ms.items():
            timings[f"checkers.{k}"] = v
        return self._finish(image_bgr, field, reading, dice, cube, timings, frame_index, timestamp_ms, t0, t3, small)

    def _checkers_taken_for_dice(self, small: np.ndarray, field: Field, dice: tuple[DieReading, ...],
                                 cube: Optional[CubeReading], learned: Optional[tuple], board: BoardDistribution,
                                 reading: CheckerReading) -> tuple[BoardDistribution, CheckerReading,
                                                                   tuple[DieReading, ...]]:
        """The points read again with the weakly read dice (:func:`vision.cocked.weak_dice`) not
        covered: those that lie on a checker that reading counts surely are that checker
        (:func:`vision.cocked.checkers_read_as_dice`) and leave ``dice``; returns the reading with
        the dice that stay covered, or ``board``, ``reading`` and ``dice`` as they came."""
        suspects = set(weak_dice(dice))
        cube_box = [cube.box] if cube is not None and getattr(cube, "box", None) is not None else []
        kept = [d.box for k, d in enumerate(dice) if k not in suspects and d.box is not None] + cube_box
        open_board = read_board(cover_boxes(small, field, kept), field, self.point_model, learned)
        open_reading = to_checker_reading(open_board, field, self.settings.work_scale)
        halves = [h for h, d in zip(("top", "bottom"), open_board.bar) if d.count and d.confidence >= CHECKER_SURE
                  and not unsure(d)]
        gone = set(checkers_read_as_dice(dice, field, sure_checkers(open_board, open_reading,
                                                                      self.settings.work_scale), halves))
        if not gone:
            return board, reading, dice
        dice = tuple(d for k, d in enumerate(dice) if k not in gone)
        if gone != suspects:  # the weak dice that stay are covered again
            boxes = [d.box for d in dice if d.box is not None] + cube_box
            open_board = read_board(cover_boxes(small, field, boxes), field, self.point_model, learned)
            open_reading = to_checker_reading(open_board, field, self.settings.work_scale)
        return open_board, open_reading, dice

    def _finish(self, image_bgr: np.ndarray, field: Field, reading: CheckerReading, dice: Sequence[DieReading],
                cube: Optional[CubeReading], timings: dict[str, float], frame_index: int, timestamp_ms: float,
                t0: float, t3: float, small: np.ndarray, board: Optional[BoardDistribution] = None) -> ReadResult:
        """The trays and the :class:`Observation` once the checkers are read."""
        tray = None
        if self.infer_off and self.trays.enabled:
            if self._tray_maps is None or self._tray_maps[0] is not field:
                # Where the tray lies in the image: computed once per registration.
                self._tray_maps = (field, tray_maps(field, self.trays))
            tray = read_trays(image_bgr, field, reading.colour_model, self.trays, self._tray_maps[1])
            timings["trays"] = (time.perf_counter() - t3) * 1e3
        timings["total"] = (time.perf_counter() - t0) * 1e3
        obs = build_observation(reading, field, dice, cube, timings, frame_index, timestamp_ms, self.infer_off, tray,
                                board)
        return ReadResult(obs, reading, field, small)

    def read(self, image_bgr: np.ndarray, frame_index: int = 0, timestamp_ms: float = 0.0) -> Observation:
        """Read a frame: (H, W, 3) uint8 BGR -> :class:`Observation`."""
        return self.read_full(image_bgr, frame_index, timestamp_ms).observation


def sure_checkers(board: BoardDistribution, reading: CheckerReading, work_scale: float) -> list[tuple[float, float]]:
    """The (x, y) canonical field centres of the checkers of ``reading`` (the
    :func:`vision.learned_checkers.to_checker_reading` of ``board``, at ``work_scale``) on the points
    ``board`` reads at :data:`vision.cocked.CHECKER_SURE` or more (the bar's left out: its checkers
    are not placed where they stand)."""
    return [(c.x / work_scale, c.y / work_scale) for c in reading.checkers
            if c.place and board.points[c.place - 1].confidence >= CHECKER_SURE]


def point_model_for(profile) -> PointModel:
    """The learned reader for a :class:`~vision.profile.Profile`: with the head the board
    learned at calibration (``point_head``), else the shipped one. Raises ``ValueError`` for
    an unreadable head and ``FileNotFoundError`` for a missing network."""
    if not getattr(profile, "point_head", None):
        return PointModel()
    from vision.learned_checkers import PointHead

    return PointModel(head=PointHead.load(profile.point_head))


def _top_signed(d: PointDistribution, floor: float = 1e-3) -> tuple[tuple[int, float], ...]:
    """A point's (signed count, probability) pairs above ``floor``, most likely first."""
    pairs = [(k, v) for k, v in d.signed().items() if v >= floor]
    return tuple(sorted(pairs, key=lambda kv: -kv[1]))


def _bar_triples(board: BoardDistribution, floor: float = 1e-3) -> tuple[tuple[int, int, float], ...]:
    """The bar's (light, dark, probability) triples above ``floor``, most likely first: each
    half of the bar holds checkers of one colour (P(count) of its distribution, split by its
    P(light)), the two halves independent. A half's entries below ``floor`` / 10 are left out
    before the two are combined (a triple's probability is then low by at most 2 x ``floor`` / 10)."""
    halves = []
    for d in board.bar:
        h: dict[tuple[int, int], float] = {(0, 0): d.counts[0]}
        for k in range(1, len(d.counts)):
            h[(k, 0)] = d.counts[k] * d.light
            h[(0, k)] = d.counts[k] * (1.0 - d.light)
        halves.append({key: v for key, v in h.items() if v >= floor / 10})
    joint: dict[tuple[int, int], float] = {}
    for (l0, d0), p0 in halves[0].items():
        for (l1, d1), p1 in halves[1].items():
            key = (l0 + l1, d0 + d1)
            joint[key] = joint.get(key, 0.0) + p0 * p1
    triples = [(lt, dk, float(v)) for (lt, dk), v in joint.items() if v >= floor]
    return tuple(sorted(triples, key=lambda t: -t[2]))


def build_observation(reading: CheckerReading, field: Field, dice: Sequence[DieReading] = (),
                      cube: Optional[CubeReading] = None, timings: Optional[dict[str, float]] = None,
                      frame_index: int = 0, timestamp_ms: float = 0.0, infer_off: bool = True,
                      tray: Optional[TrayReading] = None, board: Optional[BoardDistribution] = None) -> Observation:
    """Turn a :class:`CheckerReading` into the :class:`Observation` contract.

    ``board``: the learned reader's probabilities (:class:`vision.learned_checkers.BoardDistribution`),
    carried into each :class:`PointReading`'s ``distribution`` and ``hidden`` and into the
    observation's ``bar_distribution``.

    ``tray``: the bear-off tray's reading (:func:`vision.trays.read_trays`) or ``None``
    when it is out of view. A colour's tray count becomes its ``off`` when the tray is
    sure of it, no point is unreadable and it makes 15 with that colour's checkers seen
    on the points and the bar; ``off_source`` is ``"trays"`` when both colours come from
    the tray (then ``off_visible`` is true), ``"mixed"`` when one does, else
    ``"inferred"``, with ``off_trays`` holding a tray reading not wholly used.
    A colour not taken from the tray is inferred:
    for a side whose checkers all stand in one home board (points 1-6 or 19-24) with
    none on the bar, ``off`` is 15 minus those seen; otherwise zero (a checker missing
    elsewhere is more likely hidden or in a hand than borne off). Nothing is inferred
    while a point or the bar is unreadable (``bar_unreadable``: the learned reading of a half
    of the bar is unsure, :func:`vision.learned_checkers.bar_unreadable`).
    """
    if board is None:
        points = tuple(PointReading(p, int(reading.counts[p - 1]), reading.colours[p - 1]) for p in range(1, 25))  # type: ignore[arg-type]
    else:
        points = tuple(PointReading(p, int(reading.counts[p - 1]), reading.colours[p - 1],  # type: ignore[arg-type]
                                    _top_signed(board.points[p - 1]), float(board.points[p - 1].hidden))
                       for p in range(1, 25))
    seen = {"light": reading.bar.get("light", 0), "dark": reading.bar.get("dark", 0)}
    for pr in points:
        if pr.colour:
            seen[pr.colour] += pr.count
    off = {"light": 0, "dark": 0}
    bar_hidden = board is not None and bar_unreadable(board)
    if infer_off and not reading.unreadable and not bar_hidden:
        for colour in ("light", "dark"):
            where = [pr.point for pr in points if pr.colour == colour and pr.count]
            # Checkers are borne off only once all of a side's checkers are in its home
            # board: points 1-6 or 19-24 (whichever that side's is), none on the bar.
            home = bool(where) and (all(p <= 6 for p in where) or all(p >= 19 for p in where))
            if home and reading.bar.get(colour, 0) == 0 and seen[colour] < CHECKERS_PER_SIDE:
                off[colour] = CHECKERS_PER_SIDE - seen[colour]
    off_counts = Counts(light=off["light"], dark=off["dark"])
    off_source, off_trays = "inferred", None
    if tray is not None:
        # Per colour: the tray's count when it is sure and makes 15 with those seen.
        used = {c: bool(tray.sure[c] and seen[c] + tray.counts[c] == CHECKERS_PER_SIDE and not reading.unreadable
                        and not bar_hidden)
                for c in ("light", "dark")}
        if any(used.values()):
            off_counts = Counts(**{c: tray.counts[c] if used[c] else off[c] for c in ("light", "dark")})
            off_source = "trays" if all(used.values()) else "mixed"
        if not all(used.values()):
            off_trays = Counts(light=tray.counts["light"], dark=tray.counts["dark"])
    confidence = 1.0 if not reading.unreadable else max(0.0, 1.0 - len(reading.unreadable) / 24)
    return Observation(
        points=points,
        bar=Counts(light=reading.bar.get("light", 0), dark=reading.bar.get("dark", 0)),
        off=off_counts,
        off_visible=off_source == "trays",
        off_source=off_source,
        off_trays=off_trays,
        unreadable_points=tuple(sorted(reading.unreadable)),
        bar_unreadable=bar_hidden,
        bar_distribution=() if board is None else _bar_triples(board),
        occluded=reading.occluded or bar_hidden,
        dice=tuple(dice),
        cube=cube,
        confidence=confidence,
        timings_ms=dict(timings or {}),
        frame_index=frame_index,
        timestamp_ms=timestamp_ms,
    )

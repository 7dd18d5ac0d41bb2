"""Calibration profiles: a board and camera, saved as readable JSON under ``calibration/``.

A profile holds what ``companion calibrate`` learned: the field's corners in the
image (or the ArUco layout that finds them), the orientation, the board style's
proportions, the lens model, the two checker colours and any reader settings that
differ from the defaults. ``calibration/README.md`` documents every field.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
from typing import Any, Optional

import numpy as np

from vision.board_marks import BoardMarks, BoardMarksError
from vision.checkers import CheckerColours, CheckerSettings
from vision.dice_sets import DiceSets, DiceSetsError
from vision.trays import TraySettings
from vision.registration import (
    ORIENTATIONS,
    BoardGeometry,
    CameraModel,
    Field,
    RegistrationError,
    field_from_corners,
)

#: Bumped when a field changes meaning.
PROFILE_VERSION = 1


class ProfileError(ValueError):
    """A profile file that cannot be read or does not make sense."""


@dataclasses.dataclass(frozen=True)
class Profile:
    """A board + camera calibration.

    ``name``: free text; ``image_size``: (width, height) the corners refer to;
    ``corners``: (4, 2) image-order field corners (TL, TR, BR, BL as seen) or ``None``
    when the board is found per frame (``aruco`` or automatic); ``aruco``:
    ``{"dictionary": ..., "ids": [TL, TR, BR, BL]}`` or ``None``; ``orientation``: see
    :data:`vision.registration.ORIENTATIONS`; ``geometry``; ``camera`` (lens) or
    ``None``; ``colours``: learned checker colours or ``None``; ``settings``: reader
    settings; ``notes``: free text; ``trays``: where the bear-off tray is
    (:class:`~vision.trays.TraySettings`); ``dice_sets``: the colours of the two players'
    dice (:class:`~vision.dice_sets.DiceSets`) or ``None`` (the sets are not told apart);
    ``point_head``: the file of the point network's head adapted to this board at calibration
    (:mod:`vision.board_learning`), or ``None`` (the shipped head). In the JSON form it is
    given relative to the profile's folder; :func:`load_profile` makes it absolute.
    ``die_scale``: the players' dice's side as a multiple of a tournament die on this board
    (:mod:`vision.dice_size`), or ``None`` (not measured). ``board_marks``: the spots of this
    board that look like a die (:class:`~vision.board_marks.BoardMarks`, learned at
    calibration), or ``None`` (not learned).
    """

    name: str = "board"
    image_size: Optional[tuple[int, int]] = None
    corners: Optional[np.ndarray] = None
    aruco: Optional[dict[str, Any]] = None
    orientation: str = "bottom-right"
    geometry: BoardGeometry = BoardGeometry()
    camera: Optional[CameraModel] = None
    colours: Optional[CheckerColours] = None
    settings: CheckerSettings = CheckerSettings()
    notes: str = ""
    trays: TraySettings = TraySettings()
    dice_sets: Optional[DiceSets] = None
    point_head: Optional[str] = None
    die_scale: Optional[float] = None
    board_marks: Optional[BoardMarks] = None

    def field(self, image_size: tuple[int, int]) -> Optional[Field]:
        """The registration for frames of ``image_size`` (corners scaled when the
        frame's size differs by a uniform factor), or ``None`` without corners.
        Raises :class:`~vision.registration.RegistrationError` on bad corners or a
        frame of another aspect ratio."""
        if self.corners is None:
            return None
        corners = np.asarray(self.corners, dtype=np.float64)
        if self.image_size is not None and tuple(image_size) != tuple(self.image_size):
            sx = image_size[0] / self.image_size[0]
            sy = image_size[1] / self.image_size[1]
            if abs(sx - sy) > 0.01 * max(sx, sy):
                raise RegistrationError(
                    f"the profile is for {self.image_size[0]}x{self.image_size[1]} frames, this one is "
                    f"{image_size[0]}x{image_size[1]}")
            corners = corners * np.array([sx, sy])
        camera = self.camera if self.camera is not None and tuple(self.camera.image_size) == tuple(image_size) else None
        return field_from_corners(corners, image_size, self.orientation, self.geometry, camera)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (see ``calibration/README.md``)."""
        defaults = CheckerSettings().to_dict()
        changed = {k: v for k, v in self.settings.to_dict().items() if defaults.get(k) != v}
        return {
            "version": PROFILE_VERSION,
            "name": self.name,
            "image_size": None if self.image_size is None else list(self.image_size),
            "corners": None if self.corners is None else {
                k: [round(float(x), 2) for x in c]
                for k, c in zip(("top_left", "top_right", "bottom_right", "bottom_left"), np.asarray(self.corners))},
            "aruco": self.aruco,
            "orientation": self.orientation,
            "geometry": self.geometry.to_dict(),
            "camera": None if self.camera is None else self.camera.to_dict(),
            "colours": None if self.colours is None else self.colours.to_dict(),
            "settings": changed,
            "notes": self.notes,
            **({} if self.trays == TraySettings() else {"trays": self.trays.to_dict()}),
            **({} if self.dice_sets is None else {"dice_sets": self.dice_sets.to_dict()}),
            **({} if self.point_head is None else {"point_head": self.point_head}),
            **({} if self.die_scale is None else {"die_scale": round(float(self.die_scale), 4)}),
            **({} if self.board_marks is None else {"board_marks": self.board_marks.to_dict()}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Profile":
        """Build from the JSON form; raises :class:`ProfileError` with the reason."""
        if not isinstance(data, dict):
            raise ProfileError("a profile must be a JSON object")
        version = data.get("version", PROFILE_VERSION)
        if version != PROFILE_VERSION:
            raise ProfileError(f"profile version {version} is not supported (expected {PROFILE_VERSION})")
        try:
            corners = None
            if data.get("corners") is not None:
                c = data["corners"]
                if isinstance(c, dict):
                    corners = np.array([c["top_left"], c["top_right"], c["bottom_right"], c["bottom_left"]], float)
                else:
                    corners = np.asarray(c, dtype=float).reshape(4, 2)
            size = data.get("image_size")
            orientation = data.get("orientation", "bottom-right")
            if orientation not in ORIENTATIONS:
                raise ProfileError(f"orientation must be one of {', '.join(ORIENTATIONS)}")
            return cls(
                name=str(data.get("name", "board")),
                image_size=None if size is None else (int(size[0]), int(size[1])),
                corners=corners,
                aruco=data.get("aruco"),
                orientation=orientation,
                geometry=BoardGeometry.from_dict(data.get("geometry") or {}),
                camera=None if data.get("camera") is None else CameraModel.from_dict(data["camera"]),
                colours=None if data.get("colours") is None else CheckerColours.from_dict(data["colours"]),
                settings=CheckerSettings.from_dict(data.get("settings") or {}),
                notes=str(data.get("notes", "")),
                trays=TraySettings.from_dict(data.get("trays") or {}),
                dice_sets=None if data.get("dice_sets") is None else DiceSets.from_dict(data["dice_sets"]),
                point_head=None if data.get("point_head") is None else str(data["point_head"]),
                die_scale=_die_scale(data.get("die_scale")),
                board_marks=None if data.get("board_marks") is None else BoardMarks.from_dict(data["board_marks"]),
            )
        except ProfileError:
            raise
        except (DiceSetsError, BoardMarksError) as exc:
            raise ProfileError(str(exc)) from None
        except (KeyError, TypeError, ValueError) as exc:
            raise ProfileError(f"bad profile: {exc}") from None


def _die_scale(value: Any) -> Optional[float]:
    """The JSON ``die_scale``: ``None`` or a number within :data:`vision.dice_size.SCALE_RANGE`;
    raises :class:`ProfileError` otherwise."""
    from vision.dice_size import SCALE_RANGE

    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not SCALE_RANGE[0] <= value <= SCALE_RANGE[1]:
        raise ProfileError(f"die_scale must be a number from {SCALE_RANGE[0]} to {SCALE_RANGE[1]}, got {value!r}")
    return float(value)


def load_profile(path: str | pathlib.Path) -> Profile:
    """Read a profile JSON file; raises :class:`ProfileError` (missing, not JSON, bad fields)."""
    p = pathlib.Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(f"cannot read calibration file {p}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProfileError(f"calibration file {p} is not JSON: {exc.msg} at line {exc.lineno}") from None
    profile = Profile.from_dict(data)
    if profile.point_head is not None:
        head = p.parent / profile.point_head
        if not head.is_file():
            raise ProfileError(f"calibration file {p} names the board's learned reader {head}, which is missing: "
                               f"calibrate again")
        profile = dataclasses.replace(profile, point_head=str(head.resolve()))
    return profile


def save_profile(profile: Profile, path: str | pathlib.Path) -> pathlib.Path:
    """Write ``profile`` as indented JSON; returns the path. A ``point_head`` file in the same
    folder is named relative to it."""
    p = pathlib.Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    if profile.point_head is not None:
        head = pathlib.Path(profile.point_head)
        if head.is_absolute() and head.parent.resolve() == p.parent.resolve():
            profile = dataclasses.replace(profile, point_head=head.name)
    p.write_text(json.dumps(profile.to_dict(), indent=2) + "\n", encoding="utf-8")
    return p

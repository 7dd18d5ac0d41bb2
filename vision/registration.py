"""Board registration: from image pixels to a canonical top-down playing field.

The *playing field* is the rectangle that holds the 24 points and the bar (not the
bear-off trays, not the frame). :class:`Field` holds the homography from image
pixels to a canonical, fixed-size, top-down picture of it (``FIELD_WIDTH`` x
``FIELD_HEIGHT`` pixels) and the geometry of the points in that picture.

Canonical layout (after :data:`ORIENTATIONS` is applied, always the same):

* x runs from the field's left edge (0) to its right edge (``FIELD_WIDTH``), y from
  the top edge (0) to the bottom edge (``FIELD_HEIGHT``);
* the bar is the band ``bar_x0 <= x < bar_x1`` in the middle;
* points are numbered for the *reference player*, whose home board is the
  canonical bottom-right quadrant: point 1 is the bottom row's rightmost point,
  1-12 run right to left along the bottom row, 13-24 left to right along the top
  row (the numbering of ``companion read``, see ``companion/observation.py``).

Four ways to register: four corners given by the user (:func:`parse_corners`,
:func:`field_from_corners`), four ArUco markers at the field's corners
(:func:`detect_aruco_corners`), or automatic detection where the board stands out
from the table (:func:`detect_board_corners`). Lens distortion comes from an
optional chessboard calibration (:class:`CameraModel`, :func:`calibrate_chessboard`).

OpenCV is imported lazily inside functions so that importing this module is cheap.
"""

from __future__ import annotations

import dataclasses
import math
import types
from typing import Any, Iterable, Literal, Optional, Sequence

import numpy as np

from vision.registration_error import RegistrationError

#: Canonical field size in pixels (width, height). Fixed for every board.
FIELD_WIDTH = 640
FIELD_HEIGHT = 600

Orientation = Literal["bottom-right", "bottom-left", "top-right", "top-left"]

#: Where, in the image, the reference player's home board lies, and how the image
#: corners (TL, TR, BR, BL as seen) map onto the canonical corners (TL, TR, BR, BL).
#: ``bottom-right`` is the identity (the layout of ``companion read``);
#: ``bottom-left`` mirrors left/right (play runs the other way round);
#: ``top-right`` mirrors top/bottom; ``top-left`` is a half turn.
ORIENTATIONS: types.MappingProxyType[str, tuple[int, int, int, int]] = types.MappingProxyType({
    "bottom-right": (0, 1, 2, 3),
    "bottom-left": (1, 0, 3, 2),
    "top-right": (3, 2, 1, 0),
    "top-left": (2, 3, 0, 1),
})

Half = Literal["left", "right"]
Row = Literal["top", "bottom"]


@dataclasses.dataclass(frozen=True)
class BoardGeometry:
    """Proportions of a board style, as fractions of the real playing field.

    ``bar_width``: the bar's width / the field's width (0.03..0.12 on real boards).
    ``aspect``: the real field's width / height (1.0..1.2 on real boards).
    ``point_length``: a point's (triangle's) length / the field's height.
    ``checker_diameter``: a checker's diameter / a point's width (0.8..1.0).
    ``edge_margin``: empty margin between the field edge and the first checker,
    as a fraction of a point's width.
    """

    bar_width: float = 0.06
    aspect: float = 1.08
    point_length: float = 0.42
    checker_diameter: float = 0.95
    edge_margin: float = 0.0

    def to_dict(self) -> dict[str, float]:
        """The geometry as a plain dict (profile JSON)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BoardGeometry":
        """Build from a dict; unknown keys raise :class:`RegistrationError`."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise RegistrationError(f"unknown board geometry field(s): {', '.join(sorted(unknown))}")
        try:
            geometry = cls(**{k: float(v) for k, v in data.items()})
        except (TypeError, ValueError) as exc:
            raise RegistrationError(f"bad board geometry: {exc}") from None
        if not (0.0 <= geometry.bar_width < 0.4 and 0.5 < geometry.aspect < 2.0
                and 0.1 < geometry.point_length < 0.5 and 0.3 < geometry.checker_diameter <= 1.2):
            raise RegistrationError(f"board geometry out of range: {geometry}")
        return geometry


@dataclasses.dataclass(frozen=True)
class CameraModel:
    """A pinhole camera with lens distortion (OpenCV's model).

    ``camera_matrix``: (3, 3) float64 intrinsics in pixels; ``dist_coeffs``: (N,)
    float64 distortion coefficients (k1, k2, p1, p2[, k3...]) as returned by
    ``cv2.calibrateCamera``; ``image_size``: (width, height) the calibration was made at.
    """

    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    image_size: tuple[int, int]

    def undistort_points(self, points: np.ndarray) -> np.ndarray:
        """Distorted image pixels (N, 2) -> ideal (undistorted) pixels (N, 2), float64."""
        import cv2

        pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        out = cv2.undistortPoints(pts, self.camera_matrix, self.dist_coeffs, P=self.camera_matrix)
        return out.reshape(-1, 2)

    def distort_points(self, points: np.ndarray) -> np.ndarray:
        """Ideal pixels (N, 2) -> distorted image pixels (N, 2), float64 (OpenCV model)."""
        import cv2

        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        k_inv = np.linalg.inv(self.camera_matrix)
        homog = np.hstack([pts, np.ones((len(pts), 1))]) @ k_inv.T
        obj = np.hstack([homog[:, :2], np.ones((len(pts), 1))]).reshape(-1, 1, 3)
        out, _ = cv2.projectPoints(obj, np.zeros(3), np.zeros(3), self.camera_matrix, self.dist_coeffs)
        return out.reshape(-1, 2)

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form for a calibration profile."""
        return {
            "camera_matrix": np.asarray(self.camera_matrix).tolist(),
            "dist_coeffs": np.asarray(self.dist_coeffs).ravel().tolist(),
            "image_size": list(self.image_size),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CameraModel":
        """Inverse of :meth:`to_dict`; raises :class:`RegistrationError` on bad data."""
        try:
            k = np.asarray(data["camera_matrix"], dtype=np.float64)
            d = np.asarray(data["dist_coeffs"], dtype=np.float64).ravel()
            size = (int(data["image_size"][0]), int(data["image_size"][1]))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise RegistrationError(f"bad camera model: {exc}") from None
        if k.shape != (3, 3) or d.size not in (4, 5, 8, 12, 14):
            raise RegistrationError("bad camera model: camera_matrix must be 3x3, dist_coeffs 4/5/8/12/14 values")
        return cls(k, d, size)


@dataclasses.dataclass(frozen=True)
class PointGeometry:
    """Where one point lies in the canonical field (pixels, float).

    ``x0``..``x1``: the point's column; ``base_y``: the field edge the point stands on
    (0 for the top row, ``FIELD_HEIGHT`` for the bottom row); ``direction``: +1 when
    the point runs downwards from its base (top row), -1 upwards (bottom row);
    ``length``: the triangle's length in pixels; ``row`` and ``half`` in canonical terms.
    """

    point: int
    row: Row
    half: Half
    x0: float
    x1: float
    base_y: float
    direction: int
    length: float

    @property
    def width(self) -> float:
        """Column width in pixels."""
        return self.x1 - self.x0

    @property
    def centre_x(self) -> float:
        """The column's centre line, x in pixels."""
        return 0.5 * (self.x0 + self.x1)


@dataclasses.dataclass(frozen=True)
class Field:
    """A registered board: the map from image pixels to the canonical field.

    ``homography``: (3, 3) float64, image pixels -> canonical field pixels (for an
    undistorted image when ``camera`` is set); ``inverse``: field -> image.
    ``image_size``: (width, height) of the frames it applies to.
    ``corners``: (4, 2) float64 image corners of the field in *canonical* order
    (canonical TL, TR, BR, BL after the orientation).
    ``orientation``: one of :data:`ORIENTATIONS`. ``geometry``: :class:`BoardGeometry`.
    ``camera``: optional :class:`CameraModel` (lens distortion).
    ``size``: (``FIELD_WIDTH``, ``FIELD_HEIGHT``).
    """

    homography: np.ndarray
    inverse: np.ndarray
    image_size: tuple[int, int]
    corners: np.ndarray
    orientation: str = "bottom-right"
    geometry: BoardGeometry = BoardGeometry()
    camera: Optional[CameraModel] = None
    size: tuple[int, int] = (FIELD_WIDTH, FIELD_HEIGHT)

    # --- geometry of the canonical field -------------------------------------------------
    @property
    def bar_x0(self) -> float:
        """Left edge of the bar in canonical pixels."""
        return 0.5 * self.size[0] * (1.0 - self.geometry.bar_width)

    @property
    def bar_x1(self) -> float:
        """Right edge of the bar in canonical pixels."""
        return 0.5 * self.size[0] * (1.0 + self.geometry.bar_width)

    @property
    def point_width(self) -> float:
        """Width of one point's column in canonical pixels."""
        return self.bar_x0 / 6.0

    @property
    def checker_size(self) -> tuple[float, float]:
        """A checker's (width, height) in canonical pixels (an ellipse when the real
        field's aspect differs from the canonical one)."""
        w = self.point_width * self.geometry.checker_diameter
        h = w * (self.size[1] / self.size[0]) * self.geometry.aspect
        return (w, h)

    def point(self, point: int) -> PointGeometry:
        """Geometry of ``point`` (1..24, reference numbering); raises ``ValueError``."""
        if not 1 <= int(point) <= 24:
            raise ValueError(f"point must be 1..24, got {point}")
        p = int(point)
        pw = self.point_width
        length = self.geometry.point_length * self.size[1]
        if p <= 12:  # bottom row, right to left
            col = 12 - p  # 0 = leftmost column of the bottom row
            row: Row = "bottom"
            base_y, direction = float(self.size[1]), -1
        else:  # top row, left to right
            col = p - 13
            row = "top"
            base_y, direction = 0.0, 1
        if col < 6:
            x0 = col * pw
            half: Half = "left"
        else:
            x0 = self.bar_x1 + (col - 6) * pw
            half = "right"
        return PointGeometry(p, row, half, x0, x0 + pw, base_y, direction, length)

    def points(self) -> list[PointGeometry]:
        """Geometry of points 1..24, in order."""
        return [self.point(p) for p in range(1, 25)]

    def bar_rect(self) -> tuple[float, float, float, float]:
        """The bar as (x0, y0, x1, y1) canonical pixels."""
        return (self.bar_x0, 0.0, self.bar_x1, float(self.size[1]))

    def half_of(self, x: float) -> Optional[Half]:
        """``"left"``/``"right"`` of the bar for a canonical x, ``None`` on the bar or off the field."""
        if x < 0 or x >= self.size[0]:
            return None
        if x < self.bar_x0:
            return "left"
        if x >= self.bar_x1:
            return "right"
        return None

    def image_half(self, x: float) -> Optional[Half]:
        """Like :meth:`half_of` but in *image* terms (undoes a left/right mirroring orientation)."""
        half = self.half_of(x)
        if half is None or self.orientation in ("bottom-right", "top-right"):
            return half
        return "right" if half == "left" else "left"

    # --- mapping points -------------------------------------------------------------------
    def to_field(self, points: np.ndarray) -> np.ndarray:
        """Image pixels (N, 2) -> canonical field pixels (N, 2), float64."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        if self.camera is not None:
            pts = self.camera.undistort_points(pts)
        return _apply_homography(self.homography, pts)

    def to_image(self, points: np.ndarray) -> np.ndarray:
        """Canonical field pixels (N, 2) -> image pixels (N, 2), float64."""
        pts = _apply_homography(self.inverse, np.asarray(points, dtype=np.float64).reshape(-1, 2))
        if self.camera is not None:
            pts = self.camera.distort_points(pts)
        return pts

    def contains_image_point(self, xy: Sequence[float]) -> bool:
        """True when the image pixel ``xy`` lies on the playing field."""
        fx, fy = self.to_field(np.array([xy], dtype=np.float64))[0]
        return 0 <= fx < self.size[0] and 0 <= fy < self.size[1]

    def scale(self, factor: float) -> "Field":
        """The same registration for frames resized by ``factor`` (e.g. 0.5 for half size)."""
        s = np.diag([1.0 / factor, 1.0 / factor, 1.0])
        h = self.homography @ s
        size = (int(round(self.image_size[0] * factor)), int(round(self.image_size[1] * factor)))
        return dataclasses.replace(self, homography=h, inverse=np.linalg.inv(h),
                                   image_size=size, corners=self.corners * factor, camera=None)

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (image corners in *image* order TL, TR, BR, BL as seen)."""
        return {
            "corners": [[round(float(v), 2) for v in c] for c in image_order_corners(self.corners, self.orientation)],
            "image_size": list(self.image_size),
            "orientation": self.orientation,
            "geometry": self.geometry.to_dict(),
            "camera": None if self.camera is None else self.camera.to_dict(),
        }


def _apply_homography(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    homog = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(h, dtype=np.float64).T
    with np.errstate(divide="ignore", invalid="ignore"):
        return homog[:, :2] / homog[:, 2:3]


def image_order_corners(canonical_corners: np.ndarray, orientation: str) -> np.ndarray:
    """Canonical-order corners -> the image order (TL, TR, BR, BL as seen); (4, 2) float64."""
    perm = ORIENTATIONS[orientation]
    out = np.zeros((4, 2), dtype=np.float64)
    for canon_index, image_index in enumerate(perm):
        out[image_index] = canonical_corners[canon_index]
    return out


def parse_corners(text: str) -> np.ndarray:
    """Parse ``"TLx,TLy,TRx,TRy,BRx,BRy,BLx,BLy"`` (pixels, fractions and negatives allowed).

    Returns (4, 2) float64 in image order TL, TR, BR, BL. Raises
    :class:`RegistrationError` unless there are exactly eight finite numbers.
    """
    parts = [p.strip() for p in str(text).replace(";", ",").split(",") if p.strip()]
    if len(parts) != 8:
        raise RegistrationError(f"--corners needs 8 numbers (TLx,TLy,TRx,TRy,BRx,BRy,BLx,BLy), got {len(parts)}")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise RegistrationError(f"--corners must be numbers, got {text!r}") from None
    if not all(math.isfinite(v) for v in values):
        raise RegistrationError("--corners must be finite numbers")
    return np.array(values, dtype=np.float64).reshape(4, 2)


def validate_corners(corners: np.ndarray, image_size: tuple[int, int], max_outside: float = 0.5) -> None:
    """Check that image-order corners (4, 2) make a usable field.

    The quadrilateral TL, TR, BR, BL must be convex and clockwise on screen (as seen
    in an image whose y runs down), not tiny (at least 1% of the image's area), every
    corner within ``max_outside`` times the image's size outside the image, and at
    least a third of the field inside the image. Raises :class:`RegistrationError`.
    """
    c = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    w, h = image_size
    crosses = []
    for i in range(4):
        a, b, d = c[i], c[(i + 1) % 4], c[(i + 2) % 4]
        crosses.append((b[0] - a[0]) * (d[1] - b[1]) - (b[1] - a[1]) * (d[0] - b[0]))
    if not (all(x > 0 for x in crosses) or all(x < 0 for x in crosses)):
        raise RegistrationError("corners do not make a convex quadrilateral (order: top-left, top-right, bottom-right, bottom-left)")
    if not all(x > 0 for x in crosses):
        raise RegistrationError("corners run anticlockwise: give them as top-left, top-right, bottom-right, bottom-left")
    area = 0.5 * abs(sum(c[i, 0] * c[(i + 1) % 4, 1] - c[(i + 1) % 4, 0] * c[i, 1] for i in range(4)))
    if area < 0.01 * w * h:
        raise RegistrationError(f"corners enclose too small an area ({area:.0f} px^2) for a {w}x{h} image")
    mx, my = max_outside * w, max_outside * h
    if np.any(c[:, 0] < -mx) or np.any(c[:, 0] > w + mx) or np.any(c[:, 1] < -my) or np.any(c[:, 1] > h + my):
        raise RegistrationError(f"corners lie far outside the {w}x{h} image")
    # Fraction of the quadrilateral inside the image (sampled on a grid in field space).
    hmg = _homography(c, FIELD_WIDTH, FIELD_HEIGHT)
    gx, gy = np.meshgrid(np.linspace(0.5, FIELD_WIDTH - 0.5, 16), np.linspace(0.5, FIELD_HEIGHT - 0.5, 16))
    img = _apply_homography(np.linalg.inv(hmg), np.stack([gx.ravel(), gy.ravel()], axis=1))
    inside = np.mean((img[:, 0] >= 0) & (img[:, 0] < w) & (img[:, 1] >= 0) & (img[:, 1] < h))
    if inside < 0.33:
        raise RegistrationError(f"only {inside:.0%} of the field given by the corners lies inside the image")


def _homography(image_corners: np.ndarray, width: int, height: int) -> np.ndarray:
    import cv2

    dst = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float64)
    return cv2.getPerspectiveTransform(np.asarray(image_corners, dtype=np.float32), dst.astype(np.float32)).astype(np.float64)


def field_from_corners(
    corners: np.ndarray | Sequence[Sequence[float]],
    image_size: tuple[int, int],
    orientation: str = "bottom-right",
    geometry: Optional[BoardGeometry] = None,
    camera: Optional[CameraModel] = None,
    validate: bool = True,
) -> Field:
    """Register a board from its four field corners.

    ``corners``: (4, 2) image pixels in image order TL, TR, BR, BL *as seen in the
    (distorted) image*; ``image_size``: (width, height); ``orientation``: where the
    reference player's home board lies in the image (:data:`ORIENTATIONS`).
    Raises :class:`RegistrationError` for bad corners or an unknown orientation.
    """
    if orientation not in ORIENTATIONS:
        raise RegistrationError(f"orientation must be one of {', '.join(ORIENTATIONS)}, got {orientation!r}")
    c = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    if validate:
        validate_corners(c, image_size)
    ideal = camera.undistort_points(c) if camera is not None else c
    perm = ORIENTATIONS[orientation]
    canon = np.array([ideal[i] for i in perm])
    h = _homography(canon, FIELD_WIDTH, FIELD_HEIGHT)
    return Field(
        homography=h,
        inverse=np.linalg.inv(h),
        image_size=(int(image_size[0]), int(image_size[1])),
        corners=np.array([c[i] for i in perm]),
        orientation=orientation,
        geometry=geometry or BoardGeometry(),
        camera=camera,
    )


def warp_field(image: np.ndarray, field: Field, maps: Optional[tuple[np.ndarray, np.ndarray]] = None) -> np.ndarray:
    """Warp a frame to the canonical top-down field.

    ``image``: (H, W, 3) uint8 BGR (or (H, W) uint8) frame of ``field.image_size``.
    Returns (``FIELD_HEIGHT``, ``FIELD_WIDTH``, 3) uint8 (same channels as the input);
    pixels outside the frame are black. With a camera model, lens distortion is undone
    in the same step (pass ``maps`` from :func:`warp_maps` to reuse them across frames).
    Raises :class:`RegistrationError` when the frame's size differs from the field's.
    """
    import cv2

    if image is None or image.ndim not in (2, 3):
        raise RegistrationError("expected an (H, W, 3) uint8 image")
    h, w = image.shape[:2]
    if (w, h) != tuple(field.image_size):
        raise RegistrationError(f"frame is {w}x{h} but the registration is for {field.image_size[0]}x{field.image_size[1]}")
    if field.camera is None and maps is None:
        return cv2.warpPerspective(image, field.homography, field.size, flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    mx, my = maps if maps is not None else warp_maps(field)
    return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def warp_maps(field: Field) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel source coordinates for the field: two (``FIELD_HEIGHT``, ``FIELD_WIDTH``)
    float32 maps for ``cv2.remap`` (includes lens distortion when the field has a camera)."""
    gx, gy = np.meshgrid(np.arange(field.size[0], dtype=np.float64) + 0.0,
                         np.arange(field.size[1], dtype=np.float64) + 0.0)
    pts = field.to_image(np.stack([gx.ravel(), gy.ravel()], axis=1))
    mx = pts[:, 0].reshape(field.size[1], field.size[0]).astype(np.float32)
    my = pts[:, 1].reshape(field.size[1], field.size[0]).astype(np.float32)
    return mx, my


# --- ArUco ------------------------------------------------------------------------------

def detect_aruco_corners(image: np.ndarray, dictionary: str = "DICT_4X4_50",
                         ids: Sequence[int] = (0, 1, 2, 3)) -> np.ndarray:
    """Find the field's corners from four ArUco markers (``cv2.aruco.ArucoDetector``).

    Marker ``ids[i]`` sits at field corner i (TL, TR, BR, BL of the field as it is
    meant to be seen); the field corner is the marker corner nearest the centre of the
    four markers (the marker's inner corner). ``image``: (H, W, 3) uint8 BGR.
    Returns (4, 2) float64 in image order. Raises :class:`RegistrationError` when a
    marker is missing or the dictionary is unknown.
    """
    import cv2

    if not hasattr(cv2.aruco, dictionary):
        raise RegistrationError(f"unknown ArUco dictionary {dictionary!r}")
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)),
                                       cv2.aruco.DetectorParameters())
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    marker_corners, marker_ids, _ = detector.detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if marker_ids is not None:
        for mc, mid in zip(marker_corners, np.asarray(marker_ids).ravel()):
            found.setdefault(int(mid), np.asarray(mc, dtype=np.float64).reshape(4, 2))
    missing = [i for i in ids if i not in found]
    if missing:
        raise RegistrationError(f"ArUco marker(s) {missing} not found ({len(found)} marker(s) seen)")
    centres = np.array([found[i].mean(axis=0) for i in ids])
    middle = centres.mean(axis=0)
    out = []
    for i in ids:
        quad = found[i]
        out.append(quad[np.argmin(np.linalg.norm(quad - middle, axis=1))])
    return np.array(out, dtype=np.float64)


# --- automatic detection ----------------------------------------------------------------

def detect_board_corners(image: np.ndarray) -> np.ndarray:
    """Locate the playing field automatically where the board stands out from the table.

    Method: candidate quadrilaterals from edge contours (OpenCV ``findContours`` +
    ``approxPolyDP``) at several thresholds, also pairs of halves joined across the
    bar; each candidate is warped and scored by the board's signature (12 columns of
    alternating points per row, mirrored top/bottom). ``image``: (H, W, 3) uint8 BGR.
    Returns (4, 2) float64 image-order corners. Raises :class:`RegistrationError`
    when no board is found.
    """
    from vision.board_finder import find_board

    return find_board(image)


# --- lens distortion --------------------------------------------------------------------

def calibrate_chessboard(images: Iterable[np.ndarray], pattern: tuple[int, int] = (9, 6),
                         square: float = 1.0) -> CameraModel:
    """Lens calibration from photos of a printed chessboard (``cv2.calibrateCamera``).

    ``images``: (H, W, 3) uint8 BGR frames of one camera; ``pattern``: inner corners
    (columns, rows); ``square``: square size (any unit). Needs at least 3 views with the
    pattern found. Raises :class:`RegistrationError` otherwise.
    """
    import cv2

    objp = np.zeros((pattern[0] * pattern[1], 3), np.float32)
    objp[:, :2] = np.mgrid[0:pattern[0], 0:pattern[1]].T.reshape(-1, 2) * square
    obj_points, img_points = [], []
    size = None
    for img in images:
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
        size = (gray.shape[1], gray.shape[0])
        ok, corners = cv2.findChessboardCorners(gray, pattern, None)
        if not ok:
            continue
        corners = cv2.cornerSubPix(gray, corners, (11, 11), (-1, -1),
                                   (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 1e-3))
        obj_points.append(objp)
        img_points.append(corners)
    if size is None or len(obj_points) < 3:
        raise RegistrationError(f"chessboard {pattern[0]}x{pattern[1]} found in {len(obj_points)} image(s); need at least 3")
    _, k, d, _, _ = cv2.calibrateCamera(obj_points, img_points, size, None, None)
    return CameraModel(np.asarray(k, dtype=np.float64), np.asarray(d, dtype=np.float64).ravel(), size)

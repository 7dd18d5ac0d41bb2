"""Borne-off checkers read from the bear-off tray beside the playing field.

The tray lies outside the field's side of the home boards (canonical right, x beyond
``FIELD_WIDTH``: the canonical field always has points 1-6 and 19-24 on the right),
in the board's frame, a small gap away from the field. Borne-off checkers stand there
edge-on, side by side, as stripes across the tray, each about one checker's thickness
(``TraySettings.pitch``) along the tray.

:func:`read_trays` samples the tray through the field's homography (and lens model),
decides whether the tray is inside the image at all, and counts the stripes of each
learned checker colour. It answers ``None`` when the tray is out of view; otherwise a
:class:`TrayReading` whose ``confident`` flag says whether every stripe run had the
length of a whole number of checkers. The reader (:mod:`vision.reader`) uses the
counts only when they are confident *and* agree with 15 minus the checkers seen.

Not handled: checkers lying flat as discs, trays on the far (outer board) side.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

import numpy as np

from vision.registration import Field

#: Checkers per side in backgammon.
_PER_SIDE = 15


@dataclasses.dataclass(frozen=True)
class TraySettings:
    """Where the bear-off tray is and how big a borne-off checker looks.

    ``enabled``: read the tray at all (false: ``off`` is always inferred).
    ``gap``: frame between the field's home-board side and the tray, fraction of the
    field's width. ``width``: the tray's width (across), fraction of the field's width.
    ``pitch``: one edge-on checker's thickness along the tray, fraction of the field's
    height. ``fill``: the least fraction of a row across the tray's middle that must
    show a checker colour for the row to count (a cube or a card does not fill it).
    ``tolerance``: a stripe run's length may be off a whole number of pitches by at
    most this fraction of a pitch.
    """

    enabled: bool = True
    gap: float = 0.02
    width: float = 0.08
    pitch: float = 0.025
    fill: float = 0.7
    tolerance: float = 0.4

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form (the profile's ``"trays"`` object)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TraySettings":
        """Inverse of :meth:`to_dict` (missing keys keep their defaults); raises
        ``ValueError`` on unknown keys or values out of range."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown tray settings: {', '.join(sorted(unknown))}")
        kw = {k: (bool(v) if k == "enabled" else float(v)) for k, v in data.items()}
        s = cls(**kw)
        if not (0 <= s.gap < 0.5 and 0 < s.width < 0.5 and 0 < s.pitch < 0.2 and 0 < s.fill <= 1
                and 0 < s.tolerance < 0.5):
            raise ValueError(f"tray settings out of range: {s.to_dict()}")
        return s


@dataclasses.dataclass(frozen=True)
class TrayReading:
    """The tray's checkers: ``counts`` ``{"light": n, "dark": n}``; ``sure``
    ``{"light": bool, "dark": bool}``: every stripe run of that colour was a whole
    number of checkers and its count is at most 15 (a tray the colour of one checker
    set reads as one long run of it: that colour is unsure); ``confident``: both sure;
    ``runs``: (colour, first row, length) per stripe run, rows in canonical field
    pixels along the tray."""

    counts: dict[str, int]
    sure: dict[str, bool]
    runs: tuple[tuple[str, int, int], ...] = ()

    @property
    def confident(self) -> bool:
        """Both colours' counts are sure."""
        return all(self.sure.values())


def tray_grid(field: Field, settings: TraySettings, columns: int = 12) -> np.ndarray:
    """Field-pixel sample grid over the tray's middle half: (H, columns, 2) float64,
    one row per canonical field pixel along the field's height."""
    fw, fh = field.size
    x0 = fw * (1.0 + settings.gap + 0.25 * settings.width)
    x1 = fw * (1.0 + settings.gap + 0.75 * settings.width)
    xs = np.linspace(x0, x1, columns)
    ys = np.arange(fh, dtype=np.float64) + 0.5
    gx, gy = np.meshgrid(xs, ys)
    return np.stack([gx, gy], axis=2)


def tray_in_view(field: Field, settings: TraySettings, margin: float = 2.0) -> bool:
    """True when the whole tray (its four corners) maps inside the image, ``margin``
    pixels from its border."""
    fw, fh = field.size
    x0 = fw * (1.0 + settings.gap)
    x1 = fw * (1.0 + settings.gap + settings.width)
    corners = field.to_image(np.array([[x0, 0], [x1, 0], [x1, fh], [x0, fh]], np.float64))
    if not np.all(np.isfinite(corners)):
        return False
    w, h = field.image_size
    return bool(np.all((corners[:, 0] >= margin) & (corners[:, 0] <= w - 1 - margin)
                       & (corners[:, 1] >= margin) & (corners[:, 1] <= h - 1 - margin)))


def tray_maps(field: Field, settings: TraySettings = TraySettings()) -> Optional[tuple[np.ndarray, np.ndarray]]:
    """``cv2.remap`` maps ((H, 12) float32 image x and y) sampling the tray's middle half,
    one row per canonical field pixel, or ``None`` when the tray is not inside the image.
    Compute once per registration for a fixed camera and pass to :func:`read_trays`."""
    if not tray_in_view(field, settings):
        return None
    grid = tray_grid(field, settings)
    rows, cols = grid.shape[:2]
    pts = field.to_image(grid.reshape(-1, 2)).astype(np.float32).reshape(rows, cols, 2)
    return np.ascontiguousarray(pts[:, :, 0]), np.ascontiguousarray(pts[:, :, 1])


def read_trays(image_bgr: np.ndarray, field: Field, colours: Any,
               settings: TraySettings = TraySettings(),
               maps: Optional[tuple[np.ndarray, np.ndarray]] | bool = True) -> Optional[TrayReading]:
    """Count the borne-off checkers in the tray beside the home boards.

    ``image_bgr``: (H, W, 3) uint8 BGR frame of ``field``; ``colours``: the learned
    :class:`~vision.checkers.CheckerColours` (OpenCV 8-bit Lab) or ``None``.
    Returns ``None`` when tray reading is disabled, the colours are unknown or the
    tray is not inside the image; otherwise a :class:`TrayReading`. Each row of the
    tray (one canonical field pixel) is the colour whose Lab value most of its
    middle-half pixels are nearest to (within a third of the light-dark distance,
    at least 20); runs of such rows are stripes, counted as run length / ``pitch``.
    """
    import cv2

    if not settings.enabled or colours is None:
        return None
    if maps is True:
        maps = tray_maps(field, settings)
    if not maps:
        return None
    rows = maps[0].shape[0]
    strip = cv2.remap(image_bgr, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lab = cv2.cvtColor(strip, cv2.COLOR_BGR2LAB).astype(np.float32)
    light = np.asarray(colours.light, np.float32)
    dark = np.asarray(colours.dark, np.float32)
    d_light = np.linalg.norm(lab - light, axis=2)
    d_dark = np.linalg.norm(lab - dark, axis=2)
    limit = max(20.0, float(np.linalg.norm(light - dark)) / 3.0)
    is_light = (d_light < limit) & (d_light < d_dark)
    is_dark = (d_dark < limit) & (d_dark <= d_light)
    label = np.zeros(rows, np.int8)
    label[is_light.mean(axis=1) >= settings.fill] = 1
    label[is_dark.mean(axis=1) >= settings.fill] = 2
    pitch = settings.pitch * field.size[1]
    counts = {"light": 0, "dark": 0}
    runs: list[tuple[str, int, int]] = []
    sure = {"light": True, "dark": True}
    edges = np.flatnonzero(np.diff(np.concatenate([[0], label, [0]])) != 0)
    for a, b in zip(edges[:-1], edges[1:]):
        if label[a] == 0:
            continue
        colour = "light" if label[a] == 1 else "dark"
        length = int(b - a)
        n = length / pitch
        k = int(round(n))
        if k == 0:
            if n < 0.25:  # a speck: noise, not a checker
                continue
            k = 1
        if abs(n - k) > settings.tolerance:
            sure[colour] = False
        counts[colour] += k
        runs.append((colour, int(a), length))
    for colour in sure:
        if counts[colour] > _PER_SIDE:
            sure[colour] = False
    return TrayReading(counts, sure, tuple(runs))

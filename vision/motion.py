"""Motion between consecutive frames: is the board still?

The referee judges a board only once it has been still for a while (the lesson
of electronic chess boards: never accuse on a board that is still moving).
:class:`MotionDetector` compares each frame with the previous one on a small
blurred colour copy (frame differencing, ``cv2.absdiff``, the largest
channel difference per pixel against a threshold) and reports
the fraction of pixels that changed. A hand entering, checkers sliding or dice
tumbling all show up as changed pixels; camera noise and JPEG artefacts do not
pass the per-pixel threshold.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import numpy as np


@dataclasses.dataclass(frozen=True)
class MotionReading:
    """``score``: fraction (0..1) of the downscaled pixels whose colour
    changed by more than the pixel threshold since the previous frame;
    ``moving``: ``score`` above the detector's ``moving_fraction``, or the first
    frame / a frame whose size changed (nothing to compare with)."""

    score: float
    moving: bool
    reason: str = ""


class MotionDetector:
    """Frame differencing on a downscaled grey image.

    ``width``: the comparison width in pixels (height keeps the aspect ratio).
    ``pixel_threshold``: change of any colour channel (0..255) that counts a pixel as
    changed. ``moving_fraction``: fraction of changed pixels above which the
    frame is "moving" (default 0.002, i.e. 0.2 % of the image: a checker
    sliding on a 1280x720 board covers about 0.5 %).
    """

    def __init__(self, width: int = 160, pixel_threshold: int = 18, moving_fraction: float = 0.002) -> None:
        if width < 8:
            raise ValueError(f"width must be at least 8 pixels, got {width}")
        self.width = width
        self.pixel_threshold = pixel_threshold
        self.moving_fraction = moving_fraction
        self._previous: Optional[np.ndarray] = None
        self._shape: Optional[tuple[int, int]] = None

    def _small(self, image: np.ndarray) -> np.ndarray:
        import cv2

        h, w = image.shape[:2]
        height = max(1, round(h * self.width / w))
        small = cv2.resize(image, (self.width, height), interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (5, 5), 0)

    def update(self, image: np.ndarray) -> MotionReading:
        """Compare ``image`` ((H, W, 3) uint8 BGR or (H, W) grey) with the previous
        frame and remember it. Raises ``ValueError`` for an image that is not 2-D
        or 3-channel uint8."""
        import cv2

        if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3):
            raise ValueError("motion needs an (H, W, 3) or (H, W) uint8 image")
        if image.ndim == 3 and image.shape[2] != 3:
            raise ValueError(f"motion needs 3 channels, got {image.shape[2]}")
        shape = image.shape[:2]
        small = self._small(image)
        previous, self._previous = self._previous, small
        if previous is None:
            self._shape = shape
            return MotionReading(1.0, True, "first frame")
        if shape != self._shape:
            self._shape = shape
            return MotionReading(1.0, True, f"frame size changed to {shape[1]}x{shape[0]}")
        diff = cv2.absdiff(small, previous)
        if diff.ndim == 3:
            diff = diff.max(axis=2)  # a hand of the board's brightness still differs in colour
        changed = int(np.count_nonzero(diff > self.pixel_threshold))
        score = changed / diff.size
        return MotionReading(score, score > self.moving_fraction, "")

    def snapshot(self) -> Optional[np.ndarray]:
        """The last frame's small blurred copy (to compare later frames with it)."""
        return self._previous

    def changed_since(self, snapshot: Optional[np.ndarray]) -> float:
        """Fraction (0..1) of pixels of the last frame that differ from
        ``snapshot`` (from :meth:`snapshot`) by more than the pixel threshold;
        1.0 when there is nothing to compare."""
        import cv2

        if snapshot is None or self._previous is None or snapshot.shape != self._previous.shape:
            return 1.0
        diff = cv2.absdiff(self._previous, snapshot)
        if diff.ndim == 3:
            diff = diff.max(axis=2)
        return int(np.count_nonzero(diff > self.pixel_threshold)) / diff.size

    def changed_mask(self, snapshot: Optional[np.ndarray]) -> Optional[np.ndarray]:
        """(h, w) bool mask, at the detector's comparison size (``width`` pixels
        wide), of the pixels of the last frame that differ from ``snapshot``
        (from :meth:`snapshot`) by more than the pixel threshold; ``None`` when
        there is nothing to compare (no frame yet, or another size)."""
        import cv2

        if snapshot is None or self._previous is None or snapshot.shape != self._previous.shape:
            return None
        diff = cv2.absdiff(self._previous, snapshot)
        if diff.ndim == 3:
            diff = diff.max(axis=2)
        return diff > self.pixel_threshold

    def reset(self) -> None:
        """Forget the previous frame (after an outage)."""
        self._previous = None
        self._shape = None

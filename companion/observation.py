"""What the eyes saw in one frame: plain data handed from ``vision`` to the referee.

The :class:`Observation` is the contract between the camera pipeline and the
rules. It speaks in image terms (light and dark checkers, the image's top and
bottom sides), never in terms of legality. Points are numbered as in
``companion read``: for the player whose home board is the image's bottom-right
quadrant, point 1 is the bottom row's rightmost point, 1-12 run right to left
along the bottom row and 13-24 left to right along the top row.

Standard library only; ``vision`` imports this module, never the reverse.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, Optional

Colour = Literal["light", "dark"]
CubePlace = Literal["centre", "top", "bottom"]


@dataclasses.dataclass(frozen=True)
class PointReading:
    """One point: ``point`` in 1..24 (image numbering), ``count`` in 0..15, ``colour``
    ``"light"``/``"dark"`` or ``None`` when empty.

    ``distribution``: what a probabilistic reader thinks the point holds, as
    ``(signed count, probability)`` pairs, most likely first (> 0 light, < 0 dark checkers,
    0 empty; the pairs below 0.001 left out); ``hidden``: the probability that a hand or an
    object hides the point. Empty and 0.0 for a reader that gives no probabilities.
    """

    point: int
    count: int
    colour: Optional[Colour]
    distribution: tuple[tuple[int, float], ...] = ()
    hidden: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """``{"point": 1, "count": 2, "colour": "dark"}``, with ``"distribution"`` and
        ``"hidden"`` when the reader gave them."""
        out: dict[str, Any] = {"point": self.point, "count": self.count, "colour": self.colour}
        if self.distribution:
            out["distribution"] = [[k, round(v, 4)] for k, v in self.distribution]
            out["hidden"] = round(self.hidden, 4)
        return out

    def probability(self, signed_count: int) -> float:
        """P(the point holds ``signed_count``: > 0 light, < 0 dark checkers, 0 empty); for a
        reader without probabilities, 1.0 for the reading and 0.0 otherwise."""
        if not self.distribution:
            mine = 0 if self.count == 0 else (self.count if self.colour == "light" else -self.count)
            return 1.0 if signed_count == mine else 0.0
        return dict(self.distribution).get(signed_count, 0.0)


@dataclasses.dataclass(frozen=True)
class Counts:
    """Checkers of each colour in one place (the bar, or borne off)."""

    light: int = 0
    dark: int = 0

    def to_dict(self) -> dict[str, int]:
        """``{"light": 0, "dark": 0}``."""
        return {"light": self.light, "dark": self.dark}


@dataclasses.dataclass(frozen=True)
class DieReading:
    """One die seen in the frame.

    ``value`` 1..6 (top face), ``center`` and ``box`` in image pixels
    (``(x, y)`` and ``(x0, y0, x1, y1)``), ``confidence`` in 0..1.
    ``cocked`` follows the tournament rules (DESIGN.md): not flat, outside the
    roller's right-hand board, or (a setting) resting on a checker; ``reason`` is a
    stable code (e.g. ``"tilted"``, ``"off_board"``, ``"on_checker"``) and
    ``message`` a sentence for people. ``half`` is ``"left"``/``"right"`` of the
    bar in the image, ``None`` when off the playing field. ``owner``: the image side
    (``"bottom"``/``"top"``) of the player whose set of dice this die belongs to by its
    colour (the board profile's ``dice_sets``, ``vision.dice_sets``), ``None`` when the
    sets are not told apart. ``values``: the reader's probability of each value 1..6 (six
    floats), empty when not known; not compared (two readings of one die are equal whatever
    the probabilities behind them).
    """

    value: int
    center: tuple[float, float]
    box: Optional[tuple[float, float, float, float]] = None
    confidence: float = 1.0
    cocked: bool = False
    reason: Optional[str] = None
    message: Optional[str] = None
    half: Optional[Literal["left", "right"]] = None
    owner: Optional[Literal["bottom", "top"]] = None
    values: tuple[float, ...] = dataclasses.field(default=(), compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The die as in ``companion read --json``."""
        return {
            "value": self.value,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "box": None if self.box is None else [round(v, 1) for v in self.box],
            "confidence": round(self.confidence, 3),
            "cocked": self.cocked,
            "reason": self.reason,
            "message": self.message,
            "half": self.half,
            "owner": self.owner,
        }


@dataclasses.dataclass(frozen=True)
class CubeReading:
    """The doubling cube: ``value`` (1 is never shown: a centred cube reads 64),
    ``place`` ``"centre"``/``"top"``/``"bottom"`` (the players' sides of the image),
    ``center`` in image pixels, ``confidence`` in 0..1."""

    value: int
    place: CubePlace
    center: Optional[tuple[float, float]] = None
    confidence: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        """``{"value": 2, "place": "top", ...}``."""
        return {
            "value": self.value,
            "place": self.place,
            "center": None if self.center is None else [round(v, 1) for v in self.center],
            "confidence": round(self.confidence, 3),
        }


@dataclasses.dataclass(frozen=True)
class Observation:
    """Everything read from one frame.

    ``points``: 24 :class:`PointReading` in point order 1..24 (image numbering).
    ``bar`` / ``off``: :class:`Counts`; ``off_visible`` is false when the trays are
    out of view and ``off`` was inferred as 15 minus the checkers seen.
    ``off_source``: ``"trays"`` when ``off`` was counted in the bear-off tray (and agrees
    with 15 minus the checkers seen), ``"mixed"`` when only one colour's count came from
    the tray, ``"inferred"`` otherwise; ``off_trays``: what the tray showed when it was
    read but not wholly used (it disagreed or was unsure), else ``None``.
    ``unreadable_points``: points hidden by a hand, arm or cup (their readings
    must not be trusted). ``bar_unreadable``: a half of the bar is hidden or not read with
    confidence (``bar`` then counts nothing there and must not be trusted).
    ``bar_distribution``: what a probabilistic reader thinks the bar holds, as ``(light, dark,
    probability)`` triples, most likely first (those below 0.001 left out; empty for a reader
    that gives no probabilities). ``occluded``: something is over the board.
    ``dice``: every die seen; ``cube``: the cube or ``None`` when not found.
    ``timings_ms``: per-stage durations in milliseconds. ``frame_index`` and
    ``timestamp_ms`` identify the frame in its source.
    """

    points: tuple[PointReading, ...]
    bar: Counts = Counts()
    off: Counts = Counts()
    off_visible: bool = False
    off_source: str = "inferred"
    off_trays: Optional[Counts] = None
    unreadable_points: tuple[int, ...] = ()
    bar_unreadable: bool = False
    bar_distribution: tuple[tuple[int, int, float], ...] = ()
    occluded: bool = False
    dice: tuple[DieReading, ...] = ()
    cube: Optional[CubeReading] = None
    confidence: float = 1.0
    timings_ms: dict[str, float] = dataclasses.field(default_factory=dict, compare=False)
    frame_index: int = 0
    timestamp_ms: float = 0.0

    def __post_init__(self) -> None:
        if len(self.points) != 24:
            raise ValueError(f"an Observation needs 24 points, got {len(self.points)}")

    def bar_probability(self, light: int, dark: int) -> Optional[float]:
        """P(the bar holds ``light`` light and ``dark`` dark checkers) from
        ``bar_distribution``; ``None`` for a reader that gives no probabilities."""
        if not self.bar_distribution:
            return None
        return next((v for lt, dk, v in self.bar_distribution if (lt, dk) == (light, dark)), 0.0)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``companion read --json``."""
        return {
            "points": [p.to_dict() for p in self.points],
            "bar": self.bar.to_dict(),
            "off": self.off.to_dict(),
            "off_visible": self.off_visible,
            "off_source": self.off_source,
            "off_trays": None if self.off_trays is None else self.off_trays.to_dict(),
            "unreadable_points": list(self.unreadable_points),
            "bar_unreadable": self.bar_unreadable,
            **({"bar_distribution": [[light, dark, round(v, 4)] for light, dark, v in self.bar_distribution]}
               if self.bar_distribution else {}),
            "occluded": self.occluded,
            "dice": [d.to_dict() for d in self.dice],
            "cube": None if self.cube is None else self.cube.to_dict(),
            "confidence": round(self.confidence, 3),
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
        }

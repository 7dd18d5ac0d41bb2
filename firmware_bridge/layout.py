"""Which LED index shows what: points, bar, trays and the status light.

The default strip runs along the bottom row from table point 1 to 12 and back
along the top row from 13 to 24 (index = point - 1), then the bar (24), the trays
of player 0 and player 1 (25, 26) and the status light (27). A board built
differently describes itself in the ``leds`` section of its calibration profile
(JSON; ``PROTOCOL.md``, *LED layout*).
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
from typing import Any, Mapping, Union


class LayoutError(ValueError):
    """A ``leds`` layout that is malformed (wrong types, repeated or out-of-range indices)."""


@dataclasses.dataclass(frozen=True)
class LedLayout:
    """LED indices of a board.

    ``count`` LEDs on the strip (1..255); ``points[i]`` the LED of table point
    ``i + 1`` (24 entries); ``bar`` one or more LEDs; ``off`` the trays of player 0
    and player 1; ``status`` the status light. Raises :class:`LayoutError` when an
    index repeats or is not below ``count``.
    """

    count: int = 28
    points: tuple[int, ...] = tuple(range(24))
    bar: tuple[int, ...] = (24,)
    off: tuple[int, int] = (25, 26)
    status: int = 27

    def __post_init__(self) -> None:
        if not isinstance(self.count, int) or not 1 <= self.count <= 255:
            raise LayoutError(f"LED count must be 1..255, got {self.count!r}")
        if len(self.points) != 24:
            raise LayoutError(f"the layout needs 24 point LEDs, got {len(self.points)}")
        if len(self.off) != 2:
            raise LayoutError(f"the layout needs 2 tray LEDs (off), got {len(self.off)}")
        used = [*self.points, *self.bar, *self.off, self.status]
        for index in used:
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < self.count:
                raise LayoutError(f"LED index {index!r} is not in 0..{self.count - 1}")
        if len(set(used)) != len(used):
            raise LayoutError("an LED index is used twice in the layout")

    def point(self, point: int) -> int:
        """LED index of table point ``point`` (1..24); raises :class:`LayoutError` otherwise."""
        if not 1 <= point <= 24:
            raise LayoutError(f"table point must be 1..24, got {point}")
        return self.points[point - 1]

    def to_dict(self) -> dict[str, Any]:
        """The ``leds`` section of a calibration profile."""
        return {"count": self.count, "points": list(self.points), "bar": list(self.bar),
                "off": list(self.off), "status": self.status}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "LedLayout":
        """Build from a profile's ``leds`` section; missing keys take the defaults.
        ``bar`` may be one index or a list. Raises :class:`LayoutError`."""
        if not isinstance(data, Mapping):
            raise LayoutError("the 'leds' section must be an object")
        unknown = set(data) - {"count", "points", "bar", "off", "status"}
        if unknown:
            raise LayoutError(f"unknown keys in the 'leds' section: {', '.join(sorted(unknown))}")
        default = cls()
        try:
            bar = data.get("bar", default.bar)
            bar = (bar,) if isinstance(bar, int) else tuple(bar)
            return cls(count=data.get("count", default.count),
                       points=tuple(data.get("points", default.points)),
                       bar=bar,
                       off=tuple(data.get("off", default.off)),
                       status=data.get("status", default.status))
        except TypeError as exc:
            raise LayoutError(f"malformed 'leds' section: {exc}") from None


def load_layout(profile: Union[str, pathlib.Path, Mapping[str, Any], None]) -> LedLayout:
    """The layout of a calibration profile (a JSON file path or an already loaded dict).

    A profile without a ``leds`` section, or ``None``, gives the default layout.
    Raises :class:`LayoutError` for an unreadable file, invalid JSON or a bad section.
    """
    if profile is None:
        return LedLayout()
    if not isinstance(profile, Mapping):
        path = pathlib.Path(profile)
        try:
            profile = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise LayoutError(f"cannot read calibration profile {path}: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise LayoutError(f"calibration profile {path} is not valid JSON: {exc.msg} (line {exc.lineno})") from None
        if not isinstance(profile, Mapping):
            raise LayoutError(f"calibration profile {path} is not a JSON object")
    section = profile.get("leds")
    return LedLayout() if section is None else LedLayout.from_dict(section)

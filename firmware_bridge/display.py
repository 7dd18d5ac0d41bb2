"""The LED states as one line of coloured characters for a terminal.

Points 1-24 in four groups of six (the four quadrants, in table-point order), then
the bar, the two trays and the status light. Characters: ``·`` off, ``●`` steady,
``◉`` blink, ``○`` pulse, coloured with 24-bit ANSI escapes (none when ``colour``
is False, e.g. ``NO_COLOR`` is set).
"""

from __future__ import annotations

from typing import Sequence

from firmware_bridge.layout import LedLayout
from firmware_bridge.messages import LedState, Pattern

SYMBOL = {Pattern.OFF: "·", Pattern.STEADY: "●", Pattern.BLINK: "◉", Pattern.PULSE: "○"}


def _char(led: LedState, colour: bool) -> str:
    symbol = SYMBOL[led.pattern]
    if not colour or led.pattern == Pattern.OFF:
        return symbol
    r, g, b = led.colour
    return f"\x1b[38;2;{r};{g};{b}m{symbol}\x1b[0m"


def render_line(leds: Sequence[LedState], layout: LedLayout, *, colour: bool = True) -> str:
    """``"leds 1-24 ··◉··· ······ ······ ······ | bar · | off · · | status ○"``.

    ``leds`` one state per LED index (missing indices count as off).
    """
    def at(index: int) -> LedState:
        return leds[index] if index < len(leds) else LedState()

    points = [_char(at(layout.point(p)), colour) for p in range(1, 25)]
    groups = " ".join("".join(points[i:i + 6]) for i in range(0, 24, 6))
    bar = "".join(_char(at(i), colour) for i in layout.bar)
    off = " ".join(_char(at(i), colour) for i in layout.off)
    return f"leds 1-24 {groups} | bar {bar} | off {off} | status {_char(at(layout.status), colour)}"

"""The LED layout (default and from a calibration profile) and the terminal line."""

from __future__ import annotations

import json

import pytest

from firmware_bridge.display import render_line
from firmware_bridge.layout import LayoutError, LedLayout, load_layout
from firmware_bridge.messages import LedState, Pattern


def test_default_layout_runs_along_the_table_points():
    layout = load_layout(None)
    assert layout.count == 28
    assert [layout.point(p) for p in (1, 12, 13, 24)] == [0, 11, 12, 23]
    assert layout.bar == (24,) and layout.off == (25, 26) and layout.status == 27


def test_profile_without_leds_section_gives_the_default(tmp_path):
    path = tmp_path / "board.json"
    path.write_text(json.dumps({"corners": [[0, 0], [1, 0], [1, 1], [0, 1]]}))
    assert load_layout(path) == LedLayout()


def test_profile_leds_section_is_read(tmp_path):
    leds = {"count": 30, "points": list(range(29, 5, -1)), "bar": 0, "off": [2, 3], "status": 4}
    path = tmp_path / "board.json"
    path.write_text(json.dumps({"name": "club board", "leds": leds}))
    layout = load_layout(path)
    assert layout.point(1) == 29 and layout.point(24) == 6 and layout.bar == (0,)
    assert LedLayout.from_dict(layout.to_dict()) == layout


@pytest.mark.parametrize("leds, message", [
    ({"points": list(range(23))}, "24 point LEDs"),
    ({"status": 24}, "used twice"),
    ({"status": 28}, "not in 0..27"),
    ({"count": 300}, "1..255"),
    ({"colour": "red"}, "unknown keys"),
    ({"bar": "x"}, "not in"),
    ({"points": 5}, "malformed"),
])
def test_bad_sections_raise_value_errors(leds, message):
    with pytest.raises(LayoutError, match=message) as info:
        load_layout({"leds": leds})
    assert isinstance(info.value, ValueError)


def test_unreadable_profiles_raise_one_line_errors(tmp_path):
    with pytest.raises(LayoutError, match="cannot read"):
        load_layout(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    with pytest.raises(LayoutError, match="not valid JSON"):
        load_layout(bad)


def test_terminal_line_shows_patterns_in_table_order():
    layout = LedLayout()
    leds = [LedState() for _ in range(28)]
    leds[layout.point(3)] = LedState((255, 0, 0), Pattern.BLINK)
    leds[layout.point(24)] = LedState((0, 255, 0), Pattern.STEADY)
    leds[layout.status] = LedState((0, 80, 255), Pattern.PULSE)
    plain = render_line(leds, layout, colour=False)
    assert plain == "leds 1-24 ··◉··· ······ ······ ·····● | bar · | off · · | status ○"
    coloured = render_line(leds, layout)
    assert "\x1b[38;2;255;0;0m◉\x1b[0m" in coloured and "\x1b[38;2;0;80;255m○\x1b[0m" in coloured

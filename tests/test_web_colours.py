"""The board's colours stay distinguishable for colour-blind users.

Colour-vision deficiencies are simulated with the matrices of Machado, Oliveira
and Fernandes (2009, severity 1.0) on linear RGB; two colours that must be told
apart must differ by at least 20 in CIELAB (CIE76 ΔE), where about 2 is the
smallest difference people notice.
"""

from __future__ import annotations

import itertools

import pytest

from web import board_svg

MACHADO = {
    "normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}


def _linear(hex_colour: str) -> tuple[float, float, float]:
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    return tuple(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)


def _lab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = (min(1.0, max(0.0, c)) for c in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def seen(hex_colour: str, vision: str) -> tuple[float, float, float]:
    m = MACHADO[vision]
    rgb = _linear(hex_colour)
    return _lab(tuple(sum(m[i][j] * rgb[j] for j in range(3)) for i in range(3)))


def delta_e(a: str, b: str, vision: str) -> float:
    la, lb = seen(a, vision), seen(b, vision)
    return sum((x - y) ** 2 for x, y in zip(la, lb)) ** 0.5


MUST_DIFFER = [
    ("illegal highlight vs hint", board_svg.ILLEGAL, board_svg.HINT),
    ("light vs dark checkers", board_svg.LIGHT_CHECKER, board_svg.DARK_CHECKER),
    ("illegal highlight vs felt", board_svg.ILLEGAL, board_svg.FELT),
    ("hint vs felt", board_svg.HINT, board_svg.FELT),
    ("the two point colours", *board_svg.POINT_COLOURS),
    ("dark checker vs felt", board_svg.DARK_CHECKER, board_svg.FELT),
] + [
    (f"{what} vs point colour {i}", colour_a, colour)
    for i, colour in enumerate(board_svg.POINT_COLOURS)
    for what, colour_a in (("light checker", board_svg.LIGHT_CHECKER), ("hint", board_svg.HINT),
                           ("illegal highlight", board_svg.ILLEGAL))
]


@pytest.mark.parametrize("vision", sorted(MACHADO))
@pytest.mark.parametrize("name, a, b", MUST_DIFFER, ids=[m[0] for m in MUST_DIFFER])
def test_colours_that_carry_meaning_stay_apart(vision, name, a, b):
    assert delta_e(a, b, vision) >= 20, f"{name} too close for {vision}: ΔE {delta_e(a, b, vision):.1f}"


def test_the_simulation_is_not_trivial():
    # Red and green, the classic confusion, collapse for deuteranopes but not for normal vision.
    assert delta_e("#d62728", "#2ca02c", "normal") > 60
    assert delta_e("#d62728", "#2ca02c", "deuteranopia") < delta_e("#d62728", "#2ca02c", "normal") / 2
    assert list(itertools.islice(MACHADO, 1)) == ["normal"]

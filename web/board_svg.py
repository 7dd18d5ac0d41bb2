"""The board drawn as inline SVG: points, stacks, bar, borne off, dice and the cube.

Drawn in table layout (see :mod:`web.table`): player 0 at the bottom with the
home board bottom right, player 1 at the top. Colours come from the Okabe-Ito
palette and every highlight also has a shape (thick outline, hatching, a
marker), so colour-blind users can tell them apart. Every element carries
``data-`` attributes and ids (``point-7``, ``die-0``, ``cube``) so tests and
scripts can read the drawing.
"""

from __future__ import annotations

import html
from typing import Iterable, Optional, Sequence

from web.table import TableBoard

WIDTH, HEIGHT = 740, 540
FIELD_TOP, FIELD_BOTTOM = 40, 500
POINT_W = 45
LEFT_X, BAR_X, RIGHT_X, TRAY_X = 70, 340, 390, 670
BAR_W = RIGHT_X - BAR_X
CHECKER_R = 20
MAX_DRAWN = 5
TRIANGLE_H = 200

ILLEGAL = "#d55e00"  # Okabe-Ito vermillion
HINT = "#56b4e9"  # Okabe-Ito sky blue (stays apart from the felt in all three simulations)
LIGHT_CHECKER, DARK_CHECKER = "#f6efdc", "#262626"
POINT_COLOURS = ("#c9a26b", "#6f8597")
FELT = "#2f5d46"
FRAME = "#4a3323"

_PIPS = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}


def point_centre_x(point: int) -> float:
    """x of the middle of table point ``point`` (1-24), in SVG user units."""
    if not 1 <= point <= 24:
        raise ValueError(f"table point must be 1-24, not {point}")
    k = point - 13 if point >= 13 else 12 - point
    base = LEFT_X + POINT_W * k if k < 6 else RIGHT_X + POINT_W * (k - 6)
    return base + POINT_W / 2


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _checker(cx: float, cy: float, player: int, label: Optional[str] = None) -> str:
    fill = LIGHT_CHECKER if player == 0 else DARK_CHECKER
    stroke = "#222" if player == 0 else "#bbb"
    out = (
        f'<circle class="checker p{player}" cx="{cx:.1f}" cy="{cy:.1f}" r="{CHECKER_R - 1}" '
        f'fill="{fill}" stroke="{stroke}" stroke-width="2"/>'
    )
    if label is not None:
        colour = "#000" if player == 0 else "#fff"
        out += (
            f'<text class="stack-count" x="{cx:.1f}" y="{cy + 6:.1f}" text-anchor="middle" '
            f'font-size="18" font-weight="bold" fill="{colour}">{_e(label)}</text>'
        )
    return out


def _point(point: int, count: int, illegal: bool, hint: bool) -> str:
    cx = point_centre_x(point)
    top = point >= 13
    x0, x1 = cx - POINT_W / 2, cx + POINT_W / 2
    if top:
        base_y, apex_y = FIELD_TOP, FIELD_TOP + TRIANGLE_H
    else:
        base_y, apex_y = FIELD_BOTTOM, FIELD_BOTTOM - TRIANGLE_H
    colour = POINT_COLOURS[point % 2]
    classes = ["point"]
    if illegal:
        classes.append("illegal")
    if hint:
        classes.append("hint")
    parts = [
        f'<g id="point-{point}" class="{" ".join(classes)}" data-point="{point}" data-count="{count}">',
        f'<polygon points="{x0:.1f},{base_y} {x1:.1f},{base_y} {cx:.1f},{apex_y}" fill="{colour}"/>',
    ]
    if illegal:
        parts.append(
            f'<polygon points="{x0:.1f},{base_y} {x1:.1f},{base_y} {cx:.1f},{apex_y}" '
            f'fill="url(#hatch)" stroke="{ILLEGAL}" stroke-width="5"/>'
        )
    if hint:
        parts.append(
            f'<polygon points="{x0 + 3:.1f},{base_y} {x1 - 3:.1f},{base_y} {cx:.1f},{apex_y}" '
            f'fill="none" stroke="{HINT}" stroke-width="4" stroke-dasharray="8 5"/>'
        )
    player = 0 if count > 0 else 1
    n = abs(count)
    for i in range(min(n, MAX_DRAWN)):
        cy = FIELD_TOP + CHECKER_R + 2 * CHECKER_R * i if top else FIELD_BOTTOM - CHECKER_R - 2 * CHECKER_R * i
        label = str(n) if (n > MAX_DRAWN and i == MAX_DRAWN - 1) else None
        parts.append(_checker(cx, cy, player, label))
    label_y = FIELD_TOP - 10 if top else FIELD_BOTTOM + 24
    marker = ""
    if illegal:
        marker = "! "
    parts.append(
        f'<text class="point-label" x="{cx:.1f}" y="{label_y}" text-anchor="middle" font-size="15" '
        f'fill="{ILLEGAL if illegal else "#333"}" font-weight="{"bold" if illegal else "normal"}">'
        f"{marker}{point}</text>"
    )
    parts.append("</g>")
    return "".join(parts)


def _bar(board: TableBoard) -> str:
    cx = BAR_X + BAR_W / 2
    parts = [f'<g id="bar" data-bar0="{board.bar[0]}" data-bar1="{board.bar[1]}">']
    middle = (FIELD_TOP + FIELD_BOTTOM) / 2
    # Player 0 enters into the top-right quadrant: their bar checkers sit on the upper half.
    for player, direction in ((0, -1), (1, 1)):
        n = board.bar[player]
        for i in range(min(n, 3)):
            cy = middle + direction * (CHECKER_R * 2 + 2 * CHECKER_R * i)
            label = str(n) if (n > 3 and i == 2) else None
            parts.append(_checker(cx, cy, player, label))
    parts.append("</g>")
    return "".join(parts)


def _trays(board: TableBoard) -> str:
    parts = []
    for player in (0, 1):
        n = board.off[player]
        fill = LIGHT_CHECKER if player == 0 else DARK_CHECKER
        parts.append(f'<g id="off-{player}" class="off" data-off="{n}">')
        for i in range(n):
            y = FIELD_BOTTOM - 12 - 12 * i if player == 0 else FIELD_TOP + 2 + 12 * i
            parts.append(
                f'<rect x="{TRAY_X + 6}" y="{y}" width="48" height="10" rx="2" fill="{fill}" stroke="#888"/>'
            )
        if n:
            y = FIELD_BOTTOM - 12 * n - 20 if player == 0 else FIELD_TOP + 12 * n + 22
            parts.append(
                f'<text x="{TRAY_X + 30}" y="{y}" text-anchor="middle" font-size="15" fill="#fff">{n}</text>'
            )
        parts.append("</g>")
    return "".join(parts)


def _cube(value: int, owner: Optional[int], offered: bool = False) -> str:
    size = 44
    x = 13
    if offered:
        # A double on offer: the cube turned to the next value, dashed, in the middle.
        y = (FIELD_TOP + FIELD_BOTTOM) / 2 - size / 2
        shown = max(2, value * 2)
        return (
            f'<g id="cube" data-value="{value}" data-place="offered" data-offered="{shown}">'
            f'<rect x="{x}" y="{y}" width="{size}" height="{size}" rx="6" fill="#fff" stroke="{HINT}" '
            f'stroke-width="4" stroke-dasharray="6 4"/>'
            f'<text x="{x + size / 2}" y="{y + size / 2 + 7}" text-anchor="middle" font-size="20" '
            f'font-weight="bold" fill="#000">{shown}</text>'
            f'<text x="{x + size / 2}" y="{y + size + 18}" text-anchor="middle" font-size="13" '
            f'fill="#000">offered</text></g>'
        )
    if owner == 1:
        y = FIELD_TOP
        place = "top"
    elif owner == 0:
        y = FIELD_BOTTOM - size
        place = "bottom"
    else:
        y = (FIELD_TOP + FIELD_BOTTOM) / 2 - size / 2
        place = "centre"
    shown = 64 if (owner is None and value <= 1) else value
    return (
        f'<g id="cube" data-value="{value}" data-place="{place}">'
        f'<rect x="{x}" y="{y}" width="{size}" height="{size}" rx="6" fill="#fff" stroke="#000" stroke-width="2"/>'
        f'<text x="{x + size / 2}" y="{y + size / 2 + 7}" text-anchor="middle" font-size="20" '
        f'font-weight="bold" fill="#000">{shown}</text></g>'
    )


def _die(index: int, value: int, cx: float, cy: float, player: int, cocked: bool) -> str:
    size = 40
    fill = LIGHT_CHECKER if player == 0 else DARK_CHECKER
    pip = "#000" if player == 0 else "#fff"
    rotate = f' transform="rotate(18 {cx:.1f} {cy:.1f})"' if cocked else ""
    dash = ' stroke-dasharray="6 4"' if cocked else ""
    parts = [
        f'<g id="die-{index}" class="die{" cocked" if cocked else ""}" data-value="{value}"{rotate}>',
        f'<rect x="{cx - size / 2:.1f}" y="{cy - size / 2:.1f}" width="{size}" height="{size}" rx="7" '
        f'fill="{fill}" stroke="{ILLEGAL if cocked else "#000"}" stroke-width="{4 if cocked else 2}"'
        f"{dash}/>",
    ]
    for dx, dy in _PIPS.get(value, ()):
        parts.append(f'<circle cx="{cx + dx * 10:.1f}" cy="{cy + dy * 10:.1f}" r="4" fill="{pip}"/>')
    parts.append("</g>")
    return "".join(parts)


def _dice(dice: Sequence[int], roller: Optional[int], cocked: bool) -> str:
    if not dice:
        return '<g id="dice" data-dice="" data-cocked="false"></g>'
    # Dice are thrown into the roller's right-hand board: the right half for the
    # player at the bottom, the left half (their right) for the player at the top.
    if roller == 1:
        centre_x = LEFT_X + 3 * POINT_W
    else:
        centre_x = RIGHT_X + 3 * POINT_W
    cy = (FIELD_TOP + FIELD_BOTTOM) / 2
    parts = [f'<g id="dice" data-dice="{",".join(str(int(d)) for d in dice)}" data-cocked="{str(cocked).lower()}">']
    n = len(dice)
    for i, value in enumerate(dice):
        cx = centre_x + (i - (n - 1) / 2) * 52
        player = roller if roller in (0, 1) else (0 if i == 0 else 1)
        parts.append(_die(i, int(value), cx, cy, player, cocked))
    if cocked:
        parts.append(
            f'<text x="{centre_x:.1f}" y="{cy + 48:.1f}" text-anchor="middle" font-size="18" '
            f'font-weight="bold" fill="#fff" stroke="{ILLEGAL}" stroke-width="0.6">⚠ cocked: roll again</text>'
        )
    parts.append("</g>")
    return "".join(parts)


def render_board_svg(
    board: TableBoard,
    *,
    dice: Sequence[int] = (),
    roller: Optional[int] = None,
    dice_cocked: bool = False,
    cube_value: int = 1,
    cube_owner: Optional[int] = None,
    cube_offered: bool = False,
    illegal_points: Iterable[int] = (),
    hint_points: Iterable[int] = (),
    title: str = "Backgammon board",
    description: str = "",
    id_prefix: str = "",
) -> str:
    """The whole board as one ``<svg>`` element (a string of markup, 740x540 user units).

    ``dice``: values 1-6 to draw in ``roller``'s right-hand board (``roller`` 0
    bottom, 1 top, None unknown: drawn on the right); ``dice_cocked`` draws them
    tilted with a dashed vermillion outline and "roll again". ``cube_owner``
    None draws the cube centred (64 shown for a cube of 1); ``cube_offered``
    draws it turned to the next value, dashed, "offered". ``illegal_points``
    (table points) get a thick vermillion outline, hatching and a "!" label;
    ``hint_points`` a dashed blue outline (teaching mode). Text is escaped.
    ``id_prefix`` (letters, digits, ``-``) goes before every element id and
    every reference to one (``t7-board``, ``t7-point-5``), for pages that show
    several boards.
    """
    if id_prefix and not all(c.isalnum() or c == "-" for c in id_prefix):
        raise ValueError(f"id_prefix must be letters, digits or '-', not {id_prefix!r}")
    illegal = {int(p) for p in illegal_points if 1 <= int(p) <= 24}
    hint = {int(p) for p in hint_points if 1 <= int(p) <= 24}
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="board" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-labelledby="board-title board-desc" class="board">',
        f'<title id="board-title">{_e(title)}</title><desc id="board-desc">{_e(description)}</desc>',
        '<defs><pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="3" height="8" fill="#d55e00" opacity="0.55"/></pattern></defs>',
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#efe9dc"/>',
        f'<rect x="{LEFT_X - 6}" y="{FIELD_TOP - 6}" width="{TRAY_X - LEFT_X + 6 + 66}" '
        f'height="{FIELD_BOTTOM - FIELD_TOP + 12}" fill="{FRAME}" rx="6"/>',
        f'<rect x="{LEFT_X}" y="{FIELD_TOP}" width="{6 * POINT_W}" height="{FIELD_BOTTOM - FIELD_TOP}" fill="{FELT}"/>',
        f'<rect x="{RIGHT_X}" y="{FIELD_TOP}" width="{6 * POINT_W}" height="{FIELD_BOTTOM - FIELD_TOP}" fill="{FELT}"/>',
        f'<rect x="{TRAY_X}" y="{FIELD_TOP}" width="60" height="{(FIELD_BOTTOM - FIELD_TOP) / 2 - 10}" fill="#3b2a1d"/>',
        f'<rect x="{TRAY_X}" y="{(FIELD_TOP + FIELD_BOTTOM) / 2 + 10}" width="60" '
        f'height="{(FIELD_BOTTOM - FIELD_TOP) / 2 - 10}" fill="#3b2a1d"/>',
    ]
    for point in range(1, 25):
        parts.append(_point(point, board.points[point], point in illegal, point in hint))
    parts.append(_bar(board))
    parts.append(_trays(board))
    parts.append(_cube(cube_value, cube_owner, cube_offered))
    parts.append(_dice(dice, roller, dice_cocked))
    parts.append("</svg>")
    svg = "".join(parts)
    if id_prefix:  # text is escaped (no quote in it), so only markup matches these
        svg = (svg.replace(' id="', f' id="{id_prefix}').replace("url(#", f"url(#{id_prefix}")
               .replace('aria-labelledby="board-title board-desc"',
                        f'aria-labelledby="{id_prefix}board-title {id_prefix}board-desc"'))
    return svg

"""The table layout of a position, its SVG drawing and its text form."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from web.board_svg import point_centre_x, render_board_svg
from web.table import BoardDataError, TableBoard, board_from_state
from web_stub import START

SVG = "{http://www.w3.org/2000/svg}"


def test_start_position_from_player_0_is_the_table_as_is():
    board = TableBoard.from_signed(START, perspective=0)
    assert board.points[24] == 2 and board.points[13] == 5 and board.points[8] == 3 and board.points[6] == 5
    assert board.points[1] == -2 and board.points[12] == -5 and board.points[17] == -3 and board.points[19] == -5
    assert board.bar == (0, 0) and board.off == (0, 0)
    assert board.pip_counts() == (167, 167)


def test_player_1_on_roll_is_mirrored_onto_the_table():
    # Player 1 on roll with a checker on their own 24 point moved to their 20 point,
    # one of player 0's checkers on the bar and three of player 1's borne off.
    signed = [0] * 26
    signed[20] = 1  # player 1's 20 point = table point 5
    signed[6] = 11  # player 1's 6 point = table point 19
    signed[3] = -14  # player 0's checkers on player 1's 3 point = table point 22
    signed[0] = -1  # player 0 (the opponent) has one on the bar
    board = TableBoard.from_signed(signed, perspective=1)
    assert board.points[5] == -1 and board.points[19] == -11 and board.points[22] == 14
    assert board.bar == (1, 0)
    assert board.off == (0, 3)
    assert board.pip_counts() == (14 * 22 + 25, 1 * 20 + 11 * 6)


@pytest.mark.parametrize("bad", [[0] * 25, ["x"] * 26, None])
def test_malformed_positions_raise_value_errors(bad):
    with pytest.raises(BoardDataError):
        TableBoard.from_signed(bad, 0)
    with pytest.raises(ValueError):
        TableBoard.from_signed(START, 2)


def test_board_from_state_shapes():
    assert board_from_state({}) is None
    assert board_from_state({"position": list(START)}).points[24] == 2
    mirrored = board_from_state({"position": {"signed": list(START)}, "turn": 1})
    assert mirrored.points[1] == -2 and mirrored.points[24] == 2  # the start is symmetric
    explicit = board_from_state({"position": {"signed": list(START), "perspective": 0}, "turn": 1})
    assert explicit.points == TableBoard.from_signed(START, 0).points


def test_point_layout_matches_the_table_numbering():
    xs = {p: point_centre_x(p) for p in range(1, 25)}
    assert [xs[p] for p in range(1, 13)] == sorted((xs[p] for p in range(1, 13)), reverse=True)  # 1..12 right to left
    assert [xs[p] for p in range(13, 25)] == sorted(xs[p] for p in range(13, 25))  # 13..24 left to right
    assert xs[1] == xs[24] and xs[12] == xs[13]
    with pytest.raises(ValueError):
        point_centre_x(0)


def test_svg_is_well_formed_and_draws_every_checker():
    board = TableBoard.from_signed(START, 0)
    svg = render_board_svg(board, dice=(6, 5), roller=0, cube_value=2, cube_owner=1)
    root = ET.fromstring(svg)
    checkers = root.findall(f".//{SVG}circle[@class='checker p0']") + root.findall(f".//{SVG}circle[@class='checker p1']")
    assert len(checkers) == 30  # no stack above 5 at the start
    cube = root.find(f".//{SVG}g[@id='cube']")
    assert cube.get("data-value") == "2" and cube.get("data-place") == "top"
    dice = root.find(f".//{SVG}g[@id='dice']")
    assert dice.get("data-dice") == "6,5" and dice.get("data-cocked") == "false"
    pips = [c for c in root.find(f".//{SVG}g[@id='die-0']") if c.tag == f"{SVG}circle"]
    assert len(pips) == 6


def test_tall_stacks_show_a_number_and_bar_and_off_are_drawn():
    signed = [0] * 26
    signed[6] = 12
    signed[25] = 1  # on the bar
    signed[1] = -9
    signed[0] = -4
    board = TableBoard.from_signed(signed, 0)
    root = ET.fromstring(render_board_svg(board))
    point6 = root.find(f".//{SVG}g[@id='point-6']")
    assert len(point6.findall(f"{SVG}circle")) == 5
    assert [t.text for t in point6.findall(f"{SVG}text") if t.get("class") == "stack-count"] == ["12"]
    bar = root.find(f".//{SVG}g[@id='bar']")
    assert bar.get("data-bar0") == "1" and bar.get("data-bar1") == "4"
    assert root.find(f".//{SVG}g[@id='off-0']").get("data-off") == "2"
    assert root.find(f".//{SVG}g[@id='off-1']").get("data-off") == "2"
    assert len(root.findall(f".//{SVG}g[@id='off-1']/{SVG}rect")) == 2


def test_highlights_and_cocked_dice_have_shapes_not_only_colours():
    board = TableBoard.from_signed(START, 0)
    svg = render_board_svg(board, dice=(3, 1), roller=1, dice_cocked=True, illegal_points=[8, 99], hint_points=[5])
    root = ET.fromstring(svg)
    p8 = root.find(f".//{SVG}g[@id='point-8']")
    assert "illegal" in p8.get("class")
    assert any(poly.get("fill") == "url(#hatch)" for poly in p8.findall(f"{SVG}polygon"))
    assert any((t.text or "").startswith("! ") for t in p8.findall(f"{SVG}text"))
    p5 = root.find(f".//{SVG}g[@id='point-5']")
    assert any(poly.get("stroke-dasharray") for poly in p5.findall(f"{SVG}polygon"))
    die = root.find(f".//{SVG}g[@id='die-0']")
    assert "cocked" in die.get("class") and "rotate" in die.get("transform")
    assert "roll again" in svg
    # The top player's dice lie in the left half (their right-hand board).
    rect = die.find(f"{SVG}rect")
    assert float(rect.get("x")) < point_centre_x(19)


def test_text_is_escaped_in_the_svg():
    svg = render_board_svg(TableBoard.empty(), title="<b>&", description='"x"')
    assert "<b>" not in svg and "&lt;b&gt;&amp;" in svg
    ET.fromstring(svg)


def test_describe_reads_like_sentences():
    lines = TableBoard.from_signed(START, 0).describe(("Ann", "Ben"))
    assert lines[0] == "Point 1: 2 Ben checkers"
    assert "Point 24: 2 Ann checkers" in lines
    assert len(lines) == 8


def test_an_offered_double_shows_the_next_value():
    root = ET.fromstring(render_board_svg(TableBoard.empty(), cube_value=2, cube_owner=0, cube_offered=True))
    cube = root.find(f".//{SVG}g[@id='cube']")
    assert cube.get("data-place") == "offered" and cube.get("data-offered") == "4"
    assert [t.text for t in cube.findall(f"{SVG}text")] == ["4", "offered"]


def test_an_id_prefix_makes_every_id_and_reference_of_one_board_its_own():
    board = TableBoard.from_signed(START, 0)
    plain = render_board_svg(board, dice=(3, 1), roller=0, illegal_points=[8], title='x id="board"')
    svg = render_board_svg(board, dice=(3, 1), roller=0, illegal_points=[8], title='x id="board"', id_prefix="t7-")
    root = ET.fromstring(svg)
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert ids and all(i.startswith("t7-") for i in ids)
    assert sorted(i[3:] for i in ids) == sorted(e.get("id") for e in ET.fromstring(plain).iter() if e.get("id"))
    assert root.get("aria-labelledby") == "t7-board-title t7-board-desc"
    assert 'url(#t7-hatch)' in svg and "url(#hatch)" not in svg
    assert root.find(f"{SVG}title").text == 'x id="board"'  # text is not touched
    with pytest.raises(ValueError):
        render_board_svg(board, id_prefix='"><script>')

"""Checker moves and plays in standard notation."""

from __future__ import annotations

import pytest

from companion.play import CheckerMove, NotationError, Play
from companion.position import Position


@pytest.mark.parametrize("text", ["24/18 13/11*", "bar/22", "6/off", "8/5(2)", "24/23*/20",
                                  "13/7(2) 8/2(2)", "bar/21(2) 6/2(2)", "7/off 2/off(2)",
                                  "bar/20*/18", "6/5 6/3", ""])
def test_notation_round_trips(text):
    play = Play.from_notation(text)
    assert play.notation() == text
    assert eval(repr(play), {"Play": Play}) == play


def test_parsed_moves():
    play = Play.from_notation("24/23*/20 8/5(2)")
    assert play.moves == (
        CheckerMove(24, 23, True), CheckerMove(23, 20), CheckerMove(8, 5), CheckerMove(8, 5))
    assert Play.from_notation("bar/22 6/off").moves == (CheckerMove(25, 22), CheckerMove(6, 0))
    assert Play.from_notation("25/22 6/0") == Play.from_notation("bar/22 6/off")
    with pytest.raises(NotationError):
        Play.from_notation("6/5 6/5 6/5 6/5 6/5")


def test_gnubg_ordering_and_joining():
    moves = (CheckerMove(6, 5), CheckerMove(24, 23), CheckerMove(23, 20, True))
    assert Play(moves).notation() == "24/20* 6/5"
    # a hit on the intermediate point keeps it
    assert Play((CheckerMove(24, 23, True), CheckerMove(23, 20))).notation() == "24/23*/20"
    # two checkers on one point, the first hits
    assert Play((CheckerMove(13, 11, True), CheckerMove(13, 11))).notation() == "13/11*(2)"


@pytest.mark.parametrize("bad", ["24/", "/18", "24/30", "18/24", "off/3", "3/bar", "24/18(5)",
                                 "24-18", "13/11**", "*13/11", "abc", "24/18(0)"])
def test_bad_notation_raises(bad):
    with pytest.raises(NotationError):
        Play.from_notation(bad)
    assert issubclass(NotationError, ValueError)


def test_apply_unchecked():
    pos = Position.initial()
    after = Play.from_notation("8/5 6/5").apply_unchecked(pos)
    assert after.mover[5] == 2 and after.mover[8] == 2 and after.mover[6] == 4
    with pytest.raises(ValueError):
        Play.from_notation("24/19").apply_unchecked(pos)  # the opponent's 6-point
    with pytest.raises(ValueError):
        Play.from_notation("23/20").apply_unchecked(pos)  # nothing on 23

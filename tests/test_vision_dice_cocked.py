"""Cocked-dice rules on a registered board (USBGF 2017 and the older on-checker rule)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.observation import DieReading
from vision.cocked import CockedRules, judge_roll, place_of, roll_is_cocked

registration = pytest.importorskip("vision.registration")


@pytest.fixture()
def field():
    # a field seen straight from above: 640 x 600 image pixels from (100, 50)
    return registration.field_from_corners(np.array([[100, 50], [740, 50], [740, 650], [100, 650]], float), (840, 700))


def _die(x: float, y: float, value: int = 3) -> DieReading:
    return DieReading(value=value, center=(x, y), box=(x - 15, y - 15, x + 15, y + 15), confidence=0.99)


def _canonical_to_image(field, x, y):
    return tuple(field.to_image(np.array([[x, y]], float))[0])


def test_places_on_the_board(field):
    bar_x = (field.bar_x0 + field.bar_x1) / 2
    assert place_of(_die(*_canonical_to_image(field, bar_x, 300)), field) == ("bar", None)
    assert place_of(_die(*_canonical_to_image(field, 500, 300)), field) == ("field", "right")
    assert place_of(_die(*_canonical_to_image(field, 100, 300)), field) == ("field", "left")
    assert place_of(_die(60, 300), field) == ("off", None)


def test_roll_in_the_right_hand_board_is_fine(field):
    dice = [_die(*_canonical_to_image(field, 450, 280)), _die(*_canonical_to_image(field, 560, 330))]
    judged = judge_roll(dice, field, roller="bottom")
    assert [d.cocked for d in judged] == [False, False]
    assert [d.half for d in judged] == ["right", "right"]
    assert not roll_is_cocked(judged)


def test_each_reason(field):
    bar_x = (field.bar_x0 + field.bar_x1) / 2
    dice = [
        _die(*_canonical_to_image(field, bar_x, 300)),  # on the bar
        _die(60, 300),  # on the frame, off the field
        _die(*_canonical_to_image(field, 100, 300)),  # left half: not the bottom player's right hand
        _die(*_canonical_to_image(field, 500, 300)),  # fine
    ]
    judged = judge_roll(dice, field, roller="bottom")
    assert [d.reason for d in judged] == ["on_bar", "off_board", "wrong_half", None]
    assert all(d.message and "roll both dice again" in d.message for d in judged[:3])
    assert roll_is_cocked(judged)
    # the player at the top rolls into the image's left half
    top = judge_roll(dice[2:], field, roller="top")
    assert [d.reason for d in top] == [None, "wrong_half"]


def test_on_checker_is_a_setting(field):
    x, y = _canonical_to_image(field, 500, 40)
    checkers = [(x + 3, y - 2, 24.0)]
    usbgf = judge_roll([_die(x, y)], field, roller="bottom", checkers=checkers)
    older = judge_roll([_die(x, y)], field, roller="bottom", checkers=checkers,
                       rules=CockedRules(on_checker_cocked=True))
    assert usbgf[0].cocked is False
    assert older[0].cocked is True and older[0].reason == "on_checker"


def test_needs_a_field():
    with pytest.raises(ValueError):
        judge_roll([_die(10, 10)], None)

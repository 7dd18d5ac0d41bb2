"""A registered board's dice looked at again when a frame reads fewer than two
(``DiceReader.reread_sibling``: the candidates of a size far from the die read, read again at its
size; ``recentre_unread_ones``: a one moved to its pip), on rendered rolls of dice of 0.28-0.85
of a checker's diameter (``render_roll_on_board(default_rng(seed), cocked_prob=0, cube_prob=0,
die_to_checker=(0.28, 0.85))``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision.dice import DiceReader
from vision.dice_plugin import DicePlugin
from vision.dice_settings import DiceSettings
from vision.render_roll import render_roll_on_board


def _values(seed: int, **variants) -> tuple[list[int], dict[str, list[int]]]:
    roll = render_roll_on_board(np.random.default_rng(seed), cocked_prob=0.0, cube_prob=0.0, die_to_checker=(0.28, 0.85))
    got = {}
    for name, changes in {"shipped": {}, **variants}.items():
        plugin = DicePlugin()
        plugin.reader = DiceReader(settings=dataclasses.replace(DiceSettings(), **changes))
        got[name] = sorted(d.value for d in plugin.dice(roll.image, roll.field))
    return sorted(d.value for d in roll.dice), got


def test_a_die_sized_poorly_is_read_at_its_siblings_size():
    """Seed 429, a 2-2: one 2 is read, the other sized far from it and turned down; read again at
    the first one's size it is the second 2. Moving candidates to a pip does not find it."""
    truth, got = _values(429, no_sibling={"sibling_size": None}, no_ones={"field_ones": False})
    assert truth == [2, 2]
    assert got == {"shipped": [2, 2], "no_sibling": [2], "no_ones": [2, 2]}


@pytest.mark.parametrize("off", ["sibling_size", "field_ones"])
def test_a_missed_one_is_found_by_either_rule_and_lost_without_both(off):
    """Seed 431, a 1-2: the 1 is turned down at the first look; read again at the 2's size, or
    moved to its pip and read there, it is the 1; with neither rule only the 2 is read."""
    changes = {"sibling_size": None} if off == "sibling_size" else {"field_ones": False}
    truth, got = _values(431, one_rule=changes, neither={"sibling_size": None, "field_ones": False})
    assert truth == [1, 2]
    assert got == {"shipped": [1, 2], "one_rule": [1, 2], "neither": [2]}

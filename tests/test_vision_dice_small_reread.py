"""Dice boxed far smaller than the players' learned dice are read again at their size
(``DiceReader.reread_small``): the detector misjudges a jumbo die's size, and a 2 turned 45
degrees boxed between its pips reads as a 1 once moved to a pip. Dice read unsure are read again
larger (``DiceReader.reread_unsure``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision.dice import Candidate, DiceReader

pytest.importorskip("vision.render_board")
from vision.render_dice import DIE_STYLES, draw_die  # noqa: E402
from vision.render_roll import random_board_scene  # noqa: E402


@pytest.fixture(scope="module")
def reader():
    return DiceReader()


@pytest.fixture(scope="module")
def jumbo_two():
    """A board with one red jumbo die (0.8 of a checker) showing 2, turned 45 degrees; the die's
    drawn truth and side in pixels."""
    scene = random_board_scene(np.random.default_rng(3), (0.8, 0.8))
    image = scene.image.copy()
    x, y = scene.to_image(scene.field.size[0] * 0.75, scene.field.size[1] * 0.5)
    red = next(s for s in DIE_STYLES if s.name == "red")
    die = draw_die(image, (x, y), scene.die_px, 2, yaw_deg=45, style=red, parallax=scene.parallax(x, y))
    return image, die, scene.die_px


def _one(p_value: float, value: int = 1) -> np.ndarray:
    p = np.zeros(8)
    p[value - 1] = p_value
    p[6] = 1.0 - p_value
    return p


def test_a_die_boxed_small_and_moved_to_a_pip_is_read_again_at_the_learned_size(reader, jumbo_two):
    image, die, side = jumbo_two
    pip = (die.center[0] + 0.25 * side, die.center[1])
    # as the detector and the recentring leave it: sized 0.65 of the die, moved to a pip, a 1 at 0.6
    small = Candidate(center=pip, size=0.65 * side, score=0.5, outline_center=die.center)
    cands, probs = reader.reread_small(image, [small], _one(0.6)[None], side)
    assert int(np.argmax(probs[0, :6])) + 1 == 2 and probs[0, 1] > 0.6
    assert cands[0].center == die.center and cands[0].outline_center is None
    assert cands[0].size >= side
    die_read = reader.dice_from_scan(cands, probs)
    assert [d.value for d in die_read] == [2]


def test_dice_of_the_learned_size_sure_readings_and_no_dice_are_left_alone(reader, jumbo_two):
    image, die, side = jumbo_two
    well_sized = Candidate(center=die.center, size=side, score=0.8)
    sure_small = Candidate(center=die.center, size=0.6 * side, score=0.8)
    no_die = Candidate(center=die.center, size=0.6 * side, score=0.3)
    probs = np.vstack([_one(0.55, 3), _one(0.999), np.eye(8)[6]])
    cands, out = reader.reread_small(image, [well_sized, sure_small, no_die], probs, side)
    assert cands == [well_sized, sure_small, no_die]
    assert np.array_equal(out, probs)
    off = DiceReader(settings=dataclasses.replace(reader.settings, field_small=None))
    small = Candidate(center=die.center, size=0.6 * side, score=0.5)
    assert off.reread_small(image, [small], _one(0.6)[None], side)[0] == [small]


def test_the_plugin_gives_the_learned_side_to_the_scan(monkeypatch):
    from vision.dice_plugin import DicePlugin
    from vision.dice_size import board_die_px

    scene = random_board_scene(np.random.default_rng(5), (0.8, 0.8))
    plugin = DicePlugin()
    seen = []
    scan = plugin.reader.scan

    def spy(image, field=None, die_px=None, die_side=None):
        seen.append(die_side)
        return scan(image, field, die_px, die_side)

    monkeypatch.setattr(plugin.reader, "scan", spy)
    plugin.dice(scene.image, scene.field)
    plugin.die_scale = 1.7  # jumbo dice: searched at the board's size, read again at their own
    plugin.dice(scene.image, scene.field)  # a new size: the frame's scan is not reused
    assert seen[0] is None
    assert seen[-1] == pytest.approx(1.7 * board_die_px(scene.field, scene.image.shape))


def test_an_unsure_die_boxed_inside_its_outline_is_read_again_larger(reader, jumbo_two):
    """``DiceReader.reread_unsure``: the jumbo 2 boxed at 0.7 of its side, read as a 1 at 0.6, is
    read again 1.25 and 1.5 times larger and is the 2; a sure reading, a patch read as no die and a
    die with another die read within 1.5 times its size are left as they are."""
    image, die, side = jumbo_two
    small = Candidate(center=die.center, size=0.7 * side, score=0.5)
    cands, probs = reader.reread_unsure(image, [small], _one(0.6)[None])
    assert int(np.argmax(probs[0, :6])) + 1 == 2 and probs[0, 1] > 0.6
    assert cands[0].size > small.size
    sure = Candidate(center=die.center, size=0.7 * side, score=0.5)
    no_die = Candidate(center=die.center, size=0.7 * side, score=0.3)
    neighbour = Candidate(center=(die.center[0] + side, die.center[1]), size=0.7 * side, score=0.5)
    for group, p in (([sure], _one(0.95)[None]), ([no_die], np.eye(8)[6][None]),
                     ([small, neighbour], np.vstack([_one(0.6), _one(0.6, 4)]))):
        kept, out = reader.reread_unsure(image, group, p)
        assert kept == group and np.array_equal(out, p)
    off = DiceReader(settings=dataclasses.replace(reader.settings, unsure_below=None))
    assert off.reread_unsure(image, [small], _one(0.6)[None])[0] == [small]


def test_a_candidate_spread_over_two_values_is_read_again_larger_and_accepted(reader, jumbo_two):
    """``DiceSettings.unsure_values``: the jumbo 2 boxed at 0.7 of its side and read as 1 or 3 at
    0.35 each is no die (neither value reaches ``accept``); its values together reach 0.7, so it
    is read again larger, and is the 2. Without the setting it stays unread."""
    image, die, side = jumbo_two
    small = Candidate(center=die.center, size=0.7 * side, score=0.5)
    spread = np.zeros(8)
    spread[[0, 2, 6]] = 0.35, 0.35, 0.3
    assert not reader.dice_from_scan([small], spread[None])
    cands, probs = reader.reread_unsure(image, [small], spread[None])
    assert [d.value for d in reader.dice_from_scan(cands, probs)] == [2]
    off = DiceReader(settings=dataclasses.replace(reader.settings, unsure_values=None))
    kept, out = off.reread_unsure(image, [small], spread[None])
    assert kept == [small] and np.array_equal(out, spread[None])
    below = spread.copy()
    below[[0, 2, 6]] = 0.3, 0.3, 0.4  # values together 0.6: left as it is
    kept, out = reader.reread_unsure(image, [small], below[None])
    assert kept == [small] and np.array_equal(out, below[None])


def test_an_unread_candidate_boxed_small_is_read_again_at_the_learned_size(reader, jumbo_two):
    """``DiceSettings.small_unread``: the jumbo 2 boxed at 0.6 of its side and read as no die (its
    values together 0.4) is read again at the learned side and is the 2; of several such
    candidates only the two with the most probable values are read again; below the setting, or
    without it, a candidate stays as it is."""
    image, die, side = jumbo_two
    small = Candidate(center=die.center, size=0.6 * side, score=0.5)
    unread = np.zeros(8)
    unread[[0, 1, 6]] = 0.25, 0.15, 0.6
    assert not reader.dice_from_scan([small], unread[None])
    cands, probs = reader.reread_small(image, [small], unread[None], side)
    assert [d.value for d in reader.dice_from_scan(cands, probs)] == [2]
    assert cands[0].size >= side
    # far apart, each one's crop holds no other: the two likeliest are read again, the third is not
    others = [Candidate(center=(die.center[0] - k * 3 * side, die.center[1]), size=0.6 * side, score=0.5)
              for k in (1, 2)]
    likelier = unread.copy()
    likelier[[0, 6]] = 0.3, 0.55
    group = [small, *others]
    kept, out = reader.reread_small(image, group, np.vstack([unread, likelier, likelier]), side)
    assert kept[0] == small and np.array_equal(out[0], unread)
    faint = np.zeros(8)
    faint[[0, 6]] = 0.2, 0.8
    for r, p in ((reader, faint), (DiceReader(settings=dataclasses.replace(reader.settings, small_unread=None)), unread)):
        kept, out = r.reread_small(image, [small], p[None], side)
        assert kept == [small] and np.array_equal(out, p[None])

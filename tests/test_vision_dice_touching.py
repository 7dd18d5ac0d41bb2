"""Two dice lying against each other on a registered board are read as two dice."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.dice import DiceReader
from vision.render_touching import footprint, footprint_gap, render_touching, touching_offset


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


@pytest.mark.parametrize("yaw_a,yaw_b,direction,gap", [(0, 0, 0, 0.0), (10, 55, 120, 1.5), (45, 45, 270, 2.0),
                                                       (30, 80, 200, 0.4)])
def test_touching_offset_leaves_the_asked_gap_between_footprints(yaw_a, yaw_b, direction, gap):
    dx, dy = touching_offset(20.0, yaw_a, yaw_b, direction, gap)
    got = footprint_gap(footprint((0.0, 0.0), 20.0, yaw_a), footprint((dx, dy), 20.0, yaw_b))
    assert got == pytest.approx(gap, abs=0.02)
    # two squares of side 20 touch between one side and one diagonal apart
    assert 20.0 - 0.05 <= math.hypot(dx, dy) - gap <= 20.0 * math.sqrt(2) + 0.05


def test_footprints_that_overlap_have_no_gap():
    assert footprint_gap(footprint((0, 0), 10, 0), footprint((5, 3), 10, 30)) == 0.0


def test_touching_offset_rejects_a_negative_gap():
    with pytest.raises(ValueError):
        touching_offset(20.0, 0, 0, 0, -1.0)


def test_two_touching_dice_are_read_as_two_dice_with_their_values(reader):
    # benchmarks/dice_touching.py reads 92% of touching pairs exactly (seed 2600, 300 boards);
    # 12 boards of seeds 40..51, none of them a benchmark or training seed
    touching = alone = bare = 0
    for seed in range(40, 52):
        scene = render_touching(np.random.default_rng(seed))
        assert scene.gap <= 2.0
        dice = reader.read(scene.touching, scene.field)
        near = [[d.value for d in dice
                 if math.hypot(d.center[0] - t.center[0], d.center[1] - t.center[1]) < t.size / 2]
                for t in scene.truth_touching]
        touching += len(dice) == 2 and near == [[t.value] for t in scene.truth_touching]
        # one die alone on the same board stays one die, and the bare board shows none
        alone += [d.value for d in reader.read(scene.single, scene.field)] == [scene.truth_single[0].value]
        bare += reader.read(scene.empty, scene.field) == []
    assert touching >= 10 and alone >= 11 and bare == 12, (touching, alone, bare)


def test_small_touching_dice_boxed_as_one_are_read_as_two_dice():
    """Travel dice (0.3-0.45 of a checker) lying against each other, which the detector boxes as
    one die 1.3-1.9 times a die's side: read as two with their values (through the dice
    plug-in, the dice's size learned on the pair lying apart, as ``benchmarks/dice_touching.py
    --learn-size`` reads them). The 9th, 18th and 32nd small pairs of seed 1100 (the validation
    boards of ``vision.dice_touching``'s settings) were read as one die with fewer sides tried."""
    from vision.dice_plugin import DicePlugin
    from vision.dice_size import learn_die_scale
    from vision.render_dice import RenderError

    rng = np.random.default_rng(1100)
    scenes = []
    while len(scenes) < 32:
        try:
            scenes.append(render_touching(rng, size_range=(0.3, 0.45)))
        except RenderError:
            continue
    plugin = DicePlugin()
    for k in (9, 18, 32):
        scene = scenes[k - 1]
        plugin.die_scale = learn_die_scale(scene.apart, scene.field, plugin.reader)
        plugin.new_frame()
        dice = plugin.dice(scene.touching, scene.field)
        assert len(dice) == 2, (k, dice)
        for t in scene.truth_touching:
            assert [d.value for d in dice
                    if math.hypot(d.center[0] - t.center[0], d.center[1] - t.center[1]) < t.size / 2] == [t.value], k

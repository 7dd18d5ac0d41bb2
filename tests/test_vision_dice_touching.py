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


@pytest.mark.parametrize("seed", [6, 24])
def test_two_touching_dice_are_read_as_two_dice_with_their_values(reader, seed):
    scene = render_touching(np.random.default_rng(seed))
    assert scene.gap <= 2.0
    dice = reader.read(scene.touching, scene.field)
    assert len(dice) == 2
    for truth in scene.truth_touching:
        near = [d for d in dice if math.hypot(d.center[0] - truth.center[0], d.center[1] - truth.center[1]) < truth.size / 2]
        assert [d.value for d in near] == [truth.value]
    # one die alone on the same board stays one die, and the bare board shows none
    alone = reader.read(scene.single, scene.field)
    assert [d.value for d in alone] == [scene.truth_single[0].value]
    assert reader.read(scene.empty, scene.field) == []

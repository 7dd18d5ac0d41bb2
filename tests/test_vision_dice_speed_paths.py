"""The faster paths of the dice and cube readers give the same numbers as the plain ones."""

import numpy as np
import pytest

from vision.dice import Candidate
from vision.dice_patches import detector_blob, patches_blob
from vision.render_roll import render_roll_on_board


class Counting:
    """A network wrapper that counts the patches it is given."""

    def __init__(self, net):
        self.net, self.patches = net, 0

    def run(self, blob):
        self.patches += len(blob)
        return self.net.run(blob)


def test_detector_blob_is_the_numpy_formula_padded_to_multiples_of_8():
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (37, 50, 3), dtype=np.uint8)
    blob = detector_blob(img)
    assert blob.shape == (1, 3, 40, 56) and blob.dtype == np.float32
    padded = np.pad(img, ((0, 3), (0, 6), (0, 0)), mode="edge").astype(np.float32)
    np.testing.assert_array_equal(blob[0], ((padded - 128.0) / 64.0).transpose(2, 0, 1))


def test_patches_blob_is_the_numpy_formula():
    rng = np.random.default_rng(4)
    patches = [rng.integers(0, 256, (32, 32, 3), dtype=np.uint8) for _ in range(3)]
    blob = patches_blob(patches)
    assert blob.shape == (3, 3, 32, 32) and blob.dtype == np.float32
    ref = ((np.stack(patches).astype(np.float32) - 128.0) / 64.0).transpose(0, 3, 1, 2)
    np.testing.assert_array_equal(blob, ref)
    with pytest.raises(ValueError):
        patches_blob([])


def test_cube_turns_enter_the_average():
    from vision.cube import CubeReader

    try:
        cube = CubeReader()
    except FileNotFoundError:
        pytest.skip("no cube model")
    roll = render_roll_on_board(np.random.default_rng(11))
    cands = [Candidate((640.0, 360.0), 20.0, 0.5), Candidate((500.0, 300.0), 24.0, 0.6)]
    first = cube.probabilities(roll.image, cands)
    plain = cube.probabilities(roll.image, cands, turns=4)
    assert plain.shape == (2, 7)
    np.testing.assert_allclose(plain.sum(axis=1), 1.0, atol=1e-9)
    # the turned readings really enter the average
    assert not np.allclose(plain, first)


@pytest.mark.parametrize("shape,size", [((720, 848, 3), (493, 419)), ((1080, 1300, 3), (500, 415)), ((360, 640, 3), (290, 200))])
def test_area_resize_is_close_to_opencvs_area_resize(shape, size):
    import cv2

    from vision.dice import area_resize

    img = render_roll_on_board(np.random.default_rng(5)).image
    img = cv2.resize(img, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)
    out = area_resize(img, size)
    ref = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
    assert out.shape == ref.shape and out.dtype == np.uint8
    diff = np.abs(out.astype(int) - ref)
    assert np.percentile(diff, 99) <= 3 and diff.mean() < 0.5
    # a plain bilinear shrink is much further off (what the area step is for)
    lin = cv2.resize(img, size, interpolation=cv2.INTER_LINEAR)
    assert np.abs(lin.astype(int) - ref).mean() > 2 * diff.mean()


def test_area_resize_keeps_or_enlarges_and_rejects_empty_sizes():
    from vision.dice import area_resize

    img = np.random.default_rng(6).integers(0, 256, (20, 30, 3), dtype=np.uint8)
    assert area_resize(img, (30, 20)) is img
    assert area_resize(img, (60, 40)).shape == (40, 60, 3)
    with pytest.raises(ValueError):
        area_resize(img, (0, 10))


def test_cube_like_patches_are_not_turned_on_registered_boards_only():
    from vision.dice import DiceReader, DiceSettings

    # the first rendered board whose cube the classifier is unsure of (a cube-like patch below 0.9)
    for seed in range(40):
        roll = render_roll_on_board(np.random.default_rng(seed))
        counts, probs = {}, {}
        for turn in (False, True):
            reader = DiceReader(settings=DiceSettings(turn_cubes=turn, field_turn_min=None))
            reader.classifier = Counting(reader.classifier)
            cands, probs[turn] = reader.scan(roll.image, roll.field)
            counts[turn] = reader.classifier.patches
        cube_like = [i for i in range(len(cands)) if probs[False][i].max() < 0.9 and probs[False][i].argmax() == 7]
        if cube_like:
            break
    assert cube_like, "no board of 40 has an unsure cube-like patch"
    assert counts[True] - counts[False] == 3 * len(cube_like)
    others = [i for i in range(len(cands)) if i not in cube_like]
    np.testing.assert_allclose(probs[False][others], probs[True][others], atol=1e-6)
    # the free-photo path still turns them (turn_cubes only applies when the die size is known)
    reader = DiceReader(settings=DiceSettings(turn_cubes=False))
    reader.classifier = Counting(reader.classifier)
    free = reader.classify(roll.image, cands, wider=True)
    np.testing.assert_allclose(free, DiceReader(settings=DiceSettings(turn_cubes=True)).classify(roll.image, cands), atol=1e-9)


def test_unsure_patches_unlikely_to_be_dice_are_not_turned_on_a_real_board(shared_data):
    """``field_turn_min``: on a real board photo (frame0: checkers, a cube with a logo, a 3-5),
    the unsure candidates whose values 1..6 together stay below 0.3 are read once instead of four
    times; the dice read and every other candidate's probabilities are unchanged."""
    import json

    from vision.dice import DiceReader, DiceSettings
    from vision.evaluate import label_truth
    from vision.reader import load_image
    from vision.registration import field_from_corners

    label = json.loads((shared_data / "boards" / "labels" / "frame0.json").read_text())
    image = load_image(shared_data / "boards" / label["file"])
    field = field_from_corners(label_truth(label)["corners"], (image.shape[1], image.shape[0]))

    readers = {gate: DiceReader(settings=DiceSettings(field_turn_min=gate)) for gate in (None, 0.3)}
    scans = {}
    for gate, reader in readers.items():
        reader.classifier = Counting(reader.classifier)
        scans[gate] = reader.scan(image, field)
    (cands, every), (gated_cands, gated) = scans[None], scans[0.3]
    assert [c.center for c in cands] == [c.center for c in gated_cands]
    assert readers[0.3].classifier.patches < readers[None].classifier.patches
    once = readers[0.3].classify(image, cands, wider=False)  # the gated first reads
    first = DiceReader(settings=DiceSettings(turns=1)).classify(image, cands, wider=False)
    left = [i for i in range(len(cands)) if first[i].max() < 0.9 and first[i].argmax() != 7 and first[i, :6].sum() < 0.3]
    assert left, "frame0 has no unsure candidate unlikely to be a die"
    np.testing.assert_allclose(once[left], first[left], atol=1e-6)
    values = sorted(d.value for d in readers[None].dice_from_scan(cands, every))
    assert values == sorted(d.value for d in readers[0.3].dice_from_scan(gated_cands, gated)) == [3, 5]

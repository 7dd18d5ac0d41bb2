"""Classifiers averaged (vision.onnx_model.AveragedNets) and the reader that uses them."""

import numpy as np
import pytest

from vision.dice import MODELS, DiceReader, DiceSettings
from vision.onnx_model import AveragedNets, load_onnx


def softmax(logits):
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def blob(n=5, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(0, 1, (n, 3, 32, 32)).astype(np.float32)


def out(net, x):
    net.setInput(x)
    return net.forward().astype(np.float64)


def test_forward_is_the_log_of_the_members_mean_softmax():
    a = load_onnx(MODELS / "dice_classifier_photo.onnx")
    b = load_onnx(MODELS / "heldout" / "dice_classifier_photo.onnx")
    x = blob()
    pa, pb = softmax(out(a, x)), softmax(out(b, x))
    assert not np.allclose(pa, pb, atol=1e-3)  # two different networks, or the test proves nothing
    avg = softmax(out(AveragedNets([a, b]), x))
    np.testing.assert_allclose(avg, (pa + pb) / 2, atol=1e-5)


def test_one_member_reads_as_that_network():
    a = load_onnx(MODELS / "dice_classifier_photo.onnx")
    x = blob(seed=1)
    np.testing.assert_allclose(softmax(out(AveragedNets([a]), x)), softmax(out(a, x)), atol=1e-5)


def test_refuses_no_members_members_of_other_classes_and_forward_before_input():
    with pytest.raises(ValueError):
        AveragedNets([])
    with pytest.raises(ValueError, match="before setInput"):
        AveragedNets([load_onnx(MODELS / "dice_classifier_photo.onnx")]).forward()
    mixed = AveragedNets([load_onnx(MODELS / "dice_classifier_photo.onnx"), load_onnx(MODELS / "dice_cube.onnx")])
    mixed.setInput(blob())
    with pytest.raises(ValueError, match="disagree"):
        mixed.forward()


def test_reader_averages_the_extra_classifiers_and_names_a_missing_one():
    st = DiceSettings(photo_classifier_extra=("heldout/dice_classifier_photo.onnx",))
    reader = DiceReader(None, st)
    assert isinstance(reader.photo_classifier, AveragedNets) and len(reader.photo_classifier.nets) == 2
    with pytest.raises(FileNotFoundError, match="no_such.onnx"):
        DiceReader(None, DiceSettings(photo_classifier_extra=("no_such.onnx",)))


def test_held_out_reading_uses_the_held_out_copies_of_the_extra_classifiers():
    from vision.evaluate_dice import not_held_out, use_held_out

    st = use_held_out(DiceSettings(photo_classifier_extra=("dice_classifier_photo.onnx",)))
    assert st.photo_classifier == "heldout/dice_classifier_photo.onnx"
    assert st.photo_classifier_extra == ("heldout/dice_classifier_photo.onnx",)
    reader = DiceReader(None, st)
    seen = not_held_out(reader, 0)
    assert "heldout/dice_classifier_photo.onnx" not in seen
    # the shipped copy saw fold 0: averaged in, the figures are not held out, and the evaluation says so
    mixed = DiceReader(None, DiceSettings(detector="heldout/dice_detector.onnx",
                                          photo_classifier="heldout/dice_classifier_photo.onnx",
                                          photo_classifier_extra=("dice_classifier_photo.onnx",)))
    assert "dice_classifier_photo.onnx" in not_held_out(mixed, 0)


def test_extra_classifiers_read_only_the_patches_the_first_one_is_unsure_of():
    import cv2

    from vision.dice_data import default_dice_root

    photo = sorted((default_dice_root() / "nell-byler").rglob("*.jpg"))[0]
    image = cv2.imread(str(photo))
    extra = ("heldout/dice_classifier_photo.onnx",)
    alone = DiceReader(None, DiceSettings(turns=1, photo_classifier_extra=()))
    cands = alone.scan(image)[0]
    assert len(cands) >= 4
    first = alone.classify(image, cands, wider=False, photo=True)
    both = DiceReader(None, DiceSettings(turns=1, photo_classifier_extra=extra, photo_extra_below=None)).classify(
        image, cands, wider=False, photo=True)
    gated = DiceReader(None, DiceSettings(turns=1, photo_classifier_extra=extra, photo_extra_below=0.9)).classify(
        image, cands, wider=False, photo=True)
    sure = first.max(axis=1) >= 0.9
    assert sure.any() and (~sure).any()  # both kinds of patch, or the test proves nothing
    np.testing.assert_allclose(gated[sure], first[sure], atol=1e-6)
    np.testing.assert_allclose(gated[~sure], both[~sure], atol=1e-6)
    assert not np.allclose(both[sure], first[sure], atol=1e-4)

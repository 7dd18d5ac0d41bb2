"""The point network's synthetic crops (``vision/render_crops.py``; numpy and OpenCV only, no torch
needed): marks of another colour on the checkers, struck-metal faces, dark checkers of another hue
on dark points."""

from __future__ import annotations

import math

import numpy as np

from vision.point_crops import CROP_HEIGHT, CROP_WIDTH
from vision.render_crops import CLASSES, HIDDEN, _draw_checker, _emblem, _look, _palette, make_crops

NAVY = np.array([90.0, 40.0, 30.0], np.float32)


def _checker(look: dict, seed: int = 0) -> np.ndarray:
    """One navy checker of ``look`` drawn on a black field: (80, 80, 3) float32 BGR."""
    img = np.zeros((80, 80, 3), np.float32)
    look = dict(look, thick=(0.0, 0.0))
    _draw_checker(img, 40.0, 40.0, 30.0, 30.0, NAVY, look, np.random.default_rng(seed), (1.0, 0.0))
    return img


def _plain_look(material: str = "plastic") -> dict:
    look = _look(np.random.default_rng(3))
    look.update(material=material, grooves=[], logo=False, shine=0.0, emblem=None, rim_w=0.9)
    return look


def test_a_white_star_on_a_navy_checker_stands_out_on_its_face():
    plain = _checker(_plain_look())
    star = dict(_plain_look(), emblem=dict(_emblem(np.random.default_rng(1)), shape="star",
                                           colour=np.array([245.0, 245.0, 245.0], np.float32), size=0.7))
    marked = _checker(star)
    face = np.hypot(*np.mgrid[-40:40, -40:40]) < 20
    assert plain[face].max() < 120  # a navy face, nothing bright on it
    assert (marked[face].min(axis=1) > 200).mean() > 0.15  # the star's white covers a good part of it
    assert np.allclose(marked[~(np.hypot(*np.mgrid[-40:40, -40:40]) < 31)], 0)  # and stays on the checker


def test_every_kind_of_mark_is_drawn_in_its_own_colour():
    for shape in ("star", "ring", "cross", "letters"):
        emblem = dict(_emblem(np.random.default_rng(2)), shape=shape, colour=np.array([20.0, 200.0, 230.0], np.float32))
        img = _checker(dict(_plain_look(), emblem=emblem))
        gold = (img[..., 1] > 150) & (img[..., 2] > 180)
        assert gold.sum() > 20, shape


def test_struck_metal_shows_rings_in_relief_where_plastic_is_flat():
    face = np.hypot(*np.mgrid[-40:40, -40:40]) < 18
    flat = _checker(_plain_look("plastic"))[face].std(axis=0).max()  # each channel's spread over the face
    coin = _checker(_plain_look("coin"))[face].std(axis=0).max()
    assert flat < 2.0 and coin > 15.0


def test_dark_checkers_of_another_hue_lie_on_dark_points():
    import cv2

    def value(bgr: np.ndarray) -> float:
        return float(cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.uint8)[None, None], cv2.COLOR_BGR2HSV)[0, 0, 2])

    rng = np.random.default_rng(4)
    pairings = [_palette(rng) for _ in range(2000)]
    alike_dark = [p for p in pairings if value(p["p1"]) < 95 and value(p["dark"]) < 95
                  and np.abs(p["p1"] - p["dark"]).max() > 25]
    assert len(alike_dark) > 0.05 * len(pairings)


def test_crops_have_the_readers_shape_and_labels_from_every_class():
    x, y = make_crops(400, 9)
    assert x.shape == (400, CROP_HEIGHT, CROP_WIDTH, 3) and x.dtype == np.uint8
    assert y.min() >= 0 and y.max() < CLASSES
    assert HIDDEN in set(y.tolist()) and 0 in set(y.tolist()) and len(set(y.tolist())) > 8
    again, _ = make_crops(5, 9)
    assert np.array_equal(again, x[:5])  # a seed draws the same crops
    assert not math.isclose(float(x[0].std()), 0.0)

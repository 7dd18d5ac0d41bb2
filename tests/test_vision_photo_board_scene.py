"""Real board photos as boards for the tilt network's dice (``vision/photo_board_scene.py``): the
labelled photos of ``shared/data/boards`` seen by another camera, their checkers where the labels
put them, their real dice kept clear of."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.photo_board_scene import load_photo_boards, photo_board_scene


@pytest.fixture(scope="module")
def photos(shared_data):
    return load_photo_boards(shared_data / "boards")


def test_every_labelled_photo_but_the_empty_board_is_loaded_with_its_checkers_and_dice(shared_data, photos):
    labels = {p.stem: json.loads(p.read_text()) for p in (shared_data / "boards" / "labels").glob("*.json")}
    empty = {name for name, label in labels.items() if label.get("empty_board")}
    assert empty and not empty & {p.name for p in photos}
    assert {p.name for p in photos} == set(labels) - empty
    with_empty = load_photo_boards(shared_data / "boards", leave_out_empty=False)
    assert {p.name for p in with_empty} == set(labels)
    for p in photos:
        label = labels[p.name]
        on_points = sum(x["n"] for x in label["top"] + label["bottom"])
        assert sum(n for n, _ in p.points) == on_points
        assert len(p.objects) == len(label.get("dice") or []) + bool(label.get("cube"))


def test_a_photo_seen_by_another_camera_keeps_its_checkers_and_dice_on_the_board(photos):
    import cv2

    rng = np.random.default_rng(3)
    for board in photos:
        scene, objects = photo_board_scene(rng, board, (0.3, 0.8))
        h, w = board.image.shape[:2]
        assert scene.image.shape == board.image.shape and scene.image.dtype == np.uint8
        assert not np.array_equal(scene.image, board.image)  # another camera: the photo moved
        assert len(scene.checkers) == sum(n for n, _ in board.points)
        fw, fh = scene.field.size
        for x, y, r in scene.checkers:
            fx, fy = scene.field.to_field(np.array([[x, y]]))[0]
            assert -1 <= fx <= fw + 1 and -1 <= fy <= fh + 1  # on the field
            assert 5 < r < w / 10
        assert len(objects) == len(board.objects)
        # a labelled die of the photo lands where the same warp takes its pixel: its colour there
        # is its colour in the photo
        for (x0, y0, _), (x1, y1, _) in zip(board.objects, objects):
            a = board.image[int(y0), int(x0)].astype(int)
            b = cv2.getRectSubPix(scene.image, (1, 1), (x1, y1))[0, 0].astype(int)
            assert np.abs(a - b).max() < 60
        assert 0.3 * scene.field.checker_size[0] <= scene.die_units <= 0.8 * scene.field.checker_size[0]


def test_tilt_patches_on_photo_boards_are_labelled_and_clear_of_the_real_dice(photos):
    from vision.training.train_tilt import board_dice

    x, y, tilts = board_dice(np.random.default_rng(1), 4, per_board=6, views=1, log=lambda m: None,
                             die_to_checker=(0.3, 0.6), photos=photos, photo_share=1.0)
    assert x.dtype == np.uint8 and x.shape[1:] == (32, 32, 3) and len(x) == len(y) == len(tilts)
    assert ((y == 1) == (tilts > 0)).all() and 0 < int(y.sum()) < len(y)
    # without the share the rendered boards are drawn as before, from the same numbers
    a = board_dice(np.random.default_rng(4), 2, per_board=3, views=1, log=lambda m: None)
    b = board_dice(np.random.default_rng(4), 2, per_board=3, views=1, log=lambda m: None, photos=photos,
                   photo_share=0.0)
    assert all(np.array_equal(p, q) for p, q in zip(a, b))

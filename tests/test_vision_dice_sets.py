"""Whose dice: the players' sets told apart by colour (``vision.dice_sets``), in the profile, the
cocked-dice judgement, ``companion calibrate --learn-dice`` and ``companion read --roller``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import cv2
import numpy as np
import pytest

from companion.observation import DieReading
from vision.dice_data import load_dataset
from vision.dice_sets import DiceSets, DiceSetsError, die_colour, learn_dice_sets, with_owners
from vision.profile import Profile, ProfileError


def _labelled_dice(shared_data, name):
    items = [it for it in load_dataset(shared_data / "dice" / "nell-byler") if it.path.name == name]
    assert items, name
    it = items[0]
    dice = [DieReading(value=int(v), center=((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), box=tuple(float(x) for x in b))
            for b, v in zip(it.boxes, it.values)]
    return cv2.imread(str(it.path)), dice


def test_real_photo_blue_and_green_dice_fall_into_their_sets(shared_data):
    # IMG_20191209_095336.jpg: two dark blue dice (the labelled 1 at (172, 300) and 2 at (400, 231))
    # and four green ones, as seen in the photo
    image, dice = _labelled_dice(shared_data, "IMG_20191209_095336.jpg")
    blue = [d for d in dice if (round(d.center[0]), round(d.center[1])) in ((172, 300), (400, 231))]
    green = [d for d in dice if d not in blue]
    assert len(blue) == 2 and len(green) == 4
    # the sets from one die of each colour; every die then goes to its own colour
    sets = DiceSets(bottom=die_colour(image, blue[0]), top=die_colour(image, green[0]))
    owners = {d.center: d.owner for d in with_owners(image, dice, sets)}
    assert [owners[d.center] for d in blue] == ["bottom", "bottom"]
    assert [owners[d.center] for d in green] == ["top"] * 4
    # the other way round the sides follow the colours
    flipped = DiceSets(bottom=sets.top, top=sets.bottom)
    assert {d.center: d.owner for d in with_owners(image, dice, flipped)}[blue[1].center] == "top"


def test_real_photo_red_and_white_sets(shared_data):
    # IMG_20191209_100043.jpg: red dice at (74, 219) and (134, 382), white ones at (257, 248) and (295, 351)
    image, dice = _labelled_dice(shared_data, "IMG_20191209_100043.jpg")
    at = {(round(d.center[0]), round(d.center[1])): d for d in dice}
    sets = DiceSets(bottom=die_colour(image, at[(74, 219)]), top=die_colour(image, at[(257, 248)]))
    got = {k: d.owner for k, d in zip(at, with_owners(image, list(at.values()), sets))}
    assert got[(134, 382)] == "bottom" and got[(295, 351)] == "top"


def test_without_sets_or_box_nothing_is_owned(shared_data):
    image, dice = _labelled_dice(shared_data, "IMG_20191209_095336.jpg")
    assert all(d.owner is None for d in with_owners(image, dice, None))
    sets = DiceSets(bottom=(40, 150, 85), top=(110, 90, 150))
    boxless = DieReading(value=3, center=(10.0, 10.0))
    assert with_owners(image, [boxless], sets)[0].owner is None
    outside = DieReading(value=3, center=(5000.0, 10.0), box=(4990.0, 0.0, 5010.0, 20.0))
    assert die_colour(image, outside) is None


def test_alike_or_malformed_sets_are_refused():
    with pytest.raises(DiceSetsError, match="look alike"):
        DiceSets(bottom=(200, 128, 128), top=(204, 130, 126))
    with pytest.raises(DiceSetsError, match="0..255"):
        DiceSets(bottom=(300, 128, 128), top=(30, 128, 128))
    with pytest.raises(DiceSetsError):
        DiceSets.from_dict({"bottom": [200, 128, 128]})
    with pytest.raises(DiceSetsError):
        DiceSets.from_dict({"bottom": "white", "top": [30, 128, 128]})
    sets = DiceSets.from_dict({"bottom": [200, 128, 128], "top": [60, 170, 150]})
    assert DiceSets.from_dict(sets.to_dict()) == sets


def test_profile_keeps_the_sets_and_refuses_bad_ones():
    sets = DiceSets(bottom=(200.0, 128.0, 128.0), top=(60.0, 170.0, 150.0))
    data = Profile(name="t", dice_sets=sets).to_dict()
    assert data["dice_sets"] == {"bottom": [200.0, 128.0, 128.0], "top": [60.0, 170.0, 150.0]}
    assert Profile.from_dict(json.loads(json.dumps(data))).dice_sets == sets
    assert "dice_sets" not in Profile(name="t").to_dict()  # older profiles stay as they were
    data["dice_sets"] = {"bottom": [200, 128, 128], "top": [201, 128, 128]}
    with pytest.raises(ProfileError, match="look alike"):
        Profile.from_dict(data)


def test_learning_needs_dice_on_both_sides(shared_data):
    image, dice = _labelled_dice(shared_data, "IMG_20191209_100043.jpg")
    h = image.shape[0]
    with pytest.raises(DiceSetsError, match="top"):
        learn_dice_sets(image, [d for d in dice if d.center[1] > h / 2])
    sets = learn_dice_sets(image, dice)  # no field: the image's halves
    assert isinstance(sets, DiceSets)


# ---------------------------------------------------------------- rendered boards, end to end

RED, WHITE = 3, 0  # vision.render_dice.DIE_STYLES


def _scene_with_sets(seed, bottom_at, top_at):
    """A rendered board with red dice (the bottom player's) at canonical field spots ``bottom_at``
    and white ones (the top player's) at ``top_at`` ((fx, fy) in field-size fractions; outside
    0..1: off the field). Returns the image, the field and each die's image centre and side."""
    from vision.render_dice import DIE_STYLES, draw_die
    from vision.render_roll import random_board_scene

    rng = np.random.default_rng(seed)
    for _ in range(20):
        scene = random_board_scene(rng)
        if not np.isfinite(scene.cam_height):
            break
    fw, fh = scene.field.size
    placed = []
    for style, spots in ((DIE_STYLES[RED], bottom_at), (DIE_STYLES[WHITE], top_at)):
        for k, (fx, fy) in enumerate(spots):
            c = scene.to_image(fx * fw, fy * fh)
            die = draw_die(scene.image, c, scene.die_px, 5 - k, yaw_deg=15.0 * k, style=style,
                           parallax=scene.parallax(*c))
            placed.append((style.name, die.center, scene.die_px))
    return scene.image, scene.field, placed


def test_idle_set_off_the_board_is_not_cocked_for_the_roller():
    from vision.dice_plugin import DicePlugin

    # the bottom player rolled red dice into his right-hand board; the top player's white pair
    # lies idle on the rail beside the board
    image, field, placed = _scene_with_sets(11, bottom_at=[(0.72, 0.56), (0.84, 0.55)],
                                            top_at=[(1.08, 0.3), (1.08, 0.42)])
    # the sets from the drawn dice: red in the field's bottom half, white in its top half
    sets = learn_dice_sets(image, [DieReading(1, c, (c[0] - s / 2, c[1] - s / 2, c[0] + s / 2, c[1] + s / 2))
                                   for _, c, s in placed], field)
    plugin = DicePlugin(roller="bottom")
    unowned = plugin.dice(image, field)
    plugin.new_frame()
    plugin.dice_sets = sets
    owned = plugin.dice(image, field)
    assert len(owned) == len(unowned) == 4
    # without the sets the idle pair is judged as part of the roll: off the board
    assert sum(d.reason == "off_board" for d in unowned) == 2
    by_owner = {o: [d for d in owned if d.owner == o] for o in ("bottom", "top")}
    assert len(by_owner["bottom"]) == 2 and len(by_owner["top"]) == 2
    assert all(not d.cocked for d in owned), [(d.value, d.reason) for d in owned]
    assert all(d.half == "right" for d in by_owner["bottom"])
    assert all(d.half is None for d in by_owner["top"])


def _run(repo_root, *args):
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    return subprocess.run([sys.executable, "-m", "companion", *map(str, args)], cwd=repo_root,
                          env=env, capture_output=True, text=True, timeout=180)


def test_calibrate_learns_the_sets_and_read_uses_them(repo_root, tmp_path):
    from vision.registration import image_order_corners

    # calibration frame: each player's dice on his own side (red at the bottom, white at the top)
    image, field, placed = _scene_with_sets(12, bottom_at=[(0.3, 0.58), (0.7, 0.6)], top_at=[(0.3, 0.42), (0.7, 0.4)])
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), image)
    corners = ",".join(f"{v:.2f}" for v in np.asarray(image_order_corners(field.corners, "bottom-right")).ravel())
    prof = tmp_path / "board.json"
    res = _run(repo_root, "calibrate", frame, f"--corners={corners}", "--learn", "none", "--learn-dice",
               "--name", "sets", "--out", prof)
    assert res.returncode == 0, res.stderr
    learned = json.loads(prof.read_text())
    sets = learned["dice_sets"]
    # the dice's size too: their side over the board's die (vision/dice_size.py), within a quarter
    from vision.dice_size import board_die_px

    assert learned["die_scale"] == pytest.approx(placed[0][2] / board_die_px(field, image.shape), rel=0.25)
    # red dice: high a (Lab 8-bit); white ones: light and neutral
    assert sets["bottom"][1] > sets["top"][1] + 30 and sets["top"][0] > sets["bottom"][0]

    # a roll of the top player (white dice in his right-hand board, the image's left) with the red
    # pair idle beside the board, read with the profile
    roll, _, _ = _scene_with_sets(12, bottom_at=[(1.08, 0.62), (1.08, 0.75)], top_at=[(0.2, 0.44), (0.3, 0.45)])
    cv2.imwrite(str(frame), roll)
    res = _run(repo_root, "read", frame, "--calibration", prof, "--roller", "top", "--json")
    assert res.returncode == 0, res.stderr
    dice = json.loads(res.stdout)["dice"]
    assert sorted(d["owner"] for d in dice) == ["bottom", "bottom", "top", "top"], dice
    assert not any(d["cocked"] for d in dice), dice
    # the same photo without the sets: the red pair off the board spoils the roll
    plain = tmp_path / "plain.json"
    data = json.loads(prof.read_text())
    del data["dice_sets"]
    plain.write_text(json.dumps(data))
    res = _run(repo_root, "read", frame, "--calibration", plain, "--roller", "top", "--json")
    dice = json.loads(res.stdout)["dice"]
    assert sum(d["reason"] == "off_board" for d in dice) == 2 and all(d["owner"] is None for d in dice)


def test_calibrate_with_one_pair_learns_the_size_alone(repo_root, tmp_path):
    """One pair of dice (both in the bottom half): the size is learned, whose dice are whose is
    not, and one line says so; a frame without dice is a clear error and writes nothing."""
    from vision.registration import image_order_corners

    image, field, _ = _scene_with_sets(13, bottom_at=[(0.3, 0.58), (0.6, 0.62)], top_at=[])
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), image)
    corners = ",".join(f"{v:.2f}" for v in np.asarray(image_order_corners(field.corners, "bottom-right")).ravel())
    res = _run(repo_root, "calibrate", frame, f"--corners={corners}", "--learn", "none", "--learn-dice",
               "--out", tmp_path / "p.json")
    assert res.returncode == 0, res.stderr
    assert "whose dice are whose not learned" in res.stderr and "top half" in res.stderr
    learned = json.loads((tmp_path / "p.json").read_text())
    assert "dice_sets" not in learned and 0.5 <= learned["die_scale"] <= 2.0

    bare, field, _ = _scene_with_sets(13, bottom_at=[], top_at=[])
    cv2.imwrite(str(frame), bare)
    res = _run(repo_root, "calibrate", frame, f"--corners={corners}", "--learn", "none", "--learn-dice",
               "--out", tmp_path / "q.json")
    assert res.returncode == 2 and "show the dice" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "q.json").exists()

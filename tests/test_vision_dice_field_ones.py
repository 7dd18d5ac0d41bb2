"""A small one lying across a point's tip on a registered board: the detector centres it between
its pip and the tip, where it reads as no die; moved to its pip it is read
(``DiceSettings.field_ones``, :meth:`vision.dice.DiceReader.recentre_unread_ones`)."""

from __future__ import annotations

import dataclasses

import pytest

pytest.importorskip("vision.render_board")


@pytest.fixture(scope="module")
def travel_frame(tmp_path_factory):
    """Frame 35 of the rendered game of seed 1003 with travel dice (0.3 of a checker), thrown,
    on the green board under its own camera (as benchmarks/bench_rendered_games.py renders game
    3): a flat 1-6, the red one across the tip of an ivory point. Returns (image, field)."""
    import cv2

    from companion.demo import demo_corners_arg, game_camera, render_script
    from companion.scripted_game import random_game
    from vision.registration import field_from_corners, parse_corners

    script = random_game(1003, match_length=5, illegal_rate=0.3, cocked_rate=0.2, max_turns=4)
    frame, scenes = 0, 0
    for scene in script.scenes:
        scenes += 1
        if frame == 35:
            break
        frame += scene.frames
    assert frame == 35 and sorted(d.value for d in script.scenes[scenes - 1].dice) == [1, 6]
    pose, lighting = game_camera(1003)
    folder = tmp_path_factory.mktemp("game3")
    render_script(dataclasses.replace(script, scenes=script.scenes[:scenes]), folder, die_to_checker=0.3,
                  style="green", pose=pose, lighting=lighting, dice_scatter=1003)
    image = cv2.imread(str(folder / "frame00035.jpg"))
    field = field_from_corners(parse_corners(demo_corners_arg(pose=pose)), (image.shape[1], image.shape[0]))
    return image, field


def test_a_small_one_on_a_points_tip_is_read(travel_frame):
    from vision.dice import DiceReader

    image, field = travel_frame
    assert sorted(d.value for d in DiceReader().read(image, field)) == [1, 6]


def test_without_the_rule_the_one_is_missed(travel_frame):
    # the rule is what reads it: off, the same frame gives the six alone
    from vision.dice import DiceReader
    from vision.dice_settings import DiceSettings

    image, field = travel_frame
    assert sorted(d.value for d in DiceReader(settings=DiceSettings(field_ones=False)).read(image, field)) == [6]


def test_dice_already_read_are_left_alone(travel_frame):
    # recentre_unread_ones moves only candidates not read as dice
    from vision.dice import DiceReader

    image, field = travel_frame
    reader = DiceReader()
    cands, probs = reader.scan(image, field)
    moved, moved_probs = reader.recentre_unread_ones(image, cands, probs)
    assert len(moved) == len(cands) and moved_probs.shape == probs.shape
    for k, c in enumerate(cands):
        if reader.dice_from_scan([c], probs[k:k + 1]):
            assert moved[k] == c and (moved_probs[k] == probs[k]).all()

"""Frames drawn for scripted games (companion.demo.render_scene): other boards, cameras and
dice thrown anywhere, as the rendered-games benchmark draws them."""

from __future__ import annotations

import numpy as np

from companion.demo import DEMO_LAYOUT, _thrown_dice, render_scene
from companion.scripted_game import DieSpec, Scene
from companion.table import START_SIGNED
from vision.dice_plugin import DicePlugin
from vision.reader import BoardReader
from vision.registration import field_from_corners
from vision.render_board import CameraPose, Lighting


def test_thrown_dice_land_in_their_half_clear_of_each_other_and_stay_put():
    dice = (DieSpec(3, "right"), DieSpec(5, "right", slot=1))
    side = 0.035
    spots = {seed: _thrown_dice(dice, seed, side) for seed in range(40)}
    assert all(_thrown_dice(dice, seed, side) == spots[seed] for seed in range(40))  # the same from scene to scene
    assert len({tuple(s[0][0]) for s in spots.values()}) == 40  # and elsewhere in another game
    for s in spots.values():
        (a, _), (b, _) = s[0], s[1]
        assert all(0.58 <= p[0] <= 0.95 and 0.08 <= p[1] <= 0.92 for p in (a, b))  # clear of the bar
        assert np.hypot(a[0] - b[0], (a[1] - b[1]) / 1.08) >= side * 1.45  # never one over the other
    left = _thrown_dice((DieSpec(2, "left"), DieSpec(6, None)), 7, side)
    assert list(left) == [0] and 0.05 <= left[0][0][0] <= 0.42  # a die off the field keeps its place


def test_a_scene_on_another_board_and_camera_reads_back():
    """The ivory board under a tilted, turned camera with uneven light, the dice thrown: read
    with the camera's corners, the opening position and both dice come back."""
    pose = CameraPose.looking_down(scale=0.8, tilt=0.1, turn_deg=3, shift=(30, 0))
    light = Lighting(brightness=0.9, gradient=0.3, gradient_deg=40, shadows=0.5, blur=0.6, noise=3)
    scene = Scene(START_SIGNED, (DieSpec(4, "right"), DieSpec(1, "right", slot=1)))
    image = render_scene(scene, DEMO_LAYOUT, style="ivory", pose=pose, lighting=light, dice_scatter=3)
    assert image.shape == (720, 1280, 3)
    reader = BoardReader(field=field_from_corners(np.array(pose.corners), pose.image_size))
    plugin = DicePlugin()
    reader.dice_reader, reader.cube_reader = plugin.dice, plugin.cube
    obs = reader.read(image)
    light_side = DEMO_LAYOUT.colours[0]
    signed = [(1 if p.colour == light_side else -1) * p.count for p in obs.points]
    assert signed == list(START_SIGNED[1:25])
    assert sorted(d.value for d in obs.dice) == [1, 4] and not any(d.cocked for d in obs.dice)


def _thrown_scene(folder, seed: int, scene: int, style: str, dice: list[int], die_to_checker: float | None = None):
    """``(image, field)``: the first frame of ``scene`` of the rendered-games benchmark's game
    ``seed`` (its camera, dice thrown, ``die_to_checker`` as its ``--die-to-checker``; the scene's
    dice must be ``dice`` and no hand), (H, W, 3) uint8 BGR, and its registered field."""
    import cv2

    from companion.demo import game_camera, render_script
    from companion.scripted_game import Script, random_game

    script = random_game(seed, match_length=5, illegal_rate=0.3, cocked_rate=0.2, max_turns=4)
    pose, light = game_camera(seed)
    first = sum(s.frames for s in script.scenes[:scene])
    assert sorted(d.value for d in script.scenes[scene].dice) == dice and not script.scenes[scene].hand
    render_script(Script(script.scenes[:scene + 1]), folder, style=style, pose=pose, lighting=light, dice_scatter=seed,
                  die_to_checker=die_to_checker)
    return cv2.imread(str(folder / f"frame{first:05d}.jpg")), field_from_corners(np.array(pose.corners), pose.image_size)


def _dice_of_a_thrown_scene(folder, seed: int, scene: int, style: str, dice: list[int],
                            die_to_checker: float | None = None, **variants) -> dict:
    """The dice values read (the dice plug-in, known corners) on the first frame of ``scene`` of
    the rendered-games benchmark's game ``seed`` (its camera, dice thrown, ``die_to_checker`` as
    its ``--die-to-checker``), with the shipped ``DiceSettings`` and with each variant's changes
    (name: dict of settings)."""
    import dataclasses

    from vision.dice import DiceReader
    from vision.dice_settings import DiceSettings

    image, field = _thrown_scene(folder, seed, scene, style, dice, die_to_checker)
    values = {}
    for name, changes in {"shipped": {}, **variants}.items():
        plugin = DicePlugin()
        plugin.reader = DiceReader(settings=dataclasses.replace(DiceSettings(), **changes))
        values[name] = sorted(d.value for d in plugin.dice(image, field))
    return values


def test_a_die_on_a_point_of_its_colour_and_a_travel_one_on_a_tip_are_read(tmp_path):
    """A red one thrown onto a dark red point beside a four (game 1005 of the rendered-games
    benchmark: ivory board, its camera) and a red travel one (0.3 of a checker) thrown across the
    tip of an ivory point (game 1003 with ``--die-to-checker 0.3``: green board, its camera): both
    read at the first look, and the rules that look again when a frame reads fewer than two dice
    (``DiceSettings.sibling_size``, ``field_ones``) leave them as they are."""
    rules_off = {"sibling_size": None, "field_ones": False}
    assert _dice_of_a_thrown_scene(tmp_path / "a", 1005, 14, "ivory", [1, 4], without=rules_off) == {
        "shipped": [1, 4], "without": [1, 4]}
    assert _dice_of_a_thrown_scene(tmp_path / "b", 1003, 10, "green", [1, 6], die_to_checker=0.3,
                                   without=rules_off) == {"shipped": [1, 6], "without": [1, 6]}


def test_an_unsure_die_is_read_again_at_a_larger_view(tmp_path):
    """A red six thrown onto a red point at an opening roll (game 1018 of the rendered-games
    benchmark: tournament board, its camera): the detector boxes it small and off its centre, and
    the crop shows half of the six, read as a 3 (unsure, 0.54); read again 1.25 and 1.5 times larger
    (``DiceSettings.unsure_below``, ``unsure_views``) it is a six."""
    values = _dice_of_a_thrown_scene(tmp_path, 1018, 2, "tournament", [4, 6], first_look={"unsure_below": None})
    assert values == {"shipped": [4, 6], "first_look": [3, 4]}


def test_a_script_rendered_again_into_its_folder_replaces_the_frames(tmp_path):
    """``render_script`` into a folder that holds an earlier run's frames (repeated frames are
    hard links to the first): each frame is written anew, as a fresh folder gets it."""
    import cv2

    from companion.demo import render_script
    from companion.scripted_game import Script

    script = Script([Scene(START_SIGNED, (DieSpec(4, "right"), DieSpec(1, "right", slot=1)), frames=2),
                     Scene(START_SIGNED, frames=2)])
    again, fresh = tmp_path / "again", tmp_path / "fresh"
    assert render_script(script, again, style="green") == 4
    assert render_script(script, again, style="ivory") == 4
    assert render_script(script, fresh, style="ivory") == 4
    for k in range(4):
        a, b = (cv2.imread(str(f / f"frame{k:05d}.jpg")) for f in (again, fresh))
        assert a is not None and np.array_equal(a, b)
    render_script(script, tmp_path / "green", style="green")
    assert not np.array_equal(cv2.imread(str(again / "frame00000.jpg")),
                              cv2.imread(str(tmp_path / "green" / "frame00000.jpg")))  # the first run's are gone

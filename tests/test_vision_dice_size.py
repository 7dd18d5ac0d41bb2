"""The dice's size learned at calibration (vision/dice_size.py): measured on rendered boards,
stored in the profile, and small touching dice read as two when searched at their own size."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from companion.observation import DieReading
from vision.dice_size import OWN_SIZE_BELOW, OWN_SIZE_FROM, DiceSizeError, board_die_px, learn_die_scale, search_die_px
from vision.profile import Profile, ProfileError
from vision.render_touching import render_touching
from vision.render_dice import RenderError


def _scenes(seed: int, n: int, size_range: tuple[float, float]):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        try:
            out.append(render_touching(rng, size_range=size_range))
        except RenderError:
            continue
    return out


@pytest.fixture(scope="module")
def reader():
    from vision.dice import DiceReader

    return DiceReader()


def test_learned_scale_follows_the_dice(reader):
    """Dice of 0.32 and of 0.75 of a checker, shown apart: the learned scale is within 25% of their
    true side over the board's die, the small ones below a tournament die and the large ones above."""
    learned = {}
    for band, sizes in (("small", (0.3, 0.34)), ("large", (0.72, 0.78))):
        for sc in _scenes(31 if band == "small" else 32, 3, sizes):
            true = sc.truth_apart[0].size / board_die_px(sc.field, sc.apart.shape)
            got = learn_die_scale(sc.apart, sc.field, reader)
            assert got == pytest.approx(true, rel=0.25), (band, got, true)
            learned.setdefault(band, []).append(got)
    assert max(learned["small"]) < 1.0 < min(learned["large"])


def test_no_die_to_measure_is_an_error(reader):
    sc = _scenes(33, 1, (0.4, 0.5))[0]
    with pytest.raises(DiceSizeError, match="show the dice"):
        learn_die_scale(sc.empty, sc.field, reader)


def test_small_and_jumbo_dice_are_searched_at_their_own_size():
    field = np.array([[100, 100], [1100, 100], [1100, 650], [100, 650]], float)
    board = board_die_px(field, (720, 1280, 3))
    assert board == pytest.approx(1000 / 30)
    assert search_die_px(field, (720, 1280, 3), 0.7) == pytest.approx(0.7 * board)
    assert search_die_px(field, (720, 1280, 3), 1.1) is None  # near a tournament die: the board's
    assert search_die_px(field, (720, 1280, 3), OWN_SIZE_BELOW) is None
    assert search_die_px(field, (720, 1280, 3), OWN_SIZE_BELOW - 0.01) is not None
    assert search_die_px(field, (720, 1280, 3), OWN_SIZE_FROM - 0.01) is None
    assert search_die_px(field, (720, 1280, 3), OWN_SIZE_FROM) == pytest.approx(OWN_SIZE_FROM * board)
    assert search_die_px(field, (720, 1280, 3), 1.7) == pytest.approx(1.7 * board)
    assert search_die_px(field, (720, 1280, 3), None) is None
    assert search_die_px(None, (720, 1280, 3), 0.7) is None


class _TinyDice:
    """A reader that sees one die of 2 pixels wherever it looks."""

    def read(self, image, field, die_px=None):
        return [DieReading(2, (500.0, 300.0), (499.0, 299.0, 501.0, 301.0))]


def test_learned_scale_is_clipped():
    field = np.array([[100, 100], [1100, 100], [1100, 650], [100, 650]], float)
    assert learn_die_scale(np.zeros((720, 1280, 3), np.uint8), field, _TinyDice()) == 0.5


def test_profile_keeps_the_scale_and_refuses_a_bad_one():
    p = Profile(name="b", die_scale=0.71)
    again = Profile.from_dict(json.loads(json.dumps(p.to_dict())))
    assert again.die_scale == pytest.approx(0.71)
    assert "die_scale" not in Profile(name="b").to_dict()
    for bad in ("small", 7.0, True, -1):
        with pytest.raises(ProfileError, match="die_scale"):
            Profile.from_dict({**Profile(name="b").to_dict(), "die_scale": bad})


def test_small_touching_dice_read_at_their_own_size():
    """Pairs of travel dice (0.30-0.36 of a checker) lying against each other: with the size
    learned from the same dice apart, at least as many pairs are read exactly as at the board's
    size, and most of them are."""
    from vision.dice_plugin import DicePlugin

    plugin = DicePlugin()
    at_board = at_own = 0
    scenes = _scenes(41, 10, (0.3, 0.36))
    for sc in scenes:
        want = sorted(d.value for d in sc.truth_touching)
        plugin.die_scale = None
        plugin.new_frame()
        at_board += sorted(d.value for d in plugin.dice(sc.touching, sc.field)) == want
        plugin.die_scale = learn_die_scale(sc.apart, sc.field, plugin.reader)
        plugin.new_frame()
        at_own += sorted(d.value for d in plugin.dice(sc.touching, sc.field)) == want
    assert at_own >= at_board and at_own >= 7, (at_board, at_own)


def test_read_with_a_profile_searches_small_dice_at_their_size(repo_root, tmp_path):
    """``companion read --calibration``: two travel dice (2-5) lying against each other, read as one
    die or none with a profile without ``die_scale`` and as the 2 and the 5 with the scale learned
    from the same dice apart."""
    import os
    import subprocess
    import sys

    import cv2

    from vision.profile import save_profile
    from vision.registration import image_order_corners

    sc = _scenes(44, 4, (0.3, 0.36))[3]
    assert sorted(d.value for d in sc.truth_touching) == [2, 5]
    frame = tmp_path / "touching.png"
    cv2.imwrite(str(frame), sc.touching)
    h, w = sc.touching.shape[:2]
    base = Profile(name="travel", image_size=(w, h),
                   corners=np.asarray(image_order_corners(sc.field.corners, "bottom-right"), float))
    scale = learn_die_scale(sc.apart, sc.field)
    assert scale < OWN_SIZE_BELOW
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    values = {}
    for name, profile in (("board", base), ("learned", dataclasses.replace(base, die_scale=scale))):
        path = save_profile(profile, tmp_path / f"{name}.json")
        res = subprocess.run([sys.executable, "-m", "companion", "read", str(frame), "--calibration", str(path),
                              "--json"], cwd=repo_root, env=env, capture_output=True, text=True, timeout=180)
        assert res.returncode == 0, res.stderr
        values[name] = sorted(d["value"] for d in json.loads(res.stdout)["dice"])
    # searched at the board's size the touching pair reads as one die or none
    assert values["learned"] == [2, 5] and values["board"] in ([], [2], [5]), values


def _die(value: int, side: float, confidence: float = 0.97, x: float = 400.0, cocked: bool = False) -> DieReading:
    return DieReading(value, (x, 300.0), (x - side / 2, 300 - side / 2, x + side / 2, 300 + side / 2),
                      confidence=confidence, cocked=cocked)


def test_a_flat_pair_is_two_confident_flat_dice_of_one_size():
    from vision.dice_size import PAIR_CONFIDENCE, PAIR_RATIO, shows_flat_pair

    assert shows_flat_pair([_die(3, 12), _die(5, 13, x=450)])
    assert not shows_flat_pair([_die(3, 12)])  # one die
    assert not shows_flat_pair([_die(3, 12), _die(5, 12, x=450), _die(2, 12, x=500)])  # three
    assert not shows_flat_pair([_die(3, 12), _die(5, 12, x=450, cocked=True)])
    assert not shows_flat_pair([_die(3, 12), _die(5, 12, confidence=PAIR_CONFIDENCE - 0.01, x=450)])
    assert not shows_flat_pair([_die(3, 12), _die(5, 12 * PAIR_RATIO + 1, x=450)])  # a pair read as one beside a die
    assert not shows_flat_pair([_die(3, 12), DieReading(5, (450.0, 300.0), None)])


def test_watch_learns_the_dice_size_on_the_first_flat_pair(tmp_path):
    """``companion watch``'s frame reader (known corners, no profile): two travel dice (6-6) shown
    apart teach it their size (the value ``companion calibrate --learn-dice`` measures), and the
    same dice then lying against each other are read as the two sixes. A frame reader that has
    not seen them apart finds fewer than two dice there at the board's die size and looks again
    at small dice's size, where it reads the pair and learns their size; on the empty board it
    finds no die at either size and learns nothing. Unrelated photos (``--stills``) teach no size."""
    from companion.commands.watch import make_frame_reader
    from vision.registration import image_order_corners

    sc = _scenes(44, 1, (0.3, 0.36))[0]
    corners = np.asarray(image_order_corners(sc.field.corners, "bottom-right"), float)
    empty = make_frame_reader(corners=corners)
    assert empty(sc.empty).dice == ()
    assert empty.dice_plugin.die_scale is None
    fresh = make_frame_reader(corners=corners)
    assert sorted(d.value for d in fresh(sc.touching).dice) == [6, 6]
    assert fresh.dice_plugin.die_scale is not None and fresh.dice_plugin.die_scale < OWN_SIZE_BELOW

    taught = make_frame_reader(corners=corners)
    assert sorted(d.value for d in taught(sc.apart).dice) == [6, 6]
    assert taught.dice_plugin.die_scale == pytest.approx(learn_die_scale(sc.apart, sc.field), rel=1e-6)
    assert taught.dice_plugin.die_scale < OWN_SIZE_BELOW
    assert sorted(d.value for d in taught(sc.touching).dice) == [6, 6]

    stills = make_frame_reader(corners=corners, register_each_frame=True)
    assert stills.dice_plugin.learn_size is False


def test_a_jumbo_two_boxed_at_a_pip_is_read_again_larger(tmp_path):
    """A rendered game's opening roll with jumbo dice (0.8 of a checker, game 1238 of
    ``benchmarks/bench_rendered_games.py``): at the board's die size the detector boxes the 2 at a
    pip, and that crop reads as a 1, unsure; read again larger (``DiceSettings.unsure_views``) it is
    the 2. The pair is not sure enough to teach watch the dice's size; searched where watch looks
    for a pair it has not found (``DicePlugin._other_pair``: small and jumbo dice's sizes) the
    frame shows the 6-2 as well."""
    from companion.demo import demo_corners_arg, game_camera, render_script
    from companion.scripted_game import random_game
    from vision.dice import DiceReader
    from vision.dice_plugin import DicePlugin
    from vision.dice_settings import DiceSettings
    from vision.reader import load_image
    from vision.registration import field_from_corners, parse_corners

    game = 1238
    script = random_game(1000 + game, match_length=5, illegal_rate=0.3, cocked_rate=0.2, max_turns=4)
    script = dataclasses.replace(script, scenes=script.scenes[:3])
    pose, lighting = game_camera(1000 + game)
    render_script(script, tmp_path, die_to_checker=0.8, style="fmgammon", pose=pose, lighting=lighting,
                  dice_scatter=1000 + game)
    image = load_image(tmp_path / "frame00007.jpg")
    field = field_from_corners(parse_corners(demo_corners_arg(pose=pose)), (image.shape[1], image.shape[0]))
    assert sorted(d.value for d in script.scenes[2].dice) == [2, 6]
    assert sorted(d.value for d in DiceReader().read(image, field)) == [2, 6]
    first_look = DiceReader(settings=dataclasses.replace(DiceSettings(), unsure_below=None))
    assert sorted(d.value for d in first_look.read(image, field)) == [1, 6]
    plugin = DicePlugin(learn_size=True)
    assert sorted(d.value for d in plugin.dice(image, field) if not d.cocked) == [2, 6]
    assert plugin.die_scale is None
    assert sorted(d.value for d in plugin._other_pair(image, field, [])) == [2, 6]


def test_jumbo_dice_are_read_from_their_own_size_and_from_the_board_size(tmp_path):
    """Dice learned at 1.33 times the board's die (a rendered game with the demo's dice, game 261
    of ``benchmarks/bench_rendered_games.py``): a red 1 turned 45 degrees on a white point and a
    3, read at their own size, and by the plug-in, which reads jumbo dice at their own size and at
    the board's (the cube's) and keeps the dice of both."""
    from companion.demo import demo_corners_arg, game_camera, render_script
    from companion.scripted_game import random_game
    from vision.dice import DiceReader
    from vision.dice_plugin import DicePlugin
    from vision.reader import load_image
    from vision.registration import field_from_corners, parse_corners

    game = 261
    script = random_game(1000 + game, match_length=5, illegal_rate=0.3, cocked_rate=0.2, max_turns=4)
    script = dataclasses.replace(script, scenes=script.scenes[:5])
    pose, lighting = game_camera(1000 + game)
    render_script(script, tmp_path, style="green", pose=pose, lighting=lighting, dice_scatter=1000 + game)
    image = load_image(tmp_path / "frame00014.jpg")
    field = field_from_corners(parse_corners(demo_corners_arg(pose=pose)), (image.shape[1], image.shape[0]))
    assert sorted(d.value for d in script.scenes[4].dice) == [1, 3]
    scale = 1.3342527490216918  # as watch learned it on this game's first flat pair
    own = search_die_px(field, image.shape, scale)
    assert own is not None
    assert sorted(d.value for d in DiceReader().read(image, field, die_px=own)) == [1, 3]
    plugin = DicePlugin(die_scale=scale)
    assert sorted(d.value for d in plugin.dice(image, field) if not d.cocked) == [1, 3]

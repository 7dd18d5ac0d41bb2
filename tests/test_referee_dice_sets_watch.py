"""Two sets of dice through ``companion watch`` on rendered frames: a profile with ``dice_sets``
(red dice for the bottom player, white for the top one), the pair not in use lying on the frame
beside the field. The rolls are taken from the roller's set, nobody is called cocked, and a turn
ends when the mover's dice leave although the other pair stays in view. Without the sets the same
game reads the same: each pair put down beside the board lies idle from the next phase on
(``companion.idle_dice``), and a turn ends when the opponent rolls."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from companion.demo import DEMO_LAYOUT, DEMO_SIZE, demo_pose, render_scene, render_script
from companion.scripted_game import STILL_FRAMES, DieSpec, Scene, Script
from companion.table import START_SIGNED

from test_referee_machine import play_board


def _sets_from_frame():
    """The two sets' colours measured on a rendered frame: a red die (bottom player's) in the
    right half, a white one (top player's) in the left half, read by the dice reader."""
    from vision.dice_plugin import DicePlugin
    from vision.dice_sets import DiceSets, die_colour
    from vision.registration import field_from_corners

    image = render_scene(Scene(START_SIGNED, (DieSpec(4, "right", owner="bottom"), DieSpec(2, "left", owner="top"))))
    field = field_from_corners(np.asarray(demo_pose().corners, float), DEMO_SIZE)
    dice = DicePlugin().dice(image, field)
    by_half = {d.half: d for d in dice}
    assert set(by_half) == {"left", "right"}, dice
    return DiceSets(bottom=die_colour(image, by_half["right"]), top=die_colour(image, by_half["left"]))


class _Game:
    """Scenes of a game on the demo board: :meth:`show` a still picture, :meth:`hand` over it."""

    def __init__(self):
        self.board = START_SIGNED
        self.scenes = []

    def show(self, dice=(), frames=STILL_FRAMES):
        self.scenes.append(Scene(self.board, tuple(dice), (64, "centre"), False, frames))

    def hand(self):
        self.scenes.append(Scene(self.board, (), (64, "centre"), True, 3))

    def play(self, player, moves):
        self.board = play_board(player, moves, self.board)


def _watched(repo_root, tmp_path, game, dice_sets=None):
    """``companion watch`` over the rendered ``game`` with a profile of the demo board (and
    ``dice_sets``): the judged events as (type, player, dice, verdict, play)."""
    from vision.profile import Profile, save_profile

    profile = save_profile(Profile(name="demo", image_size=DEMO_SIZE, corners=np.asarray(demo_pose().corners, float),
                                   dice_sets=dice_sets), tmp_path / "demo.json")
    folder = tmp_path / "frames"
    render_script(Script(scenes=game.scenes), folder)
    env = dict(os.environ, PYTHONPATH=str(repo_root))
    r = subprocess.run(
        [sys.executable, "-m", "companion", "watch", "--no-web", "--keyboard", "off", "--source", str(folder),
         "--fps", "10", "--calibration", str(profile), "--bottom-colour", DEMO_LAYOUT.colours[0],
         "--match-length", "5", "--events-jsonl", "-"],
        cwd=repo_root, env=env, capture_output=True, text=True, timeout=900,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    events = [json.loads(line) for line in r.stdout.splitlines()]
    judged = [e for e in events if e["type"] in ("roll", "cocked_dice", "verdict") and e.get("verdict") != "in_progress"]
    return [(e["type"], e.get("player"), e.get("dice"), e.get("verdict"), e.get("play")) for e in judged]


@pytest.mark.slow
@pytest.mark.parametrize("with_sets", [True, False], ids=["dice_sets", "no_dice_sets"])
def test_idle_pair_in_view_through_watch(repo_root, tmp_path, with_sets):
    g = _Game()
    red_idle = [DieSpec(3, None, owner="bottom"), DieSpec(1, None, slot=1, owner="bottom")]
    white_idle = [DieSpec(6, None, owner="top"), DieSpec(5, None, slot=1, owner="top")]
    g.show()
    g.hand()
    opening = [DieSpec(3, "right", owner="bottom"), DieSpec(1, "left", owner="top")]
    g.show(opening)  # the opening roll: 3 for the bottom player, 1 for the top one
    g.hand()
    g.play(0, [(8, 5), (6, 5)])
    g.show(opening)
    g.hand()
    g.show(red_idle)  # the dice picked up; the bottom player's pair rests on the frame
    g.hand()
    white = [DieSpec(6, "left", owner="top"), DieSpec(5, "left", slot=1, owner="top")]
    g.show(white + red_idle)  # the top player rolls 6-5 with the red pair in view
    g.hand()
    g.play(1, [(24, 18), (13, 8)])
    g.show(white + red_idle)
    g.hand()
    g.show(white_idle + red_idle)  # he puts his dice down beside the board: his turn is over
    g.hand()
    g.show(white_idle)  # the bottom player takes his dice up ...
    g.hand()
    g.show([DieSpec(2, "right", owner="bottom"), DieSpec(2, "right", slot=1, owner="bottom")] + white_idle)  # ... and rolls 2-2
    summary = _watched(repo_root, tmp_path, g, _sets_from_frame() if with_sets else None)
    assert summary == [
        ("roll", 0, [3, 1], None, None),
        ("verdict", 0, [3, 1], "legal", "8/5 6/5"),
        ("roll", 1, [6, 5], None, None),
        ("verdict", 1, [6, 5], "legal", "24/18 13/8"),
        ("roll", 0, [2, 2], None, None),
    ], summary


@pytest.mark.slow
def test_premature_roll_through_watch(repo_root, tmp_path):
    """The top player rolls while the bottom player's dice still lie in his right-hand board (one
    set of colours, no profile sets): the roll stands (US rules 2008, 4.6), the dice left lying are
    not part of it, and the next turn ends when its dice are lifted although they still lie."""
    g = _Game()
    g.show()
    g.hand()
    g.show([DieSpec(3, "right"), DieSpec(1, "left")])  # the opening roll: 3 for the bottom player
    g.hand()
    g.play(0, [(8, 5), (6, 5)])
    bottom_dice = [DieSpec(3, "right"), DieSpec(1, "right", slot=1)]
    g.show(bottom_dice)  # played, the dice pushed together in his right-hand board, not lifted
    g.hand()
    top_roll = [DieSpec(6, "left"), DieSpec(5, "left", slot=1)]
    g.show(bottom_dice + top_roll)  # the top player rolls 6-5 before they are lifted
    g.hand()
    g.play(1, [(24, 18), (13, 8)])
    g.show(bottom_dice + top_roll)
    g.hand()
    g.show(bottom_dice)  # the top player lifts his dice: his turn is over
    summary = _watched(repo_root, tmp_path, g)
    assert summary == [
        ("roll", 0, [3, 1], None, None),
        ("verdict", 0, [3, 1], "legal", "8/5 6/5"),
        ("roll", 1, [6, 5], None, None),
        ("verdict", 1, [6, 5], "legal", "24/18 13/8"),
    ], summary

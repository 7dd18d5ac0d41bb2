"""The end of a turn judged on the very frame the dice are picked up
(``StabilitySettings.fast_pickup``), and never when that frame does not prove
it: rendered frames through the real board and dice readers, motion, the
stability filter and the referee (``companion.session.Session``)."""

from __future__ import annotations

import functools

import pytest
from table_boards import board_after

from companion.bus import EventBus
from companion.scripted_game import DieSpec, Scene
from companion.session import Session
from companion.stability import StabilitySettings
from companion.table import START_SIGNED

OPENING = (DieSpec(3, "right"), DieSpec(1, "left"))  # player 0 (bottom) wins the opening with 3-1




PLAYED = board_after([(8, 5), (6, 5)])  # 8/5 6/5: legal for 3-1
HALF_PLAYED = board_after([(8, 5)])  # 8/5 only: the 1 still to play


@functools.lru_cache(maxsize=None)
def _picture(scene: Scene, seed: int):
    from companion.demo import DEMO_LAYOUT, render_scene

    return render_scene(scene, layout=DEMO_LAYOUT, seed=seed)


def _run(scenes, settings=StabilitySettings()):
    """Scenes of (scene, frames); a hand scene gets a new picture every frame.
    Returns (events with the frame index each was published at, first frame of
    each scene, session)."""
    from companion.commands.watch import make_frame_reader
    from companion.demo import DEMO_LAYOUT, demo_pose
    from companion.table import TableLayout
    from vision.sources import Frame

    reader = make_frame_reader(corners=demo_pose().corners)
    bus = EventBus()
    events = []
    current = [0]
    bus.subscribe(lambda e: events.append((current[0], e.to_dict())))
    session = Session(bus, reader=reader, stability=settings,
                      match_settings={"match_length": 5, "layout": TableLayout(DEMO_LAYOUT.colours)})
    starts = []
    i = 0
    for scene, frames in scenes:
        starts.append(i)
        for k in range(frames):
            current[0] = i
            image = _picture(scene, 1000 + k if scene.hand else 0)
            session.process_frame(Frame(image, i, i * 1000.0 / 30))
            i += 1
    return events, starts, session


def _opening_and_play(last_hand: Scene, last: Scene):
    """The opening 3-1 rolled, 8/5 6/5 played with the dice down, then
    ``last_hand`` (2 frames) and ``last`` (4 frames)."""
    return [
        (Scene(START_SIGNED), 3),
        (Scene(START_SIGNED, hand=True), 2),
        (Scene(START_SIGNED, OPENING), 4),
        (Scene(PLAYED, OPENING, hand=True), 2),
        (Scene(PLAYED, OPENING), 4),
        (last_hand, 2),
        (last, 4),
    ]


def _verdicts(events):
    return [(f, e["verdict"]) for f, e in events if e["type"] == "verdict" and e["verdict"] != "in_progress"]


@pytest.mark.slow
def test_the_pickup_frame_itself_ends_the_turn():
    events, starts, session = _run(_opening_and_play(Scene(PLAYED, hand=True), Scene(PLAYED)))
    rolls = [e["dice"] for _, e in events if e["type"] == "roll"]
    assert rolls == [[3, 1]]
    assert _verdicts(events) == [(starts[-1], "legal")]  # on the first frame without the dice
    assert session.fast_pickups == 1
    # the next still frames agree: nothing is judged twice
    assert session.state()["waiting_for"] == "roll" and session.state()["on_roll"] == 1


@pytest.mark.slow
def test_without_the_fast_path_the_same_turn_waits_for_still_frames():
    events, starts, session = _run(_opening_and_play(Scene(PLAYED, hand=True), Scene(PLAYED)),
                                   StabilitySettings(fast_pickup=False))
    verdicts = _verdicts(events)
    assert [v for _, v in verdicts] == ["legal"] and verdicts[0][0] >= starts[-1] + 2
    assert session.fast_pickups == 0


@pytest.mark.slow
def test_a_checker_moved_with_the_pickup_is_not_judged_on_that_frame():
    """The last checker is moved and the dice picked up behind one hand: the
    picture changed outside the dice, so the frame proves nothing by itself;
    the turn is judged once the board has been still (and judged right)."""
    scenes = _opening_and_play(Scene(PLAYED, hand=True), Scene(PLAYED))
    scenes[3] = (Scene(HALF_PLAYED, OPENING, hand=True), 2)
    scenes[4] = (Scene(HALF_PLAYED, OPENING), 4)
    events, starts, session = _run(scenes)
    verdicts = _verdicts(events)
    assert [v for _, v in verdicts] == ["legal"] and verdicts[0][0] >= starts[-1] + 2
    assert session.fast_pickups == 0


@pytest.mark.slow
def test_a_hand_still_over_the_board_is_never_judged():
    """The dice are gone but a hand is still over the board: no verdict while
    it is there; the verdict comes once the board is clear and still."""
    scenes = _opening_and_play(Scene(PLAYED, hand=True), Scene(PLAYED, hand=True))
    scenes[-1] = (Scene(PLAYED, hand=True), 3)
    scenes.append((Scene(PLAYED), 4))
    events, starts, session = _run(scenes)
    verdicts = _verdicts(events)
    assert [v for _, v in verdicts] == ["legal"] and verdicts[0][0] >= starts[-1]
    assert session.fast_pickups == 0 or verdicts[0][0] == starts[-1]


@pytest.mark.slow
def test_one_die_left_on_the_board_is_not_a_pickup():
    events, starts, session = _run(_opening_and_play(Scene(PLAYED, (OPENING[0],), hand=True),
                                                     Scene(PLAYED, (OPENING[0],))))
    assert _verdicts(events) == []
    assert session.fast_pickups == 0


@pytest.mark.slow
def test_a_checker_moved_where_the_picture_barely_changes_is_read_at_the_pickup(tmp_path):
    """Rendered game 410 of ``benchmarks/bench_rendered_games.py`` (seed 1410: the fmgammon board,
    jumbo dice thrown anywhere, its own camera). Player 1 plays the opening 5-4 as 13/8 6/2 with
    the dice down, then 8/7 (13/7 6/2: illegal), whose checker leaves the end of the 8-point's
    stack, where a jumbo die lies, for the orange 7-point, where a gold checker changes few
    pixels; then the dice are picked up. Against the last stable board's picture (13/8 6/2) the
    pick-up frame changed under the dice alone: only reading it shows the checker on the 7-point.
    The play is called illegal, never taken as legal, and its correction (scene 16) is seen."""
    import cv2

    from companion.commands.watch import make_frame_reader
    from companion.demo import DEMO_LAYOUT, game_camera, render_script
    from companion.scripted_game import Script, random_game
    from companion.table import TableLayout
    from vision.sources import Frame

    script = random_game(1410, match_length=5, illegal_rate=0.3, cocked_rate=0.2, max_turns=4)
    # the opening, the play, its pick-up and its correction (scenes 0-16)
    played = Script(scenes=script.scenes[:17], match_length=5)
    assert played.scenes[12].dice and played.scenes[12].board[18] == -1 and not played.scenes[14].dice
    pose, lighting = game_camera(1410)
    n = render_script(played, tmp_path, die_to_checker=0.8, style="fmgammon", pose=pose, lighting=lighting,
                      dice_scatter=1410)
    reader = make_frame_reader(corners=pose.corners)
    bus = EventBus()
    events = []
    bus.subscribe(lambda e: events.append(e.to_dict()))
    session = Session(bus, reader=reader,
                      match_settings={"match_length": 5, "layout": TableLayout(DEMO_LAYOUT.colours)})
    for i in range(n):
        session.process_frame(Frame(cv2.imread(str(tmp_path / f"frame{i:05d}.jpg")), i, i * 100.0))
    verdicts = [(e["player"], e["verdict"]) for e in events if e["type"] == "verdict" and e["verdict"] != "in_progress"]
    assert verdicts == [(1, "illegal"), (1, "corrected")]

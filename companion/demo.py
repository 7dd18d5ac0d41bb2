"""The built-in demo recording of ``companion watch`` (no ``--source``).

A short, fully scripted game (:func:`demo_script`): the opening roll, plays
made checker by checker with a hand over the board, a cocked roll, an illegal
play and its correction, a double and a take, and a redouble that is dropped,
which ends the game with its score. The frames are rendered by the project's
own renderers (``vision.render_board`` for the board and the hands,
``vision.render_dice`` for the dice and the cube), deterministically, and cached
on first use as a folder of JPEG frames (repeated frames are hard links) under
``$COMPANION_CACHE`` or ``~/.cache/companion``.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import random
import shutil
from typing import Any, Optional

from companion.scripted_game import STILL_FRAMES, DieSpec, Scene, Script, _Builder
from companion.table import TableLayout, right_half, signed_to_points

DEMO_VERSION = 5
DEMO_FPS = 10.0
DEMO_SIZE = (1280, 720)
#: The demo's players: player 0 (image bottom) plays the light checkers.
DEMO_LAYOUT = TableLayout(("light", "dark"))


def demo_script(seed: int = 7) -> Script:
    """The demo game as a :class:`Script` (deterministic for a ``seed``)."""
    b = _Builder(5, seed)
    m = b.match
    b.show(frames=STILL_FRAMES)
    opening = b.opening()
    b.play(m.on_roll, opening, illegal=False)

    def turn(illegal: bool = False, cocked: bool = False) -> bool:
        player = m.on_roll
        if cocked:
            b.cocked_roll(player)
        a, c = b.roll(player)
        return b.play(player, (DieSpec(a, right_half(player)), DieSpec(c, right_half(player), slot=1)), illegal)

    turn(cocked=True)
    # an illegal play (and its correction): retry seeds of the variant until one exists
    turn(illegal=True)
    b.double(m.on_roll, drop=False)
    turn()
    turn()
    for _ in range(6):
        if m.cube.owner == m.on_roll and m.double_error(m.on_roll) is None:
            break
        turn()
    b.double(m.on_roll, drop=True)
    b.show(frames=STILL_FRAMES)
    return b.script


def demo_pose(size: tuple[int, int] = DEMO_SIZE):
    """The demo camera (``vision.render_board.CameraPose``) for frames of ``size``
    (width, height) pixels."""
    from vision.render_board import CameraPose

    return CameraPose.looking_down(image_size=size, scale=0.8)


def demo_corners_arg(size: tuple[int, int] = DEMO_SIZE, pose: Any = None) -> str:
    """The demo camera's field corners (or ``pose``'s, a ``vision.render_board.CameraPose``)
    as a ``--corners`` argument."""
    return ",".join(f"{v:.2f}" for xy in (pose or demo_pose(size)).corners for v in xy)


def game_camera(seed: int):
    """``(pose, lighting)`` (``vision.render_board.CameraPose``, ``Lighting``) of a camera of its
    own for the game of ``seed``, as the rendered-games benchmark's ``--camera varied`` draws
    them: above the board, tilted (keystone up to 0.12), turned up to 4 degrees, the field
    0.74-0.86 of the frame's height, off centre; light 0.8-1.15 bright with a gradient, soft
    shadows, blur up to 1 pixel and sensor noise."""
    import numpy as np

    from vision.render_board import CameraPose, Lighting

    rng = np.random.default_rng(seed)
    pose = CameraPose.looking_down(image_size=DEMO_SIZE, scale=float(rng.uniform(0.74, 0.86)),
                                   tilt=float(rng.uniform(-0.12, 0.12)), turn_deg=float(rng.uniform(-4, 4)),
                                   shift=(float(rng.uniform(-40, 40)), float(rng.uniform(-10, 10))))
    lighting = Lighting(brightness=float(rng.uniform(0.8, 1.15)), gradient=float(rng.uniform(0, 0.35)),
                        gradient_deg=float(rng.uniform(0, 360)), shadows=float(rng.uniform(0.3, 0.6)),
                        blur=float(rng.uniform(0, 1.0)), noise=float(rng.uniform(1, 4)))
    return pose, lighting


def _cache_root() -> pathlib.Path:
    env = os.environ.get("COMPANION_CACHE")
    if env:
        return pathlib.Path(env)
    return pathlib.Path.home() / ".cache" / "companion"


def render_scene(scene: Scene, layout: TableLayout = DEMO_LAYOUT, size: tuple[int, int] = DEMO_SIZE,
                 seed: int = 0, style: str = "tournament", die_to_checker: Optional[float] = None,
                 pose: Any = None, lighting: Any = None, dice_scatter: Optional[int] = None,
                 thrown: Optional[dict] = None, painter: Any = None) -> Any:
    """One frame of ``scene``: (H, W, 3) uint8 BGR, ``size`` (width, height) pixels.
    The board, checkers and hands by ``vision.render_board``; the dice (cocked
    dice lean 30 degrees; red, the top player's white when the dice have owners;
    a die with no half on the frame left of the field) and the cube by
    ``vision.render_dice``. ``style``: a ``vision.render_board`` style name (raises
    ``KeyError`` for another); ``die_to_checker``: the dice's side over a checker's
    diameter (0.3 travel dice .. 0.8 jumbo dice); None: 1/20 of the field's width
    (about 0.67); the cube keeps its size. ``pose``: the camera
    (``vision.render_board.CameraPose``, default :func:`demo_pose`); ``lighting``: a
    ``vision.render_board.Lighting`` (default: even light, soft shadows). ``dice_scatter``: a
    seed; the dice of a half then lie where a throw leaves them (:func:`_thrown_dice`: anywhere
    in that half clear of the bar, on the points, flat on top of a checker, against each other,
    at any turn; None: side by side on the half's middle line). ``thrown``: where the dice of
    each throw lie, kept across scenes (``dice_scatter`` -> spots), so that dice stay put while
    checkers move around them. ``painter``: draws the board and its checkers instead of
    ``vision.render_board`` (a real board's photo with real checkers laid out on it): called as
    ``painter(state, seed)`` with a ``vision.render_board.BoardState``, it returns a
    ``vision.render_board.RenderedBoard`` (its ``image``, ``field_to_image`` and ``checkers`` are
    used) and has a ``checker_diameter`` (canonical field units) and a ``checker_aspect`` (a
    checker's height over its width in the canonical field); ``size``, ``style``, ``pose`` and
    ``lighting`` are then unused, the dice are drawn in the board's plane
    (:func:`vision.render_dice.draw_die_on_board`) and the hands over them
    (:func:`vision.render_board.draw_hands`)."""
    import numpy as np

    from vision.registration import FIELD_HEIGHT, FIELD_WIDTH
    from vision.render_board import LOW_CONTRAST_STYLES, STYLES, BoardState, Hand, Lighting, render_board
    from vision.render_dice import DIE_STYLES, draw_cube, draw_die, draw_die_on_board

    points, bar, off = signed_to_points(scene.board, 0, layout)
    state = BoardState(
        tuple((p.count, p.colour) for p in points),
        (("light", bar.light), ("dark", bar.dark)),
        (("light", off.light), ("dark", off.dark)),
    )
    rng = random.Random(seed)
    hands = ()
    if scene.hand:
        hands = (Hand(at=(rng.uniform(0.25, 0.75), rng.uniform(0.35, 0.65)), from_edge=rng.choice(("bottom", "top"))),)
    pose = pose or demo_pose(size)
    lighting = lighting or Lighting(shadows=0.4)
    # dice and cube go under the hands: draw the board without hands first
    if painter is None:
        board = render_board(state, style=style, pose=pose, lighting=lighting, seed=seed)
        geometry = {**STYLES, **LOW_CONTRAST_STYLES}[style].geometry
        diameter = (1 - geometry.bar_width) / 12 * geometry.checker_diameter  # over the field's width
    else:
        board = painter(state, seed)
        diameter = painter.checker_diameter / FIELD_WIDTH
    image = board.image.copy()
    h = board.field_to_image

    def to_image(fx: float, fy: float) -> tuple[float, float]:
        v = h @ np.array([fx * FIELD_WIDTH, fy * FIELD_HEIGHT, 1.0])
        return float(v[0] / v[2]), float(v[1] / v[2])

    left, right = to_image(0, 0.5), to_image(1, 0.5)
    field_px = ((right[0] - left[0]) ** 2 + (right[1] - left[1]) ** 2) ** 0.5
    cube_px = field_px * 0.05 * 1.1
    if die_to_checker is None:
        die_px = field_px * 0.05
    else:
        die_px = die_to_checker * field_px * diameter
    red = next((s for s in DIE_STYLES if s.name == "red"), DIE_STYLES[0])  # precision dice, clear on a light field
    white = next((s for s in DIE_STYLES if s.name == "white"), DIE_STYLES[0])
    spots: dict = {}
    if dice_scatter is not None:
        thrown = {} if thrown is None else thrown
        if dice_scatter not in thrown:  # the throw lands among the checkers of the scene it first shows in
            inv = np.linalg.inv(h)
            at = np.array([[x, y, 1.0] for x, y, _, p in board.checkers if 1 <= p <= 24]).reshape(-1, 3) @ inv.T
            centres = np.column_stack([at[:, 0] / at[:, 2] / FIELD_WIDTH, at[:, 1] / at[:, 2] / FIELD_HEIGHT])
            radius = 0.5 * diameter
            thrown[dice_scatter] = _thrown_dice(scene.dice, dice_scatter, die_px / field_px, centres, radius)
        spots = thrown[dice_scatter]
    for i, d in enumerate(scene.dice):
        yaw = 17.0 + 29.0 * d.slot + 7 * d.value
        if d.half is None:  # on the frame left of the field, at the owner's end (clear of the cube)
            fx, fy = -0.058, (0.22 if d.owner == "top" else 0.66) + 0.12 * d.slot
        elif i in spots:
            (fx, fy), yaw = spots[i]
        else:
            fx, fy = (0.70 if d.half == "right" else 0.20) + 0.10 * d.slot, 0.5
        # two sets when the dice have owners: the bottom player's red, the top player's white
        lie = dict(yaw_deg=yaw, tilt_deg=30.0 if d.cocked else 0.0, tilt_dir_deg=40.0,
                    style=white if d.owner == "top" else red)
        if painter is None:
            draw_die(image, to_image(fx, fy), die_px, d.value, **lie)
        else:  # a photo's board seen obliquely: the die lies in its plane
            draw_die_on_board(image, h, (fx * FIELD_WIDTH, fy * FIELD_HEIGHT), die_px / field_px * FIELD_WIDTH,
                              d.value, aspect=painter.checker_aspect, **lie)
    # the cube lies on the frame left of the playing field (clear of the bar's
    # checkers and of the borne-off trays on the right): middle when centred,
    # at the owner's end otherwise
    value, place = scene.cube
    fy = {"centre": 0.5, "top": 0.1, "bottom": 0.9}[place]
    draw_cube(image, to_image(-0.058, fy), cube_px, value)
    if hands and painter is not None:
        from vision.render_board import draw_hands

        image, _ = draw_hands(image, h, hands, painter.checker_diameter)
    elif hands:
        with_hands = render_board(state, style=style, pose=pose, lighting=lighting, hands=hands, seed=seed)
        mask = with_hands.hand_mask
        image[mask] = with_hands.image[mask]
    return image


def _thrown_dice(dice: tuple[DieSpec, ...], seed: int, side: float, checkers: Any = (),
                 radius: float = 0.0) -> dict[int, tuple[tuple[float, float], float]]:
    """Where thrown dice lie: ``{index in dice: ((fx, fy) field fractions, yaw degrees)}`` for
    each die on a half. ``side``: a die's side over the field's width; ``checkers``: (N, 2)
    checker centres in field fractions; ``radius``: a checker's radius over the field's width.
    Each die lies flat, so it lands anywhere in its half clear of the bar, the frame and every
    checker, or on top of a checker (its centre within half a radius of the checker's), and at
    least its diagonal from the other dice's centres (two dice may touch, never overlap); drawn
    from ``seed`` and the dice."""
    digest = hashlib.sha1(repr((seed, dice)).encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    reach = side * 0.71  # half the die's diagonal

    def apart(a: tuple[float, float], b: tuple[float, float]) -> float:  # in field widths
        return ((a[0] - b[0]) ** 2 + ((a[1] - b[1]) / 1.08) ** 2) ** 0.5

    out: dict[int, tuple[tuple[float, float], float]] = {}
    for i, d in enumerate(dice):
        if d.half is None:
            continue
        lo, hi = (0.58, 0.95) if d.half == "right" else (0.05, 0.42)
        for _ in range(200):
            at = (rng.uniform(lo, hi), rng.uniform(0.08, 0.92))
            near = [apart(at, (float(c[0]), float(c[1]))) for c in checkers]
            flat = all(n >= radius + reach for n in near) or any(n <= 0.5 * radius for n in near)
            if flat and all(apart(at, o) >= side * 1.45 for o, _ in out.values()):
                break
        out[i] = (at, rng.uniform(0.0, 90.0))
    return out


def render_script(script: Script, folder: pathlib.Path, fps: float = DEMO_FPS, size: tuple[int, int] = DEMO_SIZE,
                  layout: TableLayout = DEMO_LAYOUT, quality: int = 88, die_to_checker: Optional[float] = None,
                  style: str = "tournament", pose: Any = None, lighting: Any = None,
                  dice_scatter: Optional[int] = None, painter: Any = None) -> int:
    """Write every frame of ``script`` into ``folder`` as ``frame00000.jpg``...
    (one render per distinct still scene, one per frame while a hand moves;
    repeats are hard links, or copies where links are not possible; frames of an
    earlier run in ``folder`` are replaced). Returns the number of frames. ``die_to_checker``, ``style``, ``pose``, ``lighting``,
    ``dice_scatter`` and ``painter``: as :func:`render_scene`."""
    import cv2

    folder.mkdir(parents=True, exist_ok=True)
    rendered: dict[Any, pathlib.Path] = {}
    thrown: dict = {}
    throw, last_dice = 0, None
    index = 0
    for scene in script.scenes:
        if scene.dice != last_dice:  # another throw (or the dice lifted): they land anew
            throw, last_dice = throw + 1, scene.dice
        for k in range(scene.frames):
            key = (scene, k, throw) if scene.hand else (scene, throw)  # a hand moves from frame to frame
            path = folder / f"frame{index:05d}.jpg"
            path.unlink(missing_ok=True)  # a folder written before is written anew
            if key in rendered:
                try:
                    os.link(rendered[key], path)
                except OSError:
                    shutil.copyfile(rendered[key], path)
            else:
                image = render_scene(scene, layout, size, seed=len(rendered), style=style, die_to_checker=die_to_checker,
                                     pose=pose, lighting=lighting, thrown=thrown, painter=painter,
                                     dice_scatter=None if dice_scatter is None else dice_scatter * 1000 + throw)
                if not cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, quality]):
                    raise OSError(f"cannot write {path}")
                rendered[key] = path
            index += 1
    return index


def renderer_fingerprint() -> str:
    """SHA-1 (hex) of the source of the modules that draw the demo's frames (this module,
    ``vision.render_board``, ``vision.render_dice``): part of the cache key, so frames cached by an
    older version of the renderers are never replayed after an upgrade (they once differed enough
    to flip the reading of a cube). Raises ``OSError`` when a source file cannot be read."""
    import importlib.util

    h = hashlib.sha1()
    for name in ("companion.demo", "vision.render_board", "vision.render_dice"):
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise OSError(f"demo renderer module not found: {name}")
        h.update(pathlib.Path(spec.origin).read_bytes())
    return h.hexdigest()


def demo_folder(cache: Optional[pathlib.Path] = None) -> pathlib.Path:
    """The folder of demo frames, rendered on first use (a few seconds) and then
    reused. Raises ``OSError`` when the cache cannot be written."""
    root = cache or _cache_root()
    script = demo_script()
    digest = hashlib.sha1(json.dumps([DEMO_VERSION, DEMO_SIZE, [repr(s) for s in script.scenes],
                                      renderer_fingerprint()]).encode()).hexdigest()[:10]
    folder = root / f"demo-v{DEMO_VERSION}-{digest}"
    done = folder / "DONE"
    if done.exists():
        return folder
    tmp = root / f".{folder.name}.partial-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    n = render_script(script, tmp)
    (tmp / "DONE").write_text(json.dumps({"frames": n, "fps": DEMO_FPS, "expected": script.expected}, indent=1))
    try:
        tmp.rename(folder)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)  # another process won the race
    return folder

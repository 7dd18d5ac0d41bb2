"""Cocked dice, by the tournament rules (DESIGN.md, "Tournament facts").

A roll's dice must come to rest flat on the roller's right-hand board; otherwise the die is cocked
and both dice are rolled again (so the verdict is for the roll). Reasons, as stable codes:

- ``"tilted"``: the die does not rest flat (leaning on the rail or a checker, balanced on an edge);
  judged by a small network on the die seen in the board's top-down (rectified) frame, turned so
  the camera's parallax always points the same way (:func:`oriented_patch`): there the top face of
  a flat die is a square shifted away from the camera axis, and a tilted one is foreshortened and
  shows a side face in any direction;
- ``"on_bar"``: the die rests on the bar;
- ``"off_board"``: outside the playing field (on the rail or frame, in a tray, on the table);
- ``"wrong_half"``: on the playing field but not in the roller's right-hand board (the roller's
  right is the image's right for the player at the image's bottom, the image's left for the player
  at the top);
- ``"on_checker"``: resting on a checker, cocked only when :attr:`CockedRules.on_checker_cocked`
  is set (older rules); USBGF 2017 (the default) accepts a die that rests flat on a checker.

:func:`judge_roll` sets ``cocked``, ``reason``, ``message`` and ``half`` on each
:class:`~companion.observation.DieReading`; :func:`judge_scan` is the whole path from a scanned
frame (accepted readings, leaning dice, the bar for readings off the board, the judgement).
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
from typing import TYPE_CHECKING, Any, Literal, Optional, Sequence

import numpy as np

from companion.observation import DieReading
from vision.onnx_model import load_onnx

if TYPE_CHECKING:
    from vision.dice_sets import DiceSets

MODELS = pathlib.Path(__file__).resolve().parent / "models"
#: Probability above which the tilt network calls a die not flat. The shipped network's own
#: validation threshold (vision/models/train_logs/tilt.txt: 150 rendered boards of dice of 0.28-0.85
#: of a checker, 0.35% of their flat dice and none of 206 real flat dice above it) is 0.67.
#: Chosen on the first frame of every still scene with dice of the validation travel-dice games
#: (benchmarks/tilt_scenes.py, seeds 1000-1023 and 1036-1071): flat dice score up to 0.943 (856
#: scenes), cocked rolls 0.96 and more but one of 37 (0.92); 0.95 calls 36 of the 37 and no flat
#: scene, 0.94 one flat scene more. The real board photos also bound it: the flat dice of the
#: oblique photo test2 score up to 0.722 as the reader boxes them and 0.862 boxed as their labels
#: (tests/test_vision_cocked_tilt.py). A false call stops a game: it costs more than a missed
#: cocked die.
TILT_THRESHOLD = 0.95
#: Side of the rectified patch read by the tilt network (pixels) and its context (x die side).
TILT_PATCH = 32
TILT_CONTEXT = 1.6
#: Tilt score above which a candidate the value classifier turned down is taken as a leaning die
#: (:func:`leaning_candidates`).
LEAN_THRESHOLD = 0.9
#: Detector peak a turned-down candidate needs to be judged by :func:`leaning_candidates` (chosen on
#: 150 validation boards, render_roll_on_board seed 4242; see vision/models/README.md).
LEAN_MIN_PEAK = 0.35
#: The patch sizes (x the die's size) at which the tilt network reads each die of a roll; the
#: highest reading counts (:func:`roll_tilt_scores`). The registered-board detector may box a
#: leaning die by its most visible face alone (a rendered game's die leaning 30 degrees: its side
#: face, 26 pixels, tilt 0.07; the same centre read 1.3 times larger: 0.89, 1.4 times: 0.93; that
#: die is still missed, its roll is taken back when the dice are thrown again). Chosen on the
#: validation boards (seed 4242): (1.0, 1.3) cocked recall 95.1% -> 97.5% (tilted 21 -> 23 of
#: 25), (1.0, 1.4) 96.3%, no flat die called cocked either way; on 300 more boards (seed 5151)
#: recall 97.5%, precision 99.4%; no held-out real die (0 of 1,175) or board-photo die called
#: cocked. The tilt network was trained on patches 0.9 to 1.5 times the die's size.
TILT_VIEWS = (1.0, 1.3)
#: A die of a roll is taken at most this many times the smallest die's size (:func:`roll_sizes`).
SIZE_CAP = 1.2
#: A die read with no value or a weak one (confidence below this: ``DiceSettings.accept``; below
#: it only a strong detector peak makes a die, and :func:`leaning_candidates` a leaning one) that
#: lies on a checker the checker reader counts surely, with that die not covered, is that checker
#: or its print (:func:`checkers_read_as_dice`): at least :data:`ON_CHECKER_SHARE` of its box on
#: the checker's disc, or, on the bar, boxed at least :data:`CHECKER_BOX` of a checker's diameter
#: within :data:`CHECKER_NEAR` diameters of the bar's middle. Black checkers with a printed star by
#: the far rail of a real board photo (hough_test5) were read as leaning dice (tilt score 0.99), a
#: cocked roll called before the rolls of their games, a marbled one as a flat 5 (0.44), and a spot
#: of one's print as a leaning 2 (0.32, its box 0.6 of the checker).
TURNED_DOWN = 0.5
ON_CHECKER_SHARE = 0.6
CHECKER_BOX = 0.8
CHECKER_NEAR = 0.25
#: A point's reading this probable counts its checkers surely for :func:`checkers_read_as_dice` (the
#: marbled checker read as a 5: 0.98).
CHECKER_SURE = 0.9
#: Confidence a reading off the board's surface (table, tray, beside the board) needs to be
#: reported (:func:`judge_scan`). A die found there is an accusation (``off_board``), while a die
#: that is not seen costs little: the other die alone in view gets the roll rolled again
#: (``die_not_seen``, companion.referee). The digits of a game clock beside a real board photo
#: (test8) were once read as a 6 at 0.53; the off-board dice of 150 validation boards (seed 4242)
#: are all read at 0.85 or more.
OFF_BOARD_CONFIDENCE = 0.8

MESSAGES = {
    "tilted": "The die at {where} is not resting flat: the roll is cocked; roll both dice again.",
    "on_bar": "The die at {where} landed on the bar: the roll is cocked; roll both dice again.",
    "off_board": "The die at {where} landed off the playing field: the roll is cocked; roll both dice again.",
    "wrong_half": "The die at {where} is not in the roller's right-hand board: the roll is cocked; roll both dice again.",
    "on_checker": "The die at {where} rests on a checker (cocked under these rules): roll both dice again.",
}


@dataclasses.dataclass(frozen=True)
class CockedRules:
    """Settings of the cocked-dice rule.

    ``on_checker_cocked``: a die resting flat on a checker is cocked (older rules) or fine
    (USBGF 2017, the default). ``require_right_hand``: the dice must land in the roller's
    right-hand board (tournament rule; some clubs only require the field).
    ``tilt_threshold``: probability 0..1 above which a die counts as tilted.
    ``off_board_confidence``: a reading off the board's surface is reported only from this
    confidence up (:func:`judge_scan`; see :data:`OFF_BOARD_CONFIDENCE`).
    """

    on_checker_cocked: bool = False
    require_right_hand: bool = True
    tilt_threshold: float = TILT_THRESHOLD
    off_board_confidence: float = OFF_BOARD_CONFIDENCE


class TiltModel:
    """The tilt network (``vision/models/dice_tilt.onnx``): a rectified (32, 32) patch -> the
    probability that the die does not rest flat. Raises ``FileNotFoundError`` if the file is missing."""

    def __init__(self, models: pathlib.Path | str | None = None) -> None:
        path = (pathlib.Path(models) if models is not None else MODELS) / "dice_tilt.onnx"
        if not path.is_file():
            raise FileNotFoundError(f"tilt model missing: {path}")
        self.net = load_onnx(path)

    def scores(self, patches: Sequence[np.ndarray], mirror: bool = True, mirror_above: float = 0.5) -> np.ndarray:
        """(N,) float64 probabilities that each (32, 32, 3) uint8 BGR patch shows a tilted die;
        with ``mirror`` the patches read at least ``mirror_above`` are read again mirrored left to
        right (the parallax still points up, so a flat die stays a flat die) and the two readings
        averaged (below it the mean could not reach any threshold above (1 + mirror_above) / 2, so
        the second reading is saved)."""
        from vision.dice_patches import patches_blob

        if len(patches) == 0:
            return np.zeros(0)
        blob = patches_blob(list(patches))
        p = self._forward(blob)
        again = np.nonzero(p >= mirror_above)[0] if mirror else np.zeros(0, int)
        if len(again):
            p[again] = 0.5 * (p[again] + self._forward(np.ascontiguousarray(blob[again][:, :, :, ::-1])))
        return p

    def _forward(self, blob: np.ndarray) -> np.ndarray:
        logits = self.net.run(blob).astype(np.float64).reshape(len(blob), -1)
        if logits.shape[1] == 1:
            return 1.0 / (1.0 + np.exp(-logits[:, 0]))
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e[:, 1] / e.sum(axis=1)


def oriented_patch(image_bgr: np.ndarray, center: tuple[float, float], size: float,
                   homography: Optional[np.ndarray] = None, principal: Optional[tuple[float, float]] = None,
                   patch: int = TILT_PATCH, context: float = TILT_CONTEXT) -> np.ndarray:
    """(patch, patch, 3) uint8 BGR view of a die in the board's top-down frame, turned so that the
    direction away from the camera's principal point points up.

    ``homography``: image -> board plane (``Field.homography``), identity when None (the image is
    taken as already top-down). ``principal``: the principal point in image pixels (default the
    image centre). A flat die off the camera axis shows its side towards the principal point and its
    top face shifted away from it (parallax); turning every patch the same way makes that parallax
    always point up, so it is told apart from a tilt, which can lean any way.
    """
    import cv2

    h, w = image_bgr.shape[:2]
    hmg = np.eye(3) if homography is None else np.asarray(homography, dtype=np.float64)
    px, py = principal if principal is not None else (w / 2.0, h / 2.0)

    def fwd(pts: np.ndarray) -> np.ndarray:
        q = np.hstack([pts, np.ones((len(pts), 1))]) @ hmg.T
        return q[:, :2] / q[:, 2:3]

    cx, cy = center
    r = np.array([cx - px, cy - py])
    n = float(np.linalg.norm(r))
    r = r / n if n > 1e-6 else np.array([0.0, -1.0])
    pts = np.array([[cx, cy], [cx + r[0] * size / 2, cy + r[1] * size / 2],
                    [cx - size / 2, cy], [cx + size / 2, cy], [cx, cy - size / 2], [cx, cy + size / 2]])
    fp = fwd(pts)
    fc = fp[0]
    v = fp[1] - fc
    v = v / max(float(np.linalg.norm(v)), 1e-9)
    fsize = 0.5 * (np.linalg.norm(fp[3] - fp[2]) + np.linalg.norm(fp[5] - fp[4]))
    scale = patch / (context * max(fsize, 1e-3))
    rot = np.array([[-v[1], v[0]], [-v[0], -v[1]]]) * scale  # maps v to (0, -1): outwards is up
    t = np.eye(3)
    t[:2, :2] = rot
    t[:2, 2] = np.array([patch / 2, patch / 2]) - rot @ fc
    m = t @ hmg
    return cv2.warpPerspective(image_bgr, m, (patch, patch), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def rectified_patch(image_bgr: np.ndarray, die: DieReading, field: Any = None,
                    patch: int = TILT_PATCH, context: float = TILT_CONTEXT,
                    size: Optional[float] = None) -> np.ndarray:
    """:func:`oriented_patch` for ``die`` on a registered ``field`` (or a top-down free photo when
    ``field`` is None). The principal point is taken at the image centre. ``size``: the die's
    side in image pixels (default :func:`die_size`). The patch is centred on the die's box (its
    outline), or on its centre when it has no box."""
    hmg = None if field is None else np.asarray(field.homography, dtype=np.float64)
    # the centre of the die's outline (its box), as the tilt network was trained; a one's reading
    # on a free photo has its centre on the pip (vision.dice.DiceReader.recentre_ones)
    centre = die.center if die.box is None else ((die.box[0] + die.box[2]) / 2, (die.box[1] + die.box[3]) / 2)
    return oriented_patch(image_bgr, centre, die_size(die) if size is None else size, hmg, None, patch, context)


def roll_tilt_scores(image_bgr: np.ndarray, dice: Sequence[DieReading], field: Any,
                     tilt_model: "TiltModel", views: Optional[Sequence[float]] = None,
                     die_px: Optional[float] = None) -> np.ndarray:
    """(N,) float64 tilt score of each die of a roll: the highest of the tilt network's readings of
    its rectified patch at each of ``views`` (default :data:`TILT_VIEWS`) times its size
    (:func:`roll_sizes`, with the dice's known side ``die_px``), all in one network pass. A leaning
    die may be boxed by its most visible face alone (a side face, which looks flat); the larger
    patch shows the rest of it."""
    if not len(dice):
        return np.zeros(0)
    views = TILT_VIEWS if views is None else views
    sizes = roll_sizes(dice, die_px)
    patches = [rectified_patch(image_bgr, d, field, size=s * v) for v in views for d, s in zip(dice, sizes)]
    return tilt_model.scores(patches).reshape(len(views), len(dice)).max(axis=0)


def roll_sizes(dice: Sequence[DieReading], die_px: Optional[float] = None) -> list[float]:
    """The side of each die of a roll for the tilt test, in image pixels: its own size, but at most
    :data:`SIZE_CAP` times the smallest die's (among those at least 0.6 times the largest: a far
    smaller one is not a die of the same set). The detector measures a leaning die by its whole
    outline (top and side faces), up to 1.6 times a flat die's; the dice of a roll are one size.
    ``die_px``: the dice's side when it is known (learned, :mod:`vision.dice_size`), at least
    which each die is taken: searched at their own size, small dice are often boxed tight (0.7-0.9
    of their side), and the tilt network, trained on patches of 0.9-1.5 times the die, reads a
    flat die's tight patch as a leaning die's side face."""
    sizes = [max(die_size(d), die_px or 0.0) for d in dice]
    if not sizes:
        return []
    ref = min(s for s in sizes if s >= 0.6 * max(sizes))
    return [min(s, SIZE_CAP * ref) for s in sizes]


def die_size(die: DieReading) -> float:
    """The die's side in image pixels (from its box; 20 when it has none)."""
    if die.box is None:
        return 20.0
    return float(max(die.box[2] - die.box[0], die.box[3] - die.box[1]))


def tilt_score(image_bgr: np.ndarray, die: DieReading, field: Any = None,
               model: Optional[TiltModel] = None) -> float:
    """Probability 0..1 that ``die`` does not rest flat (0 when no tilt model is installed): the
    highest reading at :data:`TILT_VIEWS` times its size, as :func:`judge_roll` reads a die."""
    if model is None:
        try:
            model = TiltModel()
        except FileNotFoundError:
            return 0.0
    return float(roll_tilt_scores(image_bgr, [die], field, model)[0])


def place_of(die: DieReading, field: Any) -> tuple[Optional[str], Optional[str]]:
    """Where ``die`` lies on a registered board: ``(area, half)`` with area ``"field"``, ``"bar"`` or
    ``"off"`` and half ``"left"``/``"right"`` (image terms) on the field, else ``None``."""
    fx, fy = field.to_field(np.array([die.center], dtype=np.float64))[0]
    w, h = field.size
    if not (0 <= fx < w and 0 <= fy < h) or not math.isfinite(fx):
        return "off", None
    if field.bar_x0 <= fx < field.bar_x1:
        return "bar", None
    return "field", field.image_half(fx)


def on_checker(die: DieReading, checkers: Sequence[tuple[float, float, float]]) -> bool:
    """True when the die's centre lies within a checker: ``checkers`` are ``(x, y, radius)`` in
    image pixels."""
    x, y = die.center
    return any(math.hypot(x - cx, y - cy) < r for cx, cy, r in checkers)


def of_roll(die: DieReading, roller: Optional[str]) -> bool:
    """Whether ``die`` may be part of the roll of ``roller`` (image side, ``None``: unknown): not
    when its ``owner`` (its set by colour, :mod:`vision.dice_sets`) is the other player."""
    return roller is None or die.owner in (None, roller)


def judge_roll(dice: Sequence[DieReading], field: Any, image_bgr: Optional[np.ndarray] = None, *,
               roller: Optional[Literal["top", "bottom"]] = None,
               checkers: Sequence[tuple[float, float, float]] = (),
               rules: CockedRules = CockedRules(),
               tilt_model: Optional[TiltModel] = None,
               die_px: Optional[float] = None) -> list[DieReading]:
    """Judge every die of a roll on a registered board; returns new readings with ``cocked``,
    ``reason``, ``message`` and ``half`` set (same order). ``die_px``: the dice's side in image
    pixels when it is known (:func:`roll_sizes`), else None.

    ``field``: :class:`vision.registration.Field` (required: the rule is about the board's halves).
    ``image_bgr``: the frame, for the tilt test (skipped when None). ``roller``: the player to roll
    by image side (``None``: unknown, the right-hand board is not checked). ``checkers``: checker
    discs ``(x, y, radius)`` in image pixels (for ``on_checker``). Raises ``ValueError`` when
    ``field`` is None. The first applicable reason wins, in the order off_board, on_bar,
    wrong_half, tilted, on_checker. A die of the other player's set (its ``owner``, by colour,
    :mod:`vision.dice_sets`, is not ``roller``) is not part of the roll: it gets its ``half`` and
    no verdict (an idle pair on the rail or in a tray is not cocked).
    """
    if field is None:
        raise ValueError("judging cocked dice needs a registered board (field)")
    right_hand = {"bottom": "right", "top": "left"}.get(roller or "", None)
    idle = [not of_roll(d, roller) for d in dice]
    rolled = [d for d, i in zip(dice, idle) if not i]
    scores = np.zeros(len(dice))
    if image_bgr is not None and rolled:
        if tilt_model is None:
            try:
                tilt_model = TiltModel()
            except FileNotFoundError:
                tilt_model = None
        if tilt_model is not None:
            scores[[k for k, i in enumerate(idle) if not i]] = roll_tilt_scores(
                image_bgr, rolled, field, tilt_model, die_px=die_px)
    out = []
    for d, score, not_rolled in zip(dice, scores, idle):
        area, half = place_of(d, field)
        reason = None
        if not_rolled:  # the other player's set: its place, no verdict
            pass
        elif area == "off":
            reason = "off_board"
        elif area == "bar":
            reason = "on_bar"
        elif rules.require_right_hand and right_hand is not None and half != right_hand:
            reason = "wrong_half"
        elif score > rules.tilt_threshold:
            reason = "tilted"
        elif rules.on_checker_cocked and on_checker(d, checkers):
            reason = "on_checker"
        where = f"({d.center[0]:.0f}, {d.center[1]:.0f})"
        out.append(dataclasses.replace(d, cocked=reason is not None, reason=reason, half=half,
                                       message=None if reason is None else MESSAGES[reason].format(where=where)))
    return out


def judge_scan(image_bgr: np.ndarray, cands: Sequence[Any], probs: np.ndarray, reader: Any, field: Any, *,
               roller: Optional[Literal["top", "bottom"]] = None,
               checkers: Sequence[tuple[float, float, float]] = (),
               rules: CockedRules = CockedRules(),
               tilt_model: Optional["TiltModel"] = None,
               dice_sets: Optional["DiceSets"] = None,
               die_px: Optional[float] = None) -> list[DieReading]:
    """The judged dice of a scanned registered frame, as ``companion read`` reports them: the
    accepted readings (``reader.dice_from_scan``, a :class:`vision.dice.DiceReader`), less those
    off the board's surface below :attr:`CockedRules.off_board_confidence`, plus the dice turned
    down because they lean (:func:`leaning_candidates`, same bar off the board), each judged by
    :func:`judge_roll` (the same keyword arguments). ``dice_sets``
    (:class:`vision.dice_sets.DiceSets`): each die gets the ``owner`` its colour is nearer, and
    the other player's set is left out of the roll; None: every die is the roller's.

    ``image_bgr``: (H, W, 3) uint8 BGR; ``cands``, ``probs``: :meth:`vision.dice.DiceReader.scan` of
    it with ``field``; ``die_px``: the dice's side in image pixels when it is known (the size
    they were searched at), for the tilt test (:func:`roll_sizes`). Raises ``ValueError`` when
    ``field`` is None.
    """
    if field is None:
        raise ValueError("judging cocked dice needs a registered board (field)")

    def sure(dice: Sequence[DieReading]) -> list[DieReading]:
        return [d for d in dice if d.confidence >= rules.off_board_confidence or place_of(d, field)[0] != "off"]

    from vision.dice_sets import with_owners

    dice = with_owners(image_bgr, sure(reader.dice_from_scan(cands, probs)), dice_sets)
    roll = [d for d in dice if of_roll(d, roller)]
    dice += with_owners(image_bgr, sure(leaning_candidates(image_bgr, cands, probs, dice, field, tilt_model,
                                                           roll=roll)), dice_sets)
    return judge_roll(dice, field, image_bgr, roller=roller, checkers=checkers, rules=rules, tilt_model=tilt_model,
                      die_px=die_px)


def leaning_candidates(image_bgr: np.ndarray, cands: Sequence[Any], probs: np.ndarray,
                       dice: Sequence[DieReading], field: Any, tilt_model: Optional["TiltModel"],
                       lean_threshold: float = LEAN_THRESHOLD, min_peak: float = LEAN_MIN_PEAK,
                       roll: Optional[Sequence[DieReading]] = None) -> list[DieReading]:
    """Dice the value classifier turned down because they lean: a die on an edge or against the
    rail shows two faces and reads as no clear value. Returns a :class:`DieReading` (value: the
    classifier's best guess) for each scanned candidate (:meth:`vision.dice.DiceReader.scan`:
    ``cands`` with their (N, 8) ``probs``, searched around a registered ``field``) that is not one
    of ``dice``, has a detector peak of at least ``min_peak``, whose values 1..6 together outweigh "not a
    die" and "cube" (it is die-like) with "cube" at most 0.3, and whose tilt score (at the size of the
    roll's dice, :func:`roll_sizes`) exceeds ``lean_threshold``. Empty without a field or a model,
    and empty when ``dice`` already holds the two dice of a roll: a turned-down candidate is then
    not one of them (on a real board photo the digits of a game clock beside the board were taken
    for two leaning dice "off the board", a false accusation of a flat roll; on 150 validation
    boards, seed 4242, no cocked die is lost by this). ``roll``: the dice of ``dice`` that belong
    to the roller's set (default: all of them; an idle pair of the other player's set in view
    does not make a roll).
    """
    roll = dice if roll is None else roll
    if field is None or tilt_model is None or len(cands) == 0 or len(roll) >= 2:
        return []
    out = []
    ref = roll_sizes(roll)
    cap = min(ref) * SIZE_CAP if ref else None
    for c, p in zip(cands, probs):
        if c.score < min_peak or p[:6].sum() < max(p[6], p[7]) or p[7] > 0.3:
            continue
        if any(math.hypot(c.center[0] - d.center[0], c.center[1] - d.center[1]) < 0.6 * max(die_size(d), c.size)
               for d in dice):
            continue
        half = c.size / 2
        x, y = c.center
        d = DieReading(value=int(np.argmax(p[:6])) + 1, center=(x, y), box=(x - half, y - half, x + half, y + half),
                       confidence=float(p[:6].max()), values=tuple(round(float(q), 4) for q in p[:6]))
        size = c.size if cap is None else min(c.size, cap)
        if float(tilt_model.scores([rectified_patch(image_bgr, d, field, size=size)])[0]) > lean_threshold:
            out.append(d)
    return out


def _field_box(die: DieReading, field: Any) -> tuple[np.ndarray, float]:
    """A die's centre in canonical field units and its box's side there (the mean of its width and
    height through the middle)."""
    x0, y0, x1, y1 = die.box  # type: ignore[misc]
    c, left, right, top, bottom = field.to_field(np.array(
        [die.center, (x0, 0.5 * (y0 + y1)), (x1, 0.5 * (y0 + y1)), (0.5 * (x0 + x1), y0), (0.5 * (x0 + x1), y1)],
        np.float64))
    return c, 0.5 * (float(np.linalg.norm(right - left)) + float(np.linalg.norm(bottom - top)))


def weak_dice(dice: Sequence[DieReading], turned_down: float = TURNED_DOWN) -> list[int]:
    """Indexes of the dice of ``dice`` read with no value or a weak one (confidence below
    ``turned_down``: a strong detector peak's die, or a :func:`leaning_candidates` one, however
    :func:`judge_roll` then judges it), which :func:`checkers_read_as_dice` tests."""
    return [k for k, d in enumerate(dice) if d.confidence < turned_down and d.box is not None]


def checkers_read_as_dice(dice: Sequence[DieReading], field: Any, checkers: Sequence[tuple[float, float]],
                          bar_halves: Sequence[str] = (), within: float = ON_CHECKER_SHARE,
                          box: float = CHECKER_BOX, near: float = CHECKER_NEAR) -> list[int]:
    """Indexes of the :func:`weak_dice` of ``dice`` that are checkers, or a checker's print, read as
    dice: at least ``within`` of the die's box (in the board's plane) lies on the disc of one of
    ``checkers`` (the (x, y) canonical field centres of the checkers the checker reader counts
    surely in the same frame, those dice not covered); or the die is boxed at least ``box`` times a
    checker's diameter and centred within ``near`` diameters of the bar's middle line, in a half of
    the bar (``bar_halves``: ``"top"``, ``"bottom"``) the reader counts checkers in surely (they
    stand anywhere along the bar). A die that leans on a checker, the rail or the bar stands beside
    what it leans on; a die lying flat on a checker is read with a sure value.
    ``field``: the registered :class:`~vision.registration.Field` (``checker_size``, canonical
    field units)."""
    weak = weak_dice(dice)
    if not weak or not (len(checkers) or bar_halves):
        return []
    at = np.asarray(checkers, np.float64).reshape(-1, 2)
    radius = 0.5 * float(field.checker_size[0])
    bar_x = 0.5 * (float(field.bar_x0) + float(field.bar_x1))
    grid = (np.arange(9) + 0.5) / 9 - 0.5  # a 9 x 9 sample of the box, in its own sides
    out = []
    for k in weak:
        c, side = _field_box(dice[k], field)
        on_disc = False
        if len(at):
            xs, ys = np.meshgrid(c[0] + grid * side, c[1] + grid * side)
            samples = np.column_stack([xs.ravel(), ys.ravel()])
            d2 = ((samples[:, None, :] - at[None, :, :]) ** 2).sum(axis=2)  # (samples, checkers)
            on_disc = float((d2 <= radius * radius).mean(axis=0).max()) >= within
        half = "top" if c[1] < 0.5 * float(field.size[1]) else "bottom"
        if on_disc or (half in bar_halves and side >= box * 2 * radius and abs(float(c[0]) - bar_x) <= near * 2 * radius):
            out.append(k)
    return out


def roll_is_cocked(dice: Sequence[DieReading]) -> bool:
    """True when any die of the roll is cocked (both dice are then rolled again)."""
    return any(d.cocked for d in dice)

"""The size of the players' dice, learned at calibration or during a game.

A registered board's dice are searched at the size the board implies (a tournament die, about
1/30 of the playing field's width: :func:`vision.dice.field_search_region`). Small dice (travel
dice, 0.3-0.45 of a checker's diameter) are then only 6-7 pixels at the detector's input, and two
of them lying against each other merge into one. ``companion calibrate --learn-dice`` measures the
dice shown on the calibration frame and stores their side as a multiple of the board's size
(``die_scale`` in the profile); dice clearly smaller than a tournament die
(:data:`OWN_SIZE_BELOW`) and jumbo dice (:data:`OWN_SIZE_FROM`) are then searched at their own
size (:func:`search_die_px`; jumbo dice at the board's as well); dice near a tournament die's
size are searched at the board's.
``companion watch`` learns the size the same way on the first flat pair of a game when no profile
gives it (:func:`shows_flat_pair`, :class:`vision.dice_plugin.DicePlugin`); until then a frame
that shows fewer than two dice is searched again at :data:`FINE_SCALE` and :data:`OWN_SIZE_FROM`
times the board's die for a flat pair.

On 150 validation boards (``python benchmarks/dice_touching.py --boards 150 --seed 1100
--learn-size``: the size learned from each board's dice lying apart, then the board read with
them touching, apart and alone), touching dice read exactly 139 of 150 with the size learned
(those of 0.30-0.45 of a checker 37 of 45, against 36 at the board's size), apart 147 and alone
148. Jumbo dice (:data:`OWN_SIZE_FROM`) are read from their own size and the board's
(:meth:`vision.dice_plugin.DicePlugin.dice`): at their own size alone, 136, 146 and 147; at the
board's alone, 138, 146 and 148. On the rendered games' jumbo dice (0.8 of a checker,
``benchmarks/bench_rendered_games.py --dice-scatter --die-to-checker 0.8``, the 48 games looked at
for it: ``--first`` 1156, 1192, 1228 and 1240) the flat pairs of still scenes read wrong 27 times
at the board's size, 3 times at their own and never at both.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from companion.observation import DieReading

#: Learned scales are kept within these bounds (a die from half a tournament die to twice one).
SCALE_RANGE = (0.5, 2.0)
#: The dice of a calibration frame are measured twice: searched at the board's die, and searched at
#: this size (times the board's die). The detector's size estimate is poor near the small end of its
#: range: read at the board's size, travel dice of 0.67-0.99 of the board's die measured 0.72-1.33;
#: searched at 0.55 of it they measure 7% over their size on the median, while a jumbo die there may
#: be missed or measured as small as 0.5.
FINE_SCALE = 0.55
#: Dice measuring this much or more at the board's size are large: that measurement is kept.
LARGE_FROM = 1.3
#: Otherwise a fine measurement below this is kept, and else the one at the board's size. Both
#: thresholds chosen on 150 validation boards (``benchmarks/dice_touching.py --seed 1100``): dice
#: smaller than the board's die measured smaller 38 of 45 times, jumbo dice (1.45-1.77) measured
#: large 37 of 37 times (with the fine measurement kept whenever below 0.9: 35 and 33).
SMALL_BELOW = 0.95


#: Dice learned below this scale are searched at their own size (:func:`search_die_px`); larger
#: ones at the board's, up to :data:`OWN_SIZE_FROM`. A learned scale is often a tenth off and more
#: (the rendered games' first flat pair, games 0-11 of ``bench_rendered_games.py --dice-scatter``:
#: dice of 0.69 of the board's die measured 0.63-0.76, dice of 0.92 measured 0.80-1.02). Searched at a size under
#: theirs, dice are boxed tight and a flat die may be called tilted, while the board's size reads
#: dice of 0.8-1.0 of it well apart. With dice of 0.4 of a checker (0.92 of the board's die) those
#: games' flat still frames read exactly 166 of 166 at the board's size, 163 when every die
#: learned under 1.0 was searched at its own size and 166 with 0.8; the price, two touching dice
#: with the size learned (``benchmarks/dice_touching.py --boards 150 --seed 1100 --learn-size``):
#: 143 -> 140 of 150.
OWN_SIZE_BELOW = 0.8
#: Dice learned at this scale or more (jumbo dice) are searched at their own size too, besides the
#: board's. At the board's size a jumbo die is 17-20 pixels at the detector's input, the top of the
#: sizes it was trained on (6-20): it boxes a 2 or a 1 at a pip, 0.6-0.8 of the die, and the crop
#: there reads as no die. The learned side of jumbo dice is 0.8-0.9 of their true side (their
#: boxes), which puts them near 12 pixels at the detector's input when searched at it.
#: Before the dice's size is learned, a frame that shows fewer than two dice is searched again at
#: this size for jumbo dice too (and at :data:`FINE_SCALE` for small ones): the opening rolls of
#: two validation games (``bench_rendered_games.py --first 1228 --die-to-checker 0.8``, seeds 2237
#: and 2238, one die seen at the board's size) read there at 0.91-0.99; at 1.5 times the board's
#: die one of 2237's 1-1 reads at 0.70, below :data:`PAIR_CONFIDENCE`: no pair.
OWN_SIZE_FROM = 1.3
#: During a game (``companion watch`` without a learned size) the dice's size is learned from the
#: first frame that shows a flat pair (:func:`shows_flat_pair`): exactly two dice, none cocked,
#: each read at this probability or more...
PAIR_CONFIDENCE = 0.9
#: ... and the larger boxed at most this many times the smaller (two dice of one set).
PAIR_RATIO = 1.3


class DiceSizeError(ValueError):
    """No die to measure on the calibration frame."""


def board_die_px(field: Any, image_shape: tuple[int, ...]) -> float:
    """The die side in image pixels that the registered board ``field`` implies for a frame of
    ``image_shape`` ((H, W) or (H, W, 3)): a tournament die, 1/30 of the field's width."""
    from vision.dice import field_search_region

    return field_search_region(field, image_shape)[1]


def learn_die_scale(image_bgr: np.ndarray, field: Any, reader: Any = None,
                    board_dice: Optional[Sequence[DieReading]] = None) -> float:
    """The dice's side as a multiple of the board's die (:func:`board_die_px`), measured on a
    calibration frame ``image_bgr`` ((H, W, 3) uint8 BGR) of the registered board ``field`` with
    the dice lying flat: the median side of the dice read (``reader``, a
    :class:`vision.dice.DiceReader`, default a new one) searched at the board's die when that is
    at least :data:`LARGE_FROM`, else searched at :data:`FINE_SCALE` times the board's die when
    that is below :data:`SMALL_BELOW`, else at the board's die; clipped to :data:`SCALE_RANGE`.
    ``board_dice``: the frame's dice already read at the board's die (``reader.read(image_bgr,
    field)``), to save that pass. Raises :class:`DiceSizeError` when no die is found."""
    if reader is None:
        from vision.dice import DiceReader

        reader = DiceReader()
    board = board_die_px(field, image_bgr.shape)

    def measure(dice: Sequence[DieReading]) -> Optional[float]:
        sides = [max(d.box[2] - d.box[0], d.box[3] - d.box[1]) for d in dice if d.box is not None]
        return float(np.median(sides)) / board if sides else None

    coarse = measure(reader.read(image_bgr, field) if board_dice is None else board_dice)
    if coarse is not None and coarse >= LARGE_FROM:
        got: Optional[float] = coarse
    else:
        fine = measure(reader.read(image_bgr, field, die_px=board * FINE_SCALE))
        got = fine if fine is not None and (fine < SMALL_BELOW or coarse is None) else coarse
    if got is None:
        raise DiceSizeError("no die seen on the calibration frame to measure: show the dice flat on the board")
    return float(np.clip(got, *SCALE_RANGE))


def own_size(die_scale: Optional[float]) -> bool:
    """Whether dice of the learned ``die_scale`` (times the board's die; None: not learned) are
    searched at their own size: below :data:`OWN_SIZE_BELOW` or from :data:`OWN_SIZE_FROM` up."""
    return die_scale is not None and not OWN_SIZE_BELOW <= die_scale < OWN_SIZE_FROM


def search_die_px(field: Any, image_shape: tuple[int, ...], die_scale: Optional[float]) -> Optional[float]:
    """The die side (image pixels) to search a registered frame at: the learned ``die_scale`` times
    the board's die when the dice are searched at their own size (:func:`own_size`), else ``None``
    (the board's size, :meth:`vision.dice.DiceReader.scan`'s default)."""
    if field is None or not own_size(die_scale):
        return None
    return board_die_px(field, image_shape) * die_scale


def shows_flat_pair(dice: Sequence[DieReading]) -> bool:
    """Whether the judged dice of a registered frame (:func:`vision.cocked.judge_scan`) are a pair
    to learn the dice's size from during a game: exactly two dice, none cocked, each read at
    :data:`PAIR_CONFIDENCE` or more, the larger's box side at most :data:`PAIR_RATIO` times the
    smaller's (a die and a look-alike, or a die and two touching dice read as one, are not a pair)."""
    if len(dice) != 2 or any(d.cocked or d.box is None or d.confidence < PAIR_CONFIDENCE for d in dice):
        return False
    a, b = (max(d.box[2] - d.box[0], d.box[3] - d.box[1]) for d in dice)
    return max(a, b) <= PAIR_RATIO * min(a, b)

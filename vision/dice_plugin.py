"""Dice and cube plug-ins for :class:`vision.reader.BoardReader` (``companion read``).

The board reader calls ``dice_reader(image_bgr, field)`` and then ``cube_reader(image_bgr, field)``
on each frame. :class:`DicePlugin` serves both from one detector pass (the scan of the last frame
is kept on the instance) and judges cocked dice with :func:`vision.cocked.judge_scan`::

    plugin = DicePlugin()
    reader = BoardReader(field=field, dice_reader=plugin.dice, cube_reader=plugin.cube)

``roller`` (``"top"``/``"bottom"``, the image side of the player to roll) and ``checkers``
(``(x, y, radius)`` image pixels, for the on-checker setting) may be updated between frames.
``dice_sets`` (:class:`vision.dice_sets.DiceSets`, a board profile's): every die gets the
``owner`` whose set its colour is nearer, and the other player's set is not judged as the roll.
``die_scale`` (a board profile's, :mod:`vision.dice_size`): dice clearly smaller than a tournament
die and jumbo dice (:func:`vision.dice_size.own_size`) are searched at their own size (a second
detector pass; the cube is searched at the board's size), and judged for tilt at that size at
least (:func:`vision.cocked.roll_sizes`). Jumbo dice are read from both passes, the surer reading
of a die kept (:meth:`vision.dice.DiceReader.dice_from_scan`): each size reads some dice the other
misses.
``learn_size`` (``companion watch`` without a profile's ``die_scale``): the dice's size is learned
from the first registered frame that shows a flat pair (:func:`vision.dice_size.shows_flat_pair`),
measured as ``companion calibrate --learn-dice`` measures it, and kept for the frames after it.
Until then a frame that shows fewer than two dice at the board's size is searched again at small
and at jumbo dice's size, where a flat pair is taken as the roll (:meth:`DicePlugin._other_pair`).
``marks`` (a board profile's :class:`vision.board_marks.BoardMarks`): a die read on one of the
board's own die-like marks (a hinge screw, a print) that still looks as at calibration is no die.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any, Optional, Sequence

import numpy as np

from companion.observation import CubeReading, DieReading
from vision.cocked import CockedRules, TiltModel, judge_scan
from vision.cube import CubeReader, cube_from_scan
from vision.dice import DiceReader, as_bgr
from vision.dice_sets import DiceSets, with_owners
from vision.dice_size import FINE_SCALE, OWN_SIZE_FROM, board_die_px, learn_die_scale, search_die_px, shows_flat_pair


class DicePlugin:
    """Reads the dice (cocked flags set when a field is given) and the cube of a frame.

    ``models``: model folder (default ``vision/models``); ``rules``: :class:`CockedRules`;
    ``roller``, ``dice_sets``, ``die_scale``, ``learn_size``, ``marks``: see module docstring. Raises
    ``FileNotFoundError`` when the dice models are missing (the cube and tilt models are optional:
    without them no cube is read and no die is called tilted).
    """

    def __init__(self, models: Any = None, rules: CockedRules = CockedRules(),
                 roller: Optional[str] = None, dice_sets: Optional[DiceSets] = None,
                 die_scale: Optional[float] = None, learn_size: bool = False, marks: Any = None) -> None:
        self.reader = DiceReader(models)
        self.reader.marks = marks
        try:
            self.cube_reader: Optional[CubeReader] = CubeReader(models)
        except FileNotFoundError:
            self.cube_reader = None
        try:
            self.tilt: Optional[TiltModel] = TiltModel(models)
        except FileNotFoundError:
            self.tilt = None
        self.rules = rules
        self.roller = roller
        self.dice_sets = dice_sets
        self.die_scale = die_scale
        self.learn_size = learn_size
        self.checkers: Sequence[tuple[float, float, float]] = ()
        self._key: Optional[tuple] = None
        self._scans: dict[tuple[Optional[float], Optional[float]], Any] = {}

    def new_frame(self) -> None:
        """Forget the scan kept for "the same frame". :meth:`scan` recognises a frame by a 16x16
        pixel sample, shared between :meth:`dice` and :meth:`cube`; a caller that reads a stream
        calls this before each frame, so a die thrown between the sampled pixels of an otherwise
        unchanged picture is not missed."""
        self._key = None
        self._scans = {}

    def _frame_key(self, image: np.ndarray, field: Any) -> tuple:
        sample = np.ascontiguousarray(image[:: max(image.shape[0] // 16, 1), :: max(image.shape[1] // 16, 1)])
        return (image.shape, hashlib.blake2b(sample.tobytes(), digest_size=8).digest(), id(field))

    def scan(self, image_bgr: np.ndarray, field: Any, die_px: Optional[float] = None):
        """``(candidates, probabilities)`` of :meth:`vision.dice.DiceReader.scan` searched for dice of
        ``die_px`` image pixels (``None``: the size the board implies), reused for the same frame;
        with the dice's size learned (``die_scale``) and a field, the dice's side goes with it
        (:meth:`vision.dice.DiceReader.reread_small`)."""
        image_bgr = as_bgr(image_bgr)
        key = self._frame_key(image_bgr, field)
        if key != self._key:
            self._scans = {}
            self._key = key
        side = None if self.die_scale is None or field is None else board_die_px(field, image_bgr.shape) * self.die_scale
        if (die_px, side) not in self._scans:
            self._scans[(die_px, side)] = self.reader.scan(image_bgr, field, die_px, side)
        return self._scans[(die_px, side)]

    def dice(self, image_bgr: np.ndarray, field: Any = None) -> list[DieReading]:
        """Every die in the frame; with a ``field`` each is judged flat or cocked (reason, message)."""
        image = as_bgr(image_bgr)
        die_px = search_die_px(field, image.shape, self.die_scale)
        cands, probs = self.scan(image, field, die_px)
        if die_px is not None and self.die_scale >= OWN_SIZE_FROM:
            # jumbo dice: the cube's scan, at the board's size, reads some dice that their own misses
            more, more_probs = self.scan(image, field)
            cands, probs = list(cands) + list(more), np.vstack([probs, more_probs])
        if field is None:
            dice = self.reader.free_photo_dice(image, cands, probs, self.reader.dice_from_scan(cands, probs))
            return with_owners(image, dice, self.dice_sets)
        dice = judge_scan(image, cands, probs, self.reader, field, roller=self.roller,
                          checkers=self.checkers, rules=self.rules, tilt_model=self.tilt, dice_sets=self.dice_sets,
                          die_px=die_px)
        if self.learn_size and self.die_scale is None and len(dice) < 2:
            dice = self._other_pair(image, field, dice)
        if self.learn_size and self.die_scale is None and shows_flat_pair(dice):
            # the pair's boxes are measured, so a scale always comes back (no DiceSizeError)
            self.die_scale = learn_die_scale(image, field, self.reader, board_dice=dice)
            logging.getLogger(__name__).info("dice size learned: %.2f x a tournament die on this board",
                                             self.die_scale)
            if search_die_px(field, image.shape, self.die_scale) is not None:
                return self.dice(image, field)  # small or jumbo dice: this frame read at their size too
        return dice

    def _other_pair(self, image: np.ndarray, field: Any, dice: list[DieReading]) -> list[DieReading]:
        """Before the dice's size is learned: ``dice`` (fewer than two, read at the board's die
        size) or the first flat pair (:func:`vision.dice_size.shows_flat_pair`) that a search at
        small dice's size (:data:`vision.dice_size.FINE_SCALE` times the board's die; travel dice
        are then 12-18 pixels at the detector's input) or at jumbo dice's
        (:data:`vision.dice_size.OWN_SIZE_FROM`) shows. ``image`` (H, W, 3) uint8 BGR, ``field``
        the registered board. Searched at the board's size, travel dice are 6-7 pixels at the
        detector's input, where a die the colour of what it lies on can be missed, and a jumbo
        die's 2 is boxed at a pip and read as no die: the opening roll, one die on each side,
        would show one die, which is not a roll."""
        for scale in (FINE_SCALE, OWN_SIZE_FROM):
            px = board_die_px(field, image.shape) * scale
            cands, probs = self.scan(image, field, px)
            pair = judge_scan(image, cands, probs, self.reader, field, roller=self.roller, checkers=self.checkers,
                              rules=self.rules, tilt_model=self.tilt, dice_sets=self.dice_sets, die_px=px)
            if shows_flat_pair(pair):
                return pair
        return dice

    def cube(self, image_bgr: np.ndarray, field: Any = None) -> Optional[CubeReading]:
        """The doubling cube in the frame, or ``None``; always searched at the size the board
        implies (a cube is found as a large die: searched at small dice's size, it is larger than
        any die the detector knows)."""
        if self.cube_reader is None:
            return None
        cands, probs = self.scan(image_bgr, field)
        return cube_from_scan(as_bgr(image_bgr), cands, probs, field, self.cube_reader, self.reader)

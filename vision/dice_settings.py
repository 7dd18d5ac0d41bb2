"""The thresholds and choices of the dice reader (:class:`DiceSettings`), with the evidence
each was chosen on.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from vision.dice_patches import VALUE_PATCH

__all__ = ["DiceSettings"]


@dataclasses.dataclass
class DiceSettings:
    """Thresholds of the dice reader (all probabilities in 0..1).

    ``peak``: minimum detector heatmap peak (free photos); ``field_peak``: the same with a
    registered board (lower: a die of the board's colour, e.g. a black die on the bar, peaks
    weakly; chosen on 150 validation boards, seed 4242: dice found 94.3% -> 96.7%, no more false
    dice; the classifier still decides), of which the ``field_weak`` strongest below ``peak`` are
    kept and read only when the stronger ones give fewer than two dice (all of them, read every
    frame, made a registered frame 1.7 times slower);
    ``accept``: minimum probability of the die's value
    (so "not a die" and "cube" together stay below it); ``field_die_input_px``: with a registered
    board the detector runs at the scale where a die is this many pixels (10 for the shipped
    ``field_detector``, trained for 8.5-13; 12 for the main detector, trained for 11-44);
    ``merge``: candidates closer than ``merge`` x size are one die;
    ``turns``: the classifier reads each patch whose top probability is below ``sure`` again
    turned by 90, 180, 270 degrees (``turns`` readings in all) and averages (a die's value does
    not change when it turns); ``wider``: those unsure patches are also read cropped this many
    times larger (more context around a die whose size the detector underestimated), each at
    ``turns`` turns, and all readings averaged (only those whose values 1..6 together reach
    ``wider_min``: the others cannot become dice, and whose best value stays below ``wider_max``:
    the others are dice already); ``accept_peak`` / ``peak_accept``: a candidate whose
    detector peak is at least ``accept_peak`` is kept when its value's probability reaches
    ``peak_accept`` (instead of ``accept``), still above "not a die" and "cube" (the detector's
    confidence stands in for part of the classifier's); ``photo_peak_accept``: ``peak_accept`` for
    the free-photo detector's candidates (0.5, equal to ``accept``: the rule is off on free photos,
    where the free-photo detector peaks higher and 0.4 reads more values wrong);
    ``pyramid``: the longer sides (pixels) a
    free photo is resized to for the detector (see :func:`vision.dice_pyramid.pyramid_scales`; 272 between 192 and 384,
    chosen on fold 1: dice found 1206 -> 1219 of 1263, one more wrong value); ``pyramid_fixed``:
    how many of the first levels are always searched; ``finest_max_scale``: levels beyond those
    only when they shrink the photo to this scale or less (1.0: also at the photo's own
    resolution, where pips are proposed as small dice; used for mining training negatives);
    ``fine_below``, ``fine_peak``: a large photo's finer levels are merged with the fixed ones
    when the fixed levels read no die or a die smaller than ``fine_below`` pixels at the finest
    fixed level's input (small dice); when they read only bigger dice, the finer levels' candidates
    count only if one of them peaks at ``fine_peak`` or more away from every die read (a die the
    fixed levels missed), and then never inside a die read (see :meth:`vision.dice.DiceReader._around_dice`).
    Searched always and merged with the rest, the finer level of a photo three times larger than
    the labelled ones proposed pips and faces of its big dice, which pushed the dice out of the
    merge (matteop65's held-out photos: 72.5% found, 83% right); ``benchmarks/dice_photo_sizes.py``;
    ``level_sizes``:
    each pyramid level keeps the candidates whose side at the detector's input is in this range
    (pixels; the shipped detector is trained for 11..44), the finest level also smaller ones and the
    coarsest also larger ones; ``nested``: a reading inside another at least this many times larger is dropped (a pip read
    as a die; see :func:`vision.dice.thin_dice`); ``value_patch``: the classifier's patch side (pixels; 32
    for the shipped model); ``field_detector``: file name (in the
    models folder) of the detector used instead of ``dice_detector.onnx`` when the die size is
    known (a registered board), shrunk with :func:`vision.dice_pyramid.resize` (an integer area step then bilinear, as
    in its training), at ``field_die_input_px`` (the two go together): the shipped
    ``dice_detector_field.onnx`` runs in float32, so it reads alike on every CPU (an 8-bit
    quantization took 0.56 times as long on a CPU with VNNI, but onnxruntime's 8-bit kernels for
    CPUs with AVX2 alone saturate and read otherwise: benchmarks/RESULTS.md, "Dice of every
    size"); it is trained on 900 rendered boards
    with dice of 0.28..0.85 of a checker's diameter and the fold-1 photos, dice of 6..20 pixels at
    its input, and runs where a tournament die (1/30 of the field's width) is 10 pixels, 0.7x the
    area of the main detector's 12 (vision/models/README.md; ``benchmarks/dice_sizes.py``); None:
    the main detector (run it at 12 pixels, shrunk with :func:`vision.dice_pyramid.area_resize`);
    ``field_large``, ``field_large_sure``: with a registered board, a candidate the detector sizes
    over ``field_large`` times the board's die size whose most likely value stays below
    ``field_large_sure`` is read again at the board's die size, and that reading is kept when one
    value reaches ``field_large_sure`` (a die lying on a checker is sized as the checker and its
    patch read as a cube or no die; None: off). Chosen on ``benchmarks/dice_sizes.py --boards 200
    --seed 6100`` with a detector of the shipped recipe trained without the touching boards:
    flat rolls read exactly 580 -> 588 of 596, the dice 0.28..0.44 of a checker 184 -> 192 of 193,
    cube values unchanged;
    ``sibling_size``: with a registered board, when a frame reads exactly one die, the candidates
    not read as dice whose size differs from that die's by more than this factor either way are
    read again at that die's size (the two dice of a roll are one size; a die the colour of the
    point under it is sized poorly), and that reading is kept when one value reaches
    ``field_large_sure`` (None: off);
    ``sibling_views``: the sizes (times that die's) at which those candidates are read again, the
    surest reading kept: a die on a point of its own colour is boxed small and off its centre,
    and a crop of the die's size can show half of a 6 (read as a 3) where one 1.25 times larger
    shows all of it. Chosen on the validation boards: ``dice_touching.py --boards 150 --seed
    1100`` touching pairs 137 -> 138 of 150, nothing lost; ``dice_sizes.py --boards 60 --seed
    6100`` unchanged;
    ``field_ones``: with a registered board, when a frame reads fewer than two dice, the
    candidates not read as dice go through ``recentre_ones`` too (a small one lying across a
    point's tip is centred by the detector between its pip and the tip, and read there as no
    die). Chosen on the validation games (``bench_rendered_games.py --games 12 --style each
    --camera varied --dice-scatter --die-to-checker 0.3``, games 0-11): flat still frames read
    exactly 149 -> 151 of 166; ``dice_sizes.py --boards 60 --seed 6100``, ``dice_touching.py
    --boards 150 --seed 1100 --learn-size`` and render_roll_on_board seed 4242 unchanged;
    ``field_small``, ``small_views``: with a registered board and the dice's side learned
    (:mod:`vision.dice_size`), a candidate read as a die whose size is below ``field_small``
    times that side is read again at the side times each of ``small_views``, centred on the
    die's outline, and the surest reading kept when surer than the first
    (:meth:`vision.dice.DiceReader.reread_small`; None: off); not when another die read lies
    within the side (two touching dice). Checked on the validation games
    (``bench_rendered_games.py --games 12 --style each --camera varied --dice-scatter``,
    games 0-11, ``--die-to-checker`` 0.8 and 0.3: unchanged, flat dice exact 166/166 each) and
    ``dice_touching.py --boards 150 --seed 1100 --learn-size`` (touching pairs 138/150 as
    before; 136 without the touching guard); on the jumbo games looked at for it (seeds
    1156-1167 and 1192-1203) flat dice exact 166 -> 167 of 174 and 168 -> 178 of 178;
    ``small_unread``: the two candidates boxed that small and not read as dice whose values 1..6
    together are likeliest, from this up, are read again the same way (None: none): a real die
    the colour of what it lies on, or against a checker, is boxed small and read as no die of
    clear value. Chosen on real dice of the networks' training fold pasted on the real board
    photos (``benchmarks/real_dice_on_boards.py --fold 1``, the size known): 577 -> 581 of 624
    dice read, no false die (the limit of two bounds the cost on a busy board);
    ``unsure_below``, ``unsure_views``: with a registered board, a candidate read as a die whose
    most likely value stays below ``unsure_below`` is read again at its size times each of
    ``unsure_views``, centred on the die's outline, and the surest reading kept when surer than
    the first (:meth:`vision.dice.DiceReader.reread_unsure`; None: off); not when another die
    read lies within the largest view. A die on a point of its own colour is boxed small and off
    its centre, its crop showing half of a 6 (read as a 3, game 1018 of the rendered games), and a
    jumbo 2 turned 45 degrees is boxed at a pip (read as a 1, game 1238). Checked on the validation
    seeds (``dice_sizes.py --boards 60 --seed 6100``, ``dice_touching.py --boards 150 --seed
    1100``): the same figures with and without the rule, with one view (1.25) or two;
    ``unsure_values``: a candidate not read as a die whose values 1..6 together reach this is read
    again the same way (None: not): a real die against a checker or another die is read at its
    box as a die of two likely values. Chosen on real dice of the networks' training fold pasted
    on the real board photos (``benchmarks/real_dice_on_boards.py --fold 1``, a validation set):
    dice read 554 -> 560 of 624 as read, 572 -> 577 with their size known, no false die either
    way; with the classifier it replaced, 0.5 and 0.6 read more dice but added 6 false ones with
    the size known, 0.7 none, 0.8 fewer dice;
    ``turn_cubes``: with a registered board, also read turned the unsure patches whose most likely
    class is the doubling cube (off: the cube network reads those itself, at four turns when
    unsure; measured on 400 rendered boards and the 9 board photos: the same dice, cocked calls and
    cubes found or one more, about 0.5 ms less per frame);
    ``field_turn_min``: with a registered board, an unsure patch is read turned only when its
    values 1..6 together reach this (None: every unsure patch): a real board's checkers, point
    tips and rails give 13-46 candidates a frame, most of them read as no die at 0.6-0.9, and
    their turned re-reads were half of the frame's dice time. Checked on the validation seeds
    (``dice_sizes.py --boards 60 --seed 6100``, ``dice_touching.py --boards 150 --seed 1100
    --learn-size``, the travel-dice games 0-11): the same figures at 0.1, 0.3 and 0.5 (the
    games at 0.3); on the nine real board photos the same dice and cubes with 275 patches
    classified instead of 470. Held out (``dice_sizes.py --boards 200 --seed 5100``,
    ``dice_touching.py --boards 300 --seed 2600 --learn-size``, travel-dice games 2072-2083): the
    same figures; a real 1280x720 frame's dice 24.7 -> 19.8 ms median (``bench_read.py --dice``);
    ``max_candidates``: the strongest
    detector peaks kept per frame; ``recentre_ones``: on free photos, a candidate whose most likely
    value is 1 and whose values 1..6 together reach this probability is moved to its pip
    (:func:`vision.top_face.pip_centre`, the centre of a one's top face) and read again there (the
    detector centres an oblique die between its top face and its body; 0 turns this off);
    ``photo_classifier``: file name (in the models folder) of the value classifier for free photos
    (no registered board), None to use ``dice_classifier.onnx`` everywhere (the shipped one is
    wider, 24 channels, trained with milder colour changes and with the detector's own candidates
    on labelled dice as extra positives: more dice found on the held-out photos,
    vision/models/README.md; registered boards keep the faster ``dice_classifier.onnx``,
    within the 10 ms budget);
    ``photo_value_patch``: that classifier's patch side (pixels);
    ``second_views``: on free photos, a merged candidate not read as a die whose values 1..6
    together reach this probability has the candidates the merge dropped around it (other pyramid
    levels' views of the spot, of other centres and sizes) read too, those not near a die already
    read; such a second view becomes a die only at ``second_accept`` (not by the detector-peak
    rule; None: off; see :meth:`vision.dice.DiceReader.second_views`). Chosen on both folds, each read by the
    free-photo models that never saw it (fold 0 / fold 1): dice found matteop65 +4 / +1,
    nell-byler +5 / +11, no more wrong values, one more false die (a side face) in fold 0's
    matteop65; at 0.5 instead of 0.6 two and four more dice but a false die on a board photo read
    without registration (test2.jpg, a stack of checkers read "6" at 0.58);
    ``second_size_ratio``: the candidates around a spot not read as a die whose sizes differ from
    its candidate's this many times are read whatever its values' probability (a big
    "not a die" over a small die: board photo test1.jpg read without registration lost its 5
    so with the detector trained on every photo; the folds' figures do not change);
    ``detector``: file name (in the models folder) of the detector of free photos (and of
    registered boards when ``field_detector`` is None); the shipped one and the free-photo
    classifier are trained on every labelled photo, their copies trained without fold 0 are
    ``heldout/dice_detector.onnx`` and ``heldout/dice_classifier_photo.onnx`` (for held-out
    figures: ``python -m vision.evaluate_dice --fold 0 --held-out``).
    ``front_faces``: on free photos, drop a reading that is the front face of a die seen at an
    angle, or read the one on top of it (:func:`vision.front_faces.drop_front_faces`);
    ``face_centres``: on free photos, a die of value 2..6 is centred on its top face
    (:func:`vision.top_face.face_centre`, the mean of its pips) when that lies within this many
    sides of where it was read (0: off; a detector that never saw oblique dice centres them on
    their outline, top and front face together: matteop65 read by models trained without it,
    found 97.8% -> 98.4%, false dice 6.9% -> 6.3%; the folds' figures do not change).
    ``pip_agree``: on free photos, a candidate turned down (its most likely value at least this
    probable, its detector peak at least ``pip_agree_peak``) becomes a die when its pips, counted
    (:func:`vision.pips.face_pips`), are exactly that value (None: off; dice unlike those the
    classifier was trained on, vision/models/README.md).
    ``touching``: with a registered board, when the dice read are none, one or three, a pair of
    touching dice read as one is looked for (:func:`vision.dice_touching.touching_dice`): split
    into two or given a neighbour when every new die's value is read at this probability or more
    (None: off). Chosen on 100 boards of ``benchmarks/dice_touching.py --seed 1100``: touching
    pairs exactly right 70 (off) -> 90 / 88 / 87 at 0.5 / 0.6 / 0.7, the die alone 94 -> 90 / 92 /
    94 (halves of a six or a one read as two threes); separated pairs and bare boards unchanged.
    ``wider``, ``accept_peak`` and ``peak_accept`` were chosen on fold 1
    (training photos): the most dice found with no more wrong values or false dice.
    """

    peak: float = 0.25
    field_peak: float = 0.1
    field_weak: int = 8
    field_die_input_px: float = 10.0
    accept: float = 0.5
    merge: float = 0.6
    turns: int = 4
    sure: float = 0.9
    wider: tuple[float, ...] = (1.1, 1.25)
    wider_min: float = 0.3
    wider_max: float = 0.7
    accept_peak: float = 0.7
    peak_accept: float = 0.4
    pyramid: tuple[int, ...] = (192, 272, 384, 768)
    pyramid_fixed: int = 3
    finest_max_scale: float = 0.77
    fine_below: float = 16.0
    fine_peak: float = 0.5
    level_sizes: tuple[float, float] = (6.0, 48.0)
    nested: float = 2.5
    turn_cubes: bool = False
    field_turn_min: Optional[float] = 0.3
    value_patch: int = VALUE_PATCH
    field_detector: Optional[str] = "dice_detector_field.onnx"
    max_candidates: int = 96
    max_dice: int = 64
    recentre_ones: float = 0.2
    photo_classifier: Optional[str] = "dice_classifier_photo.onnx"
    photo_value_patch: int = VALUE_PATCH
    detector: str = "dice_detector.onnx"
    second_views: Optional[float] = 0.1
    second_accept: float = 0.6
    second_size_ratio: float = 2.0
    photo_peak_accept: float = 0.5
    front_faces: bool = True
    face_centres: float = 0.5
    pip_agree: Optional[float] = 0.3
    pip_agree_peak: float = 0.5
    touching: Optional[float] = 0.7
    field_large: Optional[float] = 1.3
    field_large_sure: float = 0.9
    sibling_size: Optional[float] = 1.15
    sibling_views: tuple[float, ...] = (1.0, 1.25)
    field_small: Optional[float] = 0.8
    small_unread: Optional[float] = 0.3
    small_views: tuple[float, ...] = (1.0, 1.2, 1.4)
    field_ones: bool = True
    unsure_below: Optional[float] = 0.7
    unsure_views: tuple[float, ...] = (1.25, 1.5)
    unsure_values: Optional[float] = 0.7

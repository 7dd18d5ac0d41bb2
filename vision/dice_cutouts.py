"""Real dice cut out of labelled dice photos and pasted onto board pictures: the dice of
``../shared/data/dice`` (:mod:`vision.dice_data`) on boards, for training the registered-board
networks (``vision.training.train_dice --real-on-boards``) and for measuring them on real board
photos (``benchmarks/real_dice_on_boards.py``)."""

from __future__ import annotations

import dataclasses
import math
import pathlib
from typing import Callable, Optional, Sequence

import numpy as np


@dataclasses.dataclass(frozen=True)
class CutDie:
    """One real die cut out of its photo: ``patch`` (h, w, 3) uint8 BGR, ``alpha`` (h, w) float32
    0..1 (1 on the die), ``side`` the die's side in the patch's pixels (the square root of the
    alpha's area), ``value`` 1..6, ``source`` the photo's file name."""

    patch: np.ndarray
    alpha: np.ndarray
    side: float
    value: int
    source: str


def cut_die(image: np.ndarray, box: np.ndarray, value: int, source: str = "") -> Optional[CutDie]:
    """The die whose labelled ``box`` (x0, y0, x1, y1 pixels) lies in ``image`` ((H, W, 3) uint8
    BGR), cut out by OpenCV's GrabCut (initialised with the box, 4 iterations) inside the box
    grown by a quarter of its side, its largest region kept and its holes (pips the colour of
    the background) filled, the edge softened by a pixel. None when the cut is not a die's shape:
    its area under 0.4 or over 0.97 of the box's (a die turned 45 degrees fills half its box)."""
    import cv2

    x0, y0, x1, y1 = (float(v) for v in box)
    side = max(x1 - x0, y1 - y0)
    if side < 8:
        return None
    m = 0.25 * side
    h, w = image.shape[:2]
    rx0, ry0 = max(int(x0 - m), 0), max(int(y0 - m), 0)
    rx1, ry1 = min(int(math.ceil(x1 + m)), w), min(int(math.ceil(y1 + m)), h)
    roi = np.ascontiguousarray(image[ry0:ry1, rx0:rx1])
    rect = (int(x0 - rx0) + 1, int(y0 - ry0) + 1, max(int(x1 - x0) - 2, 1), max(int(y1 - y0) - 2, 1))
    mask = np.zeros(roi.shape[:2], np.uint8)
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    try:
        cv2.grabCut(roi, mask, rect, bgd, fgd, 4, cv2.GC_INIT_WITH_RECT)
    except cv2.error:
        return None
    fg = ((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)).astype(np.uint8)
    contours, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    solid = np.zeros_like(fg)
    cv2.drawContours(solid, [max(contours, key=cv2.contourArea)], -1, 1, thickness=-1)
    area = float(solid.sum())
    if not 0.4 <= area / ((x1 - x0) * (y1 - y0)) <= 0.97:
        return None
    alpha = cv2.GaussianBlur(solid.astype(np.float32), (3, 3), 0)
    return CutDie(roi, alpha, math.sqrt(area), int(value), source)


def cut_dice(items: Sequence) -> list[CutDie]:
    """Every die of ``items`` (:class:`vision.dice_data.LabelledImage`, boxes covering the die:
    :func:`vision.dice_data.with_die_boxes`) that :func:`cut_die` cuts out, in their order; photos
    that do not load are passed over."""
    import cv2

    out = []
    for item in items:
        image = cv2.imread(str(item.path))
        if image is None:
            continue
        for box, value in zip(item.boxes, item.values):
            die = cut_die(image, box, int(value), item.path.name)
            if die is not None:
                out.append(die)
    return out


def paste_die(image: np.ndarray, die: CutDie, centre: tuple[float, float], side: float, yaw_deg: float,
              shadow: float = 0.2, shadow_deg: float = 45.0) -> None:
    """Paste ``die`` into ``image`` ((H, W, 3) uint8 BGR, changed in place) centred at ``centre``
    (image pixels), its side ``side`` pixels, turned by ``yaw_deg``, over a soft shadow
    ``shadow`` darker (0: none) cast 0.14 of its side toward ``shadow_deg`` (image degrees, 0
    right, 90 down; the default: a tenth of its side down and right)."""
    import cv2

    k = side / die.side
    ph, pw = die.alpha.shape
    big = int(math.ceil(max(ph, pw) * k * 1.5)) + 4
    rot = cv2.getRotationMatrix2D((pw / 2, ph / 2), yaw_deg, k)
    ys, xs = np.nonzero(die.alpha > 0.5)
    c = rot @ np.array([xs.mean(), ys.mean(), 1.0])  # the die's own centre, not the patch's
    rot[:, 2] += (big / 2 - c[0], big / 2 - c[1])
    patch = cv2.warpAffine(die.patch, rot, (big, big), flags=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    alpha = cv2.warpAffine(die.alpha, rot, (big, big), flags=cv2.INTER_LINEAR)
    t = math.radians(shadow_deg)
    reach = 0.1 * math.sqrt(2) * side
    shift = np.float32([[1, 0, reach * math.cos(t)], [0, 1, reach * math.sin(t)]])
    dark = cv2.GaussianBlur(cv2.warpAffine(alpha, shift, (big, big)), (0, 0), max(0.12 * side, 0.5)) * shadow
    x0, y0 = int(round(centre[0] - big / 2)), int(round(centre[1] - big / 2))
    xa, ya = max(x0, 0), max(y0, 0)
    xb, yb = min(x0 + big, image.shape[1]), min(y0 + big, image.shape[0])
    if xb <= xa or yb <= ya:
        return
    sl = (slice(ya - y0, yb - y0), slice(xa - x0, xb - x0))
    region = image[ya:yb, xa:xb].astype(np.float32) * (1 - dark[sl][..., None])
    a = alpha[sl][..., None]
    image[ya:yb, xa:xb] = np.clip(region * (1 - a) + patch[sl] * a, 0, 255).astype(np.uint8)


#: How the two real dice of a training board lie (:func:`real_dice_boards`): apart, face to face
#: (0-2 pixels between them), one against a checker's rim (0-2 pixels from it).
PLACEMENTS = ("apart", "touching", "by a checker")


def support(side: float, yaw_deg: float, toward_deg: float) -> float:
    """How far a square die of ``side`` pixels, turned by ``yaw_deg`` as :func:`paste_die` turns
    it, reaches from its centre toward the image direction ``toward_deg`` (degrees, 0 right, 90
    down): ``side / 2`` along its axes, up to ``side / sqrt(2)`` along its diagonals."""
    a = math.radians(toward_deg + yaw_deg)
    return 0.5 * side * (abs(math.cos(a)) + abs(math.sin(a)))


def against_checker(checkers: np.ndarray, radius: float, side: float, yaw_deg: float, rng: np.random.Generator,
                    allowed: Callable[[np.ndarray], bool] = lambda at: True, tries: int = 50) -> Optional[np.ndarray]:
    """The centre (2,) image pixels of a die of ``side`` pixels turned by ``yaw_deg`` lying against
    one of the ``checkers`` ((N, 2) image centres, each ``radius`` pixels), 0-2 pixels from its rim
    on a random side, clear of the other checkers (its corners' reach and a pixel) and where
    ``allowed`` says; None when ``tries`` draws find no such place."""
    for _ in range(tries if len(checkers) else 0):
        c = int(rng.integers(len(checkers)))
        toward = float(rng.uniform(0, 360))
        reach = radius + support(side, yaw_deg, toward + 180) + float(rng.uniform(0, 2))
        at = checkers[c] + reach * np.array([math.cos(math.radians(toward)), math.sin(math.radians(toward))])
        others = np.hypot(*(np.delete(checkers, c, axis=0) - at).T)
        if (others >= radius + side / math.sqrt(2) + 1).all() and allowed(at):
            return at
    return None


def real_dice_boards(n: int, rng: np.random.Generator, cut: Sequence[CutDie],
                     die_to_checker: tuple[float, float] = (0.28, 0.85), hinges: float = 0.7,
                     placements: tuple[float, float, float] = (1.0, 0.0, 0.0)) -> list:
    """``n`` rendered boards (:func:`vision.render_roll.random_board_scene`, half of them of any
    colours with marked checkers) each with two of the real dice ``cut`` (:func:`cut_dice`)
    pasted flat, turned, at the board's dice side (``die_to_checker`` low and high times a
    checker's diameter, each die 0.9-1.1 of it) over shadows of any strength (0-0.35) and
    direction, the share ``hinges`` (0..1) of the boards with hinges on the bar
    (:func:`vision.render_hinges.draw_bar_hinges`). ``placements``: the shares of the boards
    whose dice lie as :data:`PLACEMENTS` says (normalised): apart (clear of the checkers or on
    top of one, 1.5 sides or more apart), touching (the second die face to face with the first,
    0-2 pixels between them, turned alike within 4 degrees) or one die against a checker's rim
    (0-2 pixels from it, clear of the others). Returns [(image (720, 1280, 3) uint8 BGR,
    :class:`vision.dice_data.LabelledImage`)] (dataset ``"real-on-board"``, each box the die's
    side around its centre; a board where no place was found for a die keeps fewer boxes).
    Raises ``ValueError`` when ``cut`` is empty or ``placements`` has no positive share."""
    from vision.dice_data import LabelledImage
    from vision.render_hinges import draw_bar_hinges
    from vision.render_roll import random_board_scene

    if not cut:
        raise ValueError("no real die to paste: the photos' dice did not cut out")
    shares = np.clip(np.asarray(placements, float), 0, None)
    if shares.shape != (len(PLACEMENTS),) or shares.sum() <= 0:
        raise ValueError(f"placements: {len(PLACEMENTS)} shares, one of them positive, for {PLACEMENTS}")
    shares = shares / shares.sum()
    out = []
    for k in range(n):
        scene = random_board_scene(rng, die_to_checker, bool(rng.random() < 0.5))
        image, field = scene.image, scene.field
        if hinges and rng.random() < hinges:
            draw_bar_hinges(image, field, rng)
        fw, fh = field.size
        checkers = np.array([c[:2] for c in scene.checkers], float).reshape(-1, 2)
        r = scene.checkers[0][2] if scene.checkers else 0.0
        placement = PLACEMENTS[int(rng.choice(len(PLACEMENTS), p=shares))]
        spots: list[tuple[float, float, float]] = []  # (x, y, side) image pixels of the dice placed
        values: list[int] = []
        dice = [cut[int(rng.integers(len(cut)))] for _ in range(2)]
        sides = [scene.die_px * float(rng.uniform(0.9, 1.1)) for _ in range(2)]
        yaws = [float(rng.uniform(0, 90)) for _ in range(2)]

        def on_field(at: np.ndarray) -> bool:
            f = field.to_field(np.asarray(at, float)[None])[0]
            return 0.03 * fw <= f[0] <= 0.97 * fw and 0.05 * fh <= f[1] <= 0.95 * fh and field.half_of(float(f[0])) is not None

        def clear(at: np.ndarray, side: float) -> bool:
            near = np.hypot(*(checkers - at).T) if len(checkers) else np.zeros(0)
            return bool((near >= r + 0.75 * side).all())

        def open_spot(side: float) -> Optional[np.ndarray]:
            for _ in range(50):
                x = float(rng.uniform(0.03, 0.97)) * fw
                if field.half_of(x) is None:
                    continue
                at = field.to_image(np.array([[x, float(rng.uniform(0.05, 0.95)) * fh]]))[0]
                near = np.hypot(*(checkers - at).T) if len(checkers) else np.zeros(0)
                on_one = bool((near <= 0.5 * r).any()) and placement == "apart"
                apart = all(math.hypot(at[0] - sx, at[1] - sy) >= 1.5 * side for sx, sy, _ in spots)
                if (clear(at, side) or on_one) and apart:
                    return at
            return None

        for j in range(2):
            at = None
            if placement == "touching" and j == 1 and spots:
                yaws[1] = yaws[0] + float(rng.uniform(-4, 4))
                theta = -yaws[0] + 90 * int(rng.integers(4))
                reach = 0.5 * (sides[0] + sides[1]) + float(rng.uniform(0, 2))
                cand = np.array(spots[0][:2]) + reach * np.array([math.cos(math.radians(theta)), math.sin(math.radians(theta))])
                if on_field(cand) and clear(cand, sides[1]):
                    at = cand
            elif placement == "by a checker" and j == 0:
                at = against_checker(checkers, r, sides[0], yaws[0], rng, on_field)
            if at is None:
                at = open_spot(sides[j])
            if at is None:
                continue
            paste_die(image, dice[j], (float(at[0]), float(at[1])), sides[j], yaws[j],
                      shadow=float(rng.uniform(0.0, 0.35)), shadow_deg=float(rng.uniform(0, 360)))
            spots.append((float(at[0]), float(at[1]), sides[j]))
            values.append(dice[j].value)
        boxes = [[x - s / 2, y - s / 2, x + s / 2, y + s / 2] for x, y, s in spots]
        h, w = image.shape[:2]
        out.append((image, LabelledImage("real-on-board", pathlib.Path(f"real_on_board_{k}.png"),
                                         np.array(boxes, float).reshape(-1, 4), np.array(values, np.int64), (w, h))))
    return out

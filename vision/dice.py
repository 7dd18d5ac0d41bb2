"""Find dice in a frame and read the pips on their top faces.

Two small networks run by onnxruntime (:mod:`vision.onnx_model`; models in ``vision/models``, rebuilt by
``python -m vision.training.train_dice``):

1. a fully convolutional detector gives a heatmap of die centres and each die's size at stride 4.
   Without a registered board it runs on an image pyramid (long side 192, 272, 384 and, for frames
   of at least 1000 pixels, 768, whose candidates count where the coarser levels leave room for
   small dice) so dice from about 10 to 200 pixels are found; with a
   ``field`` (see :mod:`vision.registration`) a detector trained for registered boards
   (``dice_detector_field.onnx``) runs once on the board's
   region at the scale where a die is about 10 pixels;
2. a classifier reads a 32x32 patch around each centre: pip value 1..6, "not a die" or "doubling
   cube"; the softmax probability of the value is the reading's confidence.

Cocked dice are judged separately (:mod:`vision.cocked`), which needs the field.
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
from typing import Any, Optional, Sequence

import numpy as np

from companion.observation import DieReading
from vision.dice_patches import DETECT_DIE_PX, STRIDE, crop_patch, detector_blob, patches_blob
from vision.dice_pyramid import area_resize, pyramid_scales, resize
from vision.dice_settings import DiceSettings
from vision.onnx_model import load_onnx

MODELS = pathlib.Path(__file__).resolve().parent / "models"


class ImageError(ValueError):
    """The image is not a (H, W, 3) uint8 BGR array (or a (H, W) grey one)."""


@dataclasses.dataclass(frozen=True)
class Candidate:
    """A die centre proposed by the detector: ``center`` (x, y) and ``size`` (die side) in image
    pixels, ``score`` the heatmap peak in 0..1; ``outline_center``: where the detector put the
    die's centre when ``center`` was moved to its top face (:meth:`DiceReader.recentre_ones`), the
    centre of the reading's box; None when not moved. ``second``: a second view of a spot whose
    first reading was not a die (:meth:`DiceReader.second_views`), accepted only at
    :class:`DiceSettings` ``second_accept``. ``photo``: proposed by the free-photo detector
    (:class:`DiceSettings` ``detector``; its peaks follow ``photo_peak_accept``)."""

    center: tuple[float, float]
    size: float
    score: float
    outline_center: Optional[tuple[float, float]] = None
    second: bool = False
    photo: bool = False


def as_bgr(image: Any) -> np.ndarray:
    """Check and return ``image`` as (H, W, 3) uint8 BGR; greys are expanded.

    Raises :class:`ImageError` for anything else (wrong dtype, shape, empty).
    """
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise ImageError("the image must be a uint8 numpy array")
    if image.ndim == 2:
        image = np.repeat(image[:, :, None], 3, axis=2)
    if image.ndim != 3 or image.shape[2] not in (3, 4) or image.shape[0] < 8 or image.shape[1] < 8:
        raise ImageError(f"the image must be (H, W, 3) with H, W >= 8, got shape {image.shape}")
    return image[:, :, :3]


def clear_of_dice(cands: Sequence[Candidate], read: Sequence[int], k: int, radius: float) -> bool:
    """Whether no other candidate of ``read`` (indices into ``cands`` read as dice) has its centre
    within ``radius`` image pixels of candidate ``k``'s outline centre (its centre when it was not
    moved to a pip): a crop of that radius around ``k`` would take in no other die."""
    x, y = cands[k].outline_center or cands[k].center
    return all(math.hypot(x - cands[j].center[0], y - cands[j].center[1]) >= radius for j in read if j != k)


class DiceReader:
    """Holds the networks; :meth:`read` turns a frame into :class:`DieReading` s.

    ``models``: folder with the detector (:class:`DiceSettings` ``detector``),
    ``dice_classifier.onnx`` and the free-photo classifier (``photo_classifier``; default
    ``vision/models``). Raises ``FileNotFoundError`` when a model file is missing.
    Not thread-safe (its scratch state); use one reader per thread. ``marks``: the board's own
    die-like marks (:class:`vision.board_marks.BoardMarks`, a profile's ``board_marks``) or None;
    a candidate read as a die on a mark that still looks as at calibration is "not a die"
    (:meth:`unmark`, registered boards only).
    """

    def __init__(self, models: pathlib.Path | str | None = None,
                 settings: DiceSettings | None = None) -> None:
        folder = pathlib.Path(models) if models is not None else MODELS
        self.models_dir = folder
        self.settings = settings or DiceSettings()
        self.marks: Any = None

        def model(name: str) -> Any:
            path = folder / name
            if not path.is_file():
                raise FileNotFoundError(f"dice model missing: {path}")
            return load_onnx(path)

        self.detector = model(self.settings.detector)
        self.classifier = model("dice_classifier.onnx")
        st = self.settings
        self.field_detector = model(st.field_detector) if st.field_detector else self.detector
        if st.photo_classifier:
            self.photo_classifier = model(st.photo_classifier)
        else:
            self.photo_classifier = self.classifier

    # ------------------------------------------------------------------ detection
    def detect(self, image_bgr: np.ndarray, scale: float,
               roi: Optional[tuple[int, int, int, int]] = None,
               sizes: Optional[tuple[float, float]] = None, field: bool = False) -> list[Candidate]:
        """Die centre candidates from one detector pass over ``image_bgr`` (optionally the
        ``roi`` ``(x0, y0, x1, y1)``) resized by ``scale``; coordinates in full-image pixels.
        ``sizes``: keep only candidates whose side at the detector's input is in this range
        (pixels; a pyramid level outside the sizes it was trained for misjudges them). ``field``:
        use the registered-board detector (:class:`DiceSettings` ``field_detector``)."""
        import cv2

        x0, y0 = 0, 0
        img = image_bgr
        if roi is not None:
            x0, y0, x1, y1 = roi
            img = image_bgr[y0:y1, x0:x1]
        h, w = img.shape[:2]
        sw, sh = max(int(round(w * scale)), 16), max(int(round(h * scale)), 16)
        if field and self.settings.field_detector:
            img = resize(img, (sw, sh))
        elif field and scale < 1:
            img = area_resize(img, (sw, sh))
        elif (sw, sh) != (w, h):
            img = cv2.resize(img, (sw, sh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        sx, sy = sw / w, sh / h
        net = self.field_detector if field else self.detector
        out = net.run(detector_blob(img))[0]
        logits = out[0]
        heat = 1.0 / (1.0 + np.exp(-logits))
        floor = self.settings.field_peak if field else self.settings.peak
        peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= floor)
        ys, xs = np.nonzero(peaks)
        if not len(ys):
            return []
        # each peak's centre: the heat-weighted mean position of its 3x3 window (cut at the edges)
        pad = np.pad(heat, 1)
        win = np.stack([pad[ys + dy, xs + dx] for dy in range(3) for dx in range(3)], axis=1).astype(np.float64)
        offs = np.arange(3, dtype=np.float64) - 1
        wsum = win.sum(axis=1)
        my = ys + (win.reshape(-1, 3, 3).sum(axis=2) @ offs) / wsum
        mx = xs + (win.reshape(-1, 3, 3).sum(axis=1) @ offs) / wsum
        size = np.exp(np.clip(out[1, ys, xs].astype(np.float64), -3, 3)) * DETECT_DIE_PX
        keep = np.ones(len(ys), bool) if sizes is None else (sizes[0] <= size) & (size <= sizes[1])
        px, py = (mx + 0.5) * STRIDE - 0.5, (my + 0.5) * STRIDE - 0.5
        side = math.sqrt(sx * sy)
        return [Candidate((x0 + float(px[k]) / sx, y0 + float(py[k]) / sy), float(size[k]) / side,
                          float(heat[ys[k], xs[k]]), photo=not field) for k in np.nonzero(keep)[0]]

    def candidates(self, image_bgr: np.ndarray, die_px: Optional[float] = None,
                   roi: Optional[tuple[int, int, int, int]] = None) -> list[Candidate]:
        """Candidates over a pyramid (``die_px`` None) or at the one scale where a die of
        ``die_px`` image pixels is ``DETECT_DIE_PX`` at the detector's input, merged
        (:func:`merge_candidates`), strongest first."""
        levels, _ = self.level_candidates(image_bgr, die_px, roi)
        return self.merged(sum(levels, []), die_px is not None)

    def level_candidates(self, image_bgr: np.ndarray, die_px: Optional[float] = None,
                         roi: Optional[tuple[int, int, int, int]] = None) -> tuple[list[list[Candidate]], int]:
        """The detector's candidates of each pyramid level, coarsest first (one level when
        ``die_px`` is given), and how many of the levels are fixed (searched in every photo,
        :class:`DiceSettings` ``pyramid_fixed``; the others are the finer levels of a large
        photo)."""
        h, w = image_bgr.shape[:2]
        st = self.settings
        if die_px is not None:
            scales = [st.field_die_input_px / die_px]
            n_fixed = 1
        else:
            scales = pyramid_scales(max(h, w), st.pyramid, st.finest_max_scale, st.pyramid_fixed)
            n_fixed = len(self._fixed_scales(max(h, w)))
        # a large photo is first shrunk by a whole factor (a fast exact block average) to no less
        # than the finest level's side: shrinking a 12-megapixel photo four times from its full size
        # took two thirds of its reading time. The photo is cut to a multiple of the factor (at
        # most factor - 1 pixels off its right and bottom edges) so OpenCV takes its whole-step
        # path: a fractional ratio (4032 / 806) took 2.6 times as long
        step = max(h, w) // st.pyramid[-1] if die_px is None and roi is None else 1
        base = image_bgr
        fx = fy = 1.0
        if step >= 2:
            import cv2

            base = cv2.resize(image_bgr[: h // step * step, : w // step * step], (w // step, h // step),
                              interpolation=cv2.INTER_AREA)
            fx = fy = float(step)
        out = []
        for k, s in enumerate(scales):
            # a level's own size range; the smallest dice come from the finest level, the largest
            # from the coarsest
            lo, hi = st.level_sizes
            found = self.detect(base, min(s * fx, 4.0), roi,
                                None if len(scales) == 1 else (0.0 if k == len(scales) - 1 else lo,
                                                               1e9 if k == 0 else hi),
                                field=die_px is not None)
            if step >= 2:
                found = [dataclasses.replace(c, center=(c.center[0] * fx, c.center[1] * fy),
                                             size=c.size * math.sqrt(fx * fy)) for c in found]
            out.append(found)
        return out, n_fixed

    def merged(self, cands: Sequence[Candidate], field: bool = False) -> list[Candidate]:
        """``cands`` merged (:func:`merge_candidates`), strongest first, at most
        :class:`DiceSettings` ``max_candidates``; ``field`` (a registered board): every candidate
        from ``peak`` up, then at most ``field_weak`` weaker ones."""
        st = self.settings
        kept = merge_candidates(cands, st.merge)
        if field:
            kept = kept[: sum(c.score >= st.peak for c in kept) + st.field_weak]
        return kept[: st.max_candidates]

    # ------------------------------------------------------------------ classification
    def classify(self, image_bgr: np.ndarray, cands: Sequence[Candidate], wider: bool = True,
                 photo: Optional[bool] = None) -> np.ndarray:
        """(N, 8) float64 softmax probabilities: columns 0..5 the values 1..6, column 6 "not a die",
        column 7 a doubling cube (zero for a 7-class model). ``wider``: allow the wider re-reads
        (:class:`DiceSettings` ``wider``; :meth:`scan` turns them off when the die size is known).
        ``photo``: read with the free-photo classifier (:class:`DiceSettings` ``photo_classifier``);
        default: when ``wider``."""
        if not cands:
            return np.zeros((0, 8))
        use_photo = wider if photo is None else photo
        net = self.photo_classifier if use_photo else self.classifier
        side = self.settings.photo_value_patch if use_photo and self.settings.photo_classifier else self.settings.value_patch
        blob = patches_blob([crop_patch(image_bgr, c.center, c.size, patch=side) for c in cands])
        p = self._softmax(blob, net)
        if self.settings.turns > 1:
            # read the unsure patches again turned by 90, 180 and 270 degrees (and cropped wider)
            # and average
            st = self.settings
            unsure = p.max(axis=1) < st.sure
            if not st.turn_cubes and not wider:
                unsure &= p.argmax(axis=1) != 7
            if st.field_turn_min is not None and not wider:
                unsure &= p[:, :6].sum(axis=1) >= st.field_turn_min
            unsure = np.nonzero(unsure)[0]
            if len(unsure):
                turned = self._softmax_turns(blob[unsure], range(1, st.turns), net)
                p[unsure] = (p[unsure] + turned.sum(axis=0)) / st.turns
            pu = p[unsure, :6]
            wide = unsure[(pu.sum(axis=1) >= st.wider_min) & (pu.max(axis=1) < st.wider_max)] if st.wider and wider \
                else unsure[:0]
            if len(wide):
                sub = np.concatenate([patches_blob([crop_patch(image_bgr, cands[i].center, cands[i].size * z, patch=side)
                                                    for i in wide]) for z in st.wider])
                acc = self._softmax_turns(sub, range(st.turns), net).mean(axis=0)
                views = np.concatenate([p[wide][None], acc.reshape(len(st.wider), len(wide), -1)])
                p[wide] = views.mean(axis=0)
        if p.shape[1] == 7:
            p = np.hstack([p, np.zeros((len(p), 1))])
        return p

    def scan(self, image: np.ndarray, field: Any = None, die_px: Optional[float] = None,
             die_side: Optional[float] = None) -> tuple[list[Candidate], np.ndarray]:
        """Candidates and their class probabilities ((N, 8) float64: values 1..6, not a die,
        doubling cube) for ``image``; see :meth:`read` for ``field`` and ``die_px``. ``die_side``:
        the players' dice's side in image pixels when it has been learned
        (:mod:`vision.dice_size`), for :meth:`reread_small`; None: not known."""
        image = as_bgr(image)
        roi = None
        if field is not None:
            roi, field_die = field_search_region(field, image.shape)
            die_px = die_px or field_die
        if die_px is not None:
            return self._scan_field(image, self.candidates(image, die_px, roi), die_px, die_side, field)
        levels, n_fixed = self.level_candidates(image, None, roi)
        pool = sum(levels[:n_fixed], [])
        fixed = self.merged(pool)
        cands, probs = self._scan_photo(image, fixed)
        if n_fixed < len(levels):
            cands, probs, pool = self._finer_levels(image, pool, levels[n_fixed:], fixed, cands, probs)
        return self.second_views(image, pool, fixed, cands, probs)

    def _finer_levels(self, image: np.ndarray, pool: list[Candidate], fine: list[list[Candidate]],
                      fixed: list[Candidate], cands: list[Candidate],
                      probs: np.ndarray) -> tuple[list[Candidate], np.ndarray, list[Candidate]]:
        """A large photo's readings with its finer pyramid levels ``fine`` (coarsest first) added
        where :meth:`_wants_fine` or :meth:`_around_dice` let them; ``pool``: the fixed levels'
        candidates, ``fixed`` them merged, ``cands`` / ``probs`` the readings of ``fixed``.
        Returns the readings and the candidates they were merged from (the pool of
        :meth:`second_views`: every level's when all were merged as one pyramid)."""
        read = {id(c): k for k, c in enumerate(fixed)}
        if self._wants_fine(image, cands, probs):
            # small dice in a large photo: every level merged, as one pyramid (the candidates of the
            # fixed levels keep their readings)
            pool = pool + sum(fine, [])
            merged = self.merged(pool)
        else:
            merged = self._around_dice(fixed, cands, probs, sum(fine, []))
        new = [c for c in merged if id(c) not in read]
        if not new:
            return cands, probs, pool
        more, more_probs = self._scan_photo(image, new)
        keep = [read[id(c)] for c in merged if id(c) in read]
        return [cands[k] for k in keep] + more, np.vstack([probs[keep], more_probs]), pool

    def second_views(self, image: np.ndarray, pool: Sequence[Candidate], fixed: Sequence[Candidate],
                     cands: list[Candidate], probs: np.ndarray) -> tuple[list[Candidate], np.ndarray]:
        """``cands`` / ``probs`` (a free photo's readings, (N, 8) as :meth:`classify` returns) with
        second views added: for each reading that is not a die but whose values 1..6 together reach
        :class:`DiceSettings` ``second_views`` (or, for those of a size ``second_size_ratio``
        times apart, any reading that is not a die), the candidates of ``pool`` (the detector's,
        before the merge) within ``merge`` x size of it that the merge dropped (``fixed``: those
        it kept) and that lie farther than that from every die read. A die seen at several pyramid
        levels is proposed with several centres and sizes; the merge keeps the strongest peak,
        whose crop may cut off pips or centre the die's body instead of its top face. The views
        are read as :meth:`_scan_photo` reads (marked ``second``: a die only at
        ``second_accept``, see :meth:`dice_from_scan`); the readings then compete in
        :func:`thin_dice`. Returns new lists."""
        st = self.settings
        if st.second_views is None or not len(cands):
            return cands, probs
        held = [c for c, p in zip(cands, probs) if self.dice_from_scan([c], p[None])]
        taken = {id(c) for c in fixed} | {id(c) for c in cands}

        def near(a: Candidate, b: Candidate) -> bool:
            return math.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]) < st.merge * max(a.size, b.size)

        views: list[Candidate] = []
        for c, p in zip(cands, probs):
            if any(c is h for h in held):
                continue
            likely = p[:6].sum() >= st.second_views
            for a in pool:
                other_size = max(a.size, c.size) >= st.second_size_ratio * min(a.size, c.size)
                if (likely or other_size) and id(a) not in taken and near(a, c) and not any(near(a, h) for h in held):
                    taken.add(id(a))
                    views.append(a)
        if not views:
            return cands, probs
        more, more_probs = self._scan_photo(image, views)
        more = [dataclasses.replace(m, second=True) for m in more]
        return list(cands) + more, np.vstack([probs, more_probs])

    def _around_dice(self, fixed: list[Candidate], cands: list[Candidate], probs: np.ndarray,
                     fine: list[Candidate]) -> list[Candidate]:
        """Candidates of a large photo whose fixed levels read only big dice: the finer levels'
        candidates are kept only when one of them peaks at :class:`DiceSettings` ``fine_peak`` or
        more farther than a die's side from every read die (a die the fixed levels missed), and
        then not inside a read die at least 2.5 times larger (its pips and faces, which would push
        it out of the merge); the read dice keep their place, the rest is merged around them.
        Returns the candidates (those of ``fixed`` among them keep their readings)."""
        st = self.settings
        held = [k for k, (c, p) in enumerate(zip(cands, probs)) if self.dice_from_scan([c], p[None])]

        def near(c: Candidate, k: int, reach: float) -> bool:
            return math.hypot(c.center[0] - fixed[k].center[0], c.center[1] - fixed[k].center[1]) < reach

        if not any(c.score >= st.fine_peak and not any(near(c, k, fixed[k].size) for k in held) for c in fine):
            return fixed
        outer = [c for c in fine if not any(fixed[k].size >= 2.5 * c.size and abs(c.center[0] - fixed[k].center[0])
                                            <= fixed[k].size / 2 and abs(c.center[1] - fixed[k].center[1])
                                            <= fixed[k].size / 2 for k in held)]
        kept = [fixed[k] for k in held]
        rest = self.merged([c for k, c in enumerate(fixed) if k not in held] + outer)
        return kept + [c for c in rest if all(not near(c, k, st.merge * max(c.size, fixed[k].size)) for k in held)]

    def _scan_photo(self, image: np.ndarray, cands: list[Candidate]) -> tuple[list[Candidate], np.ndarray]:
        """Free-photo classification of ``cands``: wider re-reads (on registered boards, where
        wider crops take in the checkers around a die, they lost dice: found 98.5% -> 97.5% on 100
        boards) and ones moved to their pip."""
        probs = self.classify(image, cands, wider=True)
        if self.settings.recentre_ones > 0:
            cands, probs = self.recentre_ones(image, cands, probs)
        return cands, probs

    def _wants_fine(self, image: np.ndarray, cands: Sequence[Candidate], probs: np.ndarray) -> bool:
        """Whether a large photo's finer pyramid levels are searched too: when the fixed levels
        read no die, or a die smaller than :class:`DiceSettings` ``fine_below`` pixels at the
        finest fixed level's input (dice of one photo have similar sizes: big dice seen finer only
        add pips and side faces taken for dice; small ones may have neighbours the coarse levels
        missed)."""
        st = self.settings
        dice = self.dice_from_scan(cands, probs)
        if not dice:
            return True
        scale = self._fixed_scales(max(image.shape[:2]))[-1]
        return min(d.box[2] - d.box[0] for d in dice) * scale < st.fine_below

    def _fixed_scales(self, long_side: int) -> list[float]:
        """The scales of the pyramid levels every free photo of this longer side (pixels) gets
        (:class:`DiceSettings` ``pyramid_fixed``), coarsest first."""
        st = self.settings
        return pyramid_scales(long_side, st.pyramid[: st.pyramid_fixed], st.finest_max_scale, st.pyramid_fixed)

    def _scan_field(self, image: np.ndarray, cands: list[Candidate], die_px: float,
                    die_side: Optional[float] = None, field: Any = None) -> tuple[list[Candidate], np.ndarray]:
        """Registered-board classification (``die_px``: the die side the board implies, image
        pixels): the candidates from :class:`DiceSettings` ``peak`` up are read; the weaker ones
        (``field_peak`` .. ``peak``) only when those give fewer than the two dice of a roll (a die
        of the board's colour peaks weakly; read on every frame, the 8 weak ones cost 1-2 ms).
        Candidates sized far larger than a die and read as none are read again at ``die_px``
        (:meth:`reread_large`). When fewer than two dice are read, the candidates that may be a
        one are moved to their pip and read again (:meth:`recentre_unread_ones`, :class:`DiceSettings`
        ``field_ones``). When the dice read are none, one or three, a pair of touching dice
        read as one is looked for (:func:`vision.dice_touching.touching_dice`, at
        :class:`DiceSettings` ``touching``). With the dice's side ``die_side`` learned, dice boxed
        far smaller are read again at that side (:meth:`reread_small`). Dice read unsure are read
        again larger (:meth:`reread_unsure`). With the board's marks known (``field`` given), a
        candidate on one is "not a die" (:meth:`unmark`) before any of these counts dice."""
        strong = [c for c in cands if c.score >= self.settings.peak]
        weak = [c for c in cands if c.score < self.settings.peak]
        probs = self.unmark(image, field, strong, self.classify(image, strong, wider=False))
        if weak and len(self.dice_from_scan(strong, probs)) < 2:
            more = self.unmark(image, field, weak, self.classify(image, weak, wider=False))
            strong, probs = strong + weak, np.vstack([probs, more])
        strong, probs = self.reread_large(image, strong, probs, die_px)
        strong, probs = self.reread_sibling(image, strong, probs)
        if self.settings.field_ones and self.settings.recentre_ones > 0 and len(self.dice_from_scan(strong, probs)) < 2:
            strong, probs = self.recentre_unread_ones(image, strong, probs)
        if die_side is not None:
            strong, probs = self.reread_small(image, strong, probs, die_side)
        strong, probs = self.reread_unsure(image, strong, probs)
        if self.settings.touching is not None and len(self.dice_from_scan(strong, probs)) in (0, 1, 3):
            from vision.dice_touching import touching_dice

            strong, probs = touching_dice(self, image, strong, probs, self.settings.touching)
        return strong, self.unmark(image, field, strong, probs)

    def unmark(self, image: np.ndarray, field: Any, cands: Sequence[Candidate], probs: np.ndarray) -> np.ndarray:
        """``probs`` ((N, 8) as :meth:`classify` returns) with each candidate whose values together
        reach :data:`vision.board_marks.TESTED` and that lies on one of the board's marks
        (``self.marks``, :meth:`vision.board_marks.BoardMarks.covered`) read as "not a die" (its
        values' probability moved to that class, the doubling cube's kept); the input itself when
        nothing changes (no marks, no ``field``)."""
        if not self.marks or not hasattr(field, "to_image") or not len(probs):
            return probs
        from vision.board_marks import TESTED

        tested = [k for k in range(len(cands)) if probs[k, :6].sum() >= TESTED]
        covered = self.marks.covered(image, field, field_search_region(field, image.shape)[1],
                                     [(cands[k].outline_center or cands[k].center, cands[k].size) for k in tested])
        hits = [k for k, hit in zip(tested, covered) if hit]
        if not hits:
            return probs
        out = probs.copy()
        out[hits, 6] += out[hits, :6].sum(axis=1)  # the values' share goes to "not a die"; a cube's stays
        out[hits, :6] = 0.0
        return out

    def reread_large(self, image: np.ndarray, cands: Sequence[Candidate], probs: np.ndarray,
                     die_px: float) -> tuple[list[Candidate], np.ndarray]:
        """Candidates sized over :class:`DiceSettings` ``field_large`` x ``die_px`` (image pixels)
        whose most likely value stays below ``field_large_sure`` read again cropped at ``die_px``; the
        re-read replaces the first when one value reaches ``field_large_sure`` (a die on a checker
        is sized as the checker beneath it). ``image`` (H, W, 3) uint8 BGR, ``probs`` (N, 8) as
        :meth:`classify` returns; returns new lists, the inputs are not changed."""
        st = self.settings
        cands = list(cands)
        if st.field_large is None:
            return cands, probs
        idx = [k for k, (c, p) in enumerate(zip(cands, probs))
               if c.size > st.field_large * die_px and p[:6].max() < st.field_large_sure]
        return self._read_again(image, cands, probs, idx, die_px)

    def _read_again(self, image: np.ndarray, cands: list[Candidate], probs: np.ndarray, idx: Sequence[int],
                    side: float, views: Sequence[float] = (1.0,),
                    surer: bool = False) -> tuple[list[Candidate], np.ndarray]:
        """The candidates ``idx`` of ``cands`` read again cropped at ``side`` times each of
        ``views`` (image pixels), centred on the die's outline (``outline_center`` when the
        candidate was moved to its pip); a candidate's surest re-read replaces the first (in
        ``cands``, changed in place, and in a copy of ``probs``) when one value reaches
        :class:`DiceSettings` ``field_large_sure`` (``surer``: when its most likely value is more
        probable than the first reading's)."""
        if not idx:
            return cands, probs
        again = [dataclasses.replace(cands[k], center=cands[k].outline_center or cands[k].center, outline_center=None,
                                     size=side * z) for z in views for k in idx]
        read = self.classify(image, again, wider=False).reshape(len(views), len(idx), -1)
        probs = probs.copy()
        for j, k in enumerate(idx):
            v = int(np.argmax(read[:, j, :6].max(axis=1)))
            best = read[v, j, :6].max()
            if best > probs[k, :6].max() if surer else best >= self.settings.field_large_sure:
                cands[k], probs[k] = again[v * len(idx) + j], read[v, j]
        return cands, probs

    def reread_sibling(self, image: np.ndarray, cands: Sequence[Candidate],
                       probs: np.ndarray) -> tuple[list[Candidate], np.ndarray]:
        """When ``cands`` read as exactly one die: the candidates read as no die whose size differs
        from that die's by more than :class:`DiceSettings` ``sibling_size`` either way read again at
        its size times each of ``sibling_views``; the surest re-read replaces the first when one
        value reaches ``field_large_sure`` (the dice of a roll are one size). ``image`` (H, W, 3) uint8 BGR, ``probs`` (N, 8) as
        :meth:`classify` returns; returns new lists, the inputs are not changed."""
        st = self.settings
        cands = list(cands)
        if st.sibling_size is None or len(self.dice_from_scan(cands, probs)) != 1:
            return cands, probs
        read = [bool(self.dice_from_scan([c], probs[k:k + 1])) for k, c in enumerate(cands)]
        die = max((k for k in range(len(cands)) if read[k]), key=lambda k: probs[k, :6].max())
        at, side = np.array(cands[die].center), cands[die].size
        idx = [k for k, c in enumerate(cands) if not read[k] and np.hypot(*(np.array(c.center) - at)) > 0.7 * side
               and not 1 / st.sibling_size <= c.size / side <= st.sibling_size]
        return self._read_again(image, cands, probs, idx, side, st.sibling_views)

    def reread_small(self, image: np.ndarray, cands: Sequence[Candidate], probs: np.ndarray,
                     die_side: float) -> tuple[list[Candidate], np.ndarray]:
        """The candidates read as dice whose size is below :class:`DiceSettings` ``field_small``
        times ``die_side`` (the players' dice's learned side, image pixels), and the two such
        candidates not read as dice whose values 1..6 together are likeliest, from
        ``small_unread`` up, read again at
        ``die_side`` times each of ``small_views``, centred where the detector put the die's
        outline (a candidate moved to its pip, :meth:`recentre_ones`, goes back); the surest
        re-read replaces the first when its most likely value is more probable than the first
        reading's (:meth:`_read_again`); not when another die read lies within ``die_side`` (two
        dice lying against each other, whose crops at that size take in the other). A large die's
        size is misjudged by the detector, trained on dice of 6-20 pixels at its input where a
        jumbo die is 17-20: a 2 turned 45 degrees is boxed between its pips, and the crop, cut
        inside the pips, reads as no die, or as a 1 once moved to a pip. ``image`` (H, W, 3) uint8
        BGR, ``probs`` (N, 8) as :meth:`classify` returns; returns new lists, the inputs are not
        changed."""
        st = self.settings
        cands = list(cands)
        if st.field_small is None:
            return cands, probs
        read = [k for k, c in enumerate(cands) if self.dice_from_scan([c], probs[k:k + 1])]
        unread = [] if st.small_unread is None else \
            [k for k in range(len(cands)) if k not in read and probs[k, :6].sum() >= st.small_unread
             and cands[k].size < st.field_small * die_side]
        unread = sorted(unread, key=lambda k: -probs[k, :6].sum())[:2]
        # a crop of the die's size would take in a die beside it
        idx = [k for k in read + unread if cands[k].size < st.field_small * die_side and clear_of_dice(cands, read, k, die_side)]
        return self._read_again(image, cands, probs, idx, die_side, st.small_views, surer=True)

    def reread_unsure(self, image: np.ndarray, cands: Sequence[Candidate],
                      probs: np.ndarray) -> tuple[list[Candidate], np.ndarray]:
        """The candidates read as dice whose most likely value stays below :class:`DiceSettings`
        ``unsure_below``, and those not read as dice whose values together reach ``unsure_values``,
        read again at their size times each of ``unsure_views``, centred on the die's outline; the
        surest re-read replaces the first when its most likely value is more probable
        (:meth:`_read_again`); not when another die read lies within the largest view (its crop
        would take that die in). A die on a point of its own colour is boxed small and off its
        centre, and its crop can show half of a 6, read as a 3; a real die against a checker or
        another die is read at its box as a die of two likely values, neither enough to accept it.
        ``image`` (H, W, 3) uint8 BGR,
        ``probs`` (N, 8) as :meth:`classify` returns; returns new lists, the inputs are not changed."""
        st = self.settings
        cands = list(cands)
        if st.unsure_below is None:
            return cands, probs
        read = [k for k, c in enumerate(cands) if self.dice_from_scan([c], probs[k:k + 1])]
        reach = max(st.unsure_views)
        unread = [] if st.unsure_values is None else \
            [k for k in range(len(cands)) if k not in read and probs[k, :6].sum() >= st.unsure_values]
        idx = [k for k in read if probs[k, :6].max() < st.unsure_below] + unread
        idx = [k for k in idx if clear_of_dice(cands, read, k, reach * cands[k].size)]
        sizes = [c.size for c in cands]
        for k in idx:  # each at its own size
            cands, probs = self._read_again(image, cands, probs, [k], sizes[k], st.unsure_views, surer=True)
        return cands, probs

    def recentre_unread_ones(self, image: np.ndarray, cands: Sequence[Candidate],
                             probs: np.ndarray) -> tuple[list[Candidate], np.ndarray]:
        """:meth:`recentre_ones` for the candidates of a registered board not read as dice, read
        as the board's candidates are (``wider=False``); the dice already read are left as they
        are. ``image`` (H, W, 3) uint8 BGR, ``probs`` (N, 8) as :meth:`classify` returns; returns
        new lists, the inputs are not changed."""
        idx = [k for k, c in enumerate(cands) if not self.dice_from_scan([c], probs[k:k + 1])]
        if not idx:
            return list(cands), probs
        moved, moved_probs = self.recentre_ones(image, [cands[k] for k in idx], probs[idx], wider=False)
        cands, probs = list(cands), probs.copy()
        for j, k in enumerate(idx):
            cands[k], probs[k] = moved[j], moved_probs[j]
        return cands, probs

    def recentre_ones(self, image: np.ndarray, cands: Sequence[Candidate],
                      probs: np.ndarray, wider: bool = True) -> tuple[list[Candidate], np.ndarray]:
        """Candidates that may be a one (most likely value 1, values together at least
        :class:`DiceSettings` ``recentre_ones``) moved to their pip (:func:`vision.top_face.pip_centre`)
        and read again there (kept when the re-read's most likely value is still 1); the others
        unchanged. ``image`` (H, W, 3) uint8 BGR, ``probs`` (N, 8)
        as :meth:`classify` returns; ``wider``: as :meth:`classify` takes it; returns new lists,
        the inputs are not changed."""
        from vision.top_face import pip_centre

        cands, probs = list(cands), probs.copy()
        moved: list[tuple[int, Candidate]] = []
        for k, p in enumerate(probs):
            if int(np.argmax(p[:6])) != 0 or p[:6].sum() < self.settings.recentre_ones:
                continue
            c = pip_centre(image, cands[k].center, cands[k].size)
            if c is not None:
                moved.append((k, dataclasses.replace(cands[k], center=c, outline_center=cands[k].center)))
        if moved:
            again = self.classify(image, [c for _, c in moved], wider=wider)
            for (k, c), p in zip(moved, again):
                # a one stays a one: a re-read of another value went to another blob than its pip
                if int(np.argmax(p[:6])) == 0:
                    cands[k], probs[k] = c, p
        return cands, probs

    def _softmax_turns(self, blob: np.ndarray, turns: Sequence[int], net: Any = None) -> np.ndarray:
        """(len(turns), N, C) softmax of the (N, 3, P, P) ``blob`` turned by each of ``turns``
        quarter turns, in one network pass."""
        n = len(blob)
        stacked = np.concatenate([np.rot90(blob, k, axes=(2, 3)) for k in turns])
        return self._softmax(np.ascontiguousarray(stacked), net).reshape(len(turns), n, -1)

    def _softmax(self, blob: np.ndarray, net: Any = None) -> np.ndarray:
        net = self.classifier if net is None else net
        logits = net.run(blob).astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)

    def read(self, image: np.ndarray, field: Any = None, die_px: Optional[float] = None) -> list[DieReading]:
        """Every die in ``image`` ((H, W, 3) uint8 BGR), sorted left to right.

        ``field``: a registered board (:class:`vision.registration.Field`) or None for a free photo;
        with a field the search is limited to the board's surroundings and run at the die size the
        board implies. ``die_px``: the expected die side in pixels (overrides the field's).
        Raises :class:`ImageError` for a malformed image. Cocked flags are not set here
        (see :func:`vision.cocked.judge_roll`). Free photos then go through the rules that read
        pips (:meth:`free_photo_dice`: pip agreement, front faces, top-face centres).
        """
        cands, probs = self.scan(image, field, die_px)
        dice = self.dice_from_scan(cands, probs)
        if field is not None or die_px is not None:
            return dice
        return self.free_photo_dice(as_bgr(image), cands, probs, dice)

    def free_photo_dice(self, image: np.ndarray, cands: Sequence[Candidate], probs: np.ndarray,
                        dice: Sequence[DieReading]) -> list[DieReading]:
        """The dice of a free photo ``image`` ((H, W, 3) uint8 BGR) after the rules that read pips:
        candidates turned down whose pips agree with their most likely value
        (:func:`vision.pips.agreed_by_pips`, :class:`DiceSettings` ``pip_agree``), front faces
        (``front_faces``) and top-face centres (``face_centres``). ``cands``, ``probs`` as
        :meth:`scan` returns, ``dice`` the readings :meth:`dice_from_scan` accepted. Sorted left
        to right."""
        from vision.pips import pips_memo

        st = self.settings
        dice = list(dice)
        pips = pips_memo(image)
        if st.pip_agree is not None:
            from vision.pips import agreed_by_pips

            extra = agreed_by_pips(image, cands, probs, dice, st.pip_agree, st.pip_agree_peak)
            if extra:
                dice = thin_dice(dice + extra, st.merge, st.nested)[: st.max_dice]
        if st.front_faces and dice:
            from vision.front_faces import drop_front_faces

            dice = drop_front_faces(image, dice, lambda at, side: self.read_one(image, at, side), pips)
        if st.face_centres > 0 and dice:
            from vision.top_face import on_top_faces

            dice = on_top_faces(image, dice, st.face_centres, pips)
        return sorted(dice, key=lambda d: (d.center[0], d.center[1]))

    def read_one(self, image: np.ndarray, center: tuple[float, float], side: float) -> Optional[float]:
        """The probability that the die of side ``side`` (pixels) at ``center`` (x, y, pixels) of
        the free photo ``image`` ((H, W, 3) uint8 BGR) is a one, when the free-photo classifier's
        most likely class there is a one at :class:`DiceSettings` ``accept`` or more; else None."""
        p = self.classify(as_bgr(image), [Candidate(center=center, size=side, score=1.0, photo=True)])[0]
        return float(p[0]) if int(np.argmax(p)) == 0 and p[0] >= self.settings.accept else None

    def dice_from_scan(self, cands: Sequence[Candidate], probs: np.ndarray) -> list[DieReading]:
        """The accepted dice among scanned candidates (not "not a die", not the cube; see
        :class:`DiceSettings` ``accept``, ``accept_peak`` and ``peak_accept``)."""
        st = self.settings
        out = []
        for cand, p in zip(cands, probs):
            v = int(np.argmax(p[:6]))
            if cand.second:
                need = st.second_accept
            elif cand.score >= st.accept_peak:
                need = min(st.accept, st.photo_peak_accept if cand.photo else st.peak_accept)
            else:
                need = st.accept
            if p[v] < need or p[v] < p[6] or p[v] < p[7]:
                continue
            half = cand.size / 2
            # the box frames the die's outline as detected, the centre is its top face's
            x, y = cand.outline_center or cand.center
            out.append(DieReading(value=v + 1, center=cand.center, box=(x - half, y - half, x + half, y + half),
                                  confidence=float(p[v]), values=tuple(round(float(q), 4) for q in p[:6])))
        out = thin_dice(out, st.merge, st.nested)[: st.max_dice]
        out.sort(key=lambda d: (d.center[0], d.center[1]))
        return out


def merge_candidates(cands: Sequence[Candidate], merge: float) -> list[Candidate]:
    """Greedy non-maximum suppression: keep the highest score among candidates whose centres are
    closer than ``merge`` times the larger size, whatever their sizes (the candidates a merge
    drops around a spot read as no die are read later: :meth:`DiceReader.second_views`)."""
    order = sorted(cands, key=lambda c: -c.score)
    if len(order) < 2:
        return order
    xy = np.array([c.center for c in order], dtype=np.float64)
    size = np.array([c.size for c in order], dtype=np.float64)
    close = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1]) < merge * np.maximum(
        size[:, None], size[None, :])
    dropped = np.zeros(len(order), bool)
    kept: list[Candidate] = []
    for i, c in enumerate(order):
        if not dropped[i]:
            kept.append(c)
            dropped |= close[i]
    return kept


def thin_dice(dice: Sequence[DieReading], merge: float, nested: float = 1.6) -> list[DieReading]:
    """The readings left when those nested in a larger one (side at least ``nested`` times
    smaller, centre inside the larger box: a pip or a part of a die read as a die; two dice cannot
    lie one inside the other) are dropped, then a greedy non-maximum suppression by confidence: a
    reading whose centre is closer than ``merge`` times the larger of the two boxes' sides to a
    more confident kept one is dropped. Sorted by confidence, highest first."""

    def inside(d: DieReading, big: DieReading) -> bool:
        return (big.box[2] - big.box[0] >= nested * (d.box[2] - d.box[0])
                and big.box[0] <= d.center[0] <= big.box[2] and big.box[1] <= d.center[1] <= big.box[3])

    dice = [d for d in dice if not any(inside(d, b) for b in dice)]
    kept: list[DieReading] = []
    for d in sorted(dice, key=lambda d: -d.confidence):
        side = d.box[2] - d.box[0]
        if all(math.hypot(d.center[0] - k.center[0], d.center[1] - k.center[1]) >= merge * max(side, k.box[2] - k.box[0])
               for k in kept):
            kept.append(d)
    return kept


def field_search_region(field: Any, shape: tuple[int, ...]) -> tuple[tuple[int, int, int, int], float]:
    """The image region where dice of a registered board are searched (the field's corners plus a
    margin of 15% of the field's width, for dice on the rails and in the trays) and the
    die side in pixels the board implies (a 16 mm die is about 1/30 of the width of a
    tournament board's playing field)."""
    corners = np.asarray(field_corners(field), dtype=np.float64)
    h, w = shape[:2]
    x0, y0 = corners.min(axis=0)
    x1, y1 = corners.max(axis=0)
    width = float(np.linalg.norm(corners[1] - corners[0]) + np.linalg.norm(corners[2] - corners[3])) / 2
    m = 0.15 * width
    roi = (int(max(x0 - m, 0)), int(max(y0 - m, 0)), int(min(x1 + m, w)), int(min(y1 + m, h)))
    return roi, width / 30.0


def field_corners(field: Any) -> np.ndarray:
    """(4, 2) float64 image corners of the playing field: top-left, top-right, bottom-right,
    bottom-left. Accepts a :class:`vision.registration.Field` (its ``corners`` or its homography)
    or a (4, 2) array."""
    for name in ("image_corners", "corners"):
        value = getattr(field, name, None)
        if value is not None:
            value = value() if callable(value) else value
            return np.asarray(value, dtype=np.float64).reshape(4, 2)
    return np.asarray(field, dtype=np.float64).reshape(4, 2)


def read_dice(image_bgr: np.ndarray, field: Any = None, *, reader: DiceReader | None = None) -> list[DieReading]:
    """Every die in the frame, its top-face value and confidence (see :meth:`DiceReader.read`).

    ``image_bgr``: (H, W, 3) uint8 BGR. ``field``: registered board or None. Pass a long-lived
    ``reader`` in loops (loading the models takes a few milliseconds). Raises :class:`ImageError`.
    """
    return (reader or DiceReader()).read(image_bgr, field)

"""Train the dice detector and value classifier, export them to ONNX (run by onnxruntime).

Needs torch (training only, not a runtime dependency)::

    pip install torch==2.13.0
    python -m vision.training.train_dice --fold all  --out vision/models          # shipped models
    python -m vision.training.train_dice --fold 0    --out /tmp/dice_fold0        # trains on fold 1
    python -m vision.training.train_dice --fold 1    --out /tmp/dice_fold1        # trains on fold 0

``--fold K`` holds out the images whose :meth:`LabelledImage.fold` is K (2 folds, by a hash of the
file name) so ``python -m vision.evaluate_dice --models /tmp/dice_foldK --fold K`` reports
held-out figures. ``--holdout-dataset NAME`` instead trains without one whole dataset.
Synthetic dice from :mod:`vision.render_dice` are mixed in (``--synthetic``) to widen the styles.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import pathlib
import time
from typing import Optional, Sequence

import cv2
import numpy as np
import torch
from torch import nn

from vision.dice_data import LabelledImage, default_dice_root, iter_datasets, with_die_boxes
from vision.dice_patches import (CUBE_CONTEXT, DETECT_DIE_PX, PATCH, STRIDE, VALUE_PATCH, crop_patch, detector_blob,
                                 patches_blob)
from vision.render_dice import DIE_STYLES, DieStyle
from vision.training.mining import die_sizes, mine_hard_negatives
from vision.training.nets import DiceClassifier, DiceDetector

#: Classifier classes: 0..5 the pip values 1..6, 6 "not a die", 7 a doubling cube.
NONE_CLASS, CUBE_CLASS = 6, 7

#: ``LabelledImage.dataset`` of the drawn training images (the others are real photos).
RENDERED = ("synthetic", "rendered-board", "real-on-board")

DATA = default_dice_root()


def photometric(img: np.ndarray, rng: np.random.Generator, strong: bool = True, mild: bool = False) -> np.ndarray:
    """Random colour/brightness/blur/noise changes to a uint8 BGR image (any size). ``mild``: no
    conversion to grey (it erases pips that differ from their die by colour alone, e.g. red on
    smoke grey) and Gaussian blurs of sigma at most 0.8 pixels (1.3 otherwise)."""
    out = img.astype(np.float32)
    if strong and rng.random() < 0.5:
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
        hsv[..., 0] = (hsv[..., 0].astype(np.int32) + int(rng.integers(0, 180))) % 180
        if rng.random() < 0.5:
            hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.3, 1.6), 0, 255).astype(np.uint8)
        out = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR).astype(np.float32)
    if strong and not mild and rng.random() < 0.15:
        out = np.repeat(cv2.cvtColor(out.astype(np.uint8), cv2.COLOR_BGR2GRAY)[..., None], 3, 2).astype(np.float32)
    if strong and rng.random() < 0.15:
        out = 255.0 - out
    out = out * rng.uniform(0.6, 1.4) + rng.uniform(-40, 40)
    out = out * rng.uniform(0.85, 1.15, size=3)[None, None, :]
    if rng.random() < 0.3:
        sigma = rng.uniform(0.3, 0.8 if mild else 1.3)
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    if rng.random() < 0.3:
        out = out + rng.normal(0, rng.uniform(2, 8), out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def motion_blur(img: np.ndarray, rng: np.random.Generator, max_len: float = 0.25) -> np.ndarray:
    """Blur ``img`` (uint8 BGR, any size) along a random direction over up to ``max_len`` x its side
    (a die still rolling, a shaking camera)."""
    n = img.shape[0]
    length = rng.uniform(2.0, max(max_len * n, 2.5))
    k = int(math.ceil(length)) | 1
    ker = np.zeros((k, k), np.float32)
    a = rng.uniform(0, math.pi)
    c = k // 2
    dx, dy = math.cos(a) * length / 2, math.sin(a) * length / 2
    cv2.line(ker, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1)
    ker /= max(float(ker.sum()), 1e-6)
    return cv2.filter2D(img, -1, ker, borderType=cv2.BORDER_REPLICATE)


# ----------------------------------------------------------------------------- classifier data
def classifier_samples(items: list[tuple[np.ndarray, LabelledImage]], rng: np.random.Generator,
                       neg_ratio: float = 1.0, hard: Optional[dict] = None,
                       jitter: float = 0.06, matched: Optional[dict] = None, patch: int = VALUE_PATCH,
                       scale_jitter: tuple[float, float] = (-0.15, 0.2),
                       blur_prob: float = 0.0, hard_per_image: int = 8, mild: bool = False,
                       side_faces: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """One epoch of augmented patches: (N, 3, patch, patch) float32 and (N,) int64 labels (0..5
    value-1, 6 none, 7 cube). ``hard``: {item index: [(x, y, size), ...]} detector false alarms, used
    as extra "not a die" patches (hard negative mining). ``matched``: {item index: [(x, y, size,
    value), ...]} detector candidates matched to labelled dice: extra positives cropped where and
    as large as the detector proposes them (its centre and size errors are what the classifier
    meets at run time). ``jitter``: standard deviation of the labelled positives' centre shift, in
    die sides (the detector's centre of an oblique die lies between its top face and its body);
    ``scale_jitter``: their crop size is the die side times exp(uniform(*scale_jitter));
    ``blur_prob``: share of patches given a motion blur (:func:`motion_blur`); ``hard_per_image``:
    at most this many of an image's false alarms per epoch; ``mild``: see :func:`photometric`;
    ``side_faces``: share of the labelled real dice that also give a "not a die" patch centred
    0.7-1.0 sides below them (within 25 degrees), where an oblique photo shows a die's front face
    (a face with pips, read as a die), when no labelled die is there. Each of an item's
    ``distractor_boxes`` (marks that are not dice) gives a "not a die" patch every epoch."""
    patches, labels = [], []

    def add(img, c, s, label):
        pt = crop_patch(img, c, s, rng.uniform(0, 360), patch=patch)
        if blur_prob and rng.random() < blur_prob:
            pt = motion_blur(pt, rng)
        patches.append(photometric(pt, rng, mild=mild))
        labels.append(label)

    for idx, (img, item) in enumerate(items):
        negs = (hard or {}).get(idx, [])
        for k in (rng.permutation(len(negs))[:hard_per_image] if len(negs) > hard_per_image else range(len(negs))):
            hx, hy, hs = negs[k]
            add(img, (hx + rng.normal(0, 0.05 * hs), hy + rng.normal(0, 0.05 * hs)),
                hs * math.exp(rng.uniform(-0.15, 0.15)), NONE_CLASS)
        for x0, y0, x1, y1 in item.distractor_boxes:  # marks that are not dice
            ds = max(x1 - x0, y1 - y0)
            add(img, ((x0 + x1) / 2 + rng.normal(0, 0.05 * ds), (y0 + y1) / 2 + rng.normal(0, 0.05 * ds)),
                ds * math.exp(rng.uniform(-0.15, 0.15)), NONE_CLASS)
        for (mx, my, ms, mv) in (matched or {}).get(idx, []):
            add(img, (mx + rng.normal(0, 0.03 * ms), my + rng.normal(0, 0.03 * ms)),
                ms * math.exp(rng.uniform(-0.1, 0.1)), int(mv) - 1)
        if len(item.values) == 0:
            continue
        sizes = die_sizes(item)
        centers = item.centers
        h, w = img.shape[:2]
        for (cx, cy), s, v in zip(centers, sizes, item.values):
            add(img, (cx + rng.normal(0, jitter * s), cy + rng.normal(0, jitter * s)),
                s * math.exp(rng.uniform(*scale_jitter)), int(v) - 1)
        if side_faces and item.dataset not in RENDERED:
            for (cx, cy), s in zip(centers, sizes):
                if rng.random() >= side_faces:
                    continue
                r, ang = rng.uniform(0.7, 1.0) * s, math.radians(rng.uniform(-25, 25))
                c = (cx + r * math.sin(ang), cy + r * math.cos(ang))
                if np.all(np.hypot(centers[:, 0] - c[0], centers[:, 1] - c[1]) > 0.55 * sizes):
                    add(img, c, s * math.exp(rng.uniform(-0.15, 0.15)), NONE_CLASS)
        csz = np.maximum(item.cube_boxes[:, 2] - item.cube_boxes[:, 0], item.cube_boxes[:, 3] - item.cube_boxes[:, 1])
        ccen = np.stack([(item.cube_boxes[:, 0] + item.cube_boxes[:, 2]) / 2,
                         (item.cube_boxes[:, 1] + item.cube_boxes[:, 3]) / 2], axis=1)
        for (cx, cy), s in zip(ccen, csz):
            for _ in range(3):
                add(img, (cx + rng.normal(0, 0.06 * s), cy + rng.normal(0, 0.06 * s)),
                    s * math.exp(rng.uniform(-0.15, 0.2)), CUBE_CLASS)
        if len(csz):
            centers = np.concatenate([centers, ccen]); sizes = np.concatenate([sizes, csz])
        n_neg = int(round(len(item.values) * neg_ratio))
        med = float(np.median(sizes))
        for k in range(n_neg):
            for _ in range(20):
                if k % 2 == 0:  # next to a die: partial dice must read as "not a die"
                    j = int(rng.integers(len(sizes)))
                    ang = rng.uniform(0, 2 * math.pi)
                    r = rng.uniform(0.6, 1.1) * sizes[j]
                    c = (centers[j, 0] + r * math.cos(ang), centers[j, 1] + r * math.sin(ang))
                    s = sizes[j] * math.exp(rng.uniform(-0.2, 0.2))
                else:  # anywhere
                    c = (rng.uniform(0, w), rng.uniform(0, h))
                    s = med * math.exp(rng.uniform(-0.4, 0.5))
                d = np.hypot(centers[:, 0] - c[0], centers[:, 1] - c[1])
                if np.all(d > 0.55 * sizes):
                    add(img, c, s, NONE_CLASS)
                    break
    return patches_blob(patches), np.asarray(labels, dtype=np.int64)


# ----------------------------------------------------------------------------- detector data
def detector_sample(img: np.ndarray, item: LabelledImage, rng: np.random.Generator,
                    crop: int = 192, die_range: tuple[float, float] = (11.0, 44.0),
                    blur_prob: float = 0.0, fast_resize: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One augmented crop: (3, crop, crop) float32 input, (crop/4, crop/4) heat target,
    (crop/4, crop/4) log-size target (NaN where no centre). Cubes count as dice here. The image is
    scaled so its median die side is log-uniform in ``die_range`` (pixels); ``blur_prob``: share
    of crops given a motion blur; ``fast_resize``: shrink with :func:`vision.dice.resize` (as
    the registered-board detector's input is shrunk at run time) instead of OpenCV's area resize."""
    sizes = die_sizes(item)
    med = float(np.median(sizes)) if len(sizes) else 40.0
    if len(item.cube_boxes):
        cb = item.cube_boxes
        item = dataclasses.replace(item, boxes=np.concatenate([item.boxes, cb]),
                                   values=np.concatenate([item.values, np.zeros(len(cb), np.int64)]))
        sizes = die_sizes(item)
    target = math.exp(rng.uniform(math.log(die_range[0]), math.log(die_range[1])))
    scale = target / med
    h, w = img.shape[:2]
    sw, sh = max(int(round(w * scale)), 1), max(int(round(h * scale)), 1)
    if fast_resize:
        from vision.dice import resize
        small = resize(img, (sw, sh))
    else:
        small = cv2.resize(img, (sw, sh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    centers = item.centers * scale
    ssz = sizes * scale
    # choose the crop window: around a random die most of the time
    if len(centers) and rng.random() < 0.8:
        j = int(rng.integers(len(centers)))
        x0 = int(centers[j, 0] - rng.uniform(0.1, 0.9) * crop)
        y0 = int(centers[j, 1] - rng.uniform(0.1, 0.9) * crop)
    else:
        x0 = int(rng.uniform(-crop * 0.2, max(sw - crop * 0.8, 1)))
        y0 = int(rng.uniform(-crop * 0.2, max(sh - crop * 0.8, 1)))
    m = np.array([[1, 0, -x0], [0, 1, -y0]], dtype=np.float64)
    win = cv2.warpAffine(small, m, (crop, crop), borderMode=cv2.BORDER_REFLECT)
    cs = centers - np.array([x0, y0])
    k = int(rng.integers(4))
    if k:
        win = np.ascontiguousarray(np.rot90(win, k))
        for _ in range(k):  # np.rot90 counter-clockwise: (x, y) -> (y, crop-1-x)
            cs = np.stack([cs[:, 1], crop - 1 - cs[:, 0]], axis=1)
    if rng.random() < 0.5:
        win = np.ascontiguousarray(win[:, ::-1])
        cs = np.stack([crop - 1 - cs[:, 0], cs[:, 1]], axis=1)
    if blur_prob and rng.random() < blur_prob:
        win = motion_blur(win, rng, max_len=0.04)
    win = photometric(win, rng)
    g = crop // STRIDE
    heat = np.zeros((g, g), np.float32)
    lsz = np.full((g, g), np.nan, np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for (cx, cy), s in zip(cs, ssz):
        gx, gy = (cx + 0.5) / STRIDE - 0.5, (cy + 0.5) / STRIDE - 0.5
        if not (-1 <= gx <= g and -1 <= gy <= g):
            continue
        sig = max(s / STRIDE / 6.0, 0.6)
        heat = np.maximum(heat, np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sig * sig)))
        ix, iy = int(round(gx)), int(round(gy))
        if 0 <= ix < g and 0 <= iy < g:
            heat[iy, ix] = 1.0
            lsz[iy, ix] = math.log(s / DETECT_DIE_PX)
    return detector_blob(win)[0], heat, lsz


def focal_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss (Zhou et al. 2019), normalised by the centre count."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p ** 2 * (1 - target) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return -(pos_loss.sum() + neg_loss.sum()) / n


# ----------------------------------------------------------------------------- training loops
def board_items(n: int, rng, die_to_checker: Optional[tuple[float, float]] = None,
                dice_styles: Sequence[DieStyle] = DIE_STYLES) -> list:
    """``n`` rendered boards with a roll and maybe a cube (:func:`vision.render_roll.render_roll_on_board`;
    ``die_to_checker``: the dice's side over a checker's diameter, low and high; None: tournament
    dice; ``dice_styles``: the kinds of dice drawn) as [(image, LabelledImage)] (dataset
    ``"rendered-board"``)."""
    from vision.render_roll import render_roll_on_board

    out = []
    for k in range(n):
        roll = render_roll_on_board(rng, cocked_prob=0.3, die_to_checker=die_to_checker, dice_styles=dice_styles)
        b = np.array([[d.center[0] - d.size / 2, d.center[1] - d.size / 2, d.center[0] + d.size / 2,
                       d.center[1] + d.size / 2] for d in roll.dice])
        v = np.array([d.value for d in roll.dice], np.int64)
        cb = np.zeros((0, 4)); cv = np.zeros(0, np.int64)
        if roll.cube is not None:
            c, s_ = roll.cube.center, roll.cube.size
            cb = np.array([[c[0] - s_ / 2, c[1] - s_ / 2, c[0] + s_ / 2, c[1] + s_ / 2]])
            cv = np.array([roll.cube.value], np.int64)
        h, w = roll.image.shape[:2]
        out.append((roll.image, LabelledImage("rendered-board", pathlib.Path(f"board_{k}.png"), b, v, (w, h), cb, cv)))
    return out


def touching_items(n: int, rng, dice_styles: Sequence[DieStyle] = DIE_STYLES) -> list:
    """``n`` rendered boards each with two dice of ``dice_styles`` lying against each other
    (:func:`vision.render_touching.render_touching`: footprints 0-2 pixels apart, 0.3-0.8 of a
    checker's diameter) as [(image, LabelledImage)] (dataset ``"rendered-touching"``)."""
    from vision.render_dice import RenderError
    from vision.render_touching import render_touching

    out = []
    while len(out) < n:
        try:
            scene = render_touching(rng, dice_styles=dice_styles)
        except RenderError:
            continue
        b = np.array([[d.center[0] - d.size / 2, d.center[1] - d.size / 2, d.center[0] + d.size / 2,
                       d.center[1] + d.size / 2] for d in scene.truth_touching])
        v = np.array([d.value for d in scene.truth_touching], np.int64)
        h, w = scene.touching.shape[:2]
        out.append((scene.touching, LabelledImage("rendered-touching", pathlib.Path(f"touching_{len(out)}.png"), b, v, (w, h),
                                                  np.zeros((0, 4)), np.zeros(0, np.int64))))
    return out


def train_classifier(items, epochs: int, rng, log, hard: Optional[dict] = None,
                     jitter: float = 0.06, matched: Optional[dict] = None, width: int = 16,
                     scale_jitter: tuple[float, float] = (-0.15, 0.2), blur_prob: float = 0.0,
                     patch: int = VALUE_PATCH, hard_per_image: int = 8,
                     mild: bool = False, side_faces: float = 0.0) -> nn.Module:
    """Train the value classifier (``width`` channels in its first layers) on augmented
    ``patch`` x ``patch`` patches from ``items`` [(image, LabelledImage)] (see
    :func:`classifier_samples` for the other arguments): a :class:`DiceClassifier`."""
    net = DiceClassifier(width=width, classes=8)

    def epoch_samples() -> tuple[np.ndarray, np.ndarray]:
        return classifier_samples(items, rng, hard=hard, jitter=jitter, matched=matched, patch=patch,
                                  scale_jitter=scale_jitter, blur_prob=blur_prob, hard_per_image=hard_per_image,
                                  mild=mild, side_faces=side_faces)

    # the schedule's length from the first epoch's patches (every epoch draws about as many): an
    # estimate from the dice alone was short when hard negatives and matched positives were added,
    # and the learning rate then sat at its floor for the last third of the epochs
    first = epoch_samples()
    total = epochs * (math.ceil(len(first[1]) * 1.05 / 128) + 1)
    log(f"cls schedule: {total} steps, {math.ceil(len(first[1]) / 128)} per epoch")
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=total, pct_start=0.15)
    lossf = nn.CrossEntropyLoss(label_smoothing=0.05)
    step = 0
    for ep in range(epochs):
        t = time.time()
        x, y = first if ep == 0 else epoch_samples()
        perm = rng.permutation(len(y))
        net.train()
        tot, correct, n = 0.0, 0, 0
        for i in range(0, len(perm), 128):
            idx = perm[i:i + 128]
            xb, yb = torch.from_numpy(x[idx]), torch.from_numpy(y[idx])
            out = net(xb)
            loss = lossf(out, yb)
            opt.zero_grad(); loss.backward(); opt.step()
            if step < total - 1:
                sched.step(); step += 1
            tot += float(loss.detach()) * len(idx); correct += int((out.argmax(1) == yb).sum()); n += len(idx)
        log(f"cls epoch {ep}: loss {tot / n:.4f} acc {correct / n:.4f} ({time.time() - t:.0f}s, {n} patches)")
    return net


def train_detector(items, epochs: int, rng, log, per_epoch: int = 1200,
                   widths: tuple[int, int, int] = (16, 32, 48), die_range: tuple[float, float] = (11.0, 44.0), blur_prob: float = 0.0,
                   fast_resize: bool = False) -> nn.Module:
    """Train the centre/size detector (:class:`DiceDetector` with ``widths`` channels at strides 2,
    4 and 8) on augmented crops from ``items``; ``die_range``, ``blur_prob``: see
    :func:`detector_sample`."""
    net = DiceDetector(widths)
    total = epochs * math.ceil(per_epoch / 32)
    opt = torch.optim.AdamW(net.parameters(), lr=4e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=4e-3, total_steps=total, pct_start=0.15)
    for ep in range(epochs):
        t = time.time()
        net.train()
        tot = 0.0
        for b in range(math.ceil(per_epoch / 32)):
            xs, hs, ls = [], [], []
            for _ in range(32):
                img, item = items[int(rng.integers(len(items)))]
                x, hm, lz = detector_sample(img, item, rng, die_range=die_range, blur_prob=blur_prob,
                                            fast_resize=fast_resize)
                xs.append(x); hs.append(hm); ls.append(lz)
            xb = torch.from_numpy(np.stack(xs))
            hb = torch.from_numpy(np.stack(hs))
            lb = torch.from_numpy(np.stack(ls))
            out = net(xb)
            loss = focal_loss(out[:, 0], hb)
            mask = ~torch.isnan(lb)
            if mask.any():
                loss = loss + 0.5 * nn.functional.smooth_l1_loss(out[:, 1][mask], lb[mask])
            opt.zero_grad(); loss.backward(); opt.step(); sched.step()
            tot += float(loss)
        log(f"det epoch {ep}: loss {tot / math.ceil(per_epoch / 32):.4f} ({time.time() - t:.0f}s)")
    return net


def cube_patches(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` rendered cube patches: (n, 3, 32, 32) float32 and (n,) labels (index in CUBE_VALUES)."""
    from vision.backgrounds import random_background
    from vision.render_dice import CUBE_STYLES, CUBE_VALUES, DieStyle, draw_cube

    xs, ys = [], []
    for _ in range(n):
        bg = random_background(rng, (128, 128))
        size = rng.uniform(30, 60)
        st = CUBE_STYLES[int(rng.integers(len(CUBE_STYLES)))]
        if rng.random() < 0.3:
            st = DieStyle("random", tuple(int(v) for v in rng.integers(0, 256, 3)),
                          tuple(int(v) for v in rng.integers(0, 256, 3)))
        k = int(rng.integers(6))
        cube = draw_cube(bg, (64 + rng.uniform(-4, 4), 64 + rng.uniform(-4, 4)), size, CUBE_VALUES[k],
                         yaw_deg=rng.uniform(0, 360), style=st, oblique=float(rng.uniform(0, 0.3)))
        c = (cube.center[0] + rng.normal(0, 0.05 * size), cube.center[1] + rng.normal(0, 0.05 * size))
        xs.append(photometric(crop_patch(bg, c, size * math.exp(rng.uniform(-0.15, 0.2)), rng.uniform(0, 360),
                                         context=CUBE_CONTEXT), rng))
        ys.append(k)
    return patches_blob(xs), np.asarray(ys, np.int64)


def tilt_patches(n: int, rng: np.random.Generator, real: list) -> tuple[np.ndarray, np.ndarray]:
    """``n`` patches as :func:`vision.cocked.oriented_patch` gives them (board plane from above,
    parallax pointing up) for the tilt network: (n, 3, 32, 32) float32 and (n,) labels (1 = the die
    does not rest flat). Half are tilted renders (4..45 degrees, leaning any way); flat ones are
    renders with parallax up to 0.45 (the renderer's ``oblique`` shifts heights upwards, as the
    oriented patch puts parallax) and real dice from ``real`` [(image, LabelledImage)] (nell-byler
    only: photos taken from above, principal point at the image centre)."""
    from vision.cocked import TILT_CONTEXT, TILT_PATCH, oriented_patch
    from vision.backgrounds import random_background
    from vision.render_dice import DIE_STYLES, DieStyle, draw_die

    xs, ys = [], []
    for i in range(n):
        tilted = i % 2 == 1
        if not tilted and real and rng.random() < 0.3:
            img, item = real[int(rng.integers(len(real)))]
            j = int(rng.integers(len(item.values)))
            s = die_sizes(item)[j]
            c = item.centers[j] + rng.normal(0, 0.05 * s, 2)
            xs.append(photometric(oriented_patch(img, tuple(c), s * math.exp(rng.uniform(-0.15, 0.2)), None, None,
                                                 TILT_PATCH, TILT_CONTEXT), rng, strong=False))
            ys.append(0)
            continue
        bg = random_background(rng, (160, 160))
        size = rng.uniform(24, 50)
        st = DIE_STYLES[int(rng.integers(len(DIE_STYLES)))]
        if rng.random() < 0.25:
            st = DieStyle("random", tuple(int(v) for v in rng.integers(0, 256, 3)),
                          tuple(int(v) for v in rng.integers(0, 256, 3)))
        tilt = float(rng.uniform(4, 45)) if tilted else 0.0
        oblique = float(rng.uniform(0, 0.45)) if rng.random() < 0.7 else float(rng.uniform(0, 0.08))
        d = draw_die(bg, (80, 80), size, int(rng.integers(1, 7)), yaw_deg=rng.uniform(0, 360), tilt_deg=tilt,
                     tilt_dir_deg=rng.uniform(0, 360), style=st, oblique=oblique)
        c = (d.center[0] + rng.normal(0, 0.06 * size), d.center[1] + rng.normal(0, 0.06 * size))
        # principal point far below: "outwards" is up, give or take 20 degrees
        a = math.radians(rng.uniform(-20, 20))
        principal = (c[0] - 1000 * math.sin(a), c[1] + 1000 * math.cos(a))
        xs.append(photometric(oriented_patch(bg, c, size * math.exp(rng.uniform(-0.15, 0.25)), None, principal,
                                             TILT_PATCH, TILT_CONTEXT), rng, strong=False))
        ys.append(int(tilted))
    return patches_blob(xs), np.asarray(ys, np.int64)


def board_tilt_pool(n_boards: int, rng: np.random.Generator) -> tuple[list[np.ndarray], list[int], list[float]]:
    """Dice on rendered boards (half of the rolls with a tilted die, 4..45 degrees) seen as the
    tilt network sees them at run time (:func:`vision.cocked.oriented_patch` with the board's
    homography), stored as wide 96x96 patches (context 4.8) for jittered re-cropping:
    (patches, labels 1 = tilted, die sides in patch pixels)."""
    from vision.cocked import oriented_patch
    from vision.render_roll import render_roll_on_board

    pool, labels, sizes = [], [], []
    for _ in range(n_boards):
        roll = render_roll_on_board(rng, cocked_prob=0.6, kinds=("tilted",), tilt_range=(4.0, 45.0),
                                    on_checker_prob=0.2, cube_prob=0.3)
        hmg = np.asarray(roll.field.homography, dtype=np.float64)
        for d in roll.dice:
            pool.append(oriented_patch(roll.image, d.center, d.size, hmg, None, 96, 4.8))
            labels.append(int(d.reason == "tilted"))
            sizes.append(96 / 4.8)
    return pool, labels, sizes


def pool_patches(pool, labels, sizes, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` jittered 32x32 tilt patches (context 1.6) re-cropped from :func:`board_tilt_pool`."""
    from vision.cocked import TILT_CONTEXT, TILT_PATCH

    idx = rng.integers(len(pool), size=n)
    xs = []
    for i in idx:
        s = sizes[i]
        c = (48 + rng.normal(0, 0.06 * s), 48 + rng.normal(0, 0.06 * s))
        xs.append(photometric(crop_patch(pool[i], c, s * math.exp(rng.uniform(-0.15, 0.25)), rng.uniform(-15, 15),
                                         TILT_PATCH, TILT_CONTEXT), rng, strong=False))
    return patches_blob(xs), np.asarray([labels[i] for i in idx], np.int64)


def train_on_arrays(make, classes: int, epochs: int, rng, log, name: str) -> DiceClassifier:
    """Train a :class:`DiceClassifier` with ``classes`` outputs on fresh batches ``make()`` per epoch."""
    net = DiceClassifier(classes=classes)
    x, y = make()
    steps = math.ceil(len(y) / 128)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=epochs * steps + 1, pct_start=0.15)
    lossf = nn.CrossEntropyLoss(label_smoothing=0.05)
    for ep in range(epochs):
        t = time.time()
        if ep:
            x, y = make()
        perm = rng.permutation(len(y))
        net.train()
        correct, n = 0, 0
        for i in range(0, len(perm), 128):
            idx = perm[i:i + 128]
            xb, yb = torch.from_numpy(x[idx]), torch.from_numpy(y[idx])
            out = net(xb)
            loss = lossf(out, yb)
            opt.zero_grad(); loss.backward(); opt.step(); sched.step()
            correct += int((out.argmax(1) == yb).sum()); n += len(idx)
        log(f"{name} epoch {ep}: acc {correct / n:.4f} ({time.time() - t:.0f}s)")
    return net


def export(net: nn.Module, example: torch.Tensor, path: pathlib.Path, dynamic: dict,
           held_out: int | str | None = None) -> None:
    """Export ``net`` to ONNX (opset 13) at ``path`` and record in the folder's ``training.json``
    the real-photo folds it was trained on (all but ``held_out``; :func:`vision.model_folds.record_folds`)."""
    from vision.model_folds import record_folds

    net.eval()
    torch.onnx.export(net, example, str(path), input_names=["input"], output_names=["output"],
                      dynamic_axes=dynamic, opset_version=13, dynamo=False)
    record_folds(path.parent, path.name, held_out)


def main() -> None:
    """Command line entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fold", default="all", help="held-out fold 0 or 1, or 'all' to train on everything")
    ap.add_argument("--holdout-dataset", default=None, help="train without this dataset folder")
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("vision/models"))
    ap.add_argument("--data", type=pathlib.Path, default=DATA)
    ap.add_argument("--cls-epochs", type=int, default=30)
    ap.add_argument("--det-epochs", type=int, default=30)
    ap.add_argument("--only", choices=["cls", "det", "cube", "tilt"], default=None)
    ap.add_argument("--aux-epochs", type=int, default=25, help="epochs of the cube-value and tilt networks")
    ap.add_argument("--synthetic", type=int, default=0, help="synthetic images to add (vision.render_dice)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--boards", type=int, default=0, help="rendered boards with rolls to add")
    ap.add_argument("--mine-field", type=pathlib.Path, default=None,
                    help="with --hard-negatives: a registered-board detector (dice_detector_field.onnx) whose false "
                         "alarms on the rendered boards, searched at 0.6, 1.0 and 1.7 times their dice's side, are mined too")
    ap.add_argument("--hard-negatives", type=pathlib.Path, default=None,
                    help="a trained dice_detector.onnx: its false alarms on the training images become negatives")
    ap.add_argument("--board-dice", type=float, nargs=2, default=None, metavar=("LOW", "HIGH"),
                    help="dice on the rendered boards from LOW to HIGH times a checker's diameter "
                         "(default: tournament dice, 0.38..0.54)")
    ap.add_argument("--touching", type=int, default=0,
                    help="rendered boards with two dice lying against each other to add")
    ap.add_argument("--without-dice-kind", choices=[s.name for s in DIE_STYLES], default=None,
                    help="leave this kind of dice (vision.render_dice.DIE_STYLES) out of the synthetic photos, "
                         "the rendered boards and the touching boards (leave-one-dice-kind-out)")
    ap.add_argument("--real-on-boards", type=int, default=0,
                    help="rendered boards with two real dice of the training photos pasted on each")
    ap.add_argument("--hinges", type=float, default=0.7,
                    help="share (0..1) of the --real-on-boards boards with hinges on the bar")
    ap.add_argument("--real-placements", type=float, nargs=3, default=[1.0, 0.0, 0.0], metavar=("APART", "TOUCHING", "CHECKER"),
                    help="shares of the --real-on-boards boards whose dice lie apart, face to face, or one against "
                         "a checker (vision.dice_cutouts.PLACEMENTS)")
    ap.add_argument("--tilt-boards", type=int, default=0, help="rendered boards for the tilt network's pool")
    ap.add_argument("--det-widths", type=int, nargs=3, default=[10, 20, 30],
                    help="detector channels at strides 2, 4 and 8")
    ap.add_argument("--det-range", type=float, nargs=2, default=[11.0, 44.0],
                    help="detector training: die sides (pixels at its input) drawn from this range")
    ap.add_argument("--fast-resize", action="store_true",
                    help="detector training images shrunk as the registered-board detector's input is at run time")
    ap.add_argument("--det-crops", type=int, default=1200, help="detector training crops per epoch")
    ap.add_argument("--hard-radius", type=float, default=0.5,
                    help="false alarms closer than this x die size to a labelled die are not used")
    ap.add_argument("--jitter", type=float, default=0.06, help="classifier positives' centre jitter (x die side)")
    ap.add_argument("--matched-positives", action="store_true",
                    help="with --hard-negatives: the detector's candidates on labelled dice become extra positives")
    ap.add_argument("--cls-width", type=int, default=16, help="value classifier width")
    ap.add_argument("--cls-patch", type=int, default=VALUE_PATCH,
                    help="value classifier patch side (pixels; DiceSettings.photo_value_patch / value_patch)")
    ap.add_argument("--cls-scale-jitter", type=float, default=0.15,
                    help="value classifier crops: die side x exp(uniform(-J, J + 0.05))")
    ap.add_argument("--blur", type=float, default=0.0, help="share of classifier patches given a motion blur")
    ap.add_argument("--skip-cube", action="store_true", help="do not train the cube-value network")
    ap.add_argument("--mine-pyramid", type=int, nargs="+", default=[192, 384, 768],
                    help="free photos' pyramid (long sides, pixels) when mining --hard-negatives")
    ap.add_argument("--mine-finest", type=float, default=0.77,
                    help="finest pyramid level's largest scale when mining (1.0: the photo's own resolution)")
    ap.add_argument("--hard-per-image", type=int, default=8, help="mined false alarms used per image and epoch")
    ap.add_argument("--cls-name", default="dice_classifier.onnx",
                    help="file name of the exported value classifier (dice_classifier_photo.onnx: free photos)")
    ap.add_argument("--marbled", type=float, default=0.0,
                    help="share (0..1) of the randomly coloured synthetic dice drawn marbled (veins of a third colour)")
    ap.add_argument("--translucent", type=float, default=0.0,
                    help="share (0..1) of the randomly coloured synthetic dice drawn translucent, hidden pips showing")
    ap.add_argument("--distractors", type=float, default=0.0,
                    help="share (0..1) of the synthetic photos that also get printed text, checkers, scales, "
                         "symbols and a clock's digits, read as 'not a die'")
    ap.add_argument("--mild-aug", action="store_true",
                    help="classifier patches: no grey conversion, lighter blur (see photometric)")
    ap.add_argument("--side-faces", type=float, default=0.0,
                    help="share of real dice that also give a 'not a die' patch where an oblique photo shows their front face")
    ap.add_argument("--raw-boxes", action="store_true",
                    help="train on the labelled boxes as they are (a one's pip box is not widened to its die)")
    ap.add_argument("--label-corrections", type=pathlib.Path, default=None,
                    help="train against the real photos' labels with these corrections applied "
                         "(benchmarks/dice_label_corrections.json; vision.label_corrections)")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    for share in ("marbled", "translucent", "distractors", "hinges"):
        if not 0.0 <= getattr(args, share) <= 1.0:
            ap.error(f"--{share} must be a share 0..1, got {getattr(args, share)}")
    if min(args.real_placements) < 0 or sum(args.real_placements) <= 0:
        ap.error("--real-placements: three shares, none negative, one of them positive")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    logf = open(args.out / "train_log.txt", "a")

    def log(msg: str) -> None:
        print(msg, flush=True)
        logf.write(msg + "\n"); logf.flush()

    corrections = []
    if args.label_corrections is not None:
        from vision.label_corrections import load_label_corrections

        corrections = load_label_corrections(args.label_corrections)
    styles = tuple(s for s in DIE_STYLES if s.name != args.without_dice_kind)
    items = []
    for name, data in iter_datasets(args.data):
        if name == args.holdout_dataset:
            continue
        if corrections:
            from vision.label_corrections import with_corrections

            # the labels as they should be: a three labelled 2 teaches "2", a die nobody labelled
            # is mined as "not a die"; applied to the raw boxes, before with_die_boxes
            data, applied = with_corrections(data, corrections)
            log(f"{name}: {applied} label correction(s) from {args.label_corrections} (with those of a held-out fold)")
        if not args.raw_boxes:
            # boxes of a one's pip alone (matteop65) become boxes of the die
            data = with_die_boxes(data)
        for it in data:
            if args.fold != "all" and it.fold() == int(args.fold):
                continue
            items.append((cv2.imread(str(it.path)), it))
    photos = [it for _, it in items]
    if args.synthetic:
        from vision.dice_photos import synthetic_training_images
        items += synthetic_training_images(args.synthetic, rng, backgrounds=[], marbled=args.marbled,
                                           translucent=args.translucent, distractors=args.distractors,
                                           dice_styles=styles)
        # plain table backgrounds only: pasting onto the real photos could cover labelled dice
    if args.boards:
        items += board_items(args.boards, rng, tuple(args.board_dice) if args.board_dice else None, styles)
    if args.touching:
        items += touching_items(args.touching, rng, styles)
    if args.real_on_boards:
        from vision.dice_cutouts import cut_dice, real_dice_boards

        items += real_dice_boards(args.real_on_boards, rng, cut_dice(photos), hinges=args.hinges,
                                  placements=tuple(args.real_placements))
    log(f"training on {len(items)} images (fold held out: {args.fold}, dataset held out: {args.holdout_dataset}, "
        f"dice kind held out: {args.without_dice_kind})")
    if args.only in (None, "cls"):
        hard, matched = (mine_hard_negatives(items, args.hard_negatives, log, args.hard_radius,
                                             args.mine_finest, tuple(args.mine_pyramid), args.mine_field)
                         if args.hard_negatives else (None, None))
        cls = train_classifier(items, args.cls_epochs, rng, log, hard, args.jitter,
                               matched if args.matched_positives else None, args.cls_width,
                               (-args.cls_scale_jitter, args.cls_scale_jitter + 0.05), args.blur,
                               patch=args.cls_patch, hard_per_image=args.hard_per_image,
                               mild=args.mild_aug, side_faces=args.side_faces)
        export(cls, torch.zeros(1, 3, args.cls_patch, args.cls_patch), args.out / args.cls_name,
               {"input": {0: "n"}, "output": {0: "n"}}, args.fold)
    if args.only in (None, "det"):
        det = train_detector(items, args.det_epochs, rng, log, per_epoch=args.det_crops,
                             widths=tuple(args.det_widths), die_range=tuple(args.det_range), blur_prob=args.blur,
                             fast_resize=args.fast_resize)
        export(det, torch.zeros(1, 3, 192, 192), args.out / "dice_detector.onnx",
               {"input": {2: "h", 3: "w"}, "output": {2: "gh", 3: "gw"}}, args.fold)
    if args.only in (None, "cube") and not args.skip_cube:
        net = train_on_arrays(lambda: cube_patches(3000, rng), 6, args.aux_epochs, rng, log, "cube")
        export(net, torch.zeros(1, 3, PATCH, PATCH), args.out / "dice_cube.onnx", {"input": {0: "n"}, "output": {0: "n"}},
               args.fold)
    if args.only in (None, "tilt"):
        real = [(img, it) for img, it in items if it.dataset == "nell-byler"]
        if args.tilt_boards:
            pool, plabels, psizes = board_tilt_pool(args.tilt_boards, rng)
            log(f"tilt pool: {len(pool)} dice on rendered boards, {sum(plabels)} tilted")

            def make():
                a, b = tilt_patches(1500, rng, real)
                c, d = pool_patches(pool, plabels, psizes, 1500, rng)
                return np.concatenate([a, c]), np.concatenate([b, d])
        else:
            def make():
                return tilt_patches(3000, rng, real)
        net = train_on_arrays(make, 2, args.aux_epochs, rng, log, "tilt")
        export(net, torch.zeros(1, 3, PATCH, PATCH), args.out / "dice_tilt.onnx", {"input": {0: "n"}, "output": {0: "n"}},
               args.fold)
    log("done")


if __name__ == "__main__":
    main()

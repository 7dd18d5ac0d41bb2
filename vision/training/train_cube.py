"""Train the doubling-cube network (``dice_cube.onnx``): which number is on the cube's top face,
or is this not a cube at all?

    python -m vision.training.train_cube --out Q --threads 1   # 1,800 boards, 18,000 plain, 36 epochs

Outputs 7 classes: the values 2, 4, 8, 16, 32, 64 and "not a cube". Examples, all cropped as
:mod:`vision.cube` crops at run time (:func:`vision.dice_patches.crop_patch`, ``CUBE_CONTEXT`` x
the detector's size estimate, which is noisy: the crop's centre, size and turn are jittered, the
size from 0.5 to 1.35 times the cube's side, since the detector, trained on dice, often sizes a cube
at half to two thirds of its side):

- cubes drawn by :func:`vision.render_dice.draw_cube` with random looks
  (:class:`vision.render_dice.CubeLook`: five fonts, thin to bold, numbers on a disc, a maker's
  logo in place of 64), cube colours and random colours, at any turn, seen straight down or
  obliquely (side faces showing), on random table backgrounds and at the cube's places on rendered
  boards (the bar, the trays, the rails); a tenth of those on tables lie at the photo's edge, cut
  by it;
- not a cube: rendered dice (every style, flat and tilted), real dice from the training fold of
  ``shared/data/dice`` (fold 1 when ``--fold 0`` is held out), and spots of rendered boards
  (checkers, points, the bar, the frame).

No real cube photo is used (the nine labelled board photos are the test). torch is needed for
training only.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import time

import numpy as np

NOT_A_CUBE = 6


def _cube_style(rng: np.random.Generator):
    from vision.render_dice import CUBE_STYLES, DieStyle

    if rng.random() < 0.35:
        body = tuple(int(v) for v in rng.integers(0, 256, 3))
        ink = tuple(int(v) for v in (255 - np.array(body) + rng.normal(0, 40, 3)).clip(0, 255))
        return DieStyle("random", body, ink, alpha=float(rng.choice([1.0, 1.0, 0.85])))
    return CUBE_STYLES[int(rng.integers(len(CUBE_STYLES)))]


def _crop(img: np.ndarray, center, size: float, rng: np.random.Generator) -> np.ndarray:
    from vision.dice_patches import CUBE_CONTEXT, crop_patch

    c = (center[0] + rng.normal(0, 0.07 * size), center[1] + rng.normal(0, 0.07 * size))
    return crop_patch(img, c, size * math.exp(rng.uniform(-0.7, 0.3)), float(rng.uniform(0, 360)),
                      context=CUBE_CONTEXT)


def _cut_at_edge(img: np.ndarray, center, size: float, rng: np.random.Generator):
    """``img`` ((H, W, 3) uint8) cut on one side, 0.2 to 0.5 of the cube's side ``size`` (pixels)
    from its ``center``: the image ends there, as a photo's edge does, and up to 30% of the cube
    falls outside it. Returns the cut image (a view) and the centre in its pixels."""
    cut = int(round(float(rng.uniform(0.2, 0.5)) * size))
    x, y = center
    side = int(rng.integers(4))
    if side == 0:
        x0 = max(int(x) - cut, 0)
        return img[:, x0:], (x - x0, y)
    if side == 1:
        return img[:, :int(x) + cut + 1], (x, y)
    if side == 2:
        y0 = max(int(y) - cut, 0)
        return img[y0:], (x, y - y0)
    return img[:int(y) + cut + 1], (x, y)


def make_samples(n_boards: int, n_plain: int, real_items, rng: np.random.Generator,
                 log=print) -> tuple[np.ndarray, np.ndarray]:
    """Patches and labels (index in CUBE_VALUES, or :data:`NOT_A_CUBE`): (N, 32, 32, 3) uint8 and
    (N,) int64."""
    import cv2

    from vision.backgrounds import random_background
    from vision.render_dice import CUBE_VALUES, DIE_STYLES, CubeLook, draw_cube, draw_die
    from vision.render_roll import random_board_scene

    xs, ys = [], []
    t0 = time.time()

    def cube_on(img, center, size, parallax):
        st = _cube_style(rng)
        k = int(rng.integers(6))
        c = draw_cube(img, center, size, CUBE_VALUES[k], yaw_deg=float(rng.uniform(0, 360)), style=st,
                      parallax=parallax, look=CubeLook.random(rng, st))
        return c, k

    for b in range(n_boards):
        scene = random_board_scene(rng)
        field = scene.field
        fw, fh = field.size
        s = scene.die_px
        h, w = scene.image.shape[:2]
        for _ in range(3):  # cubes where cubes lie: bar, trays and rails (inside the image)
            fx = float(rng.choice([(field.bar_x0 + field.bar_x1) / 2, -0.06 * fw, 1.06 * fw]))
            fy = float(rng.choice([0.08, 0.5, 0.92])) * fh + rng.normal(0, 0.05 * fh)
            x, y = scene.to_image(fx, fy)
            if not (s < x < w - s and s < y < h - s):
                continue
            img = scene.image.copy()
            size = s * float(rng.uniform(1.1, 1.7))
            par = scene.parallax(x, y) if rng.random() < 0.6 else tuple(rng.normal(0, 0.2, 2))
            c, k = cube_on(img, (x, y), size, par)
            xs.append(_crop(img, c.center, size, rng)); ys.append(k)
        for _ in range(2):  # dice on the board: not a cube
            x, y = rng.uniform(s, w - s), rng.uniform(s, h - s)
            img = scene.image.copy()
            tilt = float(rng.uniform(5, 45)) if rng.random() < 0.3 else 0.0
            d = draw_die(img, (x, y), s, int(rng.integers(1, 7)), yaw_deg=float(rng.uniform(0, 360)), tilt_deg=tilt,
                         tilt_dir_deg=float(rng.uniform(0, 360)), style=DIE_STYLES[int(rng.integers(len(DIE_STYLES)))],
                         parallax=scene.parallax(x, y))
            xs.append(_crop(img, d.center, s * float(rng.uniform(1.0, 1.6)), rng)); ys.append(NOT_A_CUBE)
        for _ in range(2):  # anything else on the board: checkers, points, bar, frame
            if scene.checkers and rng.random() < 0.5:
                cx, cy, r = scene.checkers[int(rng.integers(len(scene.checkers)))]
                x, y = cx + rng.normal(0, 0.3 * r), cy + rng.normal(0, 0.3 * r)
            else:
                x, y = rng.uniform(s, w - s), rng.uniform(s, h - s)
            xs.append(_crop(scene.image, (x, y), s * float(rng.uniform(1.0, 2.0)), rng)); ys.append(NOT_A_CUBE)
        if (b + 1) % 100 == 0:
            log(f"  {b + 1} boards, {len(ys)} patches ({time.time() - t0:.0f}s)")
    for _ in range(n_plain):  # cubes and dice on plain tables
        bg = random_background(rng, (128, 128))
        size = float(rng.uniform(22, 56))
        par = (0.0, -float(rng.uniform(0, 0.45))) if rng.random() < 0.6 else (0.0, 0.0)
        if rng.random() < 0.75:
            c, k = cube_on(bg, (64, 64), size, par)
            centre = c.center
            if rng.random() < 0.1:  # a cube at the photo's edge: the image ends across its side
                bg, centre = _cut_at_edge(bg, centre, size, rng)
            xs.append(_crop(bg, centre, size, rng)); ys.append(k)
        else:
            d = draw_die(bg, (64, 64), size / 1.3, int(rng.integers(1, 7)), yaw_deg=float(rng.uniform(0, 360)),
                         style=DIE_STYLES[int(rng.integers(len(DIE_STYLES)))], parallax=par)
            xs.append(_crop(bg, d.center, size, rng)); ys.append(NOT_A_CUBE)
    for it in real_items:  # real dice: not a cube
        img = cv2.imread(str(it.path))
        if img is None:
            continue
        sizes = np.maximum(it.boxes[:, 2] - it.boxes[:, 0], it.boxes[:, 3] - it.boxes[:, 1])
        for c, sz in zip(it.centers, sizes):
            xs.append(_crop(img, (float(c[0]), float(c[1])), float(sz) * float(rng.uniform(1.0, 1.5)), rng))
            ys.append(NOT_A_CUBE)
    return np.stack(xs), np.asarray(ys, np.int64)


def main() -> None:
    """Command line entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=pathlib.Path, required=True)
    ap.add_argument("--boards", type=int, default=1800)
    ap.add_argument("--plain", type=int, default=18000)
    ap.add_argument("--epochs", type=int, default=36)
    ap.add_argument("--per-epoch", type=int, default=10000)
    ap.add_argument("--fold", type=int, default=0, help="real-photo fold held out (never used)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--cache", type=pathlib.Path, default=None)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    import torch
    from torch import nn

    from vision.dice_data import default_dice_root, iter_datasets
    from vision.dice_patches import patches_blob
    from vision.training.nets import DiceClassifier
    from vision.training.train_dice import export
    from vision.training.train_tilt import augment

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    logf = open(args.out / "train_cube_log.txt", "a")

    def log(msg: str) -> None:
        print(msg, flush=True)
        logf.write(msg + "\n"); logf.flush()

    log(f"train_cube: {vars(args)}")
    if args.cache is not None and args.cache.is_file():
        z = np.load(args.cache)
        x, y, vx, vy = z["x"], z["y"], z["vx"], z["vy"]
    else:
        rng = np.random.default_rng(args.seed)
        real = [it for _, data in iter_datasets(default_dice_root()) for it in data if it.fold() != args.fold]
        x, y = make_samples(args.boards, args.plain, real[::2], rng, log)
        vx, vy = make_samples(max(args.boards // 6, 1), args.plain // 6, real[1::8], np.random.default_rng(args.seed + 1000), log)
        if args.cache is not None:
            np.savez_compressed(args.cache, x=x, y=y, vx=vx, vy=vy)
    log(f"{len(y)} training patches ({int((y < NOT_A_CUBE).sum())} cubes), {len(vy)} validation")
    rng = np.random.default_rng(args.seed + 1)
    net = DiceClassifier(classes=7)
    steps = math.ceil(args.per_epoch / 128)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.epochs * steps + 1, pct_start=0.15)
    lossf = nn.CrossEntropyLoss(label_smoothing=0.03)
    vblob = torch.from_numpy(patches_blob(list(vx)))
    for ep in range(args.epochs):
        t = time.time()
        idx = rng.integers(len(y), size=args.per_epoch)
        px, py = augment(x[idx], rng, mirror=False), y[idx]  # a mirrored number is not a number
        net.train()
        correct = 0
        for i in range(0, len(py), 128):
            xb = torch.from_numpy(patches_blob(list(px[i:i + 128])))
            yb = torch.from_numpy(py[i:i + 128])
            out = net(xb)
            loss = lossf(out, yb)
            opt.zero_grad(); loss.backward(); opt.step(); sched.step()
            correct += int((out.argmax(1) == yb).sum())
        net.eval()
        with torch.no_grad():
            pred = torch.cat([net(vblob[i:i + 512]) for i in range(0, len(vblob), 512)]).argmax(1).numpy()
        cubes = vy < NOT_A_CUBE
        log(f"epoch {ep}: train acc {correct / len(py):.4f}, val value acc {(pred[cubes] == vy[cubes]).mean():.4f}, "
            f"val not-a-cube acc {(pred[~cubes] == NOT_A_CUBE).mean():.4f} ({time.time() - t:.0f}s)")
    export(net, torch.zeros(1, 3, 32, 32), args.out / "dice_cube.onnx", {"input": {0: "n"}, "output": {0: "n"}}, args.fold)
    log("done")


if __name__ == "__main__":
    main()

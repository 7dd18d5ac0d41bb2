"""Train the tilt network (``dice_tilt.onnx``): does a die rest flat on the board?

    python -m vision.training.train_tilt --out T --boards 1200 --epochs 14 --threads 1

The network reads the die as :func:`vision.cocked.oriented_patch` shows it at run time: the board
seen from above (through the board's homography), turned so the camera's parallax points up. Its
examples:

- dice drawn on rendered boards (:func:`vision.render_roll.random_board_scene`: random board styles,
  states, cameras, lighting; with ``--wide-boards`` boards of any colours whose checkers carry
  letters and whose field a maker's print; ``--board-dice`` dice from small travel dice to jumbo
  dice; ``--die-as-under`` some dice the colour of the point or field they lie on; ``--on-edges``
  some dice lying across a point's long edge, flat and tilted alike), several per
  board, each on a fresh copy of the frame; half are tilted
  4..50 degrees and held up as a die is on a real board (:data:`vision.render_roll.LEAN_KINDS`:
  leaning on a checker, against the rail or the bar, balanced on an edge, or free); the flat half
  lies in the open, against a checker (touching it but flat), on a checker or next to the rail,
  so that touching something is not mistaken for leaning on it;
- real flat dice (``shared/data/dice``, every dataset, only the training fold: fold 1 when
  ``--fold 0`` is held out), seen with the principal point at the photo's centre.

Each die is cropped a few times with the centre and size jittered as the detector's are (its
centre lies between the top face's and the whole outline's, its size is often larger than the
die's). A
validation set from another seed (rendered boards, and a fifth of the real training photos kept
apart) gives the threshold: the lowest tilt probability that calls no real flat die and at most
0.5% of rendered flat dice cocked (printed; :data:`vision.cocked.TILT_THRESHOLD` is chosen at or
above it on validation games and the real board photos, as its comment says).
The test seeds of :func:`vision.render_roll.evaluate_cocked_rendered` (1234, 99) are never used.
torch is needed for training only.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import time
from typing import Optional

import numpy as np


def _style(rng: np.random.Generator, under: Optional[np.ndarray] = None, under_share: float = 0.0):
    """A die's colours: one of :data:`vision.render_dice.DIE_STYLES`, or random colours (a quarter);
    with probability ``under_share`` the body is ``under`` ((3,) BGR, the colour the die lies on,
    jittered a little) and the pips black or white, whichever stands out."""
    from vision.render_dice import DIE_STYLES, DieStyle, style_as_under

    if under is not None and under_share and rng.random() < under_share:
        return style_as_under(rng, under)
    if rng.random() < 0.25:
        return DieStyle("random", tuple(int(v) for v in rng.integers(0, 256, 3)),
                        tuple(int(v) for v in rng.integers(0, 256, 3)), pip_scale=float(rng.uniform(0.75, 1.2)))
    return DIE_STYLES[int(rng.integers(len(DIE_STYLES)))]


def _on_point_edge(rng: np.random.Generator, scene, half: str) -> Optional[tuple[float, float]]:
    """Image pixels of a spot on the long edge of a point of ``half`` (between its base and its
    tip), clear of the checkers, or None: a die lying there shows the edge's line beside its face,
    flat or tilted alike."""
    s = scene.die_px
    points = [g for g in scene.field.points() if g.half == half]
    for _ in range(20):
        g = points[int(rng.integers(len(points)))]
        corner = g.x0 if rng.random() < 0.5 else g.x1
        t = float(rng.uniform(0.15, 0.95))
        fx = corner + t * ((g.x0 + g.x1) / 2 - corner)
        fy = g.base_y + t * g.direction * g.length
        x, y = scene.to_image(fx, fy)
        if all(np.hypot(x - cx, y - cy) > r + 0.75 * s for cx, cy, r in scene.checkers):
            return x, y
    return None


def board_dice(rng: np.random.Generator, boards: int, per_board: int = 8, views: int = 2,
               log=print, die_to_checker: Optional[tuple[float, float]] = None, wide: float = 0.0,
               under_share: float = 0.0, edge_share: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tilt patches of dice drawn on ``boards`` rendered boards: ((N, 32, 32, 3) uint8 BGR,
    (N,) int64 labels 1 = not flat, (N,) float64 tilt in degrees). ``die_to_checker``: the dice's
    side over a checker's diameter, low and high (None: tournament dice,
    :func:`vision.render_roll.random_board_scene`); ``wide``: the share of boards of any colours
    with marked checkers and printed fields; ``under_share``: the share of dice the colour of what
    they lie on (a red die on a red point); ``edge_share``: the share of dice lying in the open
    (flat, tilted freely or balanced on an edge) moved onto a point's long edge."""
    from vision.cocked import TILT_CONTEXT, TILT_PATCH, oriented_patch
    from vision.render_dice import draw_die
    from vision.render_roll import LEAN_KINDS, _lean_pose, random_board_scene

    xs, ys, tilts = [], [], []
    t0 = time.time()
    for b in range(boards):
        scene = random_board_scene(rng, die_to_checker, bool(wide) and rng.random() < wide)
        hmg = np.asarray(scene.field.homography, dtype=np.float64)
        s = scene.die_px
        for _ in range(per_board):
            half = "right" if rng.random() < 0.5 else "left"
            tilted = rng.random() < 0.5
            if tilted:
                kind = str(rng.choice(list(LEAN_KINDS)))
                pose = _lean_pose(rng, scene, kind, half, (4.0, 50.0), [])
            else:
                kind = str(rng.choice(["free", "free", "checker", "rail"]))
                pose = _lean_pose(rng, scene, kind, half, (4.0, 50.0), [])
                if pose is not None:
                    pose = (pose[0], pose[1], 0.0, 0.0, pose[4])
                if rng.random() < 0.15 and scene.checkers:  # flat on top of a checker
                    kind = "on checker"
                    cx, cy, _ = scene.checkers[int(rng.integers(len(scene.checkers)))]
                    pose = (cx, cy, 0.0, 0.0, float(rng.uniform(0, 360)))
            if pose is not None and kind in ("free", "edge") and edge_share and rng.random() < edge_share:
                at = _on_point_edge(rng, scene, half)
                if at is not None:
                    pose = (at[0], at[1], *pose[2:])
            if pose is None:
                continue
            x, y, tilt, tdir, yaw = pose
            img = scene.image.copy()
            under = img[int(np.clip(y, 0, img.shape[0] - 1)), int(np.clip(x, 0, img.shape[1] - 1))]
            d = draw_die(img, (x, y), s * float(rng.uniform(0.9, 1.1)), int(rng.integers(1, 7)), yaw_deg=yaw,
                         tilt_deg=tilt, tilt_dir_deg=tdir, style=_style(rng, under, under_share),
                         parallax=scene.parallax(x, y))
            box_c = np.array([(d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2])
            for _ in range(views):
                # as the detector reports it: somewhere between the top face's centre and the
                # centre of the whole die's outline, and often larger than the die
                c = np.array(d.center) + rng.uniform(0, 1.1) * (box_c - d.center) + rng.normal(0, 0.08 * s, 2)
                xs.append(oriented_patch(img, (float(c[0]), float(c[1])), s * math.exp(rng.uniform(-0.12, 0.4)), hmg,
                                         None, TILT_PATCH, TILT_CONTEXT))
                ys.append(int(tilt > 0))
                tilts.append(tilt)
        if (b + 1) % 200 == 0:
            log(f"  {b + 1} boards, {len(ys)} patches ({time.time() - t0:.0f}s)")
    return np.stack(xs), np.asarray(ys, np.int64), np.asarray(tilts, np.float64)


def _board_dice_chunk(job: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`board_dice` of one worker: ``job`` = (seed, chunk, boards, views, keyword arguments);
    its generator is seeded by (seed, chunk)."""
    seed, chunk, boards, views, kwargs = job
    return board_dice(np.random.default_rng([seed, chunk]), boards, views=views, log=lambda msg: None, **kwargs)


def board_dice_parallel(seed: int, boards: int, workers: int, log=print, **kwargs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`board_dice` over ``boards`` boards rendered by ``workers`` processes, each its own
    generator seeded by (``seed``, chunk): the same arrays for the same seed and worker count."""
    import multiprocessing

    per = [boards // workers + (i < boards % workers) for i in range(workers)]
    jobs = [(seed, i, n, 2, kwargs) for i, n in enumerate(per) if n]
    t0 = time.time()
    with multiprocessing.get_context("fork").Pool(len(jobs)) as pool:
        parts = pool.map(_board_dice_chunk, jobs)
    log(f"  {boards} boards by {len(jobs)} processes ({time.time() - t0:.0f}s)")
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))


def real_flat_dice(items, rng: np.random.Generator, views: int = 2) -> np.ndarray:
    """(N, 32, 32, 3) uint8 tilt patches of the labelled real dice of ``items``
    (:class:`vision.dice_data.LabelledImage`; all flat), principal point at the photo's centre."""
    import cv2

    from vision.cocked import TILT_CONTEXT, TILT_PATCH, oriented_patch

    xs = []
    for it in items:
        img = cv2.imread(str(it.path))
        if img is None:
            continue
        sizes = np.maximum(it.boxes[:, 2] - it.boxes[:, 0], it.boxes[:, 3] - it.boxes[:, 1])
        for c, s in zip(it.centers, sizes):
            for _ in range(views):
                # jittered as the detector's centres and sizes are on free photos
                cc = (float(c[0] + rng.normal(0, 0.1 * s)), float(c[1] + rng.normal(0, 0.1 * s)))
                xs.append(oriented_patch(img, cc, float(s) * math.exp(rng.uniform(-0.25, 0.45)), None, None,
                                         TILT_PATCH, TILT_CONTEXT))
    return np.stack(xs) if xs else np.zeros((0, 32, 32, 3), np.uint8)


def augment(patches: np.ndarray, rng: np.random.Generator, mirror: bool = True) -> np.ndarray:
    """Photometric jitter (brightness, contrast, colour, blur, noise) and, when ``mirror``, a
    left-right mirror of half of them (the parallax still points up) of (N, 32, 32, 3) uint8
    patches."""
    import cv2

    # float32 throughout (float64 parameters would promote the whole batch: 4x the time, and
    # the augmentation, not the network, bounds an epoch's time on a GPU)
    def uniform(lo: float, hi: float, shape: tuple[int, ...]) -> np.ndarray:
        return rng.uniform(lo, hi, shape).astype(np.float32)

    out = patches.astype(np.float32)
    n = len(out)
    out = out * uniform(0.7, 1.3, (n, 1, 1, 1)) + uniform(-25, 25, (n, 1, 1, 1)) + uniform(-12, 12, (n, 1, 1, 3))
    mean = out.mean(axis=(1, 2, 3), keepdims=True)
    out = (out - mean) * uniform(0.75, 1.25, (n, 1, 1, 1)) + mean
    for i in np.nonzero(rng.random(n) < 0.3)[0]:
        out[i] = cv2.GaussianBlur(out[i], (0, 0), float(rng.uniform(0.4, 1.0)))
    out += rng.standard_normal(out.shape, dtype=np.float32) * uniform(0, 5, (n, 1, 1, 1))
    if mirror:
        flip = rng.random(n) < 0.5
        out[flip] = out[flip][:, :, ::-1]
    return np.clip(out, 0, 255).astype(np.uint8)


def scores(net, patches: np.ndarray, device: str = "cpu") -> np.ndarray:
    """(N,) probability of "not flat" from the torch ``net`` (on ``device``) for uint8 patches."""
    import torch

    from vision.dice_patches import patches_blob

    net.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(patches), 512):
            logits = net(torch.from_numpy(patches_blob(list(patches[i:i + 512]))).to(device))
            out.append(torch.softmax(logits, 1)[:, 1].cpu().numpy())
    return np.concatenate(out) if out else np.zeros(0)


def choose_threshold(val_scores: np.ndarray, val_labels: np.ndarray, real_scores: np.ndarray,
                     max_flat_rate: float = 0.005) -> float:
    """The lowest threshold (0.5..0.99) at which no real flat die and at most ``max_flat_rate`` of
    the rendered flat dice score above it."""
    flat = val_scores[val_labels == 0]
    for t in np.arange(0.5, 0.991, 0.01):
        if (real_scores > t).sum() == 0 and (flat > t).mean() <= max_flat_rate:
            return float(round(t, 2))
    return 0.99


def report(models: pathlib.Path, vx: np.ndarray, vy: np.ndarray, vtilts: np.ndarray, vreal: np.ndarray, log) -> float:
    """Score the validation patches with the exported model as run time runs it
    (:class:`vision.cocked.TiltModel`, mirrored too), log the chosen threshold and the recall by
    tilt; returns the threshold."""
    from vision.cocked import TiltModel

    tm = TiltModel(models)
    vs = np.concatenate([tm.scores(list(vx[i:i + 256])) for i in range(0, len(vx), 256)])
    rs = tm.scores(list(vreal))
    thr = choose_threshold(vs, vy, rs)
    flat = vs[vy == 0]
    log(f"threshold {thr}: rendered flat called tilted {(flat > thr).mean():.4f} ({len(flat)}), "
        f"real flat {(rs > thr).sum()}/{len(rs)} (max {rs.max():.3f})")
    for lo, hi in ((4, 8), (8, 15), (15, 25), (25, 35), (35, 51)):
        m = (vtilts >= lo) & (vtilts < hi)
        if m.any():
            log(f"  tilt {lo}-{hi}: recall {(vs[m] > thr).mean():.3f} ({int(m.sum())})")
    m = vtilts >= 8
    log(f"  tilt 8-50: recall {(vs[m] > thr).mean():.3f} ({int(m.sum())})")
    return thr


def main() -> None:
    """Command line entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=pathlib.Path, required=True)
    ap.add_argument("--boards", type=int, default=1200, help="rendered boards for training")
    ap.add_argument("--val-boards", type=int, default=150, help="rendered boards for validation (another seed)")
    ap.add_argument("--epochs", type=int, default=14)
    ap.add_argument("--per-epoch", type=int, default=12000)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--evaluate", type=pathlib.Path, default=None,
                    help="only report the validation figures of the dice_tilt.onnx in this folder (with --cache)")
    ap.add_argument("--fresh-real", action="store_true", help="with --cache: crop the real dice again")
    ap.add_argument("--real-share", type=float, default=0.2, help="share of real flat dice in each epoch")
    ap.add_argument("--min-tilt", type=float, default=0.0, help="leave rendered tilts below this out of training")
    ap.add_argument("--board-dice", type=float, nargs=2, default=None, metavar=("LOW", "HIGH"),
                    help="dice from LOW to HIGH times a checker's diameter (default: tournament dice, 0.38..0.54)")
    ap.add_argument("--wide-boards", type=float, default=0.0,
                    help="share of boards of any colours, with letters on the checkers and a maker's print")
    ap.add_argument("--die-as-under", type=float, default=0.0,
                    help="share of dice the colour of what they lie on")
    ap.add_argument("--on-edges", type=float, default=0.0,
                    help="share of the dice lying in the open moved onto a point's long edge")
    ap.add_argument("--fold", type=int, default=0, help="real-photo fold held out (never used)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--cache", type=pathlib.Path, default=None, help="npz of the generated patches (reused)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1,
                    help="processes rendering the training boards (1: one generator, as the shipped recipe)")
    ap.add_argument("--device", default="cpu", help="torch device for training (cpu, cuda)")
    args = ap.parse_args()
    import torch
    from torch import nn

    from vision.dice_data import default_dice_root, iter_datasets
    from vision.dice_patches import patches_blob
    from vision.training.nets import DiceClassifier
    from vision.training.train_dice import export

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    logf = open(args.out / "train_tilt_log.txt", "a")

    def log(msg: str) -> None:
        print(msg, flush=True)
        logf.write(msg + "\n"); logf.flush()

    log(f"train_tilt: {vars(args)}")
    if args.cache is not None and args.cache.is_file():
        z = np.load(args.cache)
        x, y, tilts, vx, vy, vtilts, real, vreal = (z[k] for k in ("x", "y", "t", "vx", "vy", "vt", "r", "vr"))
        if args.fresh_real:  # the rendered dice from the cache, the real ones cropped again
            rng = np.random.default_rng(args.seed + 7)
            items = [it for _, data in iter_datasets(default_dice_root()) for it in data if it.fold() != args.fold]
            order = rng.permutation(len(items))
            n_val = len(items) // 5
            vreal = real_flat_dice([items[i] for i in order[:n_val]], rng, views=2)
            real = real_flat_dice([items[i] for i in order[n_val:]], rng, views=3)
            log(f"real flat dice (fresh): {len(real)} training patches, {len(vreal)} validation")
    else:
        rng = np.random.default_rng(args.seed)
        items = [it for _, data in iter_datasets(default_dice_root()) for it in data if it.fold() != args.fold]
        order = rng.permutation(len(items))
        n_val = len(items) // 5
        vreal = real_flat_dice([items[i] for i in order[:n_val]], rng, views=1)
        real = real_flat_dice([items[i] for i in order[n_val:]], rng)
        log(f"real flat dice: {len(real)} training patches, {len(vreal)} validation")
        sizes = tuple(args.board_dice) if args.board_dice else None
        kwargs = dict(die_to_checker=sizes, wide=args.wide_boards, under_share=args.die_as_under,
                      edge_share=args.on_edges)
        if args.workers > 1:
            x, y, tilts = board_dice_parallel(args.seed, args.boards, args.workers, log=log, **kwargs)
        else:
            x, y, tilts = board_dice(rng, args.boards, log=log, **kwargs)
        vx, vy, vtilts = board_dice(np.random.default_rng(args.seed + 1000), args.val_boards, views=1, log=log,
                                    die_to_checker=sizes, wide=args.wide_boards, under_share=args.die_as_under,
                                    edge_share=args.on_edges)
        if args.cache is not None:
            np.savez_compressed(args.cache, x=x, y=y, t=tilts, vx=vx, vy=vy, vt=vtilts, r=real, vr=vreal)
    if args.min_tilt > 0:  # tilts below this are left out of training (too slight to learn, they blur the flat class)
        keep = (tilts == 0) | (tilts >= args.min_tilt)
        x, y, tilts = x[keep], y[keep], tilts[keep]
    log(f"rendered: {len(y)} training patches ({int(y.sum())} tilted), {len(vy)} validation")
    if args.evaluate is not None:
        report(args.evaluate, vx, vy, vtilts, vreal, log)
        return
    rng = np.random.default_rng(args.seed + 1)
    net = DiceClassifier(width=args.width, classes=2).to(args.device)
    steps = math.ceil(args.per_epoch / 128)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.epochs * steps + 1, pct_start=0.15)
    lossf = nn.CrossEntropyLoss(label_smoothing=0.03)
    for ep in range(args.epochs):
        t = time.time()
        n_real = min(len(real), int(args.per_epoch * args.real_share))
        idx = rng.integers(len(y), size=args.per_epoch - n_real)
        px = np.concatenate([x[idx], real[rng.integers(len(real), size=n_real)]])
        py = np.concatenate([y[idx], np.zeros(n_real, np.int64)])
        px = augment(px, rng)
        perm = rng.permutation(len(py))
        net.train()
        correct = 0
        for i in range(0, len(perm), 128):
            b = perm[i:i + 128]
            xb = torch.from_numpy(patches_blob(list(px[b]))).to(args.device)
            yb = torch.from_numpy(py[b]).to(args.device)
            out = net(xb)
            loss = lossf(out, yb)
            opt.zero_grad(); loss.backward(); opt.step(); sched.step()
            correct += int((out.argmax(1) == yb).sum())
        vs = scores(net, vx, args.device)
        rs = scores(net, vreal, args.device)
        acc = float(((vs > 0.5) == (vy == 1)).mean())
        log(f"epoch {ep}: train acc {correct / len(py):.4f}, val acc {acc:.4f}, "
            f"real flat max {rs.max() if len(rs) else 0:.3f} ({time.time() - t:.0f}s)")
    net = net.cpu()
    export(net, torch.zeros(1, 3, 32, 32), args.out / "dice_tilt.onnx", {"input": {0: "n"}, "output": {0: "n"}}, args.fold)
    report(args.out, vx, vy, vtilts, vreal, log)
    log("done")


if __name__ == "__main__":
    main()

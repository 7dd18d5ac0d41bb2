"""Train the learned checker reader's point network (torch, training only) and export it to ONNX.

    python -m vision.training.train_checkers [--train 600000] [--val 6000] [--epochs 12] [--seed 3]
        [--threads 2] [--workers N] [--device cpu|cuda] [--out vision/models/point_counter.onnx]
        [--cache /tmp/checker_crops] [--init BODY.onnx --lr 4e-4]

Data: synthetic point crops from :mod:`vision.render_crops` only (no real photo is used, so
every real board photo stays unseen). The network is chosen on held-back synthetic crops
(another seed), its softmax temperature fitted there too (folded into the head's last layer, so
the probabilities at run time are the calibrated ones), and the expected calibration error and
a reliability table printed. Writes the body as ONNX (``--out``) and the head beside it
(:func:`vision.learned_checkers.head_path`). About 6 minutes on one H100 with 16 processes
rendering (``--device cuda --workers 16``); about 2.5 hours on two CPU cores. ``--init`` goes on
training an exported network (:func:`from_onnx`) instead of starting from random weights: the
shipped network's second stage (``vision/models/README.md``), about 25 minutes on two CPU cores.
"""

from __future__ import annotations

import argparse
import copy
import math
import multiprocessing
import pathlib
import time
from typing import Optional

import numpy as np
import torch
from torch import nn

from vision.learned_checkers import head_path
from vision.render_crops import CLASSES, make_crops
from vision.training.nets import PointCounter

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _chunk(args: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    return make_crops(*args)


def crops(n: int, seed: int, workers: int, cache: pathlib.Path | None) -> tuple[np.ndarray, np.ndarray]:
    """``n`` synthetic crops from ``seed`` (made by ``workers`` processes, cached as .npz)."""
    path = None if cache is None else cache / f"crops_{n}_{seed}.npz"
    if path is not None and path.exists():
        d = np.load(path)
        return d["x"], d["y"]
    per = 2000
    jobs = [(min(per, n - i), seed * 100003 + i) for i in range(0, n, per)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        parts = pool.map(_chunk, jobs)
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, x=x, y=y)
    return x, y


def expected_calibration_error(probs: np.ndarray, labels: np.ndarray, bins: int = 10) -> tuple[float, list[tuple]]:
    """ECE of the top class and the reliability table: (ece, [(lo, hi, n, mean confidence, accuracy)])."""
    conf = probs.max(axis=1)
    right = probs.argmax(axis=1) == labels
    table = []
    ece = 0.0
    edges = np.linspace(0, 1, bins + 1)
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = (conf > lo) & (conf <= hi)
        if sel.any():
            table.append((float(lo), float(hi), int(sel.sum()), float(conf[sel].mean()), float(right[sel].mean())))
            ece += sel.mean() * abs(conf[sel].mean() - right[sel].mean())
    return float(ece), table


def standardise_tensor(crops: torch.Tensor) -> torch.Tensor:
    """:func:`vision.learned_checkers.standardise` in torch, on the crops' own device:
    (N, H, W, 3) uint8 BGR -> (N, 3, H, W) float32, each crop's channels centred on their own
    mean and divided by their own spread plus 8 grey levels."""
    z = crops.permute(0, 3, 1, 2).float()
    z = z - z.mean(dim=(2, 3), keepdim=True)
    std = torch.sqrt((z * z).mean(dim=(2, 3), keepdim=True))
    return z / (std + 8.0)


def _logits(net: nn.Module, x: np.ndarray, batch: int = 2048) -> np.ndarray:
    net.eval()
    device = next(net.parameters()).device
    out = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            xb = standardise_tensor(torch.from_numpy(x[i:i + batch]).to(device))
            out.append(net(xb.contiguous(memory_format=torch.channels_last)).cpu().numpy())
    return np.concatenate(out)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """The softmax temperature (0.5..5) with the least negative log-likelihood on ``logits``."""
    best, best_t = math.inf, 1.0
    for t in np.linspace(0.5, 5.0, 91):
        p = _softmax(logits / t)
        nll = -float(np.log(np.maximum(p[np.arange(len(labels)), labels], 1e-12)).mean())
        if nll < best:
            best, best_t = nll, float(t)
    return best_t


def from_onnx(path: pathlib.Path) -> PointCounter:
    """A :class:`PointCounter` holding the weights of an exported network: the body at ``path``
    (as :func:`export` writes it, each batch norm folded into its convolution's bias, so each
    norm here is the identity plus that bias) and its head beside it (the softmax temperature
    stays folded in). Raises ``ValueError`` when the file is not such a body."""
    import onnx
    from onnx import numpy_helper

    from vision.learned_checkers import PointHead

    model = onnx.load(str(path))
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    net = PointCounter(CLASSES)
    blocks = list(net.body)
    if len(convs) != len(blocks) or any(len(n.input) != 3 for n in convs):
        raise ValueError(f"{path} is not the body of a point network")
    with torch.no_grad():
        for node, block in zip(convs, blocks):
            conv, norm = block[0], block[1]
            w, b = weights[node.input[1]].copy(), weights[node.input[2]].copy()
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise ValueError(f"{path}: a convolution of shape {w.shape}, not {tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(w))
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(b))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        head = PointHead.load(head_path(path))
        for layer, w, b in ((net.head[1], head.w1, head.b1), (net.head[3], head.w2, head.b2)):
            layer.weight.copy_(torch.from_numpy(w))
            layer.bias.copy_(torch.from_numpy(b))
    return net


def train(x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray, epochs: int, log,
          checkpoint: Optional[pathlib.Path] = None, device: str = "cpu", init: Optional[PointCounter] = None,
          max_lr: float = 3e-3) -> PointCounter:
    """Train a :class:`PointCounter` on ``x`` ((N, 120, 28, 3) uint8 BGR crops) and ``y`` ((N,)
    int64 classes), batches of 256, on ``device`` (``"cpu"`` or ``"cuda"``: the crops are kept
    there as uint8 and standardised a batch at a time); keeps the weights of the epoch best on the
    validation crops (exported to ``checkpoint`` after each such epoch, uncalibrated, when given).
    ``init``: a network to go on training (:func:`from_onnx`) instead of a new one; its batch
    norms keep their statistics (they are folded into the convolutions already). ``max_lr``: the
    one-cycle schedule's peak. Returns the network on the CPU."""
    torch.manual_seed(0)
    net = (init or PointCounter(CLASSES)).to(device).to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(net.parameters(), lr=max_lr, weight_decay=1e-4)
    steps = epochs * math.ceil(len(x) / 256)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss()
    xs = torch.from_numpy(x).to(device)
    ys = torch.from_numpy(y).to(device)
    best, best_state = -1.0, None
    rng = np.random.default_rng(1)
    for epoch in range(epochs):
        net.train(init is None)
        t0 = time.time()
        order = rng.permutation(len(x))
        total = 0.0
        for i in range(0, len(order), 256):
            idx = torch.from_numpy(order[i:i + 256]).to(device)
            xb = standardise_tensor(xs[idx]).contiguous(memory_format=torch.channels_last)
            if rng.random() < 0.5:
                xb = torch.flip(xb, dims=[3])
            loss = loss_fn(net(xb), ys[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        acc = float((_logits(net, vx).argmax(axis=1) == vy).mean())
        log(f"epoch {epoch + 1}/{epochs}: loss {total / len(x):.4f}, validation accuracy {acc:.4f} ({time.time() - t0:.0f} s)")
        if acc > best:
            best = acc
            best_state = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
            if checkpoint is not None:
                export(copy.deepcopy(net).cpu(), 1.0, checkpoint)
    net = net.cpu()
    if best_state is not None:
        net.load_state_dict(best_state)
    return net


def export(net: PointCounter, temperature: float, path: pathlib.Path) -> None:
    """Export the network's body to ONNX (opset 13, dynamic batch; output ``features``, the
    flattened last feature map) at ``path``, and its head, with ``1 / temperature`` folded into
    the last layer, as :class:`vision.learned_checkers.PointHead` beside it
    (:func:`vision.learned_checkers.head_path`)."""
    from vision.learned_checkers import PointHead

    net.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    body = nn.Sequential(net.body, net.head[0])
    torch.onnx.export(body, torch.zeros(1, 3, 120, 28), str(path), input_names=["input"], output_names=["features"],
                      dynamic_axes={"input": {0: "n"}, "features": {0: "n"}}, opset_version=13, dynamo=False)
    first, last = net.head[1], net.head[3]
    head = PointHead(first.weight.detach().numpy().astype(np.float32), first.bias.detach().numpy().astype(np.float32),
                     (last.weight.detach().numpy() / temperature).astype(np.float32),
                     (last.bias.detach().numpy() / temperature).astype(np.float32))
    head.save(head_path(path))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", type=int, default=600000)
    ap.add_argument("--val", type=int, default=6000)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--threads", type=int, default=2, help="torch threads (and crop workers unless --workers)")
    ap.add_argument("--workers", type=int, help="processes that render the crops (default: --threads)")
    ap.add_argument("--device", default="cpu", help="torch device to train on: cpu or cuda")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "vision" / "models" / "point_counter.onnx")
    ap.add_argument("--checkpoint", type=pathlib.Path, help="export the best network so far here after each epoch")
    ap.add_argument("--save-torch", type=pathlib.Path, help="also keep the torch weights here (not shipped)")
    ap.add_argument("--cache", type=pathlib.Path, default=None, help="folder to keep the generated crops in")
    ap.add_argument("--init", type=pathlib.Path, help="go on training this exported body (and its head beside it)")
    ap.add_argument("--lr", type=float, default=3e-3, help="the learning rate's peak")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    def log(msg: str) -> None:
        print(msg, flush=True)

    t0 = time.time()
    workers = args.workers or args.threads
    x, y = crops(args.train, args.seed, workers, args.cache)
    vx, vy = crops(args.val, args.seed + 1000, workers, args.cache)
    log(f"{len(x)} training and {len(vx)} validation crops in {time.time() - t0:.0f} s; "
        f"counts {np.bincount(y, minlength=CLASSES).tolist()}")
    init = None
    if args.init is not None:
        init = from_onnx(args.init)
        acc = float((_logits(init, vx).argmax(axis=1) == vy).mean())
        log(f"{args.init}: validation accuracy {acc:.4f} before training on")
    net = train(x, y, vx, vy, args.epochs, log, args.checkpoint, args.device, init, args.lr)
    logits = _logits(net, vx)
    before, _ = expected_calibration_error(_softmax(logits), vy)
    t = fit_temperature(logits, vy)
    after, table = expected_calibration_error(_softmax(logits / t), vy)
    log(f"validation accuracy {float((logits.argmax(1) == vy).mean()):.4f}; temperature {t:.2f}; "
        f"ECE {before:.4f} -> {after:.4f}")
    log("reliability (confidence bin: crops, mean confidence, accuracy):")
    for lo, hi, n, c, a in table:
        log(f"  {lo:.1f}-{hi:.1f}: {n:6d}  {c:.3f}  {a:.3f}")
    if args.save_torch:
        torch.save(net.state_dict(), args.save_torch)
    export(net, t, args.out)
    log(f"wrote {args.out} ({time.time() - t0:.0f} s in all)")


if __name__ == "__main__":
    main()

"""Two medoids under a truncated loss: the two checker sets' colours found among a board's points."""

from __future__ import annotations

import numpy as np


def two_medoids(features: np.ndarray, weights: np.ndarray, cap: float) -> tuple[int, int, np.ndarray]:
    """The pair of rows of ``features`` ((N, D) float, N >= 2) that best stand for all of them:
    the pair (a, b) minimising the sum over rows of ``weights`` (N,) times the distance to the
    nearer of the two, each distance capped at ``cap`` (so a stray row, a die or a shadow, costs
    at most ``cap`` and cannot drag a medoid towards it). Returns (a, b, the (N, N) distances)."""
    dmat = np.linalg.norm(features[:, None, :] - features[None, :, :], axis=2)
    capped = np.minimum(dmat, cap)
    best, pair = np.inf, (0, 1)
    for a in range(len(features)):
        for b in range(a + 1, len(features)):
            cost = float((weights * np.minimum(capped[a], capped[b])).sum())
            if cost < best:
                best, pair = cost, (a, b)
    return pair[0], pair[1], dmat

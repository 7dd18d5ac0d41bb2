"""Draw what the dice and cube readers saw, for ``--annotate OUT.png`` (``companion dice``/``read``)."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from companion.observation import CubeReading, DieReading

FLAT = (40, 200, 40)  # BGR green
COCKED = (30, 30, 230)  # BGR red
CUBE = (230, 140, 30)  # BGR blue


def annotate(image_bgr: np.ndarray, dice: Sequence[DieReading], cube: Optional[CubeReading] = None) -> np.ndarray:
    """A copy of ``image_bgr`` ((H, W, 3) uint8 BGR) with each die's box, value and confidence
    (green; cocked dice red with the reason; the owner's side when the sets are told apart) and the
    cube (blue, value and place)."""
    import cv2

    out = image_bgr.copy()
    scale = max(out.shape[1] / 1280.0, 0.4)
    th = max(int(round(2 * scale)), 1)
    for d in dice:
        colour = COCKED if d.cocked else FLAT
        if d.box is not None:
            x0, y0, x1, y1 = (int(round(v)) for v in d.box)
        else:
            x0, y0, x1, y1 = (int(d.center[0]) - 10, int(d.center[1]) - 10, int(d.center[0]) + 10, int(d.center[1]) + 10)
        cv2.rectangle(out, (x0, y0), (x1, y1), colour, th)
        label = f"{d.value} {d.confidence:.2f}"
        if d.owner:  # whose set, by colour (a profile's dice_sets)
            label += f" {d.owner}'s"
        if d.cocked:
            label += f" cocked: {d.reason}"
        cv2.putText(out, label, (x0, max(y0 - 4, 12)), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale + 0.1, (0, 0, 0), th + 2, cv2.LINE_AA)
        cv2.putText(out, label, (x0, max(y0 - 4, 12)), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale + 0.1, colour, th, cv2.LINE_AA)
    if cube is not None and cube.center is not None:
        cx, cy = (int(round(v)) for v in cube.center)
        r = int(round(25 * scale))
        cv2.rectangle(out, (cx - r, cy - r), (cx + r, cy + r), CUBE, th)
        label = f"cube {cube.value} {cube.place} {cube.confidence:.2f}"
        cv2.putText(out, label, (cx - r, cy + r + int(16 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale + 0.1, (0, 0, 0), th + 2, cv2.LINE_AA)
        cv2.putText(out, label, (cx - r, cy + r + int(16 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale + 0.1, CUBE, th, cv2.LINE_AA)
    return out

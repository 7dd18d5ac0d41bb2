"""Seeing what the reader saw: the reading drawn over the photo.

:func:`annotate` draws the field's outline and bar, every point's number, the count
and colour read on it (``3L`` = three light, ``2D`` = two dark), each checker found
(a ring: white for light, black for dark), unreadable points crossed out in red,
the bar's checkers ("?" after them when the bar is unreadable), the borne-off counts
with where they came from (``trays``, ``mixed`` or ``inferred``) and the bear-off
tray's outline (blue) when it was read.
:func:`compare_labels` adds the expected counts where they
differ, for the evaluation's pictures of misreads.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from companion.observation import Observation
from vision.checkers import CheckerReading
from vision.registration import Field
from vision.trays import TraySettings


def _to_image(field: Field, pts: np.ndarray, scale: float) -> np.ndarray:
    return field.to_image(np.asarray(pts, dtype=np.float64).reshape(-1, 2) / scale)


def annotate(image_bgr: np.ndarray, field: Field, obs: Observation, reading: Optional[CheckerReading] = None,
             scale: float = 0.5, expected: Optional[Sequence[tuple[int, Optional[str]]]] = None,
             trays: Optional[TraySettings] = None) -> np.ndarray:
    """Draw a reading over a frame.

    ``image_bgr``: (H, W, 3) uint8 BGR frame; ``field``: its registration; ``obs``: the
    reading; ``reading``: the checker details (rings for every checker) or ``None``;
    ``scale``: the reader's working scale (checker positions are at that scale);
    ``expected``: optional 24 ``(count, colour)`` to show beside misread points;
    ``trays``: the reader's tray settings (default :class:`~vision.trays.TraySettings`).
    Returns a new (H, W, 3) uint8 BGR image.
    """
    import cv2

    out = image_bgr.copy()
    h, w = out.shape[:2]
    thick = max(1, int(round(min(h, w) / 400)))
    font = max(0.35, min(h, w) / 1400)
    outline = field.to_image(np.array([[0, 0], [field.size[0], 0], [field.size[0], field.size[1]], [0, field.size[1]]], float))
    cv2.polylines(out, [np.round(outline).astype(np.int32)], True, (0, 255, 255), thick, cv2.LINE_AA)
    bar = field.to_image(np.array([[field.size[0] / 2, 0], [field.size[0] / 2, field.size[1]]], float))
    cv2.line(out, tuple(np.round(bar[0]).astype(int)), tuple(np.round(bar[1]).astype(int)), (0, 200, 255), thick, cv2.LINE_AA)
    if reading is not None:
        r_field = 0.5 * (field.size[0] / 13.0) * 0.95
        for c in reading.checkers:
            centre = _to_image(field, [[c.x, c.y]], scale)[0]
            edge = _to_image(field, [[c.x + r_field * scale, c.y]], scale)[0]
            r = max(2, int(round(np.linalg.norm(edge - centre))))
            colour = (255, 255, 255) if c.colour == "light" else (0, 0, 0)
            cv2.circle(out, tuple(np.round(centre).astype(int)), r, (0, 255, 0), thick + 2, cv2.LINE_AA)
            cv2.circle(out, tuple(np.round(centre).astype(int)), r, colour, thick, cv2.LINE_AA)
    unreadable = set(obs.unreadable_points)
    for pr in obs.points:
        g = field.point(pr.point)
        label_y = g.base_y + g.direction * (0.47 * field.size[1])
        num_y = g.base_y + g.direction * 12
        pos = field.to_image(np.array([[g.centre_x, label_y], [g.centre_x, num_y]], float))
        text = "?" if pr.point in unreadable else (f"{pr.count}{(pr.colour or ' ')[0].upper()}" if pr.count else "0")
        wrong = expected is not None and (expected[pr.point - 1][0] != pr.count or
                                          (pr.count and expected[pr.point - 1][1] != pr.colour))
        colour = (0, 0, 255) if wrong else (255, 255, 0)
        _text(out, text, pos[0], font, colour, thick)
        _text(out, str(pr.point), pos[1], font * 0.8, (0, 255, 255), thick)
        if wrong and expected is not None:
            n, c = expected[pr.point - 1]
            exp = f"want {n}{(c or ' ')[0].upper()}" if n else "want 0"
            _text(out, exp, pos[0] + np.array([0, 18 * font * 2 * (1 if g.direction > 0 else -1)]), font * 0.8, (0, 0, 255), thick)
        if pr.point in unreadable:
            quad = field.to_image(np.array([[g.x0, g.base_y], [g.x1, g.base_y],
                                            [g.x1, g.base_y + g.direction * 0.45 * field.size[1]],
                                            [g.x0, g.base_y + g.direction * 0.45 * field.size[1]]], float))
            q = np.round(quad).astype(np.int32)
            cv2.line(out, tuple(q[0]), tuple(q[2]), (0, 0, 255), thick, cv2.LINE_AA)
            cv2.line(out, tuple(q[1]), tuple(q[3]), (0, 0, 255), thick, cv2.LINE_AA)
    bar_text = f"bar L{obs.bar.light} D{obs.bar.dark}" + (" ?" if obs.bar_unreadable else "")
    _text(out, bar_text, bar[0] + np.array([0, -8 * font * 2]), font, (0, 200, 255), thick)
    trays = trays or TraySettings()
    if obs.off_source != "inferred" or obs.off_trays is not None:
        fw, fh = field.size
        x0, x1 = fw * (1 + trays.gap), fw * (1 + trays.gap + trays.width)
        quad = field.to_image(np.array([[x0, 0], [x1, 0], [x1, fh], [x0, fh]], float))
        cv2.polylines(out, [np.round(quad).astype(np.int32)], True, (255, 128, 0), thick, cv2.LINE_AA)
    off_text = f"off L{obs.off.light} D{obs.off.dark} ({obs.off_source})"
    _text(out, off_text, bar[1] + np.array([0, 12 * font * 2]), font, (0, 200, 255), thick)
    return out


def _text(img: np.ndarray, text: str, at: np.ndarray, font: float, colour: tuple[int, int, int], thick: int) -> None:
    import cv2

    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
    x, y = int(round(at[0] - tw / 2)), int(round(at[1] + th / 2))
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, font, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, font, colour, thick, cv2.LINE_AA)

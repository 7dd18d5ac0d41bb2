"""Rendered frames for the calibration page's tests (vision.calibration_desk, web.calibration)."""

from __future__ import annotations

from vision.render_board import BoardState, CameraPose, Lighting, render_board

#: The opening position as signed counts of points 1..24 (> 0 light, whose home board is 1-6).
OPENING = [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2]
#: A position a few plays later: not the opening.
LATER = [-2, 0, 0, 2, 0, 4, 0, 2, 0, 0, 0, -5, 4, 0, 0, 0, -3, 0, -4, -1, 0, 0, 0, 3]
#: A short adaptation for tests: seconds, not a minute (the page's own default is learn_board's).
QUICK = {"samples": 300, "generic": 100}


def rendered(counts, style="green", seed=0):
    """A 1280x720 render (``RenderedBoard``: ``image``, ``corners``) of ``counts`` on a ``style``
    board, the camera tilted a little, as tests/test_vision_learned_checkers.py renders them."""
    pose = CameraPose.looking_down(tilt=0.06)
    return render_board(BoardState.from_counts(counts), style, pose, Lighting(noise=2, jpeg=85), seed=seed)


def signed(points):
    """Signed counts (> 0 light) of the page's reading, ``[{"count", "colour"}, ...]``."""
    return [0 if p["count"] == 0 else (p["count"] if p["colour"] == "light" else -p["count"]) for p in points]


def misreading_model(folder):
    """A point network that cannot read this project's rendered boards as shipped: the shipped
    body with a head whose logit of five checkers is 10 lower, so that the opening's four stacks
    of five read as four (fewer than ``EARLY_REFUSAL`` points: calibration adapts it rather than
    refusing). Written to ``folder`` as a network of its own; returns its
    :class:`~vision.learned_checkers.PointModel`."""
    import shutil

    from vision.learned_checkers import MODEL_PATH, PointHead, PointModel, head_path

    path = shutil.copy(MODEL_PATH, folder / MODEL_PATH.name)
    shipped = PointHead.load(head_path(MODEL_PATH))
    b2 = shipped.b2.copy()
    b2[5] -= 10.0
    PointHead(shipped.w1, shipped.b1, shipped.w2, b2).save(head_path(path))
    return PointModel(path)

"""Checkers standing two high: a full line from the base, further checkers resting in
the dips between two below it (a point can hold up to 15)."""

from __future__ import annotations

import pytest

from vision.reader import BoardReader
from vision.registration import field_from_corners
from vision.render_board import LOW_CONTRAST_STYLES, STYLES, BoardState, Lighting, render_board


def _read(rendered):
    h, w = rendered.image.shape[:2]
    return BoardReader(field=field_from_corners(rendered.corners, (w, h))).read(rendered.image).to_dict()


def _pairs(obs_or_truth):
    return [(p["count"], p["colour"]) for p in obs_or_truth["points"]]


@pytest.mark.parametrize("style", ["tournament", "walnut", "green", "felt"])
def test_two_high_stacks_are_counted(style):
    """8 and 7 light, 9 dark standing two high (their lines hold 6): the second layer counts."""
    counts = [0] * 24
    counts[5], counts[12] = 8, 7
    counts[18], counts[0] = -9, -6
    r = render_board(BoardState.from_counts(counts), style, stack="two_high", lighting=Lighting(blur=0.5, noise=2))
    truth = _pairs(r.truth)
    assert [truth[i][0] for i in (5, 12, 18)] == [8, 7, 9]  # drawn two high, not squeezed
    assert _pairs(_read(r)) == truth


@pytest.mark.parametrize("style", list(STYLES) + list(LOW_CONTRAST_STYLES))
def test_no_second_layer_on_the_opening_position(style):
    """Full lines of five that stand one high gain no checkers from their dips."""
    r = render_board(BoardState.starting(), style, lighting=Lighting(blur=0.8, noise=3, gradient=0.2, jpeg=85))
    obs = _read(r)
    assert _pairs(obs) == _pairs(r.truth)
    assert max(p["count"] for p in obs["points"]) == 5


@pytest.mark.parametrize("style", ["walnut", "green", "felt"])
def test_no_second_layer_on_plain_lines_of_six(style):
    """Six in a line (as many as fit) stay six: the dips between them are no checkers."""
    counts = [0] * 24
    counts[5], counts[12], counts[7] = 6, 6, 3
    counts[18], counts[0], counts[23] = -6, -6, -3
    r = render_board(BoardState.from_counts(counts), style, lighting=Lighting(blur=0.5, noise=2))
    assert _pairs(_read(r)) == _pairs(r.truth)

"""A random but legal driver of a :class:`companion.match.Match`, shared by the match
tests and the match benchmark: one call makes one action, like a referee would."""

from __future__ import annotations

import random
from typing import Any


def random_step(match: Any, rng: random.Random, *, double: float = 0.08, resign: float = 0.0,
                beaver: float = 0.0, take: float = 0.8, undo: float = 0.0,
                accept: float = 0.5) -> list:
    """Apply one random legal action to ``match`` (a ``Match`` or ``LoggedMatch``) and
    return its events.

    Probabilities in 0..1: ``double`` when the player on roll may double, ``resign``
    (a random level) instead of rolling, ``undo`` of the last action (not at the
    opening roll), and for a cube response one draw ``r``: a beaver when
    ``r < beaver`` and the rules allow it, else a take when ``r < take``, else a drop.
    A probability of 0 draws nothing from ``rng``, so callers' random streams are
    those of the loops this replaced. Raises ``AssertionError`` on an unknown phase.
    """
    phase = match.phase
    if phase in ("opening_roll", "game_over"):
        return match.opening_roll((rng.randint(1, 6), rng.randint(1, 6)))
    if undo and match.actions and rng.random() < undo:
        return match.undo()
    if phase == "roll":
        player = match.on_roll
        if match.can_double(player) and rng.random() < double:
            return match.double(player)
        if resign and rng.random() < resign:
            return match.resign(player, rng.randint(1, 3))
        return match.roll((rng.randint(1, 6), rng.randint(1, 6)))
    if phase == "play":
        plays = list(match.legal_plays())
        return match.play(rng.choice(plays) if plays else "")
    if phase == "cube_response":
        player = match.turn
        r = rng.random()
        if r < beaver and match.cube.beaver_error(player, match.cube_rules) is None:
            return match.beaver(player)
        return match.take(player) if r < take else match.drop(player)
    if phase == "resignation_response":
        return match.accept(match.turn) if rng.random() < accept else match.refuse(match.turn)
    raise AssertionError(phase)

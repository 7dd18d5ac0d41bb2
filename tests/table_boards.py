"""Boards for the referee tests, as signed table boards (``companion.table``)."""

from __future__ import annotations

from companion.table import START_SIGNED


def board_after(moves):
    """The starting board (``START_SIGNED``) after the checker ``moves``, a sequence
    of ``(from, to)`` signed-board indexes each moving one checker of the bottom
    player; returns a tuple like ``START_SIGNED``."""
    b = list(START_SIGNED)
    for src, dst in moves:
        b[src] -= 1
        b[dst] += 1
    return tuple(b)

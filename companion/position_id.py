"""GNU Backgammon Position IDs: 14 base64 characters holding an 80-bit key.

Reference: gnubg 1.07 ``positionid.c`` (``PositionKey`` / ``PositionFromKey``),
checked against gnubg 1.07.001 itself. For each player in turn, each of the 25
places (that player's points 1..24, then the bar) is written as one ``1`` bit per
checker followed by a ``0`` bit; the bits fill ten bytes least significant bit
first, and the bytes are base64 encoded with the padding dropped. gnubg 1.07
writes the player **not** on roll first (the manual says otherwise; the program
is the reference). The starting position is ``4HPwATDgc/ABMA``.

Standard library only.
"""

from __future__ import annotations

from binascii import a2b_base64, b2a_base64
from typing import Sequence

__all__ = ["PositionIdError", "encode_position_id", "decode_position_id", "key_to_position_id",
           "PLACES", "RUNS", "ALPHABET"]

#: Places per player in the key: points 1..24 and the bar.
PLACES = 25
#: The characters of a Position ID (base64; they need no escaping in JSON).
ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
#: ``RUNS[c]``: a place holding ``c`` checkers as key bits, most significant first
#: (the separating 0, then c 1s).
RUNS = tuple("0" + "1" * c for c in range(16))


class PositionIdError(ValueError):
    """A string that is not a well-formed gnubg Position ID (bad length, a character
    outside base64, more than 15 checkers for a player, or stray bits)."""


def encode_position_id(not_on_roll: tuple[int, ...], on_roll: tuple[int, ...]) -> str:
    """Encode two players' checkers as a Position ID.

    ``not_on_roll`` and ``on_roll``: 25 non-negative ints each, in that player's own
    numbering (index 0 = point 1, ..., 23 = point 24, 24 = bar). Returns the
    14-character ID. Raises :class:`PositionIdError` when the checkers do not fit
    the 80-bit key (more than 15 checkers a side).

    >>> encode_position_id((0,) * 5 + (5, 0, 3) + (0,) * 4 + (5,) + (0,) * 10 + (2, 0),
    ...                    (0,) * 5 + (5, 0, 3) + (0,) * 4 + (5,) + (0,) * 10 + (2, 0))
    '4HPwATDgc/ABMA'
    """
    for side in (not_on_roll, on_roll):
        if len(side) != PLACES:
            raise PositionIdError(f"expected {PLACES} places per player, got {len(side)}")
        if sum(side) > 15:
            raise PositionIdError(f"a player has {sum(side)} checkers on the board (at most 15)")
        if min(side) < 0:
            raise PositionIdError("negative checker count")
    return key_to_position_id(tuple(on_roll)[::-1] + tuple(not_on_roll)[::-1])


def key_to_position_id(places_last_first: Sequence[int]) -> str:
    """The Position ID of 50 checker counts given LAST place first: the player on
    roll's bar, points 24..1, then the other player's bar, points 24..1 (the bit
    order of the key read from its most significant end). The counts are trusted
    (0..15 each, at most 15 a side; other values raise ``IndexError`` or give a
    wrong ID): this is the fast path for positions produced by the rules.

    >>> key_to_position_id((0, 2) + (0,) * 10 + (5, 0, 0, 0, 0, 3, 0, 5) + (0,) * 5
    ...                    + (0, 2) + (0,) * 10 + (5, 0, 0, 0, 0, 3, 0, 5) + (0,) * 5)
    '4HPwATDgc/ABMA'
    """
    bits = "".join(map(RUNS.__getitem__, places_last_first))
    return b2a_base64(int(bits, 2).to_bytes(10, "little"), newline=False).decode("ascii")[:14]


def decode_position_id(position_id: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Decode a Position ID into ``(not_on_roll, on_roll)``: 25 ints each, in that
    player's own numbering (index 24 = bar).

    Raises :class:`PositionIdError` for anything but 14 base64 characters whose
    80-bit key describes at most 15 checkers per player with no bits after the
    50th separator.

    >>> decode_position_id("4HPwATDgc/ABMA")[1][5]
    5
    """
    if not isinstance(position_id, str):
        raise PositionIdError(f"a Position ID is a string, not {type(position_id).__name__}")
    text = position_id.strip()
    if len(text) != 14:
        raise PositionIdError(f"a Position ID has 14 characters, {text!r} has {len(text)}")
    if not ALPHABET.issuperset(text):
        bad = sorted(set(text) - ALPHABET)
        raise PositionIdError(f"character {bad[0]!r} is not allowed in a Position ID {text!r}")
    raw = a2b_base64(text + "==")
    # The key least significant bit first; each place is a run of 1s closed by a 0.
    runs = format(int.from_bytes(raw[:10], "little"), "080b")[::-1].split("0")
    if len(runs) <= 2 * PLACES:
        raise PositionIdError(f"Position ID {text!r} describes too many checkers")
    if any(runs[2 * PLACES:]):
        raise PositionIdError(f"Position ID {text!r} has stray bits after the last point")
    counts = tuple(map(len, runs[:2 * PLACES]))
    not_on_roll, on_roll = counts[:PLACES], counts[PLACES:]
    for side in (not_on_roll, on_roll):
        if sum(side) > 15:
            raise PositionIdError(
                f"Position ID {text!r} gives a player {sum(side)} checkers (at most 15)")
    return not_on_roll, on_roll

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

import base64
import binascii

__all__ = ["PositionIdError", "encode_position_id", "decode_position_id", "PLACES"]

#: Places per player in the key: points 1..24 and the bar.
PLACES = 25
_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


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
    key = 0
    bit = 0
    for side in (not_on_roll, on_roll):
        if len(side) != PLACES:
            raise PositionIdError(f"expected {PLACES} places per player, got {len(side)}")
        if sum(side) > 15:
            raise PositionIdError(f"a player has {sum(side)} checkers on the board (at most 15)")
        for count in side:
            if count < 0:
                raise PositionIdError("negative checker count")
            key |= ((1 << count) - 1) << bit
            bit += count + 1
    raw = key.to_bytes(10, "little")
    return base64.b64encode(raw).decode("ascii")[:14]


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
    bad = sorted(set(text) - _ALPHABET)
    if bad:
        raise PositionIdError(f"character {bad[0]!r} is not allowed in a Position ID {text!r}")
    try:
        raw = base64.b64decode(text + "==", validate=True)
    except (binascii.Error, ValueError) as exc:  # pragma: no cover - alphabet checked above
        raise PositionIdError(f"{text!r} is not base64: {exc}") from None
    key = int.from_bytes(raw[:10], "little")
    sides: list[list[int]] = [[], []]
    bit = 0
    for side in sides:
        while len(side) < PLACES:
            count = 0
            while bit < 80 and (key >> bit) & 1:
                count += 1
                bit += 1
            if bit >= 80:
                raise PositionIdError(f"Position ID {text!r} describes too many checkers")
            bit += 1  # the separating 0 bit
            side.append(count)
        if sum(side) > 15:
            raise PositionIdError(
                f"Position ID {text!r} gives a player {sum(side)} checkers (at most 15)")
    if key >> bit:
        raise PositionIdError(f"Position ID {text!r} has stray bits after the last point")
    return tuple(sides[0]), tuple(sides[1])

"""The GNU Backgammon Match ID: 12 base64 characters for the match state.

Layout (gnubg 1.07 ``matchid.c``; bits counted from 0, packed little-endian
into 9 bytes, then standard base64): cube log2 (bits 0-3), cube owner (4-5;
0, 1, or 3 = centred), player on roll / dice owner (6), Crawford game (7), game
state (8-10: 0 no game, 1 playing, 2 over, 3 resigned, 4 dropped), player to
act (11), double offered (12), resignation offered (13-14: level 0-3), die 1
(15-17), die 2 (18-20), match length (21-35, 0 = money), score of player 0
(36-50), score of player 1 (51-65), and bit 66, which gnubg 1.07 sets when the
Jacoby rule is not in force (so match-play IDs end in ``E``).

Example (gnubg manual): ``QYkqASAAIAAA`` is a 9-point match at 2-4, cube 2 owned
by player 0, player 1 on roll with 5-2.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
from typing import Optional

GAME_STATES = ("none", "playing", "over", "resigned", "dropped")

_FIELDS = (  # (name, bit offset, width)
    ("cube_log2", 0, 4),
    ("cube_owner", 4, 2),
    ("dice_owner", 6, 1),
    ("crawford", 7, 1),
    ("game_state", 8, 3),
    ("turn", 11, 1),
    ("doubled", 12, 1),
    ("resigned", 13, 2),
    ("die1", 15, 3),
    ("die2", 18, 3),
    ("match_to", 21, 15),
    ("score0", 36, 15),
    ("score1", 51, 15),
    ("jacoby_off", 66, 1),
)


class MatchIdError(ValueError):
    """A malformed Match ID or a state that cannot be encoded."""


@dataclasses.dataclass(frozen=True)
class MatchKey:
    """Everything a gnubg Match ID holds.

    ``cube``: cube value (power of two, at most 2**15). ``cube_owner``: 0, 1 or
    ``None`` (centred). ``dice_owner``: player on roll (0/1). ``crawford``: this is
    the Crawford game. ``game_state``: one of :data:`GAME_STATES`. ``turn``: the
    player who must act now. ``doubled``: a double is pending. ``resigned``:
    offered resignation level 0-3. ``dice``: (die1, die2), ``(0, 0)`` before
    rolling. ``match_to``: match length, 0 for money. ``score``: (player 0,
    player 1). ``jacoby_off``: bit 66 (1 unless the Jacoby rule is in force).
    """

    cube: int = 1
    cube_owner: Optional[int] = None
    dice_owner: int = 0
    crawford: bool = False
    game_state: str = "playing"
    turn: int = 0
    doubled: bool = False
    resigned: int = 0
    dice: tuple[int, int] = (0, 0)
    match_to: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby_off: bool = True

    def encode(self) -> str:
        """The 12-character Match ID. Raises :class:`MatchIdError` if a field is out of range."""
        if self.cube < 1 or self.cube & (self.cube - 1) or self.cube > 1 << 15:
            raise MatchIdError(f"cube value {self.cube} cannot be encoded")
        if self.game_state not in GAME_STATES:
            raise MatchIdError(f"unknown game state {self.game_state!r}")
        values = {
            "cube_log2": self.cube.bit_length() - 1,
            "cube_owner": 3 if self.cube_owner is None else self.cube_owner,
            "dice_owner": self.dice_owner,
            "crawford": int(self.crawford),
            "game_state": GAME_STATES.index(self.game_state),
            "turn": self.turn,
            "doubled": int(self.doubled),
            "resigned": self.resigned,
            "die1": self.dice[0],
            "die2": self.dice[1],
            "match_to": self.match_to,
            "score0": self.score[0],
            "score1": self.score[1],
            "jacoby_off": int(self.jacoby_off),
        }
        key = 0
        for name, offset, width in _FIELDS:
            value = values[name]
            if not 0 <= value < 1 << width:
                raise MatchIdError(f"{name} = {value} does not fit in {width} bits")
            key |= value << offset
        return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")

    @classmethod
    def decode(cls, match_id: str) -> "MatchKey":
        """Parse a 12-character Match ID. Raises :class:`MatchIdError` if malformed."""
        text = match_id.strip()
        if len(text) != 12:
            raise MatchIdError(f"a Match ID has 12 characters, got {len(text)}: {match_id!r}")
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise MatchIdError(f"not a base64 Match ID: {match_id!r}") from None
        key = int.from_bytes(raw, "little")
        v = {name: (key >> offset) & ((1 << width) - 1) for name, offset, width in _FIELDS}
        if v["cube_owner"] == 2:
            raise MatchIdError(f"invalid cube owner in Match ID {match_id!r}")
        if v["game_state"] >= len(GAME_STATES):
            raise MatchIdError(f"invalid game state in Match ID {match_id!r}")
        return cls(
            cube=1 << v["cube_log2"],
            cube_owner=None if v["cube_owner"] == 3 else v["cube_owner"],
            dice_owner=v["dice_owner"],
            crawford=bool(v["crawford"]),
            game_state=GAME_STATES[v["game_state"]],
            turn=v["turn"],
            doubled=bool(v["doubled"]),
            resigned=v["resigned"],
            dice=(v["die1"], v["die2"]),
            match_to=v["match_to"],
            score=(v["score0"], v["score1"]),
            jacoby_off=bool(v["jacoby_off"]),
        )


def encode_match_id(**fields) -> str:
    """Shortcut: ``MatchKey(**fields).encode()``."""
    return MatchKey(**fields).encode()

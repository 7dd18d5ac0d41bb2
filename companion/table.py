"""The physical table and the rules' view of it.

An :class:`~companion.observation.Observation` speaks in image terms: table
points 1..24 numbered for the player at the image's bottom (player 0, home board
in the bottom-right quadrant), light and dark checkers. The rules speak from
the view of the player on roll: 26 signed ints (``companion.position`` schema:
index 1..24 the mover's points, > 0 the mover's checkers, < 0 the opponent's;
index 25 the mover's bar; index 0 minus the opponent's bar).

- Player 0 sits at the image's bottom; its point ``p`` is table point ``p``.
- Player 1 sits at the top; its point ``p`` is table point ``25 - p``.
- :class:`TableLayout` says which colour each player has.
- A player's right-hand board (where its dice must land) is the image's right
  half for player 0 and the image's left half for player 1 (they face each
  other); a player's cube side is ``"bottom"`` for 0 and ``"top"`` for 1.

Helpers convert both ways, so tests (and the demo) can build Observations from
rules positions. Standard library only.
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Sequence

from companion.observation import Colour, Counts, CubeReading, DieReading, Observation, PointReading

CHECKERS = 15

#: The starting position from the mover's view (26 signed ints).
START_SIGNED: tuple[int, ...] = (
    0,
    -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5,
    5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2,
    0,
)


class TableError(ValueError):
    """An observation or position that cannot be mapped (bad colours, counts)."""


@dataclasses.dataclass(frozen=True)
class TableLayout:
    """Who plays which colour: ``colours[0]`` is the colour of player 0 (image
    bottom), ``colours[1]`` that of player 1 (image top)."""

    colours: tuple[Colour, Colour] = ("dark", "light")

    def __post_init__(self) -> None:
        if set(self.colours) != {"light", "dark"}:
            raise TableError(f"the two players need the colours light and dark, got {self.colours}")

    def colour_of(self, player: int) -> Colour:
        """The colour of ``player`` (0 or 1)."""
        return self.colours[player]

    def player_of(self, colour: Colour) -> int:
        """The player (0 or 1) who plays ``colour``."""
        return self.colours.index(colour)


def table_point(player: int, point: int) -> int:
    """The table point (image numbering, 1..24) of ``player``'s point ``point``."""
    if not 1 <= point <= 24:
        raise TableError(f"a point is 1..24, got {point}")
    return point if player == 0 else 25 - point


def right_half(player: int) -> str:
    """The image half (``"right"``/``"left"``) of ``player``'s right-hand board."""
    return "right" if player == 0 else "left"


def cube_side(player: int) -> str:
    """The cube place (``"bottom"``/``"top"``) on ``player``'s side of the table."""
    return "bottom" if player == 0 else "top"


def infer_layout(obs: Observation) -> TableLayout:
    """Guess who plays which colour from one reading: player 0 brings its checkers
    home to table points 1..6, so its colour has more of its pips-to-go weight
    low. Compares each colour's pip count measured from player 0's side with the
    count measured from player 1's side. Raises :class:`TableError` when the
    board shows no checkers of one colour."""
    score = {}
    for colour in ("light", "dark"):
        seen = [(p.point, p.count) for p in obs.points if p.colour == colour and p.count]
        if not seen:
            raise TableError(f"no {colour} checkers seen: cannot tell who plays which colour")
        as_bottom = sum(point * n for point, n in seen)
        as_top = sum((25 - point) * n for point, n in seen)
        score[colour] = as_bottom - as_top
    bottom = "dark" if score["dark"] < score["light"] else "light"
    return TableLayout((bottom, "light" if bottom == "dark" else "dark"))


def observation_to_signed(obs: Observation, layout: TableLayout, mover: int) -> tuple[int, ...]:
    """The board of ``obs`` from ``mover``'s view as 26 signed ints (schema in the
    module docstring). Raises :class:`TableError` if a point has checkers but no
    colour."""
    me = layout.colour_of(mover)
    signed = [0] * 26
    for p in obs.points:
        if p.count == 0:
            continue
        if p.colour is None:
            raise TableError(f"point {p.point} has {p.count} checkers of no colour")
        idx = p.point if mover == 0 else 25 - p.point
        signed[idx] = p.count if p.colour == me else -p.count
    them = "light" if me == "dark" else "dark"
    signed[25] = getattr(obs.bar, me)
    signed[0] = -getattr(obs.bar, them)
    return tuple(signed)


def signed_to_points(signed: Sequence[int], mover: int, layout: TableLayout) -> tuple[tuple[PointReading, ...], Counts, Counts]:
    """The table readings of a mover-view signed board: 24 :class:`PointReading`
    in table order, the bar and the trays (borne-off = 15 minus checkers in play)."""
    if len(signed) != 26:
        raise TableError(f"a position has 26 entries, got {len(signed)}")
    me = layout.colour_of(mover)
    them: Colour = "light" if me == "dark" else "dark"
    readings = []
    for table in range(1, 25):
        idx = table if mover == 0 else 25 - table
        v = signed[idx]
        readings.append(PointReading(table, abs(v), None if v == 0 else (me if v > 0 else them)))
    mine = sum(v for v in signed[1:25] if v > 0) + signed[25]
    theirs = -sum(v for v in signed[1:25] if v < 0) - signed[0]
    if mine > CHECKERS or theirs > CHECKERS:
        raise TableError(f"more than {CHECKERS} checkers of one side ({mine}, {theirs})")
    bar = {me: signed[25], them: -signed[0]}
    off = {me: CHECKERS - mine, them: CHECKERS - theirs}
    return tuple(readings), Counts(light=bar["light"], dark=bar["dark"]), Counts(light=off["light"], dark=off["dark"])


def roll_dice(player: int, dice: Sequence[int], cocked: Sequence[bool] = (), opening: bool = False) -> tuple[DieReading, ...]:
    """Die readings for a roll by ``player``: flat dice in the player's right-hand
    board (image pixels on a nominal 1280x720 frame). ``cocked[i]`` marks die ``i``
    as cocked (reason ``"tilted"``). With ``opening`` the two dice are one per
    player: ``dice[0]`` player 0's (image right), ``dice[1]`` player 1's (left)."""
    out = []
    for i, value in enumerate(dice):
        owner = (0 if i == 0 else 1) if opening else player
        half = right_half(owner)
        x = (900.0 if half == "right" else 300.0) + 60.0 * i
        is_cocked = bool(cocked[i]) if i < len(cocked) else False
        out.append(
            DieReading(
                value=int(value),
                center=(x, 360.0),
                box=(x - 20.0, 340.0, x + 20.0, 380.0),
                cocked=is_cocked,
                reason="tilted" if is_cocked else None,
                message="the die is not flat" if is_cocked else None,
                half=half,
            )
        )
    return tuple(out)


def cube_reading(value: int, owner: Optional[int]) -> CubeReading:
    """The cube as the camera would see it: centred showing 64 when ``owner`` is
    ``None`` and ``value`` 1, else ``value`` on the owner's side."""
    if owner is None:
        return CubeReading(value=64 if value == 1 else value, place="centre")
    return CubeReading(value=value, place=cube_side(owner))  # type: ignore[arg-type]


def signed_to_observation(
    signed: Sequence[int],
    mover: int,
    layout: TableLayout = TableLayout(),
    dice: tuple[DieReading, ...] = (),
    cube: Optional[CubeReading] = CubeReading(value=64, place="centre"),
    occluded: bool = False,
    frame_index: int = 0,
    timestamp_ms: float = 0.0,
) -> Observation:
    """An :class:`Observation` showing the mover-view board ``signed`` (26 ints),
    with ``dice`` (see :func:`roll_dice`) and ``cube``; trays visible."""
    points, bar, off = signed_to_points(signed, mover, layout)
    return Observation(
        points=points,
        bar=bar,
        off=off,
        off_visible=True,
        occluded=occluded,
        dice=dice,
        cube=cube,
        frame_index=frame_index,
        timestamp_ms=timestamp_ms,
    )


def position_to_observation(position, mover: int, layout: TableLayout = TableLayout(), **kwargs) -> Observation:
    """:func:`signed_to_observation` for a rules ``Position`` (``to_signed()``)."""
    return signed_to_observation(position.to_signed(), mover, layout, **kwargs)


def observation_to_position(obs: Observation, layout: TableLayout, mover: int):
    """The rules ``Position`` of ``obs`` from ``mover``'s view."""
    from companion.position import Position

    return Position.from_signed(list(observation_to_signed(obs, layout, mover)))


def swap_signed(signed: Sequence[int]) -> tuple[int, ...]:
    """The same board from the other player's view."""
    out = [0] * 26
    for i in range(1, 25):
        out[25 - i] = -signed[i]
    out[25] = -signed[0]
    out[0] = -signed[25]
    return tuple(out)


def table_points_of(signed_indices: Sequence[int], mover: int) -> tuple[int, ...]:
    """Table points of mover-view indices (1..24; the bar 25/0 are dropped)."""
    return tuple(sorted({table_point(mover, i) for i in signed_indices if 1 <= i <= 24}))

"""The events of a running session, as published on the :class:`~companion.bus.EventBus`.

Every event is a frozen dataclass; ``to_dict()`` gives the JSON line printed by
``companion watch --events-jsonl``. Points in events are *table points*: the
numbering of ``companion read`` (home board of the player at the image's bottom
in the bottom-right quadrant; 1-12 right to left along the bottom row, 13-24 left
to right along the top row), so outlets that are laid out like the physical
table (the LED strip, the dashboard's board) need no perspective. Players are
``0`` (the player at the image's bottom) and ``1`` (the player at the top).

Producers may add event classes of their own (subclass :class:`Event`); the ones
here are shared by the referee, the dashboard and the LED board.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from companion.bus import Event


@dataclasses.dataclass(frozen=True)
class ObservationEvent(Event):
    """A stable reading of the board (after the stability filter), as plain data;
    ``frame_index``: the source's frame that completed it (-1 unknown)."""

    type = "observation"
    observation: dict[str, Any] = dataclasses.field(default_factory=dict)
    stable: bool = True
    frame_index: int = -1


@dataclasses.dataclass(frozen=True)
class RollEvent(Event):
    """A flat roll was seen: ``dice`` (two values; an opening roll gives one die each).
    ``revised``: the roll being played, read again surer where its dice still lie
    (:mod:`companion.roll_revision`); it replaces the roll event before it."""

    type = "roll"
    player: int = 0
    dice: tuple[int, int] = (1, 1)
    opening: bool = False
    revised: bool = False


@dataclasses.dataclass(frozen=True)
class CockedDiceEvent(Event):
    """A roll with at least one cocked die: both dice are rolled again
    (tournament rules, DESIGN.md). ``reasons``: ``{"code", "message"}`` per cocked die."""

    type = "cocked_dice"
    player: int = 0
    dice: tuple[int, ...] = ()
    reasons: tuple[dict[str, str], ...] = ()


@dataclasses.dataclass(frozen=True)
class VerdictEvent(Event):
    """The referee's judgement of a play.

    ``verdict``: ``"legal"``, ``"illegal"``, ``"in_progress"``, ``"no_change"`` or
    ``"corrected"`` (an illegal play has been put right). ``play`` and
    ``closest_legal`` in standard notation (from the mover's view).
    ``reasons``: ``{"code", "message"}`` dicts. ``points_differing``: table points
    whose checkers differ from the closest legal result; ``points_played``: table
    points the play (or the closest legal play) touches.
    """

    type = "verdict"
    verdict: str = "legal"
    player: int = 0
    dice: tuple[int, int] = (1, 1)
    play: Optional[str] = None
    reasons: tuple[dict[str, str], ...] = ()
    closest_legal: Optional[str] = None
    position_id_before: str = ""
    position_id_after: str = ""
    points_differing: tuple[int, ...] = ()
    points_played: tuple[int, ...] = ()


@dataclasses.dataclass(frozen=True)
class CubeEvent(Event):
    """A cube action: ``action`` ``"double"``, ``"take"``, ``"drop"``, ``"beaver"``,
    ``"raccoon"``; ``value`` the cube's value after the action; ``owner`` 0, 1 or
    ``None`` (centred); ``note`` for a legal but pointless double."""

    type = "cube"
    action: str = "double"
    player: int = 0
    value: int = 1
    owner: Optional[int] = None
    note: Optional[str] = None


@dataclasses.dataclass(frozen=True)
class ResignationEvent(Event):
    """A resignation: ``action`` ``"offer"``, ``"accept"`` or ``"refuse"``;
    ``level`` 1 single, 2 gammon, 3 backgammon."""

    type = "resignation"
    action: str = "offer"
    player: int = 0
    level: int = 1


@dataclasses.dataclass(frozen=True)
class GameEndEvent(Event):
    """A game is over: ``winner`` 0/1, ``points`` won (cube included), ``kind``
    ``"single"``/``"gammon"``/``"backgammon"``/``"drop"``/``"resign"``; ``score`` after."""

    type = "game_end"
    winner: int = 0
    points: int = 1
    kind: str = "single"
    cube: int = 1
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    match_over: bool = False


@dataclasses.dataclass(frozen=True)
class TurnEvent(Event):
    """Whose turn it is and what the referee waits for: ``waiting_for`` is one of
    ``"opening_roll"``, ``"roll"``, ``"play"``, ``"correction"``, ``"cube_response"``,
    ``"game_over"``."""

    type = "turn"
    player: Optional[int] = None
    waiting_for: str = "roll"
    position_id: str = ""
    match_id: str = ""


@dataclasses.dataclass(frozen=True)
class OverrideEvent(Event):
    """A person overrode the machine: ``action`` ``"set_dice"``, ``"set_position"``,
    ``"undo"``; ``by`` who (``"keyboard"``, ``"dashboard"``); ``detail`` what."""

    type = "override"
    action: str = "undo"
    by: str = "keyboard"
    detail: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class SourceStatusEvent(Event):
    """The camera or frame source: ``status`` ``"ok"``, ``"lost"``, ``"reconnecting"``,
    ``"ended"``; ``detail`` a sentence."""

    type = "source"
    status: str = "ok"
    detail: str = ""


@dataclasses.dataclass(frozen=True)
class LedsEvent(Event):
    """An LED frame acknowledged by the board: ``leds`` one entry per LED index,
    each ``{"colour": [r, g, b], "pattern": "off"|"steady"|"blink"|"pulse"}``;
    ``acked_ms`` milliseconds from the frame's sending to its ACK."""

    type = "leds"
    leds: tuple[dict[str, Any], ...] = ()
    acked_ms: float = 0.0


@dataclasses.dataclass(frozen=True)
class LinkStateEvent(Event):
    """The LED board's serial link: ``state`` ``"connecting"``, ``"connected"``,
    ``"lost"``; ``port`` the device path; ``detail`` a sentence."""

    type = "link"
    state: str = "connecting"
    port: str = ""
    detail: str = ""


@dataclasses.dataclass(frozen=True)
class BoardStatusEvent(Event):
    """What the stability filter makes of the board, on each change:
    ``status`` ``"moving"``, ``"occluded"`` (a hand or arm over it),
    ``"settling"``, ``"undecided"`` (frames disagree), ``"held"`` (impossible
    checker totals: not judged), ``"stable"``, ``"unreadable"``; ``detail`` a
    sentence (why a reading is held); ``frame_index`` the frame (from 0 in
    the source) that changed it."""

    type = "board"
    status: str = "stable"
    detail: str = ""
    frame_index: int = -1


@dataclasses.dataclass(frozen=True)
class ButtonEvent(Event):
    """A button on the LED board: ``button`` ``"confirm"`` or ``"undo"``; ``action``
    ``"press"`` or ``"long_press"``."""

    type = "button"
    button: str = "confirm"
    action: str = "press"


@dataclasses.dataclass(frozen=True)
class FrameReadingEvent(Event):
    """What one frame showed, published for every frame when the frames are
    unrelated photos (``companion watch --stills``): ``frame_index`` (from 0),
    ``name`` (the file's name, ``""`` unknown), ``status`` ``"read"`` (a reading
    the referee got), ``"occluded"`` (a hand or arm over the board, or
    unreadable points: not judged), ``"held"`` (impossible checker totals: not
    judged), ``"unreadable"`` (no board found, or a file that cannot be
    decoded); ``detail`` a sentence; ``observation`` the frame's own reading
    (``Observation.to_dict()``, empty when there is none)."""

    type = "reading"
    frame_index: int = -1
    name: str = ""
    status: str = "read"
    detail: str = ""
    observation: dict[str, Any] = dataclasses.field(default_factory=dict)

"""The contract between the running referee session and its outlets (dashboard, keyboard).

``companion watch`` builds one object satisfying :class:`SessionApi` and hands it
to ``web.create_app(session=...)`` and to the terminal keyboard handler. The
dashboard never reaches into the referee by any other way.
"""

from __future__ import annotations

from typing import Any, Optional, Protocol

from companion.bus import EventBus


class SessionApi(Protocol):
    """What an outlet may read from and ask of the running session.

    Every method that changes state validates its input and raises
    ``ValueError`` (with a sentence fit for the user) on bad input; every
    change is appended to the match log before it returns.
    """

    bus: EventBus

    def state(self) -> dict[str, Any]:
        """The whole current state as JSON-ready data (``GET /api/state``): position
        (26 signed ints and an ASCII diagram), ``position_id``, ``match_id``, dice,
        cube (value, owner, place), score, match length, Crawford flag, whose turn,
        last verdict, settings (teaching or tournament mode, policies).

        Keys as built by ``companion.session.Session.state``: ``waiting_for``
        (``"opening_roll"``, ``"roll"``, ``"play"``, ``"correction"``,
        ``"cube_response"``, ``"resignation_response"``, ``"game_over"``),
        ``on_roll``, ``turn``, ``dice``, ``position`` (26 signed ints, view of
        the player on roll), ``table_position`` (player 0's view),
        ``position_id``, ``match_id``, ``diagram``, ``cube`` (``value``,
        ``owner``, ``offered``, ``place``), ``score``, ``match_length``,
        ``crawford``, ``game_number``, ``players``, ``last_verdict`` (a verdict
        event dict or None), ``illegal_board``, ``settings``
        (``illegal_play_policy``, ``die_on_checker``, ``mode``, ``layout``),
        ``mode``, ``games`` (the score sheet: ``number``, ``winner``,
        ``points``, ``kind``, ``cube``, ``crawford``, ``score``), ``resignation``
        (``{"player", "level"}`` or None), ``pip_count`` and ``legal_plays``
        (teaching mode only), ``stability``, ``source``, ``frames``,
        ``match_settings``."""
        ...

    def new_match(self, settings: dict[str, Any]) -> None:
        """Start a new match: ``players`` (two names), ``match_length`` (0 = money),
        ``jacoby``, ``beavers``, ``automatic_doubles``, ``illegal_play_policy``
        (``"mandatory_correction"``/``"opponent_option"``), ``die_on_checker``
        (``"cocked"``/``"flat_ok"``), ``mode`` (``"teaching"``/``"tournament"``)."""
        ...

    def resign(self, player: int, level: int) -> None:
        """``player`` (0 or 1) offers to resign a single (1), gammon (2) or backgammon (3)."""
        ...

    def answer_resignation(self, accept: bool) -> None:
        """The opponent accepts or refuses the pending resignation."""
        ...

    def set_dice(self, dice: tuple[int, int], by: str) -> None:
        """Override a misread roll; ``by`` names who did it (audit trail)."""
        ...

    def set_position(self, position_id: str, by: str) -> None:
        """Override a misread board with a gnubg Position ID (player on roll's view)."""
        ...

    def undo(self, by: str) -> None:
        """Undo the last verdict or override."""
        ...

    def confirm(self, by: str) -> None:
        """Accept the illegal play on the board as it stands while the referee waits
        for a correction (the referee's call, or the opponent's option)."""
        ...

    def double(self, player: int, by: str) -> None:
        """``player`` (0 or 1) doubles, when the camera cannot see the cube."""
        ...

    def take(self, player: int, by: str) -> None:
        """``player`` takes the pending double."""
        ...

    def drop(self, player: int, by: str) -> None:
        """``player`` drops the pending double: the game ends."""
        ...

    def match_record(self) -> str:
        """The match so far as Jellyfish ``.mat`` text."""
        ...

    def latest_frame_jpeg(self) -> Optional[bytes]:
        """The newest camera frame with the reading drawn over it, JPEG bytes, or None."""
        ...

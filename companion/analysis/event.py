"""The analysis event: gnubg's judgement of a decision, published after the verdict."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from companion.bus import Event


@dataclasses.dataclass(frozen=True)
class AnalysisEvent(Event):
    """gnubg's judgement of one decision, published on the bus after the
    referee's verdict (or cube event) it follows.

    ``kind``: ``"play"``, ``"cube"`` or ``"match"`` (gnubg's review of the
    match so far, after a game end: ``analysis`` is ``MatchReview.to_dict()``,
    ``player`` the game's winner). ``player``: who decided (0/1).
    ``decision``: ``"play"``, ``"review"`` or one of ``"double"``,
    ``"no_double"`` (a roll where gnubg would have doubled), ``"take"``, ``"drop"``. ``verdict``: the
    referee's verdict of the play (``"legal"``, ``"illegal"``, ``"corrected"``;
    ``""`` for the cube). ``dice``: the roll ((0, 0) for the cube).
    ``position_id`` (from the view of the player on roll) and ``match_id``
    (seen from the player on roll) of the position judged. ``status``:
    ``"ok"`` or ``"unavailable"`` (``detail`` says why: gnubg missing, hung,
    dead). ``analysis``: ``PlayAnalysis.to_dict()`` or ``CubeAnalysis.to_dict()``
    or ``MatchReview.to_dict()`` (empty when unavailable). ``equity_loss``: what the decision made gave away
    (>= 0, money units; ``None`` when no decision was made or it is not among
    gnubg's). ``label``: gnubg's ``"doubtful"``, ``"bad"``, ``"very bad"`` or
    ``None``. ``error_rates``: per player (index 0/1) the running figures after
    this event (``companion.analysis.service.ErrorTally.to_dict``).
    ``verdict_ms``: ``time_ms`` of the event judged; ``elapsed_ms``: from it to
    this event.
    """

    type = "analysis"
    kind: str = "play"
    player: int = 0
    decision: str = "play"
    verdict: str = ""
    dice: tuple[int, int] = (0, 0)
    position_id: str = ""
    match_id: str = ""
    status: str = "ok"
    detail: str = ""
    analysis: dict[str, Any] = dataclasses.field(default_factory=dict)
    equity_loss: Optional[float] = None
    label: Optional[str] = None
    error_rates: tuple[dict[str, Any], ...] = ()
    verdict_ms: float = 0.0
    elapsed_ms: float = 0.0

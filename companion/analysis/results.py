"""What gnubg says about one play or one cube decision, as plain frozen values.

Equities are gnubg's cubeful equities from the view of the player on roll, in
money units (match play: normalised money equity, as gnubg prints them).
Labels follow gnubg's analysis thresholds (``show analysis`` in gnubg 1.07):
an equity loss of at least 0.03 is *doubtful*, 0.06 *bad*, 0.12 *very bad*.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

#: (label, smallest equity loss) from the worst down: gnubg 1.07's defaults.
SKILL_THRESHOLDS: tuple[tuple[str, float], ...] = (("very bad", 0.12), ("bad", 0.06), ("doubtful", 0.03))


def skill_label(equity_loss: Optional[float]) -> Optional[str]:
    """gnubg's label for an equity loss (>= 0, money units): ``"very bad"``,
    ``"bad"``, ``"doubtful"`` or ``None`` (no error worth a mark)."""
    if equity_loss is None:
        return None
    for label, threshold in SKILL_THRESHOLDS:
        if equity_loss >= threshold:
            return label
    return None


@dataclasses.dataclass(frozen=True)
class RankedPlay:
    """One legal play as gnubg ranks it: ``play`` in gnubg's notation,
    ``equity`` (cubeful), ``equity_loss`` (behind the best play, >= 0),
    ``plies`` (the ply gnubg evaluated it at: plays its move filter drops are
    left at 0-ply, as in gnubg's own ``hint``), ``probs`` (win, win gammon, win
    backgammon, lose gammon, lose backgammon), ``position_id`` (the result,
    the mover still on roll)."""

    play: str
    equity: float
    equity_loss: float
    plies: int
    probs: tuple[float, ...]
    position_id: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the fields."""
        return {"play": self.play, "equity": self.equity, "equity_loss": self.equity_loss,
                "plies": self.plies, "probs": list(self.probs), "position_id": self.position_id}


@dataclasses.dataclass(frozen=True)
class PlayAnalysis:
    """gnubg's ranking of every legal play for ``dice`` in ``position_id``
    (Position ID, the mover on roll; ``match_id`` from the mover's view),
    best first, and the play made (``made``: its notation; ``made_rank``:
    1-based place in ``plays``; ``None`` when no play was made or it is not
    legal). ``equity_loss`` and ``label`` are the made play's."""

    position_id: str
    match_id: str
    dice: tuple[int, int]
    plies: int
    plays: tuple[RankedPlay, ...]
    made: Optional[str] = None
    made_rank: Optional[int] = None

    @property
    def equity_loss(self) -> Optional[float]:
        """The made play's equity loss behind gnubg's best (``None`` if none made)."""
        return None if self.made_rank is None else self.plays[self.made_rank - 1].equity_loss

    @property
    def label(self) -> Optional[str]:
        """gnubg's label of the made play (:func:`skill_label`)."""
        return skill_label(self.equity_loss)

    @property
    def forced(self) -> bool:
        """At most one legal play: no decision to judge."""
        return len(self.plays) <= 1

    def with_made(self, result_position_id: Optional[str]) -> "PlayAnalysis":
        """This analysis with the made play found by its resulting position
        (plays are told apart by their result, not their notation)."""
        for rank, ranked in enumerate(self.plays, start=1):
            if ranked.position_id == result_position_id:
                return dataclasses.replace(self, made=ranked.play, made_rank=rank)
        return dataclasses.replace(self, made=None, made_rank=None)

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": "play", "position_id", "match_id", "dice", "plies", "plays":
        [...], "made", "made_rank", "equity_loss", "label", "forced"}``."""
        return {"kind": "play", "position_id": self.position_id, "match_id": self.match_id,
                "dice": list(self.dice), "plies": self.plies,
                "plays": [p.to_dict() for p in self.plays], "made": self.made,
                "made_rank": self.made_rank, "equity_loss": self.equity_loss,
                "label": self.label, "forced": self.forced}


#: The cube decisions a player can make, and who makes them.
CUBE_DECISIONS = ("double", "no_double", "take", "drop")


@dataclasses.dataclass(frozen=True)
class CubeAnalysis:
    """gnubg's cube evaluation before a roll, from the view of the player on
    roll (the one who may double): equities after ``no_double``,
    ``double_take`` and ``double_pass``, ``optimal`` (the best of them for the
    doubler, given the opponent's best answer) and gnubg's ``action`` text
    (``"Double, take"``, ``"No double, take"``, ``"Too good to double, pass"``, ...)."""

    position_id: str
    match_id: str
    plies: int
    no_double: float
    double_take: float
    double_pass: float
    optimal: float
    action: str

    @property
    def should_double(self) -> bool:
        """gnubg doubles: doubling (the opponent answering his best) beats not doubling."""
        return min(self.double_take, self.double_pass) > self.no_double

    @property
    def should_take(self) -> bool:
        """gnubg takes a double: the doubler gains no more from a take than from a pass."""
        return self.double_take <= self.double_pass

    def cost(self, decision: str) -> float:
        """The equity ``decision`` (one of :data:`CUBE_DECISIONS`) gives away,
        >= 0: ``double`` / ``no_double`` for the player on roll, ``take`` /
        ``drop`` for the opponent. Raises ``ValueError`` for another decision."""
        doubled = min(self.double_take, self.double_pass)
        best = max(self.no_double, doubled)
        if decision == "double":
            return max(0.0, best - doubled)
        if decision == "no_double":
            return max(0.0, best - self.no_double)
        if decision == "take":
            return max(0.0, self.double_take - self.double_pass)
        if decision == "drop":
            return max(0.0, self.double_pass - self.double_take)
        raise ValueError(f"a cube decision is one of {', '.join(CUBE_DECISIONS)}, not {decision!r}")

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": "cube", "position_id", "match_id", "plies", "no_double",
        "double_take", "double_pass", "optimal", "action", "should_double",
        "should_take"}``."""
        return {"kind": "cube", "position_id": self.position_id, "match_id": self.match_id,
                "plies": self.plies, "no_double": self.no_double, "double_take": self.double_take,
                "double_pass": self.double_pass, "optimal": self.optimal, "action": self.action,
                "should_double": self.should_double, "should_take": self.should_take}

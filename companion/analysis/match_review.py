"""gnubg's review of a whole match: error rates, luck, ratings and the worst decisions.

:func:`review_match` hands a Jellyfish ``.mat`` record to gnubg (``import
mat``, ``analyse match``; :mod:`~companion.analysis.gnubg_script`'s ``match``
request) and returns a :class:`MatchReview`. Figures are gnubg's own: error
totals in normalised money equity (EMG), rates in thousandths per decision
(mEMG): chequer play per unforced move, cube per close or actual cube
decision, overall per both; luck per move; ratings from ``gnubg.errorrating``.
:func:`review_stored` sums up the analyses stored with a match log
(:mod:`~companion.analysis.store`) without running gnubg.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from typing import Any, Optional, Sequence

from companion.analysis.engine import GnubgEngine
from companion.analysis.results import CubeAnalysis, skill_label

#: gnubg's rating names, index = ``gnubg.errorrating`` (0 worst).
RATINGS = ("Awful!", "Beginner", "Casual player", "Intermediate", "Advanced", "Expert",
           "World class", "Supernatural")


@dataclasses.dataclass(frozen=True)
class PlayerStats:
    """One player's figures for the match (gnubg's ``show statistics match``)."""

    name: str
    total_moves: int
    unforced_moves: int
    marked: dict[str, int]
    chequer_error: float
    cube_decisions: int
    cube_error: float
    luck: float
    rating: str

    @property
    def chequer_rate(self) -> Optional[float]:
        """mEMG lost per unforced move (``None`` without one)."""
        return 1000.0 * self.chequer_error / self.unforced_moves if self.unforced_moves else None

    @property
    def cube_rate(self) -> Optional[float]:
        """mEMG lost per close or actual cube decision."""
        return 1000.0 * self.cube_error / self.cube_decisions if self.cube_decisions else None

    @property
    def overall_rate(self) -> Optional[float]:
        """mEMG lost per decision (unforced moves and close cube decisions)."""
        count = self.unforced_moves + self.cube_decisions
        return 1000.0 * (self.chequer_error + self.cube_error) / count if count else None

    @property
    def luck_rate(self) -> Optional[float]:
        """mEMG of luck per move."""
        return 1000.0 * self.luck / self.total_moves if self.total_moves else None

    def to_dict(self) -> dict[str, Any]:
        """The fields and the rates as a JSON-ready dict."""
        out = dataclasses.asdict(self)
        out.update(chequer_rate=self.chequer_rate, cube_rate=self.cube_rate,
                   overall_rate=self.overall_rate, luck_rate=self.luck_rate)
        return out


@dataclasses.dataclass(frozen=True)
class Decision:
    """One decision that lost equity: ``game`` and ``move`` (1-based record in
    the game), ``player`` (0/1), ``action`` (``"move"``, ``"double"``,
    ``"no_double"``, ``"take"``, ``"drop"``), ``dice``, ``position_id`` and
    ``match_id`` (the state before the decision, as gnubg gives it: openable
    with ``companion analyse``), ``played`` (the play; ``None`` for the cube)
    and ``best`` (gnubg's best play, or its cube action), ``equity_loss``
    (EMG), ``label``."""

    game: int
    move: int
    player: int
    action: str
    dice: tuple[int, ...]
    position_id: str
    match_id: str
    played: Optional[str]
    best: Optional[str]
    equity_loss: float

    @property
    def label(self) -> Optional[str]:
        """gnubg's label for the loss (``companion.analysis.results.skill_label``)."""
        return skill_label(self.equity_loss)

    def to_dict(self) -> dict[str, Any]:
        """The fields and the label as a JSON-ready dict."""
        out = dataclasses.asdict(self)
        out["dice"] = list(self.dice)
        out["label"] = self.label
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Decision":
        """The decision of :meth:`to_dict`'s dict (``label`` is recomputed).
        Raises ``KeyError`` / ``TypeError`` for a dict without the fields."""
        fields = {f.name: data[f.name] for f in dataclasses.fields(cls)}
        fields["dice"] = tuple(fields["dice"])
        return cls(**fields)

    def sentence(self, players: Sequence[str]) -> str:
        """One line for people: ``"game 1 move 4: Ann doubled: gnubg says No
        double, take; loss 0.356 (very bad)"``."""
        who = players[self.player]
        label = f" ({self.label})" if self.label else ""
        if self.action == "move":
            what = f"{who} {self.dice[0]}-{self.dice[1]} played {self.played}, best {self.best}"
        else:
            verb = {"double": "doubled", "no_double": "did not double", "take": "took", "drop": "dropped"}
            what = f"{who} {verb.get(self.action, self.action)}: gnubg says {self.best}"
        return f"game {self.game} move {self.move}: {what}; loss {self.equity_loss:.3f}{label}"

    def command(self) -> str:
        """The ``companion analyse`` command line that opens this decision."""
        dice = f" --dice {self.dice[0]} {self.dice[1]}" if self.action == "move" and len(self.dice) == 2 else ""
        return f"companion analyse --position-id {self.position_id} --match-id {self.match_id}{dice}"


@dataclasses.dataclass(frozen=True)
class MatchReview:
    """gnubg's review: ``players``, ``match_length`` (0 money), ``plies``,
    ``stats`` (one :class:`PlayerStats` per player) and ``decisions`` (every
    decision that lost equity, worst first)."""

    players: tuple[str, str]
    match_length: int
    plies: int
    stats: tuple[PlayerStats, PlayerStats]
    decisions: tuple[Decision, ...]

    def to_dict(self, worst: int = 10) -> dict[str, Any]:
        """``{"players", "match_length", "plies", "stats": [...], "worst": [...]}``
        with the ``worst`` worst decisions."""
        return {"players": list(self.players), "match_length": self.match_length, "plies": self.plies,
                "stats": [s.to_dict() for s in self.stats],
                "worst": [d.to_dict() for d in self.decisions[:worst]]}


def _player_stats(name: str, stats: dict[str, Any], cube_error: float, rating: int) -> PlayerStats:
    moves, cube, dice = stats["moves"], stats["cube"], stats["dice"]
    return PlayerStats(
        name=name, total_moves=int(moves["total-moves"]), unforced_moves=int(moves["unforced-moves"]),
        marked={k: int(v) for k, v in moves["marked"].items()}, chequer_error=float(moves["error-skill"]),
        cube_decisions=int(cube["close-cube"]), cube_error=float(cube_error),
        luck=float(dice["luck"]), rating=RATINGS[rating] if 0 <= rating < len(RATINGS) else str(rating))


def _decision(row: dict[str, Any]) -> Optional[Decision]:
    if row["action"] == "move":
        loss = float(row["equity_loss"])
        played, best = row["played"], row["best"]
    else:
        cube = CubeAnalysis(position_id=row["position_id"], match_id=row["match_id"], plies=0,
                            no_double=row["no_double"], double_take=row["double_take"],
                            double_pass=row["double_pass"], optimal=0.0, action=row["cube_action"])
        loss = cube.cost(row["action"])
        played, best = None, row["cube_action"]
    if loss <= 0.0:
        return None
    return Decision(game=row["game"], move=row["move"], player=row["player"], action=row["action"],
                    dice=tuple(row["dice"]), position_id=row["position_id"], match_id=row["match_id"],
                    played=played, best=best, equity_loss=loss)


def review_match(engine: GnubgEngine, mat_text: str, plies: int = 2, timeout_s: float = 600.0) -> MatchReview:
    """gnubg's review of the match in ``mat_text`` (a Jellyfish ``.mat`` record)
    at ``plies``. Raises :class:`~companion.analysis.engine.AnalysisUnavailable`
    (gnubg missing, dead, or past ``timeout_s``) and ``ValueError`` when gnubg
    finds no game in the record."""
    with tempfile.TemporaryDirectory(prefix="companion-review-") as folder:
        path = os.path.join(folder, "match.mat")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(mat_text)
        answer = engine.request({"op": "match", "mat_path": path, "plies": plies}, timeout_s=timeout_s)
    stats = answer.get("stats") or {}
    if "X" not in stats or "O" not in stats:
        raise ValueError("GNU Backgammon found no game in the match record")
    names = tuple(answer["players"])
    decisions = [d for d in (_decision(row) for row in answer["decisions"]) if d is not None]
    decisions.sort(key=lambda d: -d.equity_loss)
    return MatchReview(
        players=(names[0], names[1]), match_length=int(answer["match_length"]), plies=plies,
        stats=(_player_stats(names[0], stats["X"], answer["cube_error"]["X"], answer["rating"]["X"]),
               _player_stats(names[1], stats["O"], answer["cube_error"]["O"], answer["rating"]["O"])),
        decisions=tuple(decisions))


def review_stored(events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A summary of stored analysis events (``AnalysisEvent.to_dict()``), no
    gnubg needed: per player ``{"plays", "play_loss", "error_rate",
    "cube_decisions", "cube_loss"}`` as the service counted them (its last
    event's ``error_rates``), and ``worst``: every judged decision with a
    loss, worst first (``kind``, ``player``, ``decision``, ``dice``,
    ``position_id``, ``match_id``, ``made``, ``best``, ``equity_loss``, ``label``)."""
    ok = [e for e in events if e.get("status") == "ok"]
    worst = []
    for e in ok:
        loss = e.get("equity_loss")
        if not loss:
            continue
        a = e.get("analysis") or {}
        plays = a.get("plays") or []
        worst.append({"kind": e["kind"], "player": e["player"], "decision": e["decision"],
                      "dice": e["dice"], "position_id": e["position_id"], "match_id": e["match_id"],
                      "made": a.get("made"), "best": plays[0]["play"] if plays else a.get("action"),
                      "equity_loss": loss, "label": e.get("label")})
    worst.sort(key=lambda d: -d["equity_loss"])
    rates = list(ok[-1]["error_rates"]) if ok else []
    return {"analyses": len(ok), "error_rates": rates, "worst": worst}

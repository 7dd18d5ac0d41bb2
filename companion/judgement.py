"""The referee's use of the rulebook: one call to ``companion.verdict.judge``,
its answer in the terms the referee publishes (notation strings, reason dicts,
the closest legal result as 26 signed ints). Standard library only."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional, Sequence


@dataclasses.dataclass(frozen=True)
class Judgement:
    """The rulebook's answer, in the referee's terms: ``kind`` (``"legal"``,
    ``"illegal"``, ``"in_progress"``, ``"no_change"``), ``play`` and
    ``closest_legal`` in notation, ``reasons`` as ``{"code", "message"}`` dicts,
    ``closest_signed`` the closest legal result (mover's view, 26 ints)."""

    kind: str
    play: Optional[str] = None
    reasons: tuple[dict[str, str], ...] = ()
    closest_legal: Optional[str] = None
    closest_signed: Optional[tuple[int, ...]] = None


def _reason(r: Any) -> dict[str, str]:
    if isinstance(r, dict):
        return {"code": str(r.get("code", "illegal")), "message": str(r.get("message", r.get("code", "")))}
    if hasattr(r, "code"):
        return {"code": str(r.code), "message": str(getattr(r, "message", r.code))}
    return {"code": "illegal", "message": str(r)}


def _notation(play: Any) -> Optional[str]:
    if play is None:
        return None
    if isinstance(play, str):
        return play
    n = getattr(play, "notation", None)
    return n() if callable(n) else (n if n is not None else str(play))


def judge(before: Sequence[int], dice: tuple[int, int], after: Sequence[int], complete: bool = False,
          plays: Any = None) -> Judgement:
    """Judge the board ``after`` against ``before`` (both 26 signed ints, mover's
    view) for ``dice`` with ``companion.verdict.judge`` (look-up among the
    results of every legal play; gnubg's rule: the most dice, then the most
    pips). ``complete``: the turn is over (a prefix or an unchanged board is then
    illegal when a fuller play was possible; a player who cannot move plays
    nothing, which is legal). ``plays``: ``legal_plays(before, dice)`` if known."""
    from companion.dice import Dice
    from companion.position import Position
    from companion.verdict import judge as rules_judge

    v = rules_judge(Position.from_signed(list(before)), Dice(*dice), Position.from_signed(list(after)),
                    complete=complete, plays=plays)
    kind = v.kind
    if kind == "no_change" and complete and v.dance:
        kind = "legal"  # no checker can move: the empty play is the legal play
    closest = v.closest_legal
    closest_signed = None
    if closest is not None and getattr(closest, "result", None) is not None:
        closest_signed = tuple(closest.result.to_signed())
    return Judgement(
        kind=kind,
        play=_notation(v.play),
        reasons=tuple(_reason(r) for r in v.reasons),
        closest_legal=_notation(closest),
        closest_signed=closest_signed,
    )

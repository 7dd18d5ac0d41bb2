"""The big messages above the board: illegal play, corrected, cocked dice, game over.

Each alert is a plain dict for the templates: ``kind`` (``"illegal"``,
``"corrected"``, ``"accepted"``, ``"cocked"``, ``"game_over"``), ``title``, ``subtitle``,
``lines`` (reasons, teaching mode only), ``closest_legal`` (teaching mode
only), ``instruction``, ``illegal_points`` and ``hint_points`` (table points
to mark on the board).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional, Sequence


def make_alert(
    kind: str,
    title: str,
    subtitle: str,
    lines: Iterable[str] = (),
    closest_legal: Optional[str] = None,
    instruction: str = "",
    illegal_points: Iterable[int] = (),
    hint_points: Iterable[int] = (),
) -> dict[str, Any]:
    """One alert dict (see the module's docstring)."""
    return {
        "kind": kind,
        "title": title,
        "subtitle": subtitle,
        "lines": list(lines),
        "closest_legal": closest_legal,
        "instruction": instruction,
        "illegal_points": [int(p) for p in illegal_points],
        "hint_points": [int(p) for p in hint_points],
    }


def _messages(reasons: Any) -> list[str]:
    return [str(r.get("message") or r.get("code")) for r in reasons or () if isinstance(r, Mapping)]


def verdict_alert(verdict: Mapping[str, Any], teaching: bool, names: Sequence[str]) -> Optional[dict[str, Any]]:
    """The alert for a ``verdict`` event dict: ``illegal`` (points that differ
    marked; reasons, the closest legal play and its points only in teaching
    mode), ``corrected``, ``accepted`` (an illegal play let stand); None for
    other verdicts."""
    kind = verdict.get("verdict")
    player = verdict.get("player")
    who = names[player] if player in (0, 1) else "The player"
    if kind == "illegal":
        play = verdict.get("play")
        return make_alert(
            "illegal",
            "Illegal play",
            f"{who} played {play}" if play else f"{who}'s play is not legal",
            lines=_messages(verdict.get("reasons")) if teaching else (),
            closest_legal=verdict.get("closest_legal") if teaching else None,
            instruction="Put the checkers back and play again.",
            illegal_points=verdict.get("points_differing") or (),
            hint_points=(verdict.get("points_played") or ()) if teaching else (),
        )
    if kind == "accepted":
        play = verdict.get("play")
        return make_alert("accepted", "Accepted as played",
                          f"{who}'s illegal play stands" + (f": {play}" if play else "") + " (no correction)")
    if kind == "corrected":
        play = verdict.get("play")
        return make_alert("corrected", "Corrected", f"{who}'s play is now legal" + (f": {play}" if play else ""))
    return None


def cocked_alert(event: Optional[Mapping[str, Any]], teaching: bool, names: Sequence[str],
                 roller: Optional[int]) -> dict[str, Any]:
    """The "roll again" alert for a ``cocked_dice`` event dict (or a state that
    says the dice are cocked, ``event`` None); reasons in teaching mode only."""
    player = (event or {}).get("player", roller)
    return make_alert(
        "cocked",
        "Cocked dice: roll again",
        f"{names[player]} must roll both dice again" if player in (0, 1) else "Roll both dice again",
        lines=_messages(event.get("reasons")) if (event and teaching) else (),
    )


def game_over_alert(game: Mapping[str, Any], names: Sequence[str], score: Sequence[int]) -> dict[str, Any]:
    """The alert for a finished game (a ``games`` entry or ``game_end`` event dict)."""
    winner = game.get("winner")
    points = game.get("points", 1)
    return make_alert(
        "game_over",
        "Match over" if game.get("match_over") else "Game over",
        f"{names[winner] if winner in (0, 1) else '?'} wins {points} point{'s' if points != 1 else ''}"
        f" ({game.get('kind', 'single')}); score {score[0]}-{score[1]}",
    )

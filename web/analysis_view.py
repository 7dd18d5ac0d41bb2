"""The teaching panel beside the board: gnubg's ranked plays, the running error
rates, and gnubg's review of the match after each game.

:func:`analysis_view` turns the tracker's newest ``analysis`` events
(``companion.analysis.event.AnalysisEvent``) into plain data for
``templates/_live.html``. Tournament mode gets ``None``: the panel is not drawn.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

#: Ranked plays listed (the play made is added below them when it ranks lower).
SHOWN_PLAYS = 8


def _signed(value: Any) -> str:
    return f"{float(value):+.3f}"


def _play_rows(analysis: Mapping[str, Any]) -> list[dict[str, Any]]:
    plays = analysis.get("plays") or []
    made_rank = analysis.get("made_rank")
    rows = []
    for rank, p in enumerate(plays, start=1):
        if rank > SHOWN_PLAYS and rank != made_rank:
            continue
        rows.append({"rank": rank, "play": str(p.get("play", "")), "equity": _signed(p.get("equity", 0.0)),
                     "loss": "" if rank == 1 else _signed(-float(p.get("equity_loss", 0.0))),
                     "made": rank == made_rank, "best": rank == 1,
                     "position_id": str(p.get("position_id", ""))})
    return rows


def best_play_points(event: Mapping[str, Any]) -> list[int]:
    """The table points (``companion.table``) whose checkers gnubg's best play
    moves, for drawing it on the board; ``[]`` when unknown."""
    from companion.position import Position
    from companion.position_id import PositionIdError
    from companion.table import table_points_of

    plays = (event.get("analysis") or {}).get("plays") or []
    if not plays or event.get("player") not in (0, 1):
        return []
    try:
        before = Position.from_position_id(str(event.get("position_id"))).to_signed()
        after = Position.from_position_id(str(plays[0].get("position_id"))).to_signed()
    except (PositionIdError, ValueError):
        return []
    return list(table_points_of([i for i in range(1, 25) if before[i] != after[i]], int(event["player"])))


def _play_summary(event: Mapping[str, Any], names: Sequence[str]) -> str:
    a = event.get("analysis") or {}
    who = names[event["player"]] if event.get("player") in (0, 1) else "The player"
    dice = "-".join(str(d) for d in event.get("dice") or ())
    count = len(a.get("plays") or [])
    if not count:
        return f"{who} had no legal play with {dice}."
    if event.get("verdict") == "illegal":
        return f"{who}'s play with {dice} was illegal: gnubg's best legal plays."
    rank = a.get("made_rank")
    if rank is None:
        return f"{who}'s play with {dice} is not among gnubg's plays."
    if rank == 1:
        return f"{who} played {a.get('made')}: gnubg's best play of {count}."
    label = f" ({event['label']})" if event.get("label") else ""
    return (f"{who} played {a.get('made')}: rank {rank} of {count}, "
            f"equity loss {float(event.get('equity_loss') or 0.0):.3f}{label}.")


def _cube_summary(event: Mapping[str, Any], names: Sequence[str]) -> str:
    a = event.get("analysis") or {}
    who = names[event["player"]] if event.get("player") in (0, 1) else "A player"
    decision = {"double": "doubled", "no_double": "did not double", "take": "took",
                "drop": "dropped"}.get(str(event.get("decision")), str(event.get("decision")))
    loss = float(event.get("equity_loss") or 0.0)
    label = f" ({event['label']})" if event.get("label") else ""
    verdict = "right" if loss < 0.0005 else f"cost {loss:.3f}{label}"
    return f"{who} {decision}: gnubg says {a.get('action', '?')}; {verdict}."


def _rates(event: Optional[Mapping[str, Any]], names: Sequence[str]) -> list[dict[str, Any]]:
    rates = (event or {}).get("error_rates") or ()
    out = []
    for player, rate in enumerate(rates[:2]):
        if not isinstance(rate, Mapping):
            continue
        value = rate.get("error_rate")
        plays = int(rate.get("plays") or 0)
        text = "no unforced play yet" if value is None else \
            f"{float(value):.1f} mEMG per play over {plays} unforced play{'s' if plays != 1 else ''}"
        cube = int(rate.get("cube_decisions") or 0)
        if cube:
            text += f"; cube {float(rate.get('cube_loss') or 0.0):.3f} lost in {cube} decision{'s' if cube != 1 else ''}"
        out.append({"player": player, "name": names[player], "error_rate": value, "text": text})
    return out


def review_view(event: Mapping[str, Any]) -> Optional[dict[str, Any]]:
    """gnubg's review of the match (an ``analysis`` event of kind ``"match"``)
    for the panel: ``players``, ``rows`` (``(name, player 0, player 1)`` text),
    ``worst`` (``{"text", "command", "position_id"}``); ``None`` when it is not
    a usable review."""
    from companion.analysis.match_review import Decision

    a = event.get("analysis") or {}
    stats = a.get("stats") or []
    if event.get("status") != "ok" or len(stats) != 2:
        return None

    def rate(value: Any) -> str:
        return "–" if value is None else f"{float(value):.1f}"

    rows = [("Overall error rate (mEMG)", *(rate(s.get("overall_rate")) for s in stats)),
            ("Chequer play error rate (mEMG)", *(rate(s.get("chequer_rate")) for s in stats)),
            ("Cube error rate (mEMG)", *(rate(s.get("cube_rate")) for s in stats)),
            ("Luck (mEMG per move)", *(rate(s.get("luck_rate")) for s in stats)),
            ("Rating", *(str(s.get("rating", "")) for s in stats))]
    players = [str(p) for p in a.get("players") or ("Player 0", "Player 1")]
    worst = []
    for d in a.get("worst") or ():
        try:
            decision = Decision.from_dict(d)
        except (KeyError, TypeError):
            continue
        worst.append({"text": decision.sentence(players), "command": decision.command(),
                      "position_id": decision.position_id})
    return {"players": players, "plies": a.get("plies"), "rows": rows, "worst": worst}


def analysis_view(analysis: Mapping[str, Mapping[str, Any]], names: Sequence[str],
                  teaching: bool) -> Optional[dict[str, Any]]:
    """The panel's data from ``Tracker.analysis`` (``{"play", "cube", "latest"}``
    events as dicts), or ``None`` in tournament mode or before any analysis:
    ``status`` (``"ok"``/``"unavailable"``), ``detail``, ``title``,
    ``summary``, ``plays`` (rows: ``rank``, ``play``, ``equity``, ``loss``,
    ``made``, ``best``, ``position_id``), ``label``, ``cube`` (a sentence or
    ``None``), ``rates`` (per player ``name``, ``error_rate``, ``text``),
    ``best_points`` (table points of gnubg's best play, :func:`best_play_points`),
    ``review`` (gnubg's review of the match after a game end, :func:`review_view`)."""
    if not teaching or not analysis:
        return None
    latest = analysis.get("latest") or {}
    view: dict[str, Any] = {"status": "ok", "detail": "", "title": "", "summary": "", "plays": [],
                            "label": None, "cube": None, "rates": _rates(latest, names),
                            "best_points": [], "review": None}
    if latest.get("status") == "unavailable":
        view["status"] = "unavailable"
        view["detail"] = str(latest.get("detail") or "GNU Backgammon did not answer")
    play = analysis.get("play")
    if play and play.get("status") == "ok":
        a = play.get("analysis") or {}
        who = names[play["player"]] if play.get("player") in (0, 1) else "?"
        view["title"] = f"{who}'s {'-'.join(map(str, play.get('dice') or ()))} at {a.get('plies', '?')}-ply"
        view["summary"] = _play_summary(play, names)
        view["plays"] = _play_rows(a)
        view["label"] = play.get("label")
        view["best_points"] = best_play_points(play)
    cube = analysis.get("cube")
    if cube and cube.get("status") == "ok":
        view["cube"] = _cube_summary(cube, names)
    match = analysis.get("match")
    view["review"] = review_view(match) if match else None
    return view

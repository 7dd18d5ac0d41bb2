"""From the session's state (plus what the tracker saw on the bus) to what the page shows.

One function, :func:`build_view`, so the first page, the live fragment and the
tests all see the same thing. Teaching mode adds hints (legal plays, reasons,
the closest legal play, pip counts); tournament mode shows none of them (tournament
rules forbid electronic aids other than score keeping).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from web.alerts import cocked_alert, game_over_alert, verdict_alert
from web.analysis_view import analysis_view
from web.board_svg import render_board_svg
from web.devices import device_status
from web.rules_view import board_from_position_id, legal_plays_of
from web.table import BoardDataError, TableBoard, board_from_state
from web.tracker import Tracker

WAITING_TEXT = {
    "opening_roll": "the opening roll (one die each)",
    "roll": "a roll",
    "play": "a play",
    "correction": "the correction of an illegal play",
    "cube_response": "an answer to the double (take or drop)",
    "resignation_response": "an answer to the resignation",
    "game_over": "a new game",
}

RESIGN_LEVELS = {1: "a single game", 2: "a gammon", 3: "a backgammon"}


def _int_or_none(value: Any) -> Optional[int]:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _pair(value: Any, default: tuple[int, int] = (0, 0)) -> tuple[int, int]:
    try:
        a, b = value
        return int(a), int(b)
    except (TypeError, ValueError):
        return default


def settings_of(state: Mapping[str, Any]) -> dict[str, Any]:
    """The match settings from the state (``state["settings"]``), never None."""
    settings = state.get("settings")
    return dict(settings) if isinstance(settings, Mapping) else {}


def players_of(state: Mapping[str, Any]) -> list[str]:
    """The two players' names (``state["players"]`` or ``settings["players"]``), defaulted."""
    names = state.get("players") or settings_of(state).get("players")
    if isinstance(names, Sequence) and not isinstance(names, str) and len(names) == 2:
        return [str(names[0]) or "Player 0", str(names[1]) or "Player 1"]
    return ["Player 0", "Player 1"]


def mode_of(state: Mapping[str, Any]) -> str:
    """``"teaching"`` or ``"tournament"`` (the default when the state does not say:
    showing no aids is the safe side)."""
    mode = state.get("mode") or settings_of(state).get("mode")
    return "teaching" if mode == "teaching" else "tournament"


def _dice_of(state: Mapping[str, Any]) -> tuple[list[int], bool, Optional[int]]:
    dice = state.get("dice")
    cocked = False
    roller = _int_or_none(state.get("on_roll", state.get("turn")))
    if isinstance(dice, Mapping):
        cocked = bool(dice.get("cocked", False))
        if dice.get("player") in (0, 1):
            roller = int(dice["player"])
        dice = dice.get("values", dice.get("dice"))
    values: list[int] = []
    if isinstance(dice, Sequence) and not isinstance(dice, str):
        for d in dice:
            v = _int_or_none(d)
            if v is not None and 1 <= v <= 6:
                values.append(v)
    return values, cocked, roller


def _cube_of(state: Mapping[str, Any]) -> tuple[int, Optional[int], bool]:
    cube = state.get("cube")
    if isinstance(cube, Mapping):
        value = _int_or_none(cube.get("value")) or 1
        owner = cube.get("owner")
        owner = owner if owner in (0, 1) else None
        return value, owner, bool(cube.get("offered", False))
    value = _int_or_none(cube) or 1
    return value, _int_or_none(state.get("cube_owner")), False


def build_view(state: Mapping[str, Any], tracker: Optional[Tracker], board_id_prefix: str = "") -> dict[str, Any]:
    """Everything the templates draw, as plain data (see ``templates/_live.html``).
    ``board_id_prefix``: before every id of the board drawing (a page of several boards)."""
    names = players_of(state)
    mode = mode_of(state)
    teaching = mode == "teaching"
    turn = state.get("turn")
    turn = turn if turn in (0, 1) else None
    board_error = None
    try:
        board = board_from_state(state)
    except BoardDataError as exc:
        board, board_error = None, str(exc)
    if board is None:
        board = TableBoard.empty()
    dice, cocked_flag, roller = _dice_of(state)
    cube_value, cube_owner, cube_offered = _cube_of(state)
    score = _pair(state.get("score"))
    match_length = _int_or_none(state.get("match_length")) or 0
    away = [match_length - score[0], match_length - score[1]] if match_length > 0 else None

    if "last_verdict" in state:
        verdict = state.get("last_verdict")
    else:
        verdict = tracker.verdict if tracker else None
    alert = verdict_alert(verdict, teaching, names) if isinstance(verdict, Mapping) else None
    if alert and alert["kind"] in ("corrected", "accepted") and state.get("waiting_for") in ("play", "game_over"):
        alert = None  # a passing notice: gone once the next roll is being played
    cocked_event = tracker.cocked if tracker else None
    if cocked_event or cocked_flag:
        alert = cocked_alert(cocked_event, teaching, names, roller)
        player = (cocked_event or {}).get("player", roller)
        if cocked_event and cocked_event.get("dice") and not dice:
            dice = [int(d) for d in cocked_event["dice"] if 1 <= int(d) <= 6]
            roller = player if player in (0, 1) else roller

    # While an illegal play waits for its correction, draw the board as it lies
    # on the table (the referee's ``illegal_board``) with the wrong points marked.
    board_caption = None
    caption_kind = ""
    seen = state.get("illegal_board")
    if alert and alert["kind"] == "illegal" and seen is not None:
        try:
            board = TableBoard.from_signed(seen, 0)
            board_caption = "The board as it lies now (not legal)"
            caption_kind = "illegal"
        except BoardDataError:
            pass
    # While a play is being made, draw the checkers where they are now (the
    # position after the legal part played so far) and mark the points touched.
    in_progress = tracker.in_progress if tracker else None
    progress_points: list[int] = []
    if alert is None and in_progress and state.get("waiting_for") == "play":
        partial = board_from_position_id(in_progress.get("position_id_after"), in_progress.get("player"))
        if partial is not None:
            board = partial
            board_caption = f"Play in progress: {in_progress.get('play') or '…'}"
            caption_kind = "progress"
            progress_points = [int(p) for p in in_progress.get("points_played") or ()]
    games = state.get("games")
    if not isinstance(games, Sequence) or isinstance(games, str):
        games = tracker.games if tracker else []
    games = [dict(g) for g in games if isinstance(g, Mapping)]
    if alert is None and state.get("waiting_for") == "game_over" and games:
        alert = game_over_alert(games[-1], names, score)
    pip_counts = list(board.pip_counts())
    waiting_for = state.get("waiting_for")
    board_lines = board.describe(names)
    description = "; ".join(board_lines) if board_lines else "No checkers on the board."
    svg = render_board_svg(
        board,
        dice=dice,
        roller=roller,
        dice_cocked=bool(alert and alert["kind"] == "cocked"),
        cube_value=cube_value,
        cube_owner=cube_owner,
        cube_offered=cube_offered,
        illegal_points=alert["illegal_points"] if alert else (),
        hint_points=alert["hint_points"] if alert else progress_points,
        title=f"Board: {names[0]} (light, bottom) against {names[1]} (dark, top)",
        description=description,
        id_prefix=board_id_prefix,
    )
    resignation = state.get("resignation", tracker.resignation if tracker else None)
    legal_plays = None
    if teaching:
        legal_plays = state.get("legal_plays")
        if legal_plays is None and state.get("waiting_for") in ("play", "correction") and len(dice) == 2:
            legal_plays = legal_plays_of(state, dice)
    return {
        "players": names,
        "mode": mode,
        "teaching": teaching,
        "board_svg": svg,
        "board_lines": board_lines,
        "board_error": board_error,
        "board_caption": board_caption,
        "board_caption_kind": caption_kind,
        "pip_counts": pip_counts if teaching else None,
        "score": list(score),
        "match_length": match_length,
        "away": away,
        "crawford": bool(state.get("crawford", False)),
        "post_crawford": bool(state.get("post_crawford", False)),
        "turn": turn,
        "turn_name": names[turn] if turn is not None and waiting_for not in ("game_over", "opening_roll") else None,
        "waiting_for": WAITING_TEXT.get(str(waiting_for), str(waiting_for)) if waiting_for else None,
        "position_id": str(state.get("position_id") or ""),
        "match_id": str(state.get("match_id") or ""),
        "dice": dice,
        "cube_value": cube_value,
        "cube_owner": cube_owner,
        "cube_offered": cube_offered,
        "cube_text": (
            f"{cube_value}, centred" if cube_owner is None else f"{cube_value}, owned by {names[cube_owner]}"
        ),
        "alert": alert,
        "legal_plays": [str(p) for p in legal_plays] if isinstance(legal_plays, Sequence) and not isinstance(legal_plays, str) else None,
        "games": games,
        "overrides": tracker.overrides if tracker else [],
        "resignation": resignation if isinstance(resignation, Mapping) else None,
        "resign_levels": RESIGN_LEVELS,
        "settings": settings_of(state),
        "devices": device_status(tracker),
        "analysis": analysis_view(tracker.analysis if tracker else {}, names, teaching),
    }

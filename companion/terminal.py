"""The terminal side of ``companion watch``: a readable log of events, the JSON
lines writer, and the referee's keyboard commands.

:func:`describe` turns one event into one line for people (or ``None`` for
events that stay quiet there: per-board observations, plays in progress, turn
changes). :class:`JsonLines` writes every event as one JSON object per line.
:func:`run_command` applies one keyboard line to the session (see
:data:`KEYBOARD_HELP`) and returns the answer to print.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Optional, TextIO

from companion.bus import Event

PLAYER_NAMES = ("bottom", "top")

KEYBOARD_HELP = """keyboard (type a line, then Enter):
  d 3 1        set the dice (a misread roll)
  p ID         set the position (gnubg Position ID, view of the player on roll)
  u            undo the last verdict or override
  c            accept the illegal play as it stands (no correction)
  D 0|1        player doubles       t 0|1   player takes     x 0|1  player drops
  r 0|1 [1-3]  player resigns (single, gammon, backgammon)
  a / n        accept / refuse the resignation
  s            show the state       ?       this help         q      quit"""


def _player(p: Any) -> str:
    return f"player {p} ({PLAYER_NAMES[p]})" if p in (0, 1) else "nobody"


def describe_board(obs: dict) -> str:
    """A stable reading in one line: ``sees 6:5L 8:3L ... | bar L1 | dice 3-1 (right) | cube 64 centre``."""
    points = " ".join(f"{p['point']}:{p['count']}{p['colour'][0].upper()}" for p in obs["points"] if p["count"])
    parts = [f"sees {points or 'an empty board'}"]
    bar = obs.get("bar") or {}
    if bar.get("light") or bar.get("dark"):
        parts.append(f"bar L{bar.get('light', 0)} D{bar.get('dark', 0)}")
    dice = obs.get("dice") or []
    if dice:
        parts.append("dice " + " ".join(
            f"{d['value']}{'*' if d['cocked'] else ''}({d['half'] or 'off'})" for d in dice))
    cube = obs.get("cube")
    if cube:
        parts.append(f"cube {cube['value']} {cube['place']}")
    return " | ".join(parts)


def describe(event: Event, verbose: bool = False) -> Optional[str]:
    """One line for people, or ``None`` for an event the terminal does not show.
    ``verbose``: also the stable readings and plays in progress (what the
    referee sees)."""
    d = event.to_dict()
    t = d["type"]
    if verbose and t == "observation":
        return describe_board(d["observation"])
    if verbose and t == "verdict" and d["verdict"] == "in_progress":
        return f"play in progress: {d['play'] or ''}"
    if t == "roll":
        dice = "-".join(str(v) for v in d["dice"])
        if d.get("opening") and d["dice"][0] == d["dice"][1]:
            return f"opening roll {dice}: a tie, both roll again"
        return f"{'opening roll' if d.get('opening') else 'roll'} {dice} for {_player(d['player'])}"
    if t == "cocked_dice":
        why = "; ".join(r["message"] for r in d["reasons"])
        return f"COCKED DICE: roll again ({why})"
    if t == "verdict":
        v = d["verdict"]
        who = _player(d["player"])
        if v == "in_progress":
            return None
        if v == "legal":
            return f"legal: {who} played {d['play'] or '(no move possible)'}"
        if v == "illegal":
            why = "; ".join(r["message"] for r in d["reasons"]) or "not a legal play"
            closest = f" | closest legal play: {d['closest_legal']}" if d.get("closest_legal") else ""
            points = f" | check points {', '.join(map(str, d['points_differing']))}" if d.get("points_differing") else ""
            return f"ILLEGAL: {who} {d['play'] or ''} -- {why}{closest}{points}".replace("  ", " ")
        if v == "corrected":
            if d["reasons"] and d["reasons"][0].get("code") == "position_restored":
                return "position restored"
            return f"corrected: {who} played {d['play'] or '(no move)'}"
        if v == "accepted":
            return f"accepted: the opponent accepted {who}'s play"
        if v == "position_changed":
            return f"POSITION CHANGED: {d['reasons'][0]['message'] if d['reasons'] else ''}"
        return f"{v}: {who}"
    if t == "cube":
        note = f" ({d['note']})" if d.get("note") else ""
        return f"cube: {_player(d['player'])} {d['action']}s, cube at {d['value']}{note}"
    if t == "resignation":
        levels = {1: "a single game", 2: "a gammon", 3: "a backgammon"}
        return f"resignation: {_player(d['player'])} {d['action']}s {levels.get(d['level'], d['level'])}"
    if t == "game_end":
        over = " -- match over" if d.get("match_over") else ""
        return f"GAME OVER: {_player(d['winner'])} wins {d['points']} point(s) ({d['kind']}), score {d['score'][0]}-{d['score'][1]}{over}"
    if t == "override":
        return f"override by {d['by']}: {d['action']} {json.dumps(d['detail'])}"
    if t == "source":
        if d["status"] == "ok" and "opened" in d["detail"]:
            return f"source: {d['detail']}"
        return f"source {d['status']}: {d['detail']}"
    if t == "reading":
        name = d["name"] or f"frame {d['frame_index']}"
        what = {"read": "read", "occluded": "not judged", "held": "not judged (impossible totals)",
                "unreadable": "not read"}.get(d["status"], d["status"])
        line = f"photo {name}: {what}"
        if d["detail"]:
            line += f", {d['detail']}"
        if d["observation"]:
            line += ": " + describe_board(d["observation"])
        return line
    if t == "board" and d["status"] == "held":
        return f"board held, not judged: {d['detail']}"
    if t == "link":
        return f"LED board {d['state']}: {d['detail']}"
    if t == "analysis":
        return _describe_analysis(d)
    return None


def _describe_analysis(d: dict) -> Optional[str]:
    """gnubg's judgement in one line (``companion.analysis.event.AnalysisEvent``)."""
    if d["status"] != "ok":
        return f"analysis unavailable: {d['detail']}"
    a = d["analysis"]
    if d["kind"] == "match":
        rates = ", ".join(
            f"{s['name']} {'-' if s['overall_rate'] is None else format(s['overall_rate'], '.1f')} mEMG ({s['rating']})"
            for s in a["stats"])
        return f"gnubg's review of the match so far: {rates}"
    who = _player(d["player"])
    label = f" ({d['label']})" if d.get("label") else ""
    if d["kind"] == "cube":
        decision = d["decision"].replace("_", " ")
        return f"gnubg: {who} {decision}: {a['action']}; cost {d['equity_loss']:.3f}{label}"
    if not a["plays"]:
        return None
    best = a["plays"][0]["play"]
    if a["made"] is None:
        return f"gnubg: best plays for {who}: " + ", ".join(p["play"] for p in a["plays"][:3])
    if a["made_rank"] == 1:
        return f"gnubg: {who} played {a['made']}, the best play"
    return (f"gnubg: {who} played {a['made']}, rank {a['made_rank']} of {len(a['plays'])}, "
            f"equity loss {d['equity_loss']:.3f}{label}; best {best}")


class TerminalLog:
    """A bus subscriber that prints :func:`describe` lines to ``stream``
    (``verbose``: the readings too)."""

    def __init__(self, stream: TextIO, verbose: bool = False) -> None:
        self.stream = stream
        self.verbose = verbose
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        line = describe(event, self.verbose)
        if line is None:
            return
        with self._lock:
            print(line, file=self.stream, flush=True)


class JsonLines:
    """A bus subscriber writing each event's ``to_dict()`` as one JSON line
    (``--events-jsonl``); flushed per line so a reader sees events live."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        line = json.dumps(event.to_dict(), separators=(", ", ": "))
        with self._lock:
            self.stream.write(line + "\n")
            self.stream.flush()


def _player_arg(parts: list[str], i: int) -> int:
    try:
        p = int(parts[i])
    except (IndexError, ValueError):
        raise ValueError("name the player: 0 (bottom) or 1 (top)") from None
    if p not in (0, 1):
        raise ValueError("the player is 0 (bottom) or 1 (top)")
    return p


def run_command(session: Any, line: str) -> tuple[str, bool]:
    """Apply one keyboard ``line`` to ``session``; returns (answer, quit?).
    Mistakes come back as an answer starting with ``error:``, never raised."""
    parts = line.split()
    if not parts:
        return "", False
    cmd, args = parts[0], parts[1:]
    try:
        if cmd in ("q", "quit", "exit"):
            return "bye", True
        if cmd in ("?", "h", "help"):
            return KEYBOARD_HELP, False
        if cmd == "d":
            if len(args) == 1 and len(args[0]) == 2 and args[0].isdigit():
                args = list(args[0])
            if len(args) != 2 or not all(a.isdigit() for a in args):
                raise ValueError("set the dice as: d 3 1")
            session.set_dice((int(args[0]), int(args[1])), by="keyboard")
            return f"dice set to {args[0]}-{args[1]}", False
        if cmd == "p":
            if len(args) != 1:
                raise ValueError("set the position as: p <Position ID>")
            session.set_position(args[0], by="keyboard")
            return f"position set to {args[0]}", False
        if cmd == "u":
            session.undo(by="keyboard")
            return "undone", False
        if cmd == "c":
            session.confirm(by="keyboard")
            return "play accepted as it stands", False
        if cmd == "D":
            session.double(_player_arg(parts, 1), by="keyboard")
            return "double offered", False
        if cmd == "t":
            session.take(_player_arg(parts, 1), by="keyboard")
            return "double taken", False
        if cmd == "x":
            session.drop(_player_arg(parts, 1), by="keyboard")
            return "double dropped", False
        if cmd == "r":
            level = int(args[1]) if len(args) > 1 and args[1].isdigit() else 1
            session.resign(_player_arg(parts, 1), level)
            return "resignation offered", False
        if cmd in ("a", "n"):
            session.answer_resignation(cmd == "a")
            return "resignation accepted" if cmd == "a" else "resignation refused", False
        if cmd == "s":
            st = session.state()
            return (
                f"waiting for {st['waiting_for'].replace('_', ' ')}; on roll: {st['on_roll']}; "
                f"dice {st['dice']}; score {st['score']}; cube {st['cube']['value']}; "
                f"Position ID {st['position_id']}; Match ID {st['match_id']}\n{st['diagram']}"
            ), False
    except ValueError as exc:
        return f"error: {exc}", False
    return f"error: unknown command {cmd!r} (? for help)", False

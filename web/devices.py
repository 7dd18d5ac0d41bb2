"""The devices around the referee, as the page says them: camera, board reading, LED board."""

from __future__ import annotations

from typing import Any, Optional

from web.tracker import Tracker

BOARD_STATUS = {
    "moving": "moving",
    "occluded": "a hand over the board",
    "settling": "settling",
    "undecided": "not sure yet",
    "held": "held (not judged)",
    "stable": "still, read",
    "unreadable": "unreadable",
}


def device_status(tracker: Optional[Tracker]) -> dict[str, Any]:
    """``{"camera", "board", "leds", "warning"}`` sentences (or None) from the
    newest ``source``, ``board`` and ``link`` events; ``warning`` while the
    camera is lost or reconnecting."""
    devices = tracker.devices if tracker else {}
    out: dict[str, Any] = {"camera": None, "board": None, "leds": None, "warning": None}
    source = devices.get("source")
    if source:
        out["camera"] = source.get("status", "") + (f": {source['detail']}" if source.get("detail") else "")
        if source.get("status") in ("lost", "reconnecting"):
            out["warning"] = "Camera " + out["camera"] + ". The referee keeps the match and waits."
    board = devices.get("board")
    if board:
        status = str(board.get("status", ""))
        out["board"] = BOARD_STATUS.get(status, status) + (f": {board['detail']}" if board.get("detail") else "")
    link = devices.get("link")
    if link:
        out["leds"] = str(link.get("state", "")) + (f": {link['detail']}" if link.get("detail") else "")
    return out

"""``attach``: the one entry point the composition root calls to run the LED board."""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import Any, Optional, TextIO

from companion.bus import EventBus
from companion.events import ButtonEvent, LinkStateEvent
from firmware_bridge.layout import LedLayout
from firmware_bridge.messages import BUTTON_ACTIONS, Button, Log

log = logging.getLogger(__name__)


class BridgeHandle:
    """What :func:`attach` returns: the running parts and :meth:`close`.

    ``link`` the :class:`~firmware_bridge.link.SerialLink`, ``reporter`` the
    :class:`~firmware_bridge.reporter.LedReporter`, ``board`` the
    :class:`~firmware_bridge.fake_board.FakeBoard` (``None`` for a real port).
    """

    def __init__(self, link: Any, reporter: Any, board: Any = None) -> None:
        self.link = link
        self.reporter = reporter
        self.board = board
        self._closed = False

    def show(self, *events: Any) -> None:
        """Feed events to the LEDs only (not the bus): the state published before
        :func:`attach` subscribed, e.g. the session's current ``TurnEvent``."""
        for event in events:
            self.reporter.take(event)

    def close(self) -> None:
        """Stop the reporter, the link and the fake board (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self.reporter.close()
        self.link.close()
        if self.board is not None:
            self.board.close()

    def __enter__(self) -> "BridgeHandle":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def attach(bus: EventBus, port: str, layout: Optional[LedLayout] = None, teaching: bool = True, *,
           profile: Any = None, stream: Optional[TextIO] = None, min_interval: float = 0.1,
           fake_reset_delay: float = 1.5, link_options: Optional[dict[str, Any]] = None,
           wait_connected: Optional[float] = None) -> BridgeHandle:
    """Drive the LED board at ``port`` from the events on ``bus``.

    ``port``: a serial device (``/dev/ttyACM0``), a pyserial URL, or ``"fake"`` to
    start a :class:`~firmware_bridge.fake_board.FakeBoard` on a pty whose LED states
    are printed as a line of coloured characters to ``stream`` (default standard
    error). ``layout`` the LED layout; when ``None`` it comes from ``profile`` (a
    calibration profile path or dict, ``leds`` section) or the default.
    ``teaching``: show the closest legal play in amber (tournament mode: False).
    Publishes :class:`~companion.events.LinkStateEvent`,
    :class:`~companion.events.LedsEvent` (each acknowledged frame) and
    :class:`~companion.events.ButtonEvent`. Returns immediately; the link connects
    in the background. Raises :class:`~firmware_bridge.layout.LayoutError`
    (a ``ValueError``) for a bad layout or profile, ``ValueError`` for an empty port.
    ``wait_connected``: seconds to block until the board's HELLO (default: 5 s for the
    fake board, so a demo's first verdicts reach it; 0 for a real port, which may be
    plugged in later). Not being connected by then is no error: the link keeps trying.
    """
    from firmware_bridge.display import render_line
    from firmware_bridge.layout import load_layout
    from firmware_bridge.link import SerialLink
    from firmware_bridge.reporter import LedReporter

    if not isinstance(port, str) or not port.strip():
        raise ValueError("the LED board's port must be a device path, a pyserial URL or 'fake'")
    if layout is None:
        layout = load_layout(profile)
    board = None
    if port == "fake":
        from firmware_bridge.fake_board import FakeBoard

        out = stream if stream is not None else sys.stderr
        colour = "NO_COLOR" not in os.environ
        print_lock = threading.Lock()
        shown: list[str] = []

        def show(leds: Any) -> None:
            line = render_line(leds, layout, colour=colour)
            with print_lock:
                if shown and shown[-1] == line:
                    return
                shown[:] = [line]
                print(line, file=out, flush=True)

        board = FakeBoard(led_count=layout.count, reset_delay=fake_reset_delay, on_change=show)
        port = board.path

    def on_state(state: str, where: str, detail: str) -> None:
        bus.publish(LinkStateEvent(state=state, port=where, detail=detail))

    def on_message(message: Any) -> None:
        if isinstance(message, Button):
            bus.publish(ButtonEvent(button=message.name, action=BUTTON_ACTIONS.get(message.action, "press")))
        elif isinstance(message, Log):
            log.log(message.level, "LED board: %s", message.text)

    reporter_box: list[Any] = []

    def on_resync(reason: str) -> None:
        if reporter_box:
            reporter_box[0].resync(reason)

    options = dict(link_options or {})
    if board is not None:
        options.setdefault("scan", None)  # the fake board keeps its path; no USB scan
    link = SerialLink(port, on_state=on_state, on_message=on_message, on_resync=on_resync, **options)
    reporter = LedReporter(bus, link, layout, teaching=teaching, min_interval=min_interval)
    reporter_box.append(reporter)
    link.start()
    if wait_connected is None:
        wait_connected = 5.0 if board is not None else 0.0
    if wait_connected > 0:
        link.wait_connected(wait_connected)
    return BridgeHandle(link, reporter, board)

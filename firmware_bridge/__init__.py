"""The LED board beside the table: serial protocol, host bridge, fake board, firmware.

``attach(bus, port, layout=None, teaching=True)`` runs it (``port="fake"`` for the
fake board on a pty); the protocol is in ``PROTOCOL.md``. Only the standard
library and :mod:`companion` are imported here; pyserial and ``cobs`` are
imported when the bridge starts.
"""

from __future__ import annotations

from typing import Any


def attach(bus: Any, port: str, layout: Any = None, teaching: bool = True, **options: Any) -> Any:
    """Start the LED board on ``port`` (or ``"fake"``); see :func:`firmware_bridge.bridge.attach`."""
    from firmware_bridge.bridge import attach as _attach

    return _attach(bus, port, layout, teaching, **options)


__all__ = ["attach"]

"""A fake LED board on a pty pair: the firmware's byte-level behaviour, in Python.

The host opens :attr:`FakeBoard.path` like a real serial device (a stable symlink
to the pty's slave, like ``/dev/serial/by-id/...``). The board behaves like
``firmware/src/main.cpp``: after a reset it ignores input for ``reset_delay``
seconds (the bootloader) and then sends HELLO; it ACKs or NACKs every host frame;
it blanks its LEDs when no valid host frame arrived for ``heartbeat_timeout``
seconds. Opening the port resets it, as DTR resets an Arduino: pyserial flushes
the input when it opens a port, which the pty's master sees in packet mode
(``TIOCPKT_FLUSHREAD``). :meth:`unplug` and :meth:`replug` close and recreate the
pty, so the host's port disappears and comes back under a new ``/dev/pts/N``.
Linux (and other systems with ``TIOCPKT``) only.
"""

from __future__ import annotations

import collections
import errno
import fcntl
import logging
import os
import pathlib
import select
import struct
import tempfile
import termios
import threading
import time
import tty
from typing import Callable, Optional

from firmware_bridge import codec
from firmware_bridge.messages import (ACK_FLAG_BLANKED, Capability, Hello, LedState, MsgType,
                                      NackReason, Pattern)

log = logging.getLogger(__name__)

_TIOCPKT_FLUSHREAD = 0x01


class FakeBoard:
    """An LED board on the far side of a pty pair.

    ``led_count`` LEDs; ``reset_delay`` and ``heartbeat_timeout`` in seconds;
    ``on_change(leds)`` is called from the board's thread with the tuple of
    :class:`~firmware_bridge.messages.LedState` shown whenever it changes (after a
    frame, a blanking or a reset). ``resets_on_open=False`` behaves like a board with
    native USB (Leonardo): opening the port does not reset it, so its power-on HELLO
    is gone and the host must send HELLO_REQUEST. Use as a context manager or call
    :meth:`close`.
    """

    def __init__(self, *, led_count: int = 28, reset_delay: float = 1.5,
                 heartbeat_timeout: float = 3.0, device_id: str = "fake-leds",
                 on_change: Optional[Callable[[tuple[LedState, ...]], None]] = None,
                 directory: Optional[str] = None, resets_on_open: bool = True) -> None:
        self.led_count = led_count
        self.reset_delay = reset_delay
        self.heartbeat_timeout = heartbeat_timeout
        self.device_id = device_id
        self.on_change = on_change
        self.resets_on_open = resets_on_open
        self._own_dir = directory is None
        self._dir = pathlib.Path(directory or tempfile.mkdtemp(prefix="fake-leds-"))
        #: The stable device path to open (a symlink to the current pty slave).
        self.path = str(self._dir / "ttyFAKELEDS")
        self._lock = threading.Lock()
        self._leds = tuple(LedState() for _ in range(led_count))
        self._blanked = False
        self._host_seen = False
        self._last_host_frame = 0.0
        self._ready_at = 0.0
        self._hello_pending = False
        self._tx_seq = 0
        self._drop_frames = 0
        self._master: Optional[int] = None
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._decoder = codec.FrameDecoder()
        #: Counts of what the board received: message type name -> frames, plus
        #: ``"corrupt"``, ``"dropped"`` (frames lost on purpose) and ``"resets"``.
        self.received: collections.Counter[str] = collections.Counter()
        self.changed = threading.Condition(self._lock)
        self.replug()

    # -- the outside world ------------------------------------------------------------

    @property
    def leds(self) -> tuple[LedState, ...]:
        """What the LEDs show now (all off while blanked or resetting)."""
        with self._lock:
            return self._leds

    @property
    def blanked(self) -> bool:
        """True after a heartbeat timeout blanked the LEDs (until the next SET_LEDS/CLEAR)."""
        with self._lock:
            return self._blanked

    @property
    def plugged(self) -> bool:
        """True while the pty exists."""
        return self._master is not None

    def drop_next(self, frames: int = 1) -> None:
        """Lose the next ``frames`` valid host frames (as if corrupted on the wire)."""
        with self._lock:
            self._drop_frames += frames

    def press(self, button: int = 1, action: int = 1) -> None:
        """Send a BUTTON message (1 confirm, 2 undo; action 1 press, 2 long press)."""
        self._send(MsgType.BUTTON, bytes((button, action)))

    def log_line(self, text: str, level: int = 20) -> None:
        """Send a LOG message."""
        self._send(MsgType.LOG, bytes((level,)) + text.encode("utf-8")[:200])

    def inject(self, raw: bytes) -> None:
        """Put raw bytes on the line towards the host (line noise, hand-made frames)."""
        if self._master is not None:
            os.write(self._master, raw)

    def wait_for(self, predicate: Callable[["FakeBoard"], bool], timeout: float = 5.0) -> bool:
        """Wait until ``predicate(board)`` holds (checked on every change); False on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            if predicate(self):
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            with self.changed:
                self.changed.wait(min(remaining, 0.05))

    def unplug(self) -> None:
        """Pull the USB cable: the pty and the symlink disappear, the board powers off."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        if self._master is not None:
            os.close(self._master)
            self._master = None
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        with self._lock:
            self._leds = tuple(LedState() for _ in range(self.led_count))
            self.changed.notify_all()

    def replug(self) -> None:
        """Plug the cable (back) in: a new pty behind :attr:`path`; the board boots."""
        if self._master is not None:
            self.unplug()
        master, slave = os.openpty()
        tty.setraw(slave)
        slave_name = os.ttyname(slave)
        fcntl.ioctl(master, termios.TIOCPKT, struct.pack("i", 1))
        os.close(slave)  # the host opens it; EIO on the master means nobody has it open
        self._master = master
        tmp = self.path + ".new"
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        os.symlink(slave_name, tmp)
        os.replace(tmp, self.path)
        self._stop = threading.Event()
        self._reset("power on")
        self._thread = threading.Thread(target=self._run, args=(master, self._stop),
                                        name="fake-led-board", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Unplug for good and remove the temporary directory."""
        self.unplug()
        if self._own_dir:
            try:
                self._dir.rmdir()
            except OSError:
                pass

    def __enter__(self) -> "FakeBoard":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the firmware -----------------------------------------------------------------

    def _reset(self, why: str) -> None:
        with self._lock:
            self.received["resets"] += 1
            self._leds = tuple(LedState() for _ in range(self.led_count))
            self._blanked = False
            self._host_seen = False
            self._ready_at = time.monotonic() + self.reset_delay
            self._hello_pending = True
            self._decoder.reset()
            self.changed.notify_all()
        log.debug("fake board reset (%s)", why)
        self._notify()

    def _notify(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change(self.leds)
            except Exception:  # noqa: BLE001 - a display must not kill the board
                log.exception("fake board display failed")

    def _send(self, msg_type: int, payload: bytes) -> None:
        with self._lock:
            seq = self._tx_seq
            self._tx_seq = (self._tx_seq + 1) % 256
            master = self._master
        if master is None:
            return
        try:
            os.write(master, codec.encode_frame(int(msg_type), seq, payload))
        except OSError:
            pass  # nobody listening: bytes on a serial line with no host are lost too

    def _hello(self) -> None:
        caps = Capability.CONFIRM_BUTTON | Capability.UNDO_BUTTON | Capability.PULSE | Capability.HEARTBEAT_BLANKING
        hello = Hello(firmware=(1, 0, 0), led_count=self.led_count, capabilities=int(caps),
                      device_id=self.device_id)
        if self._master is not None:
            try:
                os.write(self._master, b"\x00")
            except OSError:
                pass
        self._send(MsgType.HELLO, hello.payload())

    def _run(self, master: int, stop: threading.Event) -> None:
        while not stop.is_set():
            now = time.monotonic()
            with self._lock:
                booting = now < self._ready_at
                say_hello = not booting and self._hello_pending
                if say_hello:
                    self._hello_pending = False
                timed_out = (self._host_seen and not self._blanked
                             and now - self._last_host_frame > self.heartbeat_timeout)
                if timed_out:
                    self._leds = tuple(LedState() for _ in range(self.led_count))
                    self._blanked = True
                    self.changed.notify_all()
            if say_hello:
                self._hello()
            if timed_out:
                log.debug("fake board: no heartbeat for %.1f s, LEDs blanked", self.heartbeat_timeout)
                self._notify()
            try:
                ready, _, _ = select.select([master], [], [], 0.01)
            except (OSError, ValueError):
                return
            if not ready:
                continue
            try:
                packet = os.read(master, 4096)
            except OSError as exc:
                if exc.errno == errno.EIO:  # no host has the port open
                    stop.wait(0.02)
                    continue
                return
            if not packet:
                continue
            if packet[0] != 0:
                if packet[0] & _TIOCPKT_FLUSHREAD and self.resets_on_open:
                    self._reset("port opened")  # pyserial flushes on open: our DTR
                continue
            data = packet[1:]
            if time.monotonic() < self._ready_at:
                continue  # the bootloader eats what arrives while it runs
            for result in self._decoder.feed(data):
                if isinstance(result, codec.CorruptFrame):
                    with self._lock:
                        self.received["corrupt"] += 1
                    continue
                with self._lock:
                    if self._drop_frames > 0:
                        self._drop_frames -= 1
                        self.received["dropped"] += 1
                        continue
                self._handle(result)

    def _handle(self, frame: codec.Frame) -> None:
        """Mirror of ``handle_frame()`` in ``firmware/src/main.cpp``."""
        try:
            name = MsgType(frame.msg_type).name
        except ValueError:
            name = f"type-{frame.msg_type}"
        reason = 0
        changed = False
        with self._lock:
            self.received[name] += 1
            self._last_host_frame = time.monotonic()
            self._host_seen = True
            p = frame.payload
            if frame.msg_type == MsgType.SET_LEDS:
                if len(p) < 2 or len(p) != 2 + 4 * p[1]:
                    reason = NackReason.BAD_LENGTH
                elif p[0] + p[1] > self.led_count:
                    reason = NackReason.OUT_OF_RANGE
                elif any(p[5 + 4 * i] > max(Pattern) for i in range(p[1])):
                    reason = NackReason.BAD_PATTERN
                else:
                    leds = list(self._leds)
                    for i in range(p[1]):
                        r, g, b, pattern = p[2 + 4 * i: 6 + 4 * i]
                        leds[p[0] + i] = LedState((r, g, b), Pattern(pattern))
                    changed = tuple(leds) != self._leds
                    self._leds = tuple(leds)
                    self._blanked = False
            elif frame.msg_type == MsgType.CLEAR:
                if p:
                    reason = NackReason.BAD_LENGTH
                else:
                    changed = any(led.pattern != Pattern.OFF for led in self._leds)
                    self._leds = tuple(LedState() for _ in range(self.led_count))
                    self._blanked = False
            elif frame.msg_type == MsgType.HEARTBEAT:
                if p:
                    reason = NackReason.BAD_LENGTH
            elif frame.msg_type == MsgType.HELLO_REQUEST:
                pass
            else:
                reason = NackReason.UNKNOWN_TYPE
            flags = ACK_FLAG_BLANKED if self._blanked else 0
            self.changed.notify_all()
        if frame.msg_type == MsgType.HELLO_REQUEST:
            self._hello()
            return
        if reason:
            self._send(MsgType.NACK, bytes((frame.seq, int(reason))))
        else:
            self._send(MsgType.ACK, bytes((frame.seq, flags)))
        if changed:
            self._notify()


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m firmware_bridge.fake_board``: run a fake board until interrupted.

    Prints ``PATH`` (the device to open) on the first line of standard output, then
    one line of LED states per change on standard error.
    """
    import argparse
    import sys

    from firmware_bridge.display import render_line
    from firmware_bridge.layout import LedLayout

    parser = argparse.ArgumentParser(prog="python -m firmware_bridge.fake_board",
                                     description="A fake LED board on a pty (PROTOCOL.md).")
    parser.add_argument("--reset-delay", type=float, default=1.5, help="seconds of bootloader after a reset")
    parser.add_argument("--heartbeat-timeout", type=float, default=3.0, help="seconds without a host frame before blanking")
    parser.add_argument("--quiet", action="store_true", help="do not print LED states")
    args = parser.parse_args(argv)
    layout = LedLayout()

    def show(leds: tuple[LedState, ...]) -> None:
        if not args.quiet:
            print(render_line(leds, layout), file=sys.stderr, flush=True)

    with FakeBoard(led_count=layout.count, reset_delay=args.reset_delay,
                   heartbeat_timeout=args.heartbeat_timeout, on_change=show) as board:
        print(board.path, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

"""``SerialLink``: the host's side of the LED board's serial line (pyserial).

One supervisor thread opens the port, waits for the board's HELLO (opening resets
an Arduino), keeps the line alive with heartbeats and, when the board is lost,
finds it again: the last good port first, then the configured one, then a scan of
USB serial ports, forever. A reader thread per connection decodes frames
(:class:`~firmware_bridge.codec.FrameDecoder`) and hands ACK/NACK to the waiting
sender. :meth:`SerialLink.send` is stop-and-wait with retries. Timing and failure
behaviour: ``PROTOCOL.md``.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import threading
import time
from typing import Any, Callable, Iterable, Optional

from firmware_bridge import codec, messages

log = logging.getLogger(__name__)

#: Link states, as in ``LinkStateEvent.state``.
CONNECTING, CONNECTED, LOST, CLOSED = "connecting", "connected", "lost", "closed"


class LinkDown(RuntimeError):
    """The link is not connected, or the board stopped answering during a send."""


class FrameRefused(ValueError):
    """The board answered NACK: ``reason`` is a :class:`~firmware_bridge.messages.NackReason`."""

    def __init__(self, seq: int, reason: int) -> None:
        try:
            name = messages.NackReason(reason).name.lower()
        except ValueError:
            name = f"reason {reason}"
        super().__init__(f"the board refused frame {seq}: {name}")
        self.seq = seq
        self.reason = reason


@dataclasses.dataclass(frozen=True)
class Delivery:
    """An acknowledged frame: ``seq``, ACK ``flags``, ``attempts`` (1 = no retry) and
    ``acked_ms``, milliseconds from the first sending to the ACK."""

    seq: int
    flags: int
    attempts: int
    acked_ms: float

    @property
    def blanked(self) -> bool:
        """The board had blanked its LEDs on a heartbeat timeout."""
        return bool(self.flags & messages.ACK_FLAG_BLANKED)


def usb_serial_ports() -> list[str]:
    """Device paths of USB serial ports (pyserial's ``comports()`` with a USB vendor id)."""
    from serial.tools import list_ports

    return [p.device for p in list_ports.comports() if p.vid is not None]


class _Waiter:
    def __init__(self, seq: int) -> None:
        self.seq = seq
        self.event = threading.Event()
        self.reply: Optional[messages.Message] = None


class SerialLink:
    """A self-healing serial link to the LED board.

    ``port``: device path (``/dev/ttyACM0``, a fake board's path) or any pyserial
    URL. Callbacks run in the link's threads and must be quick:
    ``on_state(state, port, detail)`` on every change of :attr:`state`;
    ``on_message(message)`` for BUTTON and LOG messages from the board;
    ``on_resync(reason)`` when the board's LEDs are dark and the host's state must be
    sent again (just connected, or the board reports a heartbeat blanking).
    Times are seconds. ``scan`` lists candidate ports when the board is lost
    (default :func:`usb_serial_ports`). Call :meth:`start`, then :meth:`close`.
    """

    def __init__(self, port: str, *, baudrate: int = 115200,
                 on_state: Optional[Callable[[str, str, str], None]] = None,
                 on_message: Optional[Callable[[Any], None]] = None,
                 on_resync: Optional[Callable[[str], None]] = None,
                 hello_timeout: float = 6.0, hello_request_after: float = 2.0,
                 ack_timeout: float = 0.25, retries: int = 3, heartbeat_interval: float = 1.0,
                 reconnect_interval: float = 0.5,
                 scan: Optional[Callable[[], Iterable[str]]] = usb_serial_ports) -> None:
        self.port = port
        self.baudrate = baudrate
        self.on_state = on_state
        self.on_message = on_message
        self.on_resync = on_resync
        self.hello_timeout = hello_timeout
        self.hello_request_after = hello_request_after
        self.ack_timeout = ack_timeout
        self.retries = retries
        self.heartbeat_interval = heartbeat_interval
        self.reconnect_interval = reconnect_interval
        self.scan = scan
        self._state = "new"
        self._state_lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._closing = threading.Event()
        self._lost = threading.Event()
        self._connected = threading.Event()
        self._serial: Any = None
        self._reader: Optional[threading.Thread] = None
        self._reader_stop = threading.Event()
        self._hello_event = threading.Event()
        self._waiter: Optional[_Waiter] = None
        self._seq = itertools.count()
        self._last_tx = 0.0
        self._supervisor: Optional[threading.Thread] = None
        #: The HELLO of the connected board (``None`` before the first).
        self.hello: Optional[messages.Hello] = None
        #: The port the board answered on last (tried first when reconnecting).
        self.last_good_port: Optional[str] = None
        #: The port in use now (``None`` while not connected).
        self.current_port: Optional[str] = None
        #: Counters: frames sent, retries, corrupt frames received, reconnects.
        self.stats = {"sent": 0, "retries": 0, "corrupt": 0, "connects": 0}

    # -- public -----------------------------------------------------------------------

    @property
    def state(self) -> str:
        """``"new"`` (not started), ``"connecting"``, ``"connected"``, ``"lost"`` or ``"closed"``."""
        return self._state

    def start(self) -> "SerialLink":
        """Start the supervisor thread (returns ``self``)."""
        if self._supervisor is None:
            self._supervisor = threading.Thread(target=self._supervise, name="led-link", daemon=True)
            self._supervisor.start()
        return self

    def wait_connected(self, timeout: float) -> bool:
        """Block until connected; False after ``timeout`` seconds."""
        return self._connected.wait(timeout)

    def send(self, message: Any) -> Delivery:
        """Send a host message and wait for its ACK (stop-and-wait, same seq on retry).

        Raises :class:`LinkDown` when not connected or after ``retries + 1``
        unanswered attempts (the link then reconnects by itself), and
        :class:`FrameRefused` on a NACK.
        """
        with self._send_lock:
            if not self._connected.is_set():
                raise LinkDown(f"LED board not connected ({self._state})")
            seq = next(self._seq) % 256
            wire = codec.encode_frame(int(message.MSG_TYPE), seq, message.payload())
            waiter = _Waiter(seq)
            self._waiter = waiter
            first = time.perf_counter()
            try:
                for attempt in range(1, self.retries + 2):
                    if attempt > 1:
                        self.stats["retries"] += 1
                        log.debug("LED frame %d: retry %d", seq, attempt - 1)
                    try:
                        self._write(wire)
                    except Exception as exc:  # noqa: BLE001 - pyserial raises several kinds
                        self._mark_lost(f"write failed: {exc}")
                        raise LinkDown(f"write failed: {exc}") from None
                    if waiter.event.wait(self.ack_timeout):
                        reply = waiter.reply
                        if isinstance(reply, messages.Nack):
                            raise FrameRefused(seq, reply.reason)
                        assert isinstance(reply, messages.Ack)
                        delivery = Delivery(seq, reply.flags, attempt, (time.perf_counter() - first) * 1000.0)
                        if delivery.blanked:
                            self._resync("the board blanked its LEDs after a heartbeat timeout")
                        return delivery
                    if self._lost.is_set():
                        break
            finally:
                self._waiter = None
            self._mark_lost(f"no ACK for frame {seq} after {self.retries + 1} attempts")
            raise LinkDown(f"no ACK for frame {seq} after {self.retries + 1} attempts")

    def close(self) -> None:
        """Stop the threads and close the port; the state becomes ``"closed"``."""
        self._closing.set()
        self._lost.set()
        if self._supervisor is not None:
            self._supervisor.join(timeout=5.0)
        self._close_port()
        self._set_state(CLOSED, self.current_port or self.port, "closed by the host")

    # -- internals --------------------------------------------------------------------

    def _write(self, wire: bytes) -> None:
        ser = self._serial
        if ser is None:
            raise LinkDown("port closed")
        ser.write(wire)
        self._last_tx = time.monotonic()
        self.stats["sent"] += 1

    def _set_state(self, state: str, port: str, detail: str) -> None:
        with self._state_lock:
            if state == self._state and state != CONNECTED:
                return
            self._state = state
        log.info("LED board link %s: %s %s", state, port, detail)
        if self.on_state is not None:
            try:
                self.on_state(state, port, detail)
            except Exception:  # noqa: BLE001
                log.exception("link state callback failed")

    def _resync(self, reason: str) -> None:
        if self.on_resync is not None:
            try:
                self.on_resync(reason)
            except Exception:  # noqa: BLE001
                log.exception("resync callback failed")

    def _mark_lost(self, reason: str) -> None:
        if self._closing.is_set() or self._lost.is_set():
            return
        self._connected.clear()
        self._lost.set()
        self._set_state(LOST, self.current_port or self.port, reason)

    def _candidates(self) -> list[str]:
        out: list[str] = []
        scanned: list[str] = []
        if self.scan is not None:
            try:
                scanned = list(self.scan())
            except Exception:  # noqa: BLE001 - a failing scan must not stop reconnecting
                log.exception("serial port scan failed")
        for port in (self.last_good_port, self.port, *scanned):
            if port and port not in out:
                out.append(port)
        return out

    def _supervise(self) -> None:
        self._set_state(CONNECTING, self.port, "opening the port and waiting for HELLO")
        while not self._closing.is_set():
            for port in self._candidates():
                if self._closing.is_set():
                    return
                if self._try_port(port):
                    break
            else:
                self._closing.wait(self.reconnect_interval)
                continue
            self._keep_alive()
            self._close_port()
            if not self._closing.is_set():
                self._set_state(CONNECTING, self.last_good_port or self.port, "looking for the LED board")
                self._closing.wait(self.reconnect_interval)

    def _open(self, port: str) -> Any:
        import serial

        return serial.serial_for_url(port, baudrate=self.baudrate, timeout=0.05, write_timeout=1.0)

    def _try_port(self, port: str) -> bool:
        try:
            ser = self._open(port)
        except Exception as exc:  # noqa: BLE001 - SerialException, OSError, ValueError
            log.debug("cannot open %s: %s", port, exc)
            return False
        self._serial = ser
        self._lost.clear()
        self._hello_event.clear()
        self._reader_stop = threading.Event()
        self._reader = threading.Thread(target=self._read_loop, args=(ser, self._reader_stop),
                                        name="led-link-reader", daemon=True)
        self._reader.start()
        opened = time.monotonic()
        next_request = opened + self.hello_request_after
        while not self._closing.is_set() and not self._lost.is_set():
            now = time.monotonic()
            if now - opened > self.hello_timeout:
                break
            if now >= next_request:
                try:
                    ser.write(codec.encode_frame(int(messages.MsgType.HELLO_REQUEST), next(self._seq) % 256))
                except Exception:  # noqa: BLE001
                    break
                next_request = now + 1.0
            if self._hello_event.wait(min(0.05, max(0.0, next_request - now))):
                break
        if not self._hello_event.is_set():
            log.debug("no HELLO on %s", port)
            self._close_port()
            return False
        self.current_port = port
        self.last_good_port = port
        self.stats["connects"] += 1
        self._last_tx = time.monotonic()
        self._connected.set()
        self._set_state(CONNECTED, port, self.hello.describe() if self.hello else "")
        self._resync("connected")
        return True

    def _keep_alive(self) -> None:
        while not self._closing.is_set() and not self._lost.is_set():
            idle = time.monotonic() - self._last_tx
            if idle >= self.heartbeat_interval:
                try:
                    self.send(messages.Heartbeat())
                except LinkDown:
                    return
                except FrameRefused as exc:
                    log.warning("heartbeat refused: %s", exc)
                continue
            self._lost.wait(min(self.heartbeat_interval - idle, 0.25))

    def _close_port(self) -> None:
        self._connected.clear()
        self._reader_stop.set()
        reader, self._reader = self._reader, None
        if reader is not None and reader is not threading.current_thread():
            reader.join(timeout=2.0)
        ser, self._serial = self._serial, None
        if ser is not None:
            try:
                ser.close()
            except Exception:  # noqa: BLE001
                pass
        self.current_port = None

    def _read_loop(self, ser: Any, stop: threading.Event) -> None:
        decoder = codec.FrameDecoder()
        while not stop.is_set():
            try:
                data = ser.read(max(1, ser.in_waiting))
            except Exception as exc:  # noqa: BLE001 - the device went away
                if not stop.is_set():
                    self._mark_lost(f"read failed: {exc}")
                return
            if not data:
                continue
            for result in decoder.feed(data):
                if isinstance(result, codec.CorruptFrame):
                    self.stats["corrupt"] += 1
                    log.debug("corrupt frame from the board: %s", result.reason)
                    continue
                try:
                    message = messages.parse_message(result)
                except messages.MessageError as exc:
                    log.warning("bad message from the board: %s", exc)
                    continue
                self._dispatch(message)

    def _dispatch(self, message: Any) -> None:
        if isinstance(message, (messages.Ack, messages.Nack)):
            waiter = self._waiter
            if waiter is not None and waiter.seq == message.acked_seq and not waiter.event.is_set():
                waiter.reply = message
                waiter.event.set()
            return
        if isinstance(message, messages.Hello):
            already = self._connected.is_set()
            self.hello = message
            self._hello_event.set()
            if already:  # the board reset under us (power glitch, watchdog): show the state again
                self._set_state(CONNECTED, self.current_port or self.port, "board restarted: " + message.describe())
                self._resync("the board restarted")
            return
        if self.on_message is not None:
            try:
                self.on_message(message)
            except Exception:  # noqa: BLE001
                log.exception("board message callback failed")

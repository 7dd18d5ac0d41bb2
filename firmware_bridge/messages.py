"""The messages of the LED board protocol (``PROTOCOL.md``, *Messages*).

Each message is a frozen dataclass with ``MSG_TYPE`` and ``payload()``;
:func:`parse_message` turns a decoded :class:`~firmware_bridge.codec.Frame` back
into one. Colours are ``(r, g, b)`` tuples of 0..255 ints.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import ClassVar, Union

from firmware_bridge.codec import MAX_PAYLOAD, Frame

PROTOCOL_VERSION = 1


class MessageError(ValueError):
    """A payload that does not fit its message type (wrong length, bad value)."""


class MsgType(enum.IntEnum):
    """Message type byte of each frame."""

    HELLO = 0x01
    SET_LEDS = 0x02
    CLEAR = 0x03
    HEARTBEAT = 0x04
    ACK = 0x05
    NACK = 0x06
    BUTTON = 0x07
    LOG = 0x08
    HELLO_REQUEST = 0x09


class Pattern(enum.IntEnum):
    """How an LED shows its colour: off, steady, blink (2 Hz), pulse (1 s breathing)."""

    OFF = 0
    STEADY = 1
    BLINK = 2
    PULSE = 3


class NackReason(enum.IntEnum):
    """Why the board refused a frame."""

    UNKNOWN_TYPE = 1
    BAD_LENGTH = 2
    OUT_OF_RANGE = 3
    BAD_PATTERN = 4


class Capability(enum.IntFlag):
    """HELLO capability bits."""

    CONFIRM_BUTTON = 1
    UNDO_BUTTON = 2
    PULSE = 4
    HEARTBEAT_BLANKING = 8


#: ACK flag: the board blanked its LEDs on a heartbeat timeout since the last SET_LEDS/CLEAR.
ACK_FLAG_BLANKED = 0x01

BUTTON_NAMES = {1: "confirm", 2: "undo"}
BUTTON_ACTIONS = {1: "press", 2: "long_press"}


@dataclasses.dataclass(frozen=True)
class LedState:
    """One LED: ``colour`` ``(r, g, b)`` 0..255 and a :class:`Pattern`."""

    colour: tuple[int, int, int] = (0, 0, 0)
    pattern: Pattern = Pattern.OFF

    def __post_init__(self) -> None:
        if len(self.colour) != 3 or any(not 0 <= int(c) <= 255 for c in self.colour):
            raise MessageError(f"colour must be three ints 0..255, got {self.colour!r}")
        object.__setattr__(self, "colour", tuple(int(c) for c in self.colour))
        object.__setattr__(self, "pattern", Pattern(self.pattern))

    def to_dict(self) -> dict:
        """``{"colour": [r, g, b], "pattern": "blink"}`` as in ``LedsEvent.leds``."""
        return {"colour": list(self.colour), "pattern": self.pattern.name.lower()}


OFF = LedState()


@dataclasses.dataclass(frozen=True)
class Hello:
    """Sent by the board after reset: protocol and firmware version, LED count, capabilities, id."""

    MSG_TYPE: ClassVar[MsgType] = MsgType.HELLO
    protocol: int = PROTOCOL_VERSION
    firmware: tuple[int, int, int] = (1, 0, 0)
    led_count: int = 28
    capabilities: int = 0
    device_id: str = ""

    def payload(self) -> bytes:
        """``proto, fw_major, fw_minor, fw_patch, led_count, caps, device_id``."""
        ident = self.device_id.encode("ascii", "replace")[:32]
        return bytes((self.protocol, *self.firmware, self.led_count, self.capabilities)) + ident

    @classmethod
    def from_payload(cls, data: bytes) -> "Hello":
        """Parse; raises :class:`MessageError` when shorter than 6 or longer than 38 bytes."""
        if not 6 <= len(data) <= 38:
            raise MessageError(f"HELLO payload of {len(data)} bytes")
        return cls(data[0], (data[1], data[2], data[3]), data[4], data[5],
                   data[6:].decode("ascii", "replace"))

    def describe(self) -> str:
        """``"leds-28 firmware 1.0.0, 28 LEDs"``."""
        fw = ".".join(str(v) for v in self.firmware)
        return f"{self.device_id or 'board'} firmware {fw}, {self.led_count} LEDs"


@dataclasses.dataclass(frozen=True)
class SetLeds:
    """Set LEDs ``start .. start+len(leds)-1``."""

    MSG_TYPE: ClassVar[MsgType] = MsgType.SET_LEDS
    leds: tuple[LedState, ...] = ()
    start: int = 0

    def payload(self) -> bytes:
        """``start, count, (r, g, b, pattern) * count``; raises :class:`MessageError` if too long."""
        if not 0 <= self.start <= 255 or len(self.leds) > (MAX_PAYLOAD - 2) // 4:
            raise MessageError(f"SET_LEDS of {len(self.leds)} LEDs from {self.start} does not fit")
        out = bytearray((self.start, len(self.leds)))
        for led in self.leds:
            out += bytes((*led.colour, int(led.pattern)))
        return bytes(out)

    @classmethod
    def from_payload(cls, data: bytes) -> "SetLeds":
        """Parse; raises :class:`MessageError` on a bad length or pattern."""
        if len(data) < 2 or len(data) != 2 + 4 * data[1]:
            raise MessageError(f"SET_LEDS payload of {len(data)} bytes")
        leds = []
        for i in range(data[1]):
            r, g, b, p = data[2 + 4 * i: 6 + 4 * i]
            if p > max(Pattern):
                raise MessageError(f"unknown pattern {p}")
            leds.append(LedState((r, g, b), Pattern(p)))
        return cls(tuple(leds), data[0])


@dataclasses.dataclass(frozen=True)
class Clear:
    """Turn every LED off."""

    MSG_TYPE: ClassVar[MsgType] = MsgType.CLEAR

    def payload(self) -> bytes:
        """Empty."""
        return b""


@dataclasses.dataclass(frozen=True)
class Heartbeat:
    """The host is alive (the board blanks after 3 s without any host frame)."""

    MSG_TYPE: ClassVar[MsgType] = MsgType.HEARTBEAT

    def payload(self) -> bytes:
        """Empty."""
        return b""


@dataclasses.dataclass(frozen=True)
class HelloRequest:
    """Ask the board for a HELLO (boards that do not reset when the port opens)."""

    MSG_TYPE: ClassVar[MsgType] = MsgType.HELLO_REQUEST

    def payload(self) -> bytes:
        """Empty."""
        return b""


@dataclasses.dataclass(frozen=True)
class Ack:
    """The board accepted the host frame ``acked_seq``; ``flags`` bit 0 = blanked."""

    MSG_TYPE: ClassVar[MsgType] = MsgType.ACK
    acked_seq: int = 0
    flags: int = 0

    def payload(self) -> bytes:
        """``acked_seq, flags``."""
        return bytes((self.acked_seq, self.flags))

    @classmethod
    def from_payload(cls, data: bytes) -> "Ack":
        """Parse; raises :class:`MessageError` unless 2 bytes."""
        if len(data) != 2:
            raise MessageError(f"ACK payload of {len(data)} bytes")
        return cls(data[0], data[1])

    @property
    def blanked(self) -> bool:
        """The board blanked its LEDs on a heartbeat timeout."""
        return bool(self.flags & ACK_FLAG_BLANKED)


@dataclasses.dataclass(frozen=True)
class Nack:
    """The board refused the host frame ``acked_seq`` for ``reason`` (:class:`NackReason`)."""

    MSG_TYPE: ClassVar[MsgType] = MsgType.NACK
    acked_seq: int = 0
    reason: int = NackReason.UNKNOWN_TYPE

    def payload(self) -> bytes:
        """``acked_seq, reason``."""
        return bytes((self.acked_seq, int(self.reason)))

    @classmethod
    def from_payload(cls, data: bytes) -> "Nack":
        """Parse; raises :class:`MessageError` unless 2 bytes."""
        if len(data) != 2:
            raise MessageError(f"NACK payload of {len(data)} bytes")
        return cls(data[0], data[1])


@dataclasses.dataclass(frozen=True)
class Button:
    """A button on the board: ``button`` 1 confirm / 2 undo, ``action`` 1 press / 2 long press."""

    MSG_TYPE: ClassVar[MsgType] = MsgType.BUTTON
    button: int = 1
    action: int = 1

    def payload(self) -> bytes:
        """``button, action``."""
        return bytes((self.button, self.action))

    @classmethod
    def from_payload(cls, data: bytes) -> "Button":
        """Parse; raises :class:`MessageError` unless 2 bytes."""
        if len(data) != 2:
            raise MessageError(f"BUTTON payload of {len(data)} bytes")
        return cls(data[0], data[1])

    @property
    def name(self) -> str:
        """``"confirm"``, ``"undo"`` or ``"button-N"``."""
        return BUTTON_NAMES.get(self.button, f"button-{self.button}")


@dataclasses.dataclass(frozen=True)
class Log:
    """A log line from the firmware: ``level`` as in :mod:`logging` (10..40), ``text``."""

    MSG_TYPE: ClassVar[MsgType] = MsgType.LOG
    level: int = 20
    text: str = ""

    def payload(self) -> bytes:
        """``level, UTF-8 text`` (cut to fit one frame)."""
        return bytes((self.level,)) + self.text.encode("utf-8")[: MAX_PAYLOAD - 1]

    @classmethod
    def from_payload(cls, data: bytes) -> "Log":
        """Parse; raises :class:`MessageError` when empty."""
        if not data:
            raise MessageError("empty LOG payload")
        return cls(data[0], data[1:].decode("utf-8", "replace"))


Message = Union[Hello, SetLeds, Clear, Heartbeat, HelloRequest, Ack, Nack, Button, Log]

_EMPTY = {MsgType.CLEAR: Clear, MsgType.HEARTBEAT: Heartbeat, MsgType.HELLO_REQUEST: HelloRequest}
_PARSED = {MsgType.HELLO: Hello, MsgType.SET_LEDS: SetLeds, MsgType.ACK: Ack,
           MsgType.NACK: Nack, MsgType.BUTTON: Button, MsgType.LOG: Log}


def parse_message(frame: Frame) -> Message:
    """The message a valid frame carries.

    Raises :class:`MessageError` for an unknown type or a payload of the wrong shape.
    """
    try:
        msg_type = MsgType(frame.msg_type)
    except ValueError:
        raise MessageError(f"unknown message type 0x{frame.msg_type:02x}") from None
    if msg_type in _EMPTY:
        if frame.payload:
            raise MessageError(f"{msg_type.name} carries no payload")
        return _EMPTY[msg_type]()
    return _PARSED[msg_type].from_payload(frame.payload)

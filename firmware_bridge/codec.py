"""Sans-I/O frame codec of the LED board protocol (``PROTOCOL.md``, *Frames*).

``body = type:u8 seq:u8 payload crc:u16be``, sent as ``COBS(body) + b"\\x00"``.
The CRC is CRC-16/CCITT-FALSE (``binascii.crc_hqx(data, 0xFFFF)``), COBS comes from
the ``cobs`` package. No I/O here: :class:`FrameDecoder` is fed bytes and returns
what they completed, so framing is tested from byte strings alone.
"""

from __future__ import annotations

import binascii
import dataclasses
from typing import Union

from cobs import cobs

#: Largest payload in bytes (the body is at most 254 bytes: 2 header + 250 + 2 CRC).
MAX_PAYLOAD = 250
#: Largest body (type, seq, payload, CRC) in bytes.
MAX_BODY = MAX_PAYLOAD + 4
#: Largest COBS-encoded frame without its delimiter (what a receiver buffers).
MAX_ENCODED = 256
DELIMITER = b"\x00"


class FrameError(ValueError):
    """A frame that cannot be built (bad type, seq or payload size)."""


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (poly 0x1021, init 0xFFFF; ``crc16(b"123456789") == 0x29B1``)."""
    return binascii.crc_hqx(data, 0xFFFF)


@dataclasses.dataclass(frozen=True)
class Frame:
    """A valid frame: ``msg_type`` and ``seq`` in 0..255, ``payload`` 0..250 bytes."""

    msg_type: int
    seq: int
    payload: bytes = b""


@dataclasses.dataclass(frozen=True)
class CorruptFrame:
    """A frame that was dropped: ``reason`` one of ``"cobs"``, ``"short"``, ``"long"``,
    ``"crc"``, ``"overflow"``; ``raw`` the encoded bytes received (at most 256)."""

    reason: str
    raw: bytes = b""


DecodeResult = Union[Frame, CorruptFrame]


def encode_frame(msg_type: int, seq: int, payload: bytes = b"") -> bytes:
    """The wire bytes of one frame: ``COBS(type, seq, payload, crc16) + b"\\x00"``.

    Raises :class:`FrameError` when ``msg_type`` or ``seq`` is outside 0..255 or the
    payload is longer than :data:`MAX_PAYLOAD` bytes.
    """
    if not 0 <= msg_type <= 255 or not 0 <= seq <= 255:
        raise FrameError(f"type and seq must be 0..255, got {msg_type}, {seq}")
    payload = bytes(payload)
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    body = bytes((msg_type, seq)) + payload
    body += crc16(body).to_bytes(2, "big")
    return cobs.encode(body) + DELIMITER


def decode_body(encoded: bytes) -> DecodeResult:
    """Decode one frame's bytes (without the delimiter) into a :class:`Frame` or
    a :class:`CorruptFrame`; never raises."""
    if len(encoded) > MAX_ENCODED:
        return CorruptFrame("overflow", bytes(encoded[:MAX_ENCODED]))
    try:
        body = cobs.decode(bytes(encoded))
    except cobs.DecodeError:
        return CorruptFrame("cobs", bytes(encoded))
    if len(body) < 4:
        return CorruptFrame("short", bytes(encoded))
    if len(body) > MAX_BODY:
        return CorruptFrame("long", bytes(encoded))
    if crc16(body[:-2]) != int.from_bytes(body[-2:], "big"):
        return CorruptFrame("crc", bytes(encoded))
    return Frame(body[0], body[1], body[2:-2])


class FrameDecoder:
    """Splits a byte stream into frames at each ``0x00``.

    ``feed(data)`` returns, in order, a :class:`Frame` for each valid frame the
    data completed and a :class:`CorruptFrame` for each dropped one; a partial
    frame waits for the next ``feed``. Bytes of a frame beyond
    :data:`MAX_ENCODED` are discarded up to the next delimiter and reported once
    as ``"overflow"``. Never raises on any input.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> list[DecodeResult]:
        """Consume ``data`` (bytes-like); returns the frames it completed."""
        out: list[DecodeResult] = []
        start = 0
        data = bytes(data)
        while True:
            end = data.find(0, start)
            chunk = data[start:] if end < 0 else data[start:end]
            if not self._overflow:
                self._buffer += chunk
                if len(self._buffer) > MAX_ENCODED:
                    self._overflow = True
                    out.append(CorruptFrame("overflow", bytes(self._buffer[:MAX_ENCODED])))
                    self._buffer.clear()
            if end < 0:
                return out
            if self._overflow:
                self._overflow = False
            elif self._buffer:
                out.append(decode_body(self._buffer))
            self._buffer.clear()
            start = end + 1

    def reset(self) -> None:
        """Forget any partial frame (after reopening a port)."""
        self._buffer.clear()
        self._overflow = False

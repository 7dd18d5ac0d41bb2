"""SerialLink against the fake board over a real pty: handshake, retries, heartbeat
blanking, unplug and replug."""

from __future__ import annotations

import os
import threading
import time

import pytest

from firmware_bridge.fake_board import FakeBoard
from firmware_bridge.link import FrameRefused, LinkDown, SerialLink
from firmware_bridge.messages import Clear, Heartbeat, LedState, Pattern, SetLeds

RED_BLINK = LedState((255, 0, 0), Pattern.BLINK)


class Recorder:
    """Collects the link's callbacks (thread-safe)."""

    def __init__(self):
        self.states = []
        self.resyncs = []
        self.messages = []
        self.lock = threading.Lock()

    def on_state(self, state, port, detail):
        with self.lock:
            self.states.append((state, port, detail))

    def on_resync(self, reason):
        with self.lock:
            self.resyncs.append(reason)

    def on_message(self, message):
        with self.lock:
            self.messages.append(message)

    def wait(self, predicate, timeout=5.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if predicate(self):
                    return True
            time.sleep(0.01)
        return False


@pytest.fixture
def board():
    with FakeBoard(reset_delay=0.3, heartbeat_timeout=0.6) as fake:
        yield fake


def make_link(port, rec, **options):
    options.setdefault("scan", None)
    options.setdefault("ack_timeout", 0.3)  # generous: the CI machine may be busy
    options.setdefault("hello_request_after", 1.0)
    return SerialLink(port, on_state=rec.on_state, on_resync=rec.on_resync,
                      on_message=rec.on_message, **options)


def test_handshake_waits_out_the_reset_and_reads_hello(board):
    rec = Recorder()
    link = make_link(board.path, rec)
    opened = time.monotonic()
    link.start()
    try:
        assert link.wait_connected(5.0)
        waited = time.monotonic() - opened
        assert waited >= board.reset_delay  # the board ignored everything while booting
        assert link.hello.led_count == 28 and link.hello.device_id == "fake-leds"
        assert [s[0] for s in rec.states] == ["connecting", "connected"]
        assert "fake-leds firmware 1.0.0" in rec.states[-1][2]
        assert rec.resyncs == ["connected"]
        assert board.received["resets"] >= 2  # power on, then the host opening the port
        delivery = link.send(SetLeds((RED_BLINK,), start=5))
        assert delivery.attempts == 1 and delivery.acked_ms > 0
        assert board.leds[5] == RED_BLINK and board.leds[4] == LedState()
    finally:
        link.close()
    assert rec.states[-1][0] == "closed"


def test_board_without_reset_on_open_answers_hello_request():
    with FakeBoard(reset_delay=0.05, resets_on_open=False) as fake:
        time.sleep(0.2)  # its power-on HELLO is sent before the host opens the port
        rec = Recorder()
        link = make_link(fake.path, rec, hello_request_after=0.3)
        link.start()
        try:
            assert link.wait_connected(5.0)
            assert fake.received["HELLO_REQUEST"] >= 1
            assert fake.received["resets"] == 1
        finally:
            link.close()


def test_dropped_frames_are_retried_with_the_same_seq(board):
    rec = Recorder()
    link = make_link(board.path, rec, heartbeat_interval=30.0).start()
    try:
        assert link.wait_connected(5.0)
        board.drop_next(2)
        delivery = link.send(SetLeds((RED_BLINK,) * 3))
        assert delivery.attempts >= 3  # two lost, the third answered (a busy machine may add one)
        assert delivery.acked_ms >= 2 * link.ack_timeout * 1000
        assert board.received["dropped"] == 2 and board.received["SET_LEDS"] >= 1
        assert board.leds[:3] == (RED_BLINK,) * 3
        assert link.stats["retries"] >= 2
        assert link.state == "connected"
    finally:
        link.close()


def test_unanswered_frame_loses_the_link_which_recovers_by_itself(board):
    rec = Recorder()
    link = make_link(board.path, rec, heartbeat_interval=30.0).start()
    try:
        assert link.wait_connected(5.0)
        board.drop_next(4)
        with pytest.raises(LinkDown):
            link.send(Clear())
        assert rec.wait(lambda r: [s[0] for s in r.states][-1:] == ["connected"] and len(r.states) >= 4)
        assert [s[0] for s in rec.states] == ["connecting", "connected", "lost", "connecting", "connected"]
        assert "no ACK" in rec.states[2][2]
        assert link.send(Clear()).attempts == 1
    finally:
        link.close()


def test_nack_raises_a_value_error(board):
    rec = Recorder()
    link = make_link(board.path, rec).start()
    try:
        assert link.wait_connected(5.0)
        with pytest.raises(FrameRefused) as info:
            link.send(SetLeds((RED_BLINK,) * 2, start=27))
        assert isinstance(info.value, ValueError) and "out_of_range" in str(info.value)
        assert link.state == "connected"
    finally:
        link.close()


def test_heartbeats_keep_the_leds_lit():
    with FakeBoard(reset_delay=0.2, heartbeat_timeout=1.0) as board:
        rec = Recorder()
        link = make_link(board.path, rec, heartbeat_interval=0.2).start()
        try:
            assert link.wait_connected(5.0)
            link.send(SetLeds((RED_BLINK,)))
            time.sleep(2.5 * board.heartbeat_timeout)
            assert board.leds[0] == RED_BLINK and not board.blanked
            assert board.received["HEARTBEAT"] >= 5
        finally:
            link.close()


def test_silent_host_gets_the_leds_blanked_and_resyncs_after(board):
    rec = Recorder()
    link = make_link(board.path, rec, heartbeat_interval=1.2).start()
    try:
        assert link.wait_connected(5.0)
        link.send(SetLeds((RED_BLINK,)))
        start = time.monotonic()
        assert board.wait_for(lambda b: b.blanked, timeout=3.0)
        assert time.monotonic() - start >= board.heartbeat_timeout - 0.05
        assert board.leds[0] == LedState()
        # The next heartbeat's ACK carries the BLANKED flag: the host is told to resend.
        assert rec.wait(lambda r: any("blanked" in x for x in r.resyncs), timeout=3.0)
    finally:
        link.close()


def test_crashed_host_never_leaves_a_false_alarm_lit(board):
    rec = Recorder()
    link = make_link(board.path, rec).start()
    assert link.wait_connected(5.0)
    link.send(SetLeds((RED_BLINK,)))
    link.close()  # the host goes away without clearing anything
    assert board.leds[0] == RED_BLINK
    assert board.wait_for(lambda b: b.leds[0] == LedState(), timeout=3.0)


def test_unplug_and_replug_recovers_without_help(board):
    rec = Recorder()
    link = make_link(board.path, rec, heartbeat_interval=0.2).start()
    try:
        assert link.wait_connected(5.0)
        board.unplug()
        assert rec.wait(lambda r: "lost" in [s[0] for s in r.states], timeout=3.0)
        with pytest.raises(LinkDown):
            link.send(Heartbeat())
        time.sleep(0.3)  # the link keeps scanning while nothing is there
        board.replug()
        assert link.wait_connected(5.0)
        assert rec.wait(lambda r: [s[0] for s in r.states].count("connected") == 2)
        assert [s[0] for s in rec.states] == ["connecting", "connected", "lost", "connecting", "connected"]
        assert rec.resyncs.count("connected") == 2
        assert link.last_good_port == board.path
        link.send(SetLeds((RED_BLINK,)))
        assert board.leds[0] == RED_BLINK
        assert os.path.islink(board.path)  # the same stable path, a new pty behind it
    finally:
        link.close()


def test_board_messages_reach_the_host(board):
    rec = Recorder()
    link = make_link(board.path, rec).start()
    try:
        assert link.wait_connected(5.0)
        board.press(2)
        board.log_line("hello from the board")
        assert rec.wait(lambda r: len(r.messages) == 2)
        assert rec.messages[0].name == "undo"
        assert rec.messages[1].text == "hello from the board"
    finally:
        link.close()


def test_corrupt_bytes_from_the_line_are_counted_and_ignored(board):
    rec = Recorder()
    link = make_link(board.path, rec).start()
    try:
        assert link.wait_connected(5.0)
        board.inject(b"\x05\x01\x02\x03\x04\x00\x42\x00")  # line noise
        assert link.send(Clear()).attempts == 1
        assert rec.wait(lambda r: link.stats["corrupt"] >= 1)
    finally:
        link.close()


def test_board_back_on_another_port_is_found_by_the_scan(tmp_path):
    """Replugged into another USB socket: the old path stays gone, the scan finds the new one."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = FakeBoard(reset_delay=0.2, directory=str(tmp_path / "a"))
    second = None
    scanned = []

    def scan():
        ports = [second.path] if second is not None and second.plugged else []
        scanned.append(list(ports))
        return ports

    rec = Recorder()
    link = make_link(first.path, rec, scan=scan, heartbeat_interval=0.2).start()
    try:
        assert link.wait_connected(5.0)
        assert link.last_good_port == first.path
        first.unplug()
        assert rec.wait(lambda r: "lost" in [s[0] for s in r.states])
        second = FakeBoard(reset_delay=0.2, directory=str(tmp_path / "b"), device_id="moved")
        assert rec.wait(lambda r: [s[0] for s in r.states].count("connected") == 2, timeout=6.0)
        assert link.current_port == second.path and link.last_good_port == second.path
        assert link.hello.device_id == "moved"
        assert any(second.path in ports for ports in scanned)
    finally:
        link.close()
        first.close()
        if second is not None:
            second.close()

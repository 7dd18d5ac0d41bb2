"""Serving: addresses, who may view, start and stop, the sign-in line printed at start."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from web import start_dashboard
from web.server import AddressError, is_loopback, parse_address, viewing_needs_token
from web_stub import StubSession


@pytest.mark.parametrize(
    "text, expected",
    [
        ("127.0.0.1:8080", ("127.0.0.1", 8080)),
        (":9000", ("127.0.0.1", 9000)),
        ("[::1]:8081", ("::1", 8081)),
        ("0.0.0.0:0", ("0.0.0.0", 0)),
        ("localhost:80", ("localhost", 80)),
    ],
)
def test_parse_address(text, expected):
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["8080", "host:port", "127.0.0.1:70000", "127.0.0.1:-1", ""])
def test_bad_addresses_are_value_errors(text):
    with pytest.raises(AddressError):
        parse_address(text)
    assert issubclass(AddressError, ValueError)


def test_loopback_and_who_may_view():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.5.5.5")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.20") and not is_loopback("example.org")
    assert viewing_needs_token("127.0.0.1") is False
    assert viewing_needs_token("0.0.0.0") is True
    assert viewing_needs_token("0.0.0.0", open_viewing=True) is False


def test_start_dashboard_serves_says_where_and_stops():
    said = []
    stub = StubSession()
    server = start_dashboard(stub, "127.0.0.1:0", token="tok-123456789", say=said.append)
    try:
        assert server.port > 0 and server.running
        assert said == [f"dashboard: {server.url}/  (match control: {server.url}/?token=tok-123456789)"]
        with urllib.request.urlopen(server.url + "/api/state", timeout=10) as response:
            assert json.load(response)["position_id"] == "4HPwATDgc/ABMA"
        request = urllib.request.Request(
            server.url + "/api/override/undo", data=b"{}", headers={"Content-Type": "application/json"}, method="POST"
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=10)
        assert info.value.code == 401
        request.add_header("Authorization", "Bearer tok-123456789")
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
        assert stub.calls == [("undo", "dashboard")]
    finally:
        server.stop()
    assert not server.running


def test_a_taken_port_is_an_os_error():
    first = start_dashboard(StubSession(), "127.0.0.1:0", say=lambda _line: None)
    try:
        with pytest.raises(OSError):
            start_dashboard(StubSession(), f"127.0.0.1:{first.port}", say=lambda _line: None)
    finally:
        first.stop()

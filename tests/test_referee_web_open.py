"""``companion watch --web-open``: read-only viewing open on the network, actions still guarded."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from companion.bus import EventBus
from companion.cli import build_parser
from companion.commands.watch import _start_web
from companion.session import Session


def _serve(argv):
    args = build_parser().parse_args(["watch", *argv])
    said: list[str] = []
    closers: list = []
    _start_web(args, Session(EventBus(), reader=None), closers, said.append)
    return closers, said


def _url(said):
    line = next(s for s in said if "http://" in s)
    base = line.split("http://", 1)[1].split("/", 1)[0]
    return f"http://127.0.0.1:{base.rsplit(':', 1)[1]}"


def _status(url, data=None):
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_web_open_lets_anyone_view_but_not_act():
    closers, said = _serve(["--web", "0.0.0.0:0", "--web-open"])
    try:
        base = _url(said)
        assert _status(base + "/api/state") == 200
        body = json.dumps({"players": ["A", "B"], "match_length": 3}).encode()
        assert _status(base + "/api/match/new", data=body) in (401, 403)
    finally:
        for close in closers:
            close()


def test_without_web_open_a_network_address_needs_the_token_to_view():
    closers, said = _serve(["--web", "0.0.0.0:0"])
    try:
        assert _status(_url(said) + "/api/state") in (401, 403)
    finally:
        for close in closers:
            close()

"""``companion hub``: the director's screen for a room of tables over an MQTT broker.

Subscribes to every table of ``--tournament`` on the broker (``--broker``),
rebuilds the room from the retained states and the tables' outboxes (replay
requests), and serves the director's page (``--web``) with the grid, the
alerts and the results. Director commands from the page go to the tables with
the director's token (``--token``, default ``COMPANION_HUB_TOKEN``, else a
random one that is printed: give the same to each table's ``--hub-token``).
Runs until interrupted. Heavy libraries are imported inside the handler.
"""

from __future__ import annotations

import argparse
import os
import threading
from typing import Any

from companion.cli import UserError

DEFAULT_HUB_WEB = "127.0.0.1:8090"


def register(subparsers: Any) -> None:
    """Add the ``hub`` sub-command."""
    p = subparsers.add_parser("hub", help="the tournament room: every table's board, alerts and results on one page",
                              description="Follow every table of a tournament over an MQTT broker and serve the "
                                          "director's page.")
    p.add_argument("--broker", default="mqtt://127.0.0.1:1883", metavar="URL",
                   help="the room's broker (default mqtt://127.0.0.1:1883; mqtts:// for TLS; USER:PASSWORD@ or "
                        "COMPANION_MQTT_USERNAME / COMPANION_MQTT_PASSWORD)")
    p.add_argument("--broker-ca", metavar="FILE", help="PEM file of the CAs to trust for mqtts://")
    p.add_argument("--tournament", default="room", metavar="NAME", help="the tournament's name in the topics (default room)")
    p.add_argument("--web", default=DEFAULT_HUB_WEB, metavar="HOST:PORT", help=f"serve the page here (default {DEFAULT_HUB_WEB})")
    p.add_argument("--web-open", action="store_true", help="on a non-loopback --web, let anyone view without the token")
    p.add_argument("--token", metavar="TOKEN", help="the director's token (default COMPANION_HUB_TOKEN, else random)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the hub until interrupted."""
    from companion.hub_address import parse_hub_url
    from companion.hub_listener import HubListener
    from companion.hub_room import Room
    from companion.hub_topics import check_tournament
    from web.hub_app import create_hub_app
    from web.server import AddressError, parse_address, serve, viewing_needs_token
    from web.tracker import Tracker

    try:
        address = parse_hub_url(args.broker, ca_file=args.broker_ca)
        check_tournament(args.tournament)
        host, port = parse_address(args.web)
    except (ValueError, AddressError) as exc:
        raise UserError(str(exc)) from None
    token = args.token or os.environ.get("COMPANION_HUB_TOKEN") or None
    room = Room(args.tournament, follow=Tracker)
    listener = HubListener(address, room)
    config: dict[str, Any] = {"VIEW_REQUIRES_TOKEN": viewing_needs_token(host, args.web_open)}
    if token:
        config["ACCESS_TOKEN"] = token

    def send(table: int, action: str, director_token: Any, extra: dict) -> str:
        return listener.send_command(table, action, director_token, **extra)

    app = create_hub_app(room, send, config)
    try:
        server = serve(app, host, port)
    except OSError as exc:
        raise UserError(f"cannot serve the hub page on {args.web}: {exc.strerror or exc}") from None
    listener.start()
    print(f"hub: tournament {args.tournament} on {address.url()}", flush=True)
    print(f"hub: {server.url}/  (director: {server.url}/?token={server.token})", flush=True)
    stop = threading.Event()
    try:
        stop.wait()
    finally:
        app.extensions["companion_hub"]["feed"].close()
        listener.stop()
        server.stop()
    return 0

"""The director's page: every table of the room on one screen (``companion hub``).

``create_hub_app(room, send_command, test_config)`` builds a Flask app around a
:class:`companion.hub_room.Room` (fed by ``companion.hub_listener.HubListener``).
It reuses the dashboard's parts: the board drawing and everything shown about a
table come from :func:`web.view_model.build_view` (with the dashboard's
:class:`web.tracker.Tracker` following each table's events), a table's full
view is the dashboard's own ``_live.html`` and ``_scoresheet.html``, and the
access rules are :mod:`web.security`'s (viewing open on loopback, actions with
the director's token).

Routes: ``GET /`` (the grid, the room's alerts, the results), ``GET /events``
(server-sent events, one message per short window of changes: the changed
cards, new board drawings, and the alerts and results when they changed, see
:mod:`web.hub_stream`; ``{"reload": true}`` when the page must load again),
``GET /table/<n>`` (the table's full view), ``GET /table/<n>/match.mat``
(its current record), ``GET /results/<i>.mat`` (the record of the i-th finished
match, from 0), ``GET /api/room`` (everything as JSON), ``GET /results.csv``,
``POST /api/table/<n>/command`` (a director command, see
:mod:`companion.hub_commands`; answers the table's reply, 504 when none comes).
"""

from __future__ import annotations

import csv
import io
import json
import secrets
import time
import zlib
from typing import Any, Callable, Mapping, Optional

from flask import Flask, Response, abort, current_app, jsonify, redirect, render_template, request

from web.hub_feed import RoomFeed
from web.hub_stream import PageStream
from web.security import (check_action, csrf_token, is_signed_in, may_view, new_token, secure_headers, sign_in,
                          token_matches)
from web.view_model import build_view

SendCommand = Callable[[int, str, Optional[str], dict[str, Any]], str]


def card_of(room: Any, number: int) -> Optional[dict[str, Any]]:
    """What a table's card shows: the dashboard's view of its state plus ``number``,
    ``online``, ``alert_count``, ``badges`` (``offline``, the current alert's kind,
    ``device``), ``events`` (applied) and ``board_key`` (a CRC-32 of the board's
    SVG: a page that shows that key keeps its drawing). ``None`` for an unknown table."""
    table = room.table(number)
    if table is None:
        return None
    view = build_view(table["state"], room.follower(number), board_id_prefix=f"t{number}-")
    badges = []
    if not table["online"]:
        badges.append("offline")
    if view["alert"]:
        badges.append(view["alert"]["kind"])
    if view["devices"].get("warning"):
        badges.append("device")
    return {"number": number, "online": table["online"], "view": view, "badges": badges,
            "alert_count": len(table["alerts"]), "events": table["applied"],
            "board_key": format(zlib.crc32(view["board_svg"].encode("utf-8")), "08x")}


#: The event stream's message that makes the page load again.
RELOAD = f"data: {json.dumps({'reload': True})}\n\n"


def resume_point(feed: RoomFeed, last_event_id: Optional[str], boot: Optional[str],
                 since: Optional[str]) -> Optional[int]:
    """The feed version a page's event stream follows from: the ``Last-Event-ID``
    (``BOOT.VERSION``) of a reconnection, else the page's ``boot`` and ``since``;
    the feed's version when none is given. ``None`` when the page must reload: another
    boot's version (the hub restarted), or a version the feed never reached or
    cannot parse."""
    if last_event_id:
        boot, _, since = last_event_id.partition(".")
    if since is None:
        return feed.version
    if boot is not None and boot != feed.boot:
        return None
    try:
        version = int(since)
    except ValueError:
        return None
    return version if 0 <= version <= feed.version else None


def results_csv(results: list[Mapping[str, Any]]) -> str:
    """The results as CSV: table, player 0, player 1, match length, score, winner, games."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["table", "player_0", "player_1", "match_length", "score_0", "score_1", "winner", "games"])
    for r in results:
        players = list(r.get("players") or ("", ""))
        score = list(r.get("score") or (0, 0))
        writer.writerow([r.get("table"), players[0], players[1], r.get("match_length"), score[0], score[1],
                         r.get("winner"), r.get("games")])
    return out.getvalue()


def create_hub_app(room: Any, send_command: Optional[SendCommand] = None,
                   test_config: Optional[Mapping[str, Any]] = None) -> Flask:
    """Build the hub page for ``room``. ``send_command(table, action, token, args)``
    sends a director command and returns its id (``HubListener.send_command``;
    ``None``: commands are off). Config: ``ACCESS_TOKEN`` (the director's token,
    random when not given), ``VIEW_REQUIRES_TOKEN`` (False), ``COMMAND_TIMEOUT_S``
    (5), ``SSE_KEEPALIVE_S`` (15), ``SSE_COALESCE_S`` (0.01: the changes of this
    many seconds after the first go out as one message). Sets ``room.on_change`` to feed the page's
    event stream.

    The event stream resumes where the page is: ``/events?since=VERSION&hub=BOOT``
    (the page's ``data-version`` and ``data-hub``), or on a reconnection the
    ``Last-Event-ID`` header (``BOOT.VERSION``, each message's id). A page of
    another boot (the hub restarted) or too far behind is told to reload."""
    app = Flask("web", template_folder="templates", static_folder="static")
    app.config.from_mapping(
        SECRET_KEY=secrets.token_hex(32), ACCESS_TOKEN=new_token(), VIEW_REQUIRES_TOKEN=False,
        COMMAND_TIMEOUT_S=5.0, SSE_KEEPALIVE_S=15.0, SSE_COALESCE_S=0.01, SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict", SESSION_COOKIE_NAME="companion_hub", MAX_CONTENT_LENGTH=64 * 1024,
    )
    if test_config:
        app.config.from_mapping(test_config)
    feed = RoomFeed()
    previous = room.on_change

    def changed(table: int) -> None:
        feed.changed(table)
        if previous is not None:
            previous(table)

    room.on_change = changed
    app.extensions["companion_hub"] = {"room": room, "feed": feed, "send_command": send_command}

    def refused() -> Any:
        response = jsonify({"error": "viewing needs the director's token: open /?token=TOKEN"})
        response.status_code = 401
        return response

    @app.get("/")
    def index() -> Any:
        token = request.args.get("token")
        if token is not None:
            if token_matches(token):
                sign_in()
                return redirect("/")
            abort(403)
        if not may_view():
            return refused()
        version = feed.version  # before the cards: a change made while they are drawn is streamed again
        cards = [c for c in (card_of(room, n) for n in room.numbers()) if c is not None]
        return render_template("hub.html", cards=cards, alerts=room.alerts(100), results=room.results(),
                               version=version, boot=feed.boot, signed_in=is_signed_in(), csrf=csrf_token(),
                               tournament=room.tournament)

    @app.get("/events")
    def events() -> Any:
        if not may_view():
            return refused()
        keepalive = float(current_app.config["SSE_KEEPALIVE_S"])
        coalesce_s = float(current_app.config["SSE_COALESCE_S"])
        since = resume_point(feed, request.headers.get("Last-Event-ID"), request.args.get("hub"),
                             request.args.get("since"))
        page = PageStream(room, card_of, current_app.jinja_env)

        def stream() -> Any:
            yield "retry: 1000\n\n"
            if since is None:
                yield RELOAD
                return
            version = since
            quiet_since = time.monotonic()
            while not feed.closed:
                _, tables = feed.wait(version, 1.0)
                if tables:  # gather the changes of a short window into one message
                    time.sleep(coalesce_s)
                version, tables = feed.wait(version, 0)
                if tables is None:
                    yield RELOAD
                    return
                message = page.update(tables) if tables else {}
                if message:
                    quiet_since = time.monotonic()
                    message["version"] = version
                    yield f"id: {feed.boot}.{version}\ndata: {json.dumps(message)}\n\n"
                elif time.monotonic() - quiet_since >= keepalive:
                    quiet_since = time.monotonic()
                    yield ": keepalive\n\n"

        response = Response(stream(), mimetype="text/event-stream")
        response.headers["Cache-Control"] = "no-cache"
        return response

    @app.get("/table/<int:number>")
    def table_page(number: int) -> Any:
        if not may_view():
            return refused()
        c = card_of(room, number)
        if c is None:
            abort(404)
        t = room.table(number)
        return render_template("hub_table.html", card=c, view=c["view"], table=t, signed_in=is_signed_in(),
                               csrf=csrf_token(), tournament=room.tournament)

    @app.get("/table/<int:number>/match.mat")
    def match_record(number: int) -> Any:
        if not may_view():
            return refused()
        t = room.table(number)
        if t is None or not t["record"]:
            abort(404)
        return Response(t["record"], mimetype="text/plain",
                        headers={"Content-Disposition": f'attachment; filename="table-{number}.mat"'})

    @app.get("/results/<int:index>.mat")
    def result_record(index: int) -> Any:
        if not may_view():
            return refused()
        results = room.results()
        if not 0 <= index < len(results) or not results[index].get("mat"):
            abort(404)
        r = results[index]
        return Response(r["mat"], mimetype="text/plain",
                        headers={"Content-Disposition": f'attachment; filename="table-{r["table"]}-match-{index + 1}.mat"'})

    @app.get("/api/room")
    def api_room() -> Any:
        if not may_view():
            return refused()
        tables = []
        for n in room.numbers():
            t = room.table(n) or {}
            state = t.get("state") or {}
            tables.append({"number": n, "online": t.get("online"), "players": state.get("players"),
                           "score": state.get("score"), "match_length": state.get("match_length"),
                           "waiting_for": state.get("waiting_for"), "turn": state.get("turn"),
                           "events": t.get("applied"), "counts": t.get("counts"),
                           "duplicates": t.get("duplicates"), "alerts": len(t.get("alerts") or ())})
        results = [{k: v for k, v in r.items() if k != "mat"} for r in room.results()]
        return jsonify({"tournament": room.tournament, "tables": tables, "alerts": room.alerts(200),
                        "results": results, "ignored": room.ignored_count})

    @app.get("/results.csv")
    def results_download() -> Any:
        if not may_view():
            return refused()
        return Response(results_csv(room.results()), mimetype="text/csv",
                        headers={"Content-Disposition": f'attachment; filename="{room.tournament}-results.csv"'})

    @app.post("/api/table/<int:number>/command")
    def command(number: int) -> Any:
        denied = check_action()
        if denied is not None:
            return denied
        if send_command is None:
            return jsonify({"error": "this hub sends no commands"}), 503
        if room.table(number) is None:
            return jsonify({"error": f"no table {number} in the room"}), 404
        body = request.get_json(silent=True)
        if not isinstance(body, dict) or not isinstance(body.get("action"), str):
            return jsonify({"error": "send a JSON object with an action"}), 400
        args = {k: v for k, v in body.items() if k not in ("action", "token", "id")}
        command_id = send_command(number, body["action"], str(current_app.config["ACCESS_TOKEN"]), args)
        deadline = time.monotonic() + float(current_app.config["COMMAND_TIMEOUT_S"])
        while time.monotonic() < deadline:
            reply = room.reply(number, command_id)
            if reply is not None:
                return jsonify(reply), (200 if reply.get("ok") else 409)
            time.sleep(0.02)
        return jsonify({"id": command_id, "error": f"table {number} did not answer"}), 504

    app.after_request(secure_headers)

    return app

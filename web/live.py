"""Pages and streams for watching: the dashboard, its live fragment, SSE, the camera, the record.

Routes: ``GET /`` (the page with the board as inline SVG; ``/?token=...``
signs the browser in and redirects to ``/``), ``GET /fragment/live`` (the
live panels as HTML in JSON, fetched by the page after each event),
``GET /events`` (server-sent events: every bus event as ``data: {json}``;
``?view=1`` adds the rendered panels as ``event: view``),
``GET /camera.mjpg`` and ``GET /camera.jpg`` (the camera picture with the
reading drawn over it), ``GET /match.mat`` (the Jellyfish match record).
"""

from __future__ import annotations

import time
from typing import Any, Iterator

from flask import Blueprint, Response, current_app, jsonify, redirect, render_template, request

from web.dashboard import dashboard
from web.security import csrf_token, is_signed_in, may_view, sign_in, token_matches
from web.view_model import build_view

bp = Blueprint("live", __name__)

BOUNDARY = "companionframe"


def _refused() -> Any:
    response = jsonify({"error": "viewing needs the access token: open /?token=TOKEN"})
    response.status_code = 401
    return response


def _view() -> dict[str, Any]:
    dash = dashboard()
    return build_view(dash.session.state(), dash.tracker)


@bp.get("/")
def index() -> Any:
    """The dashboard page."""
    token = request.args.get("token")
    if token is not None:
        if not token_matches(token):
            response = jsonify({"error": "wrong access token"})
            response.status_code = 403
            return response
        sign_in()
        return redirect("/", code=303)
    if not may_view():
        return _refused()
    dash = dashboard()
    recent, last_id = dash.announcer.snapshot(300)
    view = _view()
    return render_template(
        "index.html",
        view=view,
        signed_in=is_signed_in(),
        csrf=csrf_token(),
        recent=[payload for _id, payload in recent],
        last_event_id=last_id,
    )


def live_payload() -> dict[str, Any]:
    """The live panels and the score sheet rendered now (needs an app context):
    ``{"event_id", "mode", "live", "scoresheet"}``. ``event_id`` is the newest
    bus event the rendering has seen. The same for every browser."""
    dash = dashboard()
    event_id = dash.announcer.last_id
    view = _view()
    return {
        "event_id": event_id,
        "mode": view["mode"],
        "live": render_template("_live.html", view=view),
        "scoresheet": render_template("_scoresheet.html", view=view),
    }


@bp.get("/fragment/live")
def fragment() -> Any:
    """The live panels and the score sheet, rendered now (see :func:`live_payload`)."""
    if not may_view():
        return _refused()
    return jsonify(live_payload())


@bp.get("/events")
def events() -> Any:
    """Server-sent events: every bus event as ``id: N`` + ``data: {json}``.

    With ``?view=1`` (the dashboard page) the stream also carries ``event: view``
    messages: the live panels rendered once for all pages after each change
    (:mod:`web.view_push`)."""
    if not may_view():
        return _refused()
    dash = dashboard()
    last = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    try:
        last_id = int(last) if last not in (None, "") else None
    except ValueError:
        last_id = None
    views = request.args.get("view") == "1"
    try:
        listener = dash.announcer.listen(last_id, views=views)
    except RuntimeError:
        return Response("the dashboard is shutting down\n", status=503, mimetype="text/plain")
    keepalive = float(current_app.config["SSE_KEEPALIVE_S"])
    response = Response(
        dash.announcer.stream(listener, keepalive),
        mimetype="text/event-stream",
    )
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def _frames(dash: Any, fps: float) -> Iterator[bytes]:
    # Each part ends with the next part's boundary, so a browser shows a frame
    # as soon as it has arrived (not when the next frame comes).
    # A still picture is sent again every second (and the first one twice):
    # Chromium shows a part only once more data follows it.
    last = None
    last_sent = 0.0
    period = 1.0 / max(0.5, fps)
    yield f"--{BOUNDARY}\r\n".encode()
    while not dash.stopping.is_set():
        frame = dash.frame()
        now = time.monotonic()
        if frame and (frame is not last or now - last_sent >= 1.0):
            part = (
                f"Content-Type: image/jpeg\r\nContent-Length: {len(frame)}\r\n\r\n".encode()
                + frame
                + f"\r\n--{BOUNDARY}\r\n".encode()
            )
            yield part + part if last is None else part
            last, last_sent = frame, now
        dash.stopping.wait(period)


@bp.get("/camera.mjpg")
def camera_stream() -> Any:
    """The camera as MJPEG (``multipart/x-mixed-replace``), at most ``CAMERA_FPS`` frames a second."""
    if not may_view():
        return _refused()
    dash = dashboard()
    fps = float(current_app.config["CAMERA_FPS"])
    response = Response(_frames(dash, fps), mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/camera.jpg")
def camera_frame() -> Any:
    """The newest camera frame as one JPEG; 404 while there is none."""
    if not may_view():
        return _refused()
    frame = dashboard().frame()
    if not frame:
        response = jsonify({"error": "no camera picture yet"})
        response.status_code = 404
        return response
    response = Response(frame, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/match.mat")
def match_record() -> Any:
    """The match so far as a Jellyfish ``.mat`` download (``match-YYYYMMDD-HHMM.mat``)."""
    if not may_view():
        return _refused()
    try:
        text = dashboard().session.match_record()
    except ValueError as exc:
        response = jsonify({"error": f"no match record: {exc}"})
        response.status_code = 409
        return response
    name = time.strftime("match-%Y%m%d-%H%M.mat")
    response = Response(text, mimetype="text/plain; charset=utf-8")
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response

"""The Flask application factory for the dashboard.

``create_app(test_config=None, session=...)`` builds one app around one running
session (anything with the :class:`companion.session_api.SessionApi` methods);
the session is handed in, never global. The app keeps its helpers in
``app.extensions["companion"]`` (a :class:`~web.dashboard.Dashboard`).
"""

from __future__ import annotations

import secrets
import threading
from typing import Any, Callable, Mapping, Optional

from flask import Flask, jsonify

from web import api, live
from web.announcer import Announcer
from web.dashboard import Dashboard
from web.security import new_token, secure_headers
from web.tracker import Tracker
from web.view_push import ViewPusher


def _json_error(code: int, message: str) -> Callable[[Exception], Any]:
    """An error handler answering ``{"error": message}`` with status ``code``."""

    def handler(_exc: Exception) -> Any:
        response = jsonify({"error": message})
        response.status_code = code
        return response

    return handler


def register_json_errors(app: Flask) -> None:
    """Answer 404, 405, 413 and 500 on ``app`` as ``{"error": "one line"}`` JSON."""
    errors = {
        404: "no such page",
        405: "method not allowed",
        413: "request body too large",
        500: "the companion failed on this request (see its log)",
    }
    for code, message in errors.items():
        app.register_error_handler(code, _json_error(code, message))


def create_app(test_config: Optional[Mapping[str, Any]] = None, session: Any = None) -> Flask:
    """Build the dashboard app for ``session`` (a SessionApi; required).

    Config keys (``test_config`` overrides): ``ACCESS_TOKEN`` (random when not
    given), ``SECRET_KEY`` (random), ``VIEW_REQUIRES_TOKEN`` (False: read-only
    viewing is open to whoever can reach the port), ``SSE_QUEUE_SIZE`` (256
    messages per browser), ``SSE_KEEPALIVE_S`` (15), ``SSE_HISTORY`` (1000),
    ``CAMERA_FPS`` (10), ``VIEW_SETTLE_S`` (0.25: quiet time before a
    check that the pushed view is still current). Raises ``ValueError`` without a session.
    """
    if session is None:
        raise ValueError("create_app needs the running session (session=...)")
    app = Flask(__name__, instance_relative_config=False)
    app.config.from_mapping(
        SECRET_KEY=secrets.token_hex(32),
        ACCESS_TOKEN=new_token(),
        VIEW_REQUIRES_TOKEN=False,
        SSE_QUEUE_SIZE=256,
        SSE_KEEPALIVE_S=15.0,
        SSE_HISTORY=1000,
        CAMERA_FPS=10.0,
        VIEW_SETTLE_S=0.25,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_NAME="companion_session",
        MAX_CONTENT_LENGTH=64 * 1024,
        JSON_SORT_KEYS=False,
    )
    if test_config:
        app.config.from_mapping(test_config)
    if not app.config["ACCESS_TOKEN"]:
        raise ValueError("ACCESS_TOKEN must not be empty")

    announcer = Announcer(
        session.bus, max_queue=int(app.config["SSE_QUEUE_SIZE"]), history=int(app.config["SSE_HISTORY"])
    )
    tracker = Tracker(session.bus)
    dash = Dashboard(session, announcer, tracker, threading.Event())
    dash.frame_period_s = 1.0 / max(0.5, float(app.config["CAMERA_FPS"]))
    app.extensions["companion"] = dash

    def render_view() -> dict[str, Any]:
        with app.app_context():
            return live.live_payload()

    dash.views = ViewPusher(session.bus, announcer, render_view, settle_s=float(app.config["VIEW_SETTLE_S"]))

    app.register_blueprint(live.bp)
    app.register_blueprint(api.bp)

    register_json_errors(app)
    app.after_request(secure_headers)

    return app

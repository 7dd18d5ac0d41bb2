"""The calibration page: the camera picture, the field's four corners to drag, "Learn this board",
its progress, then the reading drawn over the picture to confirm and save.

``create_calibration_app(desk, test_config)`` builds the page's Flask app around a *desk*: anything
with the methods of :class:`vision.calibration_desk.CalibrationDesk` (``frame_jpeg()``,
``state()``, ``start(corners, orientation)``, ``save()``), handed in and never imported here (the
dashboard's floor does not import vision). ``companion calibrate --web`` serves it.

Routes (blueprint ``calibration``): ``GET /`` (the page; ``/?token=TOKEN`` signs the browser in
and redirects), ``GET /frame.jpg`` (the frame), ``GET /api/state`` (the desk's state as JSON:
progress, the one-line refusal, the reading with where to draw each point's count),
``POST /api/learn`` (``{"corners": [[x, y]] * 4, "orientation": "bottom-right"}``: 202 and the
state; 400 with ``{"error"}`` for bad corners; 409 while learning runs), ``POST /api/save``
(200 ``{"saved": path}``; 409 before anything was learned). Actions follow the dashboard's
rules (:mod:`web.security`): the token, or a signed-in browser with its CSRF token.
"""

from __future__ import annotations

import secrets
from typing import Any, Mapping, Optional

from flask import Blueprint, Flask, Response, current_app, jsonify, redirect, render_template, request, url_for

from web.app import register_json_errors
from web.security import (csrf_token, is_signed_in, may_view, new_token, require_token, secure_headers, sign_in,
                          token_matches)

bp = Blueprint("calibration", __name__)

#: Where the page finds its desk in ``app.extensions``.
EXTENSION = "companion_calibration"


def _desk() -> Any:
    return current_app.extensions[EXTENSION]


def _error(status: int, message: str) -> Any:
    response = jsonify({"error": message})
    response.status_code = status
    return response


def _refused() -> Any:
    return _error(401, "viewing needs the access token: open /?token=TOKEN")


@bp.get("/")
def page() -> Any:
    """The calibration page."""
    token = request.args.get("token")
    if token is not None:
        if not token_matches(token):
            return _error(403, "wrong access token")
        sign_in()
        return redirect(url_for("calibration.page"), code=303)
    if not may_view():
        return _refused()
    state = _desk().state()
    width, height = state["image_size"]
    return render_template("calibrate.html", state=state, width=width, height=height,
                           handle_r=max(width, height) / 90, signed_in=is_signed_in(), csrf=csrf_token())


@bp.get("/frame.jpg")
def frame() -> Any:
    """The frame being calibrated from, as JPEG."""
    if not may_view():
        return _refused()
    return Response(_desk().frame_jpeg(), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/api/state")
def state() -> Any:
    """The desk's state (see :meth:`vision.calibration_desk.CalibrationDesk.state`)."""
    if not may_view():
        return _refused()
    return jsonify(_desk().state())


@bp.post("/api/learn")
@require_token
def learn() -> Any:
    """Start learning this board with the corners sent."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or "corners" not in body:
        return _error(400, 'send JSON: {"corners": [[x, y], [x, y], [x, y], [x, y]], "orientation": "bottom-right"}')
    orientation = body.get("orientation")
    if orientation is not None and not isinstance(orientation, str):
        return _error(400, "orientation must be a name like bottom-right")
    desk = _desk()
    if desk.state()["state"] == "learning":
        return _error(409, "this board is being learned already: wait for it to finish")
    try:
        desk.start(body["corners"], orientation)
    except ValueError as exc:
        return _error(400, str(exc))
    response = jsonify(desk.state())
    response.status_code = 202
    return response


@bp.post("/api/save")
@require_token
def save() -> Any:
    """Write the profile and what was learned."""
    desk = _desk()
    if desk.state()["reading"] is None:
        return _error(409, "nothing to save yet: learn this board first")
    try:
        path = desk.save()
    except ValueError as exc:
        return _error(409, str(exc))
    except OSError as exc:
        return _error(500, f"cannot write the profile: {exc.strerror or exc}")
    return jsonify({"saved": path})


def create_calibration_app(desk: Any, test_config: Optional[Mapping[str, Any]] = None) -> Flask:
    """The calibration page's app for ``desk`` (see the module's doc).

    Config (``test_config`` overrides): ``ACCESS_TOKEN`` (random when not given),
    ``VIEW_REQUIRES_TOKEN`` (False: viewing is open to whoever reaches the port; the server
    sets it off loopback), ``SECRET_KEY`` (random). Raises ``ValueError`` for an empty token."""
    app = Flask("web", template_folder="templates", static_folder="static")
    app.config.from_mapping(
        SECRET_KEY=secrets.token_hex(32), ACCESS_TOKEN=new_token(), VIEW_REQUIRES_TOKEN=False,
        SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict", SESSION_COOKIE_NAME="companion_calibration",
        MAX_CONTENT_LENGTH=64 * 1024,
    )
    if test_config:
        app.config.from_mapping(test_config)
    if not app.config["ACCESS_TOKEN"]:
        raise ValueError("ACCESS_TOKEN must not be empty")
    app.extensions[EXTENSION] = desk
    app.register_blueprint(bp)
    register_json_errors(app)
    app.after_request(secure_headers)
    return app

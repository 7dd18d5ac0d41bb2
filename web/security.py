"""Access token and CSRF protection for the dashboard's state-changing routes.

Every action that changes the match needs the access token printed when the
dashboard starts. A script sends it as ``Authorization: Bearer TOKEN`` (or
``X-Access-Token``); a browser opens ``/?token=TOKEN`` once, which stores a
signed, ``SameSite=Strict``, HTTP-only session cookie with a per-session CSRF
token, and then sends ``X-CSRF-Token`` with each action. A request without any
credential gets 401; a wrong token, a missing or wrong CSRF token, or a foreign
``Origin`` gets 403.
"""

from __future__ import annotations

import functools
import hmac
import secrets
from typing import Any, Callable, Optional
from urllib.parse import urlsplit

from flask import current_app, jsonify, request, session

SESSION_KEY = "authorised"
CSRF_KEY = "csrf"


def new_token() -> str:
    """A fresh random access token (22 URL-safe characters, 128 bits)."""
    return secrets.token_urlsafe(16)


def token_matches(candidate: Optional[str]) -> bool:
    """True when ``candidate`` equals the app's ``ACCESS_TOKEN`` (constant-time compare)."""
    expected = current_app.config["ACCESS_TOKEN"]
    if not candidate or not expected:
        return False
    return hmac.compare_digest(candidate.encode("utf-8", "replace"), expected.encode("utf-8"))


def request_token() -> Optional[str]:
    """The token a script sent in ``Authorization: Bearer`` or ``X-Access-Token``, or None."""
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return request.headers.get("X-Access-Token")


def sign_in() -> None:
    """Mark the browser session as holding the token and give it a CSRF token."""
    session.clear()
    session[SESSION_KEY] = True
    session[CSRF_KEY] = secrets.token_urlsafe(16)
    session.permanent = False


def is_signed_in() -> bool:
    """True when the browser session was signed in with the token."""
    return bool(session.get(SESSION_KEY))


def csrf_token() -> str:
    """The session's CSRF token ('' when not signed in)."""
    return str(session.get(CSRF_KEY, "")) if is_signed_in() else ""


def _error(status: int, message: str) -> Any:
    response = jsonify({"error": message})
    response.status_code = status
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="companion"'
    return response


def _foreign_origin() -> bool:
    origin = request.headers.get("Origin")
    if not origin or origin == "null":
        return origin == "null"
    return urlsplit(origin).netloc != request.host


def check_action() -> Optional[Any]:
    """None when the request may change state, else the 401/403 JSON response."""
    if _foreign_origin():
        return _error(403, "request from another site refused")
    token = request_token()
    if token is not None:
        if token_matches(token):
            return None
        return _error(403, "wrong access token")
    if is_signed_in():
        sent = request.headers.get("X-CSRF-Token", "")
        if sent and hmac.compare_digest(sent.encode("utf-8", "replace"), csrf_token().encode("utf-8")):
            return None
        return _error(403, "missing or wrong CSRF token: reload the page")
    return _error(401, "this action needs the access token printed when the dashboard started")


def require_token(view: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for routes that change state: see :func:`check_action`."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        refused = check_action()
        if refused is not None:
            return refused
        return view(*args, **kwargs)

    return wrapped


def may_view() -> bool:
    """True when this request may read the dashboard: always when viewing is open
    (``VIEW_REQUIRES_TOKEN`` false), else with a signed-in session or the token."""
    if not current_app.config.get("VIEW_REQUIRES_TOKEN", False):
        return True
    if is_signed_in():
        return True
    token = request_token()
    return token is not None and token_matches(token)


def secure_headers(response: Any) -> Any:
    """Flask ``after_request`` hook of every page the companion serves: no MIME sniffing, no
    framing, no referrer, and a Content-Security-Policy that allows only the server's own
    scripts, styles and connections (images also as ``data:``). Returns ``response``."""
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'",
    )
    return response

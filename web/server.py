"""Serving the dashboard with waitress in a background thread that can be stopped.

``serve(app, host, port)`` starts a waitress server (a production WSGI server
with a thread pool: each open browser holds one thread for its event stream)
and returns a :class:`DashboardServer`; ``stop()`` ends the event streams and
the server. ``start_dashboard(session, "127.0.0.1:8080")`` is the one call the
``watch`` command needs: it builds the app, serves it and says where.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
from typing import Any, Callable, Optional

log = logging.getLogger(__name__)

DEFAULT_ADDRESS = "127.0.0.1:8080"


class AddressError(ValueError):
    """A ``HOST:PORT`` that cannot be used."""


def parse_address(text: str) -> tuple[str, int]:
    """``"HOST:PORT"`` (``"[::1]:8080"`` for IPv6, ``":8080"`` for 127.0.0.1) to
    ``(host, port)``; port 0 picks a free one. Raises :class:`AddressError`."""
    if not isinstance(text, str) or ":" not in text:
        raise AddressError(f"expected HOST:PORT, like 127.0.0.1:8080, not {text!r}")
    host, _, port_text = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port_text)
    except ValueError:
        raise AddressError(f"the port in {text!r} is not a number") from None
    if not 0 <= port <= 65535:
        raise AddressError(f"the port {port} is outside 0-65535")
    return host, port


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def viewing_needs_token(host: str, open_viewing: bool = False) -> bool:
    """Whether read-only viewing needs the token: only when the dashboard is
    reachable from other machines (not loopback) and the user did not open it."""
    return not (is_loopback(host) or open_viewing)


class DashboardServer:
    """A running waitress server for one dashboard app: ``host``, ``port``, ``url``, ``stop()``."""

    def __init__(self, app: Any, server: Any, thread: threading.Thread, host: str, port: int) -> None:
        self.app = app
        self._server = server
        self._thread = thread
        self.host = host
        self.port = port

    @property
    def url(self) -> str:
        """The base address, like ``http://127.0.0.1:8080``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def token(self) -> str:
        """The access token that actions need."""
        return str(self.app.config["ACCESS_TOKEN"])

    @property
    def running(self) -> bool:
        """True while the server's thread runs."""
        return self._thread.is_alive()

    def stop(self, timeout: float = 5.0) -> None:
        """End every event and camera stream, close the server, join its thread."""
        dash = self.app.extensions.get("companion")
        if dash is not None:
            dash.shutdown()
        from waitress import wasyncore

        try:
            # Let the worker threads finish their (now ending) streams first, so
            # none of them pokes the server's trigger after it is closed.
            self._server.task_dispatcher.shutdown(timeout=timeout)
            socket_map = getattr(self._server, "map", None) or getattr(self._server, "_map", None)
            trigger = getattr(self._server, "trigger", None)
            if socket_map is not None and trigger is not None:
                # Close the sockets inside the server's own loop thread (a thunk run
                # by its trigger); closing them from here races with its poll().
                trigger.pull_trigger(lambda: wasyncore.close_all(socket_map))
            else:
                self._server.close()
        except Exception:  # noqa: BLE001 - closing a half-dead server must not raise
            log.exception("closing the dashboard server failed")
        self._thread.join(timeout)


def serve(app: Any, host: str = "127.0.0.1", port: int = 8080, threads: int = 64) -> DashboardServer:
    """Serve ``app`` with waitress on ``host:port`` in a daemon thread.

    ``threads``: worker threads (each open event stream or camera stream holds
    one, so this bounds the number of browsers). Port 0 picks a free port
    (see ``DashboardServer.port``). Raises ``OSError`` when the address is taken.
    """
    from waitress import create_server

    server = create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        channel_timeout=300,
        connection_limit=max(100, threads * 2),
        # A browser that stops reading blocks its worker once 1 MB is waiting;
        # its event queue then fills and the announcer drops it.
        outbuf_high_watermark=1024 * 1024,
        ident="companion",
    )
    effective_port = int(getattr(server, "effective_port", port))
    thread = threading.Thread(target=server.run, name=f"dashboard-{effective_port}", daemon=True)
    thread.start()
    return DashboardServer(app, server, thread, host, effective_port)


def start_dashboard(
    session: Any,
    address: str = DEFAULT_ADDRESS,
    *,
    open_viewing: bool = False,
    token: Optional[str] = None,
    say: Callable[[str], None] = print,
) -> DashboardServer:
    """Build the dashboard for ``session`` and serve it at ``address`` (``HOST:PORT``).

    On a loopback address viewing is open and actions need the token; on any
    other address viewing needs the token too, unless ``open_viewing``. Says
    (prints) the address and the sign-in link with the token. Raises
    :class:`AddressError` on a malformed address and ``OSError`` when it is taken.
    """
    from web.app import create_app

    host, port = parse_address(address)
    config: dict[str, Any] = {"VIEW_REQUIRES_TOKEN": viewing_needs_token(host, open_viewing)}
    if port:
        # Browsers share cookies between ports of one host: one cookie per dashboard.
        config["SESSION_COOKIE_NAME"] = f"companion_{port}"
    if token:
        config["ACCESS_TOKEN"] = token
    app = create_app(config, session=session)
    server = serve(app, host, port)
    say(f"dashboard: {server.url}/  (match control: {server.url}/?token={server.token})")
    return server

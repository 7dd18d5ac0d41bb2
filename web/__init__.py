"""The Flask dashboard: the live board, verdicts and the score sheet in a browser.

``create_app(test_config=None, session=...)`` builds the app around a running
session (:class:`companion.session_api.SessionApi`); ``serve(app, host, port)``
serves it with waitress in a thread that can be stopped; ``start_dashboard``
does both for ``companion watch --web HOST:PORT``.
"""

from web.app import create_app
from web.server import DashboardServer, parse_address, serve, start_dashboard

__all__ = ["create_app", "serve", "start_dashboard", "parse_address", "DashboardServer"]

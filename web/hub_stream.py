"""What one open hub page's event stream carries: the changed cards themselves.

Each message of ``GET /events`` holds everything the page needs to redraw, so
no second request follows it: the cards of the tables that changed (as HTML,
without their board), a board drawing only when it differs from the last one
this stream sent for that table, and the room's alerts and results only when
they differ from the last ones sent. A card whose HTML and board are both as
last sent is left out (a heartbeat changes nothing on the page).

A :class:`PageStream` belongs to one open stream (one browser tab); it is not
shared between threads.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

from jinja2 import Environment

CardOf = Callable[[Any, int], Optional[dict[str, Any]]]


class PageStream:
    """The page's side of the room as this stream last sent it.

    ``room``: a :class:`companion.hub_room.Room`; ``card_of(room, number)``: a
    card's facts (:func:`web.hub_app.card_of`: ``view``, ``board_key``, ...);
    ``templates``: the app's Jinja environment (``_hub_card.html``,
    ``_hub_alerts.html``, ``_hub_results.html``).
    """

    def __init__(self, room: Any, card_of: CardOf, templates: Environment, alert_limit: int = 100) -> None:
        self._room = room
        self._card_of = card_of
        self._card = templates.get_template("_hub_card.html")
        self._alerts = templates.get_template("_hub_alerts.html")
        self._results = templates.get_template("_hub_results.html")
        self._alert_limit = alert_limit
        self._sent_html: dict[int, str] = {}
        self._sent_board: dict[int, str] = {}
        self._sent_alerts: Optional[str] = None
        self._sent_results: Optional[str] = None

    def update(self, tables: Iterable[int]) -> dict[str, Any]:
        """The message for a change of ``tables`` (table numbers): ``cards``, a list
        of ``{"number", "html", "board_key"}`` plus ``"board"`` (the SVG) when the
        drawing is new to this stream; ``alerts`` and ``results`` (HTML) only when
        they changed. Empty (``{}``) when nothing the page shows changed."""
        cards = []
        for number in sorted(tables):
            card = self._card_of(self._room, number)
            if card is None:
                continue
            html = self._card.render(card=card, keep_board=True)
            key = card["board_key"]
            new_board = self._sent_board.get(number) != key
            if not new_board and self._sent_html.get(number) == html:
                continue
            item = {"number": number, "html": html, "board_key": key}
            if new_board:
                item["board"] = card["view"]["board_svg"]
            self._sent_html[number] = html
            self._sent_board[number] = key
            cards.append(item)
        message: dict[str, Any] = {"cards": cards} if cards else {}
        alerts = self._alerts.render(alerts=self._room.alerts(self._alert_limit))
        if alerts != self._sent_alerts:
            message["alerts"] = self._sent_alerts = alerts
        results = self._results.render(results=self._room.results())
        if results != self._sent_results:
            message["results"] = self._sent_results = results
        return message

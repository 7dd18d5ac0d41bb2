// The director's page: follow the room's event stream, which carries the changed cards.
(function () {
  "use strict";
  var status = document.getElementById("connection");
  var grid = document.getElementById("grid");

  function setState(state, text) {
    status.dataset.state = state;
    status.textContent = text;
  }

  function place(card, number) {
    var none = document.getElementById("no-tables");
    if (none) { none.remove(); }
    var after = null;
    Array.prototype.forEach.call(grid.children, function (c) {
      if (after === null && Number(c.dataset.table) > number) { after = c; }
    });
    grid.insertBefore(card, after);
  }

  // A card's text and badges are replaced in the card shown; its board drawing
  // only when the message brings a drawing the card does not show.
  function showCard(c) {
    var holder = document.createElement("div");
    holder.innerHTML = c.html;
    var card = holder.firstElementChild;
    var shown = document.getElementById("table-" + c.number);
    if (!shown) {
      place(card, c.number);
      shown = card;
    } else {
      var board = shown.querySelector(".mini-board");
      Array.prototype.slice.call(shown.children).forEach(function (el) {
        if (el !== board) { el.remove(); }
      });
      Array.prototype.slice.call(card.children).forEach(function (el) {
        if (!el.classList.contains("mini-board")) { shown.insertBefore(el, board); }
      });
      shown.className = card.className;
      Object.keys(card.dataset).forEach(function (k) { shown.dataset[k] = card.dataset[k]; });
    }
    var drawing = shown.querySelector(".mini-board");
    if (c.board !== undefined && drawing.dataset.boardKey !== c.board_key) {
      drawing.innerHTML = c.board;
      drawing.dataset.boardKey = c.board_key;
    }
  }

  var es = new EventSource("/events?since=" + encodeURIComponent(document.body.dataset.version) +
                           "&hub=" + encodeURIComponent(document.body.dataset.hub));
  es.onopen = function () { setState("live", "Live"); };
  es.onerror = function () { setState("reconnecting", "Reconnecting…"); };
  es.onmessage = function (e) {
    var msg = JSON.parse(e.data);
    if (msg.reload) { es.close(); window.location.reload(); return; }
    (msg.cards || []).forEach(showCard);
    if (msg.alerts !== undefined) { document.getElementById("alerts").innerHTML = msg.alerts; }
    if (msg.results !== undefined) { document.getElementById("results").innerHTML = msg.results; }
  };
}());

// The director's page: follow the room's event stream and redraw the tables that changed.
(function () {
  "use strict";
  var pending = {};
  var busy = false;
  var status = document.getElementById("connection");

  function setState(state, text) {
    status.dataset.state = state;
    status.textContent = text;
  }

  function replaceCard(number, html) {
    var old = document.getElementById("table-" + number);
    var holder = document.createElement("div");
    holder.innerHTML = html;
    var card = holder.firstElementChild;
    var board = card.querySelector(".mini-board");
    if (old && board && board.dataset.keep) {  // the same drawing: keep the one shown
      var shown = old.querySelector(".mini-board");
      if (shown) { board.replaceWith(shown); }
    }
    if (old) {
      old.replaceWith(card);
    } else {
      var none = document.getElementById("no-tables");
      if (none) { none.remove(); }
      var grid = document.getElementById("grid");
      var after = null;
      Array.prototype.forEach.call(grid.children, function (c) {
        if (after === null && Number(c.dataset.table) > number) { after = c; }
      });
      grid.insertBefore(card, after);
    }
  }

  function drain() {
    var numbers = Object.keys(pending);
    if (busy || numbers.length === 0) { return; }
    busy = true;
    pending = {};
    var boards = numbers.map(function (n) {
      var b = document.querySelector("#table-" + n + " .mini-board");
      return b ? n + ":" + b.dataset.boardKey : "";
    }).filter(Boolean);
    fetch("/fragment/cards?tables=" + numbers.join(",") + "&boards=" + boards.join(","),
          { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (!data) { return; }
        data.cards.forEach(function (c) { replaceCard(c.number, c.html); });
        document.getElementById("alerts").innerHTML = data.alerts;
        document.getElementById("results").innerHTML = data.results;
      })
      .catch(function () {})
      .then(function () { busy = false; drain(); });
  }

  var es = new EventSource("/events?since=" + encodeURIComponent(document.body.dataset.version));
  es.onopen = function () { setState("live", "Live"); };
  es.onerror = function () { setState("reconnecting", "Reconnecting…"); };
  es.onmessage = function (e) {
    var msg = JSON.parse(e.data);
    document.body.dataset.version = msg.version;
    if (msg.tables === null) { window.location.reload(); return; }
    msg.tables.forEach(function (n) { pending[n] = true; });
    drain();
  };
}());

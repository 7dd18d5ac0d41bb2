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
    card.dataset.shownAt = String(Date.now());
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
    Promise.all(numbers.map(function (n) {
      return fetch("/fragment/card/" + n, { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          if (!data) { return; }
          replaceCard(Number(n), data.html);
          document.getElementById("alerts").innerHTML = data.alerts;
          document.getElementById("results").innerHTML = data.results;
        });
    })).catch(function () {}).then(function () { busy = false; drain(); });
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

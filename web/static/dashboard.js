// The dashboard's live updates: server-sent events, the event log, match control.
// Every bus event is added to the log at once; the live panels arrive on the same
// stream as "view" messages, rendered once by the server from the session's state.
(function () {
  "use strict";

  var live = document.getElementById("live");
  var scoresheet = document.getElementById("scoresheet");
  var logList = document.getElementById("log");
  var connection = document.getElementById("connection");
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrf = csrfMeta ? csrfMeta.getAttribute("content") : "";
  var MAX_LOG = 500;

  function nowMs() { return performance.timeOrigin + performance.now(); }

  function names() {
    var grid = live.querySelector(".live-grid");
    return [grid ? grid.dataset.player0 : "Player 0", grid ? grid.dataset.player1 : "Player 1"];
  }
  function teaching() {
    var grid = live.querySelector(".live-grid");
    return grid && grid.dataset.mode === "teaching";
  }
  function who(p) { var n = names(); return (p === 0 || p === 1) ? n[p] : "?"; }

  function summarise(ev) {
    var t = ev.type;
    if (t === "roll") return who(ev.player) + (ev.opening ? " opening roll " : " rolled ") + (ev.dice || []).join("-");
    if (t === "cocked_dice") return "Cocked dice (" + (ev.dice || []).join("-") + "): " + who(ev.player) + " rolls again";
    if (t === "verdict") {
      var s = who(ev.player) + ": " + ev.verdict.replace("_", " ");
      if (ev.play) s += " " + ev.play;
      if (ev.verdict === "illegal" && teaching()) {
        var reasons = (ev.reasons || []).map(function (r) { return r.message || r.code; });
        if (reasons.length) s += " (" + reasons.join("; ") + ")";
        if (ev.closest_legal) s += "; closest legal play " + ev.closest_legal;
      }
      return s;
    }
    if (t === "cube") return who(ev.player) + " " + ev.action + "s, cube " + ev.value + (ev.note ? " (" + ev.note + ")" : "");
    if (t === "resignation") return who(ev.player) + " resignation " + ev.action + " (" + ["", "single", "gammon", "backgammon"][ev.level] + ")";
    if (t === "game_end") return who(ev.winner) + " wins " + ev.points + " point" + (ev.points === 1 ? "" : "s") + " (" + ev.kind + "), score " + (ev.score || []).join("-") + (ev.match_over ? ", match over" : "");
    if (t === "turn" && ev.waiting_for === "game_over") return "Game over";
    if (t === "turn") return (ev.player === 0 || ev.player === 1 ? who(ev.player) + ": " : "") + "waiting for " + String(ev.waiting_for).replace("_", " ");
    if (t === "override") return "Override " + ev.action + " by " + ev.by + (ev.detail ? " " + JSON.stringify(ev.detail) : "");
    if (t === "source") return "Camera " + ev.status + (ev.detail ? ": " + ev.detail : "");
    if (t === "link") return "LED board " + ev.state + (ev.detail ? ": " + ev.detail : "");
    if (t === "observation") return "Board seen";
    if (t === "board") return "Board " + ev.status + (ev.detail ? ": " + ev.detail : "");
    if (t === "button") return "LED board button " + ev.button + (ev.action === "long_press" ? " (long press)" : "");
    if (t === "analysis") {
      if (ev.status !== "ok") return "Analysis unavailable: " + ev.detail;
      var a = ev.analysis || {};
      if (ev.kind === "match") return "gnubg's review of the match: " + (a.stats || []).map(function (s) { return s.name + " " + s.rating; }).join(", ");
      if (ev.kind === "cube") return "gnubg: " + who(ev.player) + " " + String(ev.decision).replace("_", " ") + ": " + a.action + (ev.equity_loss ? ", cost " + Number(ev.equity_loss).toFixed(3) : "");
      if (a.made) return "gnubg: " + who(ev.player) + " " + a.made + " rank " + a.made_rank + " of " + (a.plays || []).length + (ev.label ? " (" + ev.label + ")" : "");
      return "gnubg: best " + ((a.plays || [])[0] || {}).play;
    }
    if (t === "leds") return "LED frame acknowledged in " + Number(ev.acked_ms || 0).toFixed(1) + " ms";
    return t;
  }

  function addLog(ev, id, receivedMs) {
    var li = document.createElement("li");
    li.className = "ev ev-" + ev.type + (ev.verdict ? " verdict-" + ev.verdict : "");
    li.dataset.eventId = String(id);
    li.dataset.type = ev.type;
    li.dataset.receivedMs = String(receivedMs);
    li.dataset.timeMs = String(ev.time_ms || "");
    var time = document.createElement("time");
    var d = new Date(ev.time_ms || Date.now());
    time.textContent = d.toLocaleTimeString();
    li.appendChild(time);
    li.appendChild(document.createTextNode(" " + summarise(ev)));
    logList.insertBefore(li, logList.firstChild);
    while (logList.children.length > MAX_LOG) logList.removeChild(logList.lastChild);
  }

  // Bring the live DOM in line with new markup, touching only what changed, so
  // the browser repaints a die or a point rather than the whole board.
  function syncAttributes(oldEl, newEl) {
    var i, a;
    for (i = oldEl.attributes.length - 1; i >= 0; i--) {
      a = oldEl.attributes[i];
      if (!newEl.hasAttribute(a.name)) oldEl.removeAttribute(a.name);
    }
    for (i = 0; i < newEl.attributes.length; i++) {
      a = newEl.attributes[i];
      if (oldEl.getAttribute(a.name) !== a.value) oldEl.setAttribute(a.name, a.value);
    }
  }
  function morph(oldNode, newNode) {
    if (oldNode.isEqualNode(newNode)) return;
    if (oldNode.nodeType !== newNode.nodeType || oldNode.nodeName !== newNode.nodeName) {
      oldNode.replaceWith(newNode);
      return;
    }
    if (oldNode.nodeType !== 1) { oldNode.nodeValue = newNode.nodeValue; return; }
    syncAttributes(oldNode, newNode);
    var oldKids = oldNode.childNodes, newKids = Array.prototype.slice.call(newNode.childNodes);
    if (oldKids.length !== newKids.length) { oldNode.replaceChildren.apply(oldNode, newKids); return; }
    for (var i = 0; i < newKids.length; i++) morph(oldKids[i], newKids[i]);
  }
  function update(container, html) {
    var fresh = document.createElement(container.tagName);
    fresh.innerHTML = html;
    var oldKids = container.childNodes, newKids = Array.prototype.slice.call(fresh.childNodes);
    if (oldKids.length !== newKids.length) { container.replaceChildren.apply(container, newKids); return; }
    for (var i = 0; i < newKids.length; i++) morph(oldKids[i], newKids[i]);
  }

  var shownEventId = -1;
  function apply(data) {
    // Views can cross (a pushed one and a fetched one): never go back in time.
    if (data.event_id < shownEventId) return;
    shownEventId = data.event_id;
    update(live, data.live);
    update(scoresheet, data.scoresheet);
    live.dataset.mode = data.mode;
    live.dataset.eventId = String(data.event_id);
    live.dataset.renderedMs = String(nowMs());
    // For the speed benchmark: when each view reached the DOM (last 1000).
    views.push([data.event_id, nowMs()]);
    if (views.length > 1000) views.shift();
  }
  var views = [];
  window.companionViews = views;

  var inflight = false, again = false;
  function refresh() {
    if (inflight) { again = true; return; }
    inflight = true;
    fetch("/fragment/live", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
      .then(apply)
      .catch(function (err) { setConnection("error", "Could not refresh: " + err.message); })
      .finally(function () {
        inflight = false;
        if (again) { again = false; refresh(); }
      });
  }

  function setConnection(state, text) {
    connection.dataset.state = state;
    connection.textContent = text;
    // A board that is no longer live must not look live.
    document.body.classList.toggle("offline", state === "reconnecting" || state === "connecting");
  }

  function connect() {
    // Start right after the events the page was rendered with (no gap); on a
    // reconnect the browser sends Last-Event-ID and the server replays the rest.
    var es = new EventSource("/events?view=1&last_event_id=" + encodeURIComponent(document.body.dataset.renderedEventId));
    es.onopen = function () { setConnection("live", "Live"); refresh(); };
    es.addEventListener("view", function (m) {
      try { apply(JSON.parse(m.data)); } catch (e) { setConnection("error", "Bad view: " + e.message); }
    });
    es.onerror = function () { setConnection("reconnecting", "Connection lost: the board below may be out of date. Reconnecting…"); };
    es.onmessage = function (m) {
      var received = nowMs();
      var ev;
      try { ev = JSON.parse(m.data); } catch (e) { return; }
      var id = parseInt(m.lastEventId, 10);
      if (id <= loggedId) return;  // already listed
      loggedId = id;
      document.body.dataset.lastEventId = m.lastEventId;
      addLog(ev, m.lastEventId, received);
    };
  }

  function formBody(form) {
    var kind = form.dataset.kind, f = form.elements;
    if (kind === "new_match") {
      var body = {
        players: [f.player0.value, f.player1.value],
        match_length: parseInt(f.match_length.value, 10),
        illegal_play_policy: f.illegal_play_policy.value,
        die_on_checker: f.die_on_checker.value,
        mode: f.mode.value
      };
      if (body.match_length === 0) {
        body.jacoby = f.jacoby.checked;
        body.beavers = f.beavers.checked;
        body.automatic_doubles = f.automatic_doubles.checked;
      }
      return body;
    }
    if (kind === "resign") return { player: parseInt(f.player.value, 10), level: parseInt(f.level.value, 10) };
    if (kind === "accept") return { accept: true };
    if (kind === "refuse") return { accept: false };
    if (kind === "dice") return { dice: [parseInt(f.d1.value, 10), parseInt(f.d2.value, 10)] };
    if (kind === "position") return { position_id: f.position_id.value.trim() };
    if (kind === "cube") return { action: f.action.value, player: parseInt(f.player.value, 10) };
    return {};
  }

  function submit(event) {
    event.preventDefault();
    var form = event.target;
    var result = document.getElementById("action-result");
    fetch(form.dataset.api, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(formBody(form))
    }).then(function (r) {
      return r.json().then(function (data) { return { ok: r.ok, data: data }; });
    }).then(function (res) {
      result.className = res.ok ? "ok" : "error";
      result.textContent = res.ok ? "Done." : (res.data.error || "Refused.");
      refresh();
    }).catch(function (err) {
      result.className = "error";
      result.textContent = "Could not reach the companion: " + err.message;
    });
  }

  document.querySelectorAll("form[data-api]").forEach(function (form) {
    form.addEventListener("submit", submit);
  });
  var lengthInput = document.querySelector('#form-new-match input[name="match_length"]');
  if (lengthInput) {
    var money = document.querySelector("#form-new-match fieldset.money");
    var sync = function () { money.disabled = parseInt(lengthInput.value, 10) !== 0; };
    lengthInput.addEventListener("input", sync);
    sync();
  }

  // Teaching mode: draw gnubg's best play on the board on request (until the next update).
  live.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("#show-best") : null;
    if (!button) return;
    var on = button.getAttribute("aria-pressed") !== "true";
    button.setAttribute("aria-pressed", String(on));
    (button.dataset.points || "").split(",").forEach(function (p) {
      var point = live.querySelector("#board #point-" + p);
      if (point) point.classList.toggle("best-play", on);
    });
  });

  var logAll = document.getElementById("log-all");
  logAll.addEventListener("change", function () { logList.classList.toggle("quiet", !logAll.checked); });

  var cameraButton = document.getElementById("camera-toggle");
  var camera = document.getElementById("camera");
  cameraButton.addEventListener("click", function () {
    var on = camera.hidden;
    camera.hidden = !on;
    camera.src = on ? "/camera.mjpg" : "";
    cameraButton.setAttribute("aria-pressed", String(on));
    cameraButton.textContent = on ? "Hide camera" : "Show camera";
  });

  var loggedId = parseInt(document.body.dataset.lastEventId, 10) || 0;
  document.body.dataset.renderedEventId = String(loggedId);
  var initial = [];
  try { initial = JSON.parse(document.getElementById("initial-events").textContent); } catch (e) { initial = []; }
  var firstId = parseInt(document.body.dataset.lastEventId, 10) - initial.length + 1;
  initial.forEach(function (ev, i) { addLog(ev, firstId + i, 0); });
  connect();
})();

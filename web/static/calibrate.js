// The calibration page: drag the field's corners, learn the board, follow the progress,
// draw the reading over the picture, save. The server does the work (web/calibration.py);
// this script moves the handles and shows what /api/state says.
(function () {
  "use strict";

  var SVG_NS = "http://www.w3.org/2000/svg";
  var POLL_MS = 300;
  var body = document.body;
  var view = document.getElementById("view");
  var outline = document.getElementById("outline");
  var readingLayer = document.getElementById("reading");
  var handles = Array.prototype.slice.call(document.querySelectorAll("#view .handle"));
  var learnButton = document.getElementById("learn");
  var saveButton = document.getElementById("save");
  var orientation = document.getElementById("orientation");
  var progress = document.getElementById("progress");
  var stage = document.getElementById("stage");
  var message = document.getElementById("message");
  var confirmBox = document.getElementById("confirm");
  var summary = document.getElementById("summary");
  var saved = document.getElementById("saved");
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrf = csrfMeta ? csrfMeta.getAttribute("content") : "";
  var signedIn = body.dataset.signedIn === "true";
  var width = parseFloat(view.dataset.width);
  var height = parseFloat(view.dataset.height);
  var polling = null;

  function corners() {
    return handles.map(function (h) { return [parseFloat(h.getAttribute("cx")), parseFloat(h.getAttribute("cy"))]; });
  }

  function drawOutline() {
    outline.setAttribute("points", corners().map(function (c) { return c[0] + "," + c[1]; }).join(" "));
  }

  function clearReading() {
    while (readingLayer.firstChild) readingLayer.removeChild(readingLayer.firstChild);
    confirmBox.hidden = true;
  }

  function moveHandle(handle, x, y) {
    if (handle.classList.contains("locked")) return;  // learning runs with the corners sent
    handle.setAttribute("cx", Math.min(Math.max(x, 0), width).toFixed(1));
    handle.setAttribute("cy", Math.min(Math.max(y, 0), height).toFixed(1));
    drawOutline();
    clearReading();  // the reading was of the old corners
  }

  function toPicture(event) {
    var point = new DOMPoint(event.clientX, event.clientY);
    return point.matrixTransform(view.getScreenCTM().inverse());
  }

  handles.forEach(function (handle) {
    handle.addEventListener("pointerdown", function (event) {
      event.preventDefault();
      handle.setPointerCapture(event.pointerId);
      handle.classList.add("dragging");
    });
    handle.addEventListener("pointermove", function (event) {
      if (!handle.hasPointerCapture(event.pointerId)) return;
      var p = toPicture(event);
      moveHandle(handle, p.x, p.y);
    });
    handle.addEventListener("pointerup", function (event) {
      handle.releasePointerCapture(event.pointerId);
      handle.classList.remove("dragging");
    });
    handle.addEventListener("keydown", function (event) {
      var step = event.shiftKey ? 10 : 1;
      var d = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }[event.key];
      if (!d) return;
      event.preventDefault();
      moveHandle(handle, parseFloat(handle.getAttribute("cx")) + d[0], parseFloat(handle.getAttribute("cy")) + d[1]);
    });
  });

  orientation.addEventListener("change", clearReading);

  function mark(p) {
    var g = document.createElementNS(SVG_NS, "g");
    g.setAttribute("class", "mark " + (p.hidden ? "hidden" : (p.colour || "empty")));
    g.setAttribute("id", "read-" + p.point);
    g.setAttribute("data-point", p.point);
    g.setAttribute("data-count", p.hidden ? "?" : p.count);
    g.setAttribute("data-colour", p.colour || "");
    var r = Math.max(width, height) / 75;
    var circle = document.createElementNS(SVG_NS, "circle");
    circle.setAttribute("cx", p.x);
    circle.setAttribute("cy", p.y);
    circle.setAttribute("r", r);
    var text = document.createElementNS(SVG_NS, "text");
    text.setAttribute("x", p.x);
    text.setAttribute("y", p.y);
    text.setAttribute("font-size", (1.3 * r).toFixed(1));
    text.setAttribute("text-anchor", "middle");
    text.setAttribute("dominant-baseline", "central");
    text.textContent = p.hidden ? "?" : String(p.count);
    var title = document.createElementNS(SVG_NS, "title");
    title.textContent = "Point " + p.point + ": " + (p.hidden ? "hidden" : (p.count ? p.count + " " + p.colour : "empty"));
    g.appendChild(title);
    g.appendChild(circle);
    g.appendChild(text);
    return g;
  }

  function boardMark(m) {
    var rect = document.createElementNS(SVG_NS, "rect");
    rect.setAttribute("class", "board-mark");
    rect.setAttribute("x", m.x - m.side / 2);
    rect.setAttribute("y", m.y - m.side / 2);
    rect.setAttribute("width", m.side);
    rect.setAttribute("height", m.side);
    var title = document.createElementNS(SVG_NS, "title");
    title.textContent = "Looks like a die: no die is read here while it looks as now";
    rect.appendChild(title);
    return rect;
  }

  function showReading(state) {
    clearReading();
    state.reading.points.forEach(function (p) { readingLayer.appendChild(mark(p)); });
    (state.board_marks || []).forEach(function (m) { readingLayer.appendChild(boardMark(m)); });
    var r = state.reading;
    var l = state.learned;
    summary.textContent = "Bar: light " + r.bar.light + ", dark " + r.bar.dark + ". Borne off: light " + r.off.light +
      ", dark " + r.off.dark + ". " + (l.adapted ?
        "Learned in " + Math.round(l.seconds) + " s: this board's own compositions read right " +
        (100 * l.before).toFixed(1) + "% before, " + (100 * l.after).toFixed(1) + "% after." :
        "The opening read right as shipped: nothing to learn, the shipped reader kept.");
    var n = (state.board_marks || []).length;
    if (n) {
      summary.textContent += " " + n + (n === 1 ? " place of this board looks" : " places of this board look") +
        " like a die (dashed squares): no die is read there while it looks as now.";
    }
    var d = state.dice;
    if (d) {
      if (d.die_scale !== null) {
        summary.textContent += " Dice: " + d.die_scale.toFixed(2) + " times a tournament die" +
          (d.own_size ? ", searched at their own size" : "") + (d.sets ? "; whose dice are whose learned." : ".");
      }
      if (d.note) summary.textContent += " " + d.note.charAt(0).toUpperCase() + d.note.slice(1) + ".";
    }
    confirmBox.hidden = false;
  }

  function show(state) {
    stage.dataset.state = state.state;
    progress.value = state.fraction;
    var learning = state.state === "learning";
    learnButton.disabled = learning || !signedIn;
    handles.forEach(function (h) { h.classList.toggle("locked", learning); });
    if (learning) {
      stage.textContent = state.stage + " " + Math.round(100 * state.fraction) + "%";
      message.textContent = "";
    } else if (state.state === "refused") {
      stage.textContent = "Not learned.";
      message.textContent = state.error;
      clearReading();
    } else if (state.state === "learned" || state.state === "saved") {
      stage.textContent = "Learned: check the reading.";
      message.textContent = "";
      if (!readingLayer.firstChild) showReading(state);
    } else {
      stage.textContent = "";
    }
    if (state.saved) saved.textContent = "Profile written to " + state.saved + ". You may close this page.";
  }

  function poll() {
    fetch(body.dataset.stateUrl, { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (state) {
        show(state);
        polling = state.state === "learning" ? setTimeout(poll, POLL_MS) : null;
      })
      .catch(function (err) {
        message.textContent = "Could not reach the companion: " + err.message;
        polling = null;
      });
  }

  function post(url, payload) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(payload)
    }).then(function (r) {
      return r.json().then(function (data) { return { ok: r.ok, data: data }; });
    });
  }

  learnButton.addEventListener("click", function () {
    clearReading();
    saved.textContent = "";
    message.textContent = "";
    post(body.dataset.learnUrl, { corners: corners(), orientation: orientation.value }).then(function (res) {
      if (!res.ok) {
        message.textContent = res.data.error || "Refused.";
        return;
      }
      show(res.data);
      if (polling === null) poll();
    }).catch(function (err) { message.textContent = "Could not reach the companion: " + err.message; });
  });

  saveButton.addEventListener("click", function () {
    message.textContent = "";
    post(body.dataset.saveUrl, {}).then(function (res) {
      if (!res.ok) {
        message.textContent = res.data.error || "Refused.";
        return;
      }
      saved.textContent = "Profile written to " + res.data.saved + ". You may close this page.";
    }).catch(function (err) { message.textContent = "Could not reach the companion: " + err.message; });
  });

  poll();  // a page opened (or reloaded) while learning runs follows it
})();

// A table's page on the hub: the director's command forms (signed in with the token).
(function () {
  "use strict";
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  var table = document.body.dataset.table;
  var result = document.getElementById("command-result");

  function body(form) {
    var f = form.elements;
    var action = form.dataset.action;
    if (action === "new_match") {
      return { action: action, settings: { players: [f.player0.value, f.player1.value], match_length: Number(f.match_length.value) } };
    }
    if (action === "set_dice") { return { action: action, dice: [Number(f.die0.value), Number(f.die1.value)] }; }
    if (action === "set_position") { return { action: action, position_id: f.position_id.value }; }
    if (action === "resign") { return { action: action, player: Number(f.player.value), level: Number(f.level.value) }; }
    return { action: action };
  }

  Array.prototype.forEach.call(document.querySelectorAll("form.command"), function (form) {
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      result.textContent = "Sending…";
      result.className = "";
      fetch("/api/table/" + table + "/command", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(body(form))
      }).then(function (r) { return r.json(); }).then(function (data) {
        result.textContent = data.ok ? "Done: " + data.action : "Refused: " + data.error;
        result.className = data.ok ? "ok" : "error";
      }).catch(function () {
        result.textContent = "The hub did not answer.";
        result.className = "error";
      });
    });
  });
}());

"""Runs INSIDE GNU Backgammon: ``gnubg -t -q -r -p companion/analysis/gnubg_script.py``.

The analysis engine's half that lives in gnubg's embedded Python. It imports
nothing from the companion (gnubg's interpreter need not see the package) and
speaks one JSON object per line over two pipes whose file descriptors are in
the environment variable ``COMPANION_ANALYSIS_FDS`` (``"READ_FD,WRITE_FD"``);
gnubg's own screen output goes to its standard output, which the engine
discards. First line written: ``{"ready": true}``.

Requests (``id`` is echoed in the answer):

* ``{"op": "play", "position_id", "match_id", "dice": [d1, d2], "plies"}``:
  gnubg's ``hint`` for the roll: every legal play ranked, best first, as
  ``{"play", "equity", "equity_loss", "plies", "probs", "position_id"}``
  (``position_id`` of the result, same player still on roll, built with gnubg's
  own ``parsemove`` and the hit rule; ``equity_loss`` = -``eqdiff`` >= 0).
* ``{"op": "cube", "position_id", "match_id", "plies", "beavers"}``: gnubg's
  cubeful evaluation (``cfevaluate``) of the position before the roll, from the
  view of the player on roll: ``no_double``, ``double_take``, ``double_pass``,
  ``optimal`` (equities; match play in normalised money equity, as gnubg prints
  them) and gnubg's ``action`` text.
* ``{"op": "match", "mat_path", "plies"}``: gnubg imports the Jellyfish
  ``.mat`` file (a path without spaces), runs ``analyse match`` and answers
  its statistics (``gnubg.match(statistics=1)["stats"]``: per player ``"X"``
  (player 0) and ``"O"``), the players' names, the match length, the error
  rating per player (``gnubg.errorrating`` of the overall error rate) and
  the cube errors summed per player (``cube_error``: the ``err-*-skill``
  fields; gnubg's own ``error-skill`` of the cube is a rate) and every
  decision gnubg analysed: ``{"game", "move", "player", "action", "dice",
  "position_id", "match_id"}`` (the state before it) with ``"played",
  "best", "equity_loss"`` for plays, and for cube decisions (``"double"``,
  ``"no_double"``, ``"take"``, ``"drop"``) the cubeful equities
  ``"no_double", "double_take", "double_pass"`` from the doubler's view and
  gnubg's ``"cube_action"`` (``cfevaluate`` of the position before the double).
* ``{"op": "ping"}``.

Any failure of a request is answered ``{"id", "error": "..."}``; the loop goes on.
"""

import json
import os

import gnubg  # noqa: provided by gnubg's embedded interpreter


def after_play(board, steps):
    """The board after ``steps`` ((from, to) pairs as from ``gnubg.parsemove``;
    25 = bar, 0 or less = off), the mover's side second, a blot hit on landing
    sent to the opponent's bar."""
    opp = list(board[0])
    me = list(board[1])
    for s, t in steps:
        me[24 if s == 25 else s - 1] -= 1
        if t > 0:
            me[t - 1] += 1
            if opp[24 - t] == 1:
                opp[24 - t] = 0
                opp[24] += 1
    return (tuple(opp), tuple(me))


class Worker:
    """The request loop; keeps the evaluation settings last sent to gnubg."""

    def __init__(self):
        self.chequer_plies = None

    def setup(self, req):
        gnubg.command("set matchid " + req["match_id"])
        gnubg.command("set board " + req["position_id"])
        if gnubg.positionid() != req["position_id"]:
            raise ValueError("gnubg did not accept position " + req["position_id"])

    def play(self, req):
        plies = int(req.get("plies", 2))
        if plies != self.chequer_plies:
            gnubg.command("set evaluation chequerplay evaluation plies %d" % plies)
            self.chequer_plies = plies
        self.setup(req)
        d1, d2 = req["dice"]
        gnubg.command("set dice %d%d" % (d1, d2))
        board = gnubg.board()
        try:
            hint = gnubg.hint(10000)["hint"]
        except Exception:  # gnubg raises when there is no legal play
            hint = []
        plays = []
        for h in hint:
            plays.append({
                "play": h["move"],
                "equity": h["equity"],
                "equity_loss": 0.0 - h["eqdiff"],
                "plies": h["context"]["plies"] if "context" in h else None,
                "probs": list(h.get("details", {}).get("probs", ())),
                "position_id": gnubg.positionid(after_play(board, gnubg.parsemove(h["move"]))),
            })
        return {"plays": plays, "match_id": gnubg.matchid()}

    def cube(self, req):
        self.setup(req)
        cubeinfo = gnubg.cubeinfo()
        cubeinfo["beavers"] = 1 if req.get("beavers") else 0
        context = {"cubeful": 1, "plies": int(req.get("plies", 2)), "deterministic": 1,
                   "prune": 1, "noise": 0.0}
        optimal, no_double, take, drop, recommendation, text = gnubg.cfevaluate(
            gnubg.board(), cubeinfo, context)
        return {"optimal": optimal, "no_double": no_double, "double_take": take,
                "double_pass": drop, "recommendation": recommendation, "action": text}

    def match(self, req):
        plies = int(req.get("plies", 2))
        context = {"cubeful": 1, "plies": plies, "deterministic": 1, "prune": 1, "noise": 0.0}
        gnubg.command("set analysis chequerplay evaluation plies %d" % plies)
        gnubg.command("set analysis cubedecision evaluation plies %d" % plies)
        gnubg.command("import mat " + req["mat_path"])
        gnubg.command("analyse match")
        m = gnubg.match(analysis=1, boards=1, statistics=1, verbose=0)
        if not m or not m.get("games"):
            raise ValueError("gnubg could not read a match from the record")
        info = m["match-info"]
        decisions = []
        for g, game in enumerate(m["games"], start=1):
            gnubg.navigate()
            if g > 1:
                gnubg.navigate(game=g - 1)
            doubled = previous = None
            for n, rec in enumerate(game["game"], start=1):
                if n > 1:
                    gnubg.navigate(1, 0)  # one record on: the state before this record's action
                a = rec.get("analysis") or {}
                action = rec.get("action")
                base = {"game": g, "move": n, "player": 0 if rec.get("player") == "X" else 1,
                        "action": action, "position_id": rec.get("board") or gnubg.positionid(),
                        "match_id": gnubg.matchid(), "dice": list(rec.get("dice", ()))}
                if action == "move" and a.get("moves") and "imove" in a:
                    board = gnubg.positionfromid(rec["board"])
                    best, made = a["moves"][0], a["moves"][a["imove"]]
                    decisions.append(dict(base, played=gnubg.movetupletostring(made["move"], board),
                                          best=gnubg.movetupletostring(best["move"], board),
                                          equity_loss=best["score"] - made["score"]))
                if action == "double" and previous == "double":
                    pass  # a beaver (or raccoon): gnubg does not count it as a cube decision
                elif action in ("take", "drop") and doubled is not None:
                    decisions.append(dict(doubled, **{k: base[k] for k in ("move", "player", "action")}))
                elif "nd-cubeful-eq" in a and gnubg.positionid() == rec.get("board"):
                    _, no_double, take, drop, _, text = gnubg.cfevaluate(gnubg.board(), gnubg.cubeinfo(), context)
                    cube = dict(base, action="double" if action == "double" else "no_double",
                                no_double=no_double, double_take=take, double_pass=drop, cube_action=text)
                    decisions.append(cube)
                    if action == "double":
                        doubled = cube
                previous = action
        stats = m["stats"]
        cube_errors = ("err-missed-double-below-cp-skill", "err-missed-double-above-cp-skill",
                       "err-wrong-double-below-dp-skill", "err-wrong-double-above-tg-skill",
                       "err-wrong-take-skill", "err-wrong-drop-skill")
        rating, cube_error = {}, {}
        for side in ("X", "O"):
            moves, cube = stats[side]["moves"], stats[side]["cube"]
            cube_error[side] = sum(cube[k] for k in cube_errors)
            count = moves["unforced-moves"] + cube["close-cube"]
            rate = (moves["error-skill"] + cube_error[side]) / count if count else 0.0
            rating[side] = gnubg.errorrating(rate)
        return {"players": [info["X"]["name"], info["O"]["name"]], "match_length": info["match-length"],
                "stats": stats, "cube_error": cube_error, "rating": rating, "decisions": decisions}

    def answer(self, req):
        op = req.get("op")
        if op == "play":
            return self.play(req)
        if op == "cube":
            return self.cube(req)
        if op == "match":
            return self.match(req)
        if op == "ping":
            return {"pong": True}
        raise ValueError("unknown op %r" % (op,))


def main():
    read_fd, write_fd = (int(x) for x in os.environ["COMPANION_ANALYSIS_FDS"].split(","))
    gnubg.command("set display off")
    gnubg.command("set player 0 human")
    gnubg.command("set player 1 human")
    gnubg.command("set evaluation cubedecision evaluation plies 2")
    worker = Worker()
    with os.fdopen(read_fd, "r") as requests, os.fdopen(write_fd, "w") as answers:
        answers.write(json.dumps({"ready": True}) + "\n")
        answers.flush()
        for line in requests:
            req = {}
            try:
                req = json.loads(line)
                out = worker.answer(req)
            except Exception as exc:  # noqa: BLE001 - one bad request must not end the loop
                out = {"error": "%s: %s" % (type(exc).__name__, exc)}
            out["id"] = req.get("id") if isinstance(req, dict) else None
            answers.write(json.dumps(out) + "\n")
            answers.flush()


main()

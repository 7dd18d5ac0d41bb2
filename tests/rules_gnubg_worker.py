"""Runs INSIDE GNU Backgammon (``gnubg -t -q -r -p tests/rules_gnubg_worker.py``).

Reads JSON lines ``{"position_id": PID, "dice": [d1, d2]}`` from the file named by
``RULES_GNUBG_IN``; for each, sets the board and dice, asks gnubg's ``hint`` for
every legal play, applies each play (as parsed by gnubg's own ``parsemove``) to
gnubg's own board and writes ``{"position_id": PID, "dice": [...], "results":
[RESULT_PID, ...], "moves": [...]}`` lines to ``RULES_GNUBG_OUT``. Only gnubg's
functions and a four-line hit rule are used here, never the companion's code.
"""

import json
import os

import gnubg  # noqa: provided by gnubg's embedded interpreter


def apply(board, steps):
    opp = list(board[0])
    me = list(board[1])
    for s, t in steps:
        me[24 if s == 25 else s - 1] -= 1
        if t > 0:
            me[t - 1] += 1
            if opp[24 - t] == 1:  # a blot on the landing point is hit
                opp[24 - t] = 0
                opp[24] += 1
    return (tuple(opp), tuple(me))


def main():
    gnubg.command("set display off")
    gnubg.command("set player 0 human")
    gnubg.command("set player 1 human")
    gnubg.command("set evaluation chequerplay evaluation plies 0")
    gnubg.command("new game")
    with open(os.environ["RULES_GNUBG_IN"]) as src, open(os.environ["RULES_GNUBG_OUT"], "w") as out:
        for line in src:
            req = json.loads(line)
            pid = req["position_id"]
            d1, d2 = req["dice"]
            gnubg.command("set board " + pid)
            gnubg.command("set dice %d%d" % (d1, d2))
            board = gnubg.positionfromid(pid)
            if gnubg.positionid() != pid:
                out.write(json.dumps({"position_id": pid, "error": "set board failed"}) + "\n")
                continue
            try:
                hint = gnubg.hint(10000)
                moves = [h["move"] for h in hint["hint"]]
            except Exception as exc:  # gnubg raises when there is no legal move
                moves = []
                err = str(exc)
            else:
                err = None
            results = [gnubg.positionid(apply(board, gnubg.parsemove(m))) for m in moves]
            out.write(json.dumps({"position_id": pid, "dice": [d1, d2], "results": results,
                                  "moves": moves, "note": err}) + "\n")
            out.flush()


main()

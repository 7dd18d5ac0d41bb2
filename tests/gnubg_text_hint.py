"""What GNU Backgammon PRINTS: its ``hint`` and match statistics through the plain command interface.

The oracle for the analysis service's agreement tests and benchmark. It feeds
``gnubg -t -q -r`` a command script on standard input (``set matchid``, ``set
board``, ``set dice``, ``hint``) and parses the text gnubg writes, without the
companion's code or gnubg's Python scripting (which the service uses):

    1. Cubeful 2-ply    24/21 13/9                   Eq.: +0.002
    2. Cubeful 2-ply    24/20 13/10                  Eq.: +0.000 (-0.001)

and for a cube decision (no dice set):

    1. No double           +0.099
    2. Double, pass        +1.000  (+0.901)
    3. Double, take        -0.171  (-0.270)
    Proper cube action: No double, take
"""

from __future__ import annotations

import random
import re
import subprocess

from companion.match_id import MatchKey
from companion.sampling import sample

GNUBG = "/usr/games/gnubg"

_PLAY = re.compile(r"^\s*\d+\.\s+Cube(?:ful|less) (\d)-ply\s+(.+?)\s+Eq\.:\s+([+-]\d+\.\d+)")
_DICE_SET = re.compile(r"^The dice have been set to (\d) and (\d)\.")
_CUBE = re.compile(r"^\s*\d\.\s+(No double|No redouble|Double, pass|Redouble, pass|Double, take|"
                   r"Redouble, take)\s+([+-]\d+\.\d+)")
_PROPER = re.compile(r"^Proper cube action:\s+(.+?)\s*$")
_MARK = re.compile(r"^Analysis thresholds:")


def text_hints(requests: list[dict], plies: int = 2, timeout: float = 300.0, attempts: int = 2) -> list[dict]:
    """gnubg's printed ``hint`` for each request ``{"position_id", "match_id",
    "dice": [d1, d2] or None}``: ``{"plays": [(play, equity, plies), ...]}`` (dice)
    or ``{"no_double", "double_take", "double_pass", "action"}`` (no dice), in
    the order of ``requests``. Equities as printed (3 decimals). gnubg is given
    ``timeout`` seconds, ``attempts`` times: a gnubg process that answers a test's
    few requests in 3 s was once seen stalled in its thread pool's sleep for 900 s;
    a fresh process answers. Raises ``subprocess.TimeoutExpired`` when none does."""
    lines = ["set display off", "set player 0 human", "set player 1 human", "set beavers 0",
             f"set evaluation chequerplay evaluation plies {plies}",
             f"set evaluation cubedecision evaluation plies {plies}"]
    for req in requests:
        # 'show analysis' prints a fixed header: it marks where each answer starts
        lines += ["show analysis", f"set matchid {req['match_id']}", f"set board {req['position_id']}"]
        if req.get("dice"):
            lines += ["set dice %d%d" % tuple(req["dice"]), "hint 10000"]
        else:
            lines += ["hint"]
    for attempt in range(attempts):
        try:
            out = subprocess.run([GNUBG, "-t", "-q", "-r"], input="\n".join(lines) + "\n", text=True,
                                 capture_output=True, timeout=timeout).stdout
            break
        except subprocess.TimeoutExpired:
            if attempt == attempts - 1:
                raise
    answers: list[dict] = []
    for line in out.splitlines():
        if _MARK.match(line):
            answers.append({"plays": [], "cube": {}})
            continue
        if not answers:
            continue
        current = answers[-1]
        m = _PLAY.match(line)
        if m:
            current["plays"].append((m.group(2).strip(), float(m.group(3)), int(m.group(1))))
            continue
        m = _CUBE.match(line)
        if m:
            name = m.group(1).replace("Redouble", "Double").replace("No double", "no_double")
            key = {"no_double": "no_double", "Double, pass": "double_pass",
                   "Double, take": "double_take"}[name]
            current["cube"][key] = float(m.group(2))
            continue
        m = _PROPER.match(line)
        if m:
            current["cube"]["action"] = m.group(1)
    if len(answers) != len(requests):
        raise RuntimeError(f"gnubg answered {len(answers)} of {len(requests)} requests")
    return answers


def random_requests(seed: int, n: int, with_dice: bool = True) -> list[dict]:
    """``n`` distinct seeded requests: positions and rolls from
    :func:`companion.sampling.sample`, one in three in a match (random length,
    score, cube and owner), the rest money games; ``dice`` ``None`` when
    ``with_dice`` is false (cube decisions)."""
    rng = random.Random(seed)
    out, seen = [], set()
    for pos, dice in sample(seed=seed, n=4 * n, doubles_weight=0.3):
        key = (pos.position_id(), (dice.d1, dice.d2) if with_dice else None)
        if key in seen:
            continue
        seen.add(key)
        if rng.random() < 1 / 3:
            length = rng.choice((3, 5, 7, 9, 11))
            score = (rng.randrange(length), rng.randrange(length))
            cube = rng.choice((1, 1, 2, 4)) if length - max(score) > 1 else 1
            owner = None if cube == 1 else rng.choice((0, 1))
            crawford = cube == 1 and length - max(score) == 1 and rng.random() < 0.5
            match_id = MatchKey(match_to=length, score=score, cube=cube, cube_owner=owner,
                                crawford=crawford, jacoby_off=True).encode()
        else:
            match_id = MatchKey(jacoby_off=True).encode()
        out.append({"position_id": key[0], "match_id": match_id,
                    "dice": list(key[1]) if with_dice else None})
        if len(out) == n:
            break
    return out


_STAT = re.compile(r"^(Unforced moves|Error rate mEMG|Luck rate mEMG|Overall rating|"
                   r"Close or actual cube decisions|Error total EMG)(?: \((?:MWC|Points)\))?"
                   r"\s+(\S+)(?:\s+\([^)]*\))?\s+(\S+)")


def text_match_statistics(mat_path: str, plies: int = 0, timeout: float = 600.0) -> dict:
    """gnubg's printed ``show statistics match`` after ``import mat`` and
    ``analyse match`` at ``plies``: ``{(section, row): (player 0, player 1)}``
    for the rows named in ``_STAT`` (without gnubg's unit, "(MWC)" in a match,
    "(Points)" in a money session; sections ``"chequer"``, ``"luck"``,
    ``"cube"``, ``"overall"``), values as printed (strings)."""
    script = "\n".join(["set display off", f"set analysis chequerplay evaluation plies {plies}",
                        f"set analysis cubedecision evaluation plies {plies}", f"import mat {mat_path}",
                        "analyse match", "show statistics match"]) + "\n"
    out = subprocess.run([GNUBG, "-t", "-q", "-r"], input=script, text=True, capture_output=True,
                         timeout=timeout).stdout
    section, rows = None, {}
    for line in out.splitlines():
        for name, key in (("Chequerplay statistics", "chequer"), ("Luck statistics", "luck"),
                          ("Cube statistics", "cube"), ("Overall statistics", "overall")):
            if line.startswith(name):
                section = key
        m = _STAT.match(line)
        if m and section:
            rows[(section, m.group(1))] = (m.group(2), m.group(3))
    return rows

"""Questions to gnubg in the game's terms: rank the plays of a roll, judge a cube.

:class:`Analyst` turns a Position ID, a roll and the match state into requests
for a :class:`~companion.analysis.engine.GnubgEngine` and its answers into
:class:`~companion.analysis.results.PlayAnalysis` and
:class:`~companion.analysis.results.CubeAnalysis`. The match state travels as a
gnubg Match ID seen from the player on roll (:func:`mover_match_id`), so the
Position ID and the Match ID always agree on who is on roll.
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Sequence

from companion.analysis.engine import GnubgEngine
from companion.analysis.results import CubeAnalysis, PlayAnalysis, RankedPlay
from companion.match_id import MatchKey

#: gnubg's default evaluation depth for the analysis (``hint`` at 2-ply).
DEFAULT_PLIES = 2

#: A money game, centred cube, no Jacoby rule, player 0 on roll.
MONEY_MATCH_ID = MatchKey().encode()


def mover_match_id(match_id: Optional[str], player: int) -> str:
    """The Match ID of ``match_id``'s match as seen by ``player`` (0/1): that
    player becomes player 0 and is on roll, scores and cube owner swap with
    him, no dice rolled, no double or resignation pending. ``None`` gives a
    money game with a centred cube (:data:`MONEY_MATCH_ID`). Raises
    ``companion.match_id.MatchIdError`` (a ``ValueError``) for a malformed ID."""
    if match_id is None:
        return MONEY_MATCH_ID
    key = MatchKey.decode(match_id)
    if player not in (0, 1):
        raise ValueError(f"player is 0 or 1, not {player!r}")
    flip = player == 1
    owner = key.cube_owner if key.cube_owner is None or not flip else 1 - key.cube_owner
    score = (key.score[1], key.score[0]) if flip else key.score
    return dataclasses.replace(key, cube_owner=owner, score=score, dice_owner=0, turn=0,
                               doubled=False, resigned=0, dice=(0, 0), game_state="playing").encode()


class Analyst:
    """gnubg's judgement through ``engine``.

    ``plies``: the evaluation depth (0-4; default 2, gnubg's usual analysis
    setting). Errors: :class:`~companion.analysis.engine.AnalysisUnavailable`
    when gnubg cannot answer, ``ValueError`` when it rejects the position.
    """

    def __init__(self, engine: GnubgEngine, plies: int = DEFAULT_PLIES) -> None:
        if not 0 <= plies <= 4:
            raise ValueError(f"plies is 0 to 4, not {plies}")
        self.engine = engine
        self.plies = plies

    def plays(self, position_id: str, dice: Sequence[int], match_id: str = MONEY_MATCH_ID,
              after: Optional[str] = None) -> PlayAnalysis:
        """Every legal play of ``dice`` (two values 1..6) in ``position_id`` (the
        mover on roll; ``match_id`` from his view, see :func:`mover_match_id`),
        ranked by gnubg, best first; ``after`` (the Position ID after the play
        made, mover still on roll) marks the play made."""
        d1, d2 = (int(d) for d in dice)
        answer = self.engine.request({"op": "play", "position_id": position_id, "match_id": match_id,
                                      "dice": [d1, d2], "plies": self.plies})
        ranked = tuple(
            RankedPlay(play=p["play"], equity=p["equity"], equity_loss=max(0.0, p["equity_loss"]),
                       plies=p["plies"], probs=tuple(p["probs"]), position_id=p["position_id"])
            for p in answer["plays"])
        analysis = PlayAnalysis(position_id=position_id, match_id=match_id, dice=(d1, d2),
                                plies=self.plies, plays=ranked)
        return analysis.with_made(after) if after is not None else analysis

    def cube(self, position_id: str, match_id: str = MONEY_MATCH_ID,
             beavers: bool = False) -> CubeAnalysis:
        """gnubg's cube evaluation of ``position_id`` before the roll of the
        player on roll (``match_id`` from his view); ``beavers``: beavers are
        allowed (money play)."""
        answer = self.engine.request({"op": "cube", "position_id": position_id, "match_id": match_id,
                                      "plies": self.plies, "beavers": bool(beavers)})
        return CubeAnalysis(position_id=position_id, match_id=match_id, plies=self.plies,
                            no_double=answer["no_double"], double_take=answer["double_take"],
                            double_pass=answer["double_pass"], optimal=answer["optimal"],
                            action=answer["action"])

"""Jellyfish .mat import/export: gnubg's own records, the gnubg-checked state
snapshots, and broken records that must give precise errors."""

from __future__ import annotations

import json

import pytest

from companion.mat import MatError, checker_moves, export_mat, import_mat, mat_moves, parse_mat
from companion.match import Match, MatchRules


def _text(shared_data, name):
    return (shared_data / "rules" / name).read_text()


def _case(shared_data, name):
    cases = json.loads((shared_data / "rules" / "match_rule_cases.json").read_text())["cases"]
    return next(c for c in cases if c["name"] == name)


def _states_during_replay(match: Match) -> set[tuple[str, str]]:
    replay = Match.from_config(match.config())
    seen = {(replay.position_id(), replay.match_id())}
    for action in match.actions:
        replay.apply(action)
        seen.add((replay.position_id(), replay.match_id()))
    return seen


def test_gnubg_5pt_record(shared_data):
    result = import_mat(_text(shared_data, "gnubg_export_5pt_match.mat"))
    summary = result.summary()
    assert summary["match_length"] == 5
    assert summary["players"] == ["gnubg", "root"]
    assert summary["final_score"] == [6, 4]
    assert [(g["winner"], g["points"], g["cube"], g["crawford"]) for g in summary["games"]] == [
        (0, 2, 2, False), (1, 4, 2, False), (0, 1, 1, True), (0, 1, 1, False), (0, 2, 1, False),
    ]
    assert [g.kind for g in result.match.games] == ["resign", "resign", "resign", "drop", "gammon"]


def test_gnubg_5pt_record_passes_every_gnubg_snapshot(shared_data):
    """The scripted gnubg match behind the record: every state gnubg showed
    (Position ID + Match ID) is reached while replaying our import."""
    match = import_mat(_text(shared_data, "gnubg_export_5pt_match.mat")).match
    seen = _states_during_replay(match)
    snapshots = _case(shared_data, "crawford_sequence_5pt")["snapshots"]
    missing = [s["tag"] for s in snapshots if (s["position_id"], s["match_id"]) not in seen]
    assert not missing


def test_gnubg_money_record(shared_data):
    text = _text(shared_data, "gnubg_export_money_session.mat")
    # Game 3 was played from an edited position (cube set to 4096): gnubg's own
    # record shows a 64 with no move at the start. That is not a legal game.
    with pytest.raises(MatError) as info:
        import_mat(text)
    assert (info.value.game, info.value.move) == (3, 1)
    assert "illegal play" in str(info.value) and "64" in str(info.value)
    # The first two games are real: double, beaver (no "Takes" written after it),
    # gammon resignation at cube 4, backgammon resignation under Jacoby.
    two_games = text[: text.index(" Game 3")]
    rules = MatchRules(jacoby=True, beavers=1)
    result = import_mat(two_games, rules=rules)
    assert result.match.score == (8, 3)
    assert [(g.winner, g.points, g.cube, g.kind) for g in result.match.games] == [
        (0, 8, 4, "resign"), (1, 3, 1, "resign")]
    seen = _states_during_replay(result.match)
    snapshots = _case(shared_data, "money_session_beaver_jacoby")["snapshots"]
    tags = {s["tag"] for s in snapshots if (s["position_id"], s["match_id"]) in seen}
    assert {"m1-start", "m1-p0-doubled", "m1-p1-beavered", "m1-p0-took-beaver",
            "m1-resign-gammon-offer", "m1-over", "m2-start", "m2-over-jacoby"} <= tags


def test_export_reimports_identically(shared_data):
    first = import_mat(_text(shared_data, "gnubg_export_5pt_match.mat"))
    text = export_mat(first.match)
    second = import_mat(text)
    assert second.summary() == first.summary()
    assert export_mat(second.match) == text
    # gnubg's layout: header, score line columns, move numbers
    lines = text.splitlines()
    assert lines[0] == '; [Crawford "On"]'
    assert lines[2] == " 5 point match"
    assert lines[5] == " gnubg : 0                      root : 0"
    assert lines[6] == "  1)                             52: 13/8 24/22 "


def test_checker_move_forms():
    assert checker_moves("bar/22 6/off") == [(25, 22, False), (6, 0, False)]
    assert checker_moves("24/20*/16") == [(24, 20, True), (20, 16, False)]
    assert mat_moves("8/5(2) 25/23*") == "8/5 8/5 25/23*"
    for bad in ("8/9", "26/20", "8-5", "x/1"):
        with pytest.raises(MatError):
            checker_moves(bad)


FIVE = "gnubg_export_5pt_match.mat"


def _broken(shared_data, old, new, count=1):
    text = _text(shared_data, FIVE)
    assert old in text
    return text.replace(old, new, count)


def _error(text) -> MatError:
    with pytest.raises(MatError) as info:
        import_mat(text)
    return info.value


def test_truncated_record(shared_data):
    text = _text(shared_data, FIVE)
    cut = text[: text.index(" 20) ")]
    err = _error(cut)
    assert err.game == 5 and "truncated" in str(err)
    cut = text[: text.index(" Game 5")]
    err = _error(cut)
    assert "unfinished" in str(err) and "4-4" in str(err)
    # an unfinished record is accepted on request
    assert import_mat(cut, allow_unfinished=True).match.score == (4, 4)
    err = _error(text[: text.index("root : 4") - 12] )
    assert "truncated" in str(err) or "score line" in str(err)


def test_illegal_move_named_precisely(shared_data):
    text = _broken(shared_data, " 9) 41: 25/21 22/21", " 9) 41: 25/21 22/20")
    err = _error(text)
    assert (err.game, err.move) == (5, 9)
    assert "illegal play '25/21 22/20' for 41" in str(err)
    assert str(err).startswith("game 5, move 9, line ")


def test_move_from_empty_point(shared_data):
    err = _error(_broken(shared_data, "  1)                             52: 13/8 24/22",
                         "  1)                             52: 12/7 24/22"))
    assert (err.game, err.move) == (1, 1) and "no checker" in str(err).lower()


def test_double_in_crawford_game(shared_data):
    text = _broken(shared_data, "  2) 51: 13/8 6/5* ", "  2)  Doubles => 2")
    err = _error(text)
    assert (err.game, err.move) == (3, 2)
    assert "Crawford" in str(err)


def test_wrong_points(shared_data):
    text = _broken(shared_data, "      Wins 2 points\n\n Game 2", "      Wins 3 points\n\n Game 2")
    err = _error(text)
    assert err.game == 1 and "3 point" in str(err)
    text = _text(shared_data, FIVE).rstrip().rsplit("\n", 1)[0] + "\n      Wins 4 points\n"
    err = _error(text)
    assert err.game == 5 and "the rules give 2" in str(err)


def test_wrong_score_header(shared_data):
    err = _error(_broken(shared_data, "gnubg : 2                      root : 0\n  1) 51",
                         "gnubg : 1                      root : 0\n  1) 51"))
    assert err.game == 2 and "1-0" in str(err) and "2-0" in str(err)


def test_wrong_cube_value_and_order(shared_data):
    err = _error(_broken(shared_data, "Doubles => 2                Takes", "Doubles => 4                Takes"))
    assert err.game == 1 and "doubles to 4" in str(err)
    err = _error(_broken(shared_data, " 3)  Doubles => 2                Takes",
                         " 3)  Takes                      Takes"))
    assert err.game == 1 and err.move == 3 and "no double is pending" in str(err)


@pytest.mark.parametrize("garbage", [
    "", "hello world\n", "\x00\x01\x02", " 5 point match\n", " 5 point match\n Game 1\n",
    " 5 point match\n Game 1\n a : 0   b : 0\n  1) 52 13/8\n",
    " 5 point match\n Game 1\n a : 0   b : 0\n  1) 52: 13/8 2x/22\n",
    " 5 point match\n Game 1\n a : 0   b : 0\n  2) 52: 13/8 24/22\n",
    " 5 point match\n Game 2\n",
])
def test_garbage_gives_a_clear_error(garbage):
    with pytest.raises(MatError) as info:
        import_mat(garbage)
    message = str(info.value)
    assert message and "\n" not in message


def test_parse_structure(shared_data):
    record = parse_mat(_text(shared_data, FIVE))
    assert record.match_length == 5 and record.players == ("gnubg", "root")
    assert [g.score for g in record.games] == [(0, 0), (2, 0), (2, 4), (3, 4), (4, 4)]
    first = record.games[0].entries[0]
    assert (first.player, first.kind, first.dice, first.moves) == (1, "roll", (5, 2), "13/8 24/22")
    assert record.tags == {"EventDate": "2026.11.20"}


def test_export_refuses_what_mat_cannot_hold():
    match = Match(0, rules=MatchRules(automatic_doubles=1))
    match.opening_roll((3, 3))
    match.opening_roll((3, 1))
    with pytest.raises(MatError, match="automatic double"):
        export_mat(match)
    match = Match(5)
    match.opening_roll((3, 1))
    match.play("8/5 6/5")
    match.roll((6, 6))
    match.set_dice((6, 5))  # a misread roll put right: representable
    match.play("24/18 18/13")
    assert "  1) 31: 8/5 6/5" in export_mat(match)
    assert " 65: 24/18 18/13" in export_mat(match)
    match.roll((2, 1))
    match.set_position("4HPwATDgc/ABMA")  # the board itself overridden: not representable
    with pytest.raises(MatError, match="correction"):
        export_mat(match)


def test_mutated_records_fail_only_with_mat_error(shared_data):
    """Random damage to a real record: accepted (when still a legal match) or a
    one-line MatError, never another exception."""
    import random

    text = _text(shared_data, FIVE)
    rng = random.Random(5)
    outcomes = {"ok": 0, "error": 0}
    for _ in range(400):
        lines = text.split("\n")
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(len(lines))
            line = lines[k]
            op = rng.randrange(5)
            if op == 0:
                del lines[k]
            elif op == 1 and line:
                j = rng.randrange(len(line))
                lines[k] = line[:j] + rng.choice("0123456789/*: abDTW=>\t") + line[j + 1:]
            elif op == 2:
                lines.insert(k, lines[rng.randrange(len(lines))])
            elif op == 3 and line:
                lines[k] = line[: rng.randrange(len(line))]
            elif op == 4:
                lines[k] = line.replace("Takes", "Drops").replace("Wins 1 point", "Wins 2 points")
        try:
            import_mat("\n".join(lines))
            outcomes["ok"] += 1
        except MatError as exc:
            assert "\n" not in str(exc) and str(exc)
            outcomes["error"] += 1
    assert outcomes["error"] > 200


def test_illegal_play_that_stood_is_exported_and_reimported_on_request(shared_data):
    """The referee records an illegal play accepted by the opponent as a correction;
    the record shows its checker moves; a strict import stops there, and
    ``allow_illegal`` keeps it."""
    match = Match(5)
    match.opening_roll((3, 1))
    signed = match.position.to_signed()
    signed[8] -= 1
    signed[6] -= 1
    signed[4] += 2  # 8/4 6/4 with 3-1: illegal
    from companion.position import Position

    illegal = Position.from_signed(signed)
    match.correct(illegal.swap(), on_roll=1, dice=None, reason="illegal play accepted")
    match.roll((6, 5))
    match.play("24/18 18/13")
    text = export_mat(match)
    assert "  1) 31: 8/4 6/4 " in text
    err = _error(text)
    assert (err.game, err.move) == (1, 1) and "illegal play '8/4 6/4' for 31" in str(err)
    again = import_mat(text, allow_illegal=True, allow_unfinished=True).match
    assert again.position_id() == match.position_id() and again.match_id() == match.match_id()


def test_game_without_moves_is_truncation(shared_data):
    text = _text(shared_data, FIVE)
    start = text.index("  1) 51: 13/8 24/23")
    end = text.index(" Game 3")
    err = _error(text[:start] + "\n" + text[end:])
    assert err.game == 2 and "no moves" in str(err)


XG_LAYOUT = '''; [Site "XG Mobile"]
; [Player 1 "Ken"]

3 point match

 Game 1
 Ken : 0                              Robot : 0
  1) 41: 13/9 24/23                   16: 13/7 8/7
  2) 53: 8/3 6/3                      66: 8/2(2) 7/1(2)
  3)  Doubles => 2                     Drops
      Wins 1 point

 Game 2
 Ken : 1                              Robot : 0
  1)                                  31: 8/5 6/5
  2) 21: 13/11 24/23                  64: 24/14*
  3) 55:                              Wins 3 points and the match
'''


def test_other_programs_layout():
    """Wider columns, low die first, (n) repeats, "Wins" on the move line,
    "and the match": the columns are found from the game's score line."""
    result = import_mat(XG_LAYOUT)
    assert result.summary()["final_score"] == [1, 3]
    assert [(g.winner, g.points, g.kind) for g in result.match.games] == [
        (0, 1, "drop"), (1, 3, "resign")]
    # Ken cannot enter against Robot's 5-point anchor... nor may he move 13/3(2)
    err = _error(XG_LAYOUT.replace("  3) 55:  ", "  3) 55: 13/3(2)"))
    assert (err.game, err.move) == (2, 3) and "no checker can move" in str(err)


def test_header_tags_set_the_rules(shared_data):
    text = _text(shared_data, FIVE)
    # a double in game 3 is illegal under the Crawford rule...
    doubled = text.replace("  2) 51: 13/8 6/5* ", "  2)  Doubles => 2                Drops\n"
                                                  "      Wins 1 point\n", 1)
    doubled = doubled[: doubled.index(" Game 4")]
    assert "Crawford" in str(_error(doubled))
    # ...and legal in a match played without it
    result = import_mat('; [Crawford "Off"]\n' + doubled, allow_unfinished=True)
    assert result.match.score == (3, 4) and not result.match.games[2].crawford

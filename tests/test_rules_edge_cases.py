"""Every case of ../shared/data/rules/move_edge_cases.json (checked against gnubg 1.07)."""

from __future__ import annotations

import json

import pytest

from companion.dice import Dice
from companion.legal import legal_plays, plain_legal_results
from companion.position import Position


def _cases(shared_data):
    with open(shared_data / "rules" / "move_edge_cases.json") as fh:
        return json.load(fh)["cases"]


@pytest.fixture(scope="module")
def cases(shared_data):
    return _cases(shared_data)


def test_there_are_thirty_cases(cases):
    assert len(cases) == 30


def test_position_ids_and_signed_boards_round_trip(cases):
    for case in cases:
        pos = Position.from_signed(case["position"])
        assert pos.is_valid(), case["name"]
        assert pos.position_id() == case["position_id"], case["name"]
        assert Position.from_position_id(case["position_id"]) == pos, case["name"]
        assert pos.to_signed() == case["position"], case["name"]


def test_legal_results_equal_gnubg(cases):
    for case in cases:
        pos = Position.from_signed(case["position"])
        plays = legal_plays(pos, Dice(*case["dice"]))
        expected = {Position.from_signed(r) for r in case["legal_results"]}
        assert plays.results == expected, case["name"]
        assert len(plays) == case["n_legal"], case["name"]
        for result in expected:
            assert result in plays, case["name"]


def test_plain_generator_agrees(cases):
    for case in cases:
        pos = Position.from_signed(case["position"])
        expected = {Position.from_signed(r) for r in case["legal_results"]}
        assert plain_legal_results(pos, case["dice"]) == expected, case["name"]


def test_notation_equals_gnubg(cases):
    for case in cases:
        pos = Position.from_signed(case["position"])
        got = sorted(p.notation() for p in legal_plays(pos, Dice(*case["dice"])))
        assert got == sorted(case["gnubg_moves"]), case["name"]


def test_representative_step_sequences_are_legal(cases):
    from companion.play import apply_steps

    for case in cases:
        pos = Position.from_signed(case["position"])
        plays = legal_plays(pos, Dice(*case["dice"]))
        for steps in case["legal_plays"]:
            result = apply_steps(pos, [tuple(s) for s in steps])
            assert result in plays, (case["name"], steps)


def test_illegal_examples_are_not_legal_results(cases):
    from companion.play import apply_steps

    for case in cases:
        pos = Position.from_signed(case["position"])
        plays = legal_plays(pos, Dice(*case["dice"]))
        for steps in case["illegal_examples"]:
            try:
                result = apply_steps(pos, [tuple(s) for s in steps])
            except ValueError:
                continue
            if steps:
                assert result not in plays, (case["name"], steps)

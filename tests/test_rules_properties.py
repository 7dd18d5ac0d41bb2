"""Property tests (hypothesis) of the rulebook."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.dice import Dice
from companion.legal import legal_plays, plain_legal_results
from companion.play import apply_steps, format_pairs, format_steps
from companion.position import Position
from companion.position_id import decode_position_id, encode_position_id
from companion.sampling import KINDS, random_position
from companion.verdict import judge

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def sides(draw):
    """25 places (gnubg numbering) with at most 15 checkers."""
    n = draw(st.integers(0, 15))
    places = draw(st.lists(st.integers(0, 24), min_size=n, max_size=n))
    side = [0] * 25
    for p in places:
        side[p] += 1
    return tuple(side)


@st.composite
def positions(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    kind = draw(st.sampled_from(KINDS))
    return random_position(random.Random(seed), kind)


dice = st.tuples(st.integers(1, 6), st.integers(1, 6)).map(lambda t: Dice(*t))


@SETTINGS
@given(sides(), sides())
def test_position_id_round_trips(a, b):
    pid = encode_position_id(a, b)
    assert len(pid) == 14
    assert decode_position_id(pid) == (a, b)


@SETTINGS
@given(positions())
def test_position_round_trips(pos):
    assert Position.from_position_id(pos.position_id()) == pos
    assert Position.from_signed(pos.to_signed()) == pos
    assert pos.swap().swap() == pos
    assert pos.swap().pip_count() == pos.pip_count()[::-1]


@SETTINGS
@given(positions(), dice)
def test_every_legal_play_gives_a_valid_position(pos, roll):
    plays = legal_plays(pos, roll)
    results = set()
    for play in plays:
        result = play.result
        assert result.status() == 0 and result.count() == (15, 15)
        assert result.off()[0] < 15 or not any(result.mover[1:])  # won only by bearing off
        assert play.apply_unchecked(pos) == result
        assert result in plays
        assert len(play.moves) == plays.max_moves
        assert sum(m.distance for m in play.moves) <= sum(roll.moves)
        results.add(result)
    assert len(results) == len(plays)


@SETTINGS
@given(positions(), dice)
def test_fast_generator_equals_plain_generator(pos, roll):
    assert legal_plays(pos, roll).results == plain_legal_results(pos, roll)


@SETTINGS
@given(positions(), dice)
def test_listing_equals_plays_and_their_positions(pos, roll):
    plays = legal_plays(pos, roll)
    expected = sorted((play.notation(), play.result.position_id()) for play in plays)
    notations: dict = {}
    assert plays.listing(notations) == expected
    assert plays.listing(notations) == expected  # from the memo this time


@SETTINGS
@given(st.lists(st.tuples(st.integers(1, 25), st.integers(1, 25), st.booleans()),
                min_size=1, max_size=4))
def test_format_steps_equals_format_pairs(raw):
    steps: list[int] = []
    hits = 0
    for k, (s, d, hit) in enumerate(raw):
        t = max(0, s - d)
        steps += [s, t]
        if hit and t:
            hits |= 1 << (2 * k)
    pairs = list(zip(steps[::2], steps[1::2]))
    hit_points = {t for k, (_, t) in enumerate(pairs) if hits >> (2 * k) & 1}
    assert format_steps(tuple(steps), hits) == format_pairs(pairs, hit_points)


@SETTINGS
@given(positions(), dice, st.data())
def test_proper_prefixes_are_in_progress(pos, roll, data):
    plays = legal_plays(pos, roll)
    if not plays:
        assert judge(pos, roll, pos).kind == "no_change"
        return
    play = data.draw(st.sampled_from(list(plays)))
    steps = [(m.from_point, m.to_point) for m in play.moves]
    for k in range(1, len(steps)):
        partial = apply_steps(pos, steps[:k])
        verdict = judge(pos, roll, partial, plays=plays)
        if partial in plays:  # 4/off with the 4 equals 4/2 2/off: already a legal play
            assert verdict.kind == "legal"
            continue
        assert verdict.kind == "in_progress", (pos, roll, play, k)
        done = judge(pos, roll, partial, complete=True, plays=plays)
        assert done.kind == "illegal" and done.reasons
    assert judge(pos, roll, play.result, plays=plays).kind == "legal"


@SETTINGS
@given(positions(), dice, st.lists(st.tuples(st.integers(1, 25), st.integers(0, 6)),
                                   min_size=1, max_size=4))
def test_random_steps_outside_the_legal_set_are_never_legal(pos, roll, raw):
    steps = [(s, max(0, s - d) if d else max(0, s - roll.d1)) for s, d in raw]
    try:
        after = apply_steps(pos, steps, allow_held=True)
    except ValueError:
        return
    verdict = judge(pos, roll, after)
    legal = plain_legal_results(pos, roll)
    if after in legal:
        assert verdict.kind == "legal"
    else:
        assert verdict.kind != "legal"
        if verdict.kind == "illegal":
            assert verdict.reasons


@SETTINGS
@given(positions(), dice, st.lists(st.tuples(st.booleans(), st.integers(0, 25), st.integers(-2, 2)),
                                   min_size=1, max_size=5))
def test_misread_boards_are_judged_never_raised(pos, roll, edits):
    """Any board vision might report (checkers added, removed, both colours on a
    point) gets a verdict with reasons, never an exception."""
    mover, opponent = list(pos.mover), list(pos.opponent)
    for is_mover, place, delta in edits:
        side = mover if is_mover else opponent
        side[place] = max(0, side[place] + delta)
    seen = Position(tuple(mover), tuple(opponent))
    verdict = judge(pos, roll, seen)
    assert verdict.kind in ("legal", "illegal", "in_progress", "no_change")
    if seen.status():
        assert verdict.kind == "illegal" and verdict.reasons
    if verdict.kind == "illegal":
        assert all(r.message for r in verdict.reasons)
        assert set(verdict.to_dict()) == {"verdict", "play", "reasons", "closest_legal"}

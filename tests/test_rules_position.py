"""Position, Position ID and Dice."""

from __future__ import annotations

import pytest

from companion.dice import Dice, DiceError
from companion.position import Position, PositionError, PositionStatus
from companion.position_id import PositionIdError


def test_initial_position():
    pos = Position.initial()
    assert pos.position_id() == "4HPwATDgc/ABMA"
    assert pos.pip_count() == (167, 167)
    assert pos.off() == (0, 0)
    assert pos.bar() == (0, 0)
    assert pos.status() == PositionStatus.VALID
    assert pos.swap() == pos
    assert pos.to_signed()[6] == 5 and pos.to_signed()[19] == -5


def test_gnubg_manual_examples_decode():
    # gnubg's own IDs: the opening position after 31 played 8/5 6/5 is
    # encoded with the player who just moved (not on roll) first.
    pos = Position.from_signed([0, -2, 0, 0, 0, 2, 4, 0, 2, 0, 0, 0, -5, 5, 0, 0, 0,
                                -3, 0, -5, 0, 0, 0, 0, 2, 0])
    assert Position.from_position_id(pos.position_id()) == pos
    assert pos.swap().swap() == pos
    assert pos.swap().position_id() != pos.position_id()


def test_swap_is_the_other_players_view():
    pos = Position.from_signed([-1, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0,
                                -3, 0, -4, 0, 0, 0, 0, 2, 1])
    other = pos.swap()
    assert other.bar() == (1, 1)
    assert other.to_signed()[24] == 2  # the opponent's 24-point (our 1-point)
    assert other.pip_count() == tuple(reversed(pos.pip_count()))


@pytest.mark.parametrize("bad", ["", "4HPwATDgc/ABM", "4HPwATDgc/ABMAx", "4HPwATDgc/AB!A",
                                 "//////////////", "4HPwATDgc/ABM_"])
def test_malformed_position_ids_raise(bad):
    with pytest.raises(PositionIdError):
        Position.from_position_id(bad)
    assert issubclass(PositionIdError, ValueError)


def test_position_id_key_problems_raise():
    import base64

    def pid(key: int) -> str:
        return base64.b64encode(key.to_bytes(10, "little")).decode()[:14]

    start = Position.initial().position_id()
    key = int.from_bytes(base64.b64decode(start + "=="), "little")
    assert pid(key) == start
    with pytest.raises(PositionIdError, match="stray bits"):
        Position.from_position_id(pid(1 << 79))  # no checkers, then a 1 bit
    with pytest.raises(PositionIdError, match="too many checkers"):
        Position.from_position_id(pid((1 << 80) - 1))
    sixteen = (1 << 16) - 1  # 16 checkers on the first place of the player not on roll
    with pytest.raises(PositionIdError, match="16 checkers"):
        Position.from_position_id(pid(sixteen))


def test_position_id_with_sixteen_checkers_raises():
    from companion.position_id import encode_position_id

    with pytest.raises(PositionIdError):
        encode_position_id((16,) + (0,) * 24, (15,) + (0,) * 24)


def test_status_names_problems_without_raising():
    signed = Position.initial().to_signed()
    signed[6] = 6  # 16 checkers for the mover
    assert Position.from_signed(signed).status() & PositionStatus.MOVER_TOO_MANY
    few = Position(mover=(0,) + (0,) * 5 + (5,) + (0,) * 19, opponent=Position.initial().opponent)
    assert few.status() == PositionStatus.MOVER_TOO_FEW
    both = Position(mover=Position.initial().mover,
                    opponent=tuple(1 if i == 19 else v for i, v in enumerate(
                        Position.initial().opponent[:-1])) + (0,))
    # opponent point 19 is our point 6, where we have 5 checkers
    assert both.status() & PositionStatus.BOTH_COLOURS_ON_POINT
    assert "point 6" in " ".join(both.describe_status())


def test_both_closed_out_and_finished_games():
    side = [0] * 26
    for p in range(1, 7):
        side[p] = 2
    side[25] = 1
    side[0] = 2
    pos = Position(tuple(side), tuple(side))
    assert pos.status() & PositionStatus.BOTH_CLOSED_OUT
    done = [0] * 26
    done[0] = 15
    over = Position(tuple(done), Position.initial().opponent)
    assert over.status() == PositionStatus.VALID and over.is_game_over()
    assert Position(tuple(done), tuple(done)).status() == PositionStatus.BOTH_BORNE_OFF


def test_bad_shapes_raise_value_errors():
    with pytest.raises(PositionError):
        Position((0,) * 25, (0,) * 26)
    with pytest.raises(PositionError):
        Position.from_signed([0] * 25)
    with pytest.raises(ValueError):
        Position((-1,) + (0,) * 25, (0,) * 26)


def test_diagram_shows_both_sides():
    text = Position.initial().diagram()
    assert "Pips: X 167, O 167" in text
    assert text.count("X") >= 15
    assert len(text.splitlines()) == 16


def test_repr_round_trips():
    pos = Position.from_signed([0, -2, 0, 0, 0, 2, 4, 0, 2, 0, 0, 0, -5, 5, 0, 0, 0,
                                -3, 0, -5, 0, 0, 0, 0, 2, 0])
    assert eval(repr(pos), {"Position": Position}) == pos
    odd = Position((0,) * 26, Position.initial().opponent)
    assert eval(repr(odd), {"Position": Position}) == odd


def test_dice():
    assert Dice(3, 1).moves == (3, 1)
    assert Dice(1, 3).moves == (3, 1)
    assert Dice(5, 5).moves == (5, 5, 5, 5)
    assert Dice(5, 5).is_double and not Dice(5, 4).is_double
    assert Dice.parse("6-4") == Dice(6, 4)
    for bad in [(0, 1), (7, 1), (1, 3.0), (True, 2)]:
        with pytest.raises(DiceError):
            Dice(*bad)
    with pytest.raises(ValueError):
        Dice.parse("61x")


def test_checked_play():
    from companion.legal import IllegalPlayError, apply_play

    start = Position.initial()
    after = apply_play(start, "8/5 6/5", Dice(3, 1))
    assert after.mover[5] == 2 and after.swap().opponent[5] == 2
    with pytest.raises(IllegalPlayError):
        apply_play(start, "8/5", Dice(3, 1))  # the 1 can be played too
    with pytest.raises(IllegalPlayError):
        apply_play(start, "24/19", Dice(5, 2))  # lands on the opponent's 6-point
    with pytest.raises(ValueError):
        apply_play(start, "13/8 13/11", Dice(6, 4))

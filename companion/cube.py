"""The doubling cube: value, owner, a pending double, beavers and raccoons.

A :class:`Cube` is a small frozen value; every action returns a new cube or
raises :class:`CubeError` with the rule that forbids it. What the cube cannot
know by itself (whose turn it is, whether the dice are already rolled, the
Crawford game) is passed in by the caller, normally :class:`companion.match.Match`.

Rules implemented (written rules as in the USBGF/WBF tournament rules; cube
mechanics and limits as in GNU Backgammon 1.07, ``match_rule_cases.json``):

* A double is legal only at the start of the doubler's own turn, before rolling,
  with the cube centred or owned by the doubler, never in the Crawford game, and
  not beyond the maximum cube value (gnubg: 4096).
* The doubled player takes (and then owns the cube at twice its value), drops
  (the doubler wins the cube's value *before* the double), or, in money play with
  beavers allowed, beavers: takes and immediately redoubles, keeping the cube.
  The original doubler may answer a beaver with a raccoon (another beaver),
  up to ``CubeRules.beavers`` beavers per double.
* Ownership after a beaver follows gnubg 1.07: the first beaverer owns the cube
  once the beaver is taken (a raccoon does not move the ownership).
"""

from __future__ import annotations

import dataclasses
from typing import Optional

#: gnubg's MAX_CUBE (1 << 12).
MAX_CUBE = 4096


class CubeError(ValueError):
    """An illegal cube action; the message names the rule."""


@dataclasses.dataclass(frozen=True)
class CubeRules:
    """Cube options of a match or money session.

    ``money``: money play (beavers, Jacoby and automatic doubles only apply there).
    ``beavers``: how many beavers (the 2nd is a raccoon, ...) a double may receive;
    0 forbids beavers (gnubg ``set beavers N``). ``jacoby``: gammons and
    backgammons count only after the cube has been turned (money play).
    ``automatic_doubles``: how many equal opening rolls double the cube
    (the cube stays centred; money play; 0 = off). ``max_cube``: the largest
    cube value allowed (a double beyond it is refused).
    """

    money: bool = False
    beavers: int = 0
    jacoby: bool = False
    automatic_doubles: int = 0
    max_cube: int = MAX_CUBE

    def __post_init__(self) -> None:
        if self.beavers < 0 or self.automatic_doubles < 0:
            raise ValueError("beavers and automatic_doubles must be >= 0")
        if self.max_cube < 1 or self.max_cube & (self.max_cube - 1):
            raise ValueError(f"max_cube must be a power of two, got {self.max_cube}")


@dataclasses.dataclass(frozen=True)
class Cube:
    """The doubling cube.

    ``value``: the agreed stake (1, 2, 4, ...; a pending double is *not* in it).
    ``owner``: 0, 1 or ``None`` (centred). ``responder``: the player who must
    answer a pending double or beaver (take, drop, beaver), or ``None``.
    ``beavers``: beavers made on the pending double so far.
    """

    value: int = 1
    owner: Optional[int] = None
    responder: Optional[int] = None
    beavers: int = 0

    def __post_init__(self) -> None:
        if self.value < 1 or self.value & (self.value - 1):
            raise CubeError(f"cube value must be a power of two, got {self.value}")
        if self.owner not in (None, 0, 1) or self.responder not in (None, 0, 1):
            raise CubeError("cube owner and responder must be 0, 1 or None")

    @property
    def offered(self) -> bool:
        """True while a double (or beaver) waits for an answer."""
        return self.responder is not None

    @property
    def centred(self) -> bool:
        """True when nobody owns the cube."""
        return self.owner is None

    @property
    def pending_value(self) -> int:
        """The stake if the pending double is taken (``value`` when none is pending)."""
        return self.value * 2 if self.offered else self.value

    def double_error(
        self,
        player: int,
        *,
        on_roll: int,
        rolled: bool,
        crawford: bool,
        rules: CubeRules,
    ) -> Optional[str]:
        """Why ``player`` may not double now, or ``None`` if the double is legal.

        ``on_roll``: the player whose turn it is; ``rolled``: whether that player
        has already rolled this turn; ``crawford``: this is the Crawford game.
        """
        if self.offered:
            return "a double is already waiting for an answer"
        if player != on_roll:
            return "a player may double only on his own turn"
        if rolled:
            return "a double must be offered before rolling"
        if crawford:
            return "no doubling in the Crawford game"
        if self.owner is not None and self.owner != player:
            return "the opponent owns the cube"
        if self.value * 2 > rules.max_cube:
            return f"the cube is at its maximum value ({rules.max_cube})"
        return None

    def double(
        self, player: int, *, on_roll: int, rolled: bool, crawford: bool, rules: CubeRules
    ) -> "Cube":
        """``player`` doubles; returns the cube with the double pending.

        Raises :class:`CubeError` when the double is illegal (see :meth:`double_error`).
        """
        reason = self.double_error(
            player, on_roll=on_roll, rolled=rolled, crawford=crawford, rules=rules
        )
        if reason:
            raise CubeError(reason)
        return dataclasses.replace(self, responder=1 - player, beavers=0)

    def _check_responder(self, player: int, action: str) -> None:
        if not self.offered:
            raise CubeError(f"cannot {action}: no double is pending")
        if player != self.responder:
            raise CubeError(f"cannot {action}: player {self.responder} must answer the double")

    def take(self, player: int) -> "Cube":
        """``player`` takes the pending double (or beaver); the stake doubles.

        The taker owns the cube, except after a beaver, when the first beaverer
        keeps it (gnubg 1.07). Raises :class:`CubeError` if ``player`` is not the
        one to answer.
        """
        self._check_responder(player, "take")
        owner = player if self.beavers == 0 else self.owner
        return Cube(value=self.value * 2, owner=owner, responder=None, beavers=0)

    def drop(self, player: int) -> int:
        """``player`` drops; returns the points the opponent wins (the stake before the double).

        Raises :class:`CubeError` if ``player`` is not the one to answer.
        """
        self._check_responder(player, "drop")
        return self.value

    def beaver_error(self, player: int, rules: CubeRules) -> Optional[str]:
        """Why ``player`` may not beaver (or raccoon) now, or ``None`` if he may."""
        if not self.offered:
            return "cannot beaver: no double is pending"
        if player != self.responder:
            return f"cannot beaver: player {self.responder} must answer the double"
        if not rules.money:
            return "beavers are allowed in money play only"
        if self.beavers >= rules.beavers:
            if rules.beavers == 0:
                return "beavers are not allowed"
            return f"at most {rules.beavers} beaver(s) per double"
        if self.value * 4 > rules.max_cube:
            return f"the cube would exceed its maximum value ({rules.max_cube})"
        return None

    def beaver(self, player: int, rules: CubeRules) -> "Cube":
        """``player`` beavers (or raccoons): takes and redoubles at once, keeping the cube.

        The stake doubles and the other player must now take, drop or raccoon.
        Raises :class:`CubeError` when not allowed (see :meth:`beaver_error`).
        """
        reason = self.beaver_error(player, rules)
        if reason:
            raise CubeError(reason)
        owner = player if self.beavers == 0 else self.owner
        return Cube(value=self.value * 2, owner=owner, responder=1 - player, beavers=self.beavers + 1)

    def automatic_double(self, rules: CubeRules, count: int) -> "Cube":
        """The cube after an equal opening roll: doubled and still centred when
        automatic doubles are on (money play) and ``count`` (doubles so far this
        game) is below the limit; otherwise unchanged."""
        if rules.money and count < rules.automatic_doubles and self.value * 2 <= rules.max_cube:
            return Cube(value=self.value * 2)
        return self

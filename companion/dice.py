"""The dice of one roll.

Standard library only.
"""

from __future__ import annotations

import dataclasses

__all__ = ["Dice", "DiceError"]


class DiceError(ValueError):
    """Die values outside 1..6 (or not integers)."""


@dataclasses.dataclass(frozen=True)
class Dice:
    """Two dice, ``d1`` and ``d2``, each an int in 1..6; order as rolled.

    Doubles give four checker moves of the same value (standard rules).
    Raises :class:`DiceError` (a ``ValueError``) for other values.

    >>> Dice(3, 1).moves
    (3, 1)
    >>> Dice(4, 4).moves
    (4, 4, 4, 4)
    >>> Dice(7, 1)
    Traceback (most recent call last):
    ...
    companion.dice.DiceError: a die shows 1..6, not 7
    """

    d1: int
    d2: int

    def __post_init__(self) -> None:
        for value in (self.d1, self.d2):
            if isinstance(value, bool) or not isinstance(value, int):
                raise DiceError(f"a die value is an integer 1..6, not {value!r}")
            if not 1 <= value <= 6:
                raise DiceError(f"a die shows 1..6, not {value}")

    @classmethod
    def parse(cls, text: str) -> "Dice":
        """``"31"``, ``"3 1"``, ``"3-1"`` or ``"3,1"`` -> ``Dice(3, 1)``; raises :class:`DiceError`."""
        digits = [c for c in str(text) if not c.isspace() and c not in "-,"]
        if len(digits) != 2 or not all(c.isdigit() for c in digits):
            raise DiceError(f"dice are two digits 1..6, not {text!r}")
        return cls(int(digits[0]), int(digits[1]))

    @property
    def is_double(self) -> bool:
        """True for doubles (both dice the same)."""
        return self.d1 == self.d2

    @property
    def moves(self) -> tuple[int, ...]:
        """The die values to play: four for doubles, else the two dice, higher first."""
        if self.d1 == self.d2:
            return (self.d1,) * 4
        return (max(self.d1, self.d2), min(self.d1, self.d2))

    @property
    def high(self) -> int:
        """The higher die."""
        return max(self.d1, self.d2)

    @property
    def low(self) -> int:
        """The lower die."""
        return min(self.d1, self.d2)

    def as_list(self) -> list[int]:
        """``[d1, d2]`` as rolled (the JSON form)."""
        return [self.d1, self.d2]

    def __str__(self) -> str:
        return f"{self.d1}{self.d2}"

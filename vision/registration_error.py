"""The error of board registration, shared by the registration and the board finder.

Standard library only.
"""

from __future__ import annotations

__all__ = ["RegistrationError"]


class RegistrationError(ValueError):
    """The board could not be registered (bad corners, no board found, bad profile)."""

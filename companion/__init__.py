"""The backgammon table companion: rules, referee, match and command line.

The rules modules (position, dice, plays, legal plays, verdicts, cube, match)
import nothing outside the Python standard library.
"""

__version__ = "0.1.0"

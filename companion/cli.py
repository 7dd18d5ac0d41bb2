"""The ``companion`` command line: one argparse parser, sub-commands from modules.

Errors a user can cause (bad files, malformed IDs, bad options) are reported as
one line on standard error with a non-zero exit code, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from companion import __version__

#: Modules that contribute sub-commands; each has ``register(subparsers)``.
COMMAND_MODULES: tuple[str, ...] = (
    "companion.commands.rules",
    "companion.commands.match",
    "companion.commands.leds",
    "companion.commands.analyse",
    "vision.commands",
    "vision.dice_commands",
    "companion.commands.watch",
    "companion.commands.hub",
)


class UserError(Exception):
    """A mistake in the user's input: reported as one line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    """Build the full ``companion`` parser with every registered sub-command."""
    parser = argparse.ArgumentParser(
        prog="companion",
        description="The backgammon table companion: a camera referee for a real board.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 success, 1 failure, 2 usage)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args) or 0)
    except UserError as exc:
        print(f"companion {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"companion {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    # run as ``python -m companion.cli``: this file is then ``__main__``, and the commands raise
    # ``companion.cli.UserError``, a different class from this copy's; the imported module's
    # ``main`` catches it
    from companion.cli import main as _main

    sys.exit(_main())

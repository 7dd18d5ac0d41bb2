"""Sub-commands of the ``companion`` command line.

Each command module exposes ``register(subparsers)`` which adds its sub-commands
to an ``argparse`` sub-parser collection and sets ``func`` on each parser: a
callable ``func(args) -> int`` returning the process exit code. Command modules
import heavy libraries (OpenCV, Flask, pyserial) inside their handlers, never at
module level, so ``companion legal-plays`` starts fast.
"""

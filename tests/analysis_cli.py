"""Helpers of the ``companion analyse`` / ``match analyse`` tests: a skip without gnubg, and the
command line run in this process."""

from __future__ import annotations

import pathlib

import pytest

from gnubg_text_hint import GNUBG


@pytest.fixture(autouse=True)
def need_gnubg():
    """Skips a test when GNU Backgammon is not installed (a module that imports this fixture
    gets it for every test; ``.ci/run`` installs gnubg)."""
    if not pathlib.Path(GNUBG).exists():
        pytest.skip("GNU Backgammon is not installed (.ci/run installs it)")


def run_companion(capsys, *argv: str) -> tuple[int, str, str]:
    """Run ``companion ARGV...`` in this process; (exit code, stdout, stderr)."""
    from companion.cli import main

    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err

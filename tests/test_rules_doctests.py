"""The docstring examples of the rules modules run as tests."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["companion.position", "companion.position_id", "companion.dice", "companion.play",
           "companion.legal", "companion.verdict"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0

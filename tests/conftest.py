"""Shared fixtures: where ``../shared/data`` is, and skips when it is absent."""

from __future__ import annotations

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _shared_data() -> pathlib.Path:
    env = os.environ.get("COMPANION_SHARED_DATA")
    if env:
        return pathlib.Path(env)
    # The main clone sits beside shared/; worktrees may sit one level deeper.
    for base in (ROOT.parent, ROOT.parent.parent):
        candidate = base / "shared" / "data"
        if candidate.is_dir():
            return candidate
    return ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> pathlib.Path:
    """``../shared/data`` (override with ``COMPANION_SHARED_DATA``); skips if absent."""
    path = _shared_data()
    if not path.is_dir():
        pytest.skip(f"shared test data not found at {path}")
    return path


@pytest.fixture(scope="session")
def repo_root() -> pathlib.Path:
    """The project's root folder."""
    return ROOT


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium driven by Playwright (``tests/web_chromium.py``), one per
    test module; raises ``FileNotFoundError`` when it is not installed (``.ci/run`` installs it)."""
    from playwright.sync_api import sync_playwright

    from web_chromium import launch_chromium

    with sync_playwright() as p:
        browser = launch_chromium(p)
        yield browser
        browser.close()

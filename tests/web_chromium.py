"""Launching Debian's headless Chromium through Playwright, for the dashboard's browser
tests and benchmarks (never a browser build of Playwright's own: ``.ci/run`` installs
Debian's ``chromium``)."""

from __future__ import annotations

import contextlib
import pathlib

#: Debian's Chromium, installed by ``.ci/run``.
CHROMIUM = pathlib.Path("/usr/bin/chromium")

#: Flags for a root, headless, offline machine: no sandbox (root), no GPU, and no
#: background connections that the closed network would refuse.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launch_chromium(playwright):
    """Launch headless Chromium from a started ``sync_playwright()`` object.

    Raises ``FileNotFoundError`` when Debian's Chromium is not installed.
    """
    if not CHROMIUM.exists():
        raise FileNotFoundError(f"Chromium is not installed at {CHROMIUM} (.ci/run installs it)")
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


@contextlib.contextmanager
def page_without_errors(browser, **context_options):
    """A new page in a new browser context (``context_options`` go to ``browser.new_context``,
    e.g. ``viewport``); on leaving, the context is closed and the page must have raised no
    script error (``AssertionError`` listing them otherwise)."""
    context = browser.new_context(**context_options)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield page
    finally:
        context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"

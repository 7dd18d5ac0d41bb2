"""Launching Debian's headless Chromium through Playwright, for the dashboard's browser
tests and benchmarks (never a browser build of Playwright's own: ``.ci/run`` installs
Debian's ``chromium``)."""

from __future__ import annotations

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

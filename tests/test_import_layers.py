"""The floors of the house, checked from the source: imports run one way, no circles.

Floors, bottom up (a module imports only from its own floor or the ones below):

1. ``core``: the rules and the match (positions, dice, plays, legal plays, verdicts,
   cube, scoring, match, match records, the observation handed up by vision, the
   event bus). Standard library only.
2. ``vision``: pixels to an ``Observation`` of the core.
3. ``referee``: the referee, the session and what they keep (stability filter,
   idle dice, the match log, the table); the analysis service sits here, beside
   the referee.
4. ``outlet``: what shows or sends the session's events: the dashboard (``web``),
   the LED board (``firmware_bridge``), the terminal, the MQTT hub.
   ``web`` and ``firmware_bridge`` never import each other, and outlets never
   import ``vision``.
5. ``application``: the command line, its sub-commands and the ``watch``
   composition root (with the built-in demo recording).

Every module of ``companion``, ``vision``, ``web`` and ``firmware_bridge`` must match
a pattern of :data:`FLOOR_OF`: a new module gets its floor there.
"""

from __future__ import annotations

import fnmatch
import pathlib
import sys

import pytest

from import_graph import circles, external_imports, import_graph, modules_of

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("companion", "vision", "web", "firmware_bridge")
FLOORS = ("core", "vision", "referee", "outlet", "application")

#: (fnmatch pattern on the dotted module name, floor); the first match counts.
FLOOR_OF: tuple[tuple[str, str], ...] = (
    # application: the command line and the watch composition root
    ("companion.__main__", "application"),
    ("companion.cli", "application"),
    ("companion.commands", "application"),
    ("companion.commands.*", "application"),
    ("companion.demo", "application"),
    ("companion.room_settings", "application"),
    ("vision.commands", "application"),
    ("vision.dice_commands", "application"),
    # outlets
    ("web", "outlet"),
    ("web.*", "outlet"),
    ("firmware_bridge", "outlet"),
    ("firmware_bridge.*", "outlet"),
    ("companion.terminal", "outlet"),
    ("companion.hub_*", "outlet"),
    ("companion.mqtt_client", "outlet"),
    # the referee, the session, and the analysis service beside them
    ("companion.referee", "referee"),
    ("companion.referee_settings", "referee"),
    ("companion.roll_rules", "referee"),
    ("companion.roll_revision", "referee"),
    ("companion.likelihood", "referee"),
    ("companion.judgement", "referee"),
    ("companion.idle_dice", "referee"),
    ("companion.stability", "referee"),
    ("companion.table", "referee"),
    ("companion.session", "referee"),
    ("companion.session_api", "referee"),
    ("companion.match_log", "referee"),
    ("companion.scripted_game", "referee"),
    ("companion.analysis", "referee"),
    ("companion.analysis.*", "referee"),
    # vision
    ("vision", "vision"),
    ("vision.*", "vision"),
    # the rules and match core
    ("companion", "core"),
    ("companion.position", "core"),
    ("companion.position_id", "core"),
    ("companion.dice", "core"),
    ("companion.play", "core"),
    ("companion.legal", "core"),
    ("companion.verdict", "core"),
    ("companion.sampling", "core"),
    ("companion.cube", "core"),
    ("companion.scoring", "core"),
    ("companion.match", "core"),
    ("companion.match_id", "core"),
    ("companion.mat", "core"),
    ("companion.observation", "core"),
    ("companion.bus", "core"),
    ("companion.events", "core"),
)

#: Outlet packages that stay independent of one another.
INDEPENDENT_OUTLETS = ("web", "firmware_bridge")

#: Circles still to break (sets of modules). The test fails when one of them is
#: gone as well, so that the entry is removed and the list only shrinks.
OPEN_CIRCLES: tuple[frozenset[str], ...] = ()


def floor_of(module: str) -> str | None:
    """The floor of ``module`` by :data:`FLOOR_OF`, or ``None`` when none matches."""
    for pattern, floor in FLOOR_OF:
        if fnmatch.fnmatchcase(module, pattern):
            return floor
    return None


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """``"a (floor) -> b (floor)"`` for each import of a higher floor, of another
    independent outlet package, or of vision by an outlet."""
    rank = {floor: i for i, floor in enumerate(FLOORS)}
    out = []
    for module, targets in sorted(graph.items()):
        here = floor_of(module)
        for target in sorted(targets):
            there = floor_of(target)
            if here is None or there is None:
                continue
            top, other = module.split(".")[0], target.split(".")[0]
            if (rank[there] > rank[here]
                    or (here == "outlet" and there == "vision")
                    or (top != other and top in INDEPENDENT_OUTLETS
                        and other in INDEPENDENT_OUTLETS)):
                out.append(f"{module} ({here}) -> {target} ({there})")
    return out


@pytest.fixture(scope="module")
def modules() -> dict[str, pathlib.Path]:
    return modules_of(ROOT, PACKAGES)


@pytest.fixture(scope="module")
def graph(modules) -> dict[str, set[str]]:
    return import_graph(modules)


def test_every_module_has_a_floor(modules):
    missing = [m for m in modules if floor_of(m) is None]
    assert not missing, f"give these modules a floor in FLOOR_OF: {missing}"


def test_imports_run_one_way(graph):
    wrong = upward_imports(graph)
    assert not wrong, "imports against the floors:\n" + "\n".join(wrong)


def test_no_import_circles(graph):
    found = {frozenset(c) for c in circles(graph)}
    new = [sorted(c) for c in found if c not in OPEN_CIRCLES]
    assert not new, f"import circles: {new}"
    gone = [sorted(c) for c in OPEN_CIRCLES if c not in found]
    assert not gone, f"these circles are broken now: remove them from OPEN_CIRCLES: {gone}"


def test_core_imports_only_the_standard_library(modules):
    outside = {m: sorted(external_imports(modules, m) - set(sys.stdlib_module_names))
               for m in modules if floor_of(m) == "core"}
    outside = {m: names for m, names in outside.items() if names}
    assert not outside, f"the core imports beyond the standard library: {outside}"


def test_the_checks_find_circles_and_upward_imports(tmp_path):
    pkg = tmp_path / "companion"
    (pkg / "commands").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "commands" / "__init__.py").write_text("")
    (pkg / "commands" / "rules.py").write_text("from companion.legal import legal_plays\n")
    (pkg / "position.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from companion.referee import Referee\n"
        "def play():\n    from companion.legal import legal_plays\n")
    (pkg / "legal.py").write_text("from companion import position\nimport numpy\n")
    (pkg / "dice.py").write_text("from companion.commands import rules\n")
    (pkg / "referee.py").write_text("from . import dice\n")
    modules = modules_of(tmp_path, ["companion"])
    graph = import_graph(modules)
    assert graph["companion.position"] == {"companion.legal"}  # the lazy import counts, not the typing one
    assert graph["companion.referee"] == {"companion.dice"}
    assert circles(graph) == [{"companion.position", "companion.legal"}]
    assert upward_imports(graph) == [
        "companion.dice (core) -> companion.commands.rules (application)"]
    assert external_imports(modules, "companion.legal") == {"numpy"}

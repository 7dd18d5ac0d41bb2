"""The import graph of the project's packages, read from the source with ``ast``.

Every ``import`` and ``from ... import`` counts, at module level or inside a
function (a lazy import is still a dependency); imports under
``if TYPE_CHECKING:`` do not (they exist for type checkers only). ``from pkg
import name`` depends on ``pkg.name`` when that is a module of the tree, else on
``pkg``. Standard library only.
"""

from __future__ import annotations

import ast
import pathlib
from typing import Iterable

__all__ = ["modules_of", "import_graph", "external_imports", "circles"]


def modules_of(root: pathlib.Path, packages: Iterable[str]) -> dict[str, pathlib.Path]:
    """Dotted module name -> source file for every ``.py`` file of ``packages``
    (folders under ``root``); a package's ``__init__.py`` is the package's name."""
    out = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            ids.update(id(sub) for stmt in node.body for sub in ast.walk(stmt))
    return ids


def _imported_names(module: str, path: pathlib.Path, tree: ast.AST) -> Iterable[tuple[str, bool]]:
    """``(dotted name, is_from_import_of_a_name)`` of each runtime import."""
    skip = _type_checking_nodes(tree)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, False
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package[:len(package) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            for alias in node.names:
                yield f"{base}.{alias.name}", True


def _resolve(name: str, modules: dict[str, pathlib.Path], from_name: bool) -> str | None:
    if from_name and name not in modules:
        name = name.rpartition(".")[0]  # a name defined in the module, not a submodule
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(modules: dict[str, pathlib.Path]) -> dict[str, set[str]]:
    """Module -> the modules of the tree it imports (itself excluded)."""
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = set()
        for name, from_name in _imported_names(module, path, tree):
            target = _resolve(name, modules, from_name)
            if target is not None and target != module:
                targets.add(target)
        graph[module] = targets
    return graph


def external_imports(modules: dict[str, pathlib.Path], module: str) -> set[str]:
    """Top-level names of the runtime imports of ``module`` that are not modules
    of the tree (the standard library and third-party packages)."""
    path = modules[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = set()
    for name, from_name in _imported_names(module, path, tree):
        if _resolve(name, modules, from_name) is None:
            out.add(name.split(".")[0])
    return out


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The import circles: strongly connected sets of two or more modules
    (Tarjan's algorithm, iterative), each a set of module names."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found

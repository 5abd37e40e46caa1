"""The floors of the design, checked on the source: each package imports only from the
floors below it (README, "How it is built"), no module imports a private name of
another, and no import, at the top of a module or inside a function, closes a cycle.

    floor 0  ledger.vocabulary
    floor 1  projections
    floor 2  ledger.command
    floor 3  cli, web (the service, beside cli: nothing imports it)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FLOORS = {"ledger.vocabulary": 0, "projections": 1, "ledger.command": 2, "cli": 3, "web": 3}


def floor_of(module: str) -> int | None:
    for package, floor in FLOORS.items():
        if module == package or module.startswith(package + "."):
            return floor
    return None


def modules() -> dict[str, Path]:
    found = {}
    for package in ("ledger", "projections", "cli", "web"):
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports(name: str, path: Path, known: set[str]) -> list[tuple[str, str | None, int]]:
    """(module imported, name imported from it, line) for every import of a project module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(alias.name, None, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.append((sub, None, node.lineno) if sub in known else (base, alias.name, node.lineno))
    return [(m, n, line) for m, n, line in out if m.split(".")[0] in ("ledger", "projections", "cli", "web")]


MODULES = modules()
EDGES = {name: imports(name, path, set(MODULES)) for name, path in MODULES.items()}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_module_imports_only_from_its_floor_and_below(name: str) -> None:
    own = floor_of(name)
    if own is None:
        return  # the top-level package docstrings (ledger/__init__.py)
    for target, imported, line in EDGES[name]:
        floor = floor_of(target)
        assert floor is not None, f"{name}:{line} imports {target}, which is on no floor"
        assert floor <= own, f"{name}:{line} (floor {own}) imports {target} (floor {floor})"
        assert not (imported and imported.startswith("_") and not imported.startswith("__")), (
            f"{name}:{line} imports the private name {imported} from {target}"
        )


def test_nothing_imports_the_service() -> None:
    """``web`` is a client of everything below it, like ``cli``, and nothing imports it
    (``pulka serve`` names it in cli.main's table of commands, imported when it runs)."""
    for name, edges in EDGES.items():
        if name == "web" or name.startswith("web."):
            continue
        for target, _, line in edges:
            assert not (target == "web" or target.startswith("web.")), f"{name}:{line} imports {target}"


def test_no_import_cycle_between_modules() -> None:
    graph = {name: {t for t, _, _ in EDGES[name] if t in MODULES and t != name} for name in MODULES}
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])

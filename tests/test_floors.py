"""The floors of the design, checked on the source: each room imports only from its own
room and the floors below it (README, "How it is built"), no module imports a private
name of another, and no import, at the top of a module or inside a function, closes a
cycle.

    floor 0  ledger.vocabulary      the words of the log
    floor 1  projections            pure folds (the one seam: ledger -> projections)
    floor 2  ledger.store           the event store and its two backends
    floor 3  ledger.words           the table's words
    floor 4  ledger.judge           the Code's rules, one room a judgement
    floor 5  ledger.views           the archive's read models and the rating
    floor 6  ledger.proofs          the Merkle tree and the checkpoints
    floor 7  ledger.application     the one load-decide-save door
    floor 8  ledger.desks           the commands of a pulka, a rubber, a tournament, the club
    floor 9  ledger.reads           the reads both faces share
    floor 10 cli, web               the two faces, side by side: neither imports the other
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FLOORS = {"ledger.vocabulary": 0, "projections": 1, "ledger.store": 2, "ledger.words": 3, "ledger.judge": 4,
          "ledger.views": 5, "ledger.proofs": 6, "ledger.application": 7, "ledger.desks": 8, "ledger.reads": 9,
          "cli": 10, "web": 10}


def room_of(module: str) -> str | None:
    """The room (a key of FLOORS) a module is in: the longest that holds it."""
    rooms = [room for room in FLOORS if module == room or module.startswith(room + ".")]
    return max(rooms, key=len) if rooms else None


def floor_of(module: str) -> int | None:
    room = room_of(module)
    return None if room is None else FLOORS[room]


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
        # Only the package's docstring (ledger/__init__.py) stands outside every room: a
        # module at ledger's root beside application.py would make ledger and its rooms
        # import each other.
        assert name == "ledger", f"{name} is in no room of the house: put it in the room of its floor"
        return
    for target, imported, line in EDGES[name]:
        floor = floor_of(target)
        assert floor is not None, f"{name}:{line} imports {target}, which is on no floor"
        assert floor <= own, f"{name}:{line} (floor {own}) imports {target} (floor {floor}), which runs back up"
        assert floor < own or room_of(target) == room_of(name), (
            f"{name}:{line} imports {target}, a room beside its own on floor {own}: the rooms of a floor are siblings"
        )
        assert not (imported and imported.startswith("_") and not imported.startswith("__")), (
            f"{name}:{line} imports the private name {imported} from {target}"
        )


def test_the_two_faces_are_siblings() -> None:
    """``cli`` and ``web`` stand side by side on the top floor: neither imports the other,
    and nothing below imports either (``pulka serve`` reaches ``web`` through the
    ``pulka.commands`` entry point that pyproject.toml declares, not an import)."""
    for name, edges in EDGES.items():
        for target, _, line in edges:
            for face in ("cli", "web"):
                if target == face or target.startswith(face + "."):
                    assert name == face or name.startswith(face + "."), f"{name}:{line} imports {target}"


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

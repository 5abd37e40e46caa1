"""Names a newcomer can tell apart (issue 27): no two modules of ``ledger/``,
``projections/``, ``cli/`` or ``web/`` define a public function or class (at a module's
top, its name not beginning with ``_``) of one name, unless both are one concept in
homes of their own; ``EXCEPTIONS`` lists those, each with its reason. Two things of one
name are otherwise two things a reader takes for one (a sheet's ``Write`` and the
API's, the store's ``Reading`` and a deal line's): each is named for what it is, and
a name used for one kind of stream says its kind (``decide_rubber``, ``rubber_sheet_doc``;
a pulka's, the ledger's first kind, keep the plain names).

The second test fails on an exception that is no longer needed, so that none outlives
its reason.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ledger", "projections", "cli", "web")

# name -> why the modules that define it define one concept, each in its own home.
EXCEPTIONS: dict[str, str] = {
    "routes": "the routes one module of the service serves (web.api's, web.pages'), and web.app's routes, "
              "which join them with its own (api.routes(), pages.routes()): Starlette's idiom, always read "
              "qualified by its module",
}


def public_definitions() -> dict[str, list[str]]:
    """Each public name defined at the top of a module of the packages, with the modules
    that define it."""
    found: dict[str, list[str]] = defaultdict(list)
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                        and not node.name.startswith("_")):
                    found[node.name].append(module)
    return found


NAMESAKES = {name: modules for name, modules in public_definitions().items() if len(modules) > 1}


def test_no_two_modules_define_one_public_name() -> None:
    unexplained = {name: modules for name, modules in sorted(NAMESAKES.items()) if name not in EXCEPTIONS}
    assert not unexplained, "one name, several things (name each for what it is, or give the reason in " \
        "EXCEPTIONS):\n" + "\n".join(f"  {name}: {', '.join(modules)}" for name, modules in unexplained.items())


def test_each_exception_is_still_needed() -> None:
    stale = sorted(name for name in EXCEPTIONS if name not in NAMESAKES)
    assert not stale, f"no longer defined in two modules, take them out of EXCEPTIONS: {stale}"

"""pulka's own top-level packages, found where pulka is installed.

The design names the packages ``ledger``, ``projections``, ``cli`` and ``web``: generic
names that another distribution could also put into the same site-packages, or that a
folder on ``PYTHONPATH`` could hold. Python then imports whichever comes first, and pulka
would run half of someone else's code. pulka's answer (the README's "How it is built"):
it is meant to live in a virtualenv of its own (``make install`` links that one's
``pulka`` onto the PATH; ``pipx install`` does the same), and every command first checks
that each of these packages is found beside this one, naming the stranger when one is
not. The check finds the packages' specs without importing them (a few path lookups).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

PACKAGES = ("ledger", "projections", "web")


def home_of(name: str) -> Path | None:
    """The folder that holds the package ``name`` as Python would import it now."""
    spec = importlib.util.find_spec(name)
    if spec is None:
        return None
    places = list(spec.submodule_search_locations or ())
    where = Path(places[0]) if places else Path(spec.origin or ".").parent
    return where.resolve().parent


def shadowed() -> str | None:
    """What stands in the place of one of pulka's packages, said for the user; None when
    every package is found beside ``cli`` (this module's own package)."""
    home = Path(__file__).resolve().parent.parent
    for name in PACKAGES:
        found = home_of(name)
        if found != home:
            where = "nowhere" if found is None else str(found / name)
            return (f"pulka's package {name!r} is found at {where}, not beside pulka's own at {home / name}: "
                    f"another package of that name comes first on the Python path (PYTHONPATH or the "
                    f"same site-packages). Run pulka from a virtualenv of its own (make install, or "
                    f"pipx install .), or remove the other {name!r}.")
    return None

"""Start-up: each command imports only what it needs (what the time of a command
line tool goes to before it does anything). Timing itself is printed by ``bench/``.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import click

from cli.main import COMMANDS

# Run a command in a fresh interpreter, then list the project's and the drivers'
# modules it imported.
PROBE = """
import json, sys
from cli.main import main
try:
    main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
prefixes = ("cli.", "ledger.", "projections.", "psycopg", "eventsourcing.")
print(json.dumps(sorted(m for m in sys.modules if m.startswith(prefixes))), file=sys.stderr)
"""


def imported(*args: str) -> set[str]:
    result = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True)
    found: list[str] = json.loads(result.stderr.strip().splitlines()[-1])
    return set(found)


def test_help_lists_the_commands_from_the_table_without_importing_them() -> None:
    modules = imported("--help")
    assert not {m for m in modules if m.startswith(("ledger.", "projections.", "eventsourcing."))}
    assert modules & {"cli.record", "cli.read", "cli.audit", "cli.rules", "cli.common"} == set()


def test_the_table_holds_each_commands_own_help() -> None:
    for name, (target, text) in COMMANDS.items():
        module, _, attribute = target.partition(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        assert command.get_short_help_str(limit=1000) == text, name


def test_recording_a_deal_loads_no_postgres_driver(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    subprocess.run([sys.executable, "-m", "cli.main", "new", "g", "--players", "A,B,C", "--db", db],
                   check=True, capture_output=True)
    modules = imported("deal", "g", "pass pass pass | 4 3 3", "--db", db)
    assert "ledger.store.sqlite" in modules  # the probe saw the command run
    assert not {m for m in modules if m.startswith("psycopg")}
    assert "ledger.store.postgres" not in modules
    assert "eventsourcing.application" not in modules
    # Nor the read sides of the kinds, the tournament's fold or the club's archive.
    assert not modules & {"projections.pulka", "projections.rubber_report", "projections.tournament_state",
                          "projections.archive", "projections.picture"}

"""Start-up: each command imports only what it needs (what the time of a command
line tool goes to before it does anything). Timing itself is printed by ``bench/``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from cli.main import COMMANDS, ENTRY_POINTS, load, main

# Run a command in a fresh interpreter, then list the project's and the drivers'
# modules it imported.
PROBE = """
import json, sys
from cli.main import main
try:
    main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
prefixes = ("cli.", "ledger.", "projections.", "web.", "psycopg", "eventsourcing.")
print(json.dumps(sorted(m for m in sys.modules if m.startswith(prefixes) or m == "web")), file=sys.stderr)
"""


def imported(*args: str) -> set[str]:
    result = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True)
    found: list[str] = json.loads(result.stderr.strip().splitlines()[-1])
    return set(found)


def test_help_lists_the_commands_from_the_table_without_importing_them() -> None:
    modules = imported("--help")
    assert not {m for m in modules if m.startswith(("ledger.", "projections.", "eventsourcing.", "web."))}
    assert "web" not in modules
    assert modules & {"cli.record", "cli.read", "cli.audit", "cli.rules", "cli.common"} == set()
    # The service's line is there too, from the table: web is not imported for it.
    help_text = subprocess.run([sys.executable, "-m", "cli.main", "--help"], capture_output=True, text=True,
                               check=True).stdout
    assert "  serve " in help_text and COMMANDS["serve"][1][:30] in help_text


def test_the_table_holds_each_commands_own_help() -> None:
    for name, (target, text) in COMMANDS.items():
        command = load(target)
        assert isinstance(command, click.Command)
        assert command.get_short_help_str(limit=1000) == text, name


def test_the_service_is_the_entry_point_of_the_installed_pulka_not_an_import_of_cli() -> None:
    """``pulka serve`` stands beside cli: the installed distribution declares it in the
    group ``pulka.commands`` (pyproject.toml), and cli loads it from there; cli names no
    module of web."""
    from importlib.metadata import entry_points

    from web.serve import serve

    (point,) = entry_points(group=ENTRY_POINTS, name="serve")
    assert point.value == "web.serve:serve" and point.load() is serve
    assert COMMANDS["serve"][0] == f"{ENTRY_POINTS}:serve" and load(COMMANDS["serve"][0]) is serve
    assert not [target for target, _ in COMMANDS.values() if target.startswith("web")]
    # Run: the service's own help, through the entry point.
    done = subprocess.run([sys.executable, "-m", "cli.main", "serve", "--help"], capture_output=True, text=True,
                          check=True)
    assert "The club's live scoring service" in done.stdout


RUN_PROBE = """
import gc, sys
from cli.main import run
try:
    run()
except SystemExit as exc:
    print(exc.code, gc.get_freeze_count() > 0, file=sys.stderr)
"""


def test_the_installed_command_runs_main_and_freezes_its_heap_as_it_ends(tmp_path: Path) -> None:
    """The ``pulka`` script is ``run``: ``main`` with its exit status, and the heap
    frozen as the process ends, so that the interpreter's last collection walks none of
    it (its time is ``make bench``'s ``pulka deal``). A refusal's status is kept."""
    from importlib.metadata import entry_points

    (script,) = entry_points(group="console_scripts", name="pulka")
    assert script.value == "cli.main:run"
    for args, status in ((["rules"], "0"), (["sheet", "nothing", "--db", str(tmp_path / "none.db")], "1")):
        done = subprocess.run([sys.executable, "-c", RUN_PROBE, *args], capture_output=True, text=True, check=True)
        assert done.stderr.strip().splitlines()[-1] == f"{status} True", done.stderr


def test_a_command_of_the_entry_points_that_is_not_installed_is_refused_with_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **selection: ())
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 1, result.output
    assert "pulka serve is not installed: install pulka (pip install .)" in result.stderr
    assert "Traceback" not in result.output


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


# What ``pulka deal`` has no use for: the service and its libraries, the proofs, the
# views, the rating, the drivers of PostgreSQL, a rubber's judge and fold, a log file's
# reader, and the standard library's heavier modules that only another command, a first
# run or a fault needs (the installed version, the data folders, time zones, TOML, a
# fault's traceback file). Each was once imported by the deal's path; together they
# were a third of its start-up. And the other recording commands (``cli.record``, whose
# options cost more than the deal's own command) with what only they use (``cli.rules``),
# and the rooms of the judge and the fold that a deal line's events never reach (the
# records by hand, the arbiter, around the table, corrections, an undo, the forks).
NOT_FOR_A_DEAL = (
    "cli.record", "cli.rules", "ledger.judge.arbiter", "ledger.judge.by_hand", "ledger.judge.around_table",
    "ledger.judge.corrections", "ledger.desks.taken_back", "projections.forks", "projections.report",
    "hashlib",  # OpenSSL: the chain's digests and the stream's id are the builtins' (ledger.vocabulary.hashes)
    "web", "starlette", "jinja2", "uvicorn", "psycopg", "cryptography", "openskill", "segno", "argon2", "babel",
    "eventsourcing.application", "eventsourcing.postgres", "ledger.views", "ledger.proofs", "ledger.reads",
    "projections.rating_models", "projections.archive", "projections.picture",
    "ledger.judge.rubber", "projections.rubber", "projections.bridge_scoring", "ledger.vocabulary.logfile",
    "importlib.metadata", "email", "zipfile", "platformdirs", "zoneinfo", "tomllib", "tempfile", "traceback",
    "secrets", "shutil", "signal", "socket", "subprocess", "asyncio",
)

MODULES_PROBE = """
import json, sys
from cli.main import main
try:
    main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def test_a_deal_imports_only_what_recording_it_uses(tmp_path: Path) -> None:
    """The module set of a ``pulka deal`` process, not its time: the time is
    ``make bench``'s (its figure beside the import floor of click and msgspec)."""
    db = str(tmp_path / "deals.db")  # not pulka.db: that name is also the default store's
    subprocess.run([sys.executable, "-m", "cli.main", "new", "g", "--players", "A,B,C", "--db", db],
                   check=True, capture_output=True)
    result = subprocess.run([sys.executable, "-c", MODULES_PROBE, "deal", "g", "pass pass pass | 4 3 3", "--db", db],
                            capture_output=True, text=True, check=True)
    modules = set(json.loads(result.stderr.strip().splitlines()[-1]))
    assert "ledger.desks.pulka" in modules and "deal 1 " in result.stdout  # the probe saw the deal recorded
    heavy = {m for m in modules if m in NOT_FOR_A_DEAL or m.startswith(tuple(f"{h}." for h in NOT_FOR_A_DEAL))}
    assert heavy == set()


# What the deal's process defined of pulka's own: the dataclasses among its classes (a
# dataclass compiles its methods from source as it is defined, about 0.45 ms each; a
# msgspec struct is made in C, 0.03 ms), and the events' annotations left as strings
# (msgspec evaluates each one when it builds the events' decoder).
DEFINED_PROBE = """
import dataclasses, json, sys
from cli.main import main
try:
    main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
ours = [m for name, m in list(sys.modules.items()) if name.split(".")[0] in ("cli", "ledger", "projections")]
classes = {f"{m.__name__}.{n}" for m in ours for n, v in vars(m).items()
           if isinstance(v, type) and v.__module__ == m.__name__ and dataclasses.is_dataclass(v)}
from ledger.vocabulary.events import AnyEvent
from typing import get_args
strings = sorted(f"{t.__name__}.{k}" for t in get_args(AnyEvent) for c in t.__mro__
                 for k, v in vars(c).get("__annotations__", {}).items() if isinstance(v, str))
from ledger.store.backend import pulka_state_decoder, state_decoder
from ledger.vocabulary.events import event_decoder
made = sorted(f.__name__ for f in (event_decoder, pulka_state_decoder, state_decoder) if f.cache_info().currsize)
print(json.dumps({"dataclasses": sorted(classes), "strings": strings, "decoders": made}), file=sys.stderr)
"""


def test_a_deal_defines_no_dataclass_and_its_decoder_evaluates_no_strings(tmp_path: Path) -> None:
    """The classes a ``pulka deal`` defines are what its start-up costs beyond loading
    code: none of pulka's is a dataclass, and the events' annotations are objects. It
    reads its game's rows with the decoder of a pulka's events alone, and never makes
    the decoder of every event (``ledger.store.backend.pulka_state_decoder``)."""
    db = str(tmp_path / "deals.db")
    subprocess.run([sys.executable, "-m", "cli.main", "new", "g", "--players", "A,B,C", "--db", db],
                   check=True, capture_output=True)
    result = subprocess.run([sys.executable, "-c", DEFINED_PROBE, "deal", "g", "6S pass pass | 6S | whist whist | 6 2 2",
                             "--yes", "--db", db], capture_output=True, text=True, check=True)
    found = json.loads(result.stderr.strip().splitlines()[-1])
    assert "deal 1 " in result.stdout  # the probe saw the deal recorded
    assert found == {"dataclasses": [], "strings": [], "decoders": ["pulka_state_decoder"]}

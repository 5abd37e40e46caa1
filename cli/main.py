"""The ``pulka`` command: the group and the table of its subcommands.

Each subcommand lives in the module of its kind (``record``, ``read``, ``audit``,
``rules``) and is imported only when it runs, so that ``pulka --help`` and a single
command start quickly. ``cli`` parses arguments, calls the ledger or a projection,
and prints; it never judges or computes.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

# name -> "module:function"; the order is the order of ``pulka --help``.
COMMANDS: dict[str, str] = {
    "new": "cli.record:new",
    "deal": "cli.record:deal",
    "bid": "cli.record:bid",
    "contract": "cli.record:contract",
    "defence": "cli.record:defence",
    "tricks": "cli.record:tricks",
    "entry": "cli.record:entry",
    "pencil": "cli.record:pencil",
    "annul": "cli.record:annul",
    "abandon": "cli.record:abandon",
    "correct": "cli.record:correct",
    "object": "cli.record:object_",
    "penalty": "cli.record:penalty",
    # the rest of the Code: irregularities, rulings, changes of players, the talon
    "dealt": "cli.table:dealt",
    "ruling": "cli.table:ruling",
    "join": "cli.table:join",
    "leave": "cli.table:leave",
    "substitute": "cli.table:substitute",
    "talon": "cli.table:talon",
    "import": "cli.record:import_",
    "export": "cli.read:export",
    "games": "cli.read:games",
    "sheet": "cli.read:sheet",
    "settle": "cli.read:settle",
    "log": "cli.audit:log_",
    "explain": "cli.audit:explain",
    "diff": "cli.audit:diff",
    "verify": "cli.audit:verify",
    "rules": "cli.rules:rules",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported from ``COMMANDS`` when first needed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, _, name = target.partition(":")
        command: Any = getattr(importlib.import_module(module), name)
        assert isinstance(command, click.Command), target
        command.name = cmd_name
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pulka")
def main() -> None:
    """pulka: an event-sourced ledger for Preferans scores.

    Record a pulka as immutable events, show its sheet, settle it, and replay it
    to any point in time.
    """


if __name__ == "__main__":  # pragma: no cover
    main()

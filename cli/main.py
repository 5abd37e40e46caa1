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

# name -> ("module:function", its one-line help); the order is the order of
# ``pulka --help``, which prints the help from here without importing any command
# (a test keeps each line equal to the command's own).
COMMANDS: dict[str, tuple[str, str]] = {
    "new": ("cli.record:new", 'Start a pulka.'),
    "deal": ("cli.record:deal", 'Record a whole deal: "BIDS | CONTRACT | CALLS | TRICKS".'),
    "bid": ("cli.record:bid", 'A bid: 6S ...'),
    "contract": ("cli.record:contract", "The declarer's contract (again to change it before anyone whists)."),
    "defence": ("cli.record:defence", "A defender's call: whist, pass or half_whist."),
    "tricks": ("cli.record:tricks", 'Tricks taken: Anna=6 Boris=3 Vera=1.'),
    "entry": ("cli.record:entry", 'A number written by hand (transcribing a paper sheet, a house rule).'),
    "pencil": ("cli.record:pencil", 'The recorder puts his pencil down (rule 4.2.8).'),
    "annul": ("cli.record:annul", 'The current deal is void; the same dealer deals again.'),
    "abandon": ("cli.record:abandon", 'Stop the pulka early by agreement of all players (rule 4.2.3).'),
    "correct": ("cli.record:correct", 'Correct event TARGET: amount=6, tricks=\'{"Anna":6,"Boris":3,"Vera":1}\', contract=7S.'),
    "object": ("cli.record:object_", 'A partner refuses a late record of DEAL (rule 4.2.10).'),
    "penalty": ("cli.record:penalty", "An arbiter's ruling written on the sheet (rule 4.2.16)."),
    "import": ("cli.record:import_", 'Store a log (a new game, or events appended to a stored game).'),
    "init": ("cli.record:init", 'Create the store (its table), once; recording commands also do it when needed.'),
    "export": ("cli.read:export", "Print the game's log as JSON Lines, with what the ledger filled in and each event's chain digest (check a copy with `pulka verify --file`)."),
    "games": ("cli.read:games", 'List the stored games.'),
    "sheet": ("cli.read:sheet", 'The pulka: pulya, gora and whists per player, with running entries.'),
    "settle": ("cli.read:settle", 'The settlement [Code 4.2.14]; an unfinished pulka settles as if abandoned now.'),
    "log": ("cli.audit:log_", 'Every event with its number, time, recorder, what it did to the sheet and, for a correction, objection or late record, the rule and the verdict.'),
    "explain": ("cli.audit:explain", 'Trace one number of the sheet (Anna.pulya, Anna.gora, Anna.whists.Boris) to its events.'),
    "diff": ("cli.audit:diff", 'What changed between two points (event N, deal:K, or a time), and which events did it.'),
    "verify": ("cli.audit:verify", 'Check the hash chain of one game or of every game; exit 1 naming the first bad event.'),
    "head": ("cli.audit:head", "Print the game's head digest (its last event's number and digest), to keep elsewhere and check later with `pulka verify GAME --against HEAD`."),
    "rules": ("cli.rules:rules", 'List the presets, or show every parameter of one.'),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported from ``COMMANDS`` when first needed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        target = COMMANDS[cmd_name][0]
        module, _, name = target.partition(":")
        command: Any = getattr(importlib.import_module(module), name)
        assert isinstance(command, click.Command), target
        command.name = cmd_name
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``, from the table: no command module is imported."""
        with formatter.section("Commands"):
            formatter.write_dl([(name, text) for name, (_, text) in COMMANDS.items()])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pulka")
def main() -> None:
    """pulka: an event-sourced ledger for Preferans scores.

    Record a pulka as immutable events, show its sheet, settle it, and replay it
    to any point in time.
    """


if __name__ == "__main__":  # pragma: no cover
    main()

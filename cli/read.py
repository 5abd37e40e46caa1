"""Reading commands: the stored games, a game's log as JSON Lines, its sheet and its
settlement, as of any point in time (``--at``, ``--deal``, ``--time``)."""

from __future__ import annotations

import click

from cli.common import db_option, emit, opened, point_options, view_at
from ledger.vocabulary.logfile import export_line
from projections.points import Point


@click.command()
@click.argument("game")
@db_option
def export(game: str, db: str) -> None:
    """Print the game's log as JSON Lines, with what the ledger filled in and each
    event's chain digest (check a copy with `pulka verify --file`)."""
    with opened(db) as ledger:
        for stored in ledger.events(game):
            click.echo(export_line(stored.event, stored.digest))


@click.command()
@db_option
def games(db: str) -> None:
    """List the stored games."""
    with opened(db) as ledger:
        for name in ledger.store.games():
            click.echo(name)


@click.command()
@click.argument("game")
@click.option("--json", "as_json", is_flag=True, help="The sheet object of event-log.md.")
@point_options
@db_option
def sheet(game: str, as_json: bool, at: int | None, deal: int | None, time_: str | None, db: str) -> None:
    """The sheet: a pulka's pulya, gora and whists per player, with running entries; a
    rubber's МЫ/ВЫ sheet above and below the line."""
    with opened(db) as ledger:
        view = view_at(ledger, game, Point(at, deal, time_))
        if as_json:
            emit(view.sheet_doc())
        else:
            click.echo(view.sheet_text(), nl=False)


@click.command()
@click.argument("game")
@click.option("--json", "as_json", is_flag=True, help="The settlement object of event-log.md.")
@point_options
@db_option
def settle(game: str, as_json: bool, at: int | None, deal: int | None, time_: str | None, db: str) -> None:
    """The settlement [Code 4.2.14]; an unfinished pulka settles as if abandoned now, an
    unfinished rubber as if stopped now [Law 80]."""
    with opened(db) as ledger:
        view = view_at(ledger, game, Point(at, deal, time_))
        if as_json:
            emit(view.settlement_doc())
        else:
            click.echo(view.settlement_text(), nl=False)


# -- recording at the table ----------------------------------------------------------------

"""Reading commands: the stored games, a game's log as JSON Lines, its sheet and its
settlement, as of any point in time (``--at``, ``--deal``, ``--time``)."""

from __future__ import annotations

import click

from cli.common import db_option, emit, opened, point_options
from cli.picture.svg import svg_document
from ledger.vocabulary.logfile import export_line
from projections.picture import picture
from projections.report import Point, render_settlement, render_sheet, settlement_doc, sheet_doc, state_at


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
@click.option("--svg", "as_svg", is_flag=True, help="The sheet drawn as players know it, with the settlement.")
@point_options
@db_option
def sheet(game: str, as_json: bool, as_svg: bool, at: int | None, deal: int | None, time_: str | None,
          db: str) -> None:
    """The pulka: pulya, gora and whists per player, with running entries."""
    point = Point(at, deal, time_)
    with opened(db) as ledger:
        events = [s.event for s in ledger.events(game)]
        if as_svg:
            click.echo(svg_document(picture(events, point)), nl=False)
            return
        state = state_at(events, point)
        if as_json:
            emit(sheet_doc(state.sheet()))
        else:
            click.echo(render_sheet(state, point), nl=False)


@click.command()
@click.argument("game")
@click.option("--json", "as_json", is_flag=True, help="The settlement object of event-log.md.")
@point_options
@db_option
def settle(game: str, as_json: bool, at: int | None, deal: int | None, time_: str | None, db: str) -> None:
    """The settlement [Code 4.2.14]; an unfinished pulka settles as if abandoned now."""
    point = Point(at, deal, time_)
    with opened(db) as ledger:
        state = state_at([s.event for s in ledger.events(game)], point)
        if as_json:
            emit(settlement_doc(state))
        else:
            click.echo(render_settlement(state, point), nl=False)


# -- recording at the table ----------------------------------------------------------------

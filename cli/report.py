"""Pictures for people: the report of a pulka as one self-contained HTML file."""

from __future__ import annotations

import click

from cli.common import GameCommand, db_option, game_argument, refusals
from cli.reading import file_option, only_pulka, read_game, table_cap
from projections.drawing.page import pulka_report_html
from projections.picture import timeline


@click.command(cls=GameCommand)
@game_argument
@file_option
@db_option
def report(game: str, file: str | None, db: str | None) -> None:
    """One HTML file, nothing fetched: the drawn sheet and settlement as of any event
    (a slider), the deal-by-deal table, the audit trail, and each number's trace."""
    read = read_game(game, db, file)
    only_pulka(read, "the report draws a pulka")
    with refusals():
        doc = timeline(read.events, table_cap(read, db, file))
    if file is None:
        from cli.proofs import attested_history  # the checkpoint that covers the game, the signatures

        doc["history"] = attested_history(db, read.game, len(read.events))
    click.echo(pulka_report_html(doc), nl=False)

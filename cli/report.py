"""Pictures for people: the report of a pulka as one self-contained HTML file."""

from __future__ import annotations

import click

from cli.common import db_option, opened
from cli.picture.page import report_html
from projections.picture import timeline


@click.command()
@click.argument("game")
@db_option
def report(game: str, db: str) -> None:
    """One HTML file, nothing fetched: the drawn sheet and settlement as of any event
    (a slider), the deal-by-deal table, the audit trail, and each number's trace."""
    with opened(db) as ledger:
        events = [s.event for s in ledger.events(game)]
        click.echo(report_html(timeline(events)), nl=False)

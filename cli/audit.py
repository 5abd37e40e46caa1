"""The arbiter's commands: the audit trail, one number traced to its events, what
changed between two points, and the check of the hash chains."""

from __future__ import annotations

from typing import Any

import click

from cli.common import UserError, db_option, emit, opened, point_options, refusals
from ledger.vocabulary.logfile import export_problem, game_of, parse_export
from projections.audit import audit, parse_cell, render_audit, render_diff, render_explain, row_doc
from projections.audit import diff as diff_points
from projections.audit import explain as explain_cell
from projections.report import Point, cut, state_at


def parse_point(text: str) -> Point:
    """``12`` (event 12), ``deal:3`` (end of deal 3) or an ISO 8601 time."""
    if text.isdigit():
        return Point(at=int(text))
    if text.startswith("deal:") and text[5:].isdigit():
        return Point(deal=int(text[5:]))
    return Point(time=text)


@click.command("log")
@click.argument("game")
@click.option("--json", "as_json", is_flag=True)
@point_options
@db_option
def log_(game: str, as_json: bool, at: int | None, deal: int | None, time_: str | None, db: str) -> None:
    """Every event with its number, time, recorder, what it did to the sheet and,
    for a correction, objection or late record, the rule and the verdict."""
    with opened(db) as ledger:
        events = cut([s.event for s in ledger.events(game)], Point(at, deal, time_))
        rows = audit(events)
        if as_json:
            emit({"game": game, "events": [row_doc(r) for r in rows]})
        else:
            click.echo(render_audit(rows), nl=False)


@click.command()
@click.argument("game")
@click.argument("number", metavar="PLAYER.COLUMN[.ON]")
@click.option("--json", "as_json", is_flag=True)
@point_options
@db_option
def explain(game: str, number: str, as_json: bool, at: int | None, deal: int | None, time_: str | None,
            db: str) -> None:
    """Trace one number of the sheet (Anna.pulya, Anna.gora, Anna.whists.Boris) to its events."""
    with opened(db) as ledger:
        state = state_at([s.event for s in ledger.events(game)], Point(at, deal, time_))
        try:
            cell = parse_cell(number, state.sheet().players)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        rows = explain_cell(state, cell)
        if as_json:
            emit({"game": game, "number": number, "writes": rows})
        else:
            click.echo(render_explain(cell, rows), nl=False)


@click.command()
@click.argument("game")
@click.argument("from_", metavar="FROM")
@click.argument("to", metavar="TO")
@click.option("--json", "as_json", is_flag=True)
@db_option
def diff(game: str, from_: str, to: str, as_json: bool, db: str) -> None:
    """What changed between two points (event N, deal:K, or a time), and which events did it."""
    with opened(db) as ledger:
        doc = diff_points([s.event for s in ledger.events(game)], parse_point(from_), parse_point(to))
        if as_json:
            emit(doc)
        else:
            click.echo(render_diff(doc), nl=False)


@click.command()
@click.argument("game", required=False)
@click.option("--file", "file", type=click.File("r", encoding="utf-8-sig"), help="Check an export instead.")
@db_option
def verify(game: str | None, file: Any, db: str) -> None:
    """Check the hash chain of one game or of every game; exit 1 naming the first bad event."""
    if file is not None:
        with refusals():
            lines = parse_export(file.read())
        name = game_of(lines)
        problem = export_problem(lines)
        if problem is not None:
            raise UserError(f"export of {name}: {problem}")
        click.echo(f"export of {name}: {len(lines)} events, chain intact")
        return
    with opened(db) as ledger:
        names = [game] if game else ledger.store.games()
        if game and not ledger.store.count(game):
            ledger.events(game)  # refuses with the list of stored games
        failed = []
        for name in names:
            problem = ledger.store.verify(name)
            if problem is None:
                click.echo(f"{name}: {ledger.store.count(name)} events, chain intact")
            else:
                failed.append(name)
                click.echo(f"{name}: TAMPERED: {problem}")
        if failed:
            raise UserError(f"the chain of {', '.join(failed)} does not check out")

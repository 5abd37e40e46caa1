"""The arbiter's commands: the audit trail, one number traced to its events, what
changed between two points, the check of the hash chains, and a game's head digest."""

from __future__ import annotations

import os
from typing import Any

import click

from cli.common import UserError, db_option, emit, opened, point_options, read_anyway_option, refusals, sound
from ledger.command.application import Ledger
from ledger.vocabulary.chain import ChainProblem, compare_head, compare_saved, head_token, parse_head
from ledger.vocabulary.logfile import LogLine, check_export, export_problem, game_of, parse_export
from projections.audit import audit, parse_cell, render_audit, render_diff, render_explain, row_doc
from projections.audit import diff as diff_points
from projections.audit import explain as explain_cell
from projections.report import Point, cut


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
@read_anyway_option
@db_option
def log_(game: str, as_json: bool, at: int | None, deal: int | None, time_: str | None, read_anyway: bool,
         db: str) -> None:
    """Every event with its number, time, recorder, what it did to the sheet and,
    for a correction, objection or late record, the rule and the verdict."""
    point = Point(at, deal, time_)
    with opened(db) as ledger:
        events = cut(sound(ledger.read(game, point), game, read_anyway).events, point)
        rows = ledger.guarded(game, events, audit)
        if as_json:
            emit({"game": game, "events": [row_doc(r) for r in rows]})
        else:
            click.echo(render_audit(rows), nl=False)


@click.command()
@click.argument("game")
@click.argument("number", metavar="PLAYER.COLUMN[.ON]")
@click.option("--json", "as_json", is_flag=True)
@point_options
@read_anyway_option
@db_option
def explain(game: str, number: str, as_json: bool, at: int | None, deal: int | None, time_: str | None,
            read_anyway: bool, db: str) -> None:
    """Trace one number of the sheet (Anna.pulya, Anna.gora, Anna.whists.Boris) to its events."""
    point = Point(at, deal, time_)
    with opened(db) as ledger:
        state = ledger.replayed(game, cut(sound(ledger.read(game, point), game, read_anyway).events, point))
        try:
            cell = parse_cell(number, state.players)
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
@read_anyway_option
@db_option
def diff(game: str, from_: str, to: str, as_json: bool, read_anyway: bool, db: str) -> None:
    """What changed between two points (event N, deal:K, or a time), and which events did it."""
    with opened(db) as ledger:
        events = sound(ledger.read(game), game, read_anyway).events
        ledger.replayed(game, events)  # every stored event replays, or the first that does not is named
        doc = diff_points(events, parse_point(from_), parse_point(to))
        if as_json:
            emit(doc)
        else:
            click.echo(render_diff(doc), nl=False)


@click.command()
@click.argument("game")
@db_option
def head(game: str, db: str) -> None:
    """Print the game's head digest (its last event's number and digest), to keep
    elsewhere and check later with `pulka verify GAME --against HEAD`."""
    with opened(db) as ledger:
        last = ledger.sound(game)
        if not last:
            raise ledger.unknown(game)
        click.echo(str(head_token(last[-1].number, last[-1].digest)))


@click.command()
@click.argument("game", required=False)
@click.option("--file", "file", type=click.File("r", encoding="utf-8-sig"), help="Check an export instead.")
@click.option("--against", metavar="SAVED.jsonl|HEAD",
              help="Also compare GAME with a saved export of it, or with a head digest from `pulka head`.")
@db_option
def verify(game: str | None, file: Any, against: str | None, db: str) -> None:
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
    if against is not None and game is None:
        raise UserError("--against compares one game: give its name")
    with opened(db) as ledger:
        if game is not None:
            results = [(game, ledger.store.count(game), ledger.store.verify(game))]
            if not results[0][1]:
                raise ledger.unknown(game)
        else:
            results = [(v.name, v.events, v.problem) for v in ledger.store.verify_all()]
        failed = []
        for name, events, problem in results:
            if problem is None:
                click.echo(f"{name}: {events} events, chain intact")
            else:
                failed.append(name)
                click.echo(f"{name}: TAMPERED: {problem}")
        if failed:
            raise UserError(f"the chain of {', '.join(failed)} does not check out")
        if game is not None and against is not None:
            compare(ledger, game, against)


def compare(ledger: Ledger, game: str, against: str) -> None:
    """Compare the (intact) stored game with a head digest or a saved export of it."""
    stored = ledger.sound(game)
    anchor = parse_head(against)
    problem: ChainProblem | None
    if anchor is not None and not os.path.exists(against):
        problem = compare_head(stored, anchor)
        what, covered = f"the head {anchor}", anchor.number
    else:
        saved = saved_export(against, game)
        problem = compare_saved(stored, [(n, line.event, line.digest or "") for n, line in enumerate(saved, 1)])
        what, covered = f"the saved export {against} ({len(saved)} events)", len(saved)
    if problem is not None:
        raise UserError(f"{game} differs from {what}: {problem}")
    since = f"; {len(stored) - covered} events recorded since" if len(stored) > covered else ""
    click.echo(f"{game}: matches {what}{since}")


def saved_export(path: str, game: str) -> list[LogLine]:
    """The lines of an export of ``game`` saved in ``path``, whose own chain is intact."""
    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"--against {path!r} is neither a head digest (N:HEX, from `pulka head`) nor a "
                        f"readable export: {exc}") from None
    saved = parse_export(text)
    if any(line.digest is None for line in saved):
        raise UserError(f"--against {path}: not an export of pulka (a line has no digest); save one with "
                        "`pulka export`")
    check_export(saved)
    if game_of(saved) != game:
        raise UserError(f"--against {path}: the saved export is of game {game_of(saved)!r}, not {game!r}")
    return saved

"""Reading commands: the stored games, a game's log as JSON Lines or a spreadsheet, its
sheet and its settlement, as of any point in time (``--at``, ``--deal``, ``--time``),
from the store or straight from an export (``--file``). The sheet and the settlement of
a game of any kind (a pulka, a rubber) are its kind's own documents; the spreadsheet is
a pulka's."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from fractions import Fraction
from typing import Any

import click

from cli.common import (
    CURRENT,
    GameCommand,
    db_option,
    emit,
    file_option,
    folded,
    game_argument,
    game_name,
    only_pulka,
    opened,
    point_options,
    progress,
    read_anyway_option,
    read_game,
    refusals,
    shown,
    view,
)
from ledger.command.kinds import GAME_STARTS, judging_of
from ledger.vocabulary.events import AnyEvent
from cli.picture.svg import svg_document
from ledger.vocabulary.logfile import export_line
from projections.audit import totals
from projections.numbers import fmt, money_context
from projections.picture import picture
from projections.deals import deal_table
from projections.game import GameState
from projections.points import Point
from projections.report import money_text, settlement_of, transfers_doc
from projections.rubber import RubberState
from projections.rubber_report import summary_doc
from ledger.vocabulary.wording import counted


def status_of(state: GameState) -> str:
    if state.abandoned_at is not None:
        return "abandoned"
    return "finished" if state.finished else "playing"


# -- the log ----------------------------------------------------------------------------------


@click.command(cls=GameCommand)
@game_argument
@click.option("--csv", "as_csv", is_flag=True, help="The sheet, the deals and the settlement for a spreadsheet.")
@file_option
@read_anyway_option
@db_option
def export(game: str, as_csv: bool, file: str | None, read_anyway: bool, db: str | None) -> None:
    """Print the game's log as JSON Lines, with what the ledger filled in and each
    event's chain digest (check a copy with `pulka verify --file`); or, with --csv,
    its sheet, deals and settlement."""
    if file is None and not as_csv:
        # Judged whole first (nothing is printed of a game refused), then printed a
        # page at a time, the chain checked again on the way: never held with its digests.
        name = game_name(game, db)
        count = len(read_game(name, db, None, anyway=read_anyway).stored)
        with opened(db) as ledger, progress(f"exporting {name}", count) as update:
            for n, stored in enumerate(ledger.store.stored(name, checked=not read_anyway), start=1):
                click.echo(export_line(stored.event, stored.digest))
                update(n)
        return
    read = read_game(game, db, file, anyway=read_anyway, digests=True)
    if as_csv:
        only_pulka(read, "--csv writes a pulka's sheet")
        click.echo(spreadsheet(folded(read, Point()), settlement=True, deals=True), nl=False)
        return
    with progress(f"exporting {read.game}", len(read.stored)) as update:
        for n, stored in enumerate(read.stored, start=1):
            click.echo(export_line(stored.event, stored.digest))
            update(n)


# -- the games of a store ---------------------------------------------------------------------


def game_doc(name: str, state: GameState | RubberState) -> dict[str, Any]:
    if isinstance(state, RubberState):
        return summary_doc(name, state)
    times = [e.at for e in state.events if e.at]
    return {
        "game": name,
        "players": list(state.players),
        "convention": state.rules.convention,
        "pulya": state.started.pulya,
        "events": state.folded,
        "deals": state.current_deal_number,
        "status": status_of(state),
        "first": times[0] if times else None,
        "last": times[-1] if times else None,
    }


@click.command()
@click.option("--json", "as_json", is_flag=True, help="One JSON object per game, in a list.")
@file_option
@db_option
def games(as_json: bool, file: str | None, db: str | None) -> None:
    """List the stored games (tournaments: `pulka tournament list`): players, convention,
    events, deals, status (playing,
    finished, abandoned), and the times of the first and last event."""
    docs = []
    if file is not None:
        read = read_game(CURRENT, db, file)
        docs.append(game_doc(read.game, fold(read.events)))
    else:
        with opened(db) as ledger:
            names = ledger.store.games(GAME_STARTS)
            with progress("reading games", len(names)) as update:
                for n, name in enumerate(names, start=1):
                    docs.append(game_doc(name, ledger.state(name)))
                    update(n)
    if as_json:
        emit(docs)
        return
    if not docs:
        click.echo("no games stored yet; start one with `pulka new`")
        return
    for d in docs:
        what = "a rubber of bridge" if d.get("kind") == "rubber" else f"{d['convention']}, pulya to {d['pulya']}"
        click.echo(f"{d['game']}: {', '.join(d['players'])}; {what}; "
                   f"{counted(d['events'], 'event')}, {counted(d['deals'], 'deal')}, {d['status']}; "
                   f"{shown(d['first'])} to {shown(d['last'])}")


# -- the sheet and the settlement -------------------------------------------------------------


@click.command(cls=GameCommand)
@game_argument
@click.option("--json", "as_json", is_flag=True, help="The sheet object of docs/event-log.md.")
@click.option("--svg", "as_svg", is_flag=True, help="The sheet drawn as players know it, with the settlement.")
@point_options
@file_option
@read_anyway_option
@db_option
def sheet(game: str, as_json: bool, as_svg: bool, at: int | None, deal: int | None, time_: str | None,
          file: str | None, read_anyway: bool, db: str | None) -> None:
    """The sheet: a pulka's pulya, gora and whists per player, with running entries; a
    rubber's МЫ/ВЫ sheet above and below the line."""
    point = Point(at, deal, time_)
    read = read_game(game, db, file, point, read_anyway)
    if as_svg:
        only_pulka(read, "--svg draws a pulka's sheet")
        with refusals():
            drawn = picture(read.events, point)
        if file is None:
            from cli.proofs import history  # the checkpoint that covers what is drawn

            drawn["checkpoint"] = history(db, read.game, drawn.get("event") or len(read.events))["caption"]
        click.echo(svg_document(drawn), nl=False)
        return
    shown_at = view(read, point)
    if as_json:
        emit(shown_at.sheet_doc())
    else:
        click.echo(shown_at.sheet_text(), nl=False)


@click.command(cls=GameCommand)
@game_argument
@click.option("--json", "as_json", is_flag=True, help="The settlement object of docs/event-log.md.")
@click.option("--csv", "as_csv", is_flag=True, help="The settlement and who pays whom, for a spreadsheet.")
@point_options
@file_option
@read_anyway_option
@db_option
def settle(game: str, as_json: bool, as_csv: bool, at: int | None, deal: int | None, time_: str | None,
           file: str | None, read_anyway: bool, db: str | None) -> None:
    """The settlement [Code 4.2.14] and who pays whom; an unfinished pulka settles as
    if abandoned now, an unfinished rubber as if stopped now [Law 80]."""
    point = Point(at, deal, time_)
    read = read_game(game, db, file, point, read_anyway)
    if as_csv:
        only_pulka(read, "--csv writes a pulka's sheet")
        click.echo(spreadsheet(folded(read, point), settlement=True, deals=False), nl=False)
        return
    shown_at = view(read, point)
    if as_json:
        emit(shown_at.settlement_doc())
    else:
        click.echo(shown_at.settlement_text(), nl=False)


def fold(events: list[AnyEvent]) -> GameState | RubberState:
    """A game of any kind folded to its end."""
    state: GameState | RubberState = judging_of(events[0]).fold(events)
    return state


# -- spreadsheets -----------------------------------------------------------------------------


def cell(value: Any) -> Any:
    """A number as a spreadsheet reads it: whole, or a decimal when exact, else n/d."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return value.numerator
        d = value.denominator
        while d % 2 == 0:
            d //= 2
        while d % 5 == 0:
            d //= 5
        if d == 1:
            return str(Decimal(value.numerator) / Decimal(value.denominator))
        return str(value)
    return value


def spreadsheet(state: GameState, *, settlement: bool, deals: bool) -> str:
    """Tables separated by an empty row, each under a title row: the sheet, the deals,
    the settlement, who pays whom."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    sheet = totals(state.sheet())
    if deals:
        w.writerow(["sheet"])
        w.writerow(["player", "pulya", "gora", *[f"whists on {q}" for q in state.players]])
        for p in state.players:
            w.writerow([p, cell(sheet[(p, "pulya", None)]), cell(sheet[(p, "gora", None)]),
                        *["" if q == p else cell(sheet[(p, "whists", q)]) for q in state.players]])
        w.writerow([])
        head, rows = deal_table(state)
        w.writerow(["deals"])
        w.writerow(head)
        for row in rows:
            w.writerow([cell(v) for v in row])
        w.writerow([])
    if settlement:
        s = settlement_of(state)
        w.writerow(["settlement", status_of(state)])
        w.writerow(["player", "pulya", "gora", "gora after pulya", "result", "result exact", "rounded",
                    *(["money"] if s.money is not None else [])])
        for p in s.players:
            w.writerow([p, cell(sheet[(p, "pulya", None)]), cell(sheet[(p, "gora", None)]), cell(s.gora[p]),
                        fmt_decimal(s.result[p]), str(s.result[p]), s.rounded[p],
                        *([money_text(s.money[p])] if s.money is not None else [])])
        w.writerow([])
        w.writerow(["who pays whom"])
        w.writerow(["from", "to", "whists", *(["money"] if s.money is not None else [])])
        for t in transfers_doc(state):
            w.writerow([t["from"], t["to"], t["whists"], *([money_text(Decimal(t["money"]))] if "money" in t else [])])
    return out.getvalue()


def fmt_decimal(x: Fraction) -> str:
    """A result to two decimals, for reading (the exact value stands beside it)."""
    with money_context():
        value = (Decimal(x.numerator) / Decimal(x.denominator)).quantize(Decimal("0.01"))
    return str(value) if x.denominator != 1 else fmt(x)

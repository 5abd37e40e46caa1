"""Reading commands: the stored games, a game's log as JSON Lines or a spreadsheet, its
sheet and its settlement, as of any point in time (``--at``, ``--deal``, ``--time``),
from the store or straight from an export (``--file``). The sheet and the settlement of
a game of any kind (a pulka, a rubber) are its kind's own documents; the spreadsheet is
a pulka's."""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from cli.common import (
    CURRENT,
    F,
    GameCommand,
    UserError,
    db_option,
    emit,
    game_argument,
    game_name,
    opened,
    point_options,
    progress,
    refusals,
    shown_time,
)
from cli.reading import Read, file_option, folded, only_pulka, read_anyway_option, read_game, table_cap, view
from cli.spreadsheet import cell, emit_csv, write_csv
from ledger.reads.game_documents import listed_doc, status_of
from ledger.judge.kinds import GAME_STARTS, judging_of
from ledger.judge.tables import deal_cap_of
from ledger.store.event_store import bulk
from ledger.vocabulary.events import AnyEvent
from projections.drawing.svg import svg_document
from ledger.vocabulary.logfile import export_line
from projections.audit import totals
from projections.numbers import fmt, money_context
from projections.picture import picture
from projections.deal_text import deal_table
from projections.game import GameState
from projections.points import Point
from projections.pulka import PulkaView
from projections.report import capped, money_text, settlement_of, transfers_doc
from ledger.vocabulary.tournament_events import parse_table_game
from projections.rubber import RubberState
from ledger.vocabulary import language
from ledger.vocabulary.language import N_
from ledger.vocabulary.wording import convention_name, spoken_count

_ = language._  # every text a person reads, in the language in effect

TABLES = ("sheet", "deals", "settlement", "payments")  # a pulka's tables for a spreadsheet
Table = tuple[list[str], list[list[Any]]]


# -- the log ----------------------------------------------------------------------------------


@click.command(cls=GameCommand)
@game_argument
@click.option("--csv", "as_csv", is_flag=True,
              help="For a spreadsheet: each table (sheet, deals, settlement, payments) in a file of its own, "
                   "GAME-TABLE.csv, or one table on standard output with --table.")
@click.option("--table", type=click.Choice(TABLES), help="With --csv: this table alone, on standard output.")
@click.option("--dir", "folder", type=click.Path(file_okay=False), metavar="DIR",
              help="With --csv: the folder of the files (default: this one; made when missing).")
@click.option("--club", is_flag=True,
              help="The whole club as one file, for `pulka import` into a store without it: the register of "
                   "names (pulka alias), each tournament with its tables, every game.")
@file_option
@read_anyway_option
@db_option
def export(game: str, as_csv: bool, table: str | None, folder: str | None, club: bool, file: str | None,
           read_anyway: bool, db: str | None) -> None:
    """Print the game's log as JSON Lines, with what the ledger filled in and each
    event's chain digest (check a copy with `pulka verify --file`); or, with --csv,
    its sheet, deals, settlement and payments for a spreadsheet."""
    if (table or folder) and not as_csv:
        raise click.UsageError(_("--table and --dir go with --csv"))
    if club:
        if game != CURRENT or file is not None or as_csv:
            raise click.UsageError(_("--club exports the whole store: give no GAME, --file or --csv"))
        export_club(db)
        return
    if file is None and not as_csv:
        # Judged whole first (nothing is printed of a game refused), then printed a
        # page at a time, the chain checked again on the way: never held with its digests.
        name = game_name(game, db)
        count = len(read_game(name, db, None, anyway=read_anyway).stored)
        with opened(db) as ledger, progress(_("exporting {game}").format(game=name), count) as update:
            for n, stored in enumerate(ledger.store.stored(name, checked=not read_anyway), start=1):
                click.echo(export_line(stored.event, stored.digest))
                update(n)
        return
    read = read_game(game, db, file, anyway=read_anyway)
    if as_csv:
        only_pulka(read, _("--csv writes a pulka's sheet"))
        state = folded(read, Point())
        cap = table_cap(read, db, file)
        if table is not None:
            emit_csv(*csv_table(state, table, cap))
            return
        where = Path(folder or ".")
        try:
            where.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(_("cannot make the folder {folder}: {reason}").format(
                folder=where, reason=exc.strerror)) from None
        written = []
        for name in TABLES:
            path = where / f"{file_stem(read.game)}-{name}.csv"
            write_csv(path, *csv_table(state, name, cap))
            written.append(str(path))
        click.echo(_("wrote {files}").format(files=", ".join(written)))
        return
    with progress(_("exporting {game}").format(game=read.game), len(read.stored)) as update:
        for n, stored in enumerate(read.stored, start=1):
            click.echo(export_line(stored.event, stored.digest))
            update(n)


def export_club(db: str | None) -> None:
    """Every stream of the store that ``pulka import`` takes back, as one file: the
    club's register first, then each tournament with its tables, then every other game
    (``ledger.desks.streams.club_export``)."""
    from ledger.desks.streams import club_export

    with opened(db) as ledger:
        for line in club_export(ledger):
            click.echo(line)


def file_stem(game: str) -> str:
    """A game's name as the start of a file's name: a table's slashes (``spring/1/2``)
    and anything else a folder could not hold become dashes."""
    return re.sub(r"[^\w.]+", "-", game).strip("-.") or "game"


# -- the games of a store ---------------------------------------------------------------------


# A game's status in the list of games, as players say it (the JSON keeps the word).
GAME_STATUS = {"playing": N_("playing"), "finished": N_("finished"), "abandoned": N_("abandoned"),
               "capped": N_("over at the tournament's deal cap")}


@click.command()
@click.option("--json", "as_json", is_flag=True, help="One JSON object per game, in a list.")
@file_option
@db_option
def games(as_json: bool, file: str | None, db: str | None) -> None:
    """List the stored games (tournaments: `pulka tournament list`): players, convention,
    events, deals, status (playing,
    finished, abandoned), and the times of the first and last event."""
    docs = []
    where = file
    if file is not None:
        read = read_game(CURRENT, db, file)
        docs.append(listed_doc(read.game, fold(read.events)))
    else:
        with opened(db) as ledger:
            where = _("the store {store}").format(store=ledger.store.description)
            names = ledger.store.games(GAME_STARTS)
            with progress(_("reading games"), len(names)) as update:
                caps: dict[str, int | None] = {}  # each tournament's deal cap, read once
                for n, name in enumerate(names, start=1):
                    tournament = (parse_table_game(name) or ("",))[0]
                    if tournament and tournament not in caps:
                        caps[tournament] = deal_cap_of(ledger.store, name)
                    docs.append(listed_doc(name, ledger.state(name), caps.get(tournament)))
                    update(n)
    if as_json:
        emit(docs)
        return
    if not docs:
        click.echo(_("no games stored yet in {store}; start one with `pulka new`").format(store=where))
        return
    for d in docs:
        what = (_("a rubber of bridge") if d.get("kind") == "rubber" else
                _("{convention}, pulya to {pulya}").format(convention=convention_name(d["convention"]),
                                                           pulya=d["pulya"]))
        status = _(GAME_STATUS[d["status"]]) if d["status"] in GAME_STATUS else d["status"]
        click.echo(_("{game}: {players}; {what}; {events}, {deals}, {status}; {first} to {last}").format(
            game=d["game"], players=", ".join(d["players"]), what=what, events=spoken_count(d["events"], "event"),
            deals=spoken_count(d["deals"], "deal"), status=status, first=shown_time(d["first"]),
            last=shown_time(d["last"])))


# -- the sheet and the settlement -------------------------------------------------------------


def pdf_option(what: str) -> Callable[[F], F]:
    return click.option("--pdf", "pdf", metavar="FILE", help=what + " FILE is written (replaced if there).")


@click.command(cls=GameCommand)
@game_argument
@click.option("--json", "as_json", is_flag=True, help="The sheet object of docs/event-log.md.")
@click.option("--svg", "as_svg", is_flag=True, help="The sheet drawn as players know it, with the settlement.")
@pdf_option("The drawn sheet printed on A4, with the settlement and the checkpoint that covers it.")
@point_options
@file_option
@read_anyway_option
@db_option
def sheet(game: str, as_json: bool, as_svg: bool, pdf: str | None, at: int | None, deal: int | None,
          time_: str | None, file: str | None, read_anyway: bool, db: str | None) -> None:
    """The sheet: a pulka's pulya, gora and whists per player, with running entries; a
    rubber's МЫ/ВЫ sheet above and below the line."""
    point = Point(at, deal, time_)
    read = read_game(game, db, file, point, read_anyway)
    if pdf is not None:
        print_game(read, pdf, db, file, point, settlement=False)
        return
    if as_svg:
        only_pulka(read, _("--svg draws a pulka's sheet"))
        with refusals():
            drawn = picture(read.events, point, table_cap(read, db, file))
        if file is None:
            from cli.proofs import attested_history  # the checkpoint that covers what is drawn

            drawn["checkpoint"] = attested_history(db, read.game, drawn.get("event") or len(read.events))["caption"]
        click.echo(svg_document(drawn), nl=False)
        return
    shown_at = view(read, point)
    with bulk():  # the sheet scores every deal of a long game: no collector passes over it
        if as_json:
            emit(shown_at.sheet_doc())
        else:
            click.echo(shown_at.sheet_text(), nl=False)


@click.command(cls=GameCommand)
@game_argument
@click.option("--json", "as_json", is_flag=True, help="The settlement object of docs/event-log.md.")
@click.option("--csv", "as_csv", is_flag=True, help="The settlement for a spreadsheet (--table payments: who pays whom).")
@click.option("--table", type=click.Choice(("settlement", "payments")), default="settlement",
              help="With --csv: the settlement (the default), or who pays whom.")
@pdf_option("The settlement and who pays whom printed on A4, with the checkpoint that covers them.")
@point_options
@file_option
@read_anyway_option
@db_option
def settle(game: str, as_json: bool, as_csv: bool, table: str, pdf: str | None, at: int | None, deal: int | None,
           time_: str | None, file: str | None, read_anyway: bool, db: str | None) -> None:
    """The settlement [Code 4.2.14] and who pays whom; an unfinished pulka settles as
    if abandoned now, an unfinished rubber as if stopped now [Law 80]."""
    point = Point(at, deal, time_)
    read = read_game(game, db, file, point, read_anyway)
    if pdf is not None:
        print_game(read, pdf, db, file, point, settlement=True)
        return
    if as_csv:
        only_pulka(read, _("--csv writes a pulka's sheet"))
        emit_csv(*csv_table(folded(read, point), table, table_cap(read, db, file)))
        return
    shown_at = view(read, point)
    if isinstance(shown_at, PulkaView):  # a tournament's table at its deal cap is over
        shown_at = replace(shown_at, deal_cap=table_cap(read, db, file))
    with bulk():  # the settlement scores every deal of a long game: no collector passes over it
        if as_json:
            emit(shown_at.settlement_doc())
        else:
            click.echo(shown_at.settlement_text(), nl=False)


def print_game(read: Read, target: str, db: str | None, file: str | None, point: Point, *, settlement: bool) -> None:
    """``--pdf``: a pulka of the store, its sheet or its settlement, printed into
    ``target`` (an export file keeps no checkpoint to print beside it)."""
    if file is not None:
        raise click.UsageError(_("--pdf prints a game of the store, not of a file: import it first (pulka import)"))
    only_pulka(read, _("--pdf prints a pulka's sheet and settlement"))
    from cli.printed import write_pdf  # the drawing library only when a page is printed
    from ledger.reads.printing import settlement_pdf_of, sheet_pdf_of

    make = settlement_pdf_of if settlement else sheet_pdf_of
    write_pdf(target, db, lambda ledger: make(ledger, read.game, point))


def fold(events: list[AnyEvent]) -> GameState | RubberState:
    """A game of any kind folded to its end."""
    state: GameState | RubberState = judging_of(events[0]).fold(events)
    return state


# -- spreadsheets -----------------------------------------------------------------------------


def csv_table(state: GameState, name: str, cap: int | None = None) -> Table:
    """One of a pulka's tables for a spreadsheet, its header and its rows: the sheet (a
    row per player), the deals (a row per deal: ``deal_table``), the settlement (a row
    per player, with the pulka's status: ``capped`` at its tournament's deal ``cap``) or
    the payments (who pays whom)."""
    if name == "settlement":
        return settlement_table(state, cap)
    return {"sheet": sheet_table, "deals": deals_table, "payments": payments_table}[name](state)


def sheet_table(state: GameState) -> Table:
    sheet = totals(state.sheet())
    head = ["player", "pulya", "gora", *[f"whists on {q}" for q in state.players]]
    return head, [[p, cell(sheet[(p, "pulya", None)]), cell(sheet[(p, "gora", None)]),
                   *["" if q == p else cell(sheet[(p, "whists", q)]) for q in state.players]]
                  for p in state.players]


def deals_table(state: GameState) -> Table:
    head, rows = deal_table(state)
    return head, [[cell(v) for v in row] for row in rows]


def settlement_table(state: GameState, cap: int | None = None) -> Table:
    sheet = totals(state.sheet())
    s = settlement_of(state)
    status = "capped" if capped(state, cap) else status_of(state)
    head = ["player", "pulya", "gora", "gora after pulya", "result", "result exact", "rounded",
            *(["money"] if s.money is not None else []), "status"]
    return head, [[p, cell(sheet[(p, "pulya", None)]), cell(sheet[(p, "gora", None)]), cell(s.gora[p]),
                   fmt_decimal(s.result[p]), str(s.result[p]), s.rounded[p],
                   *([money_text(s.money[p])] if s.money is not None else []), status]
                  for p in s.players]


def payments_table(state: GameState) -> Table:
    with_money = settlement_of(state).money is not None
    head = ["from", "to", "whists", *(["money"] if with_money else [])]
    return head, [[t["from"], t["to"], t["whists"], *([money_text(Decimal(t["money"]))] if "money" in t else [])]
                  for t in transfers_doc(state)]


def fmt_decimal(x: Fraction) -> str:
    """A result to two decimals, for reading (the exact value stands beside it)."""
    with money_context():
        value = (Decimal(x.numerator) / Decimal(x.denominator)).quantize(Decimal("0.01"))
    return str(value) if x.denominator != 1 else fmt(x)

"""The club archive on the command line: every player's totals (``pulka players``), one
player's history (``pulka player``), aliases (``pulka alias``) and the views that keep
them (``pulka views``). Each read first brings the views up to the last stored event."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import date
from typing import Any

import click

from cli.common import F, UserError, db_option, emit, opened, user_time
from cli.spreadsheet import cell, emit_csv
from ledger.application import Ledger
from ledger.vocabulary import language
from ledger.vocabulary.refusal import excerpt
from ledger.desks.club import record_alias
from ledger.reads.club import brought_up
from ledger.views.archive import Views, ViewsMissing
from projections.archive import (Summary, player_pulkas, player_pulkas_doc, render_player_pulkas, render_summaries,
                                 select_pulkas, summaries, summary_doc)
from projections.tournament_state import point_micros
from ledger.vocabulary.wording import spoken_count

_ = language._  # every text a person reads, in the language in effect

def say_on_stderr(kind: str, text: str) -> None:
    """What catching up the views says (``ledger.reads.club.Say``), on standard error."""
    click.echo(f"pulka: {kind}: {text}", err=True)


@contextmanager
def caught_up_or_refused(ledger: Ledger) -> Iterator[Views]:
    """The store's views brought up to its last event (``ledger.reads.club``), what
    that says on standard error; a store without views is refused."""
    try:
        views = brought_up(ledger, say_on_stderr)
    except ViewsMissing as exc:
        raise UserError(str(exc)) from None
    with closing(views):
        yield views


def warn_left_out(views: Views) -> None:
    """Name on standard error each stream the views left out where its chain breaks."""
    for item in views.left_out():
        say_on_stderr("warning", str(item))


def _date(value: str | None, option: str) -> str | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise UserError(_("{option} {value} is not a date (YYYY-MM-DD)").format(option=option, value=repr(value))) \
            from None


def filter_said(date_from: str | None, date_to: str | None, convention: str | None, time_: str | None,
                known: bool = False) -> str:
    """The archive's filter in the reader's language, for a message; ``known``: the time
    is what the store held then (``--as-known``), not what had been played by then."""
    parts = []
    if date_from or date_to:
        parts.append(_("pulkas started {start} to {end}").format(start=date_from or "…", end=date_to or "…"))
    if convention:
        parts.append(_("convention {convention}").format(convention=convention))
    if time_ and known:
        parts.append(_("as the store held it at {time}").format(time=time_))
    else:
        parts.append(_("as of {time}").format(time=time_) if time_ else _("now"))
    return ", ".join(parts)


def filter_text(date_from: str | None, date_to: str | None, convention: str | None, time_: str | None,
                known: bool = False) -> str:
    """The archive's filter in English, as the JSON documents keep it (``as_of``)."""
    with language.using(language.DEFAULT):
        return filter_said(date_from, date_to, convention, time_, known)


def filters(f: F) -> F:
    f = click.option("--time", "time_", metavar="T",
                     help="What the archive said then: local ('2026-12-01 20:14'; '20:14' today; a date: its end) or with an offset.")(f)
    f = click.option("--convention", metavar="C", help="Only pulkas under this convention.")(f)
    f = click.option("--to", "date_to", metavar="D", help="Only pulkas started on or before this date.")(f)
    f = click.option("--from", "date_from", metavar="D", help="Only pulkas started on or after this date.")(f)
    return f


PLAYER_COLUMNS = ("player", "pulkas", "finished", "abandoned", "in_play", "whists", "money", "average", "best",
                  "worst")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="One object per player.")
@click.option("--csv", "as_csv", is_flag=True, help="For a spreadsheet: one row per player.")
@filters
@db_option
def players(as_json: bool, as_csv: bool, date_from: str | None, date_to: str | None, convention: str | None,
            time_: str | None, db: str | None) -> None:
    """Every player across the stored pulkas: pulkas played (finished and abandoned),
    total whists and money from the rounded settlements, average, best and worst."""
    if as_json and as_csv:
        raise click.UsageError(_("give only one of --json and --csv"))
    start, end = _date(date_from, "--from"), _date(date_to, "--to")
    time_ = user_time(time_, end_of_day=True) if time_ else None
    with opened(db) as ledger, caught_up_or_refused(ledger) as views:
        as_of = point_micros(time_) if time_ else None
        rows = select_pulkas(views.rows(as_of), start, end, convention)
        items = summaries(rows, views.aliases(as_of))
        if as_json:
            emit({"players": [summary_doc(s) for s in items]})
        elif as_csv:
            emit_csv(PLAYER_COLUMNS, [player_row(s) for s in items])
        else:
            click.echo(render_summaries(items, filter_said(start, end, convention, time_)), nl=False)


def player_row(s: Summary) -> list[Any]:
    """A player's totals as a spreadsheet row: the average exact (a decimal, or n/d when
    it has no finite one), blanks where there is nothing."""
    average = s.average
    return [s.player, s.pulkas, s.finished, s.abandoned, s.in_play, s.whists, "" if s.money is None else s.money,
            "" if average is None else cell(average), "" if s.best is None else s.best,
            "" if s.worst is None else s.worst]


@click.command()
@click.argument("name")
@click.option("--json", "as_json", is_flag=True)
@filters
@db_option
def player(name: str, as_json: bool, date_from: str | None, date_to: str | None, convention: str | None,
           time_: str | None, db: str | None) -> None:
    """One player's pulkas, one line each (date, game, convention, seat, result), with a
    running total."""
    start, end = _date(date_from, "--from"), _date(date_to, "--to")
    time_ = user_time(time_, end_of_day=True) if time_ else None
    with opened(db) as ledger, caught_up_or_refused(ledger) as views:
        as_of = point_micros(time_) if time_ else None
        rows = select_pulkas(views.rows(as_of), start, end, convention)
        found = player_pulkas(rows, views.aliases(as_of), name)
        if found is None:
            known = sorted({p for row in rows for p in row.everyone})
            missing = (_("no pulka of {name} in the archive ({filter}); players: {players}") if known
                       else _("no pulka of {name} in the archive ({filter})"))
            raise UserError(missing.format(name=excerpt(name), filter=filter_said(start, end, convention, time_),
                                           players=", ".join(known)))
        if as_json:
            emit(player_pulkas_doc(found))
        else:
            click.echo(render_player_pulkas(found, filter_said(start, end, convention, time_)), nl=False)


@click.command()
@click.argument("name")
@click.argument("same_as")
@click.option("--by", help="The arbiter who records it (arbiter:NAME).")
@db_option
def alias(name: str, same_as: str, by: str | None, db: str | None) -> None:
    """Record that NAME is written for the player SAME_AS (one person, two spellings)."""
    with opened(db, write=True) as ledger, caught_up_or_refused(ledger) as views:
        record_alias(ledger.store, name, same_as, views.aliases(), views.rows(), ledger.clock(), by)
        click.echo(_("{name} is now counted as {same_as}").format(name=name, same_as=same_as))


@click.group()
def views() -> None:
    """The read models of the archive: their state, a full rebuild, a follower."""


@views.command("status")
@db_option
def views_status(db: str) -> None:
    """How far the views have taken in the store's events."""
    with opened(db) as ledger:
        v = Views(ledger.store)
        try:
            if not v.exists():
                raise UserError(_("no views yet: `pulka views rebuild` makes them"))
            click.echo(_("views at event position {position} of {head}").format(position=v.position(), head=v.head()))
        finally:
            v.close()


@views.command("rebuild")
@db_option
def views_rebuild(db: str) -> None:
    """Clear the views and build them again from the first stored event (and make
    their tables when the store has none)."""
    with opened(db, write=True) as ledger:
        v = Views(ledger.store)
        try:
            taken = v.rebuild()
            click.echo(_("views rebuilt from {events}").format(events=spoken_count(taken, "event")))
            warn_left_out(v)
        finally:
            v.close()


@views.command("follow")
@click.option("--for", "seconds", type=float, default=None, help="Stop after this many seconds.")
@db_option
def views_follow(seconds: float | None, db: str | None) -> None:
    """Keep the views current as events are stored, until interrupted (PostgreSQL is
    notified of new events; SQLite is polled)."""
    with opened(db) as ledger:
        v = Views(ledger.store)
        try:
            with v.follow() as runner:
                click.echo(_("following {store} (Ctrl-C stops)").format(store=ledger.store.description), err=True)
                try:
                    runner.run_forever(timeout=seconds)
                except KeyboardInterrupt:
                    pass
            click.echo(_("views at event position {position} of {head}").format(position=v.position(), head=v.head()))
        except ViewsMissing as exc:
            raise UserError(str(exc)) from None
        finally:
            v.close()

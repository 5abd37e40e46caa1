"""The club's numbers on the command line: the rating (``pulka rating``) and a player's
statistics (``pulka stats``), each number traceable to the deals behind it. Parsing and
printing only: the folds are ``projections.rating`` and ``projections.stats``, the
kept rating ``ledger.views.rating``; each read first brings the views up to the last
stored event."""

from __future__ import annotations

import click

from cli.common import UserError, db_option, emit, opened, user_time
from cli.spreadsheet import emit_csv
from cli.players import caught_up_or_refused, filter_said, filter_text
from ledger.club_reads import club_changes, pulkas_with_events
from ledger.vocabulary import language
from ledger.vocabulary.refusal import excerpt
from projections import rating as model
from projections.archive import identities, select_pulkas
from projections.stats import (CSV_COLUMNS, Stats, csv_rows, mine, player_stats, refs_doc, render_refs,
                               render_stats, stats_doc)
from projections.tournament_state import point_micros
from datetime import date

_ = language._  # every text a person reads, in the language in effect

def _date(value: str | None, option: str) -> str | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise UserError(_("{option} {value} is not a date (YYYY-MM-DD)").format(option=option, value=repr(value))) \
            from None


def _one_format(as_json: bool, as_csv: bool, as_html: bool) -> None:
    if sum((as_json, as_csv, as_html)) > 1:
        raise click.UsageError(_("give only one of --json, --csv and --html"))


@click.command()
@click.argument("name", required=False)
@click.option("--at", "at", metavar="TIME",
              help="The rating as the archive stood then: local ('2026-12-01 20:14'; '20:14' today; a date: its end) or with an offset.")
@click.option("--convention", metavar="C", help="Only pulkas under this convention.")
@click.option("--json", "as_json", is_flag=True, help="One JSON document.")
@click.option("--csv", "as_csv", is_flag=True, help="For a spreadsheet.")
@click.option("--html", "as_html", is_flag=True,
              help="One self-contained HTML page: the table with sparklines, each player's charts.")
@db_option
def rating(name: str | None, at: str | None, convention: str | None, as_json: bool, as_csv: bool, as_html: bool,
           db: str | None) -> None:
    """The club rating over every pulka over (OpenSkill, free-for-all by the results);
    with NAME, his rating pulka by pulka, each change with its game."""
    _one_format(as_json, as_csv, as_html)
    at = user_time(at, end_of_day=True) if at else None
    told = filter_text(None, None, convention, at)
    with opened(db) as ledger, caught_up_or_refused(ledger) as views:
        changes, rows, aliases = club_changes(views, point_micros(at) if at else None, convention)
    who = identities(rows, aliases)
    if name is None:
        lines = model.table(changes, who)
        if as_json:
            emit(model.table_doc(lines, told))
        elif as_csv:
            doc = model.table_doc(lines, told)["players"]
            emit_csv(model.TABLE_COLUMNS, [[str(p[c]) for c in model.TABLE_COLUMNS] for p in doc])
        elif as_html:
            from projections.drawing.player import club_html

            histories = [h for x in lines if (h := model.rating_history(changes, who, x.player)) is not None]
            click.echo(club_html(model.table_doc(lines, told), [model.rating_history_doc(h, told) for h in histories]),
                       nl=False)
        else:
            click.echo(model.render_table(lines, told), nl=False)
        return
    found = model.rating_history(changes, who, name)
    if found is None:
        known = sorted({who.name(c.player) for c in changes})
        missing = (_("{name} has no pulka over in the archive ({filter}); rated: {rated}") if known
                   else _("{name} has no pulka over in the archive ({filter})"))
        raise UserError(missing.format(name=excerpt(name), filter=filter_said(None, None, convention, at),
                                       rated=", ".join(known)))
    doc = model.rating_history_doc(found, told)
    if as_json:
        emit(doc)
    elif as_csv:
        emit_csv(model.HISTORY_COLUMNS, [[str(m[c]) for c in model.HISTORY_COLUMNS] for m in doc["matches"]])
    elif as_html:
        from projections.drawing.player import player_html

        click.echo(player_html(doc, None), nl=False)
    else:
        click.echo(model.render_rating_history(found, told), nl=False)


@click.command()
@click.argument("name")
@click.argument("number", required=False)
@click.option("--deals", is_flag=True, help="List the deals (game, deal, event) behind NUMBER.")
@click.option("--from", "date_from", metavar="D", help="Only pulkas started on or after this date.")
@click.option("--to", "date_to", metavar="D", help="Only pulkas started on or before this date.")
@click.option("--convention", metavar="C", help="Only pulkas under this convention.")
@click.option("--json", "as_json", is_flag=True, help="One JSON document.")
@click.option("--csv", "as_csv", is_flag=True, help="For a spreadsheet.")
@click.option("--html", "as_html", is_flag=True,
              help="The player's page: his rating and results per pulka drawn, every number with its deals.")
@db_option
def stats(name: str, number: str | None, deals: bool, date_from: str | None, date_to: str | None,
          convention: str | None, as_json: bool, as_csv: bool, as_html: bool, db: str | None) -> None:
    """A player's statistics: pulkas and results, contracts by level and suit and how
    many made, misères, whists, passes and half-whists and what they brought, raspasy,
    remizes, errors charged by the recording rules, head to head; NUMBER --deals lists
    the deals behind a number (contracts.7, defence.whist, vs.Boris.ahead)."""
    _one_format(as_json, as_csv, as_html)
    if deals and number is None:
        raise click.UsageError(_("--deals needs a NUMBER (contracts.7, misere.made, vs.Boris ...)"))
    start, end = _date(date_from, "--from"), _date(date_to, "--to")
    told = filter_text(start, end, convention, None)
    history = None
    with opened(db) as ledger, caught_up_or_refused(ledger) as views:
        rows = select_pulkas(views.rows(), start, end, convention)
        aliases = views.aliases()
        found = player_stats(rows, aliases, name, pulkas_with_events(ledger, mine(rows, aliases, name)))
        if found is None:
            known = sorted({p for row in rows for p in row.everyone})
            missing = (_("no pulka of {name} in the archive ({filter}); players: {players}") if known
                       else _("no pulka of {name} in the archive ({filter})"))
            raise UserError(missing.format(name=excerpt(name), filter=filter_said(start, end, convention, None),
                                           players=", ".join(known)))
        if as_html:
            changes, all_rows, all_aliases = club_changes(views, None, None)
            history = model.rating_history(changes, identities(all_rows, all_aliases), name)
    if number is not None:
        _number(found, number, deals, as_json, as_csv)
        return
    if as_json:
        emit(stats_doc(found, told))
    elif as_csv:
        emit_csv(CSV_COLUMNS, csv_rows(found))
    elif as_html:
        from projections.drawing.player import player_html

        doc = stats_doc(found, told)
        doc["refs"] = {n: refs_doc(found, n, t)["deals"] for n, t in found.numbers.items()}
        click.echo(player_html(None if history is None else model.rating_history_doc(history, told), doc), nl=False)
    else:
        click.echo(render_stats(found, told), nl=False)


def _number(found: Stats, number: str, deals: bool, as_json: bool, as_csv: bool) -> None:
    tally = found.find(number)
    if tally is None:
        names = ", ".join(found.numbers)
        raise UserError(_("{player} has no number {number}; the numbers: {numbers}").format(
            player=found.player, number=excerpt(number), numbers=names))
    doc = refs_doc(found, number, tally)
    if not deals:
        doc.pop("deals")
    if as_json:
        emit(doc)
    elif as_csv:
        rows = [[d["game"], str(d["deal"] or ""), str(d["event"] or ""), str(d.get("whists_exact", d.get("whists", ""))),
                 d["text"]] for d in refs_doc(found, number, tally)["deals"]]
        emit_csv(("game", "deal", "event", "whists", "text"), rows)
    elif deals:
        click.echo(render_refs(found, number, tally), nl=False)
    else:
        whists = _(", {whists} whists").format(whists=doc["whists"]) if "whists" in doc else ""
        click.echo(f"{found.player} {number}: {tally.count}{whists}")

"""The club's numbers on the command line: the rating (``pulka rating``), the club's
choice of its model (``pulka rating-model``) and a player's statistics (``pulka
stats``), each number traceable to the deals behind it. Parsing and printing only: the
folds are ``projections.rating`` and ``projections.stats``, the kept rating
``ledger.views.rating``, the reads ``ledger.reads.club``; each read first brings the
views up to the last stored event."""

from __future__ import annotations

from datetime import date

import click

from cli.common import UserError, db_option, emit, opened, user_time
from cli.players import caught_up_or_refused, filter_said, filter_text
from cli.spreadsheet import emit_csv
from ledger.reads.club import ClubRating, Then, club_rating, player_statistics, player_totals
from ledger.desks.club import record_model
from ledger.views.rating import model_then
from ledger.vocabulary import language
from ledger.vocabulary.refusal import excerpt
from projections import rating as model
from projections.archive import identities, select_pulkas
from projections.rating_models import MODELS, ParameterError, RatingModel, model_of
from projections.stats import CSV_COLUMNS, Stats, csv_rows, refs_doc, render_refs, render_stats, stats_doc
from projections.tournament_state import point_micros

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


def then_of(at: str | None, as_known: str | None) -> tuple[Then | None, str | None]:
    """``--at`` or ``--as-known``, as a point of the archive's past and its text."""
    if at is not None and as_known is not None:
        raise click.UsageError(_("give only one of --at and --as-known"))
    typed = at if at is not None else as_known
    if typed is None:
        return None, None
    text = user_time(typed, end_of_day=True)
    return Then(point_micros(text), known=as_known is not None), text


def _parameters(items: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise UserError(_("--param {item}: give KEY=VALUE (prior=2)").format(item=excerpt(item)))
        out[key.strip()] = value.strip()
    return out


def model_asked(name: str | None, params: tuple[str, ...]) -> RatingModel | None:
    """``--model NAME --param K=V``: another model to fold the archive with (to compare)."""
    if name is None:
        if params:
            raise click.UsageError(_("--param goes with --model"))
        return None
    try:
        return model_of(name, _parameters(params))
    except ParameterError as exc:
        raise UserError(_("--model {name}: {problem}; the models: {models}").format(
            name=excerpt(name), problem=exc, models=", ".join(MODELS))) from None


WHEN_HELP = "local ('2026-12-01 20:14'; '20:14' today; a date: its end) or with an offset"


@click.command()
@click.argument("name", required=False)
@click.option("--at", "at", metavar="TIME",
              help=f"The rating of the pulkas played by then, as recorded by then: {WHEN_HELP}.")
@click.option("--as-known", "as_known", metavar="TIME",
              help=f"The rating the store could give then (what it held then; an old sheet imported later is not in it): {WHEN_HELP}.")
@click.option("--convention", metavar="C", help="Only pulkas under this convention.")
@click.option("--model", "model_name", metavar="M",
              help="Fold with this model instead of the club's (to compare): whists-per-deal, openskill-places.")
@click.option("--param", "params", multiple=True, metavar="K=V", help="A parameter of --model (repeat it).")
@click.option("--json", "as_json", is_flag=True, help="One JSON document.")
@click.option("--csv", "as_csv", is_flag=True, help="For a spreadsheet.")
@click.option("--html", "as_html", is_flag=True,
              help="One self-contained HTML page: the table with sparklines, each player's charts.")
@db_option
def rating(name: str | None, at: str | None, as_known: str | None, convention: str | None, model_name: str | None,
           params: tuple[str, ...], as_json: bool, as_csv: bool, as_html: bool, db: str | None) -> None:
    """The club rating over every pulka over (the whists a player wins a deal against the
    club's average player, how sure that is, and a provisional mark); with NAME, his
    rating pulka by pulka, each move explained: expected, got, the opponents, the
    uncertainty's share."""
    _one_format(as_json, as_csv, as_html)
    then, when = then_of(at, as_known)
    other = model_asked(model_name, params)
    told = filter_text(None, None, convention, when, as_known is not None)
    with opened(db) as ledger, caught_up_or_refused(ledger) as views:
        rated = club_rating(views, then, convention, other)
    if name is None:
        _table(rated, told, as_json, as_csv, as_html, filter_said(None, None, convention, when, as_known is not None))
        return
    found = model.rating_history(rated.changes, rated.who, name)
    if found is None:
        known = sorted({rated.who.name(c.player) for c in rated.changes})
        missing = (_("{name} has no pulka over in the archive ({filter}); rated: {rated}") if known
                   else _("{name} has no pulka over in the archive ({filter})"))
        raise UserError(missing.format(name=excerpt(name), filter=filter_said(None, None, convention, when,
                                                                              as_known is not None),
                                       rated=", ".join(known)))
    doc = model.rating_history_doc(found, told, rated.model)
    if as_json:
        emit(doc)
    elif as_csv:
        emit_csv(model.HISTORY_COLUMNS, [[str(m[c]) for c in model.HISTORY_COLUMNS] for m in doc["matches"]])
    elif as_html:
        from projections.drawing.player import player_html

        click.echo(player_html(doc, None), nl=False)
    else:
        click.echo(model.render_rating_history(found, filter_said(None, None, convention, when, as_known is not None),
                                               rated.model), nl=False)


def _table(rated: ClubRating, told: str, as_json: bool, as_csv: bool, as_html: bool, said: str) -> None:
    """The club's rating table; ``told``: its filter as the documents keep it (English),
    ``said``: as the reader reads it."""
    lines = rated.table()
    doc = model.table_doc(lines, told, rated.model)
    if as_json:
        emit(doc)
    elif as_csv:
        emit_csv(model.TABLE_COLUMNS, [[str(p[c]) for c in model.TABLE_COLUMNS] for p in doc["players"]])
    elif as_html:
        from projections.drawing.player import club_html

        who = rated.who
        histories = [h for x in lines if (h := model.rating_history(rated.changes, who, x.player)) is not None]
        click.echo(club_html(doc, [model.rating_history_doc(h, told, rated.model) for h in histories]), nl=False)
    else:
        click.echo(model.render_table(lines, said, rated.model), nl=False)


@click.command("rating-model")
@click.argument("model_name", metavar="MODEL", required=False)
@click.option("--param", "params", multiple=True, metavar="K=V", help="A parameter of MODEL (repeat it).")
@click.option("--reason", help="Why the club changes its model (kept in the log).")
@click.option("--by", help="The arbiter who records it (arbiter:NAME).")
@db_option
def rating_model(model_name: str | None, params: tuple[str, ...], reason: str | None, by: str | None,
                 db: str | None) -> None:
    """The club's rating model: without MODEL, the one in effect and the models there
    are; with MODEL, record in the club's log that the club is rated by it from now on
    (compare the tables before and after with `pulka rating --as-known` and `--model`)."""
    if model_name is None:
        with opened(db) as ledger, caught_up_or_refused(ledger) as views:
            now = model_then(views.view.select, None)
        click.echo(_("the club is rated by {model} ({parameters})").format(
            model=now.name, parameters=", ".join(f"{k}={v}" for k, v in now.parameters.items())))
        for known, kind in MODELS.items():
            click.echo(_("  {model}: parameters {parameters}").format(
                model=known, parameters=", ".join(f"{k} {low}..{high}" for k, (low, high) in kind.RANGES.items())))
        return
    with opened(db, write=True) as ledger:
        record_model(ledger.store, model_name, _parameters(params), reason, ledger.clock(), by)
        chosen = model_of(model_name.strip(), _parameters(params))
    click.echo(_("the club is rated by {model} ({parameters}) from now on").format(
        model=chosen.name, parameters=", ".join(f"{k}={v}" for k, v in chosen.parameters.items())))


@click.command()
@click.argument("name")
@click.argument("number", required=False)
@click.option("--deals", is_flag=True, help="List the deals (game, deal, event) behind NUMBER.")
@click.option("--from", "date_from", metavar="D", help="Only pulkas started on or after this date.")
@click.option("--to", "date_to", metavar="D", help="Only pulkas started on or before this date.")
@click.option("--convention", metavar="C", help="Only pulkas under this convention.")
@click.option("--at", "at", metavar="TIME", help=f"As the pulkas stood then, by their events' times: {WHEN_HELP}.")
@click.option("--as-known", "as_known", metavar="TIME", help=f"As the store held them then: {WHEN_HELP}.")
@click.option("--json", "as_json", is_flag=True, help="One JSON document.")
@click.option("--csv", "as_csv", is_flag=True, help="For a spreadsheet.")
@click.option("--html", "as_html", is_flag=True,
              help="The player's page: his rating and results per pulka drawn, every number with its deals.")
@db_option
def stats(name: str, number: str | None, deals: bool, date_from: str | None, date_to: str | None,
          convention: str | None, at: str | None, as_known: str | None, as_json: bool, as_csv: bool, as_html: bool,
          db: str | None) -> None:
    """A player's statistics: pulkas and results, contracts by level and suit and how
    many made, misères, whists, passes and half-whists and what they brought, raspasy,
    remizes, errors charged by the recording rules, head to head; NUMBER --deals lists
    the deals behind a number (contracts.7, defence.whist, vs.Boris.ahead)."""
    _one_format(as_json, as_csv, as_html)
    if deals and number is None:
        raise click.UsageError(_("--deals needs a NUMBER (contracts.7, misere.made, vs.Boris ...)"))
    start, end = _date(date_from, "--from"), _date(date_to, "--to")
    then, when = then_of(at, as_known)
    known = as_known is not None
    told = filter_text(start, end, convention, when, known)
    history = None
    with opened(db) as ledger, caught_up_or_refused(ledger) as views:
        utc = None if then is None else then.utc
        rows = select_pulkas(views.rows(utc, known), start, end, convention)
        aliases = views.aliases(utc, known)
        if then is None and number is None and not as_html:  # his numbers without the deals behind them
            found = player_totals(ledger, views, rows, aliases, name)
        else:
            found = player_statistics(ledger, views, rows, aliases, name, then)
        if found is None:
            players = sorted({p for row in rows for p in row.everyone})
            missing = (_("no pulka of {name} in the archive ({filter}); players: {players}") if players
                       else _("no pulka of {name} in the archive ({filter})"))
            raise UserError(missing.format(name=excerpt(name), filter=filter_said(start, end, convention, when, known),
                                           players=", ".join(players)))
        if as_html:
            rated = club_rating(views, then)
            history = model.rating_history(rated.changes, identities(rated.rows, rated.aliases), name)
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
        click.echo(player_html(None if history is None else model.rating_history_doc(history, told, rated.model), doc),
                   nl=False)
    else:
        click.echo(render_stats(found, filter_said(start, end, convention, when, known)), nl=False)


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

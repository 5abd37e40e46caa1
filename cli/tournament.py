"""``pulka tournament``: start a tournament, seat its tours, start and close them, give
cards, and show its standings and log, as of any tour or time. The table games ``T/R/K``
are recorded with the usual commands (``pulka deal T/1/2 "…"``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import click

from cli.common import NumbersCommand, UserError, db_option, emit, local_zone, opened, shown_time, user_time, zone_name
from cli.players import caught_up_or_refused
from cli.rules import parse_overrides
from ledger.desks.tournament import Tournaments
from ledger.reads.tournament_report import report_html
from ledger.vocabulary import language
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.tournament_events import DEFAULT_TIE_BREAKS, TIE_BREAKS, TournamentStarted
from ledger.words.tournament import parse_cut, parse_cutoff, parse_tie_breaks
from projections.archive import GameResult
from ledger.vocabulary.wording import spoken_count
from projections.tournament_state import (
    TournamentState,
    as_tournament_event,
    point_micros,
    render_standings,
    standings_doc,
)
from projections.tournament_log import effect, log_rows, render_log

_ = language._  # every text a person reads, in the language in effect

@click.group()
def tournament() -> None:
    """Tournaments: tours of tables, seated by hand, by lot or Swiss; standings as of any
    tour or time."""


@tournament.command("new")
@click.argument("name")
@click.option("--players", required=True, help="Comma-separated entrants, in the order of entry.")
@click.option("--convention", default="sochi", show_default=True)
@click.option("--pulya", type=int, required=True, help="The pulya target of every table.")
@click.option("--tours", type=int, help="How many tours.")
@click.option("--deal-cap", type=int, help="A table's pulka ends after this many deals (settled as abandoned).")
@click.option("--table-size", type=click.IntRange(3, 4), default=4, show_default=True)
@click.option("--rule", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a parameter of the rule set.")
@click.option("--rules-file", type=click.Path(exists=True, dir_okay=False))
@click.option("--cutoff", metavar="UPTO:RATE,…", help="Tour points from whists, e.g. 200:1,650:1/10,*:0.")
@click.option("--tie-breaks", metavar="LIST",
              help=f"Order of tie-breaks, of {','.join(TIE_BREAKS)} (default {','.join(DEFAULT_TIE_BREAKS)}); "
                   "lot last.")
@click.option("--lot-seed", metavar="SEED", help="The seed of the tie-break lot (default: a random one, recorded).")
@click.option("--removal-below", type=int, metavar="W", help="A tour result below W whists: a yellow card, next tour sat out.")
@click.option("--cards", "cards", type=int, default=2, show_default=True, help="Yellow cards that disqualify.")
@click.option("--cut", "cuts", multiple=True, metavar="TOUR:KEEP", help="After TOUR only the first KEEP go on.")
@click.option("--final-table", type=int, metavar="N", help="The last tour is one final table of N (3 or 4).")
@click.option("--by", help="The arbiter (arbiter:NAME).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing.")
@db_option
def new_tournament(
    name: str, players: str, convention: str, pulya: int, tours: int | None, deal_cap: int | None,
    table_size: int, overrides: tuple[str, ...], rules_file: str | None, cutoff: str | None,
    tie_breaks: str | None, lot_seed: str | None, removal_below: int | None, cards: int, cuts: tuple[str, ...],
    final_table: int | None, by: str | None, quiet: bool, db: str | None,
) -> None:
    """Start a tournament: its rules are recorded in its first event."""
    rules = parse_overrides(overrides, rules_file)
    with option_words():
        segments, order, rules_of_cut = parse_cutoff(cutoff), parse_tie_breaks(tie_breaks), [parse_cut(c) for c in cuts]
    with opened(db, write=True) as ledger:
        started = Tournaments(ledger).start(
            name, players.split(","), pulya, convention=convention, rules=rules, tours=tours, deal_cap=deal_cap,
            table_size=table_size, cutoff=segments, tie_breaks=order, lot_seed=lot_seed, removal_below=removal_below,
            cards=cards, cuts=rules_of_cut, final_table=final_table, by=by)
        if not quiet:
            click.echo(effect(started, TournamentState.start(started)))


@contextmanager
def option_words() -> Iterator[None]:
    """The tournament's words of the options read (``ledger.words.tournament``): a word
    refused is said as the command line says a mistake in an option, its reason alone."""
    try:
        yield
    except Refused as exc:
        raise UserError(exc.reason) from None


@tournament.command("list")
@db_option
def list_(db: str) -> None:
    """The stored tournaments."""
    with opened(db) as ledger:
        for name in ledger.store.games(TournamentStarted):
            click.echo(name)


@tournament.command(cls=NumbersCommand)
@click.argument("name")
@click.argument("tour", type=int)
@click.argument("table", type=int, required=False)
@click.argument("players", required=False)
@click.option("--auto", is_flag=True, help="Seat the whole tour: tour 1 by lot, later tours Swiss, the final table.")
@click.option("--seed", help="The seed of the lot (default: a random one, recorded).")
@click.option("--by", help="The arbiter (arbiter:NAME).")
@db_option
def seat(name: str, tour: int, table: int | None, players: str | None, auto: bool, seed: str | None,
         by: str | None, db: str | None) -> None:
    """Seat table TABLE of tour TOUR (PLAYERS comma-separated, clockwise), or the whole
    tour with --auto."""
    with opened(db, write=True) as ledger:
        tournaments = Tournaments(ledger)
        if auto:
            if table is not None or players is not None:
                raise UserError(_("--auto seats a whole tour: give the tournament and the tour only"))
            stored = tournaments.seat_auto(name, tour, seed, by)
        else:
            if table is None or players is None:
                raise UserError(_("give TABLE and PLAYERS (e.g. 2 Anna,Boris,Vera), or --auto"))
            stored = tournaments.seat(name, tour, table, [p.strip() for p in players.split(",")], by)
        state = tournaments.state(name)
        for s in stored:
            click.echo(f"{s.number}: " + effect(as_tournament_event(s.event), state))


@tournament.command("start", cls=NumbersCommand)
@click.argument("name")
@click.argument("tour", type=int)
@click.option("--by", help="The arbiter (arbiter:NAME).")
@db_option
def start_tour(name: str, tour: int, by: str | None, db: str | None) -> None:
    """Start the game T/R/K of every seated table of tour TOUR, under the tournament's rules."""
    with opened(db, write=True) as ledger:
        started = Tournaments(ledger).start_tables(name, tour, by)
        if not started:
            click.echo(_("every seated table of tour {tour} has its game already").format(tour=tour))
        for outcome in started:
            first = outcome.stored[0].event
            click.echo(_("started {game}: {players} ({at})").format(
                game=outcome.game, players=", ".join(outcome.state.players), at=first.at))


@tournament.command(cls=NumbersCommand)
@click.argument("name")
@click.argument("tour", type=int)
@click.option("--by", help="The arbiter (arbiter:NAME).")
@click.option("--key", metavar="FILE", help="The arbiter's private key: he signs the close (and what it brings); the "
              "club's next checkpoint covers it.")
@db_option
def close(name: str, tour: int, by: str | None, key: str | None, db: str | None) -> None:
    """Close tour TOUR once every table's pulka is over: each table's result is recorded,
    with the cards, removals and cuts it brings."""
    from cli.proofs import read_signer

    signer = read_signer(key) if key is not None else None
    with opened(db, write=True) as ledger:
        tournaments = Tournaments(ledger)
        stored = tournaments.close(name, tour, by, signer)
        state = tournaments.state(name)
        for s in stored:
            click.echo(f"{s.number}: " + effect(as_tournament_event(s.event), state))
        if signer is not None:
            from ledger.proofs.checkpoints import Attestations

            for number, signed in sorted(Attestations(ledger.store).signatures(name).items()):
                if any(s.number == number for s in stored):
                    click.echo(_("event {number} signed by {signers}").format(
                        number=number, signers=", ".join(s.signer for s in signed)))


@tournament.command()
@click.argument("name")
@click.argument("player")
@click.option("--reason", required=True)
@click.option("--by", help="The arbiter (arbiter:NAME).")
@db_option
def card(name: str, player: str, reason: str, by: str | None, db: str | None) -> None:
    """An arbiter's yellow card to PLAYER in the current tour (the last card disqualifies)."""
    with opened(db, write=True) as ledger:
        tournaments = Tournaments(ledger)
        stored = tournaments.card(name, player, reason, by)
        state = tournaments.state(name)
        for s in stored:
            click.echo(f"{s.number}: " + effect(as_tournament_event(s.event), state))


@tournament.command("standings")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True)
@click.option("--tour", type=int, metavar="R", help="As they stood after tour R was closed.")
@click.option("--time", "time_", metavar="T",
              help="As they stood then: local ('2026-12-01 20:14'; '20:14' today; a date: its end) or with an offset.")
@click.option("--as-known", "as_known", metavar="T",
              help="As the store held them then (a table recorded later is not in them): local or with an offset.")
@click.option("--replay", is_flag=True, help="Read the tables in play by replaying them, not from the views.")
@click.option("--pdf", "pdf", metavar="FILE",
              help="The standings printed on A4, now or after --tour, with the checkpoint that covers them. FILE is "
                   "written (replaced if there).")
@db_option
def print_standings(name: str, as_json: bool, tour: int | None, time_: str | None, as_known: str | None, replay: bool,
                    pdf: str | None, db: str | None) -> None:
    """The standings after the tours closed, with the tables still in play beside them."""
    if pdf is not None:
        if time_ is not None or as_known is not None or replay or as_json:
            raise click.UsageError(_("--pdf prints the standings now or after a tour (--tour): not with --time, "
                                     "--as-known, --replay or --json"))
        from cli.printed import write_pdf  # the drawing library only when a page is printed
        from ledger.reads.printing import standings_pdf_of

        write_pdf(pdf, db, lambda ledger: standings_pdf_of(ledger, name, tour, caught_up_or_refused))
        return
    if as_known is not None:
        if tour is not None or time_ is not None or replay:
            raise click.UsageError(_("--as-known goes alone: not with --tour, --time or --replay"))
        _standings_known(name, user_time(as_known, end_of_day=True), as_json, db)
        return
    time_ = user_time(time_, end_of_day=True) if time_ else None
    with opened(db) as ledger:
        tournaments = Tournaments(ledger)

        def live(state: TournamentState, at: str | None) -> Mapping[str, GameResult]:
            if replay:
                return tournaments.replayed(state, at)
            with caught_up_or_refused(ledger) as views:
                return views.tables(state.name, point_micros(at) if at else None)

        table, state = tournaments.standings(name, tour, time_, live)
        if as_json:
            emit(standings_doc(table))
        else:
            point = (_("replayed to its close") if tour is not None
                     else _("as of {time}").format(time=time_) if time_ else _("now"))
            click.echo(render_standings(table, state, point), nl=False)


def _standings_known(name: str, known: str, as_json: bool, db: str | None) -> None:
    """The standings as the store held them at ``known`` (``ledger.views`` records when
    the store held each event)."""
    when = point_micros(known)
    with opened(db) as ledger:
        tournaments = Tournaments(ledger)
        with caught_up_or_refused(ledger) as views:
            upto = views.known_versions(when).get(name, 0)
            tables = views.tables(name, when, known=True)
        table, state = tournaments.standings_known(name, upto, known, tables)
    if as_json:
        emit(standings_doc(table))
    else:
        click.echo(render_standings(table, state, _("as the store held it at {time}").format(time=known)), nl=False)


@tournament.command("log")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True)
@db_option
def print_log(name: str, as_json: bool, db: str | None) -> None:
    """Every event of the tournament with its effect."""
    with opened(db) as ledger:
        rows = log_rows([s.event for s in Tournaments(ledger).events(name)])
        if as_json:
            emit({"tournament": name, "events": [
                {"number": r.number, "at": r.at, "by": r.by, "type": r.type, "effect": r.effect} for r in rows]})
        else:  # as a game's log shows its times: in the local zone, named
            click.echo(_("log of tournament {name}: {events}; times in {zone}").format(
                name=name, events=spoken_count(len(rows), "event"), zone=zone_name(local_zone())))
            click.echo(render_log(rows, shown_time), nl=False)


@tournament.command("export")
@click.argument("name")
@db_option
def export_tournament(name: str, db: str | None) -> None:
    """Print the tournament's events and every table's game as JSON Lines (import the
    file with `pulka import`, check it with `pulka verify --file`)."""
    with opened(db) as ledger:
        for line in Tournaments(ledger).export(name):
            click.echo(line)


@tournament.command("report")
@click.argument("name")
@db_option
def print_report(name: str, db: str | None) -> None:
    """One HTML file, nothing fetched: the standings after each tour (a slider, the
    tables in play last) and every table's sheet, drawn."""
    with opened(db) as ledger:
        click.echo(report_html(ledger, name, caught_up_or_refused), nl=False)

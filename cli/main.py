"""The ``pulka`` command: argument parsing and printing only.

Every command opens the store named by ``--db`` / ``PULKA_DB`` (a file path: the
embedded SQLite store; a ``postgresql://`` address: PostgreSQL), calls the ledger
or a projection, and prints. A refused input prints its reason on standard error
and exits with status 1; it never shows a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import click

from ledger.commands import Refused
from ledger.events import (
    Abandoned,
    AnyEvent,
    Annulled,
    Bid,
    Contract,
    Defence,
    Entry,
    GameStarted,
    PencilDown,
    Tricks,
    event_to_dict,
)
from ledger.rules import PRESETS, RuleSetError, find_preset
from ledger.service import Ledger, parse_export
from ledger.store import ConcurrentWriteError, Store, StoreError
from projections.report import (
    Point,
    PointError,
    render_settlement,
    render_sheet,
    settlement_doc,
    sheet_doc,
    state_at,
)

F = TypeVar("F", bound=Callable[..., Any])
PROGRESS_FROM = 2000  # events: a long import reports its progress on standard error


class UserError(click.ClickException):
    """A refusal: reason on standard error, exit status 1."""

    exit_code = 1

    def show(self, file: Any = None) -> None:
        click.echo(f"pulka: {self.message}", err=True)


def db_option(f: F) -> F:
    return click.option(
        "--db",
        envvar="PULKA_DB",
        default="pulka.db",
        show_default=True,
        help="SQLite file, or a postgresql:// address.",
    )(f)


def point_options(f: F) -> F:
    f = click.option("--time", "time_", metavar="T", help="As of this ISO 8601 time.")(f)
    f = click.option("--deal", "deal", type=int, metavar="K", help="As of the end of deal K.")(f)
    f = click.option("--at", "at", type=int, metavar="N", help="As of the N-th event of the game.")(f)
    return f


@contextmanager
def opened(db: str) -> Iterator[Ledger]:
    try:
        store = Store(db)
    except StoreError as exc:
        raise UserError(f"cannot open the store {db!r}: {exc}") from None
    try:
        yield Ledger(store)
    except Refused as exc:
        raise UserError(f"refused: {exc}") from None
    except (PointError, RuleSetError) as exc:
        raise UserError(str(exc)) from None
    except ConcurrentWriteError as exc:
        raise UserError(f"not stored: {exc}") from None
    except StoreError as exc:
        raise UserError(f"store error: {exc}") from None
    finally:
        store.close()


def emit(doc: Any) -> None:
    click.echo(json.dumps(doc, ensure_ascii=False))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pulka")
def main() -> None:
    """pulka: an event-sourced ledger for Preferans scores.

    Record a pulka as immutable events, show its sheet, settle it, and replay it
    to any point in time.
    """


# -- games and logs ---------------------------------------------------------------------


@main.command()
@click.argument("game")
@click.option("--players", required=True, help="Comma-separated, clockwise: Anna,Boris,Vera")
@click.option("--convention", default="sochi", show_default=True, help="sochi, leningrad (piter), rostov, classic")
@click.option("--pulya", type=int, default=20, show_default=True, help="The target of every pulya.")
@click.option("--stake", help="Money per whist, e.g. 0.10")
@click.option("--first-dealer", help="Who deals first (default: the last player).")
@click.option("--rule", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a parameter of the rule set.")
@click.option("--rules-file", type=click.Path(exists=True, dir_okay=False), help="A TOML file of parameter overrides.")
@click.option("--by", help="Who records it.")
@db_option
def new(
    game: str, players: str, convention: str, pulya: int, stake: str | None, first_dealer: str | None,
    overrides: tuple[str, ...], rules_file: str | None, by: str | None, db: str,
) -> None:
    """Start a pulka."""
    from cli.rulesarg import parse_overrides

    with opened(db) as ledger:
        rules = parse_overrides(overrides, rules_file)
        started = GameStarted(
            game=game,
            players=tuple(p.strip() for p in players.split(",")),
            convention=convention,
            pulya=pulya,
            rules=rules,
            stake=stake,
            first_dealer=first_dealer,
            by=by,
        )
        recorded = ledger.create(started)
        if not recorded.created:
            raise UserError(f"game {game!r} exists already")
        stored = recorded.stored[0].event
        assert isinstance(stored, GameStarted) and stored.rule_set is not None
        click.echo(f"started {game}: {', '.join(stored.players)}; {stored.rule_set.convention}, "
                   f"pulya to {pulya}; {stored.first_dealer} deals first")


@main.command("import")
@click.argument("file", type=click.File("r", encoding="utf-8-sig"))
@db_option
def import_(file: Any, db: str) -> None:
    """Store a log (a new game, or events appended to a stored game). All or nothing."""
    from ledger.service import check_export

    text = file.read()
    with opened(db) as ledger:
        exported = parse_export(text)
        check_export(exported)
        lines = [(line, event) for line, event, _ in exported]
        show = len(lines) >= PROGRESS_FROM

        def progress(done: int, total: int) -> None:
            if show:
                click.echo(f"\rjudged {done}/{total} events", err=True, nl=done == total)

        recorded = ledger.record_lines(lines, progress=progress)
        verb = "created" if recorded.created else "appended to"
        click.echo(f"{verb} {recorded.game}: {len(recorded.stored)} events stored")


@main.command()
@click.argument("game")
@db_option
def export(game: str, db: str) -> None:
    """Print the game's log as JSON Lines, with what the ledger filled in and each
    event's chain digest (check a copy with `pulka verify --file`)."""
    from ledger.service import export_line

    with opened(db) as ledger:
        for stored in ledger.events(game):
            click.echo(export_line(stored.event, stored.digest))


@main.command()
@db_option
def games(db: str) -> None:
    """List the stored games."""
    with opened(db) as ledger:
        for name in ledger.store.games():
            click.echo(name)


# -- reading ------------------------------------------------------------------------------


@main.command()
@click.argument("game")
@click.option("--json", "as_json", is_flag=True, help="The sheet object of event-log.md.")
@point_options
@db_option
def sheet(game: str, as_json: bool, at: int | None, deal: int | None, time_: str | None, db: str) -> None:
    """The pulka: pulya, gora and whists per player, with running entries."""
    point = Point(at, deal, time_)
    with opened(db) as ledger:
        state = state_at([s.event for s in ledger.events(game)], point)
        if as_json:
            emit(sheet_doc(state.sheet()))
        else:
            click.echo(render_sheet(state, point), nl=False)


@main.command()
@click.argument("game")
@click.option("--json", "as_json", is_flag=True, help="The settlement object of event-log.md.")
@point_options
@db_option
def settle(game: str, as_json: bool, at: int | None, deal: int | None, time_: str | None, db: str) -> None:
    """The settlement [Code 4.2.14]; an unfinished pulka settles as if abandoned now."""
    point = Point(at, deal, time_)
    with opened(db) as ledger:
        state = state_at([s.event for s in ledger.events(game)], point)
        if as_json:
            emit(settlement_doc(state))
        else:
            click.echo(render_settlement(state, point), nl=False)


# -- recording at the table ----------------------------------------------------------------


def record(db: str, game: str, *events: AnyEvent) -> None:
    with opened(db) as ledger:
        stored = ledger.append(game, events)
        for s in stored:
            doc = event_to_dict(s.event)
            doc.pop("at", None)
            click.echo(f"{s.number}: " + json.dumps(doc, ensure_ascii=False))


@main.command()
@click.argument("game")
@click.argument("line")
@db_option
def deal(game: str, line: str, db: str) -> None:
    """Record a whole deal: "BIDS | CONTRACT | CALLS | TRICKS".

    e.g. pulka deal club-7 "6S pass pass | 6S | whist pass:open | 6 3 1";
    raspasy: "pass pass pass | 2 3 5". Bids and calls in turn order; tricks in turn
    order from the forehand.
    """
    from ledger.quick import deal_events

    with opened(db) as ledger:
        state = ledger.state(game)
        events = deal_events(state, line)
    record(db, game, *events)


@main.command()
@click.argument("game")
@click.argument("player")
@click.argument("bid")
@click.option("--by")
@db_option
def bid(game: str, player: str, bid: str, by: str | None, db: str) -> None:
    """A bid: 6S ... 10NT, misere, pass, here."""
    record(db, game, Bid(player=player, bid=bid, by=by))


@main.command()
@click.argument("game")
@click.argument("player")
@click.argument("contract")
@click.option("--by")
@db_option
def contract(game: str, player: str, contract: str, by: str | None, db: str) -> None:
    """The declarer's contract (again to change it before anyone whists)."""
    record(db, game, Contract(player=player, contract=contract, by=by))


@main.command()
@click.argument("game")
@click.argument("player")
@click.argument("call", type=click.Choice(["whist", "pass", "half_whist"]))
@click.option("--open", "open_", is_flag=True, help="An open whist.")
@click.option("--by")
@db_option
def defence(game: str, player: str, call: str, open_: bool, by: str | None, db: str) -> None:
    """A defender's call: whist, pass or half_whist."""
    record(db, game, Defence(player=player, call=call, open=True if open_ else None, by=by))  # type: ignore[arg-type]


@main.command()
@click.argument("game")
@click.argument("counts", nargs=-1, required=True, metavar="NAME=N...")
@click.option("--deal", "deal_no", type=int, help="The forgotten result of an earlier deal (rule 4.2.10).")
@click.option("--by")
@db_option
def tricks(game: str, counts: tuple[str, ...], deal_no: int | None, by: str | None, db: str) -> None:
    """Tricks taken: Anna=6 Boris=3 Vera=1."""
    result: dict[str, int] = {}
    for item in counts:
        name, sep, n = item.partition("=")
        if not sep or not n.strip().lstrip("-").isdigit():
            raise UserError(f"refused: {item!r} is not NAME=N")
        result[name] = int(n)
    record(db, game, Tricks(tricks=result, deal=deal_no, by=by))


@main.command()
@click.argument("game")
@click.argument("player")
@click.argument("column", type=click.Choice(["pulya", "gora", "whists"]))
@click.argument("amount", type=int)
@click.option("--on", help="For whists: on whom.")
@click.option("--deal", "deal_no", type=int, help="A late record of an earlier deal.")
@click.option("--by")
@db_option
def entry(game: str, player: str, column: str, amount: int, on: str | None, deal_no: int | None,
          by: str | None, db: str) -> None:
    """A number written by hand (transcribing a paper sheet, a house rule)."""
    record(db, game, Entry(player=player, column=column, amount=amount, on=on, deal=deal_no, by=by))  # type: ignore[arg-type]


@main.command()
@click.argument("game")
@click.argument("player")
@db_option
def pencil(game: str, player: str, db: str) -> None:
    """The recorder puts his pencil down (rule 4.2.8)."""
    record(db, game, PencilDown(player=player))


@main.command()
@click.argument("game")
@click.option("--reason", default="", help="e.g. misdeal")
@click.option("--by")
@db_option
def annul(game: str, reason: str, by: str | None, db: str) -> None:
    """The current deal is void; the same dealer deals again."""
    record(db, game, Annulled(reason=reason, by=by))


@main.command()
@click.argument("game")
@click.option("--agreed-by", required=True, help="All players, comma-separated.")
@click.option("--by")
@db_option
def abandon(game: str, agreed_by: str, by: str | None, db: str) -> None:
    """Stop the pulka early by agreement of all players (rule 4.2.3)."""
    record(db, game, Abandoned(agreed_by=tuple(p.strip() for p in agreed_by.split(",")), by=by))


# -- the audit trail, time travel, tamper evidence ----------------------------------------


def parse_point(text: str) -> Point:
    """``12`` (event 12), ``deal:3`` (end of deal 3) or an ISO 8601 time."""
    if text.isdigit():
        return Point(at=int(text))
    if text.startswith("deal:") and text[5:].isdigit():
        return Point(deal=int(text[5:]))
    return Point(time=text)


@main.command("log")
@click.argument("game")
@click.option("--json", "as_json", is_flag=True)
@point_options
@db_option
def log_(game: str, as_json: bool, at: int | None, deal: int | None, time_: str | None, db: str) -> None:
    """Every event with its number, time, recorder, what it did to the sheet and,
    for a correction, objection or late record, the rule and the verdict."""
    from projections.audit import audit, render_audit, row_doc
    from projections.report import cut

    with opened(db) as ledger:
        events = cut([s.event for s in ledger.events(game)], Point(at, deal, time_))
        rows = audit(events)
        if as_json:
            emit({"game": game, "events": [row_doc(r) for r in rows]})
        else:
            click.echo(render_audit(rows), nl=False)


@main.command()
@click.argument("game")
@click.argument("number", metavar="PLAYER.COLUMN[.ON]")
@click.option("--json", "as_json", is_flag=True)
@point_options
@db_option
def explain(game: str, number: str, as_json: bool, at: int | None, deal: int | None, time_: str | None,
            db: str) -> None:
    """Trace one number of the sheet (Anna.pulya, Anna.gora, Anna.whists.Boris) to its events."""
    from projections.audit import explain as explain_cell
    from projections.audit import parse_cell, render_explain

    with opened(db) as ledger:
        state = state_at([s.event for s in ledger.events(game)], Point(at, deal, time_))
        try:
            cell = parse_cell(number, state.players)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        rows = explain_cell(state, cell)
        if as_json:
            emit({"game": game, "number": number, "writes": rows})
        else:
            click.echo(render_explain(cell, rows), nl=False)


@main.command()
@click.argument("game")
@click.argument("from_", metavar="FROM")
@click.argument("to", metavar="TO")
@click.option("--json", "as_json", is_flag=True)
@db_option
def diff(game: str, from_: str, to: str, as_json: bool, db: str) -> None:
    """What changed between two points (event N, deal:K, or a time), and which events did it."""
    from projections.audit import diff as diff_points
    from projections.audit import render_diff

    with opened(db) as ledger:
        doc = diff_points([s.event for s in ledger.events(game)], parse_point(from_), parse_point(to))
        if as_json:
            emit(doc)
        else:
            click.echo(render_diff(doc), nl=False)


@main.command()
@click.argument("game", required=False)
@click.option("--file", "file", type=click.File("r", encoding="utf-8-sig"), help="Check an export instead.")
@db_option
def verify(game: str | None, file: Any, db: str) -> None:
    """Check the hash chain of one game or of every game; exit 1 naming the first bad event."""
    from ledger.chain import verify_chain
    from ledger.service import parse_export

    if file is not None:
        lines = parse_export(file.read())
        first = lines[0][1]
        name = first.game if isinstance(first, GameStarted) else "?"
        rows = [(i, event, digest or "") for i, (_, event, digest) in enumerate(lines, start=1)]
        problem = verify_chain(name, rows)
        if problem is not None:
            raise UserError(f"export of {name}: {problem}")
        click.echo(f"export of {name}: {len(rows)} events, chain intact")
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


@main.command()
@click.argument("game")
@click.argument("target", type=int)
@click.argument("fields", nargs=-1, required=True, metavar="FIELD=VALUE...")
@click.option("--by", help="Who asks for the correction (default: the record's recorder).")
@click.option("--waive", is_flag=True, help="The wronged partner waives the penalty whists.")
@db_option
def correct(game: str, target: int, fields: tuple[str, ...], by: str | None, waive: bool, db: str) -> None:
    """Correct event TARGET: amount=6, tricks='{"Anna":6,"Boris":3,"Vera":1}', contract=7S."""
    from cli.rulesarg import parse_value
    from ledger.events import Correction

    replacement: dict[str, Any] = {}
    for item in fields:
        key, sep, value = item.partition("=")
        if not sep:
            raise UserError(f"refused: {item!r} is not FIELD=VALUE")
        replacement[key] = parse_value(value)
    record(db, game, Correction(target=target, replacement=replacement, by=by,
                                penalty="waived" if waive else None))


@main.command("object")
@click.argument("game")
@click.argument("player")
@click.argument("deal_no", type=int, metavar="DEAL")
@click.option("--target", type=int, help="The late record objected to.")
@db_option
def object_(game: str, player: str, deal_no: int, target: int | None, db: str) -> None:
    """A partner refuses a late record of DEAL (rule 4.2.10)."""
    from ledger.events import Objection

    record(db, game, Objection(player=player, deal=deal_no, target=target))


@main.command()
@click.argument("game")
@click.argument("player")
@click.argument("column", type=click.Choice(["pulya", "gora", "whists"]))
@click.argument("amount", type=int)
@click.option("--on", help="For whists: on whom.")
@click.option("--reason", required=True)
@click.option("--by", required=True, help="arbiter:NAME")
@db_option
def penalty(game: str, player: str, column: str, amount: int, on: str | None, reason: str, by: str,
            db: str) -> None:
    """An arbiter's ruling written on the sheet (rule 4.2.16)."""
    from ledger.events import Penalty

    record(db, game, Penalty(player=player, column=column, amount=amount, on=on, reason=reason, by=by))  # type: ignore[arg-type]


# -- rule sets --------------------------------------------------------------------------------


@main.command()
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True)
def rules(name: str | None, as_json: bool) -> None:
    """List the presets, or show every parameter of one."""
    from cli.rulesarg import describe_rules

    if name is None:
        if as_json:
            emit(sorted(PRESETS))
        else:
            for preset_name in PRESETS:
                click.echo(preset_name)
        return
    try:
        preset = find_preset(name)
    except RuleSetError as exc:
        raise UserError(str(exc)) from None
    if as_json:
        from ledger.rules import rule_set_to_dict

        emit(rule_set_to_dict(preset))
    else:
        click.echo(describe_rules(preset), nl=False)


if __name__ == "__main__":  # pragma: no cover
    main()

"""Recording commands: start a pulka, import a log, and the scorer's commands at the
table (a whole deal in one line, or event by event), corrections, objections and an
arbiter's penalties. Each one is one call of ``Ledger.execute``: one load, one
judgement of every new event, one save.
"""

from __future__ import annotations

import json
from typing import Any

import click

from cli.common import UserError, by_option, db_option, opened
from cli.rules import parse_overrides, parse_value
from ledger.command.dealline import deal_events
from ledger.command.store import StoredEvent
from ledger.vocabulary.events import (
    Abandoned,
    AnyEvent,
    Annulled,
    Bid,
    Contract,
    Correction,
    Defence,
    Entry,
    GameStarted,
    Objection,
    PencilDown,
    Penalty,
    PenaltyTrick,
    Tricks,
    event_to_dict,
)
from ledger.vocabulary.logfile import check_export, parse_export

PROGRESS_FROM = 2000  # events: a long import reports its progress on standard error


@click.command()
@click.argument("game")
@click.option("--players", required=True, help="Comma-separated, clockwise: Anna,Boris,Vera")
@click.option("--convention", default="sochi", show_default=True, help="sochi, leningrad (piter), rostov, classic")
@click.option("--pulya", type=int, default=20, show_default=True, help="The target of every pulya.")
@click.option("--stake", help="Money per whist, e.g. 0.10")
@click.option("--first-dealer", help="Who deals first (default: the last player).")
@click.option("--rule", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a parameter of the rule set.")
@click.option("--rules-file", type=click.Path(exists=True, dir_okay=False), help="A TOML file of parameter overrides.")
@by_option
@db_option
def new(
    game: str, players: str, convention: str, pulya: int, stake: str | None, first_dealer: str | None,
    overrides: tuple[str, ...], rules_file: str | None, by: str | None, db: str,
) -> None:
    """Start a pulka."""
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


@click.command("import")
@click.argument("file", type=click.File("r", encoding="utf-8-sig"))
@db_option
def import_(file: Any, db: str) -> None:
    """Store a log (a new game, or events appended to a stored game). All or nothing."""
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


# -- recording at the table ----------------------------------------------------------------


def record(db: str, game: str, *events: AnyEvent) -> None:
    with opened(db) as ledger:
        show(ledger.execute(game, lambda state: events).stored)


def show(stored: list[StoredEvent]) -> None:
    for s in stored:
        doc = event_to_dict(s.event)
        doc.pop("at", None)
        click.echo(f"{s.number}: " + json.dumps(doc, ensure_ascii=False))


@click.command()
@click.argument("game")
@click.argument("line")
@by_option
@db_option
def deal(game: str, line: str, by: str | None, db: str) -> None:
    """Record a whole deal: "BIDS | CONTRACT | CALLS | TRICKS".

    e.g. pulka deal club-7 "6S pass pass | 6S | whist pass:open | 6 3 1";
    raspasy: "pass pass pass | 2 3 5". Bids and calls in turn order; tricks in turn
    order from the forehand. With four players the whisting dealer names the hand he
    plays: "whist@Boris"; dark bids: "pass:dark"; a misère shared with the dealer:
    "misere:shared".
    """
    with opened(db) as ledger:
        stored = ledger.execute(game, lambda state: deal_events(state, line, by)).stored
        show(stored)


@click.command()
@click.argument("game")
@click.argument("player")
@click.argument("bid")
@click.option("--dark", is_flag=True, help="Said without looking at the cards (rule 3.3.19).")
@by_option
@db_option
def bid(game: str, player: str, bid: str, dark: bool, by: str | None, db: str) -> None:
    """A bid: 6S ... 10NT, misere, pass, here."""
    record(db, game, Bid(player=player, bid=bid, dark=dark, by=by))


@click.command()
@click.argument("game")
@click.argument("player")
@click.argument("contract")
@click.option("--shared-with", help="The dealer who shares the misère in halves (rule 3.6.9).")
@by_option
@db_option
def contract(game: str, player: str, contract: str, shared_with: str | None, by: str | None, db: str) -> None:
    """The declarer's contract (again to change it before anyone whists)."""
    record(db, game, Contract(player=player, contract=contract, shared_with=shared_with, by=by))


@click.command()
@click.argument("game")
@click.argument("player")
@click.argument("call", type=click.Choice(["whist", "pass", "half_whist"]))
@click.option("--open", "open_", is_flag=True, help="An open whist.")
@click.option("--hand", help="Four players: the defender whose cards the whisting dealer plays (rule 3.8.8).")
@by_option
@db_option
def defence(game: str, player: str, call: str, open_: bool, hand: str | None, by: str | None, db: str) -> None:
    """A defender's call: whist, pass or half_whist (with four players the dealer's too)."""
    record(db, game, Defence(player=player, call=call, open=True if open_ else None, hand=hand, by=by))  # type: ignore[arg-type]


@click.command()
@click.argument("game")
@click.argument("counts", nargs=-1, required=True, metavar="NAME=N...")
@click.option("--deal", "deal_no", type=int, help="The forgotten result of an earlier deal (rule 4.2.10).")
@click.option("--penalty", "penalties", multiple=True, metavar="NAME=N@RULE",
              help="Penalty tricks: Anna=1@3.4.9 (rules 3.4.6, 3.4.9, 3.9.11.2, 3.9.18, 3.2.16).")
@by_option
@db_option
def tricks(game: str, counts: tuple[str, ...], deal_no: int | None, penalties: tuple[str, ...], by: str | None,
           db: str) -> None:
    """Tricks taken: Anna=6 Boris=3 Vera=1."""
    result = name_numbers(counts)
    penalty_tricks = []
    for item in penalties:
        what, sep, rule = item.partition("@")
        if not sep:
            raise UserError(f"refused: {item!r} is not NAME=N@RULE")
        ((name, n),) = name_numbers((what,)).items()
        penalty_tricks.append(PenaltyTrick(player=name, tricks=n, rule=rule))
    record(db, game, Tricks(tricks=result, deal=deal_no, penalty_tricks=tuple(penalty_tricks), by=by))


def name_numbers(items: tuple[str, ...]) -> dict[str, int]:
    """NAME=N arguments as a mapping; anything else is refused."""
    result: dict[str, int] = {}
    for item in items:
        name, sep, n = item.partition("=")
        if not sep or not n.strip().lstrip("-").isdigit():
            raise UserError(f"refused: {item!r} is not NAME=N")
        result[name] = int(n)
    return result


@click.command()
@click.argument("game")
@click.argument("player")
@click.argument("column", type=click.Choice(["pulya", "gora", "whists"]))
@click.argument("amount", type=int)
@click.option("--on", help="For whists: on whom.")
@click.option("--deal", "deal_no", type=int, help="A late record of an earlier deal.")
@by_option
@db_option
def entry(game: str, player: str, column: str, amount: int, on: str | None, deal_no: int | None,
          by: str | None, db: str) -> None:
    """A number written by hand (transcribing a paper sheet, a house rule)."""
    record(db, game, Entry(player=player, column=column, amount=amount, on=on, deal=deal_no, by=by))  # type: ignore[arg-type]


@click.command()
@click.argument("game")
@click.argument("player")
@by_option
@db_option
def pencil(game: str, player: str, by: str | None, db: str) -> None:
    """The recorder (a player, or scorer:NAME) puts his pencil down (rule 4.2.8)."""
    record(db, game, PencilDown(player=player, by=by))


@click.command()
@click.argument("game")
@click.option("--reason", default="", help="e.g. misdeal")
@click.option("--dealer-error", is_flag=True,
              help="The dealer's own error: a warning, the second at one deal a remiz and the deal passes on (3.2.17).")
@by_option
@db_option
def annul(game: str, reason: str, dealer_error: bool, by: str | None, db: str) -> None:
    """The current deal is void; the same dealer deals again."""
    record(db, game, Annulled(reason=reason, dealer_error=dealer_error, by=by))


@click.command()
@click.argument("game")
@click.option("--agreed-by", help="All players, comma-separated (rule 4.2.3).")
@click.option("--demanded-by", help="One player's demand to settle at once in an emergency (rules 4.2.15, 5.4.18).")
@click.option("--reason", default="", help="Why, with --demanded-by.")
@by_option
@db_option
def abandon(game: str, agreed_by: str | None, demanded_by: str | None, reason: str, by: str | None,
            db: str) -> None:
    """Stop the pulka early: by agreement of all players, or on one player's demand."""
    if (agreed_by is None) == (demanded_by is None):
        raise UserError("refused: give --agreed-by (all players) or --demanded-by (one player, with --reason)")
    agreed = tuple(p.strip() for p in agreed_by.split(",")) if agreed_by else ()
    record(db, game, Abandoned(agreed_by=agreed, demanded_by=demanded_by, reason=reason, by=by))


# -- the audit trail, time travel, tamper evidence ----------------------------------------
@click.command()
@click.argument("game")
@click.argument("target", type=int)
@click.argument("fields", nargs=-1, required=True, metavar="FIELD=VALUE...")
@click.option("--by", envvar="PULKA_BY", help="Who asks for the correction (default: PULKA_BY, else the record's recorder).")
@click.option("--waive", is_flag=True, help="The wronged partner waives the penalty whists.")
@db_option
def correct(game: str, target: int, fields: tuple[str, ...], by: str | None, waive: bool, db: str) -> None:
    """Correct event TARGET: amount=6, tricks='{"Anna":6,"Boris":3,"Vera":1}', contract=7S."""
    replacement: dict[str, Any] = {}
    for item in fields:
        key, sep, value = item.partition("=")
        if not sep:
            raise UserError(f"refused: {item!r} is not FIELD=VALUE")
        replacement[key] = parse_value(value)
    record(db, game, Correction(target=target, replacement=replacement, by=by,
                                penalty="waived" if waive else None))


@click.command("object")
@click.argument("game")
@click.argument("player")
@click.argument("deal_no", type=int, metavar="DEAL")
@click.option("--target", type=int, help="The late record objected to.")
@by_option
@db_option
def object_(game: str, player: str, deal_no: int, target: int | None, by: str | None, db: str) -> None:
    """A partner refuses a late record of DEAL (rule 4.2.10)."""
    record(db, game, Objection(player=player, deal=deal_no, target=target, by=by))


@click.command()
@click.argument("game")
@click.argument("player")
@click.argument("column", type=click.Choice(["pulya", "gora", "whists"]))
@click.argument("amount", type=int)
@click.option("--wronged", help="For whists: the wronged player, who writes them on PLAYER.")
@click.option("--reason", required=True)
@click.option("--by", required=True, envvar="PULKA_BY", help="arbiter:NAME")
@db_option
def penalty(game: str, player: str, column: str, amount: int, wronged: str | None, reason: str, by: str,
            db: str) -> None:
    """An arbiter's penalty on PLAYER (rule 4.2.16); it never benefits him: gora up,
    pulya down (a negative AMOUNT), whists written on him by the wronged player."""
    record(db, game, Penalty(player=player, column=column, amount=amount, wronged=wronged, reason=reason, by=by))  # type: ignore[arg-type]


# -- rule sets --------------------------------------------------------------------------------

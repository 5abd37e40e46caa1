"""The commands of a rubber of bridge: ``pulka bridge new``, ``deal``, ``penalty``,
``correct`` and ``abandon``.

What reads a game works on a rubber as on a pulka and is shared: ``sheet``, ``settle``,
``log``, ``explain``, ``diff``, ``verify``, ``export``, ``import`` and ``games`` dispatch
on the game's first event. Each command here is one call of ``Ledger.create`` or
``Ledger.execute`` with the rubber's kind (on a pulka it is refused), and says what it
did: the events, the points they wrote, the verdicts, and who deals next.
"""

from __future__ import annotations

from typing import Any

import click
import msgspec

from cli.common import (
    GameCommand,
    UserError,
    db_option,
    emit,
    game_argument,
    game_name,
    opened,
    set_current,
)
from cli.record import report_options
from cli.rules import parse_overrides, parse_value
from ledger.command.application import Command, Outcome
from ledger.command.kinds import RUBBER
from ledger.command.rubberline import correction_words, player_of, rubber_deal
from ledger.command.words import recorder_word
from ledger.vocabulary.bridge import BridgePenalty, RubberStarted
from ledger.vocabulary.events import Abandoned, AnyEvent, Correction, event_to_dict
from ledger.vocabulary.refusal import cite
from projections.numbers import exact_fields, signed
from projections.rubber import RubberState
from projections.rubber_report import describe, side_cell_text, status
from projections.rubber_report import totals as cells_of
from projections.trail import changes


@click.group()
def bridge() -> None:
    """Rubber bridge on the same ledger: start a rubber and record it deal by deal.

    Its sheet, settlement, log, explain, diff, verify, export and import are the
    shared commands (pulka sheet RUBBER, ...).
    """


# -- what a command did -------------------------------------------------------------------------


def tell(outcome: Outcome[RubberState], *, quiet: bool, as_json: bool) -> None:
    """The events a command stored, the points they wrote, the verdicts, and what comes next."""
    state: RubberState = outcome.state
    writes = changes(outcome.totals_before, cells_of(state.sheet()))
    verdicts = [(s.number, state.effects[s.number]) for s in outcome.stored if s.number in state.effects]
    sheet = state.sheet()
    nxt = (status(state) if state.over else
           f"deal {state.current_deal_number + 1}: {state.dealer(state.current_deal_number + 1)} deals")
    if as_json:
        emit({
            "game": outcome.game,
            "events": [{"number": s.number, **event_to_dict(s.event)} for s in outcome.stored],
            "writes": [{"side": c[0], "line": c[1], **exact_fields("amount", v)} for c, v in writes.items()],
            "verdicts": [{"number": n, "effective": e.effective, "rule": e.rule, "reason": e.reason}
                         for n, e in verdicts],
            "vulnerable": {side: sheet.vulnerable(side) for side in ("NS", "EW")},
            "next": nxt,
            "over": state.over,
        })
    elif not quiet:
        for s in outcome.stored:
            click.echo(f"event {s.number}: {describe(state, s.event)}")
        for c, v in writes.items():
            click.echo(f"  {side_cell_text(c)} {signed(v)}")
        for n, e in verdicts:
            if e.effective:
                click.echo(f"verdict on event {n}: effective [{cite(e.rule)}]: {e.reason}")
        click.echo(nxt)
    for n, e in verdicts:
        if not e.effective and not quiet:
            click.echo(f"pulka: event {n}: no effect [{cite(e.rule)}]: {e.reason}", err=True)


def record(db: str | None, game: str, command: Command[RubberState], *, quiet: bool, as_json: bool) -> None:
    name = game_name(game, db)
    with opened(db, write=True) as ledger:
        outcome = ledger.execute(name, command, kind=RUBBER)
    tell(outcome, quiet=quiet, as_json=as_json)


def by_in(state: RubberState, by: str | None) -> str | None:
    return recorder_word(state.players, by)


# -- the commands ---------------------------------------------------------------------------------


@bridge.command()
@click.argument("game")
@click.option("--players", required=True, help="Four names, clockwise from North: N,E,S,W (N-S is МЫ).")
@click.option("--stake", help="Money per 100 points, e.g. 0.10")
@click.option("--first-dealer", help="Who deals first (default: North, the first player).")
@click.option("--rule", "overrides", multiple=True, metavar="KEY=VALUE",
              help="honours=false, unfinished_part_score=50, rounding=hundred")
@click.option("--by", help="Who records it.")
@db_option
def new(game: str, players: str, stake: str | None, first_dealer: str | None, overrides: tuple[str, ...],
        by: str | None, db: str | None) -> None:
    """Start a rubber; it becomes the current game."""
    names = tuple(p.strip() for p in players.split(","))
    with opened(db, write=True) as ledger:
        started = RubberStarted(
            game=game,
            players=names,
            stake=stake,
            first_dealer=player_of(names, first_dealer) if first_dealer and len(names) == 4 else first_dealer,
            rules=parse_overrides(overrides, None),
            by=by,
        )
        recorded = ledger.create(started)
        if not recorded.created:
            raise UserError(f"game {game!r} exists already")
    set_current(db, game)
    stored = recorded.stored[0].event
    assert isinstance(stored, RubberStarted)
    n, e, s, w = stored.players
    click.echo(f"started rubber {game}: N–S {n} and {s} (МЫ), E–W {e} and {w} (ВЫ); "
               f"{stored.first_dealer} deals first")
    click.echo(f"{game} is now the current game: commands may leave its name out")


@bridge.command(cls=GameCommand)
@game_argument
@click.argument("line")
@click.option("--by", help="Who records it (default: the declarer; a passed-out deal: the dealer).")
@report_options
@db_option
def deal(game: str, line: str, by: str | None, quiet: bool, as_json: bool, db: str | None) -> None:
    """Record a deal: "CONTRACT [X[@SEAT]] [XX[@SEAT]] DECLARER RESULT [hon SEAT POINTS]", or "pass".

    e.g. pulka bridge deal r1 "4S X@E N 10"; "3NT S -1"; "4H W = hon E 100"; "pass".
    The declarer is a seat (N, E, S, W) or a name; the result is the tricks the
    declarer's side took, or =, +N, -N against the contract. X@E: East doubled;
    XX@N: North redoubled [Law 19].
    """
    def command(state: RubberState) -> list[AnyEvent]:
        event = rubber_deal(state.players, line)
        return [msgspec.structs.replace(event, by=by_in(state, by)) if by else event]

    record(db, game, command, quiet=quiet, as_json=as_json)


@bridge.command(cls=GameCommand)
@game_argument
@click.argument("side", type=click.Choice(["NS", "EW"], case_sensitive=False))
@click.argument("points", type=int)
@click.option("--reason", required=True)
@click.option("--by", required=True, help="arbiter:NAME, or the player who records the agreed ruling")
@report_options
@db_option
def penalty(game: str, side: str, points: int, reason: str, by: str, quiet: bool, as_json: bool,
            db: str | None) -> None:
    """Points above the line for a side by ruling (never towards a game)."""
    def command(state: RubberState) -> list[AnyEvent]:
        return [BridgePenalty(side=side.upper(), points=points, reason=reason,  # type: ignore[arg-type]
                              by=by_in(state, by))]

    record(db, game, command, quiet=quiet, as_json=as_json)


@bridge.command(cls=GameCommand, game_given=lambda w: len(w) >= 3 and (not w[0].isdigit() or w[1].isdigit()))
@game_argument
@click.argument("target", type=int)
@click.argument("changes_", nargs=-1, required=True, metavar="FIELD=VALUE...")
@click.option("--by", help="Who asks for the correction (default: the record's recorder).")
@report_options
@db_option
def correct(game: str, target: int, changes_: tuple[str, ...], by: str | None, quiet: bool, as_json: bool,
            db: str | None) -> None:
    """Correct event TARGET [Law 77]: tricks=10, contract=3NT, double=X (or none),
    declarer=Anna, doubled_by=E, redoubled_by=S, honours=S:100 (or none, or
    '{"player":"Vera","points":100}'); a ruling's side, points or reason."""
    replacement: dict[str, Any] = {}
    for item in changes_:
        key, sep, value = item.partition("=")
        if not sep:
            raise UserError(f"refused: {item!r} is not FIELD=VALUE")
        replacement[key] = parse_value(value)

    def command(state: RubberState) -> list[AnyEvent]:
        fields = correction_words(state.players, replacement)
        return [Correction(target=target, replacement=fields, by=by_in(state, by))]

    record(db, game, command, quiet=quiet, as_json=as_json)


@bridge.command(cls=GameCommand)
@game_argument
@click.option("--agreed-by", required=True, help="All four players, comma-separated.")
@click.option("--by")
@report_options
@db_option
def abandon(game: str, agreed_by: str, by: str | None, quiet: bool, as_json: bool, db: str | None) -> None:
    """Stop the rubber by agreement of all four: it is scored as unfinished [Law 80]."""
    def command(state: RubberState) -> list[AnyEvent]:
        agreed = tuple(player_of(state.players, p.strip()) for p in agreed_by.split(","))
        return [Abandoned(agreed_by=agreed, by=by_in(state, by))]

    record(db, game, command, quiet=quiet, as_json=as_json)

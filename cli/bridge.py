"""The commands of a rubber of bridge: ``pulka bridge new``, ``deal``, ``penalty``,
``correct`` and ``abandon``, each a command of the rubber's desk
(``ledger.desks.rubber.RubberDesk``).

What reads a game works on a rubber as on a pulka and is shared: ``sheet``, ``settle``,
``log``, ``explain``, ``diff``, ``verify``, ``export``, ``import`` and ``games`` dispatch
on the game's first event. Each command here is one call of ``Ledger.create`` or
``Ledger.execute`` with the rubber's kind (on a pulka it is refused), and says what it
did: the events, the points they wrote, the verdicts, and who deals next.
"""

from __future__ import annotations

from collections.abc import Callable

import click

from cli.common import (
    GameCommand,
    UserError,
    db_option,
    game_argument,
    game_name,
    opened,
    session_kept,
    made_current,
    store_key,
)
from cli.recording import report_options, tell
from cli.rules import parse_overrides
from ledger.desks.rubber import RubberDesk
from ledger.desks.told import Told
from ledger.vocabulary import language
from ledger.vocabulary.bridge import RubberStarted
from ledger.vocabulary.wording import digits

_ = language._  # every text a person reads, in the language in effect


@click.group()
def bridge() -> None:
    """Rubber bridge on the same ledger: start a rubber and record it deal by deal.

    Its sheet, settlement, log, explain, diff, verify, export and import are the
    shared commands (pulka sheet RUBBER, ...).
    """


def record_rubber(db: str | None, game: str, act: Callable[[RubberDesk, str], Told], *, quiet: bool,
                  as_json: bool) -> None:
    """Run one recording command of the rubber's desk and say what it did (as a pulka's
    commands say it: ``cli.recording.tell``)."""
    name = game_name(game, db)
    with opened(db, write=True) as ledger:
        told = act(RubberDesk(ledger, kept=session_kept()), name)
    tell(told, quiet=quiet, as_json=as_json)


# -- the commands ---------------------------------------------------------------------------------


@bridge.command("new")
@click.argument("game")
@click.option("--players", required=True, help="Four names, clockwise from North: N,E,S,W (N-S is МЫ).")
@click.option("--stake", help="Money per 100 points, e.g. 0.10")
@click.option("--first-dealer", help="Who deals first (default: North, the first player).")
@click.option("--rule", "overrides", multiple=True, metavar="KEY=VALUE",
              help="honours=false, unfinished_part_score=50, rounding=hundred")
@click.option("--by", help="Who records it.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing.")
@db_option
def bridge_new(game: str, players: str, stake: str | None, first_dealer: str | None, overrides: tuple[str, ...],
               by: str | None, quiet: bool, db: str | None) -> None:
    """Start a rubber; it becomes the current game."""
    with opened(db, write=True) as ledger:
        started = RubberDesk(ledger).new(game, players, stake=stake, first_dealer=first_dealer,
                                         rules=parse_overrides(overrides, None), by=by)
        if not started.created:
            raise UserError(_("game {game} exists already").format(game=repr(game)))
    current = made_current(db, game)
    stored = started.event
    assert isinstance(stored, RubberStarted)
    if quiet:
        return
    n, e, s, w = stored.players
    click.echo(_("started rubber {game}: N–S {n} and {s} (МЫ), E–W {e} and {w} (ВЫ); {dealer} deals first").format(
        game=game, n=n, s=s, e=e, w=w, dealer=stored.first_dealer))
    if current:
        click.echo(_("{game} is now the current game: commands may leave its name out (the store: {store})").format(
            game=game, store=store_key(db)))


@bridge.command("deal", cls=GameCommand)
@game_argument
@click.argument("line")
@click.option("--by", help="Who records it (default: the declarer; a passed-out deal: the dealer).")
@report_options
@db_option
def bridge_deal(game: str, line: str, by: str | None, quiet: bool, as_json: bool, db: str | None) -> None:
    """Record a deal: "CONTRACT [X[@SEAT]] [XX[@SEAT]] DECLARER RESULT [hon SEAT POINTS]", or "pass".

    e.g. pulka bridge deal r1 "4S X@E N 10"; "3NT S -1"; "4H W = hon E 100"; "pass".
    The declarer is a seat (N, E, S, W) or a name; the result is the tricks the
    declarer's side took, or =, +N, -N against the contract. X@E: East doubled;
    XX@N: North redoubled [Law 19].
    """
    record_rubber(db, game, lambda desk, name: desk.deal(name, line, by=by), quiet=quiet, as_json=as_json)


@bridge.command("penalty", cls=GameCommand)
@game_argument
@click.argument("side", type=click.Choice(["NS", "EW"], case_sensitive=False))
@click.argument("points", type=int)
@click.option("--reason", required=True)
@click.option("--by", required=True, help="arbiter:NAME, or the player who records the agreed ruling")
@report_options
@db_option
def bridge_penalty(game: str, side: str, points: int, reason: str, by: str, quiet: bool, as_json: bool,
                   db: str | None) -> None:
    """Points above the line for a side by ruling (never towards a game)."""
    record_rubber(db, game, lambda desk, name: desk.penalty(name, side, points, reason=reason, by=by),
                  quiet=quiet, as_json=as_json)


@bridge.command("correct", cls=GameCommand, game_given=lambda w: len(w) >= 3 and (not digits(w[0]) or digits(w[1])))
@game_argument
@click.argument("target", type=int)
@click.argument("changes_", nargs=-1, required=True, metavar="FIELD=VALUE...")
@click.option("--by", help="Who asks for the correction (default: the record's recorder).")
@report_options
@db_option
def bridge_correct(game: str, target: int, changes_: tuple[str, ...], by: str | None, quiet: bool, as_json: bool,
                   db: str | None) -> None:
    """Correct event TARGET [Law 77]: tricks=10, contract=3NT, double=X (or none),
    declarer=Anna, doubled_by=E, redoubled_by=S, honours=S:100 (or none, or
    '{"player":"Vera","points":100}'); a ruling's side, points or reason."""
    fields: dict[str, str] = {}
    for item in changes_:
        key, sep, value = item.partition("=")
        if not sep:
            raise UserError(_("refused: {item} is not FIELD=VALUE").format(item=repr(item)))
        fields[key] = value
    record_rubber(db, game, lambda desk, name: desk.correct(name, target, fields, by=by), quiet=quiet, as_json=as_json)


@bridge.command("abandon", cls=GameCommand)
@game_argument
@click.option("--agreed-by", required=True, help="All four players, comma-separated.")
@click.option("--by")
@report_options
@db_option
def bridge_abandon(game: str, agreed_by: str, by: str | None, quiet: bool, as_json: bool, db: str | None) -> None:
    """Stop the rubber by agreement of all four: it is scored as unfinished [Law 80]."""
    record_rubber(db, game, lambda desk, name: desk.abandon(name, agreed_by=agreed_by, by=by), quiet=quiet,
                  as_json=as_json)

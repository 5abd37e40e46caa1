"""The commands of a rubber of bridge: ``pulka bridge new``, ``deal`` and ``penalty``.

Everything else works on a rubber as on a pulka and is shared: ``sheet``, ``settle``,
``log``, ``explain``, ``diff``, ``verify``, ``export``, ``import``, ``correct`` and
``abandon`` dispatch on the game's first event. Each command here is one call of
``Ledger.create`` or ``Ledger.execute``.
"""

from __future__ import annotations

import click
import msgspec

from cli.common import UserError, db_option, opened
from cli.record import show
from cli.rules import parse_overrides
from ledger.command.kinds import RUBBER
from ledger.command.rubberline import rubber_deal
from ledger.vocabulary.bridge import SIDE_NAMES, BridgePenalty, RubberStarted
from ledger.vocabulary.events import AnyEvent
from projections.rubber import RubberState


@click.group()
def bridge() -> None:
    """Rubber bridge on the same ledger: start a rubber and record it deal by deal."""


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
        by: str | None, db: str) -> None:
    """Start a rubber."""
    with opened(db) as ledger:
        started = RubberStarted(
            game=game,
            players=tuple(p.strip() for p in players.split(",")),
            stake=stake,
            first_dealer=first_dealer,
            rules=parse_overrides(overrides, None),
            by=by,
        )
        recorded = ledger.create(started)
        if not recorded.created:
            raise UserError(f"game {game!r} exists already")
        stored = recorded.stored[0].event
        assert isinstance(stored, RubberStarted)
        n, e, s, w = stored.players
        click.echo(f"started rubber {game}: N–S {n} and {s} (МЫ), E–W {e} and {w} (ВЫ); "
                   f"{stored.first_dealer} deals first")


@bridge.command()
@click.argument("game")
@click.argument("line")
@click.option("--by", help="Who records it (default: the declarer).")
@db_option
def deal(game: str, line: str, by: str | None, db: str) -> None:
    """Record a deal: "CONTRACT [X|XX] DECLARER RESULT [hon SEAT POINTS]", or "pass".

    e.g. pulka bridge deal r1 "4S X N 10"; "3NT S -1"; "4H W = hon E 100"; "pass".
    The declarer is a seat (N, E, S, W) or a name; the result is the tricks the
    declarer's side took, or =, +N, -N against the contract.
    """
    def events(state: RubberState) -> list[AnyEvent]:
        event = rubber_deal(state.players, line)
        return [msgspec.structs.replace(event, by=by) if by else event]

    with opened(db) as ledger:
        show(ledger.execute(game, events, kind=RUBBER).stored)


@bridge.command()
@click.argument("game")
@click.argument("side", type=click.Choice(["NS", "EW"], case_sensitive=False))
@click.argument("points", type=int)
@click.option("--reason", required=True)
@click.option("--by", required=True, help="arbiter:NAME, or the player who records the agreed ruling")
@db_option
def penalty(game: str, side: str, points: int, reason: str, by: str, db: str) -> None:
    """Points above the line for a side by ruling (never towards a game)."""
    with opened(db) as ledger:
        event = BridgePenalty(side=side.upper(), points=points, reason=reason, by=by)  # type: ignore[arg-type]
        stored = ledger.execute(game, lambda state: [event], kind=RUBBER).stored
        show(stored)
        click.echo(f"{points} above the line to {SIDE_NAMES[side.upper()]}")

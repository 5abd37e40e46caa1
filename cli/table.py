"""Recording what happens around the cards: a deal out of turn, a deal closed by a ruling
or an agreement, a newcomer, a leaver, a substitute, and the talon's records. Each is
one call of ``Ledger.execute``, like every recording command (``cli.record``)."""

from __future__ import annotations

import click

from cli.common import UserError, by_option, db_option
from cli.record import name_numbers, record
from ledger.vocabulary.events import Dealt, Joined, Left, Ruling, Substituted, Talon


def names(text: str | None) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.split(",")) if text else ()


@click.command()
@click.argument("game")
@click.argument("player")
@by_option
@db_option
def dealt(game: str, player: str, by: str | None, db: str) -> None:
    """PLAYER dealt the next deal out of turn and it stands (rule 3.2.14); the deal
    after it is dealt by the player to his left."""
    record(db, game, Dealt(player=player, by=by))


@click.command()
@click.argument("game")
@click.argument("rule", type=click.Choice(["3.3.16.3", "3.4.4", "3.5.4", "3.9.22"]))
@click.argument("counts", nargs=-1, metavar="[NAME=N...]")
@click.option("--offender", help="3.3.16.3: who exposed the talon.")
@click.option("--whists", "whists", multiple=True, metavar="NAME=N",
              help="3.3.16.3: the whists a wronged player writes on the offender (repeat).")
@click.option("--agreed-by", help="3.9.22: every player, comma-separated.")
@click.option("--reason", default="")
@by_option
@db_option
def ruling(game: str, rule: str, counts: tuple[str, ...], offender: str | None, whists: tuple[str, ...],
           agreed_by: str | None, reason: str, by: str | None, db: str) -> None:
    """Close the current deal by a ruling or an agreement, and move the deal on:
    3.3.16.3 the talon exposed in the auction (--offender, --whists); 3.4.4 a
    declaration against the rules that stands (a remiz without all); 3.5.4 the
    declarer concedes without all (NAME=N: the defenders' split, else 5 and 5);
    3.9.22 a result agreed by all without play (NAME=N tricks, --agreed-by)."""
    tricks = name_numbers(counts) if counts else None
    ruled = name_numbers(whists) if whists else None
    if rule == "3.9.22" and agreed_by is None:
        raise UserError("refused: an agreed result needs --agreed-by, every player [rule 3.9.22]")
    record(db, game, Ruling(rule=rule, tricks=tricks, offender=offender, whists=ruled, agreed_by=names(agreed_by),
                            reason=reason, by=by))


@click.command()
@click.argument("game")
@click.argument("player")
@click.option("--agreed-by", required=True, help="The three players, comma-separated.")
@by_option
@db_option
def join(game: str, player: str, agreed_by: str, by: str | None, db: str) -> None:
    """A fourth player joins with everyone's consent (rule 3.1.2): he writes the mean
    pulya and gora, sits to the left of the last dealer and deals next."""
    record(db, game, Joined(player=player, agreed_by=names(agreed_by), by=by))


@click.command()
@click.argument("game")
@click.argument("player")
@click.option("--reason", default="")
@by_option
@db_option
def leave(game: str, player: str, reason: str, by: str | None, db: str) -> None:
    """PLAYER leaves a four-handed pulka; his columns stay and are settled at the end
    (rule 5.4.18)."""
    record(db, game, Left(player=player, reason=reason, by=by))


@click.command()
@click.argument("game")
@click.argument("player")
@click.argument("substitute")
@click.option("--agreed-by", required=True, help="The other players, comma-separated.")
@by_option
@db_option
def substitute(game: str, player: str, substitute: str, agreed_by: str, by: str | None, db: str) -> None:
    """SUBSTITUTE takes PLAYER's seat and its columns with the others' consent (rule 5.4.7)."""
    record(db, game, Substituted(player=player, substitute=substitute, agreed_by=names(agreed_by), by=by))


@click.command()
@click.argument("game")
@click.argument("kind", type=click.Choice(["peek", "refused", "premium"]))
@click.argument("player")
@click.option("--tricks", type=int, default=0, help="premium: the tricks the talon gave (1, 2 or 3).")
@by_option
@db_option
def talon(game: str, kind: str, player: str, tricks: int, by: str | None, db: str) -> None:
    """The talon: PLAYER looked at it before it was bought (peek, rule 3.2.21); the
    declarer refused it (refused, 3.4.10); it gave the declarer tricks, the dealer's
    premium (premium, 3.4.11)."""
    record(db, game, Talon(kind=kind, player=player, tricks=tricks, by=by))  # type: ignore[arg-type]

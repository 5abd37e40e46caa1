"""Recording what happens around the cards: a deal out of turn, a deal closed by a ruling
or an agreement, a newcomer, a leaver, a substitute, and the talon's records. Each is
one command of the scorer's desk (``ledger.desks.pulka.PulkaDesk``), like every
recording command (``cli.record``), and says what it did."""

from __future__ import annotations

import click

from cli.common import GameCommand, complete_player, db_option, game_argument
from cli.recording import by_option, record_pulka, report_options
from ledger.vocabulary.wording import digits


@click.command(cls=GameCommand)
@game_argument
@click.argument("player", shell_complete=complete_player)
@by_option
@report_options
@db_option
def dealt(game: str, player: str, by: str | None, quiet: bool, as_json: bool, db: str | None) -> None:
    """PLAYER dealt the next deal out of turn and it stands [Code 3.2.14]; the deal after it is dealt by the player to his left."""
    record_pulka(db, game, lambda desk, name: desk.dealt(name, player, by=by), quiet=quiet, as_json=as_json)


RULES = ["3.3.16.2", "3.3.16.3", "3.4.4", "3.5.4", "3.8.5.1", "3.9.22"]


@click.command(cls=GameCommand, game_given=lambda words: bool(words) and not digits(words[0][:1]))
@game_argument
@click.argument("rule", type=click.Choice(RULES))
@click.argument("counts", nargs=-1, metavar="[NAME=N...]")
@click.option("--offender", metavar="NAME", help="3.3.16.2, 3.3.16.3: who exposed the talon.")
@click.option("--whists", "whists", multiple=True, metavar="NAME=N",
              help="3.3.16.3: the whists a wronged player writes on the offender; 3.8.5.1: the compensation a "
                   "dissenter writes on the planner (repeat).")
@click.option("--agreed-by", help="3.9.22: every player; 3.8.5.1: the planner and the dissenters (comma-separated).")
@click.option("--planner", metavar="NAME", help="3.8.5.1: the defender whose plan of play was carried out.")
@click.option("--compensated", metavar="A,B", help="3.8.5.1 b: the dissenters given the other plan's result.")
@click.option("--declarer-result", type=click.Choice(["played", "other"]),
              help="3.8.5.1 b: the declarer's result drawn by lot.")
@click.option("--reason", default="")
@by_option
@report_options
@db_option
def ruling(game: str, rule: str, counts: tuple[str, ...], offender: str | None, whists: tuple[str, ...],
           agreed_by: str | None, planner: str | None, compensated: str | None, declarer_result: str | None,
           reason: str, by: str | None, quiet: bool, as_json: bool, db: str | None) -> None:
    """A ruling or an agreement on the current deal [Code 3.3.16.2, 3.3.16.3, 3.4.4, 3.5.4, 3.8.5.1, 3.9.22].

    \b
      3.3.16.2  the talon exposed while one other player still bids: --offender NAME;
                the talon is his, he declares, the deal is played
      3.3.16.3  the talon exposed while two still bid: --offender NAME --whists NAME=N …
      3.4.4     a declaration against the rules that stands: a remiz without all
      3.5.4     the declarer concedes without all (NAME=N: the defenders' split, else 5 and 5)
      3.8.5.1   a plan of play carried out against a partner's view: --planner NAME and
                a) --whists NAME=N … --agreed-by (agreed compensation), or
                b) NAME=N … (the other plan's tricks) --compensated A,B
                   --declarer-result played|other --by arbiter:NAME
      3.9.22    a result agreed by all without play: NAME=N tricks, --agreed-by
    The rulings under 3.3.16.3, 3.4.4, 3.5.4 and 3.9.22 close the deal and move it on.
    """
    record_pulka(db, game, lambda desk, name: desk.ruling(
        name, rule, counts, offender=offender, whists=whists, agreed_by=agreed_by, planner=planner,
        compensated=compensated, declarer_result=declarer_result, reason=reason, by=by), quiet=quiet, as_json=as_json)


@click.command(cls=GameCommand)
@game_argument
@click.argument("player")
@click.option("--agreed-by", required=True, help="The three players, comma-separated.")
@click.option("--replaces", metavar="NAME", help="The player who left, whose place he takes.")
@by_option
@report_options
@db_option
def join(game: str, player: str, agreed_by: str, replaces: str | None, by: str | None, quiet: bool, as_json: bool,
         db: str | None) -> None:
    """A fourth player joins with everyone's consent [Code 3.1.2]: he writes the mean pulya and gora, sits to the left of the last dealer and deals next; with --replaces, in the place of the player who left, and the deal goes round as before."""
    record_pulka(db, game, lambda desk, name: desk.join(name, player, agreed_by=agreed_by, replaces=replaces, by=by),
                 quiet=quiet, as_json=as_json)


@click.command(cls=GameCommand)
@game_argument
@click.argument("player", shell_complete=complete_player)
@click.option("--reason", default="")
@by_option
@report_options
@db_option
def leave(game: str, player: str, reason: str, by: str | None, quiet: bool, as_json: bool, db: str | None) -> None:
    """PLAYER leaves a four-handed pulka; his columns stay and are settled at the end [Code 5.4.18]."""
    record_pulka(db, game, lambda desk, name: desk.leave(name, player, reason=reason, by=by), quiet=quiet,
                 as_json=as_json)


@click.command(cls=GameCommand)
@game_argument
@click.argument("player", shell_complete=complete_player)
@click.argument("substitute")
@click.option("--agreed-by", required=True, help="The other players, comma-separated.")
@by_option
@report_options
@db_option
def substitute(game: str, player: str, substitute: str, agreed_by: str, by: str | None, quiet: bool,
               as_json: bool, db: str | None) -> None:
    """SUBSTITUTE takes PLAYER's seat and its columns with the others' consent [Code 5.4.7].

    At a tournament's table the arbiter records it (--by arbiter:NAME), and the
    substitute plays at no other table of the tour.
    """
    record_pulka(db, game, lambda desk, name: desk.substitute(name, player, substitute, agreed_by=agreed_by, by=by),
                 quiet=quiet, as_json=as_json)


@click.command(cls=GameCommand, game_given=lambda words: len(words) >= 3)
@game_argument
@click.argument("kind", type=click.Choice(["peek", "refused", "premium"]))
@click.argument("player", shell_complete=complete_player)
@click.option("--tricks", type=int, default=0, help="premium: the tricks the talon gave (1, 2 or 3).")
@by_option
@report_options
@db_option
def talon(game: str, kind: str, player: str, tricks: int, by: str | None, quiet: bool, as_json: bool,
          db: str | None) -> None:
    """The talon [Code 3.2.21, 3.4.10, 3.4.11]: PLAYER looked at it before it was bought (peek); the declarer refused it (refused); it gave the declarer tricks, the dealer's premium (premium)."""
    record_pulka(db, game, lambda desk, name: desk.talon(name, kind, player, tricks=tricks, by=by),
                 quiet=quiet, as_json=as_json)

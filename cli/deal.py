"""``pulka deal``: a whole deal in one line (``ledger.words.deal_line`` reads it), and
a line whose counts read two ways asked about with both sheets side by side. In a
module of its own, the scorer's most frequent command: it loads its own options and
``cli.recording``, not every recording command's (``cli.record``).
"""

from __future__ import annotations

import sys

import click

from cli.common import GameCommand, UserError, db_option, game_argument, game_name
from cli.recording import by_option, pulka_desk, report_options, tell
from ledger.desks.told import Doubt, Doubtful, Told, tricks_text
from ledger.vocabulary import language
from projections.numbers import signed

_ = language._  # every text a person reads, in the language in effect


def doubt_text(doubt: Doubt) -> list[str]:
    """A line read two ways as the scorer reads it before he answers: the two sheets side
    by side, the tricks and every number each reading writes."""
    heads = (_("as typed ({read_as})").format(read_as=doubt.read_as), doubt.other)
    rows = [(_("tricks"), tricks_text(doubt.typed), tricks_text(doubt.reading))]
    amounts = [{w.cell: w for w in writes} for writes in (doubt.typed_writes, doubt.other_writes)]
    for cell in sorted(set(amounts[0]) | set(amounts[1]), key=str):
        write = amounts[0].get(cell) or amounts[1][cell]
        typed, other = (signed(a[cell].amount) if cell in a else "" for a in amounts)
        rows.append((write.text, typed, other))
    first = max(len(r[0]) for r in rows) + 2
    second = max(len(heads[0]), *(len(r[1]) for r in rows)) + 3
    return [_("deal {deal}: {reason}").format(deal=doubt.deal, reason=doubt.reason),
            f"  {'':{first}}{heads[0]:{second}}{heads[1]}",
            *(f"  {r[0]:{first}}{r[1]:{second}}{r[2]}".rstrip() for r in rows)]


def settle_doubt(doubt: Doubtful, line: str) -> str | None:
    """Ask the scorer about a doubted result, at a terminal: the line to store (as typed,
    or with the tricks named as the other reading gives them), or None for neither. Not
    at a terminal the line is refused, with the reading to type (``--yes`` stores it as
    typed)."""
    if not sys.stdin.isatty():
        raise UserError(_("refused: {reason}").format(reason=doubt))
    for text in doubt_text(doubt.doubt):
        click.echo(text, err=True)
    answer = click.prompt(_("store it as typed (t), as the other reading (o), or not at all (n)?"),
                          type=click.Choice(["t", "o", "n"]), default="n", err=True)
    return line if answer == "t" else doubt.doubt.line if answer == "o" else None


def record_line(db: str | None, game: str, line: str, *, yes: bool, again: bool, leave_open: bool,
                by: str | None) -> Told:
    """A deal line through the desk; a doubted result asked about (``settle_doubt``) and,
    once answered, recorded as the scorer chose."""
    name = game_name(game, db)
    with pulka_desk(db) as desk:
        try:
            return desk.deal(name, line, by=by, again=again, leave_open=leave_open, confirmed=yes)
        except Doubtful as exc:
            doubt = exc
    chosen = settle_doubt(doubt, line)
    if chosen is None:
        raise UserError(_("not stored"))
    with pulka_desk(db) as desk:
        return desk.deal(name, chosen, by=by, again=again, leave_open=leave_open, confirmed=True)


@click.command(cls=GameCommand)
@game_argument
@click.argument("line")
@click.option("--again", is_flag=True,
              help="The same deal as the one before (its players, contract and tricks), really played again.")
@click.option("--yes", "-y", is_flag=True, help="Store counts that read two ways as typed, without asking.")
@click.option("--leave-open", is_flag=True,
              help="Record a line that stops before the deal's result, or start the next deal although the deal "
                   "before waits for its tricks [Code 4.2.10].")
@by_option
@report_options
@db_option
def deal(game: str, line: str, again: bool, yes: bool, leave_open: bool, by: str | None, quiet: bool,
         as_json: bool, db: str | None) -> None:
    """Record a whole deal in one line.

    \b
      pulka deal "Vera 7H w w 8 1 1"     the outcome: declarer, contract, calls,
                                         tricks (the declarer's first)
      pulka deal "Vera 7H w w 8* 1 1"    the declarer's count marked
      pulka deal "Vera 7H w w Vera=8 Anna=1 Boris=1"   the tricks named
      pulka deal "Anna miz 0"            a misère; "Boris 6NT p p": both passed
      pulka deal "rasp 2 5 3"            raspasy, tricks from the forehand
      pulka deal "6D 7S p p | Vera w w 5* 2 3"   the auction too
      pulka deal "6S pass pass | 6S | whist pass:open | 6 3 1"   the whole deal,
                                         tricks in turn order from the forehand
    Words: p - пас п, w вист в, hw полвиста пв, miz мизер миз, 6♠ 6п, здесь; a name
    or its beginning. With four players the whisting dealer names the hand he plays:
    "whist@Boris" [Code 3.8.8]; dark bids "pass:dark" [3.3.19]; a misère shared with
    the dealer "misere:shared" [3.6.9]. Counts that the other order (declarer first,
    or from the forehand) reads for other players, writing another sheet, are asked
    about with both sheets side by side (--yes: stored as typed); the declarer's count
    marked (8*: the counts round the table from it) or the tricks named read one way.
    """
    told = record_line(db, game, line, yes=yes, again=again, leave_open=leave_open, by=by)
    tell(told, quiet=quiet, as_json=as_json)

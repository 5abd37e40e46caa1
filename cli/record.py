"""Recording commands: start a pulka, choose the current game, and the scorer's
commands at the table event by event (a whole deal in one line is ``cli.deal``), corrections,
objections, an arbiter's penalties, undo and redo (a log is stored by ``pulka import``, in
``cli.importing``). Each one parses its
arguments, calls one command of the scorer's desk (``ledger.desks.pulka.PulkaDesk``:
it builds the events and runs one ``Ledger.execute``: one load, one judgement of every
new event, one save) and prints what the desk says it did.

These are the commands of a pulka: on a rubber of bridge they are refused (its own
are ``pulka bridge …``, in ``cli.bridge``).

Every recording command says what it did (``--quiet``: nothing; ``--json``: the events
and their effects), as ``cli.recording`` tells it.
"""

from __future__ import annotations

import sys

import click

from cli.common import (
    GameCommand,
    UserError,
    complete_player,
    current_game,
    db_option,
    emit,
    game_argument,
    game_name,
    opened,
    made_current,
    set_current,
    store_key,
)
from cli.recording import (
    VERDICT_WORDS,
    by_option,
    pulka_desk,
    record_pulka,
    report_options,
    tell,
    verdict_text,
    with_leave_open,
    writes_text,
)
from cli.rules import parse_overrides
from ledger.desks.pulka import CorrectionPreview, PulkaDesk
from ledger.vocabulary import language
from ledger.vocabulary.events import GameStarted, event_to_dict
from ledger.vocabulary.refusal import cite
from ledger.vocabulary.wording import convention_name, digits, spoken_text

_ = language._  # every text a person reads, in the language in effect


# -- starting a pulka, the current game --------------------------------------------------


@click.command()
@click.argument("game")
@click.option("--players", required=True, help="Comma-separated, clockwise: Anna,Boris,Vera")
@click.option("--convention", default="sochi", show_default=True,
              help="sochi, leningrad (piter), rostov (moscow), classic; Russian names too.")
@click.option("--pulya", type=int, default=20, show_default=True, help="The target of every pulya.")
@click.option("--stake", help="Money per whist, e.g. 0.10")
@click.option("--first-dealer", help="Who deals first (default: the last player).")
@click.option("--rule", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a parameter of the rule set.")
@click.option("--rules-file", type=click.Path(exists=True, dir_okay=False), help="A TOML file of parameter overrides.")
@by_option
@report_options
@db_option
def new(
    game: str, players: str, convention: str, pulya: int, stake: str | None, first_dealer: str | None,
    overrides: tuple[str, ...], rules_file: str | None, by: str | None, quiet: bool, as_json: bool,
    db: str | None,
) -> None:
    """Start a pulka; it becomes the current game."""
    with opened(db, write=True) as ledger:
        rules = parse_overrides(overrides, rules_file)
        started = PulkaDesk(ledger).new(game, players, convention=convention, pulya=pulya, stake=stake,
                                        first_dealer=first_dealer, rules=rules, by=by)
        if not started.created:
            raise UserError(_("game {game} exists already").format(game=repr(game)))
    current = made_current(db, game)
    stored = started.event
    assert isinstance(stored, GameStarted) and stored.rule_set is not None
    if quiet:
        return
    if as_json:
        emit({"game": game, "events": [{"number": 1, **event_to_dict(stored)}], "current": current})
        return
    click.echo(_("started {game}: {players}; {convention}, pulya to {pulya}; {dealer} deals first, {forehand} "
                 "leads").format(game=game, players=", ".join(stored.players),
                                 convention=convention_name(stored.rule_set.convention), pulya=pulya,
                                 dealer=stored.first_dealer, forehand=started.leads))
    if current:
        click.echo(_("{game} is now the current game: commands may leave its name out (the store: {store})").format(
            game=game, store=store_key(db)))


@click.command()
@click.argument("game", required=False, shell_complete=None)
@click.option("--clear", is_flag=True, help="Forget the current game of this store.")
@db_option
def use(game: str | None, clear: bool, db: str | None) -> None:
    """Choose the current game of the store (or show it): commands then take GAME as
    optional. PULKA_GAME, when set, comes before it."""
    if clear:
        set_current(db, None)
        click.echo(_("no current game"))
        return
    if game is None:
        current = current_game(db)
        if current is None:
            click.echo(_("no current game; choose one with `pulka use GAME`"))
        else:
            click.echo(_("{game} (chosen by {source})").format(game=current[0], source=_(current[1])))
        return
    with opened(db) as ledger:
        ledger.events(game)  # refuses an unknown game, naming the stored ones
    set_current(db, game)
    click.echo(_("{game} is now the current game").format(game=game))


# -- recording at the table ----------------------------------------------------------------


@click.command(cls=GameCommand)
@game_argument
@click.argument("player", shell_complete=complete_player)
@click.argument("bid")
@click.option("--dark", is_flag=True, help="Said without looking at the cards [Code 3.3.19].")
@by_option
@with_leave_open
@report_options
@db_option
def bid(game: str, player: str, bid: str, dark: bool, by: str | None, leave_open: bool, quiet: bool,
        as_json: bool, db: str | None) -> None:
    """A bid: 6S ... 10NT, misere, pass, here (6♠, пас, мизер, здесь)."""
    record_pulka(db, game, lambda desk, name: desk.bid(name, player, bid, dark=dark, by=by, leave_open=leave_open),
                 quiet=quiet, as_json=as_json)


@click.command(cls=GameCommand)
@game_argument
@click.argument("player", shell_complete=complete_player)
@click.argument("contract")
@click.option("--shared-with", metavar="NAME", help="The dealer sharing the misère in halves [Code 3.6.9].")
@click.option("--evident-correction", is_flag=True,
              help="A change after a whist, the intention to correct having been evident [Code 3.4.8].")
@by_option
@report_options
@db_option
def contract(game: str, player: str, contract: str, shared_with: str | None, evident_correction: bool,
             by: str | None, quiet: bool, as_json: bool, db: str | None) -> None:
    """The declarer's contract (again to change it before anyone whists, or after with --evident-correction)."""
    record_pulka(db, game, lambda desk, name: desk.contract(name, player, contract, shared_with=shared_with,
                                                            evident_correction=evident_correction, by=by),
                 quiet=quiet, as_json=as_json)


@click.command(cls=GameCommand)
@game_argument
@click.argument("player", shell_complete=complete_player)
@click.argument("call", metavar="CALL")
@click.option("--open", "open_", is_flag=True, help="An open whist.")
@click.option("--hand", metavar="NAME",
              help="Four players: the defender whose cards the whisting dealer plays [Code 3.8.8].")
@by_option
@report_options
@db_option
def defence(game: str, player: str, call: str, open_: bool, hand: str | None, by: str | None, quiet: bool,
            as_json: bool, db: str | None) -> None:
    """A defender's call: whist, pass or half_whist (вист, пас, полвиста); with four
    players the dealer's too."""
    record_pulka(db, game, lambda desk, name: desk.defence(name, player, call, open=open_, hand=hand, by=by),
                 quiet=quiet, as_json=as_json)


@click.command(cls=GameCommand, game_given=lambda words: bool(words) and "=" not in words[0])
@game_argument
@click.argument("counts", nargs=-1, required=True, metavar="NAME=N...")
@click.option("--deal", "deal_no", type=int, help="The forgotten result of an earlier deal [Code 4.2.10].")
@click.option("--penalty", "penalties", multiple=True, metavar="NAME=N@RULE",
              help="Penalty tricks: Anna=1@3.4.9 (rules 3.4.6, 3.4.9, 3.9.11.2, 3.9.18, 3.2.16).")
@by_option
@report_options
@db_option
def tricks(game: str, counts: tuple[str, ...], deal_no: int | None, penalties: tuple[str, ...], by: str | None,
           quiet: bool, as_json: bool, db: str | None) -> None:
    """Tricks taken: Anna=6 Boris=3 Vera=1."""
    record_pulka(db, game, lambda desk, name: desk.tricks(name, counts, deal=deal_no, penalties=penalties, by=by),
                 quiet=quiet, as_json=as_json)


@click.command(cls=GameCommand)
@game_argument
@click.argument("player", shell_complete=complete_player)
@click.argument("column", metavar="COLUMN")
@click.argument("amount", type=int)
@click.option("--on", metavar="NAME", help="For whists: on whom.")
@click.option("--deal", "deal_no", type=int, help="A late record of an earlier deal.")
@by_option
@report_options
@db_option
def entry(game: str, player: str, column: str, amount: int, on: str | None, deal_no: int | None,
          by: str | None, quiet: bool, as_json: bool, db: str | None) -> None:
    """A number written by hand: COLUMN is pulya, gora or whists (пуля, гора, висты);
    AMOUNT may be negative (entry Vera whists -4 --on Boris)."""
    record_pulka(db, game, lambda desk, name: desk.entry(name, player, column, amount, on=on, deal=deal_no, by=by),
                 quiet=quiet, as_json=as_json)


@click.command(cls=GameCommand)
@game_argument
@click.argument("player", shell_complete=complete_player)
@by_option
@report_options
@db_option
def pencil(game: str, player: str, by: str | None, quiet: bool, as_json: bool, db: str | None) -> None:
    """The recorder (a player, or scorer:NAME) puts his pencil down [Code 4.2.8]: his
    records are no longer in hand."""
    record_pulka(db, game, lambda desk, name: desk.pencil(name, player, by=by), quiet=quiet, as_json=as_json)


@click.command(cls=GameCommand)
@game_argument
@click.option("--reason", default="", help="e.g. misdeal")
@click.option("--dealer-error", is_flag=True,
              help="The dealer's own error: a warning; his second at one deal costs the agreed remiz and the "
                   "deal passes on [Code 3.2.17].")
@by_option
@report_options
@db_option
def annul(game: str, reason: str, dealer_error: bool, by: str | None, quiet: bool, as_json: bool,
          db: str | None) -> None:
    """The current deal is void (a misdeal, a wrong number of cards): the same dealer
    deals again, and nothing of the deal is written. Before anyone bids it annuls the
    next deal; a deal whose tricks are recorded can no longer be annulled [Code 3.2.13]."""
    record_pulka(db, game, lambda desk, name: desk.annul(name, reason=reason, dealer_error=dealer_error, by=by),
                 quiet=quiet, as_json=as_json)


@click.command(cls=GameCommand)
@game_argument
@click.option("--agreed-by", help="All players, comma-separated [Code 4.2.3].")
@click.option("--demanded-by", metavar="NAME",
              help="One player's demand to settle at once in an emergency, with --reason [Code 4.2.15, 5.4.18].")
@click.option("--reason", default="", help="Why, with --demanded-by.")
@by_option
@report_options
@db_option
def abandon(game: str, agreed_by: str | None, demanded_by: str | None, reason: str, by: str | None, quiet: bool,
            as_json: bool, db: str | None) -> None:
    """Stop the pulka early: by agreement of all players, or on one player's demand."""
    if (agreed_by is None) == (demanded_by is None):
        raise UserError(_("refused: give --agreed-by (all players) or --demanded-by (one player, with --reason)"))
    record_pulka(db, game, lambda desk, name: desk.abandon(name, agreed_by=agreed_by, demanded_by=demanded_by,
                                                           reason=reason, by=by),
                 quiet=quiet, as_json=as_json)


@click.command("object", cls=GameCommand)
@game_argument
@click.argument("player", shell_complete=complete_player)
@click.argument("deal_no", type=int, metavar="DEAL")
@click.option("--target", type=int, help="The late record objected to.")
@by_option
@report_options
@db_option
def object_(game: str, player: str, deal_no: int, target: int | None, by: str | None, quiet: bool,
            as_json: bool, db: str | None) -> None:
    """A partner refuses a late record of DEAL [Code 4.2.10]."""
    record_pulka(db, game, lambda desk, name: desk.object(name, player, deal_no, target=target, by=by),
                 quiet=quiet, as_json=as_json)


@click.command(cls=GameCommand)
@game_argument
@click.argument("player", shell_complete=complete_player)
@click.argument("column", metavar="COLUMN")
@click.argument("amount", type=int)
@click.option("--wronged", metavar="NAME", help="For whists: the wronged player, who writes them on PLAYER.")
@click.option("--reason", required=True)
@click.option("--by", required=True, envvar="PULKA_BY", help="arbiter:NAME")
@report_options
@db_option
def penalty(game: str, player: str, column: str, amount: int, wronged: str | None, reason: str, by: str,
            quiet: bool, as_json: bool, db: str | None) -> None:
    """An arbiter's penalty on PLAYER [Code 4.2.16]; it never benefits him: gora up,
    pulya down (a negative AMOUNT), whists written on him by the wronged player."""
    record_pulka(db, game, lambda desk, name: desk.penalty(name, player, column, amount, wronged=wronged, reason=reason,
                                                           by=by),
                 quiet=quiet, as_json=as_json)


# -- corrections ------------------------------------------------------------------------------


def preview_text(preview: CorrectionPreview) -> list[str]:
    """The correction as it would be stored, what it would change, and its verdict."""
    lines = [_("{named} is event {event}").format(named=preview.named, event=preview.target)] if preview.named else []
    lines += [_("correction of event {event} (deal {deal}, recorded by {recorder}), asked by {asker}:").format(
                  event=preview.target, deal=preview.deal, recorder=preview.recorded_by, asker=preview.asked_by),
              "  " + _("was:") + f"    {preview.was}",
              "  " + _("now:") + f"    {preview.now}"]
    lines += writes_text(preview.writes) or ["  " + _("no number of the sheet changes")]
    for v in preview.verdicts:
        kind = _(VERDICT_WORDS[v.kind]) if v.kind in VERDICT_WORDS else v.kind
        lines.append(_("verdict: {verdict} [{rule}]: {reason}").format(
            verdict=kind, rule=cite(v.effect.rule), reason=spoken_text(v.effect.reason)))
    return lines


def names_a_record(word: str) -> bool:
    """An event number or ``deal:K…``: what a correction's first argument is when the
    game is left out."""
    return digits(word.removeprefix("-")) or word.casefold().startswith(("deal:", "сдача:"))


@click.command(cls=GameCommand,
               game_given=lambda w: len(w) >= 3 and (not names_a_record(w[0]) or names_a_record(w[1])))
@game_argument
@click.argument("target", metavar="TARGET")
@click.argument("changes", nargs=-1, required=True, metavar="CHANGE...")
@click.option("--by", envvar="PULKA_BY",
              help="Who asks for the correction (default: PULKA_BY, else the record's recorder).")
@click.option("--waive", is_flag=True, help="The wronged partner waives the penalty whists.")
@click.option("--yes", "-y", is_flag=True, help="Store without asking (needed when not on a terminal).")
@report_options
@db_option
def correct(game: str, target: str, changes: tuple[str, ...], by: str | None, waive: bool, yes: bool,
            quiet: bool, as_json: bool, db: str | None) -> None:
    """Correct a record [Code 4.2.7-4.2.9], named by its event number or its deal
    (deal:5, deal:5.tricks, deal:5.contract), in the table's words:

    \b
      pulka correct deal:5 Vera=3       deal 5's tricks (the one left out makes 10)
      pulka correct deal:5 7H           deal 5's contract (or deal:5.contract 7H)
      pulka correct 52 Boris=6 Vera=3   event 52's trick counts
      pulka correct 40 6H               a bid or a contract
      pulka correct 45 pass             a defence call
      pulka correct 16 2                the amount of an entry (or amount=2)
    Shows which record and what would change, and the verdict (free, warning,
    counted with its penalty, or no effect), and asks before storing; --yes stores
    without asking.
    """
    name = game_name(game, db)
    if yes:
        # One load: judged, shown and stored at once.
        with pulka_desk(db) as desk:
            done = desk.correct(name, target, changes, by=by, waive=waive)
        preview = done.preview
    else:
        with opened(db) as ledger:
            preview = PulkaDesk(ledger).preview_correction(name, target, changes, by=by, waive=waive)
    if not quiet and not as_json:
        for text in preview_text(preview):
            click.echo(text)
    if not yes:
        if not sys.stdin.isatty():
            raise UserError(_("not stored: standard input is not a terminal; give --yes to store the correction"))
        if not click.confirm(_("store this correction?"), default=False):
            raise UserError(_("not stored"))
        with pulka_desk(db) as desk:
            done = desk.correct(name, target, changes, by=by, waive=waive, expected=preview.expected)
    if as_json:
        tell(done.told, as_json=True)
    elif not quiet:
        click.echo(_("stored as event {event}").format(event=done.number))
        for v in done.told.verdicts:
            if v.loud:
                click.echo("pulka: " + verdict_text(v.number, v.kind, v.effect.rule, v.effect.reason), err=True)


# -- undo -------------------------------------------------------------------------------------


@click.command(cls=GameCommand)
@game_argument
@click.option("--from", "first", type=int, metavar="N", help="Withdraw the events from N to the last.")
@by_option
@report_options
@db_option
def undo(game: str, first: int | None, by: str | None, quiet: bool, as_json: bool, db: str | None) -> None:
    """Withdraw the last record while it is still in hand [Code 4.2.8]: the last deal
    line (the events of play of the last deal since anything else was recorded), or
    the last record when it is something else. Nothing is deleted: a `withdrawn` event
    is stored, free of penalty, and `pulka log` shows what it took back. A record no
    longer in hand is changed with `pulka correct`."""
    record_pulka(db, game, lambda desk, name: desk.undo(name, first=first, by=by), quiet=quiet, as_json=as_json)


@click.command(cls=GameCommand)
@game_argument
@by_option
@report_options
@db_option
def redo(game: str, by: str | None, quiet: bool, as_json: bool, db: str | None) -> None:
    """Record again what the last undo took back, while nothing was recorded after it
    [Code 4.2.8]: new events, by the one redoing; the undo stays in `pulka log`."""
    record_pulka(db, game, lambda desk, name: desk.redo(name, by=by), quiet=quiet, as_json=as_json)

"""Recording commands: start a pulka, choose the current game, import a log, and the
scorer's commands at the table (a whole deal in one line, or event by event),
corrections, objections, an arbiter's penalties, and undo. Each one is one call of
``Ledger.execute``: one load, one judgement of every new event, one save.

These are the commands of a pulka: on a rubber of bridge they are refused (its own
are ``pulka bridge …``, in ``cli.bridge``).

Every recording command says what it did (``--quiet``: nothing; ``--json``: the events
and their effects): the writes on the sheet, who deals and leads next, the end of the
pulka, and every verdict of the recording rules; a verdict the scorer must not miss
(no effect, a warning, a counted error) goes to standard error.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

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
    progress,
    read_log,
    read_stdin_log,
    set_current,
)
from cli.rules import parse_overrides, parse_value
from ledger.command.application import Command, Outcome, bulk
from ledger.command.dealline import deal_events
from ledger.command.kinds import PULKA
from ledger.command.scorer import Said, guarded, said, undo_from
from ledger.command.words import (
    bid_word,
    call_word,
    column_word,
    contract_word,
    player_word,
    recorder_word,
)
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
    Withdrawn,
    event_to_dict,
    event_type,
)
from ledger.vocabulary.tournament import TournamentStarted
from ledger.vocabulary.logfile import game_of, check_export, split_streams
from ledger.vocabulary.refusal import Refused, cite
from ledger.vocabulary.rules import find_preset
from projections.audit import cell_text, describe
from projections.game import GameState
from projections.recording import CORRECTABLE, merge
from projections.numbers import fmt
from projections.report import exact_fields
from ledger.vocabulary.wording import counted

# -- what a command did -------------------------------------------------------------------


def report_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option("--json", "as_json", is_flag=True, help="Print the events and their effects as JSON.")(f)
    f = click.option("--quiet", "-q", is_flag=True, help="Print nothing.")(f)
    return f


def said_doc(s: Said) -> dict[str, Any]:
    return {
        "game": s.game,
        "events": [{"number": e.number, **event_to_dict(e.event)} for e in s.events],
        "writes": [
            {"player": c[0], "column": c[1], **({"on": c[2]} if c[2] else {}), **exact_fields("amount", v)}
            for c, v in s.writes
        ],
        "verdicts": [
            {"number": v.number, "kind": v.kind, "effective": v.effect.effective, "rule": v.effect.rule,
             "reason": v.effect.reason, "new": v.new}
            for v in s.verdicts
        ],
        "deals": [{"deal": k, "line": story} for k, story in s.deals],
        "next": s.next,
        "over": s.over,
        "open_deal": s.open_deal,
    }


def verdict_text(number: int, kind: str, rule: str, reason: str) -> str:
    return f"event {number}: {kind} [{cite(rule)}]: {reason}"


def writes_text(s: Said) -> list[str]:
    return [f"  {cell_text(c)} {'+' if v > 0 else ''}{fmt(v)}" for c, v in s.writes]


def tell(s: Said, *, quiet: bool = False, as_json: bool = False, line: bool = False) -> None:
    """Print what a command did: on standard output for the scorer, the verdicts he must
    not miss on standard error."""
    if quiet:
        return
    if as_json:
        emit(said_doc(s))
    else:
        events = s.events
        span = f"event {events[0].number}" if len(events) == 1 else f"events {events[0].number}-{events[-1].number}"
        if len(events) == 1:
            click.echo(f"{span}: {describe(events[0].event)}")
        elif events and not s.deals:
            click.echo(f"{span}:")
            for e in events:
                click.echo(f"  {e.number}: {describe(e.event)}")
        for k, story in s.deals:
            click.echo(f"deal {k}" + (f" ({span})" if len(events) > 1 else "") + f": {story}")
        for text in writes_text(s):
            click.echo(text)
        for v in s.verdicts:
            if not v.loud and (v.new or v.kind != "withdrawn"):
                click.echo("verdict on " + verdict_text(v.number, v.kind, v.effect.rule, v.effect.reason))
        click.echo(s.next)
    for v in s.verdicts:
        if v.loud:
            click.echo("pulka: " + verdict_text(v.number, v.kind, v.effect.rule, v.effect.reason), err=True)
    if s.open_deal is not None and line:
        click.echo(f"pulka: deal {s.open_deal} was played but its result is not recorded: record its tricks "
                   f"before the bidding of deal {s.open_deal + 1} ends, or they are lost [{cite('4.2.10')}]",
                   err=True)


def record(db: str | None, game: str, command: Command[GameState], *, quiet: bool, as_json: bool, line: bool = False,
           leave_open: bool = False) -> Outcome[GameState]:
    """Run one recording command on the game and say what it did."""
    name = game_name(game, db)
    with opened(db, write=True) as ledger:
        outcome = ledger.execute(name, command, kind=PULKA)
    tell(said(outcome), quiet=quiet, as_json=as_json, line=line)
    if leave_open and not quiet:
        for deal in outcome.state.deals[:-1]:
            if deal.annulled_at is None and deal.phase == "play" and deal.number == outcome.state.current_deal_number - 1:
                click.echo(f"pulka: deal {deal.number} is left without its result; its tricks may still be "
                           f"recorded late (pulka tricks --deal {deal.number} NAME=N …) until the bidding of "
                           f"deal {deal.number + 1} ends [{cite('4.2.10')}]", err=True)
    return outcome


def events_of(*make: Callable[[GameState], AnyEvent], leave_open: bool = False) -> Command[GameState]:
    """A command of one or more events, each made from the state (to read names in any
    case), guarded as table commands are."""

    def command(state: GameState) -> Iterable[AnyEvent]:
        return guarded(state, (m(state) for m in make), leave_open=leave_open)

    return command


def player_in(state: GameState, name: str) -> str:
    return player_word(state.players, name)


def by_in(state: GameState, by: str | None) -> str | None:
    return recorder_word(state.players, by)


def with_leave_open(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--leave-open", is_flag=True,
                        help="Start the next deal although the deal before waits for its tricks [Code 4.2.10].")(f)


def by_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """Who records it [Code 4.2.4-4.2.7]: a player, a scorer who is not a player
    (scorer:NAME) or an arbiter; a club's scorer sets PULKA_BY once."""
    return click.option("--by", metavar="NAME", envvar="PULKA_BY",
                        help="Who records it: a player, scorer:NAME or arbiter:NAME (default: PULKA_BY).")(f)


# -- starting a pulka, the current game, importing -----------------------------------------


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
    names = tuple(p.strip() for p in players.split(","))
    with opened(db, write=True) as ledger:
        rules = parse_overrides(overrides, rules_file)
        started = GameStarted(
            game=game,
            players=names,
            convention=find_preset(convention).convention,
            pulya=pulya,
            rules=rules,
            stake=stake,
            first_dealer=player_word(names, first_dealer) if first_dealer else None,
            by=recorder_word(names, by),
        )
        recorded = ledger.create(started)
        if not recorded.created:
            raise UserError(f"game {game!r} exists already")
    set_current(db, game)
    stored = recorded.stored[0].event
    assert isinstance(stored, GameStarted) and stored.rule_set is not None
    if quiet:
        return
    if as_json:
        emit({"game": game, "events": [{"number": 1, **event_to_dict(stored)}], "current": True})
        return
    forehand = names[(names.index(stored.first_dealer or names[-1]) + 1) % len(names)]
    click.echo(f"started {game}: {', '.join(stored.players)}; {stored.rule_set.convention}, pulya to {pulya}; "
               f"{stored.first_dealer} deals first, {forehand} leads")
    click.echo(f"{game} is now the current game: commands may leave its name out")


@click.command()
@db_option
def init(db: str | None) -> None:
    """Create the store (its table), once; recording commands also do it when needed."""
    with opened(db, write=True) as ledger:
        ledger.store.ensure_table()
        click.echo(f"store ready: {ledger.store.description}")


@click.command()
@click.argument("game", required=False, shell_complete=None)
@click.option("--clear", is_flag=True, help="Forget the current game of this store.")
@db_option
def use(game: str | None, clear: bool, db: str | None) -> None:
    """Choose the current game of the store (or show it): commands then take GAME as
    optional. PULKA_GAME, when set, comes before it."""
    if clear:
        set_current(db, None)
        click.echo("no current game")
        return
    if game is None:
        current = current_game(db)
        if current is None:
            click.echo("no current game; choose one with `pulka use GAME`")
        else:
            click.echo(f"{current[0]} (chosen by {current[1]})")
        return
    with opened(db) as ledger:
        ledger.events(game)  # refuses an unknown game, naming the stored ones
    set_current(db, game)
    click.echo(f"{game} is now the current game")


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@db_option
def import_(file: str, db: str | None) -> None:
    """Store a log (a new game, or events appended to a stored game). All or nothing."""
    # The collector rests until the import has let go of what it made (``bulk``): a long
    # game's objects are then freed as the import ends, not walked by the collector first.
    with bulk():
        _import(file, db)


def _import(file: str, db: str | None) -> None:
    exported = read_stdin_log() if file == "-" else read_log(file)
    with opened(db, write=True) as ledger:
        streams = split_streams(exported)
        if len(streams) > 1 or isinstance(exported[0].event, TournamentStarted):
            # A tournament with its games, or several games (tournaments load the views'
            # machinery: only an import that needs them does).
            from ledger.command.tournament import import_streams

            for item in import_streams(ledger, streams):
                click.echo(f"created {item.stream}: {counted(item.events, 'event')} stored")
            return
        check_export(exported)
        # An export of a stored game, or of its beginning, may be imported again: the
        # events it shares with the store, digest for digest, are there already.
        known = ledger.stored_prefix(exported)
        if known and known == len(exported):
            click.echo(f"{game_of(exported)}: nothing new, the file's {counted(known, 'event')} {'is' if known == 1 else 'are'} stored already")
            return
        kept = exported[:1] + exported[max(1, known):]
        lines = [(line, event) for line, event, _ in kept]
        with progress("judging", len(lines)) as update:
            recorded = ledger.record_lines(lines, progress=lambda done, total: update(done + 1))
        verb = "created" if recorded.created else "appended to"
        already = f" ({known} already stored)" if known > 1 else ""
        click.echo(f"{verb} {recorded.game}: {counted(len(recorded.stored), 'event')} stored{already}")


# -- recording at the table ----------------------------------------------------------------


@click.command(cls=GameCommand)
@game_argument
@click.argument("line")
@click.option("--again", is_flag=True, help="The same line as the deal before, on purpose.")
@with_leave_open
@by_option
@report_options
@db_option
def deal(game: str, line: str, again: bool, leave_open: bool, by: str | None, quiet: bool, as_json: bool,
         db: str | None) -> None:
    """Record a whole deal: "BIDS | CONTRACT | CALLS | TRICKS".

    e.g. pulka deal "6S pass pass | 6S | whist pass:open | 6 3 1"; raspasy:
    "pass pass pass | 2 3 5" (four players: the dealer's talon tricks last). Bids and
    calls in turn order; tricks in turn order from the forehand. Table words too:
    6♠, пас, вист, полвиста, мизер, здесь. With four players the whisting dealer names
    the hand he plays: "whist@Boris" [Code 3.8.8]; dark bids "pass:dark" [3.3.19]; a
    misère shared with the dealer "misere:shared" [3.6.9].
    """

    def command(state: GameState) -> Iterable[AnyEvent]:
        return guarded(state, deal_events(state, line, by_in(state, by)), leave_open=leave_open, again=again)

    record(db, game, command, quiet=quiet, as_json=as_json, line=True, leave_open=leave_open)


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
    make = events_of(lambda s: Bid(player=player_in(s, player), bid=bid_word(bid), dark=dark, by=by_in(s, by)),
                     leave_open=leave_open)
    record(db, game, make, quiet=quiet, as_json=as_json, leave_open=leave_open)


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
    make = events_of(lambda s: Contract(player=player_in(s, player), contract=contract_word(contract),
                                        shared_with=player_in(s, shared_with) if shared_with else None,
                                        evident_correction=evident_correction, by=by_in(s, by)))
    record(db, game, make, quiet=quiet, as_json=as_json)


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

    def make(s: GameState) -> AnyEvent:
        word, is_open = call_word(call)
        return Defence(player=player_in(s, player), call=word,  # type: ignore[arg-type]
                       open=True if (open_ or is_open) else None, hand=player_in(s, hand) if hand else None,
                       by=by_in(s, by))

    record(db, game, events_of(make), quiet=quiet, as_json=as_json)


def trick_counts(state: GameState, items: Iterable[str]) -> dict[str, int]:
    """``Anna=6 boris=3`` as trick counts by player, names in any case."""
    result: dict[str, int] = {}
    for item in items:
        name, sep, n = item.partition("=")
        if not sep or not n.strip().isdigit():
            raise Refused("3.5", f"{item!r} is not NAME=N (a player and a number of tricks)",
                          " ".join(f"{p}=N" for p in state.players))
        result[player_in(state, name)] = int(n)
    return result


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
    make = events_of(lambda s: Tricks(tricks=trick_counts(s, counts), deal=deal_no,
                                      penalty_tricks=penalty_tricks(s, penalties), by=by_in(s, by)))
    record(db, game, make, quiet=quiet, as_json=as_json)


def penalty_tricks(state: GameState, items: Iterable[str]) -> tuple[PenaltyTrick, ...]:
    """``Anna=1@3.4.9`` as penalty tricks: a player, how many, the rule of the Code."""
    out = []
    for item in items:
        what, sep, rule = item.partition("@")
        name, eq, n = what.partition("=")
        if not sep or not eq or not n.strip().isdigit():
            raise Refused("3.9.12", f"{item!r} is not NAME=N@RULE", "e.g. Anna=1@3.4.9")
        out.append(PenaltyTrick(player=player_in(state, name), tricks=int(n), rule=rule.strip()))
    return tuple(out)


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
    make = events_of(lambda s: Entry(player=player_in(s, player), column=column_word(column),  # type: ignore[arg-type]
                                     amount=amount, on=player_in(s, on) if on else None, deal=deal_no,
                                     by=by_in(s, by)))
    record(db, game, make, quiet=quiet, as_json=as_json)


@click.command(cls=GameCommand)
@game_argument
@click.argument("player", shell_complete=complete_player)
@by_option
@report_options
@db_option
def pencil(game: str, player: str, by: str | None, quiet: bool, as_json: bool, db: str | None) -> None:
    """The recorder (a player, or scorer:NAME) puts his pencil down [Code 4.2.8]: his
    records are no longer in hand."""
    record(db, game, events_of(lambda s: PencilDown(player=by_in(s, player) or player, by=by_in(s, by))),
           quiet=quiet, as_json=as_json)


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
    record(db, game, events_of(lambda s: Annulled(reason=reason, dealer_error=dealer_error, by=by_in(s, by))),
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
        raise UserError("refused: give --agreed-by (all players) or --demanded-by (one player, with --reason)")
    make = events_of(lambda s: Abandoned(
        agreed_by=tuple(player_in(s, p) for p in agreed_by.split(",")) if agreed_by else (),
        demanded_by=player_in(s, demanded_by) if demanded_by else None, reason=reason, by=by_in(s, by)))
    record(db, game, make, quiet=quiet, as_json=as_json)


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
    make = events_of(lambda s: Objection(player=player_in(s, player), deal=deal_no, target=target,
                                         by=by_in(s, by)))
    record(db, game, make, quiet=quiet, as_json=as_json)


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
    make = events_of(lambda s: Penalty(player=player_in(s, player), column=column_word(column),  # type: ignore[arg-type]
                                       amount=amount, wronged=player_in(s, wronged) if wronged else None,
                                       reason=reason, by=by_in(s, by)))
    record(db, game, make, quiet=quiet, as_json=as_json)


# -- corrections ------------------------------------------------------------------------------


def replacement_of(state: GameState, target: int, changes: tuple[str, ...]) -> dict[str, Any]:
    """What a correction changes, from the table's words: trick counts ``Boris=6 Vera=3``
    (a player left out keeps his count, or takes what makes 10 when he is the only
    one), a bid or contract ``6H``, a call ``pass``, an amount ``5`` or ``-4``, or any
    ``FIELD=VALUE``."""
    if not 2 <= target <= state.folded or event_type(state.events[target - 1]) not in CORRECTABLE:
        return {}  # the judge refuses it, saying what may be corrected
    old = state.content(target)
    players = state.players
    out: dict[str, Any] = {}
    counts: dict[str, int] = {}
    words: list[str] = []
    names = {p.casefold() for p in players}
    for item in changes:
        key, sep, value = item.partition("=")
        if sep and key.strip().casefold() in names and not isinstance(old, Tricks):
            kind = event_type(old)
            raise Refused("4.2.7", f"{item} is a trick count, but event {target} is a {kind} "
                          f"({describe(old)}), not a deal's tricks",
                          f"a change of its {' or '.join(CORRECTABLE[kind])}; `pulka log` shows each event's number")
        if sep and isinstance(old, Tricks) and key.strip().casefold() in names:
            counts.update(trick_counts(state, [item]))
        elif sep:
            out[key.strip()] = field_value(state, key.strip(), value)
        else:
            words.append(item)
    if counts:
        assert isinstance(old, Tricks)
        merged = {**old.tricks, **counts}
        unnamed = [p for p in old.tricks if p not in counts]
        total = sum(merged.values())
        if len(unnamed) == 1 and total != 10 and 0 <= 10 - (total - merged[unnamed[0]]) <= 10:
            merged[unnamed[0]] = 10 - (total - merged[unnamed[0]])
        out["tricks"] = merged
    if words:
        out.update(bare_change(state, old, " ".join(words)))
    return out


def field_value(state: GameState, key: str, value: str) -> Any:
    """The value of one FIELD=VALUE of a correction, in the table's words."""
    match key:
        case "bid":
            return bid_word(value)
        case "contract":
            return contract_word(value)
        case "call":
            return call_word(value)[0]
        case "column":
            return column_word(value)
        case "on":
            return player_in(state, value)
        case "amount":
            try:
                return int(value)
            except ValueError:
                raise Refused("4.2.7", f"amount={value} is not a whole number", "e.g. amount=5 or amount=-4") from None
        case "open":
            return value.strip().lower() in ("true", "yes", "1", "open")
        case "reason":
            return value
        case "tricks":
            parsed = parse_value(value)
            if not isinstance(parsed, dict):
                raise Refused("4.2.7", "trick counts are written NAME=N", " ".join(f"{p}=N" for p in state.players))
            return trick_counts(state, [f"{k}={v}" for k, v in parsed.items()])
        case _:
            return parse_value(value)


def bare_change(state: GameState, old: AnyEvent, word: str) -> dict[str, Any]:
    """A correction given as one word: what it means depends on the corrected event."""
    match old:
        case Bid():
            return {"bid": bid_word(word)}
        case Contract():
            return {"contract": contract_word(word)}
        case Defence():
            call, is_open = call_word(word)
            return {"call": call, "open": True} if is_open else {"call": call}
        case Entry() | Penalty():
            try:
                return {"amount": int(word)}
            except ValueError:
                return {"column": column_word(word)}
        case Annulled():
            return {"reason": word}
        case _:
            raise Refused("4.2.7", f"{word!r} says nothing a correction of this event could change",
                          "NAME=N for trick counts, a bid or contract, a call, an amount, or FIELD=VALUE")


def correction_command(target: int, changes: tuple[str, ...], by: str | None, waive: bool) -> Command[GameState]:
    def command(state: GameState) -> Iterable[AnyEvent]:
        replacement = replacement_of(state, target, changes)
        return [Correction(target=target, replacement=replacement, by=by_in(state, by),
                           penalty="waived" if waive else None)]

    return command


def preview_text(outcome: Outcome[GameState]) -> list[str]:
    """The correction as it would be stored, what it would change, and its verdict."""
    state = outcome.state
    stored = outcome.stored[-1]
    c = stored.event
    assert isinstance(c, Correction)
    old = state.events[c.target - 1] if c.target not in state.overrides else state.content(c.target)
    lines = [f"correction of event {c.target} (deal {old.deal or 0}, recorded by {old.by}), asked by {c.by}:",
             f"  was:    {describe(state.events[c.target - 1])}",
             f"  now:    {describe(merge(state.events[c.target - 1], c.replacement))}"]
    s = said(outcome)
    lines += writes_text(s) or ["  no number of the sheet changes"]
    for v in s.verdicts:
        if v.number == stored.number:
            lines.append(f"verdict: {v.kind} [{cite(v.effect.rule)}]: {v.effect.reason}")
    return lines


@click.command(cls=GameCommand,
               game_given=lambda w: len(w) >= 3 and (not w[0].isdigit() or w[1].isdigit()))
@game_argument
@click.argument("target", type=int)
@click.argument("changes", nargs=-1, required=True, metavar="CHANGE...")
@click.option("--by", envvar="PULKA_BY",
              help="Who asks for the correction (default: PULKA_BY, else the record's recorder).")
@click.option("--waive", is_flag=True, help="The wronged partner waives the penalty whists.")
@click.option("--yes", "-y", is_flag=True, help="Store without asking (needed when not on a terminal).")
@report_options
@db_option
def correct(game: str, target: int, changes: tuple[str, ...], by: str | None, waive: bool, yes: bool,
            quiet: bool, as_json: bool, db: str | None) -> None:
    """Correct event TARGET [Code 4.2.7-4.2.9], in the table's words:

    \b
      pulka correct 52 Boris=6 Vera=3   trick counts (the one left out makes 10)
      pulka correct 40 6H               a bid or a contract
      pulka correct 45 pass             a defence call
      pulka correct 16 2                the amount of an entry (or amount=2)
    Shows what would change and the verdict (free, warning, counted with its
    penalty, or no effect) and asks before storing; --yes stores without asking.
    """
    name = game_name(game, db)
    command = correction_command(target, changes, by, waive)
    with opened(db) as ledger:
        preview = ledger.preview(name, command, kind=PULKA)
        seen = preview.stored[0].number - 1
    if not quiet and not as_json:
        for text in preview_text(preview):
            click.echo(text)
    if not yes:
        if not sys.stdin.isatty():
            raise UserError("not stored: standard input is not a terminal; give --yes to store the correction")
        if not click.confirm("store this correction?", default=False):
            raise UserError("not stored")
    with opened(db, write=True) as ledger:
        outcome = ledger.execute(name, command, expected=seen, kind=PULKA)
    s = said(outcome)
    if as_json:
        tell(s, as_json=True)
    elif not quiet:
        click.echo(f"stored as event {outcome.stored[0].number}")
        for v in s.verdicts:
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
    name = game_name(game, db)
    taken: list[int] = []

    def command(state: GameState) -> Iterable[AnyEvent]:
        last = state.events[state.folded - 1]
        if first is None and isinstance(last, Withdrawn):
            raise Refused("4.2.8", f"the last event, {state.folded}, is an undo; an undo is not undone",
                          "record the withdrawn events again")
        start = first if first is not None else undo_from(state)
        taken.append(start)
        return [Withdrawn(first=start, by=by_in(state, by))]

    with opened(db, write=True) as ledger:
        try:
            outcome = ledger.execute(name, command, kind=PULKA)
        except Refused as exc:
            if exc.rule != "4.2.8" or not taken:
                raise
            raise Refused("4.2.8", f"{exc.reason}; nothing was withdrawn: a record out of hand is corrected "
                          "instead (Code 4.2.7)",
                          "pulka correct N CHANGE… (`pulka log` shows the numbers)") from None
    tell(said(outcome), quiet=quiet, as_json=as_json)

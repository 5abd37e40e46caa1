"""A game as a reading command reads it: from the store (up to a point in time, a game
whose chain is broken or that holds an event its judge refuses refused unless read
``--read-anyway``) or from an export file (``--file``, judged as an import would judge
it, nothing stored); folded to a point, as a pulka's state or as the view of its kind,
with a progress bar for a long one; and the deal cap of a tournament's table, at which
its pulka is over.
"""

from __future__ import annotations

from dataclasses import dataclass

import click

from cli.common import CURRENT, F, UserError, game_name, opened, progress, refusals
from cli.logs import read_log
from ledger.judge.stored import RefusedEventError, pinpointed
from ledger.judge.kinds import judge_log
from ledger.judge.tables import deal_cap_of
from ledger.store.event_store import bulk
from ledger.store.stored import BrokenChainError, Reading, StoredEvent
from ledger.vocabulary import language
from ledger.vocabulary.chain import chain_digests
from ledger.vocabulary.events import AnyEvent
from ledger.vocabulary.logfile import check_export, game_of
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.tournament_events import parse_table_game
from projections.game import GameState
from projections.rubber import RubberState
from projections.kinds import PULKA, Kind, View, kind_of
from projections.points import Point
from projections.report import state_at

_ = language._  # every text a person reads, in the language in effect


def read_anyway_option(f: F) -> F:
    return click.option(
        "--read-anyway",
        is_flag=True,
        help="Show a game whose hash chain is broken (the break is named on standard error).",
    )(f)


def sound(reading: Reading, game: str, anyway: bool) -> Reading:
    """What a reading command shows: a game whose chain is broken, or that holds an event
    the ledger would not have recorded (its judge refuses it), is refused, or, with
    ``--read-anyway``, shown with the event named on standard error."""
    wrong: Exception | None = None
    if reading.problem is not None:
        wrong = BrokenChainError(game, reading.problem)
    elif reading.refused is not None:
        wrong = RefusedEventError(game, reading.refused)
    if wrong is not None:
        if not anyway:
            raise UserError(_("refused: {reason}; --read-anyway shows it regardless").format(reason=wrong))
        click.echo("pulka: " + _("warning: {reason}; shown because of --read-anyway").format(reason=wrong), err=True)
    return reading


def file_option(f: F) -> F:
    return click.option(
        "--file", "file", type=click.Path(exists=True, dir_okay=False), metavar="LOG.jsonl",
        help="Read this log (an export, checked against its digests) instead of the store.",
    )(f)


@dataclass(frozen=True)
class Read:
    """A game as read: its name and its events as stored (or as they would be), and,
    from the store, the game folded after all of them by the read that judged them
    (``Ledger.read_folded``; None when it made none), which a view of them shows
    without folding them again."""

    game: str
    stored: list[StoredEvent]
    state: GameState | RubberState | None = None

    @property
    def events(self) -> list[AnyEvent]:
        return [s.event for s in self.stored]

    @property
    def kind(self) -> Kind:
        """The kind of the game (a pulka, a rubber), told by its first event."""
        with refusals():
            return kind_of(self.stored[0].event)


def read_file(path: str, game: str = CURRENT) -> Read:
    """A log file read as the store would hold it: an export must check against its
    digests; every event is judged as ``pulka import`` would judge it; nothing is stored."""
    lines = read_log(path)
    with refusals():
        check_export(lines)  # an export carries a digest on every line, and they chain
        name = game_of(lines)
        if game not in (CURRENT, name):
            raise Refused("event-log", _("{path} is a log of {name}, not of {game}").format(
                path=path, name=repr(name), game=repr(game)))
        events = judge_log([(line.line, line.event) for line in lines])
    digests = chain_digests(name, events)
    return Read(name, [StoredEvent(n, e, d) for n, (e, d) in enumerate(zip(events, digests), start=1)])


def read_game(game: str, db: str | None, file: str | None, point: Point = Point(), anyway: bool = False,
              *, digests: bool = False) -> Read:
    """The game a read command is about: from ``--file``, or from the store. From the
    store, only the events up to ``point`` are read (``Ledger.read``), and a game whose
    chain is broken, or that holds an event its judge refuses, is refused unless the
    reader reads ``anyway``. ``digests``: with each event's digest (what an export
    shows; the others keep only the events)."""
    if file is not None:
        return read_file(file, game)
    name = game_name(game, db)
    with opened(db) as ledger, bulk():  # the read folds the game (``bulk``: no collector passes over it)
        total = ledger.store.count(name)
        total = min(total, point.at) if point.at is not None and point.at >= 1 else total
        with progress(_("replaying {game}").format(game=name), total) as update:
            reading, state = ledger.read_folded(name, point, digests=digests, progress=update)
            update(total)
        return Read(name, sound(reading, name, anyway).stored, state)


def fold_read(read: Read, point: Point) -> GameState | RubberState | None:
    """The read's own fold when it is the game at ``point``: the point keeps every event
    read (none given, or ``--at`` the last of them); else None."""
    whole = point.deal is None and point.time is None and point.at in (None, len(read.stored))
    return read.state if whole else None


def folded(read: Read, point: Point) -> GameState:
    """The game as of the point, with a progress bar for a long one; a stored event
    that cannot be replayed is refused by number. The read's fold when it is the game at
    the point (``fold_read``)."""
    state = fold_read(read, point)
    if isinstance(state, GameState):
        return state
    with refusals(), bulk(), progress(_("replaying {game}").format(game=read.game), len(read.stored)) as update:
        return pinpointed(read.game, read.events, lambda events: state_at(events, point, update))


def view(read: Read, point: Point) -> View:
    """A game of any kind as of the point, with the documents the commands print, with a
    progress bar for a long one; a stored event that cannot be replayed is refused by
    number. The read's fold, when it is the game at the point, is shown as it is
    (``fold_read``): a read from the store folds the game once."""
    kind = read.kind
    state = fold_read(read, point)
    if state is not None:
        return kind.view_of(state, point)
    with refusals(), bulk(), progress(_("replaying {game}").format(game=read.game), len(read.stored)) as update:
        return pinpointed(read.game, read.events, lambda events: kind.view(events, point, update))


def table_cap(read: Read, db: str | None, file: str | None) -> int | None:
    """``deal_cap`` of a game read from the store (a file holds no tournament)."""
    if file is not None or parse_table_game(read.game) is None:
        return None
    with opened(db) as ledger:
        return deal_cap_of(ledger.store, read.game)


def only_pulka(read: Read, what: str) -> None:
    """What only a pulka has (the spreadsheet, the drawn sheet, the report): refused for
    a game of another kind, pointing to what it has instead."""
    if read.kind is not PULKA:
        raise UserError(_("{game} is {kind}; {what} (a rubber's sheet and settlement: pulka sheet, pulka settle, "
                          "--json)").format(game=repr(read.game), kind=_(read.kind.noun), what=what))

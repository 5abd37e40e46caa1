"""Bringing a store and a log together: ``pulka init`` makes the store's table, and
``pulka import`` stores a log whole, all or nothing (a new game, events appended to a
stored game, a tournament with its tables, the whole club's file). A log of one new
game is read and judged a line at a time, never held whole; any other is refused
before it is read when this machine has not the memory to judge it.
"""

from __future__ import annotations

import itertools

import click

from cli.common import db_option, opened, progress
from cli.logs import LogShape, log_lines, log_shape, read_log, read_stdin_log
from ledger.application import NotStreamed
from ledger.store.event_store import bulk
from ledger.judge.kinds import GAME_STARTS
from ledger.vocabulary import language
from ledger.vocabulary.club import ClubStarted
from ledger.vocabulary.logfile import check_export, game_of, split_streams
from ledger.vocabulary.tournament_events import TournamentStarted
from ledger.vocabulary.wording import spoken_count

_ = language._  # every text a person reads, in the language in effect
ngettext = language.ngettext


@click.command()
@db_option
def init(db: str | None) -> None:
    """Create the store (its table), once; recording commands also do it when needed."""
    with opened(db, write=True) as ledger:
        ledger.store.ensure_table()
        click.echo(_("store ready: {store}").format(store=ledger.store.description))


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
    if file != "-":
        shape = log_shape(file)  # refuses a log larger than this machine can judge
        if shape.starts == 1 and _streamed(file, db, shape):
            return
    exported = read_stdin_log() if file == "-" else read_log(file)
    with opened(db, write=True) as ledger:
        streams = split_streams(exported)
        if len(streams) > 1 or isinstance(exported[0].event, TournamentStarted | ClubStarted):
            # A tournament with its games, or several games (tournaments load the views'
            # machinery: only an import that needs them does).
            from ledger.desks.streams import import_streams

            for item in import_streams(ledger, streams):
                click.echo(_("created {game}: {events} stored").format(
                    game=item.stream, events=spoken_count(item.events, "event")))
            return
        check_export(exported)
        # An export of a stored game, or of its beginning, may be imported again: the
        # events it shares with the store, digest for digest, are there already.
        from ledger.desks.appending import forked, stored_prefix

        known = stored_prefix(ledger, exported)
        forked(ledger, exported, known)
        if known and known == len(exported):
            click.echo(ngettext("{game}: nothing new, the file's {n} event is stored already",
                                "{game}: nothing new, the file's {n} events are stored already", known).format(
                game=game_of(exported), n=known))
            return
        kept = exported[:1] + exported[max(1, known):]
        lines = [(line, event) for line, event, _ in kept]
        with progress(_("judging"), len(lines)) as update:
            recorded = ledger.record_lines(lines, progress=lambda done, total: update(done + 1))
        done = (_("created {game}: {events} stored{already}") if recorded.created
                else _("appended to {game}: {events} stored{already}"))
        already = _(" ({n} already stored)").format(n=known) if known > 1 else ""
        click.echo(done.format(game=recorded.game, events=spoken_count(len(recorded.stored), "event"),
                               already=already))


def _streamed(file: str, db: str | None, shape: LogShape) -> bool:
    """Import the log of one new game a line at a time (``Ledger.record_stream``): a long
    log is never held whole. False, having stored nothing, for a log that must be read
    whole (a game stored already, digests to be named as wrong, a tournament's file)."""
    try:
        with log_lines(file) as lines, opened(db, write=True) as ledger:
            first = next(lines)
            if not isinstance(first.event, GAME_STARTS):
                return False
            with progress(_("judging"), shape.lines) as update:
                recorded = ledger.record_stream(itertools.chain([first], lines),
                                                progress=lambda done, total: update(done + 1), total=shape.lines - 1)
    except NotStreamed:
        return False
    click.echo(_("created {game}: {events} stored").format(
        game=recorded.game, events=spoken_count(len(recorded.stored), "event")))
    return True

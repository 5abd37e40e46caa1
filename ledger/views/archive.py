"""The read models that span many streams: the club archive (every pulka's result as it
stood after each event that changed it, the tournaments' deal caps, the aliases),
kept by an ``eventsourcing.projection`` projection that follows the store's event order.

- ``ArchiveProjection`` is an ``eventsourcing.projection.Projection``: for each stored
  event it folds the event into its game (``projections.archive.game_result``) and writes
  what changed into the view, with the event's position, through the view's tracking
  recorder, in one transaction. After a crash nothing half-done remains, and the next
  runner starts after the last position saved.
- The views are tracking recorders (``SQLiteArchiveView``, ``PostgresArchiveView``):
  eventsourcing's own, with the view's tables beside its tracking table. Every write
  is idempotent (rows keyed by game and event number, the position only moves
  forward), so two followers at once never corrupt the view.
- ``Views`` runs the projection with eventsourcing's ``ProjectionRunner`` machinery
  (``ArchiveRunner``): ``catch_up`` brings the view up to the last stored event (what a
  read does first), ``follow`` keeps it current as events arrive (PostgreSQL's
  LISTEN/NOTIFY; SQLite, which eventsourcing 9.5.6 cannot subscribe to, is polled),
  ``rebuild`` clears it and builds it again from the first event.

The club rating (``ledger.views.rating``) is kept in the same transactions, from the
results each write brings (``_ArchiveSQL.keep_rating``): the same position, the same
crash safety, and a rebuild rebuilds it too.

The view's tables are made only when the store is initialised or a stream is created
(``ensure_views``, ``Views.create``); a read never runs DDL, and refuses on a store
whose views were never made. Views made before the rating had tables are cleared when
its tables are made, so that the next read builds them all from the first event.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from time import monotonic
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol
from uuid import UUID, uuid4
from weakref import WeakKeyDictionary

from eventsourcing.persistence import (
    ApplicationRecorder,
    InfrastructureFactory,
    ListenNotifySubscription,
    Mapper,
    MapperDeserialisationError,
    PersistenceError,
    Subscription,
    Tracking,
    TrackingRecorder,
    WaitInterruptedError,
)
from eventsourcing.projection import BaseProjectionRunner, Projection
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore, SQLiteTrackingRecorder
from eventsourcing.utils import Environment, get_topic

from ledger.views import rating as ratings

from ledger.store import sqlite as store_sqlite
from ledger.store.records import LedgerApplication, Opened, Recorded
from ledger.store.backend import disk_full, not_allowed, pause, reason
from ledger.store.event_store import Store, StoreError, game_id
from ledger.vocabulary.chain import GENESIS, ChainProblem, link, link_of, verify_chain
from ledger.vocabulary import language
from ledger.vocabulary.club import PlayerAliased
from ledger.vocabulary.events import GameStarted, StreamStart
from ledger.vocabulary.times import TimeFormatError, utc_micros
from ledger.vocabulary.tournament_events import TournamentStarted, parse_table_game
from projections.archive import Alias, GameResult, PulkaRow, deals_done, may_change_result, game_result
from projections.game import GameState, replay

__all__ = ["APPLICATION", "ArchiveProjection", "ArchiveRunner", "LeftOut", "Views", "ViewsMissing", "ViewsUnwritable",
           "ensure_views"]

# The name of the followed application (the store's), under which positions are tracked.
APPLICATION = LedgerApplication.name
# How often a follower on SQLite looks for new events (PostgreSQL is notified).
SQLITE_POLL_SECONDS = 0.05
# A catch-up saves the view and its position every so many events (and at its end);
# a follower saves after every event.
CATCH_UP_BATCH = 1000
# Games whose folded state a projection keeps in memory between events.
GAMES_KEPT = 256


class ViewsMissing(StoreError):
    """The store has no views yet (made by ``pulka views rebuild`` or a new stream)."""


class ViewsUnwritable(StoreError):
    """This command cannot write the store's views (or may not read them): a role
    without the grants, a SQLite file it may not write, a full disk. A reader then folds
    the archive in memory (``Views(store, in_memory=True)``); the message says why, and
    what to grant."""


# -- a subscription for SQLite ---------------------------------------------------------


class PollingSubscription(ListenNotifySubscription[ApplicationRecorder]):
    """eventsourcing's pull loop, woken by a timer instead of PostgreSQL's NOTIFY."""

    def __init__(self, recorder: ApplicationRecorder, gt: int | None = None, topics: Sequence[str] = ()) -> None:
        self._stopping = threading.Event()
        super().__init__(recorder=recorder, gt=gt, topics=topics)
        self._poll_thread = threading.Thread(target=self._poll, daemon=True)
        self._poll_thread.start()

    def _poll(self) -> None:
        while not self._stopping.wait(SQLITE_POLL_SECONDS):
            self._has_been_notified.set()

    def stop(self) -> None:
        self._stopping.set()
        super().stop()

    def __exit__(self, *args: object, **kwargs: Any) -> None:
        try:
            super().__exit__(*args, **kwargs)
        finally:
            self._poll_thread.join()


class SubscribableSQLiteRecorder(SQLiteApplicationRecorder):
    """The store's SQLite recorder, able to be subscribed to (by polling)."""

    def subscribe(self, gt: int | None = None, topics: Sequence[str] = ()) -> Subscription[ApplicationRecorder]:
        return PollingSubscription(recorder=self, gt=gt, topics=topics)


# -- what the projection writes ---------------------------------------------------------


@dataclass(frozen=True)
class GameRow:
    game: str
    started_at: str
    started_utc: int
    convention: str
    players: tuple[str, ...]
    tournament: str | None


@dataclass(frozen=True)
class ResultRow:
    game: str
    version: int
    at_utc: int
    result: GameResult
    was_over: bool = False  # the game's result before this one was over (the rating asks)


@dataclass(frozen=True)
class TournamentRow:
    tournament: str
    deal_cap: int | None


@dataclass(frozen=True)
class AliasRow:
    seq: int
    at_utc: int
    name: str
    same_as: str


@dataclass(frozen=True)
class BrokenRow:
    """A stream the views stopped reading at ``version``: its chain does not hold there
    (or its event cannot be folded). A game so named is left out of every table."""

    stream: str  # the stream's id
    name: str  # the game's (or tournament's, or register's) name; "stream <id>" when unknown
    version: int
    reason: str
    was_over: bool = False  # the game's result had been counted (the rating takes it out)


Change = GameRow | ResultRow | TournamentRow | AliasRow | BrokenRow


class LeftOut(NamedTuple):
    """A stream the views read only up to the event before ``version`` (a game: none of it)."""

    name: str
    version: int
    reason: str

    def __str__(self) -> str:
        # ``reason`` is stored (``archive_broken.reason``): it stays in English
        return _("{name} is left out of the archive from event {version} on, where its chain breaks: "
                 "{reason}; see `pulka verify`").format(name=repr(self.name), version=self.version, reason=self.reason)


# -- the views: tracking recorders with the archive's tables -------------------------------


_ = language._  # every text a person reads, in the language in effect; never what a table stores
N_ = language.N_

# What a store error of the views was doing (``Views.fault``), said as a verb.
Doing = Literal["read", "make", "write"]
DOING: dict[Doing, str] = {"read": N_("read"), "make": N_("make"), "write": N_("write")}

ARCHIVE_TABLES = ("archive_games", "archive_results", "archive_tournaments", "archive_aliases", "archive_broken")
# The club rating's tables (``ledger.views.rating``), kept in the same transactions.
TABLES = ARCHIVE_TABLES + ratings.TABLES


class ArchiveView(Protocol):
    """What the projection and the readers need of a view, on either backend."""

    def max_tracking_id(self, application_name: str) -> int | None: ...
    def wait(self, application_name: str, notification_id: int | None, timeout: float = 1.0,
             interrupt: threading.Event | None = None) -> None: ...
    def exists(self) -> bool: ...
    def create(self) -> None: ...
    def write(self, changes: Sequence[Change], tracking: Tracking) -> None: ...
    def clear(self) -> None: ...
    def select(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...
    def table(self, name: str) -> str: ...


class _ArchiveSQL:
    """The view's SQL, written once for both backends (``?`` placeholders, ``{t}`` tables)."""

    placeholder = "?"
    tracking_table = "tracking"

    def table(self, name: str) -> str:
        return name

    def sql(self, statement: str) -> str:
        text = statement.format(**{t: self.table(t) for t in (*TABLES, "tracking")})
        return text.replace("?", self.placeholder)

    def create_statements(self) -> list[str]:
        return [self.sql(s) for s in (
            "CREATE TABLE IF NOT EXISTS {archive_games} (game TEXT PRIMARY KEY, started_at TEXT NOT NULL, "
            "started_utc BIGINT NOT NULL, convention TEXT NOT NULL, players TEXT NOT NULL, tournament TEXT, "
            "latest BIGINT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS {archive_results} (game TEXT NOT NULL, version BIGINT NOT NULL, "
            "at_utc BIGINT NOT NULL, status TEXT NOT NULL, deals BIGINT NOT NULL, whists TEXT NOT NULL, "
            "money TEXT, PRIMARY KEY (game, version))",
            "CREATE TABLE IF NOT EXISTS {archive_tournaments} (tournament TEXT PRIMARY KEY, deal_cap BIGINT)",
            "CREATE TABLE IF NOT EXISTS {archive_aliases} (seq BIGINT PRIMARY KEY, at_utc BIGINT NOT NULL, "
            "name TEXT NOT NULL, same_as TEXT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS {archive_broken} (stream TEXT PRIMARY KEY, name TEXT NOT NULL, "
            "version BIGINT NOT NULL, reason TEXT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS {tracking} (application_name TEXT PRIMARY KEY, notification_id BIGINT)",
            *ratings.CREATE,
        )]

    def write_statements(self, change: Change) -> list[tuple[str, tuple[Any, ...]]]:
        match change:
            case GameRow():
                return [(self.sql("INSERT INTO {archive_games} VALUES (?, ?, ?, ?, ?, ?, 0) ON CONFLICT (game) DO NOTHING"),
                         (change.game, change.started_at, change.started_utc, change.convention,
                          json.dumps(list(change.players), ensure_ascii=False), change.tournament))]
            case ResultRow():
                r = change.result
                return [
                    (self.sql("INSERT INTO {archive_results} VALUES (?, ?, ?, ?, ?, ?, ?) "
                              "ON CONFLICT (game, version) DO NOTHING"),
                     (change.game, change.version, change.at_utc, r.status, r.deals,
                      json.dumps(r.whists, ensure_ascii=False),
                      None if r.money is None else json.dumps(r.money, ensure_ascii=False))),
                    (self.sql("UPDATE {archive_games} SET latest = ? WHERE game = ? AND latest < ?"),
                     (change.version, change.game, change.version)),
                ]
            case TournamentRow():
                return [(self.sql("INSERT INTO {archive_tournaments} VALUES (?, ?) ON CONFLICT (tournament) DO NOTHING"),
                         (change.tournament, change.deal_cap))]
            case AliasRow():
                return [(self.sql("INSERT INTO {archive_aliases} VALUES (?, ?, ?, ?) ON CONFLICT (seq) DO NOTHING"),
                         (change.seq, change.at_utc, change.name, change.same_as))]
            case BrokenRow():
                return [(self.sql("INSERT INTO {archive_broken} VALUES (?, ?, ?, ?) ON CONFLICT (stream) DO NOTHING"),
                         (change.stream, change.name, change.version, change.reason))]

    def keep_rating(self, tx: ratings.Tx, changes: Sequence[Change]) -> None:
        """The club rating, in the transaction that writes the archive's changes."""
        outcomes = [ratings.Outcome(c.game, c.at_utc, c.result, c.was_over)
                    for c in changes if isinstance(c, ResultRow) and (c.result.over or c.was_over)]
        # A game left out once its chain breaks leaves the rating too, as a result no
        # longer over does.
        outcomes += [ratings.Outcome(c.name, 0, LEFT_OUT, True) for c in changes
                     if isinstance(c, BrokenRow) and c.was_over]
        ratings.keep(tx, outcomes, any(isinstance(c, AliasRow) for c in changes))

    def rate_again(self) -> None:
        """Fold the rating again from the first pulka over, in one transaction (what an
        alias does; ``bench/rating.py`` times it)."""
        with self.writing() as c:
            ratings.keep(_Tx(self, c, encode=self.placeholder != "?"), [], aliases_changed=True)

    def writing(self) -> Any:
        """A write transaction (the database's own; SQLite's takes its write lock first)."""
        return getattr(self, "datastore").transaction(commit=True)

    def advance_statement(self) -> str:
        # The position only moves forward; a follower that is behind writes nothing new.
        return self.sql(
            "INSERT INTO {tracking} (application_name, notification_id) VALUES (?, ?) "
            "ON CONFLICT (application_name) DO UPDATE SET notification_id = excluded.notification_id "
            "WHERE {tracking}.notification_id < excluded.notification_id"
        )


# The views' first table and the tables added since: views that have the first but not
# every later one were built before (without the rating, or without reading only
# events whose chain holds), and are built again from the first event.
FIRST_AND_LATEST = ("archive_games", "rating_matches", "archive_broken")


def _older(found: Sequence[str]) -> bool:
    return "archive_games" in found and len(set(found)) < len(FIRST_AND_LATEST)


# What a game left out of the views counts for: nothing (the rating takes it out).
LEFT_OUT = GameResult("playing", 0, {})


class _Tx:
    """One transaction of a view, for the rating's reads and writes in it."""

    def __init__(self, view: _ArchiveSQL, cursor: Any, *, encode: bool) -> None:
        self.view, self.cursor, self.encode = view, cursor, encode

    def execute(self, statement: str, params: Sequence[Any] = ()) -> None:
        text = self.view.sql(statement)
        self.cursor.execute(text.encode() if self.encode else text, tuple(params))

    def query(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self.execute(statement, params)
        return [tuple(row.values()) if isinstance(row, dict) else tuple(row) for row in self.cursor.fetchall()]


class _Progress:
    """Wakes a waiter in this process as soon as the view's position moves (eventsourcing's
    ``TrackingRecorder.wait`` polls the database with a back-off of up to 0.8 s); the
    position itself is always read from the database."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.moves = 0

    def moved(self) -> None:
        with self.condition:
            self.moves += 1
            self.condition.notify_all()

    def wait(self, recorder: TrackingRecorder, application_name: str, notification_id: int | None,
             timeout: float, interrupt: threading.Event | None) -> None:
        deadline = monotonic() + timeout
        while True:
            with self.condition:
                seen = self.moves
            if recorder.has_tracking_id(application_name, notification_id):
                return
            if interrupt is not None and interrupt.is_set():
                raise WaitInterruptedError
            remaining = deadline - monotonic()
            if remaining < 0:
                raise TimeoutError(_("timed out waiting for event {position} to reach the views").format(
                    position=notification_id))
            with self.condition:
                # Another process may move the view too: look again at least every 0.1 s.
                self.condition.wait_for(lambda: self.moves != seen, min(remaining, 0.1))


class SQLiteArchiveView(_ArchiveSQL, SQLiteTrackingRecorder):
    """The archive's tables in the store's SQLite file, beside eventsourcing's ``tracking``."""

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        super().__init__(datastore, **kwargs)
        self.progress = _Progress()

    def writing(self) -> Any:
        return store_sqlite.writing(self.datastore)

    def exists(self) -> bool:
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ({', '.join('?' * len(TABLES))}, ?)",
                      (*TABLES, "tracking"))
            return len(c.fetchall()) == len(TABLES) + 1

    def create(self) -> None:
        # Asked in a read transaction of its own, and the tables made in one that takes
        # the write lock as it begins: a transaction that reads first (as a CREATE TABLE
        # IF NOT EXISTS of a table another process has just made does) cannot wait for
        # another writer (SQLite refuses to move its stale read on to a write at once,
        # "database is locked").
        with self.datastore.transaction(commit=False) as c:
            c.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?)", FIRST_AND_LATEST)
            older = _older([r[0] for r in c.fetchall()])
        with self.writing() as c:
            for statement in self.create_statements():
                c.execute(statement)
            pause("views")
            # eventsourcing marks a tracking table it made as single-row with this row;
            # without it, its own create_table() would "migrate" ours.
            c.execute(self.advance_statement(), ("__migration__", 1))
        if older:
            self.clear()  # views made before the rating or the chain checks: the next read builds them all again

    def write(self, changes: Sequence[Change], tracking: Tracking) -> None:
        with self.datastore.transaction(commit=True) as c:
            # The position first: its write takes SQLite's write lock at once.
            c.execute(self.advance_statement(), (tracking.application_name, tracking.notification_id))
            for change in changes:
                for statement, params in self.write_statements(change):
                    c.execute(statement, params)
            self.keep_rating(_Tx(self, c, encode=False), changes)
        self.progress.moved()

    def clear(self) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.execute("DELETE FROM tracking WHERE application_name = ?", (APPLICATION,))
            for table in TABLES:
                c.execute(f"DELETE FROM {table}")

    def select(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(self.sql(statement), tuple(params))
            return [tuple(row) for row in c.fetchall()]

    def wait(self, application_name: str, notification_id: int | None, timeout: float = 1.0,
             interrupt: threading.Event | None = None) -> None:
        self.progress.wait(self, application_name, notification_id, timeout, interrupt)


if TYPE_CHECKING:
    from eventsourcing.postgres import PostgresTrackingRecorder as _PostgresRecorder
else:
    _PostgresRecorder = object  # the driver is loaded only for a PostgreSQL store (below)


class _PostgresArchive(_ArchiveSQL, _PostgresRecorder):
    """The archive's tables in the store's PostgreSQL schema, beside ``archive_tracking``:
    what the view class adds to eventsourcing's recorder (``postgres_archive_view``)."""

    placeholder = "%s"
    # Taken while the view's tables are made, so that processes starting at once do not
    # race to create them.
    DDL_LOCK = 0x70756C6B61  # "pulka"

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        super().__init__(datastore, **kwargs)
        self.progress = _Progress()

    def table(self, name: str) -> str:
        if name == "tracking":
            name = self.tracking_table_name
        return f'"{self.datastore.schema}"."{name}"'

    def exists(self) -> bool:
        with self.datastore.transaction(commit=False) as c:
            c.execute(
                "SELECT count(*) AS n FROM pg_tables WHERE schemaname = %s AND tablename = ANY(%s)",
                (self.datastore.schema, [*TABLES, self.tracking_table_name]),
            )
            row = c.fetchone()
            return row is not None and row["n"] == len(TABLES) + 1

    def create(self) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.execute("SELECT pg_advisory_xact_lock(%s)", (self.DDL_LOCK,))
            c.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s AND tablename = ANY(%s)",
                      (self.datastore.schema, list(FIRST_AND_LATEST)))
            older = _older([r["tablename"] for r in c.fetchall()])
            for statement in self.create_statements():
                c.execute(statement.encode())
            pause("views")
            c.execute(self.advance_statement().encode(), ("__migration__", 1))
        if older:
            self.clear()  # views made before the rating or the chain checks: the next read builds them all again

    def write(self, changes: Sequence[Change], tracking: Tracking) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.execute(self.advance_statement().encode(), (tracking.application_name, tracking.notification_id))
            for change in changes:
                for statement, params in self.write_statements(change):
                    c.execute(statement.encode(), params)
            self.keep_rating(_Tx(self, c, encode=True), changes)
        self.progress.moved()

    def clear(self) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.execute(self.sql("DELETE FROM {tracking} WHERE application_name = ?").encode(), (APPLICATION,))
            for table in TABLES:
                c.execute(f"DELETE FROM {self.table(table)}".encode())

    def select(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(self.sql(statement).encode(), tuple(params))
            return [tuple(row.values()) for row in c.fetchall()]

    def wait(self, application_name: str, notification_id: int | None, timeout: float = 1.0,
             interrupt: threading.Event | None = None) -> None:
        self.progress.wait(self, application_name, notification_id, timeout, interrupt)


@functools.cache
def postgres_archive_view() -> type[Any]:
    """The archive's view class for a PostgreSQL store, made when first needed, so that
    only a PostgreSQL store loads the driver."""
    from eventsourcing.postgres import PostgresTrackingRecorder

    class PostgresArchiveView(_PostgresArchive, PostgresTrackingRecorder):
        """The archive's tables in the store's PostgreSQL schema, beside ``archive_tracking``."""

    return PostgresArchiveView

# -- the projection ---------------------------------------------------------------------


class EventSource(Protocol):
    """Where the projection reads a stream's earlier records when it meets it mid-way."""

    def load(self, stream: UUID, upto: int) -> list[Recorded]: ...


@dataclass
class _Stream:
    name: str
    state: GameState | None = None  # a game's fold; None for other kinds of stream
    result: GameResult | None = None
    cap: int | None = None
    count: int = 0  # the number of the last event taken in
    digest: str = GENESIS  # and its digest, which the next event must be chained to
    broken: bool = False  # its chain broke: nothing more of it is read


class ArchiveProjection(Projection[Any]):
    """Every game's result after each event that changed it, the tournaments' deal caps
    and the aliases, from the store's notification log in order."""

    name = "Archive"
    topics = ()

    def __init__(self, view: Any, source: EventSource) -> None:
        super().__init__(view=view)
        self.source = source
        self.streams: OrderedDict[UUID, _Stream] = OrderedDict()
        self.caps: dict[str, int | None] = {}
        self.pending: list[Change] = []  # changes not yet saved, of ``unsaved`` events
        self.unsaved = 0
        self.batch = 1  # save after this many events (a follower: every event)
        self.flush_at: int | None = None  # and at this position (the end of a catch-up)
        self.processed = 0

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        """Fold one stored event in; save what changed with its position, now or (while
        catching up) with the batch it ends, in one transaction."""
        assert isinstance(domain_event, Recorded), domain_event
        self.pending.extend(self.changes(domain_event))
        self.unsaved += 1
        self.processed += 1
        if self.unsaved >= self.batch or (self.flush_at is not None and tracking.notification_id >= self.flush_at):
            self.view.write(self.pending, tracking)
            self.pending = []
            self.unsaved = 0

    def changes(self, record: Recorded) -> list[Change]:
        """What one stored event changes in the view (the pure part is ``projections.archive``).

        Only events whose chain holds are read: each must be chained to the one before
        it in its stream, as ``verify`` checks. At the first that is not (a row edited
        without its digest computed anew, a row deleted), or that the fold cannot take,
        the stream is left out from there on (``BrokenRow``): a game whole, the club
        register's later aliases."""
        version = record.originator_version
        if version == 1:
            stream = _Stream(_name_of(record) or f"stream {record.originator_id}")
        else:
            stream, problem = self._stream(record.originator_id, version)
            if problem is not None:
                return self._broken(record.originator_id, stream, problem)
            if stream.broken:
                return []
        problem = _follows(stream, record)
        if problem is not None:
            return self._broken(record.originator_id, stream, problem)
        stream.count, stream.digest = version, record.digest
        try:
            return self._taken(record, stream)
        except Exception as exc:  # the fold cannot take it: an event the ledger would not have recorded
            return self._broken(record.originator_id, stream, ChainProblem(
                version, f"event {version} cannot be replayed ({type(exc).__name__}: {exc})"))

    def _taken(self, record: Recorded, stream: _Stream) -> list[Change]:
        event = record.event
        version = record.originator_version
        if version == 1:
            assert isinstance(event, StreamStart), event
            return self._start(record.originator_id, event, stream)
        if isinstance(event, PlayerAliased):
            return [AliasRow(version, _micros(event.at), event.name, event.same_as)]
        state = stream.state
        if state is None:
            return []
        done_before = deals_done(state)
        state.apply(event)
        if not may_change_result(event, state, done_before):
            return []
        result = game_result(state, stream.cap)
        if result == stream.result:
            return []
        was_over = stream.result is not None and stream.result.over
        stream.result = result
        return [ResultRow(stream.name, version, _micros(event.at), result, was_over)]

    def _broken(self, stream_id: UUID, stream: _Stream, problem: ChainProblem) -> list[Change]:
        """The stream left out from the event ``problem`` names on."""
        stream.broken = True
        stream.state = None
        self._keep(stream_id, stream)
        was_over = stream.result is not None and stream.result.over
        return [BrokenRow(str(stream_id), stream.name, problem.number, problem.reason, was_over)]

    def _start(self, stream_id: UUID, event: StreamStart, stream: _Stream) -> list[Change]:
        if isinstance(event, TournamentStarted):
            self.caps[event.game] = event.deal_cap
            self._keep(stream_id, stream)
            return [TournamentRow(event.game, event.deal_cap)]
        if not isinstance(event, GameStarted):
            self._keep(stream_id, stream)
            return []
        state = GameState.start(event)
        tournament, cap = self._tournament_of(event.game)
        result = game_result(state, cap)
        stream.state, stream.result, stream.cap = state, result, cap
        self._keep(stream_id, stream)
        at = _micros(event.at)
        assert event.at is not None
        return [
            GameRow(event.game, event.at, at, state.rules.convention, event.players, tournament),
            ResultRow(event.game, 1, at, result),
        ]

    def _stream(self, stream_id: UUID, version: int) -> tuple[_Stream, ChainProblem | None]:
        """The stream as it was before event ``version``: kept, or read again (its chain
        checked) and folded again; with the problem of what was read again, if any (a
        row changed since the views took it in, or an event the fold cannot take)."""
        kept = self.streams.get(stream_id)
        if kept is not None:
            self.streams.move_to_end(stream_id)
            if kept.broken or kept.count == version - 1:
                return kept, None
        records = self.source.load(stream_id, version - 1)
        name = _name_of(records[0]) if records else None
        stream = self._keep(stream_id, _Stream(name or f"stream {stream_id}"))
        problem = _chain_problem(name, records, version - 1)
        if problem is not None:
            return stream, problem
        first = records[0].event
        stream.count, stream.digest = len(records), records[-1].digest
        if isinstance(first, GameStarted):
            try:
                state = replay([r.event for r in records])
            except Exception as exc:
                return stream, ChainProblem(version - 1, f"events 1-{version - 1} cannot be replayed "
                                                         f"({type(exc).__name__}: {exc})")
            _, cap = self._tournament_of(first.game)
            stream.state, stream.result, stream.cap = state, game_result(state, cap), cap
        return stream, None

    def _keep(self, stream_id: UUID, stream: _Stream) -> _Stream:
        self.streams[stream_id] = stream
        self.streams.move_to_end(stream_id)
        while len(self.streams) > GAMES_KEPT:
            self.streams.popitem(last=False)
        return stream

    def _tournament_of(self, game: str) -> tuple[str | None, int | None]:
        """The tournament a game ``T/R/K`` is a table of, and its deal cap."""
        parsed = parse_table_game(game)
        if parsed is None:
            return None, None
        name = parsed[0]
        if name not in self.caps:
            rows = self.view.select("SELECT deal_cap FROM {archive_tournaments} WHERE tournament = ?", (name,))
            if not rows:
                return None, None
            self.caps[name] = rows[0][0]
        return name, self.caps[name]


def _name_of(record: Recorded) -> str | None:
    """The name of the stream a record is the first event of, when it starts the stream
    it is stored in (else None)."""
    event = record.event
    if isinstance(event, StreamStart) and game_id(event.game) == record.originator_id:
        return event.game
    return None


def _follows(stream: _Stream, record: Recorded) -> ChainProblem | None:
    """Why ``record`` is not the next event of ``stream`` in its chain (as ``verify``
    checks it: its number, its topic, its digest and the link it records); None when it is."""
    version = record.originator_version
    if version != stream.count + 1:
        return ChainProblem(stream.count + 1, f"event {stream.count + 1} is missing (deleted?)")
    if (version == 1) != isinstance(record, Opened):
        return ChainProblem(version, f"event {version}: its topic was changed (edited?)")
    if version == 1 and _name_of(record) is None:
        return ChainProblem(version, f"event {version} is not the start of its stream (moved or edited?)")
    if link(stream.digest, stream.name, version, record.event) != record.digest:
        return ChainProblem(version, f"event {version}: digest does not match its content or the events "
                                     "before it (edited?)")
    if record.link is not None and record.link != link_of(stream.digest):
        return ChainProblem(version, f"event {version}: the link it records to the event before it was "
                                     "changed (edited?)")
    return None


def _chain_problem(name: str | None, records: Sequence[Recorded], upto: int) -> ChainProblem | None:
    """The first problem of a stream's first ``upto`` records, read again (``verify_chain``)."""
    if len(records) != upto or not records or name is None:
        return ChainProblem(1, f"events 1-{upto} are not all there, or event 1 starts no stream here (edited?)")
    if any((r.originator_version == 1) != isinstance(r, Opened) for r in records):
        return ChainProblem(1, "a topic was changed (edited?)")
    rows = [(r.originator_version, r.event, r.digest) for r in records]
    return verify_chain(name, rows, {r.originator_version: r.link for r in records if r.link is not None})


def _micros(at: str | None) -> int:
    assert at is not None, "stored events always carry their time"
    try:
        return utc_micros(at)
    except TimeFormatError:  # pragma: no cover - the command side refuses such times
        return 0


# -- running it ---------------------------------------------------------------------------


class ArchiveRunner(BaseProjectionRunner[LedgerApplication]):
    """eventsourcing's projection runner on the store's application, for the archive."""

    def __init__(self, projection: ArchiveProjection, view: ArchiveView, env: dict[str, str]) -> None:
        super().__init__(
            projection=projection,
            application_class=LedgerApplication,
            tracking_recorder=view,  # type: ignore[arg-type]
            topics=projection.topics,
            env=env,
        )


class _Source:
    """Reads a stream's first events through a reader of the store's application."""

    def __init__(self, app: LedgerApplication) -> None:
        self.recorder = app.recorder
        self.mapper: Mapper[UUID] = app.mapper

    def load(self, stream: UUID, upto: int) -> list[Recorded]:
        rows = self.recorder.select_events(stream, lte=upto)
        out: list[Recorded] = []
        for row in rows:
            record = self.mapper.to_domain_event(row)
            assert isinstance(record, Recorded)
            out.append(record)
        return out


class Views:
    """The archive views of one store: catch up, follow, rebuild, and read.

    ``in_memory``: views of this command alone, folded from the stored events into an
    in-memory SQLite database, for a store whose views this command may not write (a
    role with the auditor's grants, a read-only SQLite file, a full disk): the same
    projection and the same readers, nothing written to the store."""

    def __init__(self, store: Store, *, in_memory: bool = False) -> None:
        env = dict(store.env)
        env["CREATE_TABLE"] = "n"  # reading never makes tables
        if env.get("PERSISTENCE_MODULE") == "eventsourcing.sqlite":
            env["APPLICATION_RECORDER_TOPIC"] = get_topic(SubscribableSQLiteRecorder)
            view_class: type[Any] = SQLiteArchiveView
        else:
            view_class = postgres_archive_view()
        self.env = env
        self.description = store.description
        self.path = env.get("SQLITE_DBNAME")
        self.in_memory = in_memory
        self.read_only = store.read_only
        try:
            if in_memory:
                self.datastore = SQLiteDatastore(f"file:pulka-views-{uuid4().hex}?mode=memory&cache=shared")
                self.view: Any = SQLiteArchiveView(self.datastore)
                self.view.create()
            else:
                self.factory = InfrastructureFactory[Any].construct(env=Environment(ArchiveProjection.name, env))
                self.view = self.factory.tracking_recorder(view_class)
            self.reader = LedgerApplication(env=env)
        except PersistenceError as exc:
            raise StoreError(_("cannot open the views of {store}: {why}").format(
                store=store.description, why=reason(exc))) from None
        self.projection = ArchiveProjection(self.view, _Source(self.reader))

    def fault(self, exc: BaseException, doing: Doing) -> StoreError:
        """What the database said while the views were read or written, as a store
        error: ``ViewsUnwritable`` when this command may not do it, a full disk called so."""
        full = disk_full(exc, self.path)
        verb = _(DOING[doing])
        if full is not None:
            return ViewsUnwritable(_("cannot {doing} the player views of {store}: {why}").format(
                doing=verb, store=self.description, why=full))
        if not_allowed(exc):
            return ViewsUnwritable(_(
                "this command may not {doing} the player views of {store} ({why}): "
                "a role that keeps them needs SELECT, INSERT, UPDATE and DELETE on the archive_* and rating_* "
                "tables and the views' tracking table (archive_tracking on PostgreSQL) of the store's schema, "
                "or another role keeps them current (`pulka views follow`) and this one needs SELECT on them"
            ).format(doing=verb, store=self.description, why=reason(exc)))
        return StoreError(_("cannot {doing} the player views of {store}: {why}").format(
            doing=verb, store=self.description, why=reason(exc)))

    # -- keeping the view ------------------------------------------------------------

    def exists(self) -> bool:
        try:
            return bool(self.view.exists())
        except (PersistenceError, sqlite3.Error) as exc:
            raise self.fault(exc, "read") from None

    def create(self) -> None:
        """Make the view's tables when missing (what ``pulka views rebuild`` and a new
        stream do; never a read)."""
        try:
            if not self.view.exists():
                self.view.create()
        except (PersistenceError, sqlite3.Error) as exc:
            raise self.fault(exc, "make") from None

    def require(self) -> None:
        if not self.exists():
            if self.read_only is not None:
                raise ViewsUnwritable(_("the store {store} has no player views yet, and it is opened read-only "
                                        "({why})").format(store=self.description, why=self.read_only))
            raise ViewsMissing(_(
                "the store {store} has no player views yet; "
                "`pulka views rebuild` makes and fills them"
            ).format(store=self.description))

    def head(self) -> int:
        """The position of the last stored event (0 for an empty store)."""
        try:
            return int(self.reader.recorder.max_notification_id() or 0)
        except (PersistenceError, sqlite3.Error) as exc:
            raise StoreError(_("cannot read {store}: {why}").format(
                store=self.description, why=disk_full(exc, self.path) or reason(exc))) from None

    def position(self) -> int:
        """The position of the last event the view has taken in (0: none)."""
        try:
            return int(self.view.max_tracking_id(APPLICATION) or 0)
        except (PersistenceError, sqlite3.Error) as exc:
            raise self.fault(exc, "read") from None

    def catch_up(self, timeout: float = 24 * 3600.0) -> int:
        """Bring the view up to the last stored event; the number of events taken in.
        A store this command may not write (``Store.read_only``) is ``ViewsUnwritable``
        as soon as there is anything to write."""
        self.require()
        head = self.head()
        if self.position() >= head:
            return 0
        if self.read_only is not None and not self.in_memory:
            raise ViewsUnwritable(_("cannot write the player views of {store}: the store is opened read-only "
                                    "({why})").format(store=self.description, why=self.read_only))
        before = self.projection.processed
        self.projection.batch, self.projection.flush_at = CATCH_UP_BATCH, head
        try:
            with ArchiveRunner(self.projection, self.view, self.env) as runner:
                runner.wait(head, timeout=timeout)
        except (StoreError, TimeoutError):
            raise
        except MapperDeserialisationError as exc:
            raise StoreError(_("the player views stopped after position {position} of {head}: a stored "
                               "event cannot be read ({why}); `pulka verify` names it").format(
                position=self.position(), head=head, why=reason(exc))) from None
        except (PersistenceError, sqlite3.Error) as exc:
            raise self.fault(exc, "write") from None
        except Exception as exc:
            # Not the store's: the projection itself failed (each stream's own events
            # that its fold cannot take are left out, ``ArchiveProjection.changes``).
            raise StoreError(_(
                "the player views stopped after position {position} of {head}: {kind}: {why}"
            ).format(position=self.position(), head=head, kind=type(exc).__name__, why=exc)) from exc
        finally:
            self.projection.batch, self.projection.flush_at = 1, None
        return self.projection.processed - before

    @contextmanager
    def follow(self) -> Iterator[ArchiveRunner]:
        """Keep the view current while the block runs (``runner.wait(position)`` waits for it)."""
        self.require()
        self.projection.batch, self.projection.flush_at = 1, None
        with ArchiveRunner(self.projection, self.view, self.env) as runner:
            yield runner

    def rebuild(self) -> int:
        """Clear the view and its position in one transaction, then take in every event."""
        self.create()
        try:
            self.view.clear()
        except (PersistenceError, sqlite3.Error) as exc:
            raise self.fault(exc, "write") from None
        self.projection = ArchiveProjection(self.view, _Source(self.reader))
        return self.catch_up()

    # -- reading ---------------------------------------------------------------------

    def rows(self, as_of: int | None = None) -> list[PulkaRow]:
        """Every pulka as the archive says now, or at ``as_of`` (microseconds UTC)."""
        columns = ("SELECT g.game, g.started_at, g.started_utc, g.convention, g.players, g.tournament, "
                   "r.status, r.deals, r.whists, r.money FROM {archive_games} g JOIN {archive_results} r "
                   "ON r.game = g.game ")
        # A game whose chain broke is left out whole, whatever it said before the break.
        sound = "NOT EXISTS (SELECT 1 FROM {archive_broken} b WHERE b.name = g.game)"
        if as_of is None:
            found = self.view.select(columns + "AND r.version = g.latest WHERE " + sound)
        else:
            found = self.view.select(
                columns + "AND r.version = (SELECT MAX(version) FROM {archive_results} x "
                "WHERE x.game = g.game AND x.at_utc <= ?) WHERE g.started_utc <= ? AND " + sound,
                (as_of, as_of),
            )
        return [_row(r) for r in found]

    def left_out(self) -> list[LeftOut]:
        """The streams the views left out from an event on: what a reader of the views
        is told (``verify`` says more)."""
        found = self.view.select("SELECT name, version, reason FROM {archive_broken} ORDER BY name")
        return [LeftOut(name, int(version), reason) for name, version, reason in found]

    def tables(self, tournament: str, as_of: int | None = None) -> dict[str, GameResult]:
        """The results of a tournament's table games, by game name."""
        return {row.game: row.result for row in self.rows(as_of) if row.tournament == tournament}

    def aliases(self, as_of: int | None = None) -> list[Alias]:
        statement = "SELECT name, same_as FROM {archive_aliases}"
        params: tuple[Any, ...] = ()
        if as_of is not None:
            statement += " WHERE at_utc <= ?"
            params = (as_of,)
        return [Alias(name, same_as) for name, same_as in self.view.select(statement + " ORDER BY seq", params)]

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every view table, in a fixed order (to compare two builds)."""
        keys = {"archive_games": "game", "archive_results": "game, version",
                "archive_tournaments": "tournament", "archive_aliases": "seq", "archive_broken": "stream",
                **ratings.DUMP}
        return {t: self.view.select(f"SELECT * FROM {{{t}}} ORDER BY {k}") for t, k in keys.items()}

    def close(self) -> None:
        self.reader.close()
        if self.in_memory:
            self.datastore.close()
        else:
            self.factory.close()

    def __enter__(self) -> Views:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()


def _row(r: tuple[Any, ...]) -> PulkaRow:
    game, started_at, started_utc, convention, players, tournament, status, deals, whists, money = r
    result = GameResult(status, int(deals), json.loads(whists), None if money is None else json.loads(money))
    return PulkaRow(game, started_at, int(started_utc), convention, tuple(json.loads(players)), result, tournament)


def ensure_views(store: Store) -> None:
    """Make the views' tables when a stream is created (once per open store)."""
    if store in _MADE:
        return
    store.ensure_table()
    with Views(store) as views:
        views.create()
    _MADE[store] = True


_MADE: WeakKeyDictionary[Store, bool] = WeakKeyDictionary()

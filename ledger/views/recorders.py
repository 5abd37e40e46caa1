"""The archive's tables in the store, beside eventsourcing's tracking table, and the
tracking recorders that keep them (``SQLiteArchiveView``, ``PostgresArchiveView``):
eventsourcing's own recorders, with the view's tables made, written, cleared and read
through them. What the projection writes is a list of rows (``Change``: a game
started, a result after an event, a tournament's deal cap, an alias, a stream left out
where its chain breaks, a game's counts for its players' statistics), written with the
event's position in one transaction. Every
write is idempotent (rows keyed by game and event number, the position only moves
forward), so two followers at once never corrupt the view.

The club rating (``ledger.views.rating``) is kept in the same transactions, from the
results each write brings (``_ArchiveSQL.keep_rating``): the same position, the same
crash safety, and a rebuild rebuilds it too. Views made before the rating had tables
are cleared when its tables are made, so that the next read builds them all from the
first event.

The SQL is written once for both backends (``_ArchiveSQL``); a PostgreSQL view class
is made only when a PostgreSQL store needs it, so that only such a store loads the
driver. SQLite, which eventsourcing 9.5.6 cannot subscribe to, is polled
(``SubscribableSQLiteRecorder``).
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from time import monotonic
from typing import TYPE_CHECKING, Any, Protocol

from eventsourcing.persistence import (
    ApplicationRecorder,
    ListenNotifySubscription,
    Subscription,
    Tracking,
    TrackingRecorder,
    WaitInterruptedError,
)
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteTrackingRecorder

from ledger.store import layout, sqlite
from ledger.store.backend import pause
from ledger.store.records import LedgerApplication
from ledger.views import rating, totals
from ledger.vocabulary import language
from ledger.vocabulary.club import CLUB_STREAM
from projections.archive import GameResult

_ = language._  # every text a person reads, in the language in effect; never what a table stores

# The name of the followed application (the store's), under which positions are tracked.
APPLICATION = LedgerApplication.name
# How often a follower on SQLite looks for new events (PostgreSQL is notified).
SQLITE_POLL_SECONDS = 0.05


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
    scale: int = 1  # its whists that make one of the rating's: the rule set's gora_whist_multiplier


@dataclass(frozen=True)
class ResultRow:
    game: str
    version: int
    at_utc: int
    result: GameResult
    was_over: bool = False  # the game's result before this one was over (the rating asks)
    known_utc: int = 0  # when the store held it (``KnownRow``)


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
    known_utc: int = 0


@dataclass(frozen=True)
class ModelRow:
    """The club's choice of a rating model (``RatingModelChosen``), event ``seq`` of its log."""

    seq: int
    at_utc: int
    known_utc: int
    model: str
    parameters: dict[str, str]


@dataclass(frozen=True)
class KnownRow:
    """When the store held event ``version`` of a stream, as far as the store's order
    tells: the latest time of any event stored up to it (``archive_known``). Written for
    every event of a tournament and of the club's register; a game's are its results'."""

    stream: str
    version: int
    known_utc: int


@dataclass(frozen=True)
class ClockRow:
    """The latest time of any event taken in so far (the next event's known time starts
    from it; saved with the position, so that a follower that stops goes on from it)."""

    known_utc: int


@dataclass(frozen=True)
class BrokenRow:
    """A stream the views stopped reading at ``version``: its chain does not hold there
    (or its event cannot be folded). A game so named is left out of every table."""

    stream: str  # the stream's id
    name: str  # the game's (or tournament's, or register's) name; "stream <id>" when unknown
    version: int
    reason: str
    was_over: bool = False  # the game's result had been counted (the rating takes it out)


@dataclass(frozen=True)
class StatsRow:
    """What a game's deals and records gave each person who held a seat in it, after its
    event ``version`` (``archive_stats``: person -> ``projections.stats.counted_text``),
    and the story of each of its deals in every reader's language (``archive_stories``:
    language -> ``stories_text``): what ``pulka stats`` adds up. None of either when
    the game could not be counted (its readers count it from its events). Each person's
    counts come added up too (``archive_stats.totals``), what moves his totals."""

    game: str
    version: int
    counted: tuple[tuple[str, str, str], ...]  # person, ``counted_text``, its ``totals_text``
    stories: tuple[tuple[str, str], ...]


Change = GameRow | ResultRow | TournamentRow | AliasRow | BrokenRow | ModelRow | KnownRow | ClockRow | StatsRow


# -- the views: tracking recorders with the archive's tables -------------------------------

ARCHIVE_TABLES = layout.ARCHIVE  # the store's layout names every table of its database
# The club rating's tables (``ledger.views.rating``), kept in the same transactions.
TABLES = ARCHIVE_TABLES + rating.TABLES


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

    # A column of text, as the backend compares and orders it: by code point, never by
    # the database's locale (SQLite's BINARY is UTF-8's bytes, which are in code point
    # order; PostgreSQL's "C" is the bytes too). The rating folds the pulkas that end at
    # one instant in the order of their names: in a Russian collation's order its kept
    # rating was not the one ``pulka rating --at`` and SQLite fold.
    text = "TEXT"
    placeholder = "?"

    def table(self, name: str) -> str:
        return name

    def sql(self, statement: str) -> str:
        text = statement.format(**{t: self.table(t) for t in (*TABLES, "tracking")}, text=self.text)
        return text.replace("?", self.placeholder)

    def create_statements(self) -> list[str]:
        return [self.sql(s) for s in (
            "CREATE TABLE IF NOT EXISTS {archive_games} (game {text} PRIMARY KEY, started_at {text} NOT NULL, "
            "started_utc BIGINT NOT NULL, convention {text} NOT NULL, players {text} NOT NULL, tournament {text}, "
            "latest BIGINT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS {archive_results} (game {text} NOT NULL, version BIGINT NOT NULL, "
            "at_utc BIGINT NOT NULL, status {text} NOT NULL, deals BIGINT NOT NULL, whists {text} NOT NULL, "
            "money {text}, PRIMARY KEY (game, version))",
            "CREATE TABLE IF NOT EXISTS {archive_tournaments} (tournament {text} PRIMARY KEY, deal_cap BIGINT)",
            "CREATE TABLE IF NOT EXISTS {archive_aliases} (seq BIGINT PRIMARY KEY, at_utc BIGINT NOT NULL, "
            "name {text} NOT NULL, same_as {text} NOT NULL)",
            "CREATE TABLE IF NOT EXISTS {archive_broken} (stream {text} PRIMARY KEY, name {text} NOT NULL, "
            "version BIGINT NOT NULL, reason {text} NOT NULL)",
            "CREATE TABLE IF NOT EXISTS {archive_known} (stream {text} NOT NULL, version BIGINT NOT NULL, "
            "known_utc BIGINT NOT NULL, PRIMARY KEY (stream, version))",
            "CREATE TABLE IF NOT EXISTS {archive_rules} (game {text} PRIMARY KEY, scale BIGINT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS {archive_clock} (name {text} PRIMARY KEY, known_utc BIGINT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS {archive_stats} (game {text} NOT NULL, person {text} NOT NULL, "
            # totals before counted: read without reading through the long counts (SQLite's overflow pages)
            "version BIGINT NOT NULL, totals {text} NOT NULL, counted {text} NOT NULL, PRIMARY KEY (game, person))",
            "CREATE TABLE IF NOT EXISTS {archive_stories} (game {text} NOT NULL, language {text} NOT NULL, "
            "version BIGINT NOT NULL, stories {text} NOT NULL, PRIMARY KEY (game, language))",
            "CREATE TABLE IF NOT EXISTS {tracking} (application_name {text} PRIMARY KEY, notification_id BIGINT)",
            totals.CREATE,
            *rating.CREATE,
        )]

    def write_statements(self, change: Change) -> list[tuple[str, tuple[Any, ...]]]:
        match change:
            case GameRow():
                return [(self.sql("INSERT INTO {archive_games} VALUES (?, ?, ?, ?, ?, ?, 0) ON CONFLICT (game) DO NOTHING"),
                         (change.game, change.started_at, change.started_utc, change.convention,
                          json.dumps(list(change.players), ensure_ascii=False), change.tournament)),
                        (self.sql("INSERT INTO {archive_rules} VALUES (?, ?) ON CONFLICT (game) DO NOTHING"),
                         (change.game, change.scale))]
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
                    self.known(change.game, change.version, change.known_utc),
                ]
            case TournamentRow():
                return [(self.sql("INSERT INTO {archive_tournaments} VALUES (?, ?) ON CONFLICT (tournament) DO NOTHING"),
                         (change.tournament, change.deal_cap))]
            case AliasRow():
                return [(self.sql("INSERT INTO {archive_aliases} VALUES (?, ?, ?, ?) ON CONFLICT (seq) DO NOTHING"),
                         (change.seq, change.at_utc, change.name, change.same_as)),
                        self.known(CLUB_STREAM, change.seq, change.known_utc)]
            case ModelRow():
                return [(self.sql("INSERT INTO {rating_models} VALUES (?, ?, ?, ?, ?) ON CONFLICT (seq) DO NOTHING"),
                         (change.seq, change.at_utc, change.known_utc, change.model,
                          json.dumps(change.parameters, ensure_ascii=False, sort_keys=True))),
                        self.known(CLUB_STREAM, change.seq, change.known_utc)]
            case KnownRow():
                return [self.known(change.stream, change.version, change.known_utc)]
            case ClockRow():
                return [(self.sql("INSERT INTO {archive_clock} VALUES ('clock', ?) ON CONFLICT (name) DO UPDATE "
                                  "SET known_utc = excluded.known_utc WHERE {archive_clock}.known_utc < "
                                  "excluded.known_utc"), (change.known_utc,))]
            case BrokenRow():
                # A game left out is counted in no one's statistics: its kept counts go.
                return [(self.sql("INSERT INTO {archive_broken} VALUES (?, ?, ?, ?) ON CONFLICT (stream) DO NOTHING"),
                         (change.stream, change.name, change.version, change.reason)),
                        (self.sql("DELETE FROM {archive_stats} WHERE game = ?"), (change.name,)),
                        (self.sql("DELETE FROM {archive_stories} WHERE game = ?"), (change.name,))]
            case StatsRow() if not change.counted:  # not counted at this version: none of an earlier one stays
                return [(self.sql(f"DELETE FROM {{{table}}} WHERE game = ? AND version < ?"),
                         (change.game, change.version)) for table in ("archive_stats", "archive_stories")]
            case StatsRow():
                counts, stories = self.newer("archive_stats", "person", "totals", "counted"), self.newer(
                    "archive_stories", "language", "stories")
                return ([(counts, (change.game, person, change.version, totals, text))
                         for person, text, totals in change.counted] +
                        [(stories, (change.game, lang, change.version, text)) for lang, text in change.stories])

    def totals_moved(self, keeper: totals.Keeper, change: Change) -> None:
        """What ``change`` does to the players' counts, taken into their totals before it is
        written (``ledger.views.totals``)."""
        match change:
            case BrokenRow():
                keeper.dropped(change.name)
            case StatsRow() if not change.counted:
                keeper.dropped(change.game, change.version)
            case StatsRow():
                keeper.replaced(change.game, change.version, change.counted)

    def written(self, tx: _Tx, changes: Sequence[Change]) -> None:
        """The changes written in the transaction of ``tx`` (after the position), each
        person's totals moved with them, and the club rating kept."""
        keeper = totals.Keeper(tx)
        for change in changes:
            self.totals_moved(keeper, change)
            for statement, params in self.write_statements(change):
                tx.execute_sql(statement, params)
        keeper.finish()
        self.keep_rating(tx, changes)

    def newer(self, table: str, key: str, *columns: str) -> str:
        """A row of a game's counts written, replacing one of an earlier version only: a
        follower that is behind changes nothing."""
        values = ", ".join("?" * (3 + len(columns)))
        updated = ", ".join(f"{column} = excluded.{column}" for column in columns)
        return self.sql(f"INSERT INTO {{{table}}} VALUES ({values}) ON CONFLICT (game, {key}) DO UPDATE SET "
                        f"version = excluded.version, {updated} WHERE {{{table}}}.version < excluded.version")

    def known(self, stream: str, version: int, known_utc: int) -> tuple[str, tuple[Any, ...]]:
        return (self.sql("INSERT INTO {archive_known} VALUES (?, ?, ?) ON CONFLICT (stream, version) DO NOTHING"),
                (stream, version, known_utc))

    def keep_rating(self, tx: rating.Tx, changes: Sequence[Change]) -> None:
        """The club rating, in the transaction that writes the archive's changes."""
        results = [rating.ArchivedResult(c.game, c.at_utc, c.result, c.was_over)
                   for c in changes if isinstance(c, ResultRow) and (c.result.over or c.was_over)]
        # A game left out once its chain breaks leaves the rating too, as a result no
        # longer over does.
        results += [rating.ArchivedResult(c.name, 0, LEFT_OUT, True) for c in changes
                    if isinstance(c, BrokenRow) and c.was_over]
        rating.keep(tx, results, any(isinstance(c, AliasRow | ModelRow) for c in changes))

    def rate_again(self) -> None:
        """Fold the rating again from the first pulka over, in one transaction (what an
        alias does; ``bench/rating.py`` times it)."""
        with self.writing() as c:
            rating.keep(_Tx(self, c, encode=self.placeholder != "?"), [], everything_moved=True)

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
# every later one were built before (without the rating, without the times the store
# held each event and the rating's explained moves, without reading only events whose
# chain holds, or without the players' counts), and are built again from the first event.
FIRST_AND_LATEST = ("archive_games", "archive_broken", "archive_known", "rating_moves", "archive_stats",
                    "archive_stories", "archive_totals")


def _older(found: Sequence[str]) -> bool:
    return "archive_games" in found and len(set(found)) < len(FIRST_AND_LATEST)


# What a game left out of the views counts for: nothing (the rating takes it out).
LEFT_OUT = GameResult("playing", 0, {})


class _Tx:
    """One transaction of a view, for the rating's reads and writes in it."""

    def __init__(self, view: _ArchiveSQL, cursor: Any, *, encode: bool) -> None:
        self.view, self.cursor, self.encode = view, cursor, encode

    def execute(self, statement: str, params: Sequence[Any] = ()) -> None:
        self.execute_sql(self.view.sql(statement), params)

    def execute_sql(self, text: str, params: Sequence[Any] = ()) -> None:
        """A statement whose tables and placeholders are the backend's already."""
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
        return sqlite.writing(self.datastore)

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
            c.execute(f"SELECT name FROM sqlite_master WHERE type = 'table' AND name IN "
                      f"({', '.join('?' * len(FIRST_AND_LATEST))})", FIRST_AND_LATEST)
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
            self.written(_Tx(self, c, encode=False), changes)
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
    text = 'TEXT COLLATE "C"'
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
            self.written(_Tx(self, c, encode=True), changes)
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

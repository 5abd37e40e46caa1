"""The embedded store: a SQLite file, through eventsourcing's SQLite application recorder.

The table is the recorder's ``stored_events`` (a rowid table, so that its rowid orders
the notification log, with the primary key (originator_id, originator_version)). The
recorder writes (``ManyRowsRecorder.insert_rows``: its transaction and its insert
statement, the rows of each stream of an append in one ``executemany``, the primary key
refusing a version already taken); reads are a narrow ``SELECT`` on the recorder's
datastore connection returning plain tuples.

Only a file keeps anything: an in-memory database, which forgets every event when the
command ends, is refused.

A reading command reads a store it cannot write: a file or folder it may not write (a
0444 file in a 0555 folder, a read-only mount) or a full disk, where even opening a WAL
database makes a file beside it, is opened again read-only and immutable
(``file:…?mode=ro&immutable=1``: read as it is, without that file or any lock), and the
store says why (``read_only``). A full disk is called so, not "disk I/O error".
"""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from eventsourcing.persistence import IntegrityError, OperationalError, PersistenceError
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore, SQLiteFactory
from eventsourcing.utils import Environment

from ledger.store.backend import (
    MAPPER_TOPIC,
    Backend,
    CannotOpen,
    ConflictError,
    JUDGED,
    RECEIPTS,
    Mark,
    NewRow,
    RawRow,
    Receipt,
    ReceiptTaken,
    StoreError,
    StreamChanged,
    Transaction,
    disk_full,
    pause,
    reason,
)
from ledger.vocabulary import language

_ = language._  # every text a person reads, in the language in effect (a database's own words stay its own)

# How long a writer waits for another one to finish, in seconds.
LOCK_TIMEOUT = 10

TABLE = "stored_events"


def cannot_persist(path: str) -> bool:
    """Whether a SQLite address names a database that is gone when the command ends."""
    lowered = path.strip().lower()
    return (
        not lowered
        or lowered == ":memory:"
        or (lowered.startswith("file:") and ("memory" in lowered or "memdb" in lowered))
    )


class ManyRowsRecorder(SQLiteApplicationRecorder):
    """eventsourcing's SQLite application recorder, inserting the rows of one append
    with one ``executemany`` per stream in its one transaction instead of one
    ``execute`` per row: the rowids that order the notification log are given in the
    same order; nothing here needs each row's id back."""

    def insert_rows(self, groups: Sequence[Iterable[tuple[str, int, str, bytes]]],
                    unchanged: Sequence[tuple[str, int]] = (), receipt: Receipt | None = None,
                    marks: Iterable[Mark] = ()) -> None:
        """``insert_events`` of rows given as the tuples its statement takes (stream id,
        version, topic, state), a stream's at a time: the same transaction and statement,
        without building an eventsourcing ``StoredEvent`` for each row only to take it
        apart again. Then each stream of ``unchanged`` must have exactly its count of
        rows (``StreamChanged``).

        The transaction begins deferred (eventsourcing's ``BEGIN``): its first insert
        takes the file's write lock, waiting for another writer to finish, and reads
        the database as it is then. The counts are read after the inserts, under that
        lock, so that no writer can have changed a stream since; read first, they would
        see the database as it was before the lock was taken. A ``receipt`` is written
        first (its insert takes the lock): ReceiptTaken when its key is there already.
        The judged ``marks`` last, in the same transaction."""
        with self.datastore.transaction(commit=True) as c:
            if receipt is not None:
                c.execute(f"INSERT INTO {RECEIPTS} (key, stream, first, last, digest) VALUES (?, ?, ?, ?, ?) "
                          "ON CONFLICT (key) DO NOTHING", tuple(receipt))
                if c.sqlite_cursor.rowcount != 1:
                    raise ReceiptTaken(receipt.key)
            for i, rows in enumerate(groups):
                if i:
                    pause("stream")
                c.executemany(self.insert_events_statement, rows)
            for stream, count in unchanged:
                c.execute(f"SELECT COALESCE(MAX(originator_version), 0) FROM {TABLE} WHERE originator_id = ?",
                          (stream,))
                found = c.fetchone()[0]
                if found != count:
                    raise StreamChanged(UUID(stream), found)
            c.executemany(MARK_STATEMENT, [(m.stream.hex, m.judged, m.digest) for m in marks])


# A stream's judged mark, written over the one before it.
MARK_STATEMENT = (f"INSERT INTO {JUDGED} (stream, judged, digest) VALUES (?, ?, ?) "
                  "ON CONFLICT (stream) DO UPDATE SET judged = excluded.judged, digest = excluded.digest")


RECORDER_TOPIC = "ledger.store.sqlite:ManyRowsRecorder"


@contextmanager
def writing(datastore: SQLiteDatastore) -> Iterator[sqlite3.Cursor]:
    """A write transaction that takes the file's write lock as it begins (``BEGIN
    IMMEDIATE``), waiting up to the lock timeout for another writer, and commits.

    For a transaction whose first statement may only read: eventsourcing's ``BEGIN`` is
    deferred, and a ``CREATE TABLE IF NOT EXISTS`` of a table that is there already reads
    the database. If another process writes before the transaction's first write, SQLite
    cannot move the stale read on to a write and refuses at once, without waiting
    ("database is locked"): what a store error from racing processes looked like."""
    with datastore.get_connection(commit=True) as connection:
        cursor = connection.cursor().sqlite_cursor
        cursor.execute("BEGIN IMMEDIATE")
        try:
            yield cursor
        except BaseException:
            connection.rollback()
            raise
        connection.commit()


class SQLiteTransaction:
    """A transaction on a SQLite store (``backend.Transaction``), on one of its cursors."""

    kind = "sqlite"
    events_table = TABLE
    position = "rowid"

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self.cursor = cursor
        cursor.row_factory = None

    def run(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self.cursor.execute(statement, tuple(params))
        return self.cursor.fetchall() if self.cursor.description else []

    def run_many(self, statement: str, rows: Iterable[Sequence[Any]]) -> None:
        self.cursor.executemany(statement, rows)

    def name(self, table: str) -> str:
        return table

    def tables(self) -> set[str]:
        return {name for (name,) in self.run("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def column_names(self, table: str) -> list[str]:
        return [str(row[1]) for row in self.run(f"PRAGMA table_info({table})")]

    def ordered_by_locale(self, tables: Sequence[str]) -> list[str]:
        return []  # SQLite compares text by its bytes: UTF-8's order is code point order

    def marked_layout(self) -> int | None:
        return int(self.run("PRAGMA user_version")[0][0]) or None

    def mark_layout(self, layout: int) -> None:
        self.run(f"PRAGMA user_version = {int(layout)}")


def _has_table(cursor: sqlite3.Cursor) -> bool:
    cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,))
    return cursor.fetchone() is not None


def immutable(path: str) -> str:
    """The URI that opens the SQLite file ``path`` read-only and immutable."""
    return f"file:{urllib.parse.quote(os.path.abspath(path))}?mode=ro&immutable=1"


def read_only_connection(path: str) -> sqlite3.Connection:
    """A connection (autocommit, any thread's) that reads the SQLite file ``path`` and
    never writes it: read-only, its WAL read too when SQLite can (its -wal and -shm files
    there, or a folder they can be made in); else immutable, as the file is (a read-only
    mount without them)."""
    uri = f"file:{urllib.parse.quote(os.path.abspath(path))}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("SELECT 1 FROM sqlite_master").fetchall()  # opens the file and its WAL
        return conn
    except sqlite3.Error:
        conn.close()
    return sqlite3.connect(immutable(path), uri=True, isolation_level=None, check_same_thread=False)


class SQLiteBackend(Backend):
    """The events of every game in one SQLite file. ``read_only``: why a store opened to
    read could not be opened as usual, and was opened read-only (None when it was not)."""

    def __init__(self, path: str, *, read: bool = False) -> None:
        if cannot_persist(path):
            raise StoreError(_(
                "{path} is an in-memory SQLite database: it would keep nothing once the "
                "command ends; give a file path (e.g. pulka.db)"
            ).format(path=repr(path)))
        # messages name the file wherever the command was run from
        self.description = path if path.startswith("file:") else os.path.abspath(path)
        self.path = path
        self.read = read
        self.read_only: str | None = None
        self.present = False
        self.env = {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path, "CREATE_TABLE": "n",
            "SQLITE_LOCK_TIMEOUT": str(LOCK_TIMEOUT), "MAPPER_TOPIC": MAPPER_TOPIC,
        }
        self.recorder: SQLiteApplicationRecorder | None = None
        if not path.startswith("file:") and not os.path.exists(path):
            # The file is made by the first write (``create``); a read never makes one
            # (the store is simply empty), nor does a command refused before it writes.
            return
        self._open()

    def _open(self) -> None:
        try:
            self._connect(self.path)
        except StoreError as exc:
            if not self.read or self.path.startswith("file:") or not os.path.exists(self.path):
                raise
            # A store a reading command cannot open as usual: read it as it is.
            uri = immutable(self.path)
            self._connect(uri)
            self.read_only = exc.why if isinstance(exc, CannotOpen) else str(exc)
            self.env["SQLITE_DBNAME"] = uri

    def _connect(self, path: str) -> None:
        env = Environment("Pulka", {
            "SQLITE_DBNAME": path, "CREATE_TABLE": "n", "SQLITE_LOCK_TIMEOUT": str(LOCK_TIMEOUT),
            "APPLICATION_RECORDER_TOPIC": RECORDER_TOPIC,
        })
        try:
            self.factory = SQLiteFactory(env)
            recorder = self.factory.application_recorder()
        except (PersistenceError, OSError) as exc:
            raise self._cannot_open(exc) from None
        assert isinstance(recorder, SQLiteApplicationRecorder), recorder
        assert recorder.events_table_name == TABLE, recorder.events_table_name
        self.recorder = recorder
        self.datastore: SQLiteDatastore = recorder.datastore
        try:  # the first connection: the file may not open, or be no database
            with self.datastore.transaction(commit=False) as curs:
                self.present = _has_table(curs.sqlite_cursor)
        except (PersistenceError, sqlite3.Error) as exc:
            raise self._cannot_open(exc) from None

    def found(self) -> bool:
        if not self.present:
            if self.recorder is None:
                if not os.path.exists(self.path):
                    return False
                self._open()
            else:
                self.present = self._table_exists()
        return self.present

    def _table_exists(self) -> bool:
        with self._cursor() as cursor:
            return _has_table(cursor)

    def create(self) -> None:
        """Create the events table (SQLite serialises concurrent creators itself), and
        the file when there is none yet."""
        if self.recorder is None:
            self._open()
        assert self.recorder is not None
        try:
            self.recorder.create_table()
        except (PersistenceError, sqlite3.Error) as exc:
            raise StoreError(_("cannot create the store {store}: {why}").format(store=self.path, why=self._why(exc))) \
                from None
        self.present = True

    def select(
        self, stream: UUID, *, after: int = 0, upto: int | None = None, limit: int | None = None,
        desc: bool = False,
    ) -> list[RawRow]:
        statement = f"SELECT originator_version, topic, state FROM {TABLE} WHERE originator_id = ?"
        params: list[Any] = [stream.hex]
        if after:
            statement += " AND originator_version > ?"
            params.append(after)
        if upto is not None:
            statement += " AND originator_version <= ?"
            params.append(upto)
        statement += " ORDER BY originator_version DESC" if desc else " ORDER BY originator_version"
        if limit is not None:
            statement += " LIMIT ?"
            params.append(limit)
        with self._cursor() as cursor:
            cursor.execute(statement, params)
            rows: list[RawRow] = cursor.fetchall()
        return rows

    def first_rows(self) -> list[tuple[UUID, bytes]]:
        with self._cursor() as cursor:
            cursor.execute(f"SELECT originator_id, state FROM {TABLE} WHERE originator_version = 1")
            found = cursor.fetchall()
        firsts = ((_uuid(text), state) for text, state in found)
        return [(stream, state) for stream, state in firsts if stream is not None]

    def found_rows(self) -> list[tuple[UUID | str, int, bytes | None]]:
        # One pass over the table's key (a full scan for the rows numbered 1 took as
        # long again, at 10^6 rows: time before ``verify`` can hand out any stream).
        with self._cursor() as cursor:
            cursor.execute(f"SELECT originator_id, COUNT(*), (SELECT state FROM {TABLE} AS first WHERE "
                           f"first.originator_id = e.originator_id AND first.originator_version = 1) "
                           f"FROM {TABLE} AS e GROUP BY originator_id")
            found = cursor.fetchall()
        out: list[tuple[UUID | str, int, bytes | None]] = []
        for text, count, state in found:
            stream = _uuid(text)
            out.append((text, count, None) if stream is None else (stream, count, state))
        return out

    def insert(self, groups: Sequence[tuple[UUID, Iterable[NewRow]]],
               unchanged: Sequence[tuple[UUID, int]] = (), receipt: Receipt | None = None,
               marks: Iterable[Mark] = ()) -> None:
        assert isinstance(self.recorder, ManyRowsRecorder), self.recorder
        try:
            self.recorder.insert_rows(
                [_of_stream(stream.hex, rows) for stream, rows in groups],
                [(stream.hex, count) for stream, count in unchanged],
                receipt,
                marks,
            )
        except IntegrityError as exc:
            raise ConflictError(self._why(exc)) from None
        except (PersistenceError, sqlite3.Error) as exc:
            raise StoreError(_("cannot store events in {store}: {why}").format(store=self.path, why=self._why(exc))) \
                from None

    def marks_kept(self, writing: bool = False) -> bool:
        if not self.found():
            return False
        with self._cursor() as cursor:
            cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (JUDGED,))
            return cursor.fetchone() is not None

    def mark(self, stream: UUID) -> Mark | None:
        if not self.marks_kept():
            return None
        with self._cursor() as cursor:
            cursor.execute(f"SELECT judged, digest FROM {JUDGED} WHERE stream = ?", (stream.hex,))
            row = cursor.fetchone()
        return Mark(stream, int(row[0]), str(row[1])) if row else None

    def receipt(self, key: str) -> Receipt | None:
        if not self.found():
            return None
        with self._cursor() as cursor:
            cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (RECEIPTS,))
            if cursor.fetchone() is None:
                return None
            cursor.execute(f"SELECT key, stream, first, last, COALESCE(digest, '') FROM {RECEIPTS} WHERE key = ?",
                           (key,))
            row = cursor.fetchone()
        return Receipt(*row) if row else None

    def last_change(self) -> int:
        if not self.found():
            return 0
        with self._cursor() as cursor:
            cursor.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {TABLE}")
            return int(cursor.fetchone()[0])

    def changes(self, after: int, limit: int) -> list[tuple[int, UUID, int]]:
        if not self.found():
            return []
        with self._cursor() as cursor:
            cursor.execute(f"SELECT rowid, originator_id, originator_version FROM {TABLE} WHERE rowid > ? "
                           "ORDER BY rowid LIMIT ?", (after, limit))
            found = cursor.fetchall()
        rows = ((position, _uuid(stream), number) for position, stream, number in found)
        return [(position, stream, number) for position, stream, number in rows if stream is not None]

    @contextmanager
    def writing(self) -> Iterator[Transaction]:
        if self.recorder is None:
            self._open()
        try:
            with writing(self.datastore) as cursor:
                yield SQLiteTransaction(cursor)
        except (PersistenceError, sqlite3.Error) as exc:
            raise StoreError(_("cannot write {store}: {why}").format(store=self.path, why=self._why(exc))) from None

    @contextmanager
    def reading(self) -> Iterator[Transaction]:
        with self._cursor() as cursor:
            yield SQLiteTransaction(cursor)

    @contextmanager
    def snapshot(self) -> Iterator[Transaction]:
        """A connection of its own in a read transaction: in the write-ahead log that
        eventsourcing puts every store in, it reads the store as of its first read,
        while other connections write."""
        path = self.env["SQLITE_DBNAME"]
        try:
            connection = sqlite3.connect(path, uri=path.startswith("file:"), timeout=LOCK_TIMEOUT,
                                         isolation_level=None)
        except sqlite3.Error as exc:
            raise self._cannot_open(exc) from None
        try:
            cursor = connection.cursor()
            cursor.execute("BEGIN")
            yield SQLiteTransaction(cursor)
            cursor.execute("ROLLBACK")
        except sqlite3.Error as exc:
            raise StoreError(_("cannot read {store}: {why}").format(store=self.path, why=self._why(exc))) from None
        finally:
            connection.close()

    def events_ddl(self) -> list[str]:
        assert self.recorder is not None
        return list(self.recorder.create_table_statements)

    def close(self) -> None:
        if self.recorder is not None:
            self.factory.close()

    @contextmanager
    def _cursor(self) -> Iterator[sqlite3.Cursor]:
        """A plain cursor (rows as tuples) in a read transaction of the datastore."""
        try:
            with self.datastore.transaction(commit=False) as curs:
                cursor = curs.sqlite_cursor
                cursor.row_factory = None
                yield cursor
        except (PersistenceError, sqlite3.Error) as exc:
            raise StoreError(_("cannot read {store}: {why}").format(store=self.path, why=self._why(exc))) from None

    def _cannot_open(self, exc: BaseException) -> CannotOpen:
        why = self._why(exc)
        return CannotOpen(_("cannot open the store {store}: {why}").format(store=self.path, why=why), why)

    def _writable(self) -> bool:
        """Whether this process may write the file and the folder it sits in (where the
        journal goes), as the file system says (a read-only mount included)."""
        folder = os.path.dirname(os.path.abspath(self.path))
        return os.access(self.path, os.W_OK) and os.access(folder, os.W_OK)

    def _why(self, exc: BaseException) -> str:
        text = reason(exc)
        full = disk_full(exc, self.path)
        if full is not None:
            return full
        if not self.path.startswith("file:") and os.path.exists(self.path) and not self._writable():
            return _("{why}: the store is read-only here (the file or its folder may not be written)").format(why=text)
        if isinstance(exc, (OperationalError, sqlite3.OperationalError)) and "locked" in text:
            return _("{why}: waited {seconds} s for another command writing to this file to finish; try again").format(
                why=text, seconds=LOCK_TIMEOUT)
        return text


def _of_stream(stream: str, rows: Iterable[NewRow]) -> Iterator[tuple[str, int, str, bytes]]:
    """The rows of one stream as the recorder's insert statement takes them, one at a time."""
    for version, topic, state in rows:
        yield stream, version, topic, state


def _uuid(text: str) -> UUID | None:
    try:
        return UUID(text)
    except (ValueError, TypeError, AttributeError):
        return None

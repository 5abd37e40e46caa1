"""The shared store: a PostgreSQL database, through eventsourcing's PostgreSQL recorder.

Imported only for a ``postgresql://`` address, so that nothing else loads the driver.

The table is the application recorder's ``pulka_events`` in the address's schema
(``public`` by default). Writing goes through ``BatchedRecorder``, eventsourcing's
application recorder with two changes: the rows of one append (of one stream or
several) are sent in bounded batches inside its one transaction (one statement of tens
of megabytes never completed), and a failed write is not retried behind the user's
back (a retry after a lost commit could report someone else's write; a lock timeout
would be waited ten times). The datastore and the recorder are made only when a command first writes or
creates the table: a reading command never pays for their pool of connections.

Opening connects once to report an unreachable or refused server with libpq's reason
and to see whether the table exists. Reading is a narrow ``SELECT`` on that connection
(on the recorder's, once the command has written). Reading never runs DDL, so a role with nothing
but ``SELECT`` on ``pulka_events`` (and ``USAGE`` on its schema) runs every reading
command. The table is created by ``create``, under an advisory lock so that commands
creating the store at once do so one at a time.

Every wait is bounded and named: the connection (``CONNECT_TIMEOUT``), the table lock
a writer takes (``LOCK_TIMEOUT``), and a session left idle inside a transaction, for
example by a killed client, which the server ends after ``IDLE_TIMEOUT``.
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from uuid import UUID

import psycopg
import psycopg.errors
from eventsourcing.persistence import IntegrityError, PersistenceError
from eventsourcing.persistence import StoredEvent as EsStoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresApplicationRecorder, PostgresDatastore
from psycopg import sql
from psycopg.rows import tuple_row

from ledger.store.backend import (
    CLIENT_ENCODING,
    MAPPER_TOPIC,
    Backend,
    CannotOpen,
    ConflictError,
    JUDGED,
    RECEIPTS,
    Mark,
    NewRow,
    PostgresAddress,
    RawRow,
    Receipt,
    ReceiptTaken,
    Row,
    StoreError,
    StreamChanged,
    Transaction,
    disk_full,
    pause,
    reason,
)
from ledger.vocabulary import language

_ = language._  # every text a person reads, in the language in effect (a database's own words stay its own)

TABLE = "pulka_events"  # eventsourcing names it after the application: "Pulka" + "_events"

CONNECT_TIMEOUT = 10  # seconds to reach the server
LOCK_TIMEOUT = 10  # seconds a writer waits for the table lock another writer holds
IDLE_TIMEOUT = 5  # seconds the server keeps a session idle inside a transaction
CREATE_LOCK_TIMEOUT = 60  # seconds to wait for another command creating the store
RECONNECT_TIMEOUT = 5  # seconds the pool tries to replace a lost connection before the next use tries again

# How every connection is made: keepalives let the client notice a server (or a network)
# that went away, and the server's view of connections names pulka (unless PGAPPNAME
# names it otherwise: an operator's name for one service among several).
_CONNECT: dict[str, Any] = {
    "keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3,
    "connect_timeout": CONNECT_TIMEOUT, "fallback_application_name": "pulka",
}

# Every connection's text in UTF-8 (``backend.CLIENT_ENCODING``, which SQL_ASCII
# databases need): ours are made with it; those eventsourcing makes itself from a
# store's env (the views', the tree's, a subscription's) take libpq's default, set here
# for this process.
os.environ["PGCLIENTENCODING"] = CLIENT_ENCODING


class BatchedRecorder(PostgresApplicationRecorder):
    """eventsourcing's PostgreSQL application recorder, writing one append as bounded
    batches of rows inside one transaction, without retrying."""

    BATCH_ROWS = 2000
    BATCH_BYTES = 1 << 20

    def insert_events(self, stored_events: Sequence[EsStoredEvent], **kwargs: Any) -> Sequence[int] | None:
        if stored_events:
            self.insert_groups([stored_events])
        return None

    def insert_groups(self, groups: Sequence[Iterable[EsStoredEvent]],
                      unchanged: Sequence[tuple[UUID, int]] = (), receipt: Receipt | None = None,
                      marks: Iterable[Mark] = ()) -> None:
        """The rows of several streams, a stream's at a time, in one transaction; then
        each stream of ``unchanged`` must have exactly its count of rows
        (``StreamChanged``). Under the recorder's table lock, which every writer takes
        first and keeps until its commit, a count read in the transaction is the
        stream's last committed one (read committed: each statement sees what is
        committed when it begins). A ``receipt`` is written first, under the lock:
        ReceiptTaken when its key is there already. The judged ``marks`` last."""
        with self.datastore.transaction(commit=True) as curs:
            # The recorder's own table lock (which orders the notification log) and
            # notification, once; then its insert statement, once per batch.
            self._lock_table(curs)
            self._notify_channel(curs)
            if receipt is not None:
                curs.execute(
                    sql.SQL("INSERT INTO {}.{} (key, stream, first, last, digest) VALUES (%s, %s, %s, %s, %s) "
                            "ON CONFLICT (key) DO NOTHING RETURNING key").format(
                        sql.Identifier(self.datastore.schema), sql.Identifier(RECEIPTS)),
                    tuple(receipt),
                )
                if curs.fetchone() is None:
                    raise ReceiptTaken(receipt.key)
            for i, rows in enumerate(groups):
                if i:
                    pause("stream")
                for batch in batches(rows, self.BATCH_ROWS, self.BATCH_BYTES):
                    PostgresAggregateRecorder._insert_stored_events(self, curs, batch)
            for stream, count in unchanged:
                curs.execute(
                    sql.SQL("SELECT COALESCE(MAX(originator_version), 0) AS found FROM {}.{} "
                            "WHERE originator_id = %s").format(
                        sql.Identifier(self.datastore.schema), sql.Identifier(self.events_table_name)),
                    (stream,),
                )
                row = curs.fetchone()
                assert row is not None
                if row["found"] != count:
                    raise StreamChanged(stream, row["found"])
            judged = [(m.stream.hex, m.judged, m.digest) for m in marks]  # taken once the rows are written
            if judged:
                curs.executemany(
                    sql.SQL("INSERT INTO {}.{} (stream, judged, digest) VALUES (%s, %s, %s) ON CONFLICT (stream) "
                            "DO UPDATE SET judged = excluded.judged, digest = excluded.digest").format(
                        sql.Identifier(self.datastore.schema), sql.Identifier(JUDGED)),
                    judged,
                )


class PostgresTransaction:
    """A transaction on a PostgreSQL store (``backend.Transaction``), on one cursor of plain tuples."""

    kind = "postgres"
    events_table = TABLE
    position = "notification_id"

    def __init__(self, cursor: psycopg.Cursor[Any], schema: str) -> None:
        self.cursor = cursor
        self.schema = schema

    def run(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if params:
            self.cursor.execute(statement.replace("?", "%s").encode(), tuple(params))
        else:  # a statement of its own words alone: nothing in it is a placeholder
            self.cursor.execute(statement.encode())
        return list(self.cursor.fetchall()) if self.cursor.description else []

    def run_many(self, statement: str, rows: Iterable[Sequence[Any]]) -> None:
        self.cursor.executemany(statement.replace("?", "%s").encode(), rows)

    def name(self, table: str) -> str:
        return f'"{self.schema}"."{table}"'

    def tables(self) -> set[str]:
        return {name for (name,) in self.run("SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = ?",
                                             (self.schema,))}

    def column_names(self, table: str) -> list[str]:
        return [name for (name,) in self.run("SELECT column_name FROM information_schema.columns "
                                             "WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position",
                                             (self.schema, table))]

    def ordered_by_locale(self, tables: Sequence[str]) -> list[str]:
        """A column's collation, or the database's when it names none ("default"), is
        code point order only as "C" or "POSIX" of the C library (ICU's, a language's or
        a C library's C.UTF-8, whose order the library decides, are not)."""
        rows = self.run(
            "SELECT c.relname, a.attname, COALESCE(co.collname, ''), d.datcollate, d.datlocprovider "
            "FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid "
            "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
            "LEFT JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation "
            "JOIN pg_catalog.pg_database d ON d.datname = current_database() "
            "WHERE n.nspname = ? AND c.relname = ANY(?) AND a.attnum > 0 AND NOT a.attisdropped "
            "AND a.atttypid = 'text'::regtype ORDER BY c.relname, a.attnum",
            (self.schema, list(tables)))
        code_point = ("C", "POSIX")
        return [f"{table}.{column}" for table, column, collation, database, provider in rows
                if not (collation in code_point or (collation == "default" and provider == "c"
                                                    and database in code_point))]


    def marked_layout(self) -> int | None:
        found = self.run("SELECT obj_description(to_regclass(?), 'pg_class')", (self.name(TABLE),))
        mark = LAYOUT_MARK.match(found[0][0] or "") if found else None
        return int(mark.group(1)) if mark else None

    def mark_layout(self, layout: int) -> None:
        self.run(f"COMMENT ON TABLE {self.name(TABLE)} IS 'pulka layout {int(layout)}'")


# The comment on the events table that marks the store's layout (readable by any role).
LAYOUT_MARK = re.compile(r"pulka layout (\d+)\b")


def batches(rows: Iterable[EsStoredEvent], most_rows: int, most_bytes: int) -> Iterator[Sequence[EsStoredEvent]]:
    """``rows`` in order, cut into runs of at most ``most_rows`` rows and, unless a
    single row is larger, ``most_bytes`` bytes of state: taken one at a time, so that
    only one batch is held."""
    batch: list[EsStoredEvent] = []
    size = 0
    for row in rows:
        if batch and (len(batch) >= most_rows or size + len(row.state) > most_bytes):
            yield batch
            batch, size = [], 0
        batch.append(row)
        size += len(row.state)
    if batch:
        yield batch


class PostgresBackend(Backend):
    """The events of every game in one table of a PostgreSQL database."""

    def __init__(self, address: PostgresAddress, *, create: bool, pool_wait: float | None = None) -> None:
        self.description = address.display()
        self.address = address
        self.schema = address.schema or "public"
        self.env = {
            "PERSISTENCE_MODULE": "eventsourcing.postgres", "CREATE_TABLE": "n", "MAPPER_TOPIC": MAPPER_TOPIC,
            "POSTGRES_DBNAME": address.dbname, "POSTGRES_HOST": address.host, "POSTGRES_PORT": str(address.port),
            "POSTGRES_USER": address.user, "POSTGRES_PASSWORD": address.password, "POSTGRES_SCHEMA": address.schema,
            "POSTGRES_CONNECT_TIMEOUT": str(CONNECT_TIMEOUT), "POSTGRES_LOCK_TIMEOUT": str(LOCK_TIMEOUT),
            "POSTGRES_IDLE_IN_TRANSACTION_SESSION_TIMEOUT": str(IDLE_TIMEOUT),
            "POSTGRES_POOL_SIZE": "1", "POSTGRES_MAX_OVERFLOW": "2", "POSTGRES_PRE_PING": "y",
        }
        self._closed = False
        self._recorder: BatchedRecorder | None = None
        self.pool_wait = pool_wait
        self._probe: psycopg.Connection[Any] | None = self._connect_probe()
        encoding = self._probe.info.parameter_status("server_encoding")
        if encoding not in ("UTF8", "SQL_ASCII"):
            self.close()
            why = _("the database {database} is in the encoding {encoding}, which cannot hold every name a club "
                    "writes: pulka needs a database in UTF8 (CREATE DATABASE {database} ENCODING 'UTF8' TEMPLATE "
                    "template0, or createdb --encoding=UTF8 --template=template0), and `pulka copy` moves a store "
                    "there").format(database=address.dbname, encoding=encoding)
            raise CannotOpen(_("cannot open {store}: {why}").format(store=self.description, why=why), why)
        try:
            self.present = self._table_exists()
        except psycopg.Error as exc:
            self.close()
            why = _explain(exc)
            raise CannotOpen(_("cannot open {store}: {why}").format(store=self.description, why=why), why) from None
        except BaseException:
            self.close()
            raise

    def _connect_probe(self) -> psycopg.Connection[Any]:
        """The first connection: reads on it wait for a lock no longer than a writer does."""
        try:
            return psycopg.connect(autocommit=True, options=f"-c lock_timeout={LOCK_TIMEOUT}s",
                                   **self.address.connect_kwargs(), **_CONNECT)
        except psycopg.Error as exc:
            raise StoreError(_("cannot connect to {store}: {why}").format(store=self.description, why=_explain(exc))) from None

    @property
    def recorder(self) -> BatchedRecorder:
        """eventsourcing's datastore and recorder, made when first needed: to write, or to
        create the table. A reading command reads on the first connection alone."""
        if self._recorder is None:
            address = self.address
            try:
                self.datastore = PostgresDatastore(
                    dbname=address.dbname,
                    host=address.host,
                    port=address.port,
                    user=address.user,
                    password=address.password,
                    connect_timeout=CONNECT_TIMEOUT,
                    idle_in_transaction_session_timeout=IDLE_TIMEOUT,
                    # A command needs one connection at a time.
                    pool_size=1,
                    max_overflow=0,
                    lock_timeout=LOCK_TIMEOUT,
                    schema=self.schema,
                    # Each connection checked as it is taken from the pool: one the server
                    # ended (a restart, an administrator) is replaced, not used.
                    pre_ping=True,
                )
                assert isinstance(self.datastore.pool.kwargs, dict)
                self.datastore.pool.kwargs.update(_CONNECT, client_encoding=CLIENT_ENCODING)
                # Replacing a lost connection is given up soon, so that the next use
                # tries at once rather than after the pool's ever longer pauses: a
                # long-lived service is back within a few seconds of its database.
                self.datastore.pool.reconnect_timeout = RECONNECT_TIMEOUT
                if self.pool_wait is not None:  # a use waits this long for a connection, not CONNECT_TIMEOUT
                    self.datastore.pool.timeout = self.pool_wait
                self._recorder = BatchedRecorder(self.datastore, events_table_name=TABLE)
            except PersistenceError as exc:
                why = self._why(exc)
                raise CannotOpen(_("cannot open {store}: {why}").format(store=self.description, why=why), why) from None
        return self._recorder

    def create(self) -> None:
        """Create the schema named in the address, the table and what the recorder needs
        with it, once: under an advisory lock, checking again once it is held."""
        if self._probe is None or self._probe_lost():
            self._probe = self._connect_probe()  # the first one was let go (a write, a restart)
        probe = self._probe
        key = zlib.crc32(f"pulka:{self.schema}".encode())
        try:
            probe.execute(sql.SQL("SET lock_timeout = {}").format(sql.Literal(f"{CREATE_LOCK_TIMEOUT}s")))
            probe.execute("SELECT pg_advisory_lock(%s, %s)", (_LOCK_CLASS, _signed(key)))
            try:
                if not self._table_exists():
                    if self.address.schema:
                        probe.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(self.schema)))
                    self.recorder.create_table()
                else:
                    self.recorder.datastore.register_type_adapters()
            finally:
                probe.execute("SELECT pg_advisory_unlock(%s, %s)", (_LOCK_CLASS, _signed(key)))
        except psycopg.Error as exc:
            raise StoreError(_("cannot create the store in {store}: {why}").format(store=self.description, why=_explain(exc))) from None
        except PersistenceError as exc:
            raise StoreError(_("cannot create the store in {store}: {why}").format(store=self.description, why=self._why(exc))) from None
        self.present = True
        self._close_probe()

    def select(
        self, stream: UUID, *, after: int = 0, upto: int | None = None, limit: int | None = None,
        desc: bool = False,
    ) -> list[RawRow]:
        statement = sql.SQL("SELECT originator_version, topic, state FROM {} WHERE originator_id = %s").format(
            self._table()
        )
        params: list[Any] = [stream]
        if after:
            statement += sql.SQL(" AND originator_version > %s")
            params.append(after)
        if upto is not None:
            statement += sql.SQL(" AND originator_version <= %s")
            params.append(upto)
        statement += sql.SQL(" ORDER BY originator_version DESC" if desc else " ORDER BY originator_version")
        if limit is not None:
            statement += sql.SQL(" LIMIT %s")
            params.append(limit)
        return self._fetch(statement, params)

    def first_rows(self) -> list[tuple[UUID, bytes]]:
        return self._fetch(sql.SQL("SELECT originator_id, state FROM {} WHERE originator_version = 1").format(self._table()), [])

    def found_rows(self) -> list[tuple[UUID | str, int, bytes | None]]:
        return self._fetch(sql.SQL("SELECT originator_id, COUNT(*), (SELECT state FROM {0} AS first WHERE first.originator_id"
                                   " = e.originator_id AND first.originator_version = 1) FROM {0} AS e GROUP BY originator_id"
                                   ).format(self._table()), [])

    def insert(self, groups: Sequence[tuple[UUID, Iterable[NewRow]]],
               unchanged: Sequence[tuple[UUID, int]] = (), receipt: Receipt | None = None,
               marks: Iterable[Mark] = ()) -> None:
        recorder = self.recorder
        self._close_probe()  # from here on the recorder's connection reads too: one at a time
        try:
            recorder.insert_groups(
                [_of_stream(stream, rows) for stream, rows in groups],
                unchanged,
                receipt,
                marks,
            )
        except IntegrityError as exc:
            raise ConflictError(self._why(exc)) from None
        except PersistenceError as exc:
            raise StoreError(_("cannot store events in {store}: {why}").format(store=self.description, why=self._why(exc))) from None

    def marks_kept(self, writing: bool = False) -> bool:
        """Whether the table is there and this role may read it (one that may read
        nothing but the events reads every game judged whole), and write it: a role
        that may not stores its events unmarked."""
        wanted = ("SELECT", "INSERT", "UPDATE") if writing else ("SELECT",)
        table = f'"{self.schema}"."{JUDGED}"'
        found = self._fetch(sql.SQL("SELECT to_regclass(%s) IS NOT NULL").format() + sql.SQL("").join(
            sql.SQL(" AND has_table_privilege(to_regclass(%s), {})").format(sql.Literal(w)) for w in wanted),
            [table] * (1 + len(wanted)))
        return bool(found and found[0][0])

    def mark(self, stream: UUID) -> Mark | None:
        if not self.marks_kept():
            return None
        found = self._fetch(sql.SQL("SELECT judged, digest FROM {}.{} WHERE stream = %s").format(
            sql.Identifier(self.schema), sql.Identifier(JUDGED)), [stream.hex])
        return Mark(stream, int(found[0][0]), str(found[0][1])) if found else None

    def receipt(self, key: str) -> Receipt | None:
        exists = sql.SQL("SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = %s AND tablename = %s")
        if not self._fetch(exists, [self.schema, RECEIPTS]):
            return None
        statement = sql.SQL("SELECT key, stream, first, last, COALESCE(digest, '') FROM {}.{} WHERE key = %s").format(
            sql.Identifier(self.schema), sql.Identifier(RECEIPTS))
        found = self._fetch(statement, [key])
        return Receipt(*found[0]) if found else None

    def last_change(self) -> int:
        if not self.found():
            return 0
        found = self._fetch(sql.SQL("SELECT COALESCE(MAX(notification_id), 0) FROM {}").format(self._table()), [])
        return int(found[0][0])

    def changes(self, after: int, limit: int) -> list[tuple[int, UUID, int]]:
        if not self.found():
            return []
        statement = sql.SQL("SELECT notification_id, originator_id, originator_version FROM {} "
                            "WHERE notification_id > %s ORDER BY notification_id LIMIT %s").format(self._table())
        return [(position, stream, number) for position, stream, number in self._fetch(statement, [after, limit])]

    @contextmanager
    def writing(self) -> Iterator[Transaction]:
        """On the recorder's connection, under the advisory lock ``create`` takes (one
        upgrade or copy at a time, and none while the store is made); the schema made
        when missing."""
        recorder = self.recorder
        self._close_probe()
        key = zlib.crc32(f"pulka:{self.schema}".encode())
        with self._failing(_("cannot write {store}: {why}")), recorder.datastore.transaction(commit=True) as curs:
            cursor = curs.connection.cursor(row_factory=tuple_row)
            cursor.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(f"{CREATE_LOCK_TIMEOUT}s")))
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_LOCK_CLASS, _signed(key)))
            cursor.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(self.schema)))
            yield PostgresTransaction(cursor, self.schema)

    @contextmanager
    def reading(self) -> Iterator[Transaction]:
        probe = self._probe
        if probe is not None and _checked(probe) is None:
            self._close_probe()
            probe = None
        with self._failing(_("cannot read {store}: {why}")):
            if probe is not None:
                with probe.cursor(row_factory=tuple_row, binary=True) as cursor:
                    yield PostgresTransaction(cursor, self.schema)
                return
            with self.recorder.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row,
                                                                               binary=True) as cursor:
                yield PostgresTransaction(cursor, self.schema)

    @contextmanager
    def _failing(self, message: str) -> Iterator[None]:
        """The driver's and eventsourcing's errors in the block as a StoreError: ``message``
        with the store and why."""
        try:
            yield
        except psycopg.Error as exc:
            raise StoreError(message.format(store=self.description, why=_explain(exc))) from None
        except PersistenceError as exc:
            raise StoreError(message.format(store=self.description, why=self._why(exc))) from None

    @contextmanager
    def snapshot(self) -> Iterator[Transaction]:
        """A connection of its own in a repeatable-read, read-only transaction: every
        statement in it sees the store as of its first one."""
        try:
            conn = psycopg.connect(autocommit=True, **self.address.connect_kwargs(), **_CONNECT)
        except psycopg.Error as exc:
            raise StoreError(_("cannot connect to {store}: {why}").format(store=self.description, why=_explain(exc))) from None
        try:
            with conn.cursor(row_factory=tuple_row, binary=True) as cursor:
                cursor.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                yield PostgresTransaction(cursor, self.schema)
                cursor.execute("ROLLBACK")
        except psycopg.Error as exc:
            raise StoreError(_("cannot read {store}: {why}").format(store=self.description, why=_explain(exc))) from None
        finally:
            conn.close()

    def events_ddl(self) -> list[str]:
        """eventsourcing's statements, its composite type's made only when missing (it has
        no IF NOT EXISTS)."""
        texts = [statement.as_string(None) for statement in self.recorder.sql_create_statements]
        return [f"DO $pulka$ BEGIN {text}; EXCEPTION WHEN duplicate_object THEN NULL; END $pulka$"
                if text.lstrip().upper().startswith("CREATE TYPE") else text for text in texts]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._close_probe()
        if self._recorder is not None:
            self.datastore.close()

    # helpers

    def _table(self) -> sql.Composed:
        return sql.SQL("{}.{}").format(sql.Identifier(self.schema), sql.Identifier(TABLE))

    def found(self) -> bool:
        if not self.present:
            try:
                self.present = self._table_exists()
            except psycopg.Error as exc:
                raise StoreError(_("cannot read {store}: {why}").format(store=self.description, why=_explain(exc))) from None
        return self.present

    def _table_exists(self) -> bool:
        statement = "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = %s AND tablename = %s"
        if self._probe is not None and not self._probe_lost():
            return self._probe.execute(statement, (self.schema, TABLE)).fetchone() is not None
        return bool(self._fetch(sql.SQL(statement), [self.schema, TABLE]))

    def _probe_lost(self) -> bool:
        """Whether the first connection was lost (the server ended it, or restarted): it
        is let go, and what it did is done on the pool from here on."""
        probe = self._probe
        if probe is None or not (probe.closed or probe.broken):
            return False
        self._close_probe()
        return True

    def _fetch(self, statement: sql.SQL | sql.Composed, params: list[Any]) -> list[Any]:
        probe = self._probe
        if probe is not None:
            try:
                with probe.cursor(row_factory=tuple_row, binary=True) as cursor:
                    cursor.execute(statement, params)
                    return cursor.fetchall()
            except psycopg.Error as exc:
                if not self._probe_lost():
                    raise StoreError(_("cannot read {store}: {why}").format(
                        store=self.description, why=_explain(exc))) from None
                # The server ended the first connection (a restart): a read is read
                # again, on the pool, whose connections are checked before use.
        try:
            with self.recorder.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row,
                                                                               binary=True) as curs:
                curs.execute(statement, params)
                return curs.fetchall()
        except PersistenceError as exc:
            raise StoreError(_("cannot read {store}: {why}").format(store=self.description, why=self._why(exc))) from None

    def _close_probe(self) -> None:
        if self._probe is not None:
            self._probe.close()
            self._probe = None

    def _why(self, exc: PersistenceError) -> str:
        cause = exc.__cause__
        return _explain(cause) if isinstance(cause, psycopg.Error) else reason(exc)


def _checked(conn: psycopg.Connection[Any]) -> psycopg.Connection[Any] | None:
    """The connection, when it still answers (as the pool checks its own); else None."""
    try:
        conn.execute("")
    except psycopg.Error:
        return None
    return conn


def _of_stream(stream: UUID, rows: Iterable[NewRow]) -> Iterator[Row]:
    """The rows of one stream as the recorder stores them, one at a time."""
    for version, topic, state in rows:
        yield Row(stream, version, topic, state)


# The first key of pulka's advisory locks (the second is the schema's).
_LOCK_CLASS = 0x70756C6B  # "pulk"


def _signed(key: int) -> int:
    return key - (1 << 32) if key >= 1 << 31 else key


def _explain(exc: psycopg.Error) -> str:
    """A database error on one line, saying what was waited for when it is a timeout."""
    text = reason(exc)
    full = disk_full(exc)
    if full is not None:
        return _("{why}; free some space on it and try again").format(why=full)
    if isinstance(exc, psycopg.errors.LockNotAvailable):
        return _("{why}: waited {seconds} s for the lock on table {table}, which another "
                 "command writing to this store holds; try again").format(why=text, seconds=LOCK_TIMEOUT, table=TABLE)
    if isinstance(exc, psycopg.errors.IdleInTransactionSessionTimeout):
        return _("{why}: the connection stayed idle inside a transaction for {seconds} s").format(
            why=text, seconds=IDLE_TIMEOUT)
    if "couldn't get a connection" in text or "timeout expired" in text:
        return _("{why}: waited {seconds} s for a connection to the server").format(why=text, seconds=CONNECT_TIMEOUT)
    return text

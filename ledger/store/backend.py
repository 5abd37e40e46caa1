"""What the store's two backends share: the address of a store, the errors, and the
small interface each backend gives ``ledger.store.event_store``.

A store address is a file path (SQLite, ``sqlite``) or a ``postgresql://``
address (PostgreSQL, ``postgres``). Both backends keep the events through
eventsourcing's own recorders: rows are written in one transaction of the recorder,
with its insert statement (the unique (stream, version) key catching a concurrent writer), and
read with a narrow ``SELECT`` on the recorder's datastore connection, so that a read
costs one tuple per event and nothing else.

A password is never shown: every message names a store by ``store_label(address)``.
"""

# No ``from __future__ import annotations`` here: typing makes a NamedTuple's fields'
# annotations, given as strings, into references it compiles one by one as the class is
# made, on every command's start; as objects they cost nothing more.

import os
import re

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from functools import cache
from typing import Any, NamedTuple, Protocol
from urllib.parse import parse_qs, unquote, urlsplit
from uuid import UUID

import msgspec
from eventsourcing.persistence import StoredEvent as Row

from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, PulkaEvent

_ = language._  # every text a person reads, in the language in effect (a database's own words stay its own)

__all__ = [
    "MAPPER_TOPIC",
    "OPENED_TOPIC",
    "PulkaState",
    "RECORDED_TOPIC",
    "STATE_JSON",
    "Backend",
    "CannotOpen",
    "ConflictError",
    "NewRow",
    "PostgresAddress",
    "JUDGED",
    "Mark",
    "RECEIPTS",
    "RawRow",
    "Receipt",
    "ReceiptTaken",
    "Row",
    "State",
    "StoreError",
    "StreamChanged",
    "Transaction",
    "causes",
    "decode_state",
    "pulka_state_decoder",
    "state_decoder",
    "lock_held",
    "unreachable",
    "store_label",
    "disk_full",
    "encode_state",
    "is_postgres_url",
    "mask",
    "not_allowed",
    "parse_postgres_url",
    "pause",
    "reason",
]

# The topics written into the store's ``topic`` column: version 1 of a stream (its
# game_started) is "opened", every later version "recorded". Fixed strings, kept from
# the first stores, so that moving a module never makes stored games unreadable.
RECORDED_TOPIC = "ledger.store:Recorded"
OPENED_TOPIC = "ledger.store:Opened"


def topic_of(version: int) -> str:
    """The topic an event's row carries, which is fixed by its number."""
    return OPENED_TOPIC if version == 1 else RECORDED_TOPIC


class State(msgspec.Struct, frozen=True, omit_defaults=True):
    """A row's stored state: the event, its chain digest, and the link to the digest
    before it (``chain.link_of``; absent from rows written before links were kept)."""

    event: AnyEvent
    digest: str
    link: str | None = None


class PulkaState(State, frozen=True):
    """A row's ``State`` whose event is one of a pulka's own, as ``pulka_state_decoder``
    reads it: a ``State`` itself, so that a pulka's rows are read without a copy."""

    event: PulkaEvent
    digest: str
    link: str | None = None


encode_state = msgspec.json.Encoder(order="deterministic").encode


@cache
def state_decoder() -> Callable[[bytes], State]:
    """``decode_state``'s decoder, made when first used (``ledger.vocabulary.events.event_decoder``)."""
    return msgspec.json.Decoder(State).decode


@cache
def pulka_state_decoder() -> Callable[[bytes], PulkaState]:
    """The decoder of the rows of a pulka's stream alone (``PulkaState``): made in less than
    half the time of ``state_decoder``, which reads the fields of every type of event,
    and which a command that reads only a pulka then never makes. A row it refuses (a
    rubber's, a tournament's, a row that does not decode) is ``decode_state``'s, whose
    answer (or refusal) is the row's."""
    return msgspec.json.Decoder(PulkaState).decode


def decode_state(data: bytes) -> State:
    """A row's stored state (``State``), or msgspec.DecodeError."""
    return state_decoder()(data)

# ``encode_state(State(event, digest, link))`` put together from the event's
# ``encode_event`` bytes (the same deterministic msgspec JSON), the digest's hex digits
# (which JSON writes as they are) and the link as JSON (``msgspec.json.encode``): the
# state's fields in the order msgspec writes them. A writer that hashed the event's bytes
# for its digest stores them without encoding the event again.
STATE_JSON = b'{"event":%b,"digest":"%b","link":%b}'

# The mapper that eventsourcing's own application uses on these rows (``records``),
# named here so that opening a store never imports it.
MAPPER_TOPIC = "ledger.store.records:MsgspecMapper"


class StoreError(Exception):
    """The store cannot be opened, reached or written; the message says which and why."""


class CannotOpen(StoreError):
    """A store that does not open, its message saying so already ("cannot open ...", in
    the language in effect): a caller adds no frame of its own (``cli.common.opened``).
    ``why``: the reason alone (a reading command that opens the file read-only instead
    says why)."""

    def __init__(self, message: str, why: str) -> None:
        super().__init__(message)
        self.why = why


class ConflictError(StoreError):
    """The database refused a row because its (stream, version) is taken: someone
    appended to the game between our read and our write."""


class Receipt(NamedTuple):
    """A write stored under a key its client made (a phone's id for one entry), so that
    the same write sent again is known and stored once: the key, the stream written and
    the numbers of the events stored (``Store.receipted``), and the digest of what the
    client asked (``digest``: SHA-256 of its request, "" when not given or stored by an
    earlier version), so that the same key sent with another request is told apart from
    the same write sent again. Kept in the store's table ``pulka_receipts``, beside the
    events and written in their transaction, not in the club log: it is no event of any
    stream."""

    key: str
    stream: str
    first: int
    last: int
    digest: str = ""


# The table of receipts, beside the events table.
RECEIPTS = "pulka_receipts"
# The table of judged marks (``Mark``), beside the events table.
JUDGED = "pulka_judged"


class Mark(msgspec.Struct, frozen=True):
    """A stream's judged mark: the ledger has judged its first ``judged`` events, the last
    of which is stored with ``digest`` (which commits to every event up to it). Written in
    the transaction that stores those events (``Backend.insert``); what a read does with
    it is ``ledger.application``'s."""

    stream: UUID
    judged: int
    digest: str


class ReceiptTaken(StoreError):
    """A write refused because its key is stored already: the same write, sent again
    (by another process, or before the first one's answer arrived)."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"a write with the key {key!r} is stored already")


class StreamChanged(StoreError):
    """A stream that a write was decided on (read, not written) has another number of
    events than the writer read: someone recorded into it meanwhile."""

    def __init__(self, stream: UUID, found: int) -> None:
        self.stream = stream
        self.found = found
        super().__init__(f"stream {stream} has {found} events now")


# One stored event as the backends read it: its number, its topic and its stored bytes.
# A plain tuple, as the database driver returns it: reading builds nothing per row.
RawRow = tuple[int, str, bytes]
# One event to store, in the same shape: its number (the stream's version), topic, state.
NewRow = tuple[int, str, bytes]


class Transaction(Protocol):
    """One transaction on a store's database, in SQL both backends read (``?``
    placeholders, names qualified by ``name``): what the layout's upgrade and a copy
    of the store run. ``kind``: ``sqlite`` or ``postgres``; ``events_table`` and
    ``position``: the events table's name and the column of its store order."""

    kind: str
    events_table: str
    position: str

    def run(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run one statement; the rows it returns ([] for none)."""

    def run_many(self, statement: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement for each of ``rows``."""

    def name(self, table: str) -> str:
        """The table's name as a statement writes it (in the store's schema)."""

    def tables(self) -> set[str]:
        """The names of the tables of the store's database (of its schema)."""

    def column_names(self, table: str) -> list[str]:
        """The columns of ``table`` (of the store's schema), in order."""

    def ordered_by_locale(self, tables: Sequence[str]) -> list[str]:
        """The text columns of ``tables`` (table.column) that compare otherwise than by
        code point: by a collation of the database's language (never on SQLite)."""

    def marked_layout(self) -> int | None:
        """The layout marked on the store where every role that reads its events reads
        it too (SQLite's ``user_version``; the comment on PostgreSQL's events table);
        None where none is."""

    def mark_layout(self, layout: int) -> None:
        """Mark the store's layout there, in this transaction."""


class Backend(ABC):
    """One database holding the events table, behind an eventsourcing recorder.

    ``present`` says whether the events table exists; ``create`` makes it, safely when
    several commands try at once. Reading a store that has no table finds nothing.
    """

    description: str
    present: bool
    # How eventsourcing's own application opens the same store (``records``): the
    # persistence module and its settings, tables never created.
    env: dict[str, str]

    @abstractmethod
    def found(self) -> bool:
        """Whether the events table exists now: ``present``, looked for again while it
        was not (another command may have made it since this one opened the store)."""

    @abstractmethod
    def create(self) -> None:
        """Create the events table (and what the recorder needs with it)."""

    @abstractmethod
    def select(
        self, stream: UUID, *, after: int = 0, upto: int | None = None, limit: int | None = None,
        desc: bool = False,
    ) -> list[RawRow]:
        """The rows of one stream with ``after < version <= upto``, in version order
        (newest first when ``desc``), at most ``limit`` of them."""

    @abstractmethod
    def first_rows(self) -> list[tuple[UUID, bytes]]:
        """The stream and state of every row numbered 1, whatever its topic says."""

    @abstractmethod
    def found_rows(self) -> list[tuple[UUID | str, int, bytes | None]]:
        """Every stream that has a row in the events table, whatever its rows say, with
        its number of rows and the state of its row numbered 1 (None: it has none). An id
        that is not a UUID, which only an edit can make, is given as it is stored."""

    @abstractmethod
    def insert(self, groups: Sequence[tuple[UUID, Iterable[NewRow]]],
               unchanged: Sequence[tuple[UUID, int]] = (), receipt: Receipt | None = None,
               marks: Iterable[Mark] = ()) -> None:
        """Store the rows of each stream of ``groups`` in one transaction, all or nothing
        (``pause("stream")`` between one stream's rows and the next): ConflictError when
        a (stream, version) is taken, StreamChanged when a stream of ``unchanged`` has
        not exactly that many rows. Each count is read under the write lock that every
        writer takes, within the transaction, so that no other writer can change it
        before the commit. ``receipt``: written first in the same transaction under
        that lock; ReceiptTaken when its key is stored already. ``marks``: each
        stream's judged mark, written (over the one before) in the same transaction,
        taken once its rows are written (the caller knows the table is there: ``marks_kept``)."""

    @abstractmethod
    def marks_kept(self, writing: bool = False) -> bool:
        """Whether the store has the table of judged marks and this connection may read
        it, and write it (``writing``); a store of an earlier layout, not yet upgraded,
        has none."""

    @abstractmethod
    def mark(self, stream: UUID) -> Mark | None:
        """The judged mark of ``stream``; None when it has none, or the store keeps none
        this connection may read (a read never fails for want of a mark)."""

    @abstractmethod
    def receipt(self, key: str) -> Receipt | None:
        """The receipt stored under ``key`` (None: none, or no table of receipts yet)."""

    @abstractmethod
    def last_change(self) -> int:
        """The position of the last row in store order (eventsourcing's notification
        id: SQLite's rowid, PostgreSQL's ``notification_id``); 0 for an empty store."""

    @abstractmethod
    def changes(self, after: int, limit: int) -> list[tuple[int, UUID, int]]:
        """The rows after position ``after`` in store order, at most ``limit``: each as
        (position, stream, number)."""

    @abstractmethod
    def writing(self) -> AbstractContextManager[Transaction]:
        """A write transaction under the store's write lock (the one every writer takes,
        and an upgrade or a copy), committed at the end of the block, rolled back if it
        raises; the file or the schema made when missing."""

    @abstractmethod
    def reading(self) -> AbstractContextManager[Transaction]:
        """A read on the store's own connection (a store that has its events table)."""

    @abstractmethod
    def snapshot(self) -> AbstractContextManager[Transaction]:
        """A read-only transaction that sees the store as it was when it began, whatever
        is written meanwhile, on a connection of its own: what a copy reads."""

    @abstractmethod
    def events_ddl(self) -> list[str]:
        """The statements that make the events table as eventsourcing's recorder makes it
        (each safe to run when it is there already)."""

    @abstractmethod
    def close(self) -> None:
        """Close the connections."""


# --- a seam for tests with real processes ------------------------------------------

PAUSE_ENV = "PULKA_TEST_PAUSE"
PAUSE_GO_ENV = "PULKA_TEST_PAUSE_GO"
_paused: set[str] = set()


def pause(point: str) -> None:
    """Where a test of real processes makes a command stop: with ``PULKA_TEST_PAUSE`` set
    to ``point`` the process stops itself (SIGSTOP) there, the first time it gets there;
    the test, which waits for it to stop (``waitpid`` with ``WUNTRACED``), then lets it go
    on (SIGCONT) or kills it (SIGKILL). So two commands interleave, or a command dies,
    exactly there, with no timing. It goes on only once the file that
    ``PULKA_TEST_PAUSE_GO`` names exists (the test makes it before its SIGCONT): continued
    by anything else, it stops again, so that a process a test means to kill stays where
    it stopped. The points:

    - ``write``: a command has read and decided, and its first write is about to begin;
    - ``stream``: a command has written one stream's rows and is about to write
      another's;
    - ``views``: a command has made the player views' tables (or found them made) and
      is about to write their first row, in the same transaction.

    Without the variable (every real use) it does nothing."""
    if point in _paused or os.environ.get(PAUSE_ENV) != point:
        return
    _paused.add(point)
    go = os.environ.get(PAUSE_GO_ENV)
    import signal  # here: only the tests' pauses stop the process

    os.kill(os.getpid(), signal.SIGSTOP)
    while go is None or not os.path.exists(go):
        os.kill(os.getpid(), signal.SIGSTOP)


# --- addresses -------------------------------------------------------------------------


class PostgresAddress(NamedTuple):
    """A parsed ``postgresql://`` address."""

    dbname: str
    host: str
    port: int
    user: str
    password: str
    schema: str

    def connect_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``psycopg.connect``: the text of every connection in
        UTF-8 (``CLIENT_ENCODING``)."""
        return {
            "dbname": self.dbname,
            "host": self.host,
            "port": self.port,
            "user": self.user,
            "password": self.password,
            "client_encoding": CLIENT_ENCODING,
        }

    def display(self) -> str:
        """The address without its password, for messages."""
        schema = f"?schema={self.schema}" if self.schema else ""
        return f"postgresql://{self.user}@{self.host}:{self.port}/{self.dbname}{schema}"


# The encoding of the text every connection to PostgreSQL sends and reads, whatever the
# database's own: a database created as SQL_ASCII (``initdb --locale=C``, some hosts'
# default) otherwise has the driver read every text column as bytes, and an event's
# topic read as bytes never equals the one its number fixes: every game read as
# tampered. In SQL_ASCII the server keeps the bytes as they are sent, so text stored
# and read as UTF-8 comes back as it went in.
CLIENT_ENCODING = "UTF8"

# A schema's name as the store writes it into its statements, unquoted.
SCHEMA = r"[A-Za-z_][A-Za-z0-9_]{0,62}"


def is_postgres_url(db: str) -> bool:
    return db.startswith(("postgresql://", "postgres://"))


def store_label(db: str) -> str:
    """A store address as messages show it: a PostgreSQL address without its password."""
    if not is_postgres_url(db):
        return db
    parts = urlsplit(db)
    if parts.password is None:
        return db
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return parts._replace(netloc=f"{user}:***@{host}").geturl()


def mask(text: str, db: str) -> str:
    """``text`` with the password of the address ``db`` (as given, and as decoded)
    replaced by ``***``: everywhere, or, when shorter than six characters, wherever it
    stands alone (not inside a longer word), so that a short password (``a``) leaves the
    rest of the message readable."""
    if not is_postgres_url(db):
        return text
    password = urlsplit(db).password or ""
    for secret in sorted({password, unquote(password)} - {""}, key=len, reverse=True):
        if len(secret) >= 6:
            text = text.replace(secret, "***")
        else:
            text = re.sub(rf"(?<![^\W_]){re.escape(secret)}(?![^\W_])", "***", text)
    return text


def parse_postgres_url(url: str) -> PostgresAddress:
    """Parse ``postgresql://user:pass@host:port/dbname?schema=NAME``, or raise StoreError.

    ``host`` may also be given as a query parameter (a Unix socket directory).
    """
    parts = urlsplit(url)
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    unknown = set(query) - {"schema", "host"}
    shown = store_label(url)
    if unknown:
        raise StoreError(_(
            "unknown parameter {parameter} in database address {address}; known: schema, host"
        ).format(parameter=repr(sorted(unknown)[0]), address=repr(shown)))
    schema = query.get("schema", "")
    if schema and not re.fullmatch(SCHEMA, schema):
        raise StoreError(_("the schema {schema} in {address} is not a plain name: letters, digits and _, "
                           "63 at most, not beginning with a digit").format(schema=repr(schema[:40]),
                                                                           address=repr(shown)))
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname:
        raise StoreError(_("no database name in {address}: use postgresql://user:pass@host:port/dbname").format(
            address=repr(shown)))
    try:
        port = parts.port or 5432
    except ValueError:
        raise StoreError(_("bad port in database address {address}").format(address=repr(shown))) from None
    return PostgresAddress(
        dbname=dbname,
        host=query.get("host") or parts.hostname or "localhost",
        port=port,
        user=unquote(parts.username or "postgres"),
        password=unquote(parts.password or ""),
        schema=schema,
    )


def reason(exc: BaseException) -> str:
    """An exception's message on one line (libpq's span several)."""
    return " ".join(str(exc).split()) or type(exc).__name__


# --- faults of the machine, told as what they are -----------------------------------------

# sqlite3's primary result codes and PostgreSQL's SQLSTATEs for a write not allowed and a
# disk full (read from the exceptions, so that this module loads no driver).
SQLITE_BUSY, SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL = 5, 8, 10, 13
NOT_ALLOWED_STATE, DISK_FULL_STATE, LOCK_STATE = "42501", "53100", "55P03"
# A server that ended its connections (an administrator's command, a shutdown, a crash)
# or that is starting and accepts none yet; a class 08 state is a connection's failure.
GONE_STATES = ("57P01", "57P02", "57P03")
# What the drivers raise, without a state, for a connection that is lost or cannot be
# had (psycopg's, and its pool's when no connection comes in time).
GONE_ERRORS = ("OperationalError", "InterfaceError", "PoolTimeout", "TooManyRequests")
# Below this many free bytes a SQLite "disk I/O error" is a full disk: what fails then is
# the shared-memory file every connection to a WAL database makes beside it.
NEARLY_FULL = 1 << 20


def causes(exc: BaseException) -> list[BaseException]:
    """The exception and those it was raised from (eventsourcing wraps the driver's)."""
    found: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in found:
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def _code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def not_allowed(exc: BaseException) -> bool:
    """Whether the database refused because this connection may not do it: a SQLite file
    opened read-only (or that cannot be written), a PostgreSQL role without the grant."""
    return any(_code(e) == SQLITE_READONLY or getattr(e, "sqlstate", None) == NOT_ALLOWED_STATE
               for e in causes(exc))


def disk_full(exc: BaseException, path: str | None = None) -> str | None:
    """What to say when ``exc`` comes of a full disk (None when it does not): SQLite's
    "database or disk is full", its "disk I/O error" with (almost) nothing left where the
    file ``path`` is, PostgreSQL's disk_full on its server."""
    for e in causes(exc):
        if getattr(e, "sqlstate", None) == DISK_FULL_STATE:
            return _("the disk is full on the database server ({why})").format(why=reason(e))
        code = _code(e)
        if code in (SQLITE_FULL, SQLITE_IOERR) and path is not None:
            folder = os.path.dirname(os.path.abspath(path))
            import shutil  # here: only a failed write asks how much room is left

            try:
                free = shutil.disk_usage(folder).free
            except OSError:
                free = None
            if code == SQLITE_FULL or (free is not None and free < NEARLY_FULL):
                if free is None:
                    return _("the disk is full; free some space and try again")
                return _("the disk is full ({free} bytes free in {folder}); free some space and try again").format(
                    free=f"{free:,}", folder=folder)
    return None


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` comes of a PostgreSQL server that cannot be reached now: down,
    restarting, or the connection lost: the same request again, a little later, is
    answered (nothing of it was done)."""
    for e in causes(exc):
        state = getattr(e, "sqlstate", None)
        if state is not None:
            if state.startswith("08") or state in GONE_STATES:
                return True
            continue
        if type(e).__module__.startswith("psycopg") and type(e).__name__ in GONE_ERRORS:
            return True
    return False


def lock_held(exc: BaseException) -> bool:
    """Whether ``exc`` comes of a lock another writer held for longer than this one would
    wait: SQLite's "database is locked", PostgreSQL's lock_not_available."""
    return any(_code(e) == SQLITE_BUSY or getattr(e, "sqlstate", None) == LOCK_STATE for e in causes(exc))

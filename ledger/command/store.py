"""The event store: each pulka's events, kept through eventsourcing in SQLite or PostgreSQL.

A game is one event stream of an ``eventsourcing`` application: its originator id is
``uuid5(NAMESPACE, game name)`` and its versions 1..N are the event numbers of
event-log.md (``game_started`` is 1). The application's optimistic concurrency (a
unique originator id and version) makes an append all or nothing and refuses a writer
that read a stale count.

Each stored record is a frozen msgspec struct (``Recorded``) holding the event and its
hash-chain digest (``ledger.vocabulary.chain``); the stored state is the msgspec JSON of both. The
released eventsourcing 9.5.6 has no msgspec mapper, so ``MsgspecMapper`` is ours,
selected with ``MAPPER_TOPIC``.

``Store(db)`` chooses the backend from the address: a file path is SQLite (table
``stored_events``), a ``postgresql://user:pass@host:port/dbname[?schema=NAME]``
address is PostgreSQL (table ``pulka_events`` in that schema, ``public`` by default).
Tables, and a named schema, are created when missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType
from typing import Any, NamedTuple, Self
from urllib.parse import parse_qs, unquote, urlsplit
from uuid import UUID, uuid5

import msgspec
from eventsourcing.application import Application
from eventsourcing.domain import DomainEventProtocol
from eventsourcing.persistence import (
    IntegrityError,
    Mapper,
    MapperDeserialisationError,
    PersistenceError,
)
from eventsourcing.persistence import StoredEvent as Row
from eventsourcing.utils import Environment, EnvType, get_topic

from ledger.vocabulary.chain import GENESIS, ChainProblem, Unreadable, chain_digests, verify_chain
from ledger.vocabulary.events import AnyEvent, StreamStart

__all__ = [
    "NAMESPACE",
    "ConcurrentWriteError",
    "LedgerApplication",
    "MsgspecMapper",
    "Opened",
    "PostgresAddress",
    "Recorded",
    "Store",
    "StoreError",
    "StoredEvent",
    "UnreadableEventError",
    "game_id",
    "is_postgres_url",
    "parse_postgres_url",
]

# Fixed for ever: a game's stream id is derived from its name with it.
NAMESPACE = UUID("0b5a3f3e-6d0c-4f2e-9a55-2f1c6c0a7e11")

DEFAULT_DB = "pulka.db"


def game_id(game: str) -> UUID:
    """The id of a game's event stream."""
    return uuid5(NAMESPACE, game)


class StoredEvent(NamedTuple):
    """An event as the store holds it: its number in the game, the event, its digest."""

    number: int
    event: AnyEvent
    digest: str


class StoreError(Exception):
    """The store cannot be opened, reached or written; the message says which and why."""


class UnreadableEventError(StoreError):
    """A stored event no longer decodes (the database was edited); see ``Store.verify``."""


class ConcurrentWriteError(Exception):
    """Someone else appended to the game after the caller read it."""

    def __init__(self, game: str, expected: int, found: int) -> None:
        self.game = game
        self.expected = expected
        self.found = found
        super().__init__(
            f"game {game!r} was changed by someone else: expected {expected} stored "
            f"event(s), found {found}; reload the game and try again"
        )


# --- the stored domain events and their mapper --------------------------------------


class Recorded(msgspec.Struct, frozen=True, kw_only=True):
    """One event of a game as an eventsourcing domain event: stream id, number, digest."""

    originator_id: UUID
    originator_version: int
    event: AnyEvent
    digest: str


class Opened(Recorded, frozen=True, kw_only=True):
    """The first record of a game (its ``game_started``).

    A class of its own so that its topic marks the first events in the notification
    log, and listing the games reads only those.
    """


class _State(msgspec.Struct, frozen=True):
    """The stored state: everything in a record but its stream id and version."""

    event: AnyEvent
    digest: str


# The topics written into the store's ``topic`` column. Fixed strings, not derived from
# where the classes live, so that moving a module never makes stored games unreadable.
RECORDED_TOPIC = "ledger.store:Recorded"
OPENED_TOPIC = "ledger.store:Opened"
_RECORD_TYPES: dict[str, type[Recorded]] = {RECORDED_TOPIC: Recorded, OPENED_TOPIC: Opened}
_TOPICS: dict[type[Recorded], str] = {cls: topic for topic, cls in _RECORD_TYPES.items()}

_state_encoder = msgspec.json.Encoder(order="deterministic")
_state_decoder = msgspec.json.Decoder(_State)


class MsgspecMapper(Mapper[UUID]):
    """Maps ``Recorded`` structs to stored events and back with msgspec JSON.

    eventsourcing's own Mapper reads ``vars(event)``, which msgspec structs don't have.
    The transcoder it is given is not used; a configured compressor or cipher is.
    """

    def to_stored_event(self, domain_event: DomainEventProtocol[UUID]) -> Row:
        if not isinstance(domain_event, Recorded):
            raise TypeError(f"not a pulka record: {domain_event!r}")
        state = _state_encoder.encode(_State(event=domain_event.event, digest=domain_event.digest))
        if self.compressor:
            state = self.compressor.compress(state)
        if self.cipher:
            state = self.cipher.encrypt(state)
        return Row(
            originator_id=domain_event.originator_id,
            originator_version=domain_event.originator_version,
            topic=_TOPICS[type(domain_event)],
            state=state,
        )

    def to_domain_event(self, stored_event: Row) -> Recorded:
        # A fixed table of topics, not resolve_topic(): a topic read from the database
        # must never make us import whatever module it names.
        cls = _RECORD_TYPES.get(stored_event.topic)
        if cls is None:
            raise MapperDeserialisationError(f"unknown topic {stored_event.topic!r}")
        try:
            state = stored_event.state
            if self.cipher:
                state = self.cipher.decrypt(state)
            if self.compressor:
                state = self.compressor.decompress(state)
            decoded = _state_decoder.decode(state)
        except Exception as exc:  # any undecodable bytes, whatever raised it
            raise MapperDeserialisationError(str(exc)) from exc
        originator_id = stored_event.originator_id
        return cls(
            originator_id=originator_id if isinstance(originator_id, UUID) else UUID(originator_id),
            originator_version=stored_event.originator_version,
            event=decoded.event,
            digest=decoded.digest,
        )


class LedgerApplication(Application[UUID]):
    # The name prefixes eventsourcing's PostgreSQL table: "pulka_events".
    name = "Pulka"

    def construct_env(self, name: str, env: EnvType | None = None) -> Environment:
        # Configured by the --db address alone: eventsourcing would also read
        # os.environ, where a stray PERSISTENCE_MODULE or POSTGRES_* would silently
        # send the ledger to another database.
        return Environment(name, dict(env or {}))


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
        """Keyword arguments for ``psycopg.connect``."""
        return {
            "dbname": self.dbname,
            "host": self.host,
            "port": self.port,
            "user": self.user,
            "password": self.password,
        }

    def display(self) -> str:
        """The address without its password, for messages."""
        schema = f"?schema={self.schema}" if self.schema else ""
        return f"postgresql://{self.user}@{self.host}:{self.port}/{self.dbname}{schema}"


def is_postgres_url(db: str) -> bool:
    return db.startswith(("postgresql://", "postgres://"))


def parse_postgres_url(url: str) -> PostgresAddress:
    """Parse ``postgresql://user:pass@host:port/dbname?schema=NAME``, or raise StoreError.

    ``host`` may also be given as a query parameter (a Unix socket directory).
    """
    parts = urlsplit(url)
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    unknown = set(query) - {"schema", "host"}
    if unknown:
        raise StoreError(
            f"unknown parameter {sorted(unknown)[0]!r} in database address {url!r}; "
            "known: schema, host"
        )
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname:
        raise StoreError(f"no database name in {url!r}: use postgresql://user:pass@host:port/dbname")
    try:
        port = parts.port or 5432
    except ValueError:
        raise StoreError(f"bad port in database address {url!r}") from None
    return PostgresAddress(
        dbname=dbname,
        host=query.get("host") or parts.hostname or "localhost",
        port=port,
        user=unquote(parts.username or "postgres"),
        password=unquote(parts.password or ""),
        schema=query.get("schema", ""),
    )


def _postgres_env(address: PostgresAddress) -> dict[str, str]:
    return {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": address.dbname,
        "POSTGRES_HOST": address.host,
        "POSTGRES_PORT": str(address.port),
        "POSTGRES_USER": address.user,
        "POSTGRES_PASSWORD": address.password,
        "POSTGRES_SCHEMA": address.schema,
        "POSTGRES_CONNECT_TIMEOUT": "10",
        # A command-line ledger needs one connection; the pool would open five.
        "POSTGRES_POOL_SIZE": "1",
        "POSTGRES_MAX_OVERFLOW": "2",
    }


def _prepare_postgres(address: PostgresAddress) -> None:
    """Connect once to report a bad address plainly, and create a named schema."""
    import psycopg  # only needed for PostgreSQL
    from psycopg import sql

    try:
        with psycopg.connect(**address.connect_kwargs(), connect_timeout=10, autocommit=True) as conn:
            if address.schema:
                found = conn.execute(
                    "SELECT 1 FROM pg_namespace WHERE nspname = %s", (address.schema,)
                ).fetchone()
                if found is None:
                    conn.execute(
                        sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
                            sql.Identifier(address.schema)
                        )
                    )
    except psycopg.Error as exc:
        raise StoreError(f"cannot connect to {address.display()}: {_reason(exc)}") from None


# --- the store -------------------------------------------------------------------------


class Store:
    """The ledger's events, one stream per game, in SQLite or PostgreSQL."""

    # How many first records games() reads per query.
    GAMES_PAGE = 500

    def __init__(self, db: str = DEFAULT_DB) -> None:
        env: dict[str, str] = {
            "MAPPER_TOPIC": get_topic(MsgspecMapper),
            "CREATE_TABLE": "y",
        }
        if is_postgres_url(db):
            address = parse_postgres_url(db)
            self.description = address.display()
            _prepare_postgres(address)
            env.update(_postgres_env(address))
        else:
            self.description = db
            env.update({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": db})
        self._closed = False
        # How the store was configured, for readers of the same events (the views).
        self.env = dict(env)
        try:
            self._app = LedgerApplication(env=env)
        except StoreError:
            raise
        except Exception as exc:
            self._closed = True
            raise StoreError(f"cannot open the store {self.description}: {_reason(exc)}") from None
        mapper = self._app.mapper
        assert isinstance(mapper, MsgspecMapper), mapper
        self._mapper = mapper
        self._recorder = self._app.recorder

    # reading

    def load(self, game: str) -> list[StoredEvent]:
        """All events of ``game`` in order; [] for a game never stored."""
        return [
            StoredEvent(record.originator_version, record.event, record.digest)
            for record in (self._decode(game, row) for row in self._select(game))
        ]

    def count(self, game: str) -> int:
        """How many events the game has (the number of its last event; 0 if unknown)."""
        last = self._select(game, desc=True, limit=1)
        return last[0].originator_version if last else 0

    def games(self, kind: type[StreamStart] | tuple[type[StreamStart], ...] = StreamStart) -> list[str]:
        """The names of all stored streams whose first event is a ``kind`` (one type or
        several), sorted: every stream by default.

        Read from each stream's first record in the notification log. A first record
        that no longer decodes is left out; ``verify`` on that game says why.
        """
        names: set[str] = set()
        start: int | None = None
        page = self.GAMES_PAGE
        while True:
            try:
                notifications = self._recorder.select_notifications(
                    start, page, topics=[OPENED_TOPIC], inclusive_of_start=False
                )
            except PersistenceError as exc:
                raise StoreError(f"cannot read {self.description}: {_reason(exc)}") from None
            for notification in notifications:
                try:
                    record = self._mapper.to_domain_event(notification)
                except MapperDeserialisationError:
                    continue
                event = record.event
                # Only a stream's true first record names it; a copied or moved one
                # is left to verify.
                if (
                    isinstance(event, kind)
                    and record.originator_version == 1
                    and record.originator_id == game_id(event.game)
                ):
                    names.add(event.game)
            if len(notifications) < page:
                return sorted(names)
            start = notifications[-1].id

    def verify(self, game: str) -> ChainProblem | None:
        """Check the game's stored rows against the hash chain; None when intact.

        Reads the raw rows in version order, so a row that no longer decodes, a gap,
        an inserted row or a reordering is reported by event number, never raised.
        """
        rows: list[tuple[int, AnyEvent | Unreadable, str]] = []
        for row in self._select(game):
            try:
                record = self._mapper.to_domain_event(row)
            except MapperDeserialisationError as exc:
                rows.append((row.originator_version, Unreadable(str(exc)), ""))
            else:
                rows.append((row.originator_version, record.event, record.digest))
        return verify_chain(game, rows)

    # writing

    def append(self, game: str, events: Sequence[AnyEvent], expected: int) -> list[StoredEvent]:
        """Store ``events`` as numbers ``expected + 1``..., all or nothing.

        Raises ConcurrentWriteError when the game already has more than ``expected``
        events (someone appended first), before or during the write. The first event
        of a game must be its ``game_started`` and no other may be.
        """
        if expected < 0:
            raise ValueError(f"expected count cannot be negative: {expected}")
        for number, event in enumerate(events, start=expected + 1):
            if (number == 1) != isinstance(event, StreamStart):
                if number == 1:
                    raise ValueError(f"event 1 of game {game!r} must be game_started, not {event!r}")
                raise ValueError(f"game_started can only be event 1 of game {game!r}, not event {number}")
            if isinstance(event, StreamStart) and event.game != game:
                raise ValueError(f"game_started of {event.game!r} cannot start game {game!r}")
        if not events:
            return []

        head = self._head(game)
        found = head.originator_version if head else 0
        if found > expected:
            raise ConcurrentWriteError(game, expected, found)
        if found < expected:
            raise ValueError(f"game {game!r} has {found} events, fewer than the {expected} expected")
        previous = self._decode(game, head).digest if head else GENESIS

        digests = chain_digests(game, events, start_digest=previous, start_number=expected + 1)
        stream = game_id(game)
        records = [
            (Opened if number == 1 else Recorded)(
                originator_id=stream, originator_version=number, event=event, digest=digest
            )
            for number, event, digest in zip(
                range(expected + 1, expected + 1 + len(events)), events, digests, strict=True
            )
        ]
        try:
            self._app.save(*records)
        except IntegrityError as exc:
            # The version is taken: someone appended between our read and our write.
            # Anything else that the database refused is a store error.
            found = self.count(game)
            if found > expected:
                raise ConcurrentWriteError(game, expected, found) from None
            raise StoreError(f"cannot store events of {game!r} in {self.description}: {_reason(exc)}") from None
        except PersistenceError as exc:
            raise StoreError(f"cannot store events of {game!r} in {self.description}: {_reason(exc)}") from None
        return [StoredEvent(r.originator_version, r.event, r.digest) for r in records]

    # lifetime

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._app.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.description!r})"

    # helpers

    def _head(self, game: str) -> Row | None:
        """The game's last stored row (what an append continues from)."""
        last = self._select(game, desc=True, limit=1)
        return last[0] if last else None

    def _select(self, game: str, *, desc: bool = False, limit: int | None = None) -> Sequence[Row]:
        try:
            return self._recorder.select_events(game_id(game), desc=desc, limit=limit)
        except PersistenceError as exc:
            raise StoreError(f"cannot read {self.description}: {_reason(exc)}") from None

    def _decode(self, game: str, row: Row) -> Recorded:
        try:
            return self._mapper.to_domain_event(row)
        except MapperDeserialisationError as exc:
            raise UnreadableEventError(
                f"event {row.originator_version} of game {game!r} in {self.description} "
                f"cannot be read: {exc}; the database was changed outside pulka (verify the game)"
            ) from None


def _reason(exc: BaseException) -> str:
    """An exception's message on one line (libpq's span several)."""
    return " ".join(str(exc).split()) or type(exc).__name__


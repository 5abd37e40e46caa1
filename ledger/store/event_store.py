"""The event store: each pulka's events, kept through eventsourcing in SQLite or PostgreSQL.

A game is one event stream: its id is ``uuid5(NAMESPACE, game name)`` and its versions
1..N are the event numbers of the log (``game_started`` is 1). Rows are written by
eventsourcing's application recorder of the backend (``ledger.store.sqlite``,
``ledger.store.postgres``) in one transaction, one stream's or several (``append_all``: a
tournament's file, a tour's tables); its unique (stream, version) key makes an append
all or nothing and refuses a writer that read a stale count, and the count of a stream
the writer only read (``unchanged``) is checked in the same transaction.

Each row's state is the msgspec JSON of the event, its hash-chain digest and its link
to the digest before it (``ledger.vocabulary.chain``); its topic is fixed by its
number (``backend.topic_of``), and ``verify`` checks it (``rows``).
Reading selects only the columns it needs and decodes each state with one msgspec
decoder: no domain-event object, no mapper, nothing else per row.

``Store(db)`` chooses the backend from the address: a file path is SQLite (table
``stored_events``), a ``postgresql://user:pass@host:port/dbname[?schema=NAME]``
address is PostgreSQL (table ``pulka_events`` in that schema, ``public`` by default).
``create=True`` makes the table when it is missing, at the first write
(``ensure_table``): a command refused before it writes leaves no trace, not even a new
SQLite file. A store opened without it never changes the database, and finds no games
where there is no table.

What the store gives and refuses (a stored event, a reading, an append; a stream
changed by someone else, a broken chain) is ``ledger.store.stored``; ``bulk``, the
garbage collector off around the load and replay of a long game, ``collector``. The
ledger's judged mark of a stream is written with the events it judged (``Append``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import Self
from uuid import UUID

import msgspec

from ledger.store.backend import (
    RECEIPTS,
    RECORDED_TOPIC,
    Backend,
    CannotOpen,
    ConflictError,
    Mark,
    NewRow,
    PostgresAddress,
    RawRow,
    Receipt,
    ReceiptTaken,
    State,
    StoreError,
    StreamChanged,
    decode_state,
    store_label,
    is_postgres_url,
    parse_postgres_url,
    pause,
)
from ledger.store import layout
from ledger.store.collector import bulk as bulk  # where the readers of a long game have found it
from ledger.store.rows import chained_events, made_rows, named_problem, pulka_rows, stream_owner, topics_intact
from ledger.store.sqlite import SQLiteBackend
from ledger.store.stored import (
    Append,
    BrokenChainError,
    ConcurrentWriteError,
    Reading,
    StoredEvent,
    StreamKind,
    UnreadableEventError,
    Verified,
    game_id,
)
from ledger.vocabulary.chain import (
    GENESIS,
    LINK_LENGTH,
    ChainProblem,
    intact_from,
    linker,
)
from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, StreamStart
from ledger.vocabulary.wording import spoken_count

_ = language._  # every text a person reads, in the language in effect

__all__ = ["CannotOpen", "PostgresAddress", "Receipt", "ReceiptTaken", "Store", "StoreError", "store_label",
           "is_postgres_url", "parse_postgres_url"]

DEFAULT_DB = "pulka.db"
LAST_NUMBER = 2**62  # no stream has an event of a higher number (a database's integers end at 2**63)


class Store:
    """The ledger's events, one stream per game, in SQLite or PostgreSQL."""

    # How many events a read that stops at the end of a deal takes per query, and any
    # other read (what it holds of raw rows at a time).
    PAGE = 2000
    READ_PAGE = 10_000

    def __init__(self, db: str = DEFAULT_DB, *, create: bool = True, pool_wait: float | None = None) -> None:
        # pool_wait: the seconds a use of PostgreSQL waits for a connection (else its connect timeout)
        backend: Backend
        if is_postgres_url(db):
            # Only a PostgreSQL address needs the driver, which a plain install lacks.
            try:
                from ledger.store.postgres import PostgresBackend
            except ImportError as exc:
                raise StoreError(_("a postgresql:// store needs pulka's PostgreSQL extra, which this "
                                   "installation lacks ({module} cannot be imported): "
                                   "pip install 'pulka[postgres]'").format(module=exc.name or "psycopg")) from None
            backend = PostgresBackend(parse_postgres_url(db), create=create, pool_wait=pool_wait)
        else:
            backend = SQLiteBackend(db, read=not create)
        self._backend = backend
        self.description = backend.description
        # The layout of its tables (None: no events table yet); a later one is refused.
        self.layout = layout.at_open(backend)
        # How to open eventsourcing's own application on these events (for readers that
        # follow the whole store through it: the views).
        self.env = backend.env
        self._closed = False
        self._create = create
        self._receipt: tuple[str, str] | None = None  # the key and digest of the next write (``receipted``)
        self._receipts = False  # the table of receipts is known to exist
        self._marks_kept = False  # the table of judged marks is known to exist

    # reading

    def load(self, game: str) -> list[StoredEvent]:
        """All events of ``game`` in order, as stored (the chain unchecked); [] for a
        game never stored. A row that no longer decodes raises UnreadableEventError."""
        new = tuple.__new__  # StoredEvent(...) without its Python-level __new__
        return [new(StoredEvent, (n, state.event, state.digest)) for page in self._pages(game)
                for n, _, state in page]

    def stored(self, game: str, *, checked: bool = False) -> Iterator[StoredEvent]:
        """``load`` one event at a time, read a page at a time; ``checked``: the chain
        checked page by page on the way (BrokenChainError at the first page that fails,
        after the pages before it were given)."""
        new = tuple.__new__  # StoredEvent(...) without its Python-level __new__
        previous = GENESIS
        count = 0
        for page in self._pages(game):
            if checked:
                walked = intact_from(game, page, previous, count + 1)
                if walked is None or not topics_intact(page, count + 1):
                    problem = self._problem(game, page[-1][0])
                    assert problem is not None, "a chain that failed its quick pass fails verify_chain"
                    raise BrokenChainError(game, problem)
                previous, count = walked, count + len(page)
            for n, _, state in page:
                yield new(StoredEvent, (n, state.event, state.digest))

    def at(self, game: str, number: int) -> StoredEvent | None:
        """Event ``number`` of ``game`` as stored (the chain unchecked), or None."""
        found = self._decoded(game, self._rows(game, after=number - 1, upto=number))
        return StoredEvent(number, found[0][2].event, found[0][2].digest) if found else None

    def events(self, game: str) -> list[AnyEvent]:
        """The events of ``game`` in order, as stored (the chain unchecked), and nothing
        else of their rows: what judging them again keeps."""
        return [state.event for page in self._pages(game) for _, _, state in page]

    def read(self, game: str, *, upto: int | None = None, through_deal: int | None = None,
             digests: bool = True, marked: bool = False) -> Reading:
        """The events a reading command needs, with their hash chain checked.

        ``upto``: only events 1..upto. ``through_deal``: events until the first one that
        belongs to a later deal (included), read a page at a time, so that the end of
        deal K costs what it reads. A row that does not decode raises
        UnreadableEventError naming it; any other break of the chain is the reading's
        ``problem``. The event after the last one returned is checked too (when there
        is one): an edit of the last event shown, with its digest computed anew, breaks
        the link that the next event records. ``digests=False``: the events without
        their digests ("" each), for a command that shows none of them.

        The rows are read a page at a time and each page's chain checked as it comes
        (``chain.intact_from``): what is kept is the events, never the rows. Only a
        chain that fails is read again whole, to name its first problem.

        ``marked``: when the chain read holds and its event n is stored with the digest of
        the stream's judged mark (``backend.Mark``), which commits to events 1..n, the
        reading's ``judged`` is n (at most the events returned); else 0."""
        if upto is not None and upto > LAST_NUMBER:
            upto = None  # beyond any stream: all of it (and beyond what a database integer holds)
        last = None if upto is None else upto + 1
        new = tuple.__new__  # StoredEvent(...) without its Python-level __new__
        stored: list[StoredEvent] = []
        keep = stored.append
        previous: str | None = GENESIS
        count = vouched = 0
        mark = self._backend.mark(game_id(game)) if marked and self._backend.found() else None
        for page in self._pages(game, upto=last, page=self.READ_PAGE if through_deal is None else self.PAGE):
            if previous is not None:
                previous = intact_from(game, page, previous, count + 1)
                if not topics_intact(page, count + 1):
                    previous = None
            for number, _, state in page:
                keep(new(StoredEvent, (number, state.event, state.digest if digests else "")))
            if mark is not None and count < mark.judged <= count + len(page):
                number, _, state = page[mark.judged - count - 1]
                vouched = number if number == mark.judged and state.digest == mark.digest else 0
            count += len(page)
            if through_deal is not None and any(
                (state.event.deal or 0) > through_deal for number, _, state in page if number > 1
            ):
                break
        problem = None if previous is not None or not stored else self._problem(game, stored[-1].number)
        stored = stored if upto is None else stored[:upto]
        return Reading(stored, problem, judged=0 if problem is not None else min(vouched, len(stored)))

    def _problem(self, game: str, last: int) -> ChainProblem | None:
        """The first problem of a game's chain up to event ``last``, named as ``verify``
        names it (its rows read again whole: only a chain that failed comes here)."""
        return named_problem(game, self._rows(game, upto=last))

    def sound(self, game: str, what: StreamKind = "game") -> list[StoredEvent]:
        """All events of a stream whose chain checks out, as a command that records onto
        it or judges by it needs them ([] for a stream never stored); BrokenChainError
        names the first bad event (``what`` the kind of stream, for the message)."""
        reading = self.read(game)
        if reading.problem is not None:
            raise BrokenChainError(game, reading.problem, what)
        return reading.stored

    def head(self, game: str) -> StoredEvent | None:
        """The last event of a stream whose chain checks out (None for a stream never
        stored), the chain checked a page at a time and nothing kept: what a head
        digest needs, in the memory of one page whatever the length of the game.
        BrokenChainError names the first bad event."""
        last = None
        for last in self.stored(game, checked=True):
            pass
        return last

    def count(self, game: str) -> int:
        """How many events the game has (the number of its last event; 0 if unknown)."""
        last = self._rows(game, desc=True, limit=1)
        return last[0][0] if last else 0

    def tail(self, game: str, after: StoredEvent) -> list[StoredEvent] | None:
        """The events of ``game`` after ``after`` (an event the caller holds, its chain
        checked when it was read), each chained to the one before it from there; None
        when they do not chain (a reader then reads the whole game, which names why).
        What a caller that keeps a game loaded (``Ledger.renewed``) reads of another's
        writes: only the new rows."""
        rows = self._decoded(game, self._rows(game, after=after.number))
        link = linker(game, len(rows))
        previous, number = after.digest, after.number
        out: list[StoredEvent] = []
        for found, topic, state in rows:
            number += 1
            if (found != number or topic != RECORDED_TOPIC or isinstance(state.event, StreamStart)
                    or (state.link is not None and state.link != previous[:LINK_LENGTH])
                    or link(previous, number, state.event) != state.digest):
                return None
            out.append(StoredEvent(number, state.event, state.digest))
            previous = state.digest
        return out

    def name_of(self, stream: UUID) -> str | None:
        """The name of the stream with this id, from its first event (None: no such
        stream, or a first event that names another)."""
        if not self._backend.found():
            return None
        first = self._backend.select(stream, upto=1)
        return stream_owner(stream, first[0][2]) if first else None

    def last_change(self) -> int:
        """The position of the last stored event in store order (0: none): what a follower
        of the whole store (a live page's server) compares to know whether anything was
        written since it last looked."""
        return self._backend.last_change()

    def changes(self, after: int, limit: int = 1000) -> list[tuple[int, UUID, int]]:
        """The events stored after position ``after``, in store order, at most ``limit``:
        each as (position, stream id, number in its stream)."""
        return self._backend.changes(after, limit)

    # receipts: a write stored once however often it is sent

    @contextmanager
    def receipted(self, key: str, digest: str = "") -> Iterator[None]:
        """The next write within the block (the first ``append``/``append_all``) stores a
        receipt under ``key`` in its own transaction: the key, its stream (the first it
        writes) and the numbers of its events. When the key is stored already, the write
        is refused with ReceiptTaken and nothing is stored; ``receipt(key)`` then says what
        the first write stored. ``digest``: of what the client asked, kept with the key."""
        if not self._receipts:
            self.ensure_table()
            layout.make_kept(self._backend, RECEIPTS)
            self._receipts = True
        self._receipt = (key, digest)
        try:
            yield
        finally:
            self._receipt = None

    def receipt(self, key: str) -> Receipt | None:
        """The receipt stored under ``key``; None when no write was stored under it."""
        return self._backend.receipt(key)

    def games(self, kind: type[StreamStart] | tuple[type[StreamStart], ...] = StreamStart) -> list[str]:
        """The names of all stored streams whose first event is a ``kind`` (one type or
        several), sorted: every stream by default.

        Read from the rows numbered 1 (whatever their topic says): a row names a stream
        when it is a start in that stream's own id. A first row that no longer decodes,
        or sits in another stream, is left out; ``verify`` names it.
        """
        if not self._backend.found():
            return []
        owners = (stream_owner(stream, state, kind) for stream, state in self._backend.first_rows())
        return sorted({name for name in owners if name is not None})

    def verify(self, game: str) -> ChainProblem | None:
        """Check the game's stored rows against the hash chain; None when intact.

        Reads the raw rows in version order, so a row that no longer decodes, a gap,
        an inserted row, a reordering or a changed topic is reported by event number,
        never raised. A chain that holds is checked a page at a time, nothing kept; one
        that does not is read again whole to name its first problem.
        """
        try:
            self.head(game)
        except (BrokenChainError, UnreadableEventError):
            return named_problem(game, self._rows(game))
        return None

    def verified(self, game: str) -> tuple[list[AnyEvent], ChainProblem | None]:
        """What ``verify`` reads of a stream, in one read: its events, the chain checked a
        page at a time on the way (what judging them again needs: they are not read and
        decoded a second time); or, when the chain does not hold, no events and its first
        problem, named as ``verify`` names it."""
        try:
            events = chained_events(game, self._pages(game))
        except UnreadableEventError:
            events = None
        if events is not None:
            return events, None
        problem = self.verify(game)
        return ([] if problem is not None else self.events(game)), problem

    def verify_all(self) -> list[Verified]:
        """Check every stream in the events table, found by itself (not by a topic or
        a first row, which an edit could hide): each game's chain, and every stream
        that no game owns, sorted by name."""
        return [found if found.problem is not None else found._replace(problem=self.verify(found.name))
                for found in self.found_streams()]

    def found_streams(self) -> list[Verified]:
        """Every stream in the events table, sorted by name, as ``verify_all`` finds them,
        with the problem of a stream that no game owns (a game's own chain unchecked)."""
        if not self._backend.found():
            return []
        found = []
        for stream, count, first in self._backend.found_rows():
            name = stream_owner(stream, first)
            if name is not None:
                found.append(Verified(name, count, None))
                continue
            label = f"stream {stream}"
            found.append(Verified(label, count, ChainProblem(
                1, _("{stream} holds {events} but no game_started of its own as event 1: its first event was "
                     "deleted, edited or moved, or its rows were moved here (tampered?)").format(
                    stream=label, events=spoken_count(count, "event")))))
        return sorted(found)

    # writing

    def append(
        self, game: str, events: Sequence[AnyEvent], expected: int, previous: str | None = None,
        *, unchanged: Mapping[str, int] | None = None, judged: bool = False,
    ) -> list[StoredEvent]:
        """Store ``events`` as numbers ``expected + 1``..., all or nothing.

        ``previous`` is the digest of event ``expected`` when the caller has just read
        it; without it the store reads the game's last row. Raises ConcurrentWriteError
        when the game already has more than ``expected`` events (someone appended
        first), before or during the write. The first event of a game must be its
        ``game_started`` and no other may be. ``unchanged``: see ``append_all``;
        ``judged``: see ``Append``.
        """
        return self.append_all([Append(game, events, expected, previous, judged)], unchanged)[0]

    def append_all(
        self, appends: Sequence[Append], unchanged: Mapping[str, int] | None = None
    ) -> list[list[StoredEvent]]:
        """Store the events of several streams (each at most once) in one transaction:
        all of them, or none. What is stored of each, in the order given.

        ``unchanged``: streams the caller read to decide and does not write, each with
        the number of events it read. When one has another number by the time of the
        write (someone recorded into it meanwhile), nothing is stored and
        ConcurrentWriteError names it. The count is checked inside the write's
        transaction, under the store's write lock, which every writer takes: of two
        commands that each read the stream the other writes (a tour's close and a
        record at one of its tables), the second to write is refused; neither writes
        on what the other has made stale.
        """
        names = [a.game for a in appends]
        if len(set(names)) != len(names):
            raise ValueError(f"one transaction appends to a stream once: {names}")
        groups: list[tuple[UUID, Iterator[NewRow]]] = []
        stored: list[list[StoredEvent]] = []
        for append in appends:
            rows, done = self._rows_of(append)
            stored.append(done)
            if append.events:
                groups.append((game_id(append.game), rows))
        if not groups:
            return stored
        read = dict(unchanged or {})
        self.ensure_table()
        marks = self._marks(appends, stored)
        receipt = None
        if self._receipt is not None:
            first = next(a for a in appends if a.events)
            key, digest = self._receipt
            receipt = Receipt(key, first.game, first.expected + 1, first.expected + len(first.events), digest)
        pause("write")
        try:
            self._backend.insert(groups, [(game_id(name), count) for name, count in read.items()], receipt, marks)
        except StreamChanged as exc:
            name = next(name for name in read if game_id(name) == exc.stream)
            raise ConcurrentWriteError(name, read[name], exc.found, written=False) from None
        except ConflictError as exc:
            # A version is taken: someone appended between our read and our write.
            # Anything else that the database refused is a store error.
            for append in appends:
                found = self.count(append.game)
                if found > append.expected:
                    raise ConcurrentWriteError(append.game, append.expected, found) from None
            raise StoreError(_("cannot store events of {games} in {store}: {why}").format(
                games=", ".join(map(repr, names)), store=self.description, why=exc)) from None
        self._receipt = None  # one write per key
        return stored

    def _marks(self, appends: Sequence[Append], stored: list[list[StoredEvent]]) -> Iterator[Mark]:
        """The judged mark of each stream of ``appends`` the ledger judged, taken once the
        rows (which fill ``stored``) are written; none in a store of an earlier layout."""
        if any(a.judged and a.events for a in appends) and not self._marks_kept:
            self._marks_kept = self._backend.marks_kept(writing=True)  # before the write begins
        return (Mark(game_id(a.game), done[-1].number, done[-1].digest)
                for a, done in zip(appends, stored, strict=True) if self._marks_kept and a.judged and done)

    def _rows_of(self, append: Append) -> tuple[Iterator[NewRow], list[StoredEvent]]:
        """The rows that store ``append``, chained to the stream's last event, made one
        at a time as the backend writes them, and the events as stored (filled as the
        rows are made)."""
        game, events, expected, previous, _judged = append
        if expected < 0:
            raise ValueError(f"expected count cannot be negative: {expected}")
        for number, event in enumerate(events, start=expected + 1):
            if isinstance(event, StreamStart):
                if number != 1:
                    raise ValueError(f"game_started can only be event 1 of game {game!r}, not event {number}")
                if event.game != game:
                    raise ValueError(f"game_started of {event.game!r} cannot start game {game!r}")
            elif number == 1:
                raise ValueError(f"event 1 of game {game!r} must be game_started, not {event!r}")
        if not events:
            return iter(()), []

        if previous is None:
            head = self._head(game)
            found = head[0] if head else 0
            if found > expected:
                raise ConcurrentWriteError(game, expected, found)
            if found < expected:
                raise ValueError(f"game {game!r} has {found} events, fewer than the {expected} expected")
            previous = self._decoded(game, [head])[0][2].digest if head else GENESIS
        elif expected == 0 and previous != GENESIS:
            raise ValueError("the first event of a game follows the genesis digest")

        stored: list[StoredEvent] = []
        return made_rows(game, events, expected, previous, stored), stored

    @property
    def read_only(self) -> str | None:
        """Why this store, opened to read, could be opened only read-only (a SQLite file
        the command may not write, a full disk); None when it was opened as usual."""
        return getattr(self._backend, "read_only", None)

    def has_events_table(self) -> bool:
        """Whether the store has its events table (a store never written has none)."""
        return self._backend.found()

    def ensure_table(self) -> None:
        """Make the events table if it is missing, in a store opened to write: what the
        first write of a command does, and ``pulka init``."""
        if self._backend.found():
            return
        if not self._create:
            raise StoreError(_("the store {store} has no events table yet: run `pulka init`").format(
                store=self.description))
        self._backend.create()
        self.layout = layout.recorded(self._backend)

    @property
    def backend(self) -> Backend:
        """The database behind the store: its transactions (``backend.Transaction``) are what an
        upgrade (``layout.migrated``) and a copy of the store run."""
        return self._backend

    # lifetime

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._backend.close()

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

    def _head(self, game: str) -> RawRow | None:
        """The game's last stored row (what an append continues from)."""
        last = self._rows(game, desc=True, limit=1)
        return last[0] if last else None

    def _pages(self, game: str, *, upto: int | None = None, page: int | None = None) -> Iterator[list[tuple[int, str, State]]]:
        """The game's rows numbered up to ``upto`` (all without it), decoded, a page of
        ``page`` rows (``READ_PAGE``) at a time: a read never holds every raw row."""
        size = page or self.READ_PAGE
        after = 0
        while True:
            rows = self._rows(game, after=after, upto=upto, limit=size)
            if not rows:
                return
            yield self._decoded(game, rows)
            if len(rows) < size:
                return
            after = rows[-1][0]

    def _rows(
        self, game: str, *, after: int = 0, upto: int | None = None, limit: int | None = None,
        desc: bool = False,
    ) -> list[RawRow]:
        if not self._backend.found():
            return []
        stream = game_id(game)
        return self._backend.select(stream, after=after, upto=upto, limit=limit, desc=desc)

    def _decoded(self, game: str, rows: Sequence[RawRow]) -> list[tuple[int, str, State]]:
        if (read := pulka_rows(rows)) is not None:  # else not a pulka's page, or a row that does not decode
            return read
        decode = decode_state
        try:
            return [(number, topic, decode(state)) for number, topic, state in rows]
        except msgspec.DecodeError:
            pass
        for number, _topic, state in rows:  # which one, then
            try:
                decode(state)
            except msgspec.DecodeError as exc:
                raise UnreadableEventError(_(
                    "event {number} of game {game} in {store} cannot be read: {why}; "
                    "the database was changed outside pulka (see `pulka verify`)"
                ).format(number=number, game=repr(game), store=self.description, why=exc)) from None
        raise AssertionError("a row failed to decode once only")

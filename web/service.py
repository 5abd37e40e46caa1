"""The service's hold on the store: a store and a ledger per worker thread, each open
game's fold kept between requests, and every write stored once.

Work that reads or writes the store runs on worker threads (``run``), each with its own
``Store``, ``Ledger`` and ``Accounts`` (their connections are one thread's), so that the
event loop never waits on the database. The language and the other context of the
request go with the work (``contextvars``). The threads are three pools (``POOL``), so
that a write never waits in a queue behind reads: the writers' (every write, signing
in, a table's and an arbiter's reads), the readers' (what anyone may read without
signing in: a small pool with a bounded queue, a full queue answered ``Busy``, HTTP 503
with Retry-After, never a queue without end) and the live feed's (``live.Hub``: one
look and one document per version, whatever the number of its followers).

Each game a request touches is kept (``Ledger.keep``: its events and its fold) with a
lock of its own; every request on it first checks the stream's head (``Ledger.renewed``:
one count, and only the new events when another writer — the command line, a second
process — wrote since), so that recording a deal costs what the deal costs, whatever
the length of the pulka. A write names the version of the stream its client saw: when
the stream has moved on since, nothing is stored and the client is told (``Stale``,
HTTP 409) with the state as it is now. A write carries the key its client made for it:
stored with its events in their transaction (``Store.receipted``), so that the same
write sent again, to this process or another, after a restart or at the same moment,
is answered with what the first one stored (``Duplicate``) and never stored twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import hashlib
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgspec

from ledger.application import Kept, Ledger
from ledger.desks.pulka import PulkaDesk
from ledger.store.stored import ConcurrentWriteError
from ledger.store.event_store import Receipt, ReceiptTaken, Store
from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, GameStarted
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.tournament_events import parse_table_game
from projections.at_points import PointFolds
from web.accounts import Accounts

_ = language._  # every text a person reads, in the request's language

T = TypeVar("T")

KEY = re.compile(r"[A-Za-z0-9_.:-]{8,100}")  # a write's key, as a client makes it (a UUID, say)
CACHED = 256  # documents kept per process, each for one version of one stream
# Seconds a request waits for a connection of a PostgreSQL store that cannot be reached
# (restarting, down) before its 503: a phone keeps its entry and sends it again by itself
# (after 1, 2, 4, then every 8 s), so a short wait frees the worker thread and tells the
# phone soon; a connection to a database that answers is had in milliseconds.
POOL_WAIT = 3.0
KEPT_GAMES = 500  # games whose events and fold a process keeps between requests, the least recently used let go
CANONICAL = msgspec.json.Encoder(order="sorted")  # a request as its digest reads it: keys and fields sorted

# The worker seconds the request being served took so far (``run`` adds to it;
# ``limits.Bounded`` sets it for the requests it bounds): on the readers' pool the time it
# held a reader thread, whatever it did with it (its CPU, its waits on the database and on
# the interpreter's lock), as that is the share of the pool it took from the others.
CHARGED: contextvars.ContextVar[list[float] | None] = contextvars.ContextVar("charged", default=None)

ON_WRITERS, ON_READERS, ON_LIVE = "writers", "readers", "live"  # the pools (``Service.run``)
# The pool the request's work runs on: ``limits.Bounded`` sets ON_READERS for the reads anyone
# may make and ON_LIVE for a live page's first state (a document made once per version),
# ``live.Hub`` ON_LIVE for its looks; everything else is the writers'.
POOL: contextvars.ContextVar[str] = contextvars.ContextVar("pool", default=ON_WRITERS)
READ_THREADS = 2  # threads of the readers' pool: fewer than the writers', the interpreter's lock is shared
READ_QUEUE = 16  # reads waiting or being served at most; more are answered Busy
# Seconds a read waits to begin while writes are in flight, at most: the threads share
# the interpreter's lock, so a read running beside a write slows it whatever its pool;
# writes come and go in milliseconds, and a read begins in a gap between them.
READ_YIELD = 1.0


class Stale(Exception):
    """A write made on a version of the stream that is no longer its last: nothing was
    stored; ``found`` is the version now."""

    def __init__(self, game: str, seen: int, found: int) -> None:
        self.game, self.seen, self.found = game, seen, found
        super().__init__(_("not stored: {game} was changed by someone else (you saw {seen} events, it has {found} "
                           "now); here is the table as it is now: check it and enter again").format(
            game=game, seen=seen, found=found))


class Duplicate(Exception):
    """A write whose key is stored already: what the first write with it stored."""

    def __init__(self, receipt: Receipt) -> None:
        self.receipt = receipt
        super().__init__(f"stored already: {receipt.stream} events {receipt.first}-{receipt.last}")


class Busy(Exception):
    """The readers' pool and its queue are full: nothing was read; ask again in
    ``retry_after`` seconds (HTTP 503)."""

    def __init__(self, retry_after: float) -> None:
        self.retry_after = retry_after
        super().__init__(_("the service is answering as many reads as it can now; try again in a moment"))


class Reused(Exception):
    """A write whose key is stored already with another request: not the same write
    sent again, so nothing is stored and the client is told that its entry was not kept
    (HTTP 409), with the digests of both requests."""

    def __init__(self, receipt: Receipt, digest: str) -> None:
        self.receipt = receipt
        self.digest = digest
        super().__init__(_("not stored: the id {key} was used for another write (of other content) to {stream}; "
                           "a new write needs a new id").format(key=repr(receipt.key), stream=repr(receipt.stream)))


@dataclass
class Worker:
    """One worker thread's connections."""

    store: Store
    ledger: Ledger
    accounts: Accounts


@dataclass
class Table:
    """A game kept open by the service, with the lock its commands take in turn, and
    for a pulka its forks to read it at a point (``at_point``), made from ``kept``."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    kept: Kept | None = None
    points: PointFolds | None = None
    points_of: Kept | None = None


class Service:
    """The store as the service uses it, from its worker threads."""

    def __init__(self, db: str, threads: int = 8, kept_games: int = KEPT_GAMES, read_only: bool = False,
                 readers: int = READ_THREADS, read_queue: int = READ_QUEUE) -> None:
        self.db = db
        self.read_only = read_only  # the store served read-only: opened to read, nothing made in it
        self.kept_games = kept_games
        self.executor = ThreadPoolExecutor(threads, thread_name_prefix="pulka-serve")
        self.readers = Readers(readers, read_queue, Writing())
        self.live = ThreadPoolExecutor(1, thread_name_prefix="pulka-live")
        self._local = threading.local()
        self._workers: list[Worker] = []
        self._tables: OrderedDict[str, Table] = OrderedDict()  # the least recently used first
        self._tables_lock = threading.Lock()
        self._cache: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._cache_lock = threading.Lock()
        self.written: Callable[[], None] = lambda: None  # told after every write (``live.Hub.wake``)

    # -- the worker threads ---------------------------------------------------------------

    def worker(self) -> Worker:
        """This thread's store, ledger and accounts, opened on first use."""
        found: Worker | None = getattr(self._local, "worker", None)
        if found is None:
            store = Store(self.db, create=not self.read_only, pool_wait=POOL_WAIT)
            found = Worker(store, Ledger(store), Accounts(self.db, read_only=self.read_only, pool_wait=POOL_WAIT))
            self._local.worker = found
            with self._tables_lock:
                self._workers.append(found)
        return found

    async def run(self, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``work(*args, **kwargs)`` on a worker thread of the request's pool (``POOL``),
        in this request's context; the thread's time it took is charged to the request
        (``CHARGED``). On the readers' pool: Busy, at once, when its queue is full."""
        pool = POOL.get()
        if pool == ON_READERS:
            return await self.readers.run(work, *args, **kwargs)
        context = contextvars.copy_context()
        call = functools.partial(context.run, timed, work, *args, **kwargs)
        writing = self.readers.writing
        writing.began()  # counted from its place in the queue: no read begins while it waits
        try:
            return await asyncio.get_running_loop().run_in_executor(self.live if pool == ON_LIVE else self.executor,
                                                                    call)
        finally:
            writing.ended()

    def close(self) -> None:
        self.executor.shutdown(wait=True)
        self.readers.executor.shutdown(wait=True)
        self.live.shutdown(wait=True)
        for worker in self._workers:
            worker.store.close()
            worker.accounts.close()

    # -- kept games -----------------------------------------------------------------------

    def table(self, game: str) -> Table:
        """The game's table, kept as the most recently used; the least recently used
        whose lock nobody holds let go past ``kept_games`` (asked for again, a game let
        go is read again from the store: ``kept``)."""
        with self._tables_lock:
            found = self._tables.setdefault(game, Table())
            self._tables.move_to_end(game)
            excess = len(self._tables) - self.kept_games
            for name in list(self._tables) if excess > 0 else ():
                if excess <= 0:
                    break
                if name != game and not self._tables[name].lock.locked():
                    del self._tables[name]
                    excess -= 1
            return found

    @contextlib.contextmanager
    def locked(self, game: str) -> Iterator[Table]:
        """The game's table with its lock held: the one kept for it (a table let go
        between being found and being locked is kept again, or, when another has taken
        its place meanwhile, that one is locked instead), so that a game has one fold
        and one lock at a time."""
        while True:
            table = self.table(game)
            with table.lock:
                with self._tables_lock:
                    current = self._tables.setdefault(game, table)
                if current is table:
                    yield table
                    return

    def kept(self, game: str) -> tuple[Table, Kept]:
        """The game kept, brought up to the stream's head; call with its table's lock
        held. A name that is no game keeps nothing: its table is let go again, so that
        asking for games that do not exist costs no memory."""
        table = self.table(game)
        ledger = self.worker().ledger
        if table.kept is not None:
            table.kept = ledger.renewed(table.kept)
            return table, table.kept
        try:
            table.kept = ledger.keep(game)
        except BaseException:
            with self._tables_lock:
                if self._tables.get(game) is table and table.kept is None:
                    del self._tables[game]
            raise
        return table, table.kept

    def at_head(self, game: str, read: Callable[[Kept], T]) -> T:
        """``read(kept)`` on the game as it stands now, under its lock."""
        with self.locked(game):
            _, kept = self.kept(game)
            return read(kept)

    def at_point(self, game: str, read: Callable[[Kept, list[AnyEvent], PointFolds | None], T]) -> T:
        """``read(kept, events, points)`` on the game as it stands now, under its lock:
        ``points``, a pulka's forks to read it at any point (``projections.at_points``),
        kept from one read to the next and following the stream (None for another kind)."""
        with self.locked(game) as table:
            _, kept = self.kept(game)
            events = [s.event for s in kept.stored]
            first = events[0]
            if not isinstance(first, GameStarted):
                return read(kept, events, None)
            if table.points is None or table.points_of is not kept:  # a game loaded again starts afresh
                table.points, table.points_of = PointFolds(first), kept
            table.points.follow(events)
            return read(kept, events, table.points)

    def record(self, game: str, key: str | None, version: int | None, command: Callable[[PulkaDesk], T],
               digest: str = "", played_at: str | None = None) -> T:
        """``command`` on the desk of the kept game, stored once under ``key`` (with the
        ``digest`` of its request) and only while the game is at ``version``: Duplicate
        when ``key`` is stored already for this request, Reused when for another one,
        Stale when the game has moved on. ``played_at``: when it happened at the table
        (``PulkaDesk.played_at``)."""
        worker = self.worker()
        if key is not None:
            checked_key(key)
            done = worker.store.receipt(key)
            if done is not None:
                raise duplicate(done, game, digest)
        with self.locked(game):
            _, kept = self.kept(game)
            if version is not None and version != len(kept.stored):
                raise self.moved_on(worker, game, key, version, len(kept.stored))
            desk = PulkaDesk(worker.ledger, kept, played_at=played_at)
            try:
                if key is None:
                    result = command(desk)
                else:
                    with worker.store.receipted(key, digest):
                        result = command(desk)
            except ReceiptTaken:  # the kept fold is left as stored (``Ledger.execute``)
                done = worker.store.receipt(key or "")
                assert done is not None
                raise duplicate(done, game, digest) from None
            except ConcurrentWriteError:
                found = worker.store.count(game)
                raise self.moved_on(worker, game, key, version if version is not None else found, found,
                                    digest) from None
        self.written()
        return result

    @staticmethod
    def moved_on(worker: Worker, game: str, key: str | None, seen: int, found: int, digest: str = "") -> Exception:
        """The game has moved on since the client saw it: by this very write, sent again
        and stored meanwhile (Duplicate), or by another's (Stale)."""
        done = worker.store.receipt(key) if key is not None else None
        return duplicate(done, game, digest) if done is not None else Stale(game, seen, found)

    def once(self, key: str | None, write: Callable[[Worker], T], stream: str = "", digest: str = "") -> T:
        """A write that is not a game's (a tournament's, a new game), stored once under
        ``key`` with the ``digest`` of its request; ``stream``: the stream it creates or
        writes (a tournament's writes may begin with one of its tables)."""
        worker = self.worker()
        if key is None:
            result = write(worker)
        else:
            checked_key(key)
            done = worker.store.receipt(key)
            if done is not None:
                raise duplicate(done, stream, digest, tables=True)
            try:
                with worker.store.receipted(key, digest):
                    result = write(worker)
            except ReceiptTaken:
                done = worker.store.receipt(key)
                assert done is not None
                raise duplicate(done, stream, digest, tables=True) from None
        self.written()
        return result

    # -- documents cached per version -----------------------------------------------------

    def cached(self, key: tuple[Any, ...], make: Callable[[], T]) -> T:
        """The document ``make`` gives for ``key`` (which names a stream's version), made
        once per process while it is among the last ``CACHED`` asked for; once per
        language, as a drawn sheet or an audit's lines are in the reader's."""
        key = (*key, language.language())
        with self._cache_lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                found: T = self._cache[key]
                return found
        made = make()
        with self._cache_lock:
            self._cache[key] = made
            while len(self._cache) > CACHED:
                self._cache.popitem(last=False)
        return made


class Writing:
    """The work in flight on the writers' and the live feed's pools (waiting or being
    served), which a read waits for before it begins (``READ_YIELD`` at most)."""

    def __init__(self) -> None:
        self.count = 0
        self.waiting = 0  # reads waiting for a gap now
        self._changed = threading.Condition()

    def began(self) -> None:
        with self._changed:
            self.count += 1

    def ended(self) -> None:
        with self._changed:
            self.count -= 1
            if not self.count:
                self._changed.notify_all()

    def gap(self, most: float) -> None:
        """Return when nothing is in flight, or after ``most`` seconds."""
        with self._changed:
            self.waiting += 1
            try:
                self._changed.wait_for(lambda: not self.count, most)
            finally:
                self.waiting -= 1


class Readers:
    """The readers' pool: ``threads`` threads and at most ``queue`` reads waiting or
    being served; each read begins in a gap between writes (``Writing``) and is charged
    the time it held its thread once begun."""

    def __init__(self, threads: int, queue: int, writing: Writing) -> None:
        self.writing = writing
        self.executor = ThreadPoolExecutor(threads, thread_name_prefix="pulka-read")
        self.threads = threads
        self.queue = max(queue, threads)
        self.held = 0  # reads waiting or being served
        self.took = 0.1  # seconds a read held its thread, a moving mean (for Retry-After)
        self._lock = threading.Lock()

    async def run(self, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        with self._lock:
            if self.held >= self.queue:
                raise Busy(self.wait())
            self.held += 1
        context = contextvars.copy_context()
        future = self.executor.submit(context.run, self.elapsed, work, *args, **kwargs)
        future.add_done_callback(self.left)  # served, failed or cancelled before it began
        return await asyncio.wrap_future(future)

    def left(self, _future: Any) -> None:
        with self._lock:
            self.held -= 1

    def wait(self) -> float:
        """Seconds until the queue has room again, as reads take now."""
        return max(1.0, self.held * self.took / self.threads)

    def elapsed(self, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``work``, once no write is in flight, the time it held this thread then
        charged to the request (``CHARGED``)."""
        self.writing.gap(READ_YIELD)
        start = time.perf_counter()
        try:
            return work(*args, **kwargs)
        finally:
            took = time.perf_counter() - start
            self.took += (took - self.took) / 16
            charged = CHARGED.get()
            if charged is not None:
                charged[0] += took


def timed(work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``work``, its thread's CPU time charged to the request (``CHARGED``)."""
    start = time.thread_time()
    try:
        return work(*args, **kwargs)
    finally:
        charged = CHARGED.get()
        if charged is not None:
            charged[0] += time.thread_time() - start


def checked_key(key: str) -> None:
    if not KEY.fullmatch(key):
        raise Refused("api", _("a write's id is 8 to 100 letters, digits or _.:- (a UUID made by the client), "
                               "not {key}").format(key=repr(key[:40])), "a UUID", field="id")


def duplicate(receipt: Receipt, stream: str, digest: str = "", tables: bool = False) -> Exception:
    """The answer to a write whose key is stored: the first write's, when it was this
    very write (to this stream — or, with ``tables``, one of its tables — with the same
    request); Reused when the key was used with another request (a receipt of an earlier
    version, without a digest, is taken as the same); a refusal when it was used for
    another stream's write."""
    table = parse_table_game(receipt.stream)
    if receipt.stream != stream and not (tables and table is not None and table[0] == stream):
        return Refused("api", _("the id {key} was used for a write to {stream}, not to {game}").format(
            key=repr(receipt.key), stream=repr(receipt.stream), game=repr(stream)), "a new id", field="id")
    if receipt.digest and digest and receipt.digest != digest:
        return Reused(receipt, digest)
    return Duplicate(receipt)


def request_digest(*parts: Any) -> str:
    """The digest of a write's request: its route and what its body asks (as decoded,
    fields and keys in a fixed order), without its ``id`` and the ``version`` it was made
    on: a phone that sends an entry again may have moved it onto a newer version of the
    table, and it is the same entry."""
    asked = [{k: v for k, v in msgspec.to_builtins(part).items() if k not in ("id", "version")}
             if isinstance(part, msgspec.Struct) else part for part in parts]
    return hashlib.sha256(CANONICAL.encode(asked)).hexdigest()

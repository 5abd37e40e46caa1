"""Live pages: the store's change feed as server-sent events, per game and per tournament.

The hub follows the store in store order (``Store.changes``: every stored event's
position, stream and number) from where it started. It looks when it is woken: by the
service's own writes at once (``Service.written``), by PostgreSQL's notification of
every write of any process (eventsourcing's recorder sends ``NOTIFY pulka_events`` in
the writing transaction; a thread of the hub ``LISTEN``s), and by a cheap poll of the
store's last position (``Store.last_change``: one indexed ``MAX``) for writers that
notify nobody, such as the command line on SQLite. PostgreSQL is polled too, more
rarely, in case a notification was missed while its connection was down.

Each change is told to the subscribers of its stream and, for a table of a tournament
(``T/R/K``), to the tournament's: at most one message per stream per look, the
stream's last version, with the document a page shows, made and encoded once per
version for every subscriber (``document``: the bytes each event stream sends). A
subscriber that asked for deltas (the pages) is sent what changed since the version
told before (``game_delta``: the page that holds it applies it; a page that holds
another asks for the whole game), so a push costs the same at deal 400 as at deal 10;
the others the whole game, as before, made only when one of them follows. A subscriber
slow to read is sent only the latest message of each stream, never a queue that grows.
Each subscriber is told in its own request's language (``Subscriber.language``, the
language in effect when it subscribed): the documents hold texts a person reads (a
deal's line, a verdict), so one is made per language its followers read, not once in
the language of the hub's own task.

The hub's work on the store runs on a pool of its own (``service.ON_LIVE``), and it
tells its subscribers ``SLICE`` at a time, giving the event loop back between slices:
a write's answer, ready meanwhile, is sent between two slices of a thousand spectators,
not after them all.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from collections.abc import Awaitable, Callable
from uuid import UUID

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from ledger.store.backend import is_postgres_url, parse_postgres_url, reason, unreachable
from ledger.vocabulary.language import language, using
from ledger.vocabulary.tournament_events import parse_table_game
from web.service import ON_LIVE, POOL, Service

log = logging.getLogger("pulka.serve")

POLL_SQLITE = 0.2  # seconds between looks at a SQLite store's last position
POLL_POSTGRES = 2.0  # PostgreSQL notifies; this only covers a notification missed
CHANNEL = "pulka_events"  # eventsourcing's recorder notifies on its table's name
SLICE = 64  # subscribers told between two turns of the event loop


class Subscriber:
    """One open event stream: the latest message of each stream not yet sent."""

    def __init__(self, streams: set[str], deltas: bool = False) -> None:
        self.streams = streams
        self.deltas = deltas  # sent what changed since the version told before, not the whole game
        self.language = language()  # the subscribing request's: what it is told is in its language
        self.pending: dict[str, bytes] = {}
        self.ready = asyncio.Event()
        self.ended = False  # its client has gone, or the service stops

    def tell(self, stream: str, message: bytes) -> None:
        self.pending[stream] = message  # the latest only: one not sent yet is replaced
        self.ready.set()

    def end(self) -> None:
        self.ended = True
        self.ready.set()

    async def next(self, ping: float) -> list[bytes] | None:
        """The messages told since the last call, as soon as there are any; nothing
        after ``ping`` seconds without one (a keep-alive is due); None once it has ended.
        A timer of the loop wakes it, not a task of its own."""
        if not self.ready.is_set():
            timer = asyncio.get_running_loop().call_later(ping, self.ready.set)
            try:
                await self.ready.wait()
            finally:
                timer.cancel()
        self.ready.clear()
        if self.ended:
            return None
        pending, self.pending = self.pending, {}
        return list(pending.values())


LINE_BREAKS = re.compile(r"\r\n|\r|\n")


def event_message(event: str, data: str) -> bytes:
    """One server-sent event (HTML, "Server-sent events", the event stream's format): its
    type, its data a ``data:`` line for each line of ``data``; each line ended by CRLF
    and the event by an empty line."""
    lines = "".join(f"data: {line}\r\n" for line in LINE_BREAKS.split(data))
    return f"event: {event}\r\n{lines}\r\n".encode()


PING_COMMENT = b": ping\r\n\r\n"  # a keep-alive (a comment line, which a page's EventSource ignores)
STREAM_HEADERS = {"cache-control": "no-store", "x-accel-buffering": "no"}  # nginx passes it on at once


class Followed(Response):
    """A live page's event stream (``text/event-stream``, HTML's server-sent events):
    the states given first, then what its subscriber is told, a keep-alive comment
    after ``ping_interval`` seconds without one; until its client goes, or the service
    stops (``Hub.end_all``). Besides its request's own task, one task that waits for
    the client's going; no task group, no timer a message: a thousand spectators of one
    table are told a deal in little more than a thousand writes to their sockets cost.
    With ``sse-starlette``'s response a stream had four tasks in a task group and a
    cancel scope around every send: 176 objects the collector tracks a stream against
    31 here, and 57 µs of the service's CPU a message to a crowd against 47 (issue 30,
    (b); README, "Speed")."""

    media_type = "text/event-stream"

    def __init__(self, hub: Hub, subscriber: Subscriber, first: list[bytes], ping: float) -> None:
        self.hub, self.subscriber, self.first, self.ping_interval = hub, subscriber, first, ping
        self.status_code = 200
        self.background = None
        self.init_headers(STREAM_HEADERS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        subscriber = self.subscriber
        watch = None
        try:
            await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
            if scope.get("method") == "HEAD":  # the headers alone: a stream that never ends is not a HEAD's answer
                await send({"type": "http.response.body", "body": b""})
                return
            watch = asyncio.get_running_loop().create_task(gone(receive, subscriber))
            sent: list[bytes] | None = self.first
            while sent is not None:
                for message in sent or (PING_COMMENT,):
                    await send({"type": "http.response.body", "body": message, "more_body": True})
                sent = await subscriber.next(self.ping_interval)
            if not watch.done():  # the service stops (not its client gone): the answer ends
                await send({"type": "http.response.body", "body": b""})
        finally:
            if watch is not None:
                watch.cancel()
            self.hub.unsubscribe(subscriber)


async def gone(receive: Receive, subscriber: Subscriber) -> None:
    """Waits for the client to go, then ends its stream."""
    while (await receive())["type"] != "http.disconnect":
        pass
    subscriber.end()


Document = Callable[[str, int, int | None], Awaitable[bytes | None]]  # stream, version, the version told before


def by_language(subscribers: list[Subscriber]) -> dict[str, list[Subscriber]]:
    """``subscribers`` grouped by the language each reads, in the order first seen."""
    groups: dict[str, list[Subscriber]] = {}
    for subscriber in subscribers:
        groups.setdefault(subscriber.language, []).append(subscriber)
    return groups


class Hub:
    """The change feed of one store, told to the pages that follow its streams."""

    def __init__(self, service: Service, document: Document) -> None:
        self.service = service
        self.document = document  # the message for a stream at a version, as sent (``app.live_state``)
        self.told: dict[str, int] = {}  # each followed stream's version told last: the base of the next message
        self.position = 0
        self.names: dict[UUID, str | None] = {}
        self.subscribers: dict[str, set[Subscriber]] = {}
        self._wake = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = threading.Event()
        self.postgres = is_postgres_url(service.db)

    # -- running ----------------------------------------------------------------------

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.position = await self.service.run(lambda: self.service.worker().store.last_change())
        self.service.written = self.wake
        if self.postgres:
            threading.Thread(target=self._listen, name="pulka-listen", daemon=True).start()
        self._task = asyncio.create_task(self._follow())

    async def stop(self) -> None:
        """End the follower. Its cancellation alone may not end it: on Python 3.11,
        ``asyncio.wait_for`` swallows a cancellation that arrives as the awaited wake
        is set (a write told by another thread at that moment), and the follower would
        go on looking for ever while the service waits for it to end. So the stop is
        also a flag the follower looks at, and a wake."""
        self._stop.set()
        self._wake.set()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    def wake(self) -> None:
        """Look at the store now (from any thread)."""
        if self._loop is not None and not self._stop.is_set():
            try:
                self._loop.call_soon_threadsafe(self._wake.set)
            except RuntimeError:  # the loop has closed: the service is stopping
                pass

    async def _follow(self) -> None:
        POOL.set(ON_LIVE)  # this task's own context: its looks never wait behind the writers or the readers
        poll = POLL_POSTGRES if self.postgres else POLL_SQLITE
        while not self._stop.is_set():
            try:
                await asyncio.wait_for(self._wake.wait(), poll)
            except TimeoutError:
                pass
            if self._stop.is_set():
                return
            self._wake.clear()
            before = self.position
            try:
                await self.look()
            except Exception as exc:  # noqa: BLE001 - the feed must outlive a store that is down for a while
                if not unreachable(exc):
                    log.exception("cannot follow the store's changes")
                else:  # a restart: the listener connects again and wakes it
                    log.warning("the live feed lost the database: %s; listening again", reason(exc))
                self.position = before  # what the failed look read is told at the next

    async def look(self) -> None:
        """Tell the subscribers what was stored since the last look."""
        changes = await self.service.run(self._changes)
        if not changes:
            return
        last: dict[str, int] = {}
        for name, number in changes:
            last[name] = max(last.get(name, 0), number)
        for name, number in last.items():
            followers = [name]
            table = parse_table_game(name)
            if table is not None:
                followers.append(table[0])
            told = [s for f in followers for s in self.subscribers.get(f, ())]
            await self.tell_version(name, number, [s for s in told if s.deltas], [s for s in told if not s.deltas])

    async def tell_version(self, name: str, number: int, deltas: list[Subscriber], whole: list[Subscriber]) -> None:
        """Version ``number`` of stream ``name``: what changed since the version told
        before to ``deltas``, the whole document to ``whole``; each made once."""
        since = self.told.pop(name, None)
        if deltas:
            self.told[name] = number  # the base of the next delta (nobody holds it when no one follows)
        for group, base in ((deltas, since), (whole, None)):
            for lang, readers in by_language(group).items():
                with using(lang):  # the document's texts in its readers' language (made on a worker in this context)
                    message = await self.document(name, number, base)
                if message is not None:
                    await self.tell(readers, name, message)

    @staticmethod
    async def tell(subscribers: list[Subscriber], name: str, message: bytes) -> None:
        """``message`` to each of ``subscribers``, ``SLICE`` at a time, the event loop
        given back between slices (what became ready meanwhile, a write's answer, is
        sent before the next slice)."""
        for start in range(0, len(subscribers), SLICE):
            if start:
                await asyncio.sleep(0)
            for subscriber in subscribers[start:start + SLICE]:
                subscriber.tell(name, message)

    def _changes(self) -> list[tuple[str, int]]:
        """The (stream, number) of every event after the position looked at last (on a
        worker thread): nothing at all when the last position has not moved."""
        store = self.service.worker().store
        if store.last_change() <= self.position:
            return []
        out = []
        while True:
            page = store.changes(self.position)
            for position, stream, number in page:
                if stream not in self.names:
                    self.names[stream] = store.name_of(stream)
                name = self.names[stream]
                if name is not None:
                    out.append((name, number))
                self.position = position
            if len(page) < 1000:
                return out

    def _listen(self) -> None:
        """PostgreSQL's notifications of writes, each a wake (a thread of its own, with a
        connection of its own, connected again after a failure)."""
        import psycopg

        address = parse_postgres_url(self.service.db)
        while not self._stop.is_set():
            try:
                with psycopg.connect(autocommit=True, connect_timeout=10, fallback_application_name="pulka serve listen",
                                     **address.connect_kwargs()) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.wake()  # what was written while not listening
                    while not self._stop.is_set():
                        for _ in conn.notifies(timeout=1.0, stop_after=1):
                            self.wake()
            except psycopg.Error as exc:
                log.warning("listening for the store's notifications: %s; again in a second", type(exc).__name__)
                self._stop.wait(1.0)

    # -- subscribing --------------------------------------------------------------------

    def subscribe(self, streams: set[str], deltas: bool = False, at: int | None = None) -> Subscriber:
        """A subscriber to ``streams``; one that asked for ``deltas`` and was sent their
        version ``at`` first is the base of the next delta when nothing was told since."""
        subscriber = Subscriber(streams, deltas)
        if deltas and at is not None:
            for stream in streams:
                self.told.setdefault(stream, at)
        for stream in streams:
            self.subscribers.setdefault(stream, set()).add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        for stream in subscriber.streams:
            followers = self.subscribers.get(stream)
            if followers is not None:
                followers.discard(subscriber)
                if not followers:
                    del self.subscribers[stream]

    def end_all(self) -> None:
        """Every open stream ended (the service stops: each sends its end and closes,
        not waited for until the server's grace is spent)."""
        for followers in list(self.subscribers.values()):
            for subscriber in list(followers):
                subscriber.end()

    def followers(self) -> int:
        return len({s for group in self.subscribers.values() for s in group})

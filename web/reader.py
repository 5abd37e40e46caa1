"""The reader process: what anyone may read, made in a process of its own.

A service process shares one interpreter lock among all its threads: a write that comes
back from the store waits for the lock behind whatever holds it, and a collection of the
cyclic garbage stops every thread. So an anonymous client drawing sheets at points in
time as fast as its budget lets it (``limits``) slowed the tables' writes in the same
process, however its threads were pooled (issues 29 and 30). So each service process
starts one child, the reader (``pulka serve``'s default; ``--no-read-process`` keeps one
process), and hands it the reads and pages anyone may ask for:

- the service process keeps the door: it admits the request (``limits.Bounded``: the
  address's budget, its requests at once), then forwards it (``Reader.forward``) over a
  Unix socket of its own to the reader, which makes the answer with its own store
  connections, kept games and interpreter; the address is charged the reader's work
  (its readers' pool's time, as the service charges its own reads) and the request's fee;
- the hand-over is a message of our own (``ForwardedRequest``, ``ReaderAnswer``: msgpack,
  each after its length) on connections kept open, not HTTP: the service's part of a
  forwarded read is to encode the request's parts and send on the answer, so a forwarded
  read costs the service less than the cheapest read made in place (0.6–0.7 ms of its
  CPU against 0.8–1.0, most of it the request's HTTP and the middleware every request
  pays; through an HTTP client the forward alone had cost it 1.9 ms, and a crowd of
  cheap reads cost the writers more forwarded than made in place);
- only requests without a session are forwarded: those of the club's signed-in people
  (a scorer, an arbiter, a director) are answered where their session lives, as are the
  event streams (the live feed is the service's), the service's files and its health;
- the reader sees every write of the service as another process's: each read first
  checks the stream's head (``Service.kept``), so it is never behind the store;
- the service opens its port once its reader is up (``STARTING`` seconds at most); a
  reader that is not up yet, has ended, or fails to answer leaves its requests to the
  service process itself (as with ``--no-read-process``), while it is started again
  (after 1, 2, 4 … 30 s); it ends with the service process, and by itself when that
  one is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import socket
import struct
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TypeVar

import msgspec
from starlette.types import Scope, Send

log = logging.getLogger("pulka.serve")
E = TypeVar("E")

READER_ENV = "PULKA_READER_SETTINGS"  # the settings of the service, handed to its reader
READY = b"ready\n"  # what the reader says on its standard output once it serves
FORWARDED_METHODS = frozenset({"GET", "HEAD"})  # the methods handed to the reader: those that write nothing
# Headers of one hop (RFC 9110 7.6.1), and those that say where a request came from, which
# the reader is told by the service alone (never taken from the client).
HOP = frozenset({b"connection", b"keep-alive", b"proxy-connection", b"te", b"trailer", b"transfer-encoding",
                 b"upgrade", b"x-forwarded-for", b"x-forwarded-proto", b"x-forwarded-host", b"forwarded"})
CONNECTIONS = 64  # connections to the reader at most, each a request at a time (kept open between them)
RESTARTS = (1.0, 2.0, 4.0, 8.0, 16.0, 30.0)  # seconds before the reader is started again, in turn
STEADY = 60.0  # seconds a reader served for its restarts to count from the first wait again
STARTING = 20.0  # seconds the service waits for its reader to be up before it opens its port, at most
# Seconds the service waits for the reader's answer before answering itself (and starting
# the reader again: one that does not answer for so long is stuck).
TIMEOUT = 30.0


class Reader:
    """The service process's hold on its reader: started with the service
    (``start``), forwarded the anonymous reads while it is up (``forward``), started
    again when it ends, stopped with the service (``stop``)."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self.settings = settings  # the service's (``web.app.Settings``), as the reader is made with them
        self.ready = False
        self.pid: int | None = None
        self.started = 0  # readers started so far: 1, then one more each time one ended
        self.forwarded = 0  # requests the reader answered
        self.timeout = TIMEOUT
        self._folder: Path | None = None
        self._socket: socket.socket | None = None
        self._path = ""
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []  # connections kept open
        self._slots = asyncio.Semaphore(CONNECTIONS)
        self._process: asyncio.subprocess.Process | None = None
        self._watch: asyncio.Task[None] | None = None
        self._stopping = False
        self._up = asyncio.Event()  # set once the first reader is up

    async def start(self) -> None:
        """The reader's socket bound and listening (connections wait there until the
        reader accepts them), the reader started and watched."""
        self._folder = Path(tempfile.mkdtemp(prefix="pulka-reader-"))  # 0700: this user's alone
        self._path = str(self._folder / "reader.sock")
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._socket.bind(self._path)
        self._socket.listen(128)
        self._socket.set_inheritable(True)
        self._watch = asyncio.get_running_loop().create_task(self.watched())
        try:  # the service opens its port once its reader is up: no start-up with both at work
            await asyncio.wait_for(self._up.wait(), STARTING)
        except asyncio.TimeoutError:
            log.warning("the reader process is not up after %g s: the service makes the anonymous reads itself until "
                        "it is", STARTING)

    async def watched(self) -> None:
        """The reader kept running: started, and started again when it ends (after
        ``RESTARTS``), until the service stops."""
        waits = 0
        while not self._stopping:
            began = time.monotonic()
            try:
                await self.run_one()
            except OSError as exc:
                log.warning("the reader process could not be started: %s", exc)
            if self._stopping:
                return
            waits = 0 if time.monotonic() - began > STEADY else waits
            wait = RESTARTS[min(waits, len(RESTARTS) - 1)]
            waits += 1
            log.warning("the reader process ended: the service makes the anonymous reads itself until it is "
                        "back, in %g s", wait)
            await asyncio.sleep(wait)  # a restart's back-off, not a timing anything measures

    async def run_one(self) -> None:
        """One reader, from its start to its end."""
        assert self._socket is not None
        fd = self._socket.fileno()
        env = {**os.environ, READER_ENV: json.dumps(self.settings)}
        self._process = process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "web.reader_process", str(fd), str(os.getpid()), env=env, pass_fds=(fd,),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE)
        self.pid, self.started = process.pid, self.started + 1
        try:
            assert process.stdout is not None
            if await process.stdout.readline() == READY:
                self.ready = True
                self._up.set()
                log.info("the reader process %s makes what anyone may read", process.pid)
            await process.wait()
        finally:
            self.ready = False
            self.dropped()

    async def stop(self) -> None:
        """The reader ended (asked, then made to), its socket and folder removed."""
        self._stopping, self.ready = True, False
        process = self._process
        if process is not None and process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 5)
            except asyncio.TimeoutError:
                process.kill()
                await process.wait()
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
        self.dropped()
        if self._socket is not None:
            self._socket.close()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)

    async def forward(self, scope: Scope, send: Send) -> float | None:
        """The request answered by the reader: the seconds of work it took there (its
        readers' pool's, as ``Service.run`` charges them); or None, nothing sent: the
        reader is not up, or failed to answer, and the service answers itself."""
        if not self.ready or scope["method"] not in FORWARDED_METHODS:
            return None
        client, server = scope.get("client"), scope.get("server")
        asked = ForwardedRequest(
            scope["method"], scope["path"], scope.get("raw_path") or scope["path"].encode("utf-8"),
            scope.get("query_string", b""), [(k, v) for k, v in scope["headers"] if k.lower() not in HOP],
            (client[0], client[1]) if client else ("127.0.0.1", 0), scope.get("scheme", "http"),
            scope.get("http_version", "1.1"), (server[0], server[1] or 0) if server else None)
        async with self._slots:
            started = self.started
            try:
                connection = self._idle.pop() if self._idle else await asyncio.open_unix_connection(self._path)
            except OSError as exc:
                log.warning("the reader process could not be reached (%s): the service answers itself", exc)
                return None
            into, out = connection
            try:
                out.write(framed(asked))
                answer = READ_ANSWER.decode(await asyncio.wait_for(frame_read(into), self.timeout))
            except asyncio.TimeoutError:
                out.close()
                log.warning("the reader process did not answer in %g s: it is started again, the service answers "
                            "itself", self.timeout)
                if self._process is not None and self._process.returncode is None:
                    self._process.kill()  # stuck: started again by its watch
                return None
            except (OSError, EOFError, msgspec.DecodeError) as exc:
                out.close()
                log.warning("the reader process did not answer (%s): the service answers itself", type(exc).__name__)
                return None
            if started == self.started and self.ready:
                self._idle.append(connection)  # kept for the next request (a new reader's are opened afresh)
            else:
                out.close()
        await send({"type": "http.response.start", "status": answer.status, "headers": answer.headers})
        await send({"type": "http.response.body", "body": answer.body})
        self.forwarded += 1
        return answer.worked

    def dropped(self) -> None:
        """The connections kept to a reader that has ended closed."""
        for _into, out in self._idle:
            out.close()
        self._idle.clear()


class ForwardedRequest(msgspec.Struct, array_like=True):
    """A request as the service hands it to its reader: the ASGI scope's parts that
    make its answer (the client's address and scheme are the service's to tell)."""

    method: str
    path: str
    raw_path: bytes
    query_string: bytes
    headers: list[tuple[bytes, bytes]]
    client: tuple[str, int]
    scheme: str
    http_version: str
    server: tuple[str, int] | None

    def scope(self) -> Scope:
        """The ASGI scope of the request, in the reader."""
        return {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": self.http_version,
                "method": self.method, "scheme": self.scheme, "path": self.path, "raw_path": self.raw_path,
                "query_string": self.query_string, "root_path": "", "headers": self.headers,
                "client": self.client, "server": self.server}


class ReaderAnswer(msgspec.Struct, array_like=True):
    """The reader's answer: its status, headers and whole body, and the seconds of work
    it took there, charged to the address (``limits.Bounded``)."""

    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes
    worked: float


READ_REQUEST, READ_ANSWER = msgspec.msgpack.Decoder(ForwardedRequest), msgspec.msgpack.Decoder(ReaderAnswer)
ENCODER = msgspec.msgpack.Encoder()
LENGTH = struct.Struct(">I")  # each message is its length (4 bytes, big-endian), then itself


def framed(message: ForwardedRequest | ReaderAnswer) -> bytes:
    body = ENCODER.encode(message)
    return LENGTH.pack(len(body)) + body


async def frame_read(stream: asyncio.StreamReader) -> bytes:
    """One message from ``stream`` (``asyncio.IncompleteReadError``, an EOFError, when the
    other end closed: between messages, or within one)."""
    head = await stream.readexactly(LENGTH.size)
    return await stream.readexactly(LENGTH.unpack(head)[0])


def forwarded_here(scope: Scope) -> bool:
    """Whether the request may be made by the reader: it has no session (the club's
    signed-in people are answered where their session lives)."""
    return not scope.get("session")


def in_process(endpoint: E) -> E:
    """A route anyone may read that the service process answers itself, never its
    reader: what only it knows (its live feed's followers, say)."""
    endpoint.in_process = True  # type: ignore[attr-defined]
    return endpoint

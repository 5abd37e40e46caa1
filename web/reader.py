"""The reader process: what anyone may read, made in a process of its own.

A service process shares one interpreter lock among all its threads: a write that comes
back from the store waits for the lock behind whatever holds it, and a collection of the
cyclic garbage stops every thread. So an anonymous client drawing sheets at points in
time as fast as its budget lets it (``limits``) slowed the tables' writes in the same
process, however its threads were pooled (issues 29 and 30). With ``--read-process``
each service process starts one child, the reader, and hands it the reads and pages
anyone may ask for (not yet ``pulka serve``'s default: a forwarded read is charged the
time from its hand-over to its answer, which keeps a crowd of anonymous readers from
flooding the service with forwards, but charges a cheap read some times what it costs
in the service process, and a visitor opening page after page meets the budget
sooner; README, "Speed"):

- the service process keeps the door: it admits the request (``limits.Bounded``: the
  address's budget, its requests at once), then forwards it (``Reader.forward``) over a
  Unix socket of its own to the reader, which makes the answer with its own store
  connections, kept games and interpreter; the address is charged the time from the
  hand-over to the answer (the reader runs below its service: on a busy machine its
  reads take longer, and an address gets fewer);
- only requests without a session are forwarded: those of the club's signed-in people
  (a scorer, an arbiter, a director) are answered where their session lives, as are the
  event streams (the live feed is the service's), the service's files and its health;
- the reader sees every write of the service as another process's: each read first
  checks the stream's head (``Service.kept``), so it is never behind the store;
- the service opens its port once its reader is up (``STARTING`` seconds at most); a
  reader that is not up yet, has ended, or fails to answer leaves its requests to the
  service process itself (as without ``--read-process``), while it is started again
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
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.types import ASGIApp, Receive, Scope, Send

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("pulka.serve")
E = TypeVar("E")

READER_ENV = "PULKA_READER_SETTINGS"  # the settings of the service, handed to its reader
READY = b"ready\n"  # what the reader says on its standard output once it serves
FORWARDED_METHODS = frozenset({"GET", "HEAD"})  # the methods handed to the reader: those that write nothing
# Headers of one hop (RFC 9110 7.6.1), and those that say where a request came from, which
# the reader is told by the service alone (never taken from the client).
HOP = frozenset({b"connection", b"keep-alive", b"proxy-connection", b"te", b"trailer", b"transfer-encoding",
                 b"upgrade", b"x-forwarded-for", b"x-forwarded-proto", b"x-forwarded-host", b"forwarded"})
OWN = frozenset({b"date", b"server"})  # the reader's own: the service's server sets them
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
        self._client: httpx.AsyncClient | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._watch: asyncio.Task[None] | None = None
        self._stopping = False
        self._up = asyncio.Event()  # set once the first reader is up

    async def start(self) -> None:
        """The reader's socket bound and listening (connections wait there until the
        reader accepts them), the reader started and watched."""
        import httpx

        logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per forwarded request
        self._folder = Path(tempfile.mkdtemp(prefix="pulka-reader-"))  # 0700: this user's alone
        path = self._folder / "reader.sock"
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._socket.bind(str(path))
        self._socket.listen(128)
        self._socket.set_inheritable(True)
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=16)
        self._client = httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(uds=str(path), limits=limits),
                                         base_url="http://reader", timeout=TIMEOUT)
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
        if self._client is not None:
            await self._client.aclose()
        if self._socket is not None:
            self._socket.close()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)

    async def forward(self, scope: Scope, send: Send) -> bool:
        """The request answered by the reader (True), or nothing sent (False): the
        reader is not up, or failed to answer; the service then answers it itself."""
        if not self.ready or self._client is None or scope["method"] not in FORWARDED_METHODS:
            return False
        import httpx

        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in HOP]
        client = scope.get("client")
        headers += [(b"x-forwarded-proto", scope.get("scheme", "http").encode("latin-1")),
                    (b"x-forwarded-for", (client[0] if client else "127.0.0.1").encode("latin-1"))]
        target = scope.get("raw_path") or scope["path"].encode("utf-8")
        if scope.get("query_string"):
            target += b"?" + scope["query_string"]
        try:
            request = self._client.build_request(scope["method"], target.decode("latin-1"), headers=headers,
                                                 timeout=self.timeout)
            answer = await self._client.send(request, stream=True)
            try:
                body = b"".join([chunk async for chunk in answer.aiter_raw()])
            finally:
                await answer.aclose()
        except httpx.HTTPError as exc:
            log.warning("the reader process did not answer (%s): the service answers itself", type(exc).__name__)
            if isinstance(exc, httpx.ReadTimeout) and self._process is not None and self._process.returncode is None:
                self._process.kill()  # a reader stuck for TIMEOUT seconds is started again
            return False
        kept = [(k, v) for k, v in answer.headers.raw if k.lower() not in HOP and k.lower() not in OWN]
        await send({"type": "http.response.start", "status": answer.status_code, "headers": kept})
        await send({"type": "http.response.body", "body": body})
        self.forwarded += 1
        return True


def forwarded_here(scope: Scope) -> bool:
    """Whether the request may be made by the reader: it has no session (the club's
    signed-in people are answered where their session lives)."""
    return not scope.get("session")


class ReaderPool:
    """In the reader: every request's work on the readers' pool (its queue bounded, a
    full one answered 503: ``Service.run``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from web.service import ON_READERS, POOL

        token = POOL.set(ON_READERS)
        try:
            await self.app(scope, receive, send)
        finally:
            POOL.reset(token)


def in_process(endpoint: E) -> E:
    """A route anyone may read that the service process answers itself, never its
    reader: what only it knows (its live feed's followers, say)."""
    endpoint.in_process = True  # type: ignore[attr-defined]
    return endpoint

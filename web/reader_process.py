"""The reader process itself (``web.reader``): the service's application made to answer
what its service forwards (``ForwardedRequest``, answered ``ReaderAnswer``), on the socket its service
bound."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import sys
from typing import Any

from starlette.types import ASGIApp, Message

from web.reader import READ_REQUEST, READER_ENV, READY, ReaderAnswer, ForwardedRequest, framed, frame_read
from web.service import CHARGED, ON_READERS, POOL

log = logging.getLogger("pulka.serve")

# How much lower than its service the reader runs for the system's scheduler (``os.nice``):
# where both want a core, the tables' writes, the live pages and the door of the service
# process come first, and anonymous reads take what is left.
NICE = 10


def run_reader() -> None:
    """The reader: ``python -m web.reader_process FD PARENT``, the service's settings in
    ``READER_ENV``; it answers on the socket of descriptor FD, says ``READY`` once it
    does, and ends on SIGTERM, or when the service process PARENT is gone."""
    from web.process import outlived
    from web.serve import app_from_settings

    fd, parent = int(sys.argv[1]), int(sys.argv[2])
    outlived(parent)
    given = json.loads(os.environ.pop(READER_ENV))
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    app = app_from_settings({**given, "read_process": False, "reader": True})  # as a service process's, a reader's
    asyncio.run(serving(app, socket.socket(fileno=fd)))


async def serving(app: Any, listening: socket.socket) -> None:
    """``app`` started (its lifespan), answering every connection to ``listening`` until
    a SIGTERM or SIGINT, then stopped."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    async with app.router.lifespan_context(app):
        server = await asyncio.start_unix_server(lambda into, out: answering(app, into, out), sock=listening)
        os.nice(NICE)  # up (its start-up at the service's priority): from now on, below it
        sys.stdout.buffer.write(READY)
        sys.stdout.flush()
        await stop.wait()
        server.close()


async def answering(app: ASGIApp, into: asyncio.StreamReader, out: asyncio.StreamWriter) -> None:
    """One connection from the service: its requests answered in turn until it closes."""
    try:
        while True:
            try:
                asked = READ_REQUEST.decode(await frame_read(into))
            except (EOFError, ConnectionError):  # the service closed it (IncompleteReadError is an EOFError)
                return
            out.write(framed(await answered(app, asked)))
            await out.drain()
    except asyncio.CancelledError:
        # the reader stops: the task ends rather than ends cancelled (asyncio's server logs
        # a cancelled connection's task as an error on Python 3.11)
        return
    except Exception:  # a fault of the reader's own: the service answers the request itself
        log.exception("the reader could not answer a request")
    finally:
        out.close()


async def answered(app: ASGIApp, asked: ForwardedRequest) -> ReaderAnswer:
    """``asked`` made by ``app``, its work on the readers' pool (its queue bounded, a full
    one answered 503: ``Service.run``): its answer whole, and the seconds of work it took
    there (``CHARGED``)."""
    status, headers, body = 500, [], []
    done = asyncio.Event()
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await done.wait()  # asked again once the answer is made: the client is gone
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status, headers = message["status"], list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            body.append(message.get("body", b""))
            if not message.get("more_body"):
                done.set()

    charged = [0.0]
    token, pool = CHARGED.set(charged), POOL.set(ON_READERS)
    try:
        await app(asked.scope(), receive, send)
    finally:
        POOL.reset(pool)
        CHARGED.reset(token)
        done.set()
    return ReaderAnswer(status, [(bytes(k), bytes(v)) for k, v in headers], b"".join(body), charged[0])


if __name__ == "__main__":
    run_reader()

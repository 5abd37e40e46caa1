"""The reader process itself (``web.reader``): the service's application made to answer
what its service forwards, served on the socket its service bound."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys

from web.reader import READER_ENV, READY

# How much lower than its service the reader runs for the system's scheduler (``os.nice``):
# where both want a core, the tables' writes, the live pages and the door of the service
# process come first, and anonymous reads take what is left.
NICE = 10


def run_reader() -> None:
    """The reader: ``python -m web.reader_process FD PARENT``, the service's settings in
    ``READER_ENV``; it serves on the socket of descriptor FD, says ``READY`` once it
    does, and ends when the service process PARENT is gone."""
    import uvicorn

    from web.process import outlived
    from web.serve import app_from_settings

    fd, parent = int(sys.argv[1]), int(sys.argv[2])
    outlived(parent)
    given = json.loads(os.environ.pop(READER_ENV))
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    app = app_from_settings({**given, "read_process": False, "reader": True})  # as a service process's, a reader's
    config = uvicorn.Config(app, fd=fd, log_level="warning", access_log=False, lifespan="on", server_header=False,
                            proxy_headers=True, forwarded_allow_ips="*", timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)

    async def serving() -> None:
        task = asyncio.get_running_loop().create_task(server.serve())
        while not server.started and not task.done():
            await asyncio.sleep(0.01)  # uvicorn's start-up, looked at: it has no event to wait on
        if server.started:
            os.nice(NICE)  # up (its start-up at the service's priority): from now on, below it
            sys.stdout.buffer.write(READY)
            sys.stdout.flush()
        await task

    asyncio.run(serving())


if __name__ == "__main__":
    run_reader()

"""What every process of the service does as it starts (``pulka serve``'s, each of its
``--workers`` and each reader process, ``web.reader``): its interpreter's switch
interval (``SWITCH_INTERVAL``), the modules a first reader would import imported and
start-up's heap frozen out of the collector's reach (``settle_heap``), and an end when
the process that started it is gone (``outlived``)."""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

# How long a thread holds the interpreter's lock while another waits for it. The writers
# spend most of a write waiting on the store, with the lock let go; each time they come
# back they wait for a thread that holds it, up to this long. At Python's default (5 ms) a
# write of eight round trips to PostgreSQL waited up to 40 ms more behind one anonymous
# reader drawing sheets (bench/serve.py --hostile); at 0.5 ms, 4 ms.
SWITCH_INTERVAL = 0.0005


# What a page or a drawing imports when it is first asked for (the drawn sheet, the club's
# and a player's pages, their QR codes and statistics' names), imported at start-up: else
# the first anonymous reader of a drawing makes every write in flight wait behind the
# import (26–30 ms at the start of a hostile run, issue 29).
WARM = ("projections.drawing.svg", "projections.drawing.page", "projections.drawing.player",
        "projections.drawing.qr", "projections.stat_names")


# The cyclic collector's thresholds (``gc.set_threshold``; Python's are 700, 10, 10): a
# young collection every 7,000 new objects, a middle one every tenth of those, a full one
# at most every hundredth of those (and, as always, only once the long-lived objects have
# grown by a quarter). A full collection stops every thread for as long as it scans every
# long-lived object: a thousand spectators' live pages are some 300,000 of them, 0.1–0.4 s
# a scan (bench/serve.py --targets, (a)), and Python's thresholds made six in 40 s while
# the spectators came (most of them finding nothing to free), each holding up every write
# in flight. At these, one every minute or more, on the same load.
COLLECTOR = (7_000, 10, 100)


def settle_heap() -> None:
    """The modules of ``WARM`` imported; then all that start-up made (modules, classes,
    functions, the application: kept for the process's life) moved out of the cyclic
    collector's reach (``gc.freeze``), so that each full collection while the club
    scores scans only what the evening made. A full collection stops every thread, and
    under a hostile reader's load it was the slowest of the writers' deals (45–64 ms in
    a pause; start-up's 50,000 objects were 7 ms of each). And the collector's
    thresholds made ``COLLECTOR``: full collections rarer."""
    for name in WARM:
        importlib.import_module(name)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR)


PARENT_LOOK = 0.5  # seconds between a worker's looks at whether its supervisor is alive


def outlived(parent: int) -> threading.Thread:
    """Watch the supervisor ``parent`` of this worker process: once it is gone (killed,
    even by SIGKILL, which it cannot pass on), the worker is reparented, and it stops
    as on a SIGTERM (its requests finished, its connections closed), so that no
    orphaned worker keeps serving and keeps the port."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_LOOK)  # a look at the parent, not a timing anything relies on
        logging.getLogger("pulka.serve").warning("the supervisor (process %s) is gone: this worker stops", parent)
        os.kill(os.getpid(), signal.SIGTERM)

    watcher = threading.Thread(target=watch, name="pulka-parent", daemon=True)
    watcher.start()
    return watcher


def before_exit(action: Callable[[], None]) -> None:
    """``action`` called in this event loop as soon as the server is asked to stop
    (SIGINT, SIGTERM), before uvicorn's own shutdown waits for the open requests: the
    live pages' streams, which would hold it for its whole grace period
    (``timeout_graceful_shutdown``), end first. Chained in front of uvicorn's handlers,
    which its server has installed by the time the application starts; where none are
    (a test's client, a thread), nothing is chained."""
    import uvicorn

    if threading.current_thread() is not threading.main_thread():
        return
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous = signal.getsignal(signum)
        if not isinstance(getattr(previous, "__self__", None), uvicorn.Server):
            continue

        def chained(sig: int, frame: Any, previous: Any = previous) -> None:
            loop.call_soon_threadsafe(action)
            previous(sig, frame)

        signal.signal(signum, chained)

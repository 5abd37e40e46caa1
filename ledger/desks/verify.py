"""What ``verify`` judges of a stored stream, whatever its kind, once its hash chain is
known to hold: every event judged again as it was on its way in, so that an event
written with its digests computed anew is named all the same.

- a game (a pulka, a rubber): by its kind's judge (``Ledger.judged``);
- a tournament: with its tables' games, as ``verify --file`` judges its export
  (``tournament.judged_tournament``): each close against the tables as they are stored;
- the club register: its chain is what is checked.

``verdict`` is what ``verify`` says of a stream: its chain, then its events judged,
from one read of its rows (``Store.verified``): what is kept is one stream's events
and its fold, whatever the size of the store.

``verdicts`` says it of many streams, in their order: in this process, or, for a big
store, in a pool of worker processes (``workers``), each with its own connection to
the store, judging whole streams with the same ``verdict``. Each stream is judged from
nothing wherever it is judged: a worker trusts nothing the others or this process
found, and what it finds is named exactly as here.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from multiprocessing.util import Finalize

from ledger.application import Ledger
from ledger.desks.tournament import judged_tournament
from ledger.judge.kinds import judging_of
from ledger.store.event_store import Store
from ledger.vocabulary import language
from ledger.vocabulary.chain import ChainProblem
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.tournament_events import TournamentStarted

_ = language._  # every text a person reads, in the language in effect


def judged(ledger: Ledger, stream: str) -> ChainProblem | None:
    """The first event of ``stream`` (its chain intact) that the ledger would not have
    recorded as stored; None when there is none."""
    first = ledger.store.read(stream, upto=1).stored
    if first and isinstance(first[0].event, TournamentStarted):
        return judged_tournament(ledger, stream)
    return ledger.judged(stream)


def verdict(ledger: Ledger, stream: str) -> ChainProblem | None:
    """The first problem of ``stream`` that ``verify`` names: of its chain, else the first
    event the ledger would not have recorded (``judged``), its rows read once: the
    events the chain check decoded are the events judged (a tournament's, with its
    tables, is read again by ``judged_tournament``)."""
    events, problem = ledger.store.verified(stream)
    if problem is not None:
        return problem
    if events and isinstance(events[0], TournamentStarted):
        return judged_tournament(ledger, stream)
    try:
        judging_of(events[0])
    except (Refused, IndexError):
        return None  # the club register, or nothing stored: its chain is what is checked
    return ledger.judge(stream, events)[1]


# A store of fewer events is verified in this process: a pool's start (a fork, and a
# connection each) costs more than the second core saves on it.
PARALLEL_FROM = 50_000
MOST_WORKERS = 2  # the pool by default: memory grows with each worker's own game and fold


def default_workers(events: int) -> int:
    """How many processes judge a store of ``events`` events when the reader does not say:
    the cores this process may run on, at most ``MOST_WORKERS``; one below ``PARALLEL_FROM``."""
    if events < PARALLEL_FROM:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(MOST_WORKERS, cores))


class WorkerLost(RuntimeError):
    """A worker process of ``verdicts`` ended before it said what it was asked (killed,
    out of memory): nothing is said of the streams it held."""


@contextmanager
def verdicts(ledger: Ledger, address: str, streams: Sequence[str], workers: int = 1) -> Iterator[
        Iterator[ChainProblem | None]]:
    """The ``verdict`` of each of ``streams``, in their order, as they come: in this
    process, or with ``workers`` > 1 (and more than one stream) in a pool of that many
    processes, each opening the store at ``address`` itself. A worker that ends before
    its time is ``WorkerLost``. The pool is ended when the block is left."""
    if workers <= 1 or len(streams) < 2:
        yield (verdict(ledger, stream) for stream in streams)
        return
    # Forked, so that a worker starts with the modules this process has imported; it
    # never touches this process's connection, and opens its own.
    pool = ProcessPoolExecutor(min(workers, len(streams)), mp_context=multiprocessing.get_context("fork"),
                               initializer=_worker_opens, initargs=(address, language.language()))
    try:
        # Streams handed out a few at a time (32 handfuls a worker): a message each cost
        # this process about a millisecond of CPU, a second at 10^6 events.
        yield _told(pool.map(_worker_verdict, streams, chunksize=max(1, len(streams) // (32 * workers))))
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _told(results: Iterator[ChainProblem | None]) -> Iterator[ChainProblem | None]:
    try:
        yield from results
    except BrokenProcessPool:
        raise WorkerLost(_("a process judging the games for verify ended before its time (killed, or out of "
                           "memory?); verify --jobs 1 judges them in one process")) from None


_worker: Ledger | None = None  # a worker process's own ledger, on its own connection


def _worker_opens(address: str, said: str) -> None:
    global _worker
    language.set_language(said)
    gc.disable()  # as ``bulk`` in the process that asks: judging makes no cycles to free
    store = Store(address, create=False)
    Finalize(store, store.close, exitpriority=10)  # closed as the worker ends
    _worker = Ledger(store)


def _worker_verdict(stream: str) -> ChainProblem | None:
    assert _worker is not None
    return verdict(_worker, stream)

"""Many scorers at once: one process per table, each recording its table's pulka deal by
deal through the ledger, all started together. Used by the load test
(``tests/test_load.py``) and the load benchmark (``bench/load.py``).

The processes are forked from a fork server that has imported the ledger already, so
that thirty of them start in a moment, and none inherits the threads or connections of
the process that starts them.
"""

from __future__ import annotations

import multiprocessing
import time
from dataclasses import dataclass, field
from typing import Any

from ledger.application import Ledger
from ledger.words.deal_line import deal_events
from ledger.store.event_store import Store
from ledger.desks.tournament import Tournaments
from ledger.vocabulary.tournament_events import TournamentStarted
from projections.archive import game_result

# Deal lines that are legal whoever deals (the auction decides who speaks).
LINES = (
    "6S pass pass | 6S | whist whist | 6 2 2",
    "7H pass pass | 7H | whist pass | 6 3 1",
    "pass pass pass | 4 3 3",
    "misere pass pass | misere | 1",
    "pass 6NT pass | 6NT | pass pass",
    "6D pass pass | 6D | pass pass",
)


@dataclass
class TableRun:
    game: str
    deals: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds per recorded deal
    errors: list[str] = field(default_factory=list)
    status: str = ""


def seat_tournament(db: str, name: str, tables: int, pulya: int, deal_cap: int) -> list[str]:
    """A tournament of ``tables`` tables of three, tour 1 seated by lot, every table started."""
    players = tuple(f"P{i:03d}" for i in range(1, 3 * tables + 1))
    with Store(db) as store:
        ledger = Ledger(store)
        t = Tournaments(ledger)
        t.create(TournamentStarted(game=name, players=players, pulya=pulya, table_size=3, tours=1,
                                   deal_cap=deal_cap, by="arbiter:load"))
        t.seat_auto(name, 1, seed="load")
        return [outcome.game for outcome in t.start_tables(name, 1)]


def score(db: str, game: str, offset: int, cap: int, opening: Any, ready: Any, start: Any, out: Any) -> None:
    """One scorer: open the store, wait for the start, then record deals until the pulka
    is over. The stores are opened one at a time: opening one still runs its
    CREATE ... IF NOT EXISTS statements, which PostgreSQL refuses to run concurrently
    ("tuple concurrently updated"); the load measured is the recording."""
    run = TableRun(game)
    try:
        with opening:
            store = Store(db)
        with store:
            ledger = Ledger(store)
            ready.put(game)
            start.wait()
            k = offset
            while True:
                line = LINES[k % len(LINES)]
                k += 1
                began = time.perf_counter()
                outcome = ledger.execute(game, lambda st: deal_events(st, line))
                run.latencies.append(time.perf_counter() - began)
                run.deals += 1
                result = game_result(outcome.state, cap)
                if result.over:
                    run.status = result.status
                    break
    except BaseException as exc:  # every failure is a finding of the load test
        run.errors.append(f"{type(exc).__name__}: {exc}")
        ready.put(game)
    out.put(run)


def run_tables(db: str, games: list[str], cap: int, started: Any = None) -> tuple[list[TableRun], float]:
    """Score every game in its own process, all at once; the runs and the wall time.
    ``started`` is called once every process is ready, just before they are let go."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["ledger.application", "ledger.words.deal_line", "scorers"])
    start, opening = ctx.Event(), ctx.Lock()
    ready, out = ctx.Queue(), ctx.Queue()
    processes = [ctx.Process(target=score, args=(db, game, i, cap, opening, ready, start, out))
                 for i, game in enumerate(games)]
    for p in processes:
        p.start()
    for _ in processes:
        ready.get(timeout=600)
    if started is not None:
        started()
    began = time.perf_counter()
    start.set()
    runs = [out.get(timeout=600) for _ in processes]
    elapsed = time.perf_counter() - began
    for p in processes:
        p.join(timeout=60)
    return sorted(runs, key=lambda r: r.game), elapsed


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]

"""``make bench-serve`` (its second part): what a read of a pulka at a point costs the
service. A 2,000-event pulka (deal lines, an entry by hand every 25 deals, a few
corrections of tricks, which strike entries on the drawn sheet) is stored, a real
``pulka serve`` process reads it, and each of its reads at a point is asked at random
points (``?at=K``, no two alike, so no cached document answers): the sheet, the
settlement, the deals table, the audit trail and the drawn sheet. Printed: the server
process's CPU per read (its user and system time over the reads, from /proc) beside the
target (at most 5 ms), and beside a read that folds nothing (the game at its head,
cached: what HTTP, signing in and JSON cost alone); the first read at a point, which
makes the game's forks and trail, apart. Then, in this process, the memory of the kept
game before and after its forks and trail (tracemalloc).

    python bench/reads.py [--quick] [--reads N] [--events N]

--quick: a 600-event pulka, 20 reads of each (CI). The machine may be shared: run it
more than once, and read the ratios to the plain read taken in the same run.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' helpers for a served process

from ledger.application import Ledger  # noqa: E402
from ledger.desks.pulka import PulkaDesk  # noqa: E402
from ledger.store.event_store import Store  # noqa: E402
from ledger.vocabulary.events import Tricks  # noqa: E402
from projections.at_points import PointFolds  # noqa: E402
from projections.game import GameState  # noqa: E402
from scorers import LINES  # noqa: E402 (bench/scorers.py: deal lines legal whoever deals)
from tests.serving import Served, account, sign_in  # noqa: E402

GAME = "long"
TARGET = 0.005  # seconds of server CPU per read at a point
READS = ("sheet", "settlement", "deals", "log", "sheet.svg")


def stored_game(db: str, events: int) -> int:
    """The pulka of ``events`` events or a few more, in ``db``."""
    with Store(db, create=True) as store:
        desk = PulkaDesk(Ledger(store))
        desk.new(GAME, "Anna,Boris,Vera", pulya=5000, by="Anna")
        k = 0
        while store.count(GAME) < events:
            told = desk.deal(GAME, LINES[k % len(LINES)])
            k += 1
            if k % 25 == 0:
                desk.entry(GAME, "Vera", "whists", 4, on="Anna")
            last = told.events[-1]
            if k % 60 == 2 and isinstance(last.event, Tricks):
                # A deal's tricks corrected: its two smaller counts swapped, by the arbiter.
                (a, x), (b, y) = sorted(last.event.tricks.items(), key=lambda pt: pt[1])[:2]
                if x != y:
                    desk.correct(GAME, last.number, [f"{a}={y}", f"{b}={x}"], by="arbiter:bench")
        return store.count(GAME)


def cpu(pid: int) -> float:
    """The process's user and system CPU seconds so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def per_read(served: Served, http: object, paths: list[str], headers: dict[str, str]) -> float:
    """The server's CPU seconds per request, over ``paths``."""
    before = cpu(served.proc.pid)
    for path in paths:
        r = http.get(path, headers=headers)  # type: ignore[attr-defined]
        assert r.status_code == 200, (path, r.status_code, r.text[:200])
    return (cpu(served.proc.pid) - before) / len(paths)


def served_reads(db: str, total: int, reads: int, log: Path) -> None:
    account(db, "bench", "director", "bench password")
    served = Served(db, log)  # the tests' roomy budget: the bench's one client is held to no address's budget
    try:
        with served.http() as http:
            director = sign_in(http, "bench", "bench password")
            base = f"/api/games/{GAME}"
            plain = per_read(served, http, [base] * reads, director)
            print(f"  a read that folds nothing (the game at its head): {plain * 1000:6.2f} ms per read")
            start = cpu(served.proc.pid)
            per_read(served, http, [f"{base}/sheet?at={total // 2}"], director)
            print(f"  the first read at a point (the forks made): {(cpu(served.proc.pid) - start) * 1000:6.1f} ms")
            rng = random.Random(30)
            for name in READS:
                points = rng.sample(range(2, total), reads)
                if name in ("log", "sheet.svg"):  # its trail made by a first read, as after any first one
                    start = cpu(served.proc.pid)
                    per_read(served, http, [f"{base}/{name}?at={total}"], director)
                    print(f"  the first {name} (its trail made): {(cpu(served.proc.pid) - start) * 1000:6.1f} ms")
                spent = per_read(served, http, [f"{base}/{name}?at={k}" for k in points], director)
                verdict = "within" if spent <= TARGET else "OVER"
                print(f"  {name:<11} at {reads} random points: {spent * 1000:6.2f} ms per read "
                      f"({spent / plain:4.1f} x the plain read; target {TARGET * 1000:.0f} ms: {verdict})")
    finally:
        served.stop()


def kept_memory(db: str) -> None:
    """The kept game's size, and what its forks and trail add (tracemalloc)."""
    with Store(db) as store:
        ledger = Ledger(store)
        tracemalloc.start()
        kept = ledger.keep(GAME)
        size = tracemalloc.get_traced_memory()[0]
        events = [s.event for s in kept.stored]
        assert isinstance(kept.state, GameState)
        first = kept.state.started
        points = PointFolds(first)
        points.follow(events)
        forks = tracemalloc.get_traced_memory()[0]
        points.audit_at(events, points.state_at(events, len(events)))
        trail = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
    print(f"  the kept game ({len(events)} events, {len(kept.state.deals)} deals): {size / 1e6:.1f} MB; "
          f"its forks (every 32 events): +{(forks - size) / 1e6:.1f} MB; its trail in one language: "
          f"+{(trail - forks) / 1e6:.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--reads", type=int)
    parser.add_argument("--events", type=int)
    args = parser.parse_args()
    events = args.events or (600 if args.quick else 2000)
    reads = args.reads or (20 if args.quick else 60)
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "reads.db")
        began = time.perf_counter()
        total = stored_game(db, events)
        print(f"reads at a point of a {total}-event pulka (stored in {time.perf_counter() - began:.0f} s), "
              "server CPU per read:")
        served_reads(db, total, reads, Path(tmp) / "serve.log")
        kept_memory(db)


if __name__ == "__main__":
    main()

"""The club log's Merkle tree on a store of 1,000,000 events (``make bench-merkle``):
root and proof times, beside the machine's own limits.

Prints, for the embedded SQLite store and, with ``PULKA_BENCH_POSTGRES`` (or
``--postgres``), for PostgreSQL:

- the limits: plain SQL reading every row's state (no pulka code), and SHA-256 over
  1,000,000 leaves (what any root computed from the rows costs at the least);
- building the tree's cache from nothing (every row read in store order, the tiles
  written), computing the tree afresh without it keeping every row (what ``pulka
  checkpoint`` does before it signs), and reading it once keeping O(log n) hashes
  (what ``verify`` does);
- with the cache: the root of the whole store, an inclusion proof of a random event,
  a consistency proof between two random sizes (each opening the cache, reading the
  tiles it needs, best and median of many);
- appending one event and bringing the cache up to it; ``pulka checkpoint`` (which
  reads every row, checks the stored checkpoints and the cache, then signs) and
  ``pulka prove GAME`` end to end through the real commands in process;
- then (``transparency``) a witness's cost per checkpoint, and a monitor catching up
  with a log of as many events of real games over HTTP from ``pulka serve``.

The events are 1,000 streams of 1,000 events each, stored through ``Store.append``
(their kind does not matter to the tree: a leaf is a digest). Nothing is asserted.
``--events N`` for another size.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import uuid4

from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import machine  # noqa: E402
from transparency import measure_monitor, measure_witness  # noqa: E402

from cli.main import main as pulka  # noqa: E402
from ledger.store.event_store import Store, is_postgres_url, parse_postgres_url  # noqa: E402
from ledger.proofs.afresh import afresh  # noqa: E402
from ledger.proofs.tree import ClubTree  # noqa: E402
from ledger.vocabulary.events import Bid, GameStarted  # noqa: E402
from ledger.vocabulary.merkle import leaf_hash  # noqa: E402
from ledger.vocabulary.notes import Signer  # noqa: E402

AT = "2026-12-01T20:00:00+00:00"


def fill(db: str, events: int, per_stream: int = 1000) -> None:
    with Store(db) as store:
        streams = events // per_stream
        for s in range(streams):
            game = f"g{s}"
            batch = [GameStarted(game=game, players=("Anna", "Boris", "Vera"), pulya=10, at=AT)]
            batch += [Bid(player="Anna", bid="6S", at=AT)] * (per_stream - 1)
            store.append(game, batch, expected=0)


def timings(fn: Callable[[], Any], runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def row(label: str, *cells: str) -> None:
    print(f"  {label:<58}" + "".join(f"{c:>20}" for c in cells))


def raw_read(db: str) -> float:
    """Plain SQL over every row's state: the read limit."""
    start = time.perf_counter()
    if is_postgres_url(db):
        import psycopg

        address = parse_postgres_url(db)
        with psycopg.connect(**address.connect_kwargs()) as conn:
            cur = conn.cursor()
            cur.execute(f'SELECT state FROM "{address.schema or "public"}".pulka_events ORDER BY notification_id')
            for _ in cur:
                pass
    else:
        import sqlite3

        with sqlite3.connect(db) as conn:
            for _ in conn.execute("SELECT state FROM stored_events ORDER BY rowid"):
                pass
    return time.perf_counter() - start


def measure(label: str, db: str, events: int, folder: Path) -> None:
    print(f"\n{label}: a store of {events:,} events")
    start = time.perf_counter()
    fill(db, events)
    row("stored through Store.append", f"{time.perf_counter() - start:,.1f} s")
    read = raw_read(db)
    leaves = [os.urandom(64) for _ in range(events)]
    start = time.perf_counter()
    for leaf in leaves:
        leaf_hash(leaf)
    hashing = time.perf_counter() - start
    row("limit: plain SQL reading every row", f"{read:,.2f} s", f"{events / read:,.0f} rows/s")
    row("limit: SHA-256 of every leaf (hashlib)", f"{hashing:,.2f} s", f"{events / hashing:,.0f} /s")
    with Store(db) as store:
        start = time.perf_counter()
        with ClubTree.fresh(store) as fresh:
            whole = fresh.root()
        took = time.perf_counter() - start
        row("the tree afresh, every row kept (checkpoint)", f"{took:,.2f} s", f"{events / took:,.0f} rows/s")
        start = time.perf_counter()
        assert afresh(store, [events]).root(events) == whole
        took = time.perf_counter() - start
        row("the tree read once, O(log n) kept (verify)", f"{took:,.2f} s", f"{events / took:,.0f} rows/s")
        start = time.perf_counter()
        with ClubTree.open(store, write=True) as tree:
            assert tree.root() == whole
        took = time.perf_counter() - start
        row("the cache built from nothing (rows read, tiles written)", f"{took:,.2f} s",
            f"{events / took:,.0f} rows/s")
        rng = random.Random(1)

        def root() -> None:
            with ClubTree.open(store) as tree:
                tree.root()

        def inclusion() -> None:
            with ClubTree.open(store) as tree:
                tree.inclusion(rng.randrange(tree.size), tree.size)

        def consistency() -> None:
            with ClubTree.open(store) as tree:
                old = rng.randrange(1, tree.size)
                tree.consistency(old, rng.randrange(old, tree.size + 1))

        def in_memory() -> None:
            with ClubTree.open(store) as tree:
                size = tree.size
                for _ in range(100):
                    tree.inclusion(rng.randrange(size), size)

        for name, fn in (("root of the whole store (cache opened, tiles read)", root),
                         ("inclusion proof of a random event", inclusion),
                         ("consistency proof between two random sizes", consistency),
                         ("100 inclusion proofs on one opened tree", in_memory)):
            fastest, median = timings(fn, 20)
            row(name, ms(fastest), f"median {ms(median)}")
        appended = [0]

        def append_one() -> None:
            n = store.count("g0")
            store.append("g0", [Bid(player="Anna", bid="6S", at=AT)], expected=n)
            appended[0] += 1
            with ClubTree.open(store, write=True) as tree:
                tree.root()

        fastest, median = timings(append_one, 20)
        row("append one event, bring the cache up to it, root", ms(fastest), f"median {ms(median)}")
    signer = Signer.generate("bench.example/pulka")
    key = folder / f"bench-{uuid4().hex}.key"
    key.write_text(signer.text() + "\n")
    os.chmod(key, 0o600)
    runner = CliRunner()

    def checkpoint() -> None:
        result = runner.invoke(pulka, ["checkpoint", "--key", str(key), "--db", db])
        assert result.exit_code == 0, result.output

    def prove() -> None:
        result = runner.invoke(pulka, ["prove", f"g{events // 2000}", "--db", db])
        assert result.exit_code == 0, result.output

    fastest, median = timings(checkpoint, 5)
    row("pulka checkpoint (in process)", ms(fastest), f"median {ms(median)}")
    fastest, median = timings(prove, 5)
    row("pulka prove GAME, a stream of 1,000 events (in process)", ms(fastest), f"median {ms(median)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--postgres", default=os.environ.get("PULKA_BENCH_POSTGRES"))
    parser.add_argument("--only", choices=["tree", "witness", "monitor"], help="One part alone.")
    args = parser.parse_args()
    print(f"pulka bench-merkle on {machine()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.only in (None, "tree"):
            measure("SQLite", str(folder / "merkle.db"), args.events, folder)
            if args.postgres:
                measure_postgres(args.postgres, args.events, folder)
        if args.only in (None, "witness"):
            measure_witness(folder)
        if args.only in (None, "monitor"):
            key = folder / "monitor-club.key"
            key.write_text(Signer.generate("bench.example/pulka").text() + "\n")
            os.chmod(key, 0o600)
            measure_monitor(str(folder / "games.db"), args.events, folder, key, raw_read)


def measure_postgres(postgres: str, events: int, folder: Path) -> None:
    schema = f"bench_{uuid4().hex[:8]}"
    sep = "&" if "?" in postgres else "?"
    url = f"{postgres}{sep}schema={schema}"
    try:
        measure("PostgreSQL", url, events, folder)
    finally:
        import psycopg

        address = parse_postgres_url(url)
        with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

if __name__ == "__main__":
    main()

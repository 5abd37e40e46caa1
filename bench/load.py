"""Load figures: a tournament evening on PostgreSQL, one scorer process per table, all
recording their pulkas deal by deal at once while a follower keeps the views current.

Prints the sustained commands per second (one command: one whole deal line, loaded,
judged and stored) and the p50/p95 latency of one recorded deal; asserts nothing.

    python bench/load.py [--tables 30] [--pulya 10] [--cap 16] [--db postgresql://…]

Without --db it uses PULKA_TEST_POSTGRES, in a schema of its own that it drops after.
"""

from __future__ import annotations

import argparse
import os
import time
from uuid import uuid4

import psycopg
from psycopg import sql

import scorers
from ledger.store.event_store import Store, parse_postgres_url
from ledger.views.archive import Views


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--pulya", type=int, default=10)
    parser.add_argument("--cap", type=int, default=16, help="deal cap of every table")
    parser.add_argument("--db", default=None)
    args = parser.parse_args()
    base = args.db or os.environ.get("PULKA_TEST_POSTGRES")
    if not base:
        raise SystemExit("give --db postgresql://… or set PULKA_TEST_POSTGRES")
    address = parse_postgres_url(base)
    schema = f"pulka_bench_{uuid4().hex[:8]}"
    with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    db = base.split("?")[0] + f"?schema={schema}"
    try:
        run(db, args.tables, args.pulya, args.cap)
    finally:
        with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


def run(db: str, tables: int, pulya: int, cap: int) -> None:
    games = scorers.seat_tournament(db, "evening", tables, pulya=pulya, deal_cap=cap)
    with Store(db) as store, Views(store) as views:
        with views.follow() as runner:
            runs, elapsed = scorers.run_tables(db, games, cap)
            began = time.perf_counter()
            runner.wait(views.head(), timeout=600)
            lag = time.perf_counter() - began
        events = views.head()
    latencies = [x for r in runs for x in r.latencies]
    deals = len(latencies)
    errors = [e for r in runs for e in r.errors]
    print(f"{tables} tables of 3, pulya {pulya}, deal cap {cap}, PostgreSQL, one process per table")
    print(f"  deals recorded          {deals:>8}   ({events} events stored, {len(errors)} errors)")
    print(f"  wall time of recording  {elapsed:>8.2f} s")
    print(f"  sustained commands/s    {deals / elapsed:>8.1f}   ({events / elapsed:,.0f} events/s)")
    print(f"  one deal, p50           {scorers.percentile(latencies, 0.50) * 1000:>8.0f} ms")
    print(f"  one deal, p95           {scorers.percentile(latencies, 0.95) * 1000:>8.0f} ms")
    print(f"  views caught up         {lag * 1000:>8.0f} ms after the last deal")
    for error in errors[:5]:
        print(f"  error: {error}")


if __name__ == "__main__":
    main()

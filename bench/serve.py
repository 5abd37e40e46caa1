"""``make bench-serve``: the live service under a club's load. A real ``pulka serve`` process
on a fresh store; thirty tables record their pulkas deal by deal through HTTP at once (each
deal one ``POST /api/games/T/deal`` with its own id and the version its phone saw; every
fifth sent twice, as a phone does when an answer is lost), while two hundred spectators
follow the tables' event streams. Printed: the time per recorded deal (p50/p95/p99, and
the first deals against the last, which a kept fold keeps equal), the spectators' lag
(from the write's request to its state reaching the spectator), errors, and events lost
or stored twice (the store counted against what the answers said).

Two runs on each store. **Paced**: each table sends a deal every ``--interval`` seconds
(1 s by default, the tables' starts spread over the first second), whether or not its
last answer came late: a real table records a deal every two to five minutes, so this
is a club over a hundred times busier than thirty real tables, and its times are what a
scorer waits. **Flat out**: each table sends its next deal as soon as the last is
answered, so the service is never idle; its deals per second are the service's
capacity on this machine, and its times are mostly the queue of thirty waiting writers.

    python bench/serve.py [--quick] [--tables N] [--spectators N] [--deals N] [--interval S] [--db ADDRESS]

SQLite by default (a temporary file); PostgreSQL too when PULKA_BENCH_POSTGRES holds an
address (a schema made for the run and dropped after it). --quick: 5 tables, 20
spectators, 8 deals (CI).

**Hostile** (``--hostile``): the paced run twice on each store, alone and then with an
attacker: one client address (127.0.0.2, a process of its own) opening event streams and
reading the sheets at random points in time as fast as it can, with eight requests at
once, as long as the tables record. Printed: the writers' p99 alone and under attack and
their ratio (the target: at most 1.5), and what the attacker was answered (served, 429,
503). The spectators come from forty addresses of their own (127.0.1.x), five each: a
club's phones, not one client.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx

import scorers  # bench/, beside this file
from bench import machine  # bench/bench.py, beside this file
from ledger.store.event_store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' helpers for a served process
from tests.serving import Served, account, sign_in  # noqa: E402

LINES, percentile = scorers.LINES, scorers.percentile


@dataclass
class Table:
    game: str
    token: str
    version: int = 1
    latencies: list[float] = field(default_factory=list)
    sent: list[tuple[int, float]] = field(default_factory=list)  # (version after, request start)
    events: int = 1  # what the answers say is stored
    errors: list[str] = field(default_factory=list)
    duplicates_stored: int = 0


@dataclass
class Spectator:
    game: str
    seen: list[tuple[int, float]] = field(default_factory=list)  # (version, arrival)
    errors: list[str] = field(default_factory=list)


async def record(client: httpx.AsyncClient, table: Table, deals: int, offset: int, interval: float,
                 first: float) -> None:
    """The table's deals, the k-th sent at ``first + k * interval`` (or at once when the
    last answer came later than that; every deal at once with no interval)."""
    headers = {"Authorization": f"Bearer {table.token}"}
    for k in range(deals):
        due = first + k * interval
        if interval and due > time.perf_counter():
            await asyncio.sleep(due - time.perf_counter())  # the table's own pace, not a wait for a result
        body = {"id": str(uuid.uuid4()), "version": table.version, "line": LINES[(offset + k) % len(LINES)],
                "again": True}
        start = time.perf_counter()
        r = await client.post(f"/api/games/{table.game}/deal", json=body, headers=headers)
        took = time.perf_counter() - start
        if r.status_code != 201:
            table.errors.append(f"{r.status_code} {r.text[:200]}")
            return
        doc = r.json()
        table.latencies.append(took)
        table.events += len(doc["told"]["events"])
        table.version = doc["state"]["version"]
        table.sent.append((table.version, start))
        if k % 5 == 4:  # the answer lost: the phone sends the same write again
            again = await client.post(f"/api/games/{table.game}/deal", json=body, headers=headers)
            if again.status_code != 200 or not again.json().get("duplicate"):
                table.duplicates_stored += 1


SPECTATOR_ADDRESSES = 40  # 127.0.1.1 …: each address follows a few tables, as a club's phones do
ATTACKER = "127.0.0.2"


async def follow(url: str, spectator: Spectator, done: asyncio.Event, ready: asyncio.Semaphore,
                 address: str = "127.0.0.1") -> None:
    released = False
    try:
        transport = httpx.AsyncHTTPTransport(local_address=address)
        async with httpx.AsyncClient(base_url=url, timeout=httpx.Timeout(60, connect=30), transport=transport) as client, \
                client.stream("GET", f"/api/games/{spectator.game}/events") as events:
            ready.release()
            released = True
            event = None
            async for line in events.aiter_lines():
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:") and event == "state":
                    spectator.seen.append((json.loads(line[5:])["version"], time.perf_counter()))
                if done.is_set():
                    return
    except (httpx.HTTPError, asyncio.CancelledError) as exc:
        if not done.is_set():
            spectator.errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        if not released:
            ready.release()


async def attack(url: str, games: list[str], deals: int, seconds: float) -> dict[str, int]:
    """One address as hostile as it can be: eight readers of random points in time and a
    hand that keeps opening event streams (and holds those it gets), for ``seconds``."""
    import random

    answered: dict[str, int] = {}
    stop = time.perf_counter() + seconds
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx.AsyncClient(base_url=url, timeout=30, transport=transport, limits=limits) as client:
        async def reader() -> None:
            while time.perf_counter() < stop:
                path = random.choice(("sheet.svg", "settlement", "sheet", "deals"))
                done = 1 - (stop - time.perf_counter()) / seconds  # the tables' events grow as they record
                at = random.randint(1, max(2, int(7 * deals * done)))
                try:
                    r = await client.get(f"/api/games/{random.choice(games)}/{path}?at={at}")
                    key = f"read {r.status_code}"
                except httpx.HTTPError as exc:
                    key = f"read {type(exc).__name__}"
                answered[key] = answered.get(key, 0) + 1

        async def streams() -> None:
            held = []
            while time.perf_counter() < stop:
                request = client.build_request("GET", f"/api/games/{random.choice(games)}/events")
                try:
                    r = await client.send(request, stream=True)
                except httpx.HTTPError as exc:
                    answered[f"stream {type(exc).__name__}"] = answered.get(f"stream {type(exc).__name__}", 0) + 1
                    continue
                answered[f"stream {r.status_code}"] = answered.get(f"stream {r.status_code}", 0) + 1
                if r.status_code == 200:
                    held.append(r)
                else:
                    await r.aclose()
            for r in held:
                await r.aclose()

        await asyncio.gather(*(reader() for _ in range(8)), streams())
    return answered


def attacker(url: str, games: list[str], deals: int, seconds: float) -> dict[str, int]:
    """The attacker in a process of its own (its client's work is not the writers')."""
    return asyncio.run(attack(url, games, deals, seconds))


async def run(db: str, tables_n: int, spectators_n: int, deals: int, interval: float, log: Path,
              hostile: bool = False) -> dict[str, object]:
    account(db, "bench", "director", "bench password")
    served = Served(db, log)
    try:
        with served.http() as http:
            director = sign_in(http, "bench", "bench password")
            tables = []
            for t in range(tables_n):
                game = f"table-{t + 1}"
                r = http.post("/api/games", json={"id": f"bench-new-{game}", "game": game,
                                                  "players": ["Anna", "Boris", "Vera"], "pulya": 500},
                              headers=director)
                assert r.status_code == 201, r.text
                token = http.post(f"/api/games/{game}/tokens", json={"holder": "Masha"}, headers=director).json()
                tables.append(Table(game, token["token"]))
        done = asyncio.Event()
        ready = asyncio.Semaphore(0)
        spectators = [Spectator(tables[i % tables_n].game) for i in range(spectators_n)]
        watching = [asyncio.create_task(follow(served.url, s, done, ready, f"127.0.1.{1 + i % SPECTATOR_ADDRESSES}"))
                    for i, s in enumerate(spectators)]
        for _ in spectators:
            await asyncio.wait_for(ready.acquire(), 60)
        limits = httpx.Limits(max_connections=tables_n + 5, max_keepalive_connections=tables_n + 5)
        hostility = None
        if hostile:
            import concurrent.futures
            import multiprocessing

            pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            hostility = asyncio.get_running_loop().run_in_executor(
                pool, attacker, served.url, [t.game for t in tables], deals, deals * max(interval, 0.2) + 5)
            await asyncio.sleep(3)  # the attacker's process started and at it before the tables record
        start = time.perf_counter()
        async with httpx.AsyncClient(base_url=served.url, timeout=60, limits=limits) as client:
            await asyncio.gather(*(record(client, t, deals, i, interval, start + interval * i / tables_n)
                                   for i, t in enumerate(tables)))
        elapsed = time.perf_counter() - start
        attacked = await hostility if hostility is not None else None
        final = {t.game: t.version for t in tables}
        deadline = time.perf_counter() + 10
        while time.perf_counter() < deadline and not all(
                s.seen and s.seen[-1][0] >= final[s.game] for s in spectators):
            await asyncio.sleep(0.05)  # a benchmark waits for its stragglers, bounded
        done.set()
        for task in watching:
            task.cancel()
        await asyncio.gather(*watching, return_exceptions=True)
    finally:
        served.stop()
    lags = []
    for s in spectators:
        table = next(t for t in tables if t.game == s.game)
        for version, sent in table.sent:
            arrived = next((at for v, at in s.seen if v >= version), None)
            if arrived is not None:
                lags.append(max(0.0, arrived - sent))
    with Store(db, create=False) as store:
        stored = {t.game: store.count(t.game) for t in tables}
    latencies = [x for t in tables for x in t.latencies]
    firsts = [x for t in tables for x in t.latencies[:3]]
    lasts = [x for t in tables for x in t.latencies[-3:]]
    return {
        "tables": tables_n, "spectators": spectators_n, "deals": len(latencies), "seconds": round(elapsed, 1),
        "deals_per_second": round(len(latencies) / elapsed, 1) if elapsed else None,
        "deal_ms": {q: round(percentile(latencies, p) * 1000, 1) for q, p in (("p50", 0.50), ("p95", 0.95), ("p99", 0.99))},
        "first_vs_last_p50_ms": (round(percentile(firsts, 0.5) * 1000, 1), round(percentile(lasts, 0.5) * 1000, 1)),
        "lag_ms": {q: round(percentile(lags, p) * 1000, 1) for q, p in (("p50", 0.50), ("p95", 0.95), ("p99", 0.99))},
        "errors": sum(len(t.errors) for t in tables) + sum(len(s.errors) for s in spectators),
        "lost": sum(max(0, t.events - stored[t.game]) for t in tables)
        + sum(1 for s in spectators if not s.seen or s.seen[-1][0] < final[s.game]),
        "duplicated": sum(max(0, stored[t.game] - t.events) for t in tables) + sum(t.duplicates_stored for t in tables),
        "first_errors": ([e for t in tables for e in t.errors] + [e for s in spectators for e in s.errors])[:3],
        **({"attacker": dict(sorted(attacked.items()))} if attacked is not None else {}),
    }


def postgres_schema(base: str) -> tuple[str, str]:
    import psycopg

    from ledger.store.backend import parse_postgres_url

    schema = f"pulka_bench_serve_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(**parse_postgres_url(base).connect_kwargs(), autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    return base + ("&" if "?" in base else "?") + f"schema={schema}", schema


def drop_schema(base: str, schema: str) -> None:
    import psycopg

    from ledger.store.backend import parse_postgres_url

    with psycopg.connect(**parse_postgres_url(base).connect_kwargs(), autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tables", type=int)
    parser.add_argument("--spectators", type=int)
    parser.add_argument("--deals", type=int)
    parser.add_argument("--interval", type=float, default=1.0,
                        help="seconds between a table's deals in the paced run (default 1)")
    parser.add_argument("--db", help="one store only: a SQLite file or a postgresql:// address")
    parser.add_argument("--hostile", action="store_true",
                        help="the paced run alone and with one hostile address; the writers' p99 ratio")
    parser.add_argument("--soak", action="store_true",
                        help="one service through a long evening: 3,000 deals and a pulka of 400 (bench/serve_soak.py)")
    args = parser.parse_args()
    if args.soak:
        import serve_soak  # bench/, beside this file

        with tempfile.TemporaryDirectory() as tmp:
            sys.exit(0 if serve_soak.soak(args.db or str(Path(tmp) / "soak.db"), Path(tmp) / "soak.log") else 1)
    tables = args.tables or (5 if args.quick else 30)
    spectators = args.spectators or (20 if args.quick else 200)
    deals = args.deals or (8 if args.quick else 30)
    print(f"pulka bench-serve on {machine()}; load average before: {os.getloadavg()[0]:.2f}")
    print(f"Targets: p99 at most 100 ms per recorded deal, spectators' lag p99 at most 1 s, "
          f"no errors, nothing lost or stored twice; {tables} tables, {spectators} spectators, "
          f"{deals} deals a table.", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        stores = [("given", args.db)] if args.db else [("SQLite", str(Path(tmp) / "bench.db"))]
        pg = os.environ.get("PULKA_BENCH_POSTGRES")
        if pg and not args.db:
            stores.append(("PostgreSQL", pg))
        failed = False
        for label, address in stores:
            if args.hostile:
                failed |= hostile_runs(label, address, pg, tmp, tables, spectators, deals, args.interval)
                continue
            for run_name, interval in (("paced", args.interval), ("flat out", 0.0)):
                schema = None
                target = address
                if label == "PostgreSQL":
                    target, schema = postgres_schema(pg or "")
                elif label == "SQLite":
                    target = str(Path(tmp) / f"bench-{interval}.db")
                try:
                    result = asyncio.run(run(target, tables, spectators, deals, interval,
                                             Path(tmp) / f"{label}-{interval}.log"))
                finally:
                    if schema is not None:
                        drop_schema(pg or "", schema)
                print(f"{label}, {run_name} ({interval:g} s between a table's deals): {json.dumps(result)}", flush=True)
                failed |= bool(result["errors"] or result["lost"] or result["duplicated"])
                if label == "given":
                    break  # a given store is not fresh for a second run
    sys.exit(1 if failed else 0)


def hostile_runs(label: str, address: str, pg: str | None, tmp: str, tables: int, spectators: int, deals: int,
                 interval: float) -> bool:
    """The paced run alone, then under attack: the writers' p99 each time, and the ratio."""
    p99 = {}
    for run_name in ("alone", "hostile"):
        schema = None
        target = address
        if label == "PostgreSQL":
            target, schema = postgres_schema(pg or "")
        elif label == "SQLite":
            target = str(Path(tmp) / f"bench-{run_name}.db")
        try:
            result = asyncio.run(run(target, tables, spectators, deals, interval, Path(tmp) / f"{label}-{run_name}.log",
                                     hostile=run_name == "hostile"))
        finally:
            if schema is not None:
                drop_schema(pg or "", schema)
        p99[run_name] = result["deal_ms"]["p99"]  # type: ignore[index]
        print(f"{label}, paced, {run_name}: {json.dumps(result)}", flush=True)
        if result["errors"] or result["lost"] or result["duplicated"]:
            return True
    ratio = p99["hostile"] / p99["alone"] if p99["alone"] else float("inf")
    print(f"{label}: the writers' p99 {p99['alone']} ms alone, {p99['hostile']} ms under attack: "
          f"ratio {ratio:.2f} (target at most 1.5)", flush=True)
    return ratio > 1.5


if __name__ == "__main__":
    main()

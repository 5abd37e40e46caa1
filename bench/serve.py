"""``make bench-serve``: the live service under a club's load. A real ``pulka serve`` process
on a fresh store; thirty tables record their pulkas deal by deal through HTTP at once (each
deal one ``POST /api/games/T/deal`` with its own id and the version its phone saw; every
fifth sent twice, as a phone does when an answer is lost), while two hundred spectators
follow the tables' event streams (from a process of their own). Printed: the time per
recorded deal (p50/p95/p99, and the first deals against the last, which a kept fold
keeps equal), the spectators' lag
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
503). Then a third run, **in turns**: the attacker at it for three seconds, idle for
three, and so on, and the writers' p99 in its turns against the p99 in its idle ones:
minutes apart, the quiet and the hostile run see different loads of a shared machine;
the turns see the same. The spectators come from addresses of their own (127.0.1.x),
five or fewer each: a club's phones, not one client.

**Targets** (``--targets``, issue 30): on each store, paced, in one invocation so that the
figures are of one state of the (shared) machine: the quiet run (the tables and 200
spectators), then (a) **readers**: 1,000 spectators over the tables and 32 anonymous
readers at random points in time (each from an address of its own, 127.0.2.x, in a
process of their own, as fast as they are answered) — the writers' p99 at most 100 ms;
(b) **crowd**: 1,000 spectators on the first table — their lag p99 at most 200 ms, the
other tables' writers' p99 at most 100 ms; (c) **hostile**, as above — the writers' p99
at most 1.5 times the quiet run's. Each figure is printed beside its target.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, AsyncIterator
from urllib.parse import quote, urlsplit
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
        try:
            r = await client.post(f"/api/games/{table.game}/deal", json=body, headers=headers)
        except httpx.HTTPError as exc:  # an error of the run, counted, not the bench's end
            table.errors.append(f"{type(exc).__name__}: {exc}")
            return
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


SPECTATOR_ADDRESSES = 40  # 127.0.1.1 … at least: each address follows a few tables, as a club's phones do
ATTACKER = "127.0.0.2"
VERSION = re.compile(rb'"version":(\d+)')  # a live message's version (``app.sent_state``: stream, version, …)
READS = ("sheet.svg", "settlement", "sheet", "deals")  # the reads at a point in time: the heavy ones


def spectator_address(i: int, spectators: int) -> str:
    """The address of the ``i``-th spectator: five or fewer to an address (the bound is
    eight live pages an address), 254 addresses at most."""
    addresses = min(254, max(SPECTATOR_ADDRESSES, -(-spectators // 5)))
    return f"127.0.1.{1 + i % addresses}"


async def follow(url: str, spectator: Spectator, done: asyncio.Event, ready: asyncio.Semaphore,
                 address: str = "127.0.0.1") -> None:
    """One spectator's live page: its event stream read with asyncio's own streams
    (HTTP/1.1, its chunks by hand), each state's version and time of arrival kept. Not
    with an HTTP client: at a club each spectator is a phone of its own, while here a
    thousand share one process of the bench and the service's two cores, and the lag
    measured is the service's only if the bench's own reading costs little. Read with
    ``httpx`` (``aiter_lines``), a message cost the spectators' process 240 µs of CPU, a
    quarter of a second of one core for each deal's thousand messages in (b) (7.3 s for
    a run's 30,000); read so, 2.5 s (issue 30)."""
    released = False
    out = None
    try:
        where = urlsplit(url)
        into, out = await asyncio.wait_for(
            asyncio.open_connection(where.hostname, where.port, local_addr=(address, 0)), 30)
        out.write(f"GET /api/games/{quote(spectator.game)}/events HTTP/1.1\r\nHost: {where.netloc}\r\n"
                  f"Accept: text/event-stream\r\n\r\n".encode())
        head = await asyncio.wait_for(into.readuntil(b"\r\n\r\n"), 60)
        status = int(head.split(b" ", 2)[1])
        if status != 200:
            spectator.errors.append(f"status {status}")
            return
        ready.release()
        released = True
        event, pending = b"", b""
        async for data in stream_body(into, b"transfer-encoding: chunked" in head.lower()):
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if line.startswith(b"event:"):
                    event = line[6:].strip()
                elif line.startswith(b"data:") and event == b"state":
                    found = VERSION.search(line, 0, 400)  # the message's version, near its start: not a parse
                    assert found is not None, line[:400]
                    spectator.seen.append((int(found[1]), time.perf_counter()))
            if done.is_set():
                return
    except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.TimeoutError, asyncio.CancelledError) as exc:
        if not done.is_set():
            spectator.errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        if out is not None:
            out.close()
        if not released:
            ready.release()


async def stream_body(into: asyncio.StreamReader, chunked: bool) -> AsyncIterator[bytes]:
    """An answer's body as it comes: its chunks (RFC 9112 7.1), or what is read until it ends."""
    while True:
        if not chunked:
            data = await into.read(65536)
            if not data:
                return
            yield data
            continue
        size = int((await into.readuntil(b"\r\n")).split(b";", 1)[0], 16)
        if size == 0:
            return
        yield (await into.readexactly(size + 2))[:-2]


async def spectating(url: str, games: list[str], folder: Path) -> list[tuple[list[tuple[int, float]], list[str]]]:
    """The spectators of ``games`` (one each), connected, then ``folder/ready`` made; they
    follow until ``folder/final.json`` (each table's last version) is there and they have
    seen it (10 s at most): what each saw, and its errors."""
    done = asyncio.Event()
    ready = asyncio.Semaphore(0)
    spectators = [Spectator(game) for game in games]
    watching = [asyncio.create_task(follow(url, s, done, ready, spectator_address(i, len(games))))
                for i, s in enumerate(spectators)]
    for _ in spectators:
        await asyncio.wait_for(ready.acquire(), 300)
    (folder / "ready").touch()
    deadline = time.perf_counter() + 3600
    while not (folder / "final.json").exists() and time.perf_counter() < deadline:
        await asyncio.sleep(0.05)  # the tables record meanwhile
    final = json.loads((folder / "final.json").read_text()) if (folder / "final.json").exists() else {}
    deadline = time.perf_counter() + 10
    while time.perf_counter() < deadline and not all(
            s.seen and s.seen[-1][0] >= final.get(s.game, 0) for s in spectators):
        await asyncio.sleep(0.05)  # a benchmark waits for its stragglers, bounded
    done.set()
    for task in watching:
        task.cancel()
    await asyncio.gather(*watching, return_exceptions=True)
    return [(s.seen, s.errors) for s in spectators]


def spectate(url: str, games: list[str], folder: str) -> list[tuple[list[tuple[int, float]], list[str]]]:
    """The spectators in a process of their own: a thousand event streams read and parsed
    are not the writers' client's work (``time.perf_counter`` is the system's monotonic
    clock, the same in every process, so their lags are measured against the writes')."""
    return asyncio.run(spectating(url, games, Path(folder)))


def attacking(turns: Turns | None) -> bool:
    """Whether the attacker is at it now: always, or in the attacking half of its turns."""
    return turns is None or turns.attacking(time.perf_counter())


async def idle_out(turns: Turns | None, stop: float) -> None:
    """Waits out an idle turn (until the next attacking one, or ``stop``)."""
    while not attacking(turns) and time.perf_counter() < stop:
        await asyncio.sleep(0.05)  # the attacker's own pause, not a timing anything measures


async def attack(url: str, games: list[str], deals: int, seconds: float, turns: Turns | None = None) -> dict[str, int]:
    """One address as hostile as it can be: eight readers of random points in time and a
    hand that keeps opening event streams (and holds those it gets), for ``seconds``;
    with ``turns``, only in their attacking halves (its streams closed in the others)."""
    import random

    answered: dict[str, int] = {}
    stop = time.perf_counter() + seconds
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx.AsyncClient(base_url=url, timeout=30, transport=transport, limits=limits) as client:
        async def streams() -> None:
            held: list[httpx.Response] = []
            while time.perf_counter() < stop:
                if not attacking(turns):
                    for r in held:
                        await r.aclose()
                    held.clear()
                    await idle_out(turns, stop)
                    continue
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

        await asyncio.gather(*(read_at_random(client, games, deals, stop, seconds, answered, turns)
                               for _ in range(8)), streams())
    return answered


async def read_at_random(client: httpx.AsyncClient, games: list[str], deals: int, stop: float, seconds: float,
                         answered: dict[str, int], turns: Turns | None = None) -> None:
    """One reader of the sheets at random points in time, a request as soon as the last
    is answered, until ``stop`` (with ``turns``, in their attacking halves only); its
    answers counted in ``answered``."""
    import random

    while time.perf_counter() < stop:
        if not attacking(turns):
            await idle_out(turns, stop)
            continue
        path = random.choice(READS)
        done = 1 - (stop - time.perf_counter()) / seconds  # the tables' events grow as they record
        at = random.randint(1, max(2, int(7 * deals * done)))
        try:
            r = await client.get(f"/api/games/{random.choice(games)}/{path}?at={at}")
            key = f"read {r.status_code}"
        except httpx.HTTPError as exc:
            key = f"read {type(exc).__name__}"
        answered[key] = answered.get(key, 0) + 1


async def readers_at_random(url: str, games: list[str], deals: int, seconds: float, n: int) -> dict[str, int]:
    """``n`` anonymous readers at random points, each from an address of its own
    (127.0.2.1 …), for ``seconds``."""
    answered: dict[str, int] = {}
    stop = time.perf_counter() + seconds

    async def reader(i: int) -> None:
        transport = httpx.AsyncHTTPTransport(local_address=f"127.0.2.{1 + i % 254}", verify=False)
        async with httpx.AsyncClient(base_url=url, timeout=30, transport=transport) as client:
            await read_at_random(client, games, deals, stop, seconds, answered)

    await asyncio.gather(*(reader(i) for i in range(n)))
    return answered


def readers(url: str, games: list[str], deals: int, seconds: float, n: int) -> dict[str, int]:
    """The anonymous readers in a process of their own (their client's work is not the writers')."""
    return asyncio.run(readers_at_random(url, games, deals, seconds, n))


def attacker(url: str, games: list[str], deals: int, seconds: float, turns: Turns | None = None) -> dict[str, int]:
    """The attacker in a process of its own (its client's work is not the writers')."""
    return asyncio.run(attack(url, games, deals, seconds, turns))


@dataclass(frozen=True)
class Turns:
    """The attacker at it and idle in turns of ``seconds`` each, from ``epoch`` (the
    system's monotonic clock, ``time.perf_counter``, the same in every process): the
    writers' deals of either kind of turn taken under the same load of the machine."""

    epoch: float
    seconds: float
    settle: float = 0.5  # seconds after a change of turn whose deals are counted in neither

    def attacking(self, at: float) -> bool:
        return at < self.epoch or int((at - self.epoch) // self.seconds) % 2 == 0

    def kind(self, at: float) -> str | None:
        """``attacked`` or ``idle`` for a deal sent at ``at``; None in a turn's first moments."""
        if at < self.epoch or (at - self.epoch) % self.seconds < self.settle:
            return None
        return "attacked" if self.attacking(at) else "idle"


@dataclass
class Load:
    """What else the service is under while the tables record: an attacker (``hostile``),
    anonymous ``readers`` at random points, every spectator on the first table
    (``crowd``)."""

    hostile: bool = False
    readers: int = 0
    crowd: bool = False
    turns: float = 0.0  # with ``hostile``: the attacker at it and idle in turns of so many seconds
    epoch: float = 0.0  # when the turns begin (set by ``side_load``)


def side_load(url: str, games: list[str], deals: int, interval: float, load: Load) -> Any:
    """The attacker or the readers, in a process of their own, for as long as the tables
    record (and a few seconds more); None when there are neither."""
    if not load.hostile and not load.readers:
        return None
    seconds = deals * max(interval, 0.2) + 5
    if load.turns:
        load.epoch = time.perf_counter() + 3  # when the tables begin: ``run`` waits 3 s for the process
    turns = Turns(load.epoch, load.turns) if load.turns else None
    work = (attacker, url, games, deals, seconds, turns) if load.hostile else (readers, url, games, deals, seconds,
                                                                                load.readers)
    return in_process(*work)


def in_process(work: Any, *args: Any) -> Any:
    """``work(*args)`` in a process of its own (spawned): its future."""
    import concurrent.futures
    import multiprocessing

    pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    future = asyncio.get_running_loop().run_in_executor(pool, work, *args)
    future.add_done_callback(lambda _: pool.shutdown(wait=False))  # its process ends with its work
    return future


async def new_tables(served: Served, tables_n: int) -> list[Table]:
    with served.http() as http:
        director = sign_in(http, "bench", "bench password")
        tables = []
        for t in range(tables_n):
            game = f"table-{t + 1}"
            r = http.post("/api/games", json={"id": f"bench-new-{game}", "game": game,
                                              "players": ["Anna", "Boris", "Vera"], "pulya": 500}, headers=director)
            assert r.status_code == 201, r.text
            token = http.post(f"/api/games/{game}/tokens", json={"holder": "Masha"}, headers=director).json()
            tables.append(Table(game, token["token"]))
    return tables


async def run(db: str, tables_n: int, spectators_n: int, deals: int, interval: float, log: Path,
              load: Load | None = None) -> dict[str, object]:
    load = load or Load()
    account(db, "bench", "director", "bench password")
    served = Served(db, log, args=tuple(SERVE_ARGS), budget=None)  # its own budget: what (a)-(c) measure
    try:
        tables = await new_tables(served, tables_n)
        games = [tables[0 if load.crowd else i % tables_n].game for i in range(spectators_n)]
        folder = Path(tempfile.mkdtemp(dir=log.parent))
        watched = in_process(spectate, served.url, games, str(folder))
        while not (folder / "ready").exists():
            if watched.done():
                await watched  # the spectators' process failed: its error
            await asyncio.sleep(0.05)  # the spectators connecting (bounded in their process)
        limits = httpx.Limits(max_connections=tables_n + 5, max_keepalive_connections=tables_n + 5)
        side = side_load(served.url, [t.game for t in tables], deals, interval, load)
        if side is not None:
            await asyncio.sleep(3)  # the other process started and at it before the tables record
        start = time.perf_counter()
        async with httpx.AsyncClient(base_url=served.url, timeout=60, limits=limits) as client:
            await asyncio.gather(*(record(client, t, deals, i, interval, start + interval * i / tables_n)
                                   for i, t in enumerate(tables)))
        elapsed = time.perf_counter() - start
        answered = await side if side is not None else None
        (folder / "final.json").write_text(json.dumps({t.game: t.version for t in tables}))
        spectators = [Spectator(game, seen, errors) for game, (seen, errors) in zip(games, await watched)]
    finally:
        served.stop()
    result = figures(db, tables, spectators, elapsed, load)
    if answered is not None:
        result["attacker" if load.hostile else "readers"] = dict(sorted(answered.items()))
    return result


def ms(values: list[float]) -> dict[str, float]:
    return {q: round(percentile(values, p) * 1000, 1) for q, p in (("p50", 0.50), ("p95", 0.95), ("p99", 0.99))}


def in_turns(tables: list[Table], turns: Turns) -> dict[str, Any]:
    """The writers' times in the attacker's turns and in its idle ones, and the ratio of
    their p99s (a deal's latency is paired with its request's start in ``Table.sent``)."""
    kinds: dict[str, list[float]] = {"attacked": [], "idle": []}
    for t in tables:
        for latency, (_version, start) in zip(t.latencies, t.sent):
            kind = turns.kind(start)
            if kind is not None:
                kinds[kind].append(latency)
    attacked, idle = ms(kinds["attacked"]), ms(kinds["idle"])
    return {"turns_seconds": turns.seconds, "attacked_deals": len(kinds["attacked"]), "idle_deals": len(kinds["idle"]),
            "attacked_deal_ms": attacked, "idle_deal_ms": idle,
            "turns_p99_ratio": round(attacked["p99"] / idle["p99"], 2) if idle["p99"] else None}


def figures(db: str, tables: list[Table], spectators: list[Spectator], elapsed: float, load: Load) -> dict[str, Any]:
    """What a run measured: the writers' times, the spectators' lags, what was lost or
    stored twice (the store counted against the answers)."""
    final = {t.game: t.version for t in tables}
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
        "tables": len(tables), "spectators": len(spectators), "deals": len(latencies), "seconds": round(elapsed, 1),
        "deals_per_second": round(len(latencies) / elapsed, 1) if elapsed else None,
        "deal_ms": ms(latencies),
        "worst": worst(tables),
        **({"others_deal_ms": ms([x for t in tables[1:] for x in t.latencies])} if load.crowd else {}),
        **(in_turns(tables, Turns(load.epoch, load.turns)) if load.turns else {}),
        "first_vs_last_p50_ms": (round(percentile(firsts, 0.5) * 1000, 1), round(percentile(lasts, 0.5) * 1000, 1)),
        "lag_ms": ms(lags),
        "errors": sum(len(t.errors) for t in tables) + sum(len(s.errors) for s in spectators),
        "lost": sum(max(0, t.events - stored[t.game]) for t in tables)
        + sum(1 for s in spectators if not s.seen or s.seen[-1][0] < final[s.game]),
        "duplicated": sum(max(0, stored[t.game] - t.events) for t in tables) + sum(t.duplicates_stored for t in tables),
        "first_errors": ([e for t in tables for e in t.errors] + [e for s in spectators for e in s.errors])[:3],
    }


def worst(tables: list[Table], n: int = 12) -> list[tuple[float, float]]:
    """The ``n`` slowest deals: (milliseconds, seconds into the run when it was sent)."""
    start = min((sent for t in tables for _v, sent in t.sent), default=0.0)
    timed = sorted(((lat, sent - start) for t in tables for lat, (_v, sent) in zip(t.latencies, t.sent)), reverse=True)
    return [(round(lat * 1000, 1), round(at, 1)) for lat, at in timed[:n]]


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
    parser.add_argument("--targets", action="store_true",
                        help="issue 30's runs beside their targets: quiet, (a) readers, (b) crowd, (c) hostile")
    parser.add_argument("--only", help="with --targets: the runs to make, comma-separated (quiet is always made)")
    parser.add_argument("--serve-arg", action="append", default=[], metavar="ARG",
                        help="an option passed to pulka serve, e.g. --serve-arg=--switch-interval=0.005 (repeatable)")
    args = parser.parse_args()
    SERVE_ARGS[:] = args.serve_arg
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
            where = Where(label, address, pg, tmp)
            if args.hostile or args.targets:
                names = ["quiet", *(args.only.split(",") if args.only else SCENARIOS)] if args.targets \
                    else ["quiet", "hostile", "turns"]
                crowd = 100 if args.quick else 1000
                failed |= scenario_runs(where, dict.fromkeys(names), tables, spectators, crowd, deals, args.interval)
                continue
            for run_name, interval in (("paced", args.interval), ("flat out", 0.0)):
                result = one_run(where, f"{interval:g}", tables, spectators, deals, interval, Load())
                print(f"{label}, {run_name} ({interval:g} s between a table's deals): {json.dumps(result)}", flush=True)
                failed |= bool(result["errors"] or result["lost"] or result["duplicated"])
                if label == "given":
                    break  # a given store is not fresh for a second run
    sys.exit(1 if failed else 0)


@dataclass
class Where:
    """The store of a run: its label (SQLite, PostgreSQL, given), its address, the
    PostgreSQL server's and the temporary folder."""

    label: str
    address: str
    pg: str | None
    tmp: str


def one_run(where: Where, name: str, tables: int, spectators: int, deals: int, interval: float,
            load: Load) -> dict[str, Any]:
    """One run on a fresh store: a schema of its own on PostgreSQL, a file of its own on SQLite."""
    schema = None
    target = where.address
    if where.label == "PostgreSQL":
        target, schema = postgres_schema(where.pg or "")
    elif where.label == "SQLite":
        target = str(Path(where.tmp) / f"bench-{name}.db")
    try:
        return asyncio.run(run(target, tables, spectators, deals, interval, Path(where.tmp) / f"{where.label}-{name}.log",
                               load))
    finally:
        if schema is not None:
            drop_schema(where.pg or "", schema)


SERVE_ARGS: list[str] = []  # --serve-arg: options of the served process
SCENARIOS = {"readers": "(a)", "crowd": "(b)", "hostile": "(c)", "turns": "(c)"}
TURN_SECONDS = 3.0  # the attacker's turns in the ``turns`` run: at it, idle, at it …
READERS = 32  # issue 30's anonymous readers at random points (8 with --quick)


def scenario_runs(where: Where, names: dict[str, None], tables: int, spectators: int, crowd: int, deals: int,
                  interval: float) -> bool:
    """The quiet run, then each of ``names`` (``SCENARIOS``), each printed, then each
    figure beside its target; True when one is missed or a run lost or doubled a write."""
    loads = {"quiet": (spectators, Load()), "readers": (crowd, Load(readers=READERS if crowd >= 1000 else 8)),
             "crowd": (crowd, Load(crowd=True)), "hostile": (spectators, Load(hostile=True)),
             "turns": (spectators, Load(hostile=True, turns=TURN_SECONDS))}
    results = {}
    failed = False
    for name in names:
        n, load = loads[name]
        results[name] = result = one_run(where, name, tables, n, deals, interval, load)
        print(f"{where.label}, paced, {name}: {json.dumps(result)}", flush=True)
        failed |= bool(result["errors"] or result["lost"] or result["duplicated"])
    quiet = results["quiet"]["deal_ms"]["p99"]
    judged = [("quiet", "the writers' p99", quiet, 100.0, "ms")]
    if "readers" in results:
        judged.append(("(a) readers", "the writers' p99", results["readers"]["deal_ms"]["p99"], 100.0, "ms"))
    if "crowd" in results:
        judged += [("(b) crowd", "the crowd's lag p99", results["crowd"]["lag_ms"]["p99"], 200.0, "ms"),
                   ("(b) crowd", "the other writers' p99", results["crowd"]["others_deal_ms"]["p99"], 100.0, "ms")]
    if "hostile" in results:
        p99 = results["hostile"]["deal_ms"]["p99"]
        judged.append(("(c) hostile", f"the writers' p99 {p99} ms against {quiet} ms quiet: ratio",
                       round(p99 / quiet, 2) if quiet else float("inf"), 1.5, ""))
    if "turns" in results:
        r = results["turns"]
        judged.append(("(c) hostile in turns", f"the writers' p99 {r['attacked_deal_ms']['p99']} ms attacked "
                       f"against {r['idle_deal_ms']['p99']} ms idle ({r['attacked_deals']} and {r['idle_deals']} "
                       f"deals, turns of {TURN_SECONDS:g} s): ratio", r["turns_p99_ratio"] or float("inf"), 1.5, ""))
    for run_name, what, value, target, unit in judged:
        met = value <= target
        failed |= not met
        print(f"{where.label}, {run_name}: {what} {value}{' ' + unit if unit else ''} (target at most {target:g}"
              f"{' ' + unit if unit else ''}): {'met' if met else 'MISSED'}", flush=True)
    return failed


if __name__ == "__main__":
    main()

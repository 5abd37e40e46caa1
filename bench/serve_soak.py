"""``make bench-serve BENCH_ARGS=--soak``: one ``pulka serve`` through a long evening.

Five tables record pulka after pulka of 40 deals (``SHORT_PULKAS`` of them in all, 3,000
deals), each deal as soon as the last was answered, while a sixth records one long pulka
of ``LONG_DEALS`` deals and thirty spectators follow the long pulka's event stream; then
the long pulka and a fresh one record the same deal in turns (``PAIRED`` each).
Printed: the service's memory (the RSS of the ``pulka serve`` process) after a warm-up
and at the end, and its growth (the target: flat after the warm-up); a deal's time in the
long pulka at deal 10 and at deal 400 (the median of the ten deals around each) and their
ratio, and the ratio of the deals taken in turns (the target: at most 1.3 — the figure of
the turns is the one to trust on a shared machine, whose load moves within the minutes
between deal 10 and deal 400); errors, and events lost or stored twice.

The writers name the version they hold (``?since=``) and the spectators ask for what
changed since the version told before (``?deltas=1``), as the pages do: an answer and a push carry the
new deal, not the whole game, so a deal's cost should not grow with its pulka's length.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from ledger.store.event_store import Store
from tests.serving import Served, account, sign_in

SHORT_DEALS, SHORT_PULKAS, SOAK_TABLES = 40, 75, 5
LONG_DEALS, SOAK_SPECTATORS = 400, 30
# Games the service keeps (``--kept-games``): fewer than the evening's 76, so that the bound
# is reached during the warm-up and the memory after it is that of a full cache: the six
# tables being played and two let go, not every pulka of the evening.
SOAK_KEPT = 8
WARM_UP = 500  # deals recorded before the memory is first measured
PAIRED = 40  # deals of the long pulka and of a fresh one taken in turns at the end
SAMPLE_EVERY = 250  # deals between readings of the memory
AROUND = 5  # deals either side of deal 10 and deal 400 whose median is taken
LINES = ("6S pass pass | 6S | whist whist | 6 2 2", "pass pass pass | 4 3 3", "7H pass pass | 7H | whist pass | 6 3 1")


def rss_kib(pid: int) -> int:
    """The resident memory of process ``pid``, KiB (Linux's /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Evening:
    """What the soak's writers share: the counts, the times, the memory's readings."""

    def __init__(self, served: Served, director: dict[str, str]) -> None:
        self.served, self.director = served, director
        self.recorded = 0
        self.errors: list[str] = []
        self.told: dict[str, int] = {}  # events each game's answers say are stored
        self.long_ms: list[float] = []
        self.warm_rss: int | None = None
        self.versions: dict[str, int] = {}  # each game's version its last answer told
        self.paired: tuple[list[float], list[float]] = ([], [])  # the long pulka's deals, a fresh one's, in turns
        self.rss_samples: list[float] = []  # MiB, every SAMPLE_EVERY deals: the curve, not two points

    async def new_game(self, client: httpx.AsyncClient, game: str, pulya: int) -> str:
        r = await client.post("/api/games", json={"id": f"soak-new-{game}", "game": game,
                                                  "players": ["Anna", "Boris", "Vera"], "pulya": pulya},
                              headers=self.director)
        assert r.status_code == 201, r.text
        self.told[game] = 1
        r = await client.post(f"/api/games/{game}/tokens", json={"holder": "Masha"}, headers=self.director)
        token: str = r.json()["token"]
        return token

    async def play(self, client: httpx.AsyncClient, game: str, token: str, deals: int,
                   times: list[float] | None = None) -> None:
        """``deals`` more deals of ``game``, one after another; each one's milliseconds kept in ``times``."""
        version = self.versions.get(game, 1)
        for k in range(deals):
            body = {"id": str(uuid.uuid4()), "version": version, "line": LINES[k % len(LINES)], "again": True}
            start = time.perf_counter()
            r = await client.post(f"/api/games/{game}/deal?since={version}", json=body,
                                  headers={"Authorization": f"Bearer {token}"})
            took = (time.perf_counter() - start) * 1000
            if r.status_code != 201:
                self.errors.append(f"{game} deal {k + 1}: {r.status_code} {r.text[:200]}")
                return
            doc = r.json()
            version = self.versions[game] = doc["state"]["version"]
            self.told[game] += len(doc["told"]["events"])
            if times is not None:
                times.append(took)
            self.recorded += 1
            if self.warm_rss is None and self.recorded >= WARM_UP:
                self.warm_rss = rss_kib(self.served.proc.pid)
            if self.recorded % SAMPLE_EVERY == 0:
                self.rss_samples.append(round(rss_kib(self.served.proc.pid) / 1024, 1))

    async def in_turns(self, client: httpx.AsyncClient, long_token: str) -> None:
        """The same deal on the long pulka (past deal 400) and on a fresh one, in turns
        (``PAIRED`` of each): the two times taken at the same moments, so that the
        machine's load, which changes within the minutes of a soak, weighs on both."""
        fresh_token = await self.new_game(client, "soak-fresh", 100_000)
        for _ in range(PAIRED):
            await self.play(client, "soak-long", long_token, 1, self.paired[0])
            await self.play(client, "soak-fresh", fresh_token, 1, self.paired[1])

    async def table(self, client: httpx.AsyncClient, t: int, pulkas: int) -> None:
        for p in range(pulkas):
            game = f"soak-{t}-{p}"
            await self.play(client, game, await self.new_game(client, game, 100_000), SHORT_DEALS)


async def spectate(url: str, game: str, seen: list[int], done: asyncio.Event, address: str) -> None:
    """A spectator's phone, from ``address`` (the service admits 8 live pages an address)."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=url, timeout=httpx.Timeout(120, connect=30), transport=transport) as client, \
            client.stream("GET", f"/api/games/{game}/events?deltas=1") as events:
        async for line in events.aiter_lines():
            if line.startswith("data:"):
                seen.append(json.loads(line[5:])["version"])
            if done.is_set():
                return


async def evening(db: str, log: Path) -> dict[str, Any]:
    account(db, "bench", "director", "bench password")
    served = Served(db, log, args=("--kept-games", str(SOAK_KEPT)), budget=None)  # its own budget
    try:
        with served.http() as http:
            director = sign_in(http, "bench", "bench password")
            cookies = httpx.Cookies(http.cookies)
        night = Evening(served, director)
        limits = httpx.Limits(max_connections=SOAK_TABLES + 5)
        async with httpx.AsyncClient(base_url=served.url, timeout=120, limits=limits, cookies=cookies) as client:
            long_token = await night.new_game(client, "soak-long", 1_000_000)
            done = asyncio.Event()
            seen: list[list[int]] = [[] for _ in range(SOAK_SPECTATORS)]
            watching = [asyncio.create_task(spectate(served.url, "soak-long", s, done, f"127.0.1.{1 + i}"))
                        for i, s in enumerate(seen)]
            start = time.perf_counter()
            share = [SHORT_PULKAS // SOAK_TABLES + (t < SHORT_PULKAS % SOAK_TABLES) for t in range(SOAK_TABLES)]
            await asyncio.gather(night.play(client, "soak-long", long_token, LONG_DEALS, night.long_ms),
                                 *(night.table(client, t, share[t]) for t in range(SOAK_TABLES)))
            elapsed = time.perf_counter() - start
            end_rss = rss_kib(served.proc.pid)
            await night.in_turns(client, long_token)
            last = night.told["soak-long"]
            deadline = time.perf_counter() + 30
            while time.perf_counter() < deadline and not all(s and s[-1] >= last for s in seen):
                await asyncio.sleep(0.1)  # the spectators' stragglers, bounded
            behind = sum(1 for s in seen if not s or s[-1] < last)
            done.set()
            for task in watching:
                task.cancel()
            await asyncio.gather(*watching, return_exceptions=True)
    finally:
        served.stop()
    with Store(db, create=False) as store:
        stored = {game: store.count(game) for game in night.told}
    return summary(night, stored, elapsed, end_rss, behind)


def summary(night: Evening, stored: dict[str, int], elapsed: float, end_rss: int, behind: int) -> dict[str, Any]:
    def median_ms(at: int) -> float | None:
        around = sorted(night.long_ms[max(0, at - 1 - AROUND):at - 1 + AROUND])
        return round(around[len(around) // 2], 1) if around else None

    at10, at400 = median_ms(10), median_ms(LONG_DEALS)
    long_paired, fresh_paired = (sorted(t)[len(t) // 2] if t else None for t in night.paired)
    warm = night.warm_rss or 0
    return {
        "deals": night.recorded, "games": len(night.told), "seconds": round(elapsed, 1),
        "rss_mib_after_warm_up": round(warm / 1024, 1), "rss_mib_at_end": round(end_rss / 1024, 1),
        "rss_growth_mib": round((end_rss - warm) / 1024, 1),
        "rss_growth_pct": round(100 * (end_rss - warm) / warm, 1) if warm else None,
        f"rss_mib_every_{SAMPLE_EVERY}_deals": night.rss_samples,
        "long_deal_ms_at_10": at10, "long_deal_ms_at_400": at400,
        "ratio_400_to_10": round(at400 / at10, 2) if at10 and at400 else None,
        "in_turns_ms_long_fresh": [round(long_paired or 0, 1), round(fresh_paired or 0, 1)],
        "in_turns_ratio": round(long_paired / fresh_paired, 2) if long_paired and fresh_paired else None,
        "errors": len(night.errors), "first_errors": night.errors[:3],
        "lost": sum(max(0, night.told[g] - stored[g]) for g in night.told) + behind,
        "duplicated": sum(max(0, stored[g] - night.told[g]) for g in night.told),
    }


def soak(db: str, log: Path) -> bool:
    """The soak on the store ``db``, printed; whether it met its targets."""
    print(f"Soak: {SHORT_PULKAS} pulkas of {SHORT_DEALS} deals on {SOAK_TABLES} tables and one of {LONG_DEALS} deals, "
          f"{SOAK_SPECTATORS} spectators on the long one; load average before: {os.getloadavg()[0]:.2f}", flush=True)
    print("Targets: memory flat after the warm-up; a deal at 400 at most 1.3 times a deal at 10; no errors, nothing "
          "lost or stored twice.", flush=True)
    result = asyncio.run(evening(db, log))
    print(f"soak: {json.dumps(result)}", flush=True)
    ratio = result["ratio_400_to_10"]
    print(f"soak: memory {result['rss_mib_after_warm_up']} MiB after the warm-up, {result['rss_mib_at_end']} MiB at "
          f"the end (growth {result['rss_growth_mib']} MiB); a deal {result['long_deal_ms_at_10']} ms at deal 10, "
          f"{result['long_deal_ms_at_400']} ms at deal 400 (ratio {ratio}, target at most 1.3)", flush=True)
    long_ms, fresh_ms = result["in_turns_ms_long_fresh"]
    print(f"soak: in turns, a deal past deal 400 {long_ms} ms, a deal of a fresh pulka {fresh_ms} ms (median of "
          f"{PAIRED} each; ratio {result['in_turns_ratio']}, target at most 1.3)", flush=True)
    return not (result["errors"] or result["lost"] or result["duplicated"])

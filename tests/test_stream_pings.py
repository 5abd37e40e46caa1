"""The live feed's keep-alive pings (web/app.py ``ping_interval``): each stream draws its
own interval, so that streams opened together — a room of spectators, a page every
phone reloads — do not ping together. Before, every stream pinged each 15 s from its
opening: 200 spectators' pings were one burst of sends in the event loop, and the
scorers' writes in flight waited behind it (a slow deal every 15 s in ``bench/serve.py``)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.requests import Request

from web.app import PING, PING_SPREAD, follow, ping_interval
from web.live import Hub
from web.service import Service

pytestmark = pytest.mark.sqlite_only  # the subject is the stream, not the store


def test_a_streams_interval_lies_in_the_spread_and_the_draws_cover_it() -> None:
    drawn = [ping_interval(random.Random(seed)) for seed in range(200)]
    assert all(PING <= d < PING + PING_SPREAD for d in drawn)
    assert max(drawn) - min(drawn) > 0.8 * PING_SPREAD  # spread over the range, not one value


def test_streams_opened_together_ping_at_intervals_of_their_own(tmp_path: Path) -> None:
    service = Service(str(tmp_path / "pulka.db"), threads=1)

    async def document(name: str, number: int, since: int | None) -> bytes:
        return b""

    app = Starlette()
    app.state.hub = Hub(service, document)

    async def opened() -> float:
        request = Request({"type": "http", "app": app, "method": "GET", "path": "/api/games/g/events",
                           "headers": [], "query_string": b""})
        response = await follow(request, {"g"}, [])
        return float(response.ping_interval)

    try:
        intervals = [asyncio.run(opened()) for _ in range(20)]
    finally:
        service.close()
    assert len(set(intervals)) == 20  # no two streams ping on the same beat
    assert all(PING <= i < PING + PING_SPREAD for i in intervals)

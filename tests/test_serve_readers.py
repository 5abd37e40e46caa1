"""What anyone may read never holds a table's write up (issue 30, and issue 29's hostile
reader): the reads run on a pool of their own whose full queue is answered 503 with
Retry-After while the tables write; a read begins in a gap between writes; a read is
charged the time it held its thread, not its CPU; and a live page's state is made once
per version and told to a crowd of followers a slice at a time, the event loop given
back between slices."""

from __future__ import annotations

import asyncio
import threading
import time
import types
from typing import Any

import pytest

from ledger.store.event_store import Store
from tests.serving import PASSWORD, account, bearer, client, sign_in, until
from web import api, service as service_module
from web.limits import Bounds
from web.app import PING
from web.live import Hub, Subscriber
from web.service import ON_READERS, POOL, Service

PLAYERS = ["Anna", "Boris", "Vera"]
DEAL = "6S pass pass | 6S | whist whist | 6 2 2"
WAIT = 30  # seconds a test waits for a thread it started, at most (a deadline, not a timing)
CROWD = 200  # followers of one table: more than one slice (``live.SLICE``)


def count(db: str, stream: str) -> int:
    with Store(db, create=False) as store:
        return store.count(stream)


def test_a_full_readers_pool_is_answered_503_and_no_write_waits_or_is_stored_twice(
        store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    account(store_url, "dora", "director", PASSWORD)
    entered, go = threading.Event(), threading.Event()
    made = api._view

    def held(*args: Any) -> Any:  # the one reader thread held until the test lets it go
        entered.set()
        assert go.wait(WAIT)
        return made(*args)

    with client(store_url, readers=1, read_queue=1, bounds=Bounds(rate=1000, burst=1000)) as c:
        c.app.state.tarpit = 0  # type: ignore[attr-defined]  # the refusal's wait is not this test's subject
        director = sign_in(c, "dora")
        assert c.post("/api/games", json={"id": "new-t1-0001", "game": "t1", "players": PLAYERS, "pulya": 10},
                      headers=director).status_code == 201
        phone = bearer(c.post("/api/games/t1/tokens", json={"holder": "Masha"}, headers=director).json()["token"])
        monkeypatch.setattr(api, "_view", held)
        first: list[int] = []
        reader = threading.Thread(target=lambda: first.append(c.get("/api/games/t1/sheet?at=1").status_code))
        reader.start()
        assert entered.wait(WAIT)
        busy = c.get("/api/games/t1/settlement")
        assert busy.status_code == 503 and int(busy.headers["retry-after"]) >= 1, busy.text
        assert busy.json()["refused"]["rule"] == "access"
        deal = {"id": "phone-0001", "version": 1, "line": DEAL}
        stored = c.post("/api/games/t1/deal", json=deal, headers=phone)
        assert stored.status_code == 201  # the read still held
        go.set()
        reader.join(WAIT)
        assert first == [200]
        again = c.post("/api/games/t1/deal", json=deal, headers=phone)
        assert again.status_code == 200 and again.json()["duplicate"]
        assert c.get("/api/games/t1/settlement").status_code == 200  # the pool has room again
    assert count(store_url, "t1") == 1 + len(stored.json()["told"]["events"])  # the start and one deal, once


@pytest.mark.sqlite_only
def test_a_read_begins_only_when_no_write_is_in_flight(tmp_path: Any) -> None:
    service = Service(str(tmp_path / "pulka.db"), threads=1, readers=1)
    writing = service.readers.writing
    began = threading.Event()

    async def read_while_writing() -> None:
        writing.began()  # a write in flight (waiting for or on the writers' pool)
        POOL.set(ON_READERS)
        reading = asyncio.ensure_future(service.run(began.set))
        await asyncio.to_thread(until, lambda: writing.waiting == 1, WAIT)
        assert not began.is_set()  # the read waits at its gap, not begun
        writing.ended()
        await asyncio.wait_for(reading, WAIT)
        assert began.is_set() and writing.waiting == 0

    try:
        asyncio.run(read_while_writing())
    finally:
        service.close()


@pytest.mark.sqlite_only
def test_an_anonymous_read_is_charged_the_time_it_held_its_thread_not_its_cpu(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "pulka.db")
    account(db, "dora", "director", PASSWORD)
    with client(db, bounds=Bounds(rate=0.0001, burst=2.0, cost=0.0)) as c:
        c.app.state.tarpit = 0  # type: ignore[attr-defined]
        director = sign_in(c, "dora")
        assert c.post("/api/games", json={"id": "new-t1-0001", "game": "t1", "players": PLAYERS, "pulya": 10},
                      headers=director).status_code == 201
        assert c.get("/api/games/t1/sheet").status_code == 200  # cheap: the budget stands
        ticks = iter(range(0, 10_000, 5))  # a clock on which each read takes five seconds: waiting, not working
        monkeypatch.setattr(service_module, "time", types.SimpleNamespace(
            perf_counter=lambda: float(next(ticks)), thread_time=time.thread_time))
        assert c.get("/api/games/t1/sheet").status_code == 200
        refused = c.get("/api/games/t1/sheet")
        assert refused.status_code == 429, refused.text  # five seconds charged, over the two saved


@pytest.mark.sqlite_only
def test_a_crowd_is_told_one_document_per_version_a_slice_at_a_time(tmp_path: Any) -> None:
    service = Service(str(tmp_path / "pulka.db"), threads=1)
    followers: list[Subscriber] = []
    made: list[tuple[str, int, int | None]] = []
    told_when_the_loop_turned: list[int] = []

    async def document(name: str, number: int, since: int | None) -> bytes:
        made.append((name, number, since))
        # what became ready as the document was made (a write's answer): it runs at the loop's next turn
        asyncio.get_running_loop().call_soon(
            lambda: told_when_the_loop_turned.append(sum(1 for f in followers if f.pending)))
        return f"state {name} {number}".encode()

    async def crowd() -> None:
        hub = Hub(service, document)
        followers.extend(hub.subscribe({"t1"}, deltas=True) for _ in range(CROWD))  # as the pages follow
        hub._changes = lambda: [("t1", 2), ("t1", 3), ("t2", 1)]  # type: ignore[method-assign]
        await hub.look()
        assert made == [("t1", 3, None)]  # once, the last version, whole (nothing told before); nobody follows t2
        sent = followers[0].pending["t1"]
        assert all(f.pending == {"t1": sent} and f.pending["t1"] is sent for f in followers)
        assert told_when_the_loop_turned and 0 < told_when_the_loop_turned[0] < len(followers)
        hub._changes = lambda: [("t1", 4), ("t2", 2)]  # type: ignore[method-assign]
        await hub.look()
        assert made[1:] == [("t1", 4, 3)]  # what changed since the version told before
        for f in followers:
            hub.unsubscribe(f)
        hub._changes = lambda: [("t1", 5)]  # type: ignore[method-assign]
        await hub.look()
        assert len(made) == 2 and "t1" not in hub.told  # nobody held version 4: the next one is whole
        plain = hub.subscribe({"t1"})  # a follower that did not ask for deltas: the whole game, as ever
        hub._changes = lambda: [("t1", 6)]  # type: ignore[method-assign]
        await hub.look()
        assert made[2:] == [("t1", 6, None)] and "t1" not in hub.told and plain.pending["t1"] == b"state t1 6"
        # a page sent version 7 first is the base of the next delta; one sent 9 later fetches the whole once
        hub.subscribe({"t3"}, deltas=True, at=7)
        hub.subscribe({"t3"}, deltas=True, at=9)
        hub._changes = lambda: [("t3", 10)]  # type: ignore[method-assign]
        await hub.look()
        assert made[3:] == [("t3", 10, 7)] and hub.told["t3"] == 10

    try:
        asyncio.run(crowd())
    finally:
        service.close()


@pytest.mark.sqlite_only
def test_a_slow_follower_is_sent_the_latest_state_not_every_one() -> None:
    async def slow() -> list[bytes]:
        follower = Subscriber({"t1"})
        for version in range(1, 6):
            follower.tell("t1", f"state {version}".encode())
        return await follower.next(PING) or []

    assert asyncio.run(slow()) == [b"state 5"]


@pytest.mark.sqlite_only
def test_many_addresses_each_within_its_budget_take_no_more_together_than_the_shared_one() -> None:
    from web.limits import Limits

    limits = Limits(Bounds(rate=1.0, burst=1.0, cost=0.0, total_rate=1.0, total_burst=1.0))
    assert limits.admit("10.0.0.1", False, 0.0) is None
    limits.done("10.0.0.1", False, 2.0, 0.0)  # two seconds of reading: its budget and the shared one spent
    refused = limits.admit("10.0.0.2", False, 0.0)  # another address, its own budget whole
    assert refused is not None and refused[0] == 503 and refused[2] >= 1.0, refused
    assert limits.admit("10.0.0.2", True, 0.0) is None  # a live page is not a read of the pool
    assert limits.admit("10.0.0.2", False, 1.5) is None  # refilled: 1.5 s at 1 s a second over the 1 s owed


def test_a_pages_own_files_are_not_held_to_the_requests_at_once_but_are_charged() -> None:
    """A phone opening the scorer's page asks for its scripts and styles all at once (six
    of them and more): they are not refused for being more than ``at_once``; reads are."""
    from web.limits import Limits

    limits = Limits(Bounds(rate=1.0, burst=1.0, cost=0.2, at_once=2, total_rate=100.0, total_burst=100.0))
    assert [limits.admit("10.0.0.1", False, 0.0) for _ in range(2)] == [None, None]  # two reads at once
    refused = limits.admit("10.0.0.1", False, 0.0)
    assert refused is not None and refused[0] == 429  # a third read waits for their answers
    assert [limits.admit("10.0.0.1", False, 0.0, file=True) for _ in range(6)] == [None] * 6
    for _ in range(6):
        limits.done("10.0.0.1", False, 0.0, 0.0)  # each file charged its cost, 0.2 s
    for _ in range(2):
        limits.done("10.0.0.1", False, 0.0, 0.0)
    refused = limits.admit("10.0.0.1", False, 0.0, file=True)
    assert refused is not None and refused[0] == 429  # eight requests' cost, 1.6 s, over the budget of 1 s

"""``pulka serve`` outliving its PostgreSQL database's restarts: every connection of the
service (the store's, the accounts', the live feed's) ended by the server, as a restart
ends them (``pg_terminate_backend`` of the connections the service names by
``PGAPPNAME``, on the shared cluster: only this test's), between writes and during
them. No answer is a 500; a write the store could not take is a 503 with Retry-After,
and sent again it is stored once; recording is back within seconds, without a
restart; the live feed goes on from where it was."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import httpx
import psycopg
import pytest

from ledger.store.backend import parse_postgres_url
from ledger.store.event_store import Store
from tests.serving import WAIT, Served, account, bearer, next_state, sign_in, started

pytestmark = pytest.mark.postgres

DEALS = ["6S pass pass | 6S | whist whist | 6 2 2", "pass pass pass | 2 5 3", "pass pass pass | 3 5 2"]
BACK = 5.0  # seconds within which recording must be back after the connections were ended


def ended(admin: psycopg.Connection[Any], name: str) -> int:
    """End every connection of the service named ``name``, as a restart of the server
    does; how many were ended."""
    rows = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
                         (name,)).fetchall()
    return sum(1 for (done,) in rows if done)


class Ends:
    """Ends of the service's connections, as a restart makes them; when the last was."""

    def __init__(self) -> None:
        self.last = time.monotonic()

    def __call__(self, admin: psycopg.Connection[Any], name: str) -> int:
        count = ended(admin, name)
        self.last = time.monotonic()
        return count


def sent(http: httpx.Client, path: str, body: dict[str, object], headers: dict[str, str], answers: list[int],
         ends: Ends, ending: threading.Event | None = None) -> httpx.Response:
    """``body`` posted to ``path`` until the service takes it: a 503 (with its
    Retry-After) is sent again at once, with the same id, while connections are being
    ended (``ending`` set) and for ``BACK`` seconds after the last end; every status
    seen is kept in ``answers``."""
    while True:
        r = http.post(path, json=body, headers=headers)
        answers.append(r.status_code)
        if r.status_code != 503:
            return r
        assert r.headers["Retry-After"].isdigit(), r.headers
        assert "nothing was stored" in r.json()["error"], r.text
        if ending is None or not ending.is_set():
            assert time.monotonic() < ends.last + BACK, f"still 503 {BACK} s after the last end: {r.text}"


@pytest.fixture
def admin(postgres_url: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(**parse_postgres_url(postgres_url).connect_kwargs(), autocommit=True) as conn:
        yield conn


def test_the_service_records_again_after_its_connections_are_ended(postgres_url: str, admin: psycopg.Connection[Any],
                                                                   tmp_path: Path) -> None:
    name = f"pulka-reconnect-{uuid4().hex[:8]}"
    account(postgres_url, "dora", "director")
    served = Served(postgres_url, tmp_path / "serve.log", env={"PGAPPNAME": name})
    answers: list[int] = []
    ends = Ends()
    try:
        http, _, token = started(served)
        with httpx.Client(base_url=served.url, timeout=WAIT) as spectator, \
                spectator.stream("GET", "/api/games/t1/events") as events:
            lines = events.iter_lines()
            assert next_state(lines, 1)["version"] == 1
            assert ends(admin, name) >= 3  # the store's, the accounts', the feed's
            version = 1
            for i, line in enumerate(DEALS):
                r = sent(http, "/api/games/t1/deal", {"id": f"phone-{i:04d}", "version": version, "line": line},
                         bearer(token), answers, ends)
                assert r.status_code in (200, 201), r.text
                version = r.json()["state"]["version"]
                assert next_state(lines, version)["version"] == version  # the feed goes on
                ends(admin, name)
            # Signing in needs the accounts' connection, ended just now.
            again = served.http()
            sign_in(again, "dora")
            again.close()
        assert 500 not in answers, answers
        state = http.get("/api/games/t1").json()
        assert state["version"] == version
        # Each deal once, in order, whatever was sent twice.
        told = [[int(n) for n in re.findall(r"\d+", d["line"].split(" | ")[-1])] for d in state["deals"]]
        assert told == [[int(n) for n in d.split(" | ")[-1].split()] for d in DEALS]
    finally:
        served.stop()
    with Store(postgres_url, create=False) as store:
        assert store.count("t1") == version


def test_writes_during_the_ends_are_stored_once_or_answered_503(postgres_url: str, admin: psycopg.Connection[Any],
                                                                tmp_path: Path) -> None:
    name = f"pulka-reconnect-{uuid4().hex[:8]}"
    account(postgres_url, "dora", "director")
    served = Served(postgres_url, tmp_path / "serve.log", env={"PGAPPNAME": name})
    answers: list[int] = []
    ends, ending = Ends(), threading.Event()

    def restarting() -> None:
        """Ten ends of every connection of the service, while it is written to."""
        with psycopg.connect(**parse_postgres_url(postgres_url).connect_kwargs(), autocommit=True) as conn:
            for _ in range(10):
                ends(conn, name)
                time.sleep(0.05)  # a pace for the ends, not a timing the test relies on
        ending.clear()

    ender = threading.Thread(target=restarting)
    try:
        http, _, token = started(served, "t2", pulya=50)
        ending.set()
        ender.start()
        version, count = 1, 12
        for i in range(count):
            r = sent(http, "/api/games/t2/deal", {"id": f"busy-{i:04d}", "version": version,
                                                  "line": DEALS[1 + i % 2]}, bearer(token), answers, ends, ending)
            assert r.status_code in (200, 201), r.text
            version = r.json()["state"]["version"]
        ender.join()
        assert 500 not in answers, answers
        assert len(http.get("/api/games/t2").json()["deals"]) == count
    finally:
        if ender.is_alive():
            ender.join()
        served.stop()
    with Store(postgres_url, create=False) as store:
        stored = store.load("t2")
    # Each deal of all passes is three passes and a tally: four events, each deal once.
    assert len(stored) == 1 + 4 * count == version, (len(stored), version)

"""``pulka serve`` as real processes: a spectator's event stream delivering the command
line's write (SQLite) and a second process's (PostgreSQL), nothing lost and nothing
stored twice when the server is killed with ``kill -9`` at the moment of a write, and
no secret in what the server logs."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from ledger.store.event_store import Store
from tests.serving import PASSWORD, PULKA, ROOT, WAIT, Served, account, bearer, next_state, sign_in, started

DEAL = "6S pass pass | 6S | whist whist | 6 2 2"




def test_a_spectator_sees_a_deal_the_command_line_records_on_sqlite(tmp_path: Path) -> None:
    db = str(tmp_path / "club.db")
    account(db, "dora", "director")
    served = Served(db, tmp_path / "serve.log")
    try:
        http, _, _ = started(served)
        with httpx.Client(base_url=served.url, timeout=WAIT) as spectator, \
                spectator.stream("GET", "/api/games/t1/events") as events:
            lines = events.iter_lines()
            assert next_state(lines, 1)["state"]["version"] == 1  # the state now, first
            subprocess.run([*PULKA, "--db", db, "deal", "t1", DEAL], cwd=ROOT, check=True, capture_output=True)
            message = next_state(lines, 8)
        assert message["state"]["deals"][0]["line"].startswith("Anna 6S")
        assert message["state"]["settlement"]["sheet"]["Anna"]["pulya"] == 2
    finally:
        served.stop()


@pytest.mark.postgres
def test_two_processes_on_postgresql_serve_one_table_consistently(postgres_url: str, tmp_path: Path) -> None:
    account(postgres_url, "dora", "director")
    one, two = Served(postgres_url, tmp_path / "one.log"), Served(postgres_url, tmp_path / "two.log")
    try:
        http, _, token = started(one)
        with httpx.Client(base_url=two.url, timeout=WAIT) as spectator, \
                spectator.stream("GET", "/api/games/t1/events") as events:
            lines = events.iter_lines()
            assert next_state(lines, 1)["version"] == 1
            r = http.post("/api/games/t1/deal", json={"id": "phone-0001", "version": 1, "line": DEAL},
                          headers=bearer(token))
            assert r.status_code == 201
            seen = next_state(lines, 8)  # through the other process: PostgreSQL's notification
            assert seen["state"]["deals"][0]["line"].startswith("Anna 6S")
            # The other process's kept fold follows: a write through it on version 8 is stored,
            # and one on the version before is a conflict there too.
            with two.http() as phone:
                r = phone.post("/api/games/t1/deal", json={"id": "phone-0002", "version": 8,
                                                           "line": "pass pass pass | 2 5 3"}, headers=bearer(token))
                assert r.status_code == 201, r.text
                stale = phone.post("/api/games/t1/deal", json={"id": "phone-0003", "version": 8,
                                                               "line": "pass pass pass | 3 5 2"},
                                   headers=bearer(token))
                assert stale.status_code == 409 and stale.json()["state"]["version"] == 12
            assert http.get("/api/games/t1").json()["version"] == 12
    finally:
        one.stop()
        two.stop()


def stopped(proc: subprocess.Popen[bytes]) -> None:
    """Wait until the process has stopped itself (``backend.pause``), with no timing."""
    _, status = os.waitpid(proc.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), status


@pytest.mark.parametrize("where", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_kill_9_at_the_write_loses_nothing_and_a_resend_stores_it_once(where: str, tmp_path: Path,
                                                                         request: pytest.FixtureRequest) -> None:
    db = str(tmp_path / "club.db") if where == "sqlite" else str(request.getfixturevalue("postgres_url"))
    account(db, "dora", "director")
    served = Served(db, tmp_path / "first.log")
    http, _, token = started(served)
    r = http.post("/api/games/t1/deal", json={"id": "phone-0001", "version": 1, "line": DEAL}, headers=bearer(token))
    assert r.status_code == 201
    served.stop()
    # The server stops itself where a write is about to begin, and is killed there.
    paused = Served(db, tmp_path / "paused.log", env={"PULKA_TEST_PAUSE": "write"})
    answers: list[Any] = []
    body = {"id": "phone-0002", "version": 8, "line": "pass pass pass | 2 5 3"}

    def phone() -> None:
        try:
            answers.append(httpx.post(paused.url + "/api/games/t1/deal", json=body, headers=bearer(token),
                                      timeout=WAIT))
        except httpx.TransportError as exc:
            answers.append(exc)

    sender = threading.Thread(target=phone)
    sender.start()
    stopped(paused.proc)
    paused.proc.send_signal(signal.SIGKILL)
    paused.proc.wait(WAIT)
    sender.join(WAIT)
    assert isinstance(answers[0], httpx.TransportError)  # the phone got no answer: it keeps the entry
    with Store(db, create=False) as store:
        # the first deal, stored before, is there; the second is not (should it ever be,
        # the message says what was stored, by whom and when, and what the server logged)
        assert store.count("t1") == 8, (
            [(s.number, type(s.event).__name__, s.event.by, s.event.at) for s in store.load("t1")[7:]],
            (tmp_path / "first.log").read_text(errors="replace")[-2000:],
            (tmp_path / "paused.log").read_text(errors="replace")[-2000:],
        )
    again = Served(db, tmp_path / "again.log")
    try:
        with again.http() as http:
            first = http.post("/api/games/t1/deal", json=body, headers=bearer(token))
            second = http.post("/api/games/t1/deal", json=body, headers=bearer(token))
            assert first.status_code == 201 and second.status_code == 200 and second.json()["duplicate"]
            # The answer lost after the commit: a kill after the write, then the same write again.
            again.kill()
        last = Served(db, tmp_path / "last.log")
        try:
            with last.http() as http:
                third = http.post("/api/games/t1/deal", json=body, headers=bearer(token))
                assert third.json()["duplicate"] and third.json()["stored"] == {"first": 9, "last": 12}
        finally:
            last.stop()
    finally:
        again.stop()
    with Store(db, create=False) as store:
        assert store.count("t1") == 12 and store.verify("t1") is None


@pytest.mark.parametrize("where", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_nothing_secret_in_the_servers_log(where: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    # On PostgreSQL, the address's password is one more secret (an address without one is skipped).
    db = str(tmp_path / "club.db") if where == "sqlite" else str(request.getfixturevalue("postgres_url_with_password"))
    account(db, "dora", "director")
    served = Served(db, tmp_path / "serve.log")
    try:
        http, director, token = started(served)
        http.post("/api/games/t1/deal", json={"id": "phone-0001", "version": 1, "line": DEAL}, headers=bearer(token))
        http.post("/api/games/t1/deal", json={"id": "phone-0002", "version": 1, "line": "x"}, headers=bearer(token))
        http.get("/api/games/t1/log", headers=bearer(token))
        with httpx.Client(base_url=served.url) as stranger:
            sign = stranger.get("/api/session").json()["csrf"]
            stranger.post("/api/session", json={"name": "dora", "password": PASSWORD + "x"},
                          headers={"X-CSRF-Token": sign})
        session = http.cookies.get("pulka_session")
        assert session
    finally:
        served.stop()
    log = (tmp_path / "serve.log").read_text(errors="replace")
    assert "POST /api/games/t1/deal 201" in log  # it does log the requests
    secrets = [PASSWORD, token, token.partition(".")[2], session]
    if where == "postgres":
        secrets.append(httpx.URL(db).password or "")
    for secret in secrets:
        assert secret and secret not in log

"""The live service (``pulka serve``), through its HTTP API: who may do
what, CSRF, the sign-in limit, every write stored once under resends and across
processes, the 409 of a second phone, refusals as JSON, a structured outcome recorded as
its deal line, and the language of a request. What is kept in the store (the writes
stored once, the tokens, the sign-in limit, the second phone's 409) on both stores.
Real processes where a process is the point: ``test_serve_processes.py``."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from ledger.application import Ledger
from ledger.desks.pulka import PulkaDesk
from ledger.store.event_store import Store
from tests.serving import PASSWORD, PULKA, ROOT, account, bearer, client, new_game, sign_in, table_token
from web.accounts import CHEAP_HASH_ENV, password_hasher

PLAYERS = ["Anna", "Boris", "Vera"]
DEAL = "6S pass pass | 6S | whist whist | 6 2 2"


def events(db: str, game: str) -> list[Any]:
    with Store(db, create=False) as store:
        return [s.event for s in store.load(game)]






@pytest.fixture
def club(store_url: str) -> str:
    account(store_url, "dora", "director")
    account(store_url, "igor", "arbiter")
    return store_url


def test_each_role_does_what_it_may_and_records_in_its_own_name(club: str) -> None:
    with client(club) as c:
        director = sign_in(c, "dora")
        new_game(c, director, "t1")
        new_game(c, director, "t2", "new-game-0002")
        masha = table_token(c, director, "t1", "Masha")  # not a player: scorer:Masha
        anna = table_token(c, director, "t1", "anna")  # a player, named in any case
        c.cookies.clear()  # from here on, the phones: no session
        r = c.post("/api/games/t1/deal", json={"id": "deal-0001", "version": 1, "line": DEAL}, headers=bearer(masha))
        assert r.status_code == 201, r.text
        assert {e["by"] for e in r.json()["told"]["events"]} == {"scorer:Masha"}
        r = c.post("/api/games/t1/pencil", json={"id": "pencil-0001", "version": 8}, headers=bearer(anna))
        assert r.status_code == 201 and r.json()["told"]["events"][0]["by"] == "Anna"
        # A table's token: not at another table, not the arbiter's commands, not in another's name.
        assert c.post("/api/games/t2/deal", json={"id": "deal-0002", "version": 1, "line": DEAL},
                      headers=bearer(masha)).status_code == 403
        assert c.get("/api/games/t2/log", headers=bearer(masha)).status_code == 403
        assert c.get("/api/games/t1/log", headers=bearer(masha)).status_code == 200
        assert c.post("/api/games/t1/penalty", json={"id": "pen-00001", "version": 9, "player": "Anna",
                                                     "column": "gora", "amount": 2, "reason": "x"},
                      headers=bearer(masha)).status_code == 403
        assert c.post("/api/games/t1/tokens", json={"holder": "x"}, headers=bearer(masha)).status_code == 403
        r = c.post("/api/games/t1/deal", json={"id": "deal-0003", "version": 9, "line": DEAL, "by": "Boris"},
                   headers=bearer(masha))
        assert r.status_code == 422 and r.json()["refused"]["field"] == "by"
        # Nobody signed in: reads only.
        assert c.get("/api/games/t1").json()["version"] == 9
        assert c.get("/api/games/t1/sheet.svg").text.startswith("<?xml")
        assert c.post("/api/games/t1/undo", json={"id": "undo-00001", "version": 9}).status_code == 401
        assert c.get("/api/games/t1/log").status_code == 401
        # A revoked token records nothing.
        sign_in(c, "igor")
        revoked = c.delete(f"/api/tokens/{anna.partition('.')[0]}", headers={"X-CSRF-Token": c.get(
            "/api/session").json()["csrf"]})
        assert revoked.status_code == 200 and revoked.json()["token"]["revoked"] is not None
        c.cookies.clear()
        assert c.post("/api/games/t1/undo", json={"id": "undo-00002", "version": 9},
                      headers=bearer(anna)).status_code == 401
        # The arbiter: a penalty in his own name; a tournament is the director's.
        arbiter = sign_in(c, "igor")
        r = c.post("/api/games/t1/penalty", json={"id": "pen-00002", "version": 9, "player": "Anna", "column": "gora",
                                                  "amount": 2, "reason": "talking"}, headers=arbiter)
        assert r.status_code == 201 and r.json()["told"]["events"][0]["by"] == "arbiter:igor"
        assert c.post("/api/tournaments", json={"id": "tour-00001", "name": "cup", "players": PLAYERS * 2,
                                                "pulya": 10}, headers=arbiter).status_code == 403
    by = [e.by for e in events(club, "t1")]
    assert by == ["arbiter:dora", *["scorer:Masha"] * 7, "Anna", "arbiter:igor"]


@pytest.mark.sqlite_only
def test_a_write_without_its_csrf_token_is_refused_and_stores_nothing(club: str) -> None:
    with client(club) as c:
        director = sign_in(c, "dora")
        new_game(c, director)
        for headers in ({}, {"X-CSRF-Token": "forged"}):
            r = c.post("/api/games/t1/deal", json={"id": "deal-0001", "version": 1, "line": DEAL}, headers=headers)
            assert r.status_code == 403 and "CSRF" in r.json()["refused"]["message"]
        assert len(events(club, "t1")) == 1
        c.cookies.clear()
        r = c.post("/api/session", json={"name": "dora", "password": PASSWORD})  # a sign-in too needs it
        assert r.status_code == 403
        assert c.post("/api/games/t1/deal", json={"id": "deal-0001", "version": 1, "line": DEAL},
                      headers=director).status_code == 401  # the header alone signs nobody in


def test_sign_in_attempts_are_limited_per_account_across_processes_and_per_address(club: str) -> None:
    with client(club) as c:
        csrf = {"X-CSRF-Token": c.get("/api/session").json()["csrf"]}
        for _ in range(5):
            r = c.post("/api/session", json={"name": "dora", "password": "wrong password"}, headers=csrf)
            assert r.status_code == 401
        r = c.post("/api/session", json={"name": "dora", "password": PASSWORD}, headers=csrf)
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1  # the right one waits too
    with client(club) as other:  # another process on the same store
        csrf = {"X-CSRF-Token": other.get("/api/session").json()["csrf"]}
        assert other.post("/api/session", json={"name": "dora", "password": PASSWORD}, headers=csrf).status_code == 429
        for _ in range(9):  # the address's own limit: ten a minute
            other.post("/api/session", json={"name": "nobody", "password": "x"}, headers=csrf)
        r = other.post("/api/session", json={"name": "igor", "password": PASSWORD}, headers=csrf)
        assert r.status_code == 429 and "sign-in attempts from here" in r.json()["refused"]["message"]


def test_a_write_sent_again_is_stored_once(club: str) -> None:
    with client(club) as c:
        director = sign_in(c, "dora")
        new_game(c, director)
        new_game(c, director, "t2", "new-game-0002")
        phone = bearer(table_token(c, director, "t1", "Masha"))
        first = c.post("/api/games/t1/deal", json={"id": "phone-0001", "version": 1, "line": DEAL}, headers=phone)
        assert first.status_code == 201
        for _ in range(3):  # the answer was lost: the phone sends it again, as it was
            again = c.post("/api/games/t1/deal", json={"id": "phone-0001", "version": 1, "line": DEAL}, headers=phone)
            assert again.status_code == 200 and again.json()["duplicate"] is True
            assert again.json()["stored"] == {"first": 2, "last": 8} and again.json()["state"]["version"] == 8
        with client(club) as second:  # another process: the receipt is in the store
            again = second.post("/api/games/t1/deal", json={"id": "phone-0001", "version": 1, "line": DEAL},
                                headers=phone)
            assert again.json()["duplicate"] is True
        used = c.post("/api/games/t2/deal", json={"id": "phone-0001", "version": 1, "line": DEAL}, headers=director)
        assert used.status_code == 422 and used.json()["refused"]["field"] == "id"
    assert len(events(club, "t1")) == 8 and len(events(club, "t2")) == 1


def test_the_same_write_sent_to_two_processes_at_once_is_stored_once(club: str) -> None:
    with client(club) as a, client(club) as b:
        director = sign_in(a, "dora")
        new_game(a, director)
        phone = bearer(table_token(a, director, "t1", "Masha"))
        answers: list[Any] = []
        start = threading.Barrier(8)

        def send(c: TestClient) -> None:
            start.wait()
            answers.append(c.post("/api/games/t1/deal", json={"id": "phone-0002", "version": 1, "line": DEAL},
                                  headers=phone))

        threads = [threading.Thread(target=send, args=(a if i % 2 else b,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    codes = sorted(r.status_code for r in answers)
    assert codes.count(201) == 1 and codes.count(200) == 7, [r.text for r in answers]
    assert len(events(club, "t1")) == 8


def test_a_second_phone_on_the_same_table_gets_409_with_the_fresh_state(club: str) -> None:
    with client(club) as c:
        director = sign_in(c, "dora")
        version = new_game(c, director)["version"]
        one, two = bearer(table_token(c, director, "t1", "Masha")), bearer(table_token(c, director, "t1", "Anna"))
        assert c.post("/api/games/t1/deal", json={"id": "phone-a-001", "version": version, "line": DEAL},
                      headers=one).status_code == 201
        r = c.post("/api/games/t1/deal", json={"id": "phone-b-001", "version": version,
                                               "line": "pass pass pass | 2 5 3"}, headers=two)
        assert r.status_code == 409
        assert r.json()["conflict"]["seen"] == 1 and r.json()["conflict"]["found"] == 8
        assert r.json()["state"]["version"] == 8 and r.json()["state"]["deals"][0]["line"].startswith("Anna 6S")
        assert "changed by someone else" in r.json()["conflict"]["message"]
    assert len(events(club, "t1")) == 8


@pytest.mark.sqlite_only
def test_a_refusal_is_json_with_its_rule_message_allowed_and_field(club: str) -> None:
    with client(club) as c:
        director = sign_in(c, "dora")
        new_game(c, director)
        r = c.post("/api/games/t1/entry", json={"id": "entry-0001", "version": 1, "player": "Gleb",
                                               "column": "gora", "amount": 2}, headers=director)
        assert r.status_code == 422
        refused = r.json()["refused"]
        assert refused["field"] == "player" and "Gleb" in refused["message"] and "Anna" in refused["allowed"]
        r = c.post("/api/games/t1/deal", json={"id": "deal-0001", "version": 1,
                                               "line": "6S pass pass | 6S | whist whist | 6 2 3"}, headers=director)
        assert r.status_code == 422 and r.json()["refused"]["rule"] == "3.2.8"
        assert r.json()["refused"]["cite"] == "Code 3.2.8" and r.json()["refused"]["allowed"]
        r = c.post("/api/games/t1/deal", json={"id": "deal-0001", "version": "one", "line": DEAL}, headers=director)
        assert r.status_code == 422 and r.json()["refused"]["field"] == "version"
        r = c.post("/api/games/t1/deal", content=b"{not json", headers=director)
        assert r.status_code == 422 and "not JSON" in r.json()["refused"]["message"]
        assert c.get("/api/games/nothing-here").status_code == 422
    assert len(events(club, "t1")) == 1


@pytest.mark.sqlite_only
def test_a_structured_outcome_is_stored_as_the_deal_line_of_the_table(club: str, tmp_path: Any) -> None:
    """The outcome by name, the auction left out, gives the events of the line a scorer
    types for it: the declarer (Vera, third to speak) bids, the others pass; the calls
    from the declarer's left; the tricks from the forehand (Anna, Boris, Vera)."""
    with client(club) as c:
        director = sign_in(c, "dora")
        new_game(c, director)
        r = c.post("/api/games/t1/deal", json={"id": "deal-0001", "version": 1, "outcome": {
            "contract": "6S", "declarer": "vera", "defence": {"Boris": "pass", "Anna": "whist"},
            "tricks": {"Vera": 6, "Boris": 1, "Anna": 3}}}, headers=director)
        assert r.status_code == 201, r.text
        r = c.post("/api/games/t1/deal", json={"id": "deal-0002", "version": 8, "outcome": {
            "contract": None, "tricks": {"Anna": 2, "Boris": 5, "Vera": 3}}}, headers=director)
        assert r.status_code == 201, r.text
    typed = str(tmp_path / "typed.db")
    with Store(typed) as store:
        desk = PulkaDesk(Ledger(store))
        desk.new("t1", PLAYERS, pulya=10, by="arbiter:dora")
        desk.deal("t1", "pass pass 6S | 6S | whist pass | 3 1 6*", by="arbiter:dora")
        desk.deal("t1", "pass pass pass | 5 3 2", by="arbiter:dora")  # deal 2: Boris leads
        expected = [(type(s.event), s.event.player if hasattr(s.event, "player") else None) for s in store.load("t1")]
        tricks = [s.event.tricks for s in store.load("t1") if hasattr(s.event, "tricks")]
    stored = events(club, "t1")
    assert [(type(e), getattr(e, "player", None)) for e in stored] == expected
    assert [e.tricks for e in stored if hasattr(e, "tricks")] == tricks


@pytest.mark.sqlite_only
def test_a_request_is_answered_in_its_language(club: str) -> None:
    with client(club) as c:
        english = c.post("/api/games/x/undo", json={"id": "undo-00001", "version": 1})
        russian = c.post("/api/games/x/undo?lang=ru", json={"id": "undo-00001", "version": 1})
        browser = c.post("/api/games/x/undo", json={"id": "undo-00001", "version": 1},
                         headers={"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.8"})
    assert english.json()["refused"]["message"].startswith("sign in first")
    assert russian.json()["refused"]["message"].startswith("Сначала войдите")
    assert browser.json()["refused"]["message"] == russian.json()["refused"]["message"]
    with client(club) as c:  # the rules' refusals too, judged in the request's language
        director = sign_in(c, "dora")
        new_game(c, director)
        r = c.post("/api/games/t1/deal?lang=ru", json={"id": "deal-0001", "version": 1,
                                                       "line": "6S pass pass | 6S | whist whist | 6 2 3"},
                   headers=director)
        assert r.status_code == 422
        assert r.json()["refused"]["reason"] == "взятки в сумме дают 11, а не 10"
        assert r.json()["refused"]["cite"] == "Кодекс 3.2.8"
    assert len(events(club, "t1")) == 1


@pytest.mark.sqlite_only
def test_every_response_carries_the_security_headers(club: str) -> None:
    with client(club) as c:
        r = c.get("/api/session")
    policy = r.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "default-src 'none'" in policy
    assert r.headers["referrer-policy"] == "no-referrer" and r.headers["x-frame-options"] == "DENY"
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie


@pytest.mark.sqlite_only
def test_a_typed_line_whose_result_looks_like_a_slip_is_stored_only_when_confirmed(club: str) -> None:
    """A typed line whose counts, read from the forehand and read declarer first, write two
    sheets is refused with both readings side by side (the tricks and what each writes),
    the lines that say each with the declarer's count marked, and nothing stored; sent
    again with ``confirmed`` it is stored as typed (the page's tick box, as ``pulka deal
    --yes``)."""
    slip = "pass 6S pass | 6S | whist whist | 8 1 1"  # Boris's eight, typed declarer first
    with client(club) as c:
        director = sign_in(c, "dora")
        new_game(c, director)
        phone = bearer(table_token(c, director, "t1", "Masha"))
        r = c.post("/api/games/t1/deal", json={"id": "slip-0001", "version": 1, "line": slip}, headers=phone)
        assert r.status_code == 422, r.text
        refused = r.json()["refused"]
        assert refused["field"] == "line" and refused["doubt"]["line"].endswith("Boris=8 Vera=1 Anna=1")
        assert "confirmed as typed" in refused["allowed"] and "--yes" not in refused["message"]
        typed, other = refused["doubt"]["readings"]
        assert (typed["tricks"], other["tricks"]) == ({"Anna": 8, "Boris": 1, "Vera": 1}, {"Boris": 8, "Vera": 1, "Anna": 1})
        assert typed["line"].endswith("| 8 1* 1") and other["line"].endswith("| 8* 1 1")
        assert {"cell": "Boris pulya", "amount": "2"} in other["writes"]
        assert "Boris pulya" not in {w["cell"] for w in typed["writes"]}
        assert len(events(club, "t1")) == 1
        r = c.post("/api/games/t1/deal", json={"id": "slip-0002", "version": 1, "line": slip, "confirmed": True},
                   headers=phone)
        assert r.status_code == 201, r.text
    tricks = [e for e in events(club, "t1") if type(e).__name__ == "Tricks"]
    assert [dict(t.tricks) for t in tricks] == [{"Anna": 8, "Boris": 1, "Vera": 1}]  # as typed


def test_the_live_feed_ends_when_a_write_is_told_as_the_service_stops(tmp_path: Any) -> None:
    """A write told (``wake``, from the thread that listens to PostgreSQL) at the very
    moment the service stops: on Python 3.11 ``asyncio.wait_for`` swallows the follower's
    cancellation then, and a follower that relied on it alone looked on for ever while
    the service's shutdown waited for it (a test client that never closed)."""
    from web.live import Hub
    from web.service import Service

    service = Service(str(tmp_path / "pulka.db"), threads=1)

    async def document(name: str, number: int, since: int | None) -> None:
        return None

    async def wake_then_stop() -> bool:
        hub = Hub(service, document)
        await hub.start()
        for _ in range(3):
            await asyncio.sleep(0)  # the follower runs to its wait for a wake (a yield, not a timing)
        hub.wake()  # the wake is set first, then the stop cancels the follower: in one turn of the loop
        stopping = asyncio.ensure_future(hub.stop())
        done, _ = await asyncio.wait({stopping}, timeout=20)  # a deadline: a stop that never ends fails here
        return stopping in done

    try:
        assert asyncio.run(wake_then_stop())
    finally:
        service.close()


def test_the_live_feed_outlives_a_database_lost_as_it_looks(tmp_path: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A look at the store that fails as its database is lost (a PostgreSQL restart: the
    driver's OperationalError under the store's error) is one named warning, no
    traceback, and what that look read is told at the next look (the feed catches up)."""
    import psycopg
    from click.testing import CliRunner

    from cli.main import main
    from ledger.store.event_store import StoreError
    from web.live import Hub
    from web.service import Service

    db = str(tmp_path / "pulka.db")
    assert CliRunner().invoke(main, ["new", "g", "--players", "Anna,Boris,Vera", "--pulya", "2", "--db", db]).exit_code == 0
    service = Service(db, threads=1)
    looks: list[int] = []

    async def document(name: str, number: int, since: int | None) -> dict[str, Any]:
        looks.append(number)
        if len(looks) == 1:
            try:
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            except psycopg.OperationalError:
                raise StoreError("cannot read the store: server closed the connection unexpectedly") from None
        return {"version": number}

    async def follow() -> dict[str, Any]:
        hub = Hub(service, document)
        subscriber = hub.subscribe({"g"})
        await hub.start()  # from the last position: the game's event comes after it
        hub.position = 0
        hub.wake()
        try:
            await asyncio.wait_for(subscriber.ready.wait(), 20)  # a deadline, not a timing
            return subscriber.pending["g"]
        finally:
            await hub.stop()

    try:
        with caplog.at_level(logging.WARNING, logger="pulka.serve"):
            assert asyncio.run(follow()) == {"version": 1}
    finally:
        service.close()
    assert looks == [1, 1]
    said = [r for r in caplog.records if r.name == "pulka.serve"]
    assert [r.getMessage() for r in said] == ["the live feed lost the database: cannot read the store: server closed "
                                              "the connection unexpectedly; listening again"]
    assert all(r.exc_info is None for r in said)


def test_the_club_pages_on_a_store_without_views_are_refused_saying_what_makes_them(tmp_path: Any) -> None:
    """The club's rating, a player's page and a tournament's report read the archive's
    views (``ledger.reads.club``, as ``pulka rating`` does): on a store whose views are
    not whole (made before the rating) each is refused as JSON, 422, saying what makes
    them, as the command line refuses it, but for the store's path, which no answer
    names; nothing is made by a read."""
    import sqlite3

    from click.testing import CliRunner

    from cli.main import main

    db = str(tmp_path / "old.db")
    for args in (("new", "g", "--players", "Anna,Boris,Vera", "--pulya", "2"), ("deal", "g", DEAL), ("players",),
                 ("tournament", "new", "cup", "--players", "Anna,Boris,Vera", "--pulya", "4"),
                 ("tournament", "seat", "cup", "1", "1", "Anna,Boris,Vera"), ("tournament", "start", "cup", "1")):
        assert CliRunner().invoke(main, [*args, "--db", db]).exit_code == 0, args
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE rating_moves")
    said = CliRunner().invoke(main, ["rating", "--db", db])
    assert said.exit_code == 1 and "pulka views rebuild" in said.stderr
    with client(db) as c:
        for path in ("/club", "/club/player/Anna", "/tournament/cup/report"):
            r = c.get(path)
            assert r.status_code == 422, (path, r.text)
            refused = r.json()["refused"]
            told = said.stderr.removeprefix("pulka: ").strip().replace(db, "(the service's store)")
            assert refused["rule"] == "api" and refused["message"] == told and db not in r.text
    with sqlite3.connect(db) as conn:
        assert not conn.execute("SELECT name FROM sqlite_master WHERE name = 'rating_moves'").fetchall()
def test_a_password_is_hashed_strongly_unless_the_suite_asks_for_the_cheap_hash(tmp_path: Path) -> None:
    """The suite's processes hash with the cheapest argon2id (``PULKA_TEST_CHEAP_HASH``,
    set by conftest.py); ``pulka serve account`` in a process without it stores the
    library's strong one, and an account of either kind signs in."""
    assert os.environ.get(CHEAP_HASH_ENV) == "1"
    strong = password_hasher({})
    assert (strong.time_cost, strong.memory_cost, strong.parallelism) == (3, 65536, 4)
    assert password_hasher({CHEAP_HASH_ENV: "yes"}).memory_cost == 65536  # only "1" asks for the cheap one
    db = str(tmp_path / "club.db")
    secret = tmp_path / "password"
    secret.write_text(PASSWORD + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != CHEAP_HASH_ENV}
    made = subprocess.run([*PULKA, "--db", db, "serve", "account", "dora", "--password-file", str(secret)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    account(db, "igor", "arbiter")  # in this process: the cheap one
    with sqlite3.connect(db) as conn:
        hashes = dict(conn.execute("SELECT name, hash FROM pulka_accounts").fetchall())
    assert hashes["dora"].startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert hashes["igor"].startswith("$argon2id$v=19$m=8,t=1,p=1$")
    with client(db) as c:
        sign_in(c, "dora")
        sign_in(c, "igor")


def test_serve_account_on_a_store_never_initialised_makes_it_and_the_account_signs_in(
        store_url: str, tmp_path: Path) -> None:
    """``pulka serve account`` on a new PostgreSQL schema (or a SQLite file not yet made)
    before any ``pulka init``: the store and the service's tables are made, the account
    stored, exit 0 (issue 35 saw an internal error, exit 3, here)."""
    secret = tmp_path / "password"
    secret.write_text(PASSWORD + "\n", encoding="utf-8")
    made = subprocess.run([*PULKA, "--db", store_url, "serve", "account", "dora", "--password-file", str(secret)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stdout + made.stderr
    assert "Traceback" not in made.stderr
    with client(store_url) as c:
        sign_in(c, "dora")


def test_the_service_parses_http_with_httptools() -> None:
    """``pulka serve`` leaves uvicorn's HTTP protocol to its own choice (web/serve.py names
    none), which takes httptools, a dependency of pulka (pyproject.toml): its parser in C.
    With h11, in Python, a request's HTTP was a third of a plain read's CPU."""
    import uvicorn
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    config = uvicorn.Config(app=lambda scope, receive, send: None)
    config.load()
    assert config.http_protocol_class is HttpToolsProtocol

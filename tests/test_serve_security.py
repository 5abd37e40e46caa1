"""The eleven findings of an attack on ``pulka serve`` (issue 29), each tried again as
the attacker tried it, on both stores: sessions that end, sign-in that holds under
simultaneous guesses and several processes, no open redirect, TLS behind a proxy, an
anonymous client bounded, no 500 for bad input, names that cannot pass for another's,
a lock that tells nothing, an id that means one write, answers that name no store and
a log nobody can forge, and docs that agree. The attack suite over every route is
``test_attack.py``."""

from __future__ import annotations

import json
import logging
import re
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from ledger.store.event_store import Store
from ledger.vocabulary.events import event_to_dict
from tests.serving import PASSWORD, Served, account, bearer, client, new_game, sign_in, table_token
from web.accounts import ATTEMPTS, FAILURES_FREE, LOCK_FIRST, LOCK_MOST, WINDOW
from web.limits import Bounds

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ["Anna", "Boris", "Vera"]
DEAL = "6S pass pass | 6S | whist whist | 6 2 2"
OTHER = "7H pass pass | 7H | whist pass | 7 2 1"


@pytest.fixture
def club(store_url: str) -> str:
    account(store_url, "dora", "director")
    account(store_url, "igor", "arbiter")
    return store_url






def count(db: str, stream: str) -> int:
    with Store(db, create=False) as store:
        return store.count(stream)


def as_cookie(c: TestClient | httpx.Client) -> dict[str, str]:
    """The session cookie of ``c``, as a header another client can send (a copy)."""
    name, value = next((k, v) for k, v in c.cookies.items() if k.endswith("pulka_session"))
    return {"Cookie": f"{name}={value}"}


def written(c: TestClient | httpx.Client, headers: dict[str, str], key: str) -> int:
    """The status of an arbiter's write (a new game) made with ``headers``."""
    return c.post("/api/games", json={"id": key, "game": key, "players": PLAYERS, "pulya": 10},
                  headers=headers).status_code


# -- 1. sessions that end ------------------------------------------------------------------------


def test_1_signing_out_ends_the_session_and_a_copied_cookie_signs_in_nobody(club: str) -> None:
    with client(club) as c, client(club) as other:  # the thief's copy, served by another process
        headers = sign_in(c, "dora")
        copied = {**as_cookie(c), **headers}
        assert written(other, copied, "copy-0001") == 201  # the copy works while the session lasts
        assert c.delete("/api/session", headers=headers).status_code == 200
        assert written(other, copied, "copy-0002") == 401
        assert other.get("/api/session", headers=copied).json()["signed_in"] is None


def test_1_a_password_change_a_role_change_and_a_removal_end_every_session(club: str) -> None:
    with client(club) as c, client(club) as phone, client(club) as director:
        boss = sign_in(director, "dora")
        igor = sign_in(c, "igor")
        copy = {**as_cookie(c), **igor}
        r = c.post("/api/account/password", json={"current": PASSWORD, "password": "a new and long passphrase"},
                   headers=igor)
        assert r.status_code == 200, r.text
        assert written(phone, copy, "after-pass1") == 401  # the other session (the copy) ended
        igor = {"X-CSRF-Token": r.json()["csrf"]}  # this one began again
        assert written(c, igor, "after-pass2") == 201
        copy = {**as_cookie(c), **igor}
        accounts = director.get("/api/accounts").json()["accounts"]
        igor_id = next(a["id"] for a in accounts if a["name"] == "igor")
        r = director.post(f"/api/accounts/{igor_id}/role", json={"role": "director"}, headers=boss)
        assert r.status_code == 200, r.text
        assert written(phone, copy, "after-role1") == 401
        igor = sign_in(c, "igor", "a new and long passphrase")
        copy = {**as_cookie(c), **igor}
        assert director.delete(f"/api/accounts/{igor_id}", headers=boss).status_code == 200
        assert written(phone, copy, "after-gone1") == 401
        # the name made again is a new account: the old cookie signs nobody in
        assert director.post("/api/accounts", json={"name": "igor", "password": "yet another long passphrase",
                                                    "role": "director"}, headers=boss).status_code == 201
        assert written(phone, copy, "after-new01") == 401
    with Store(club, create=False) as store:
        changes = [(event_to_dict(s.event)["type"], s.event.by) for s in store.load("@accounts")]
    assert ("account_changed", "arbiter:igor") in changes and ("account_removed", "arbiter:dora") in changes
    assert changes.count(("account_created", "arbiter:dora")) == 1


# -- 2. sign-in that holds under simultaneous guesses and several processes -----------------------


def at_once(n: int, send: Any) -> list[int]:
    """``send(i)`` from ``n`` threads released together; the statuses."""
    barrier = threading.Barrier(n)
    statuses: list[int] = [0] * n

    def one(i: int) -> None:
        barrier.wait()
        statuses[i] = send(i)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return statuses


def test_2_forty_simultaneous_guesses_check_five_passwords(club: str, tmp_path: Path) -> None:
    served = Served(club, tmp_path / "serve.log", args=("--proxy-headers", "--forwarded-allow-ips", "127.0.0.1"))
    try:
        with served.http() as http:
            csrf = http.get("/api/session").json()["csrf"]
            cookie = as_cookie(http)

            def guess(i: int) -> int:  # each from an address of its own: only the account's lock holds
                with httpx.Client(base_url=served.url, timeout=60) as c:
                    return c.post("/api/session", json={"name": "dora", "password": f"guess number {i}"},
                                  headers={**cookie, "X-CSRF-Token": csrf,
                                           "X-Forwarded-For": f"192.0.2.{i + 1}"}).status_code

            statuses = at_once(40, guess)
    finally:
        served.stop()
    assert statuses.count(401) == FAILURES_FREE and statuses.count(429) == 40 - FAILURES_FREE, statuses


def test_2_one_address_gets_ten_sign_ins_a_minute_from_two_processes_together(club: str, tmp_path: Path) -> None:
    one, two = Served(club, tmp_path / "one.log"), Served(club, tmp_path / "two.log")
    try:
        statuses = []
        for i in range(2 * ATTEMPTS):
            served = (one, two)[i % 2]
            with served.http() as http:
                csrf = http.get("/api/session").json()["csrf"]
                statuses.append(http.post("/api/session", json={"name": f"nobody{i}", "password": "x"},
                                          headers={"X-CSRF-Token": csrf}).status_code)
    finally:
        one.stop()
        two.stop()
    assert statuses[:ATTEMPTS] == [401] * ATTEMPTS and statuses[ATTEMPTS:] == [429] * ATTEMPTS, statuses


# -- 3. no open redirect ---------------------------------------------------------------------------


def page_data(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', html, re.S)
    assert found
    return dict(json.loads(found.group(1)))


@pytest.mark.parametrize("wanted", ["/%09/evil.example", "//evil.example", "/\\evil.example", "/%0A/evil.example",
                                    "https://evil.example", "/%5Cevil.example", "/\u3000/evil.example"])
def test_3_after_signing_in_the_page_goes_only_to_a_path_of_the_service(club: str, wanted: str) -> None:
    with client(club) as c:
        r = c.get("/signin?next=" + wanted)
        assert r.status_code == 200
        assert page_data(r.text)["next"] == "/arbiter"
        assert page_data(c.get("/signin?next=/director/cup%3Flang%3Dru").text)["next"] == "/director/cup?lang=ru"


# -- 4. TLS behind a proxy -------------------------------------------------------------------------


def test_4_behind_a_tls_proxy_the_cookie_is_host_prefixed_and_secure_and_hsts_is_sent(club: str, tmp_path: Path
                                                                                         ) -> None:
    served = Served(club, tmp_path / "serve.log", args=("--proxy-headers", "--forwarded-allow-ips", "127.0.0.1",
                                                         "--public-url", "https://pulka.example"))
    plain = Served(club, tmp_path / "plain.log")
    try:
        with served.http() as http:
            r = http.get("/api/session", headers={"X-Forwarded-Proto": "https"})
            cookie = r.headers["set-cookie"]
            assert cookie.startswith("__Host-pulka_session=") and "; secure" in cookie.lower()
            assert "path=/" in cookie.lower() and "domain" not in cookie.lower() and "httponly" in cookie.lower()
            assert r.headers["strict-transport-security"].startswith("max-age=")
        with plain.http() as http:  # a club's plain network: no TLS to ask for
            r = http.get("/api/session")
            assert r.headers["set-cookie"].startswith("pulka_session=") and "secure" not in r.headers["set-cookie"]
            assert "strict-transport-security" not in r.headers
    finally:
        served.stop()
        plain.stop()


# -- 5. one anonymous client cannot take more than its share --------------------------------------


def test_5_an_address_that_reads_too_much_is_answered_429_and_the_tables_still_write(club: str) -> None:
    # A budget that refills next to nothing while the test runs (a refused request waits up
    # to a second for its answer, and a faster refill would make the next one welcome).
    with client(club, bounds=Bounds(rate=0.0001, burst=0.03, cost=0.01)) as c:
        director = sign_in(c, "dora")
        new_game(c, director)
        phone = bearer(table_token(c, director))
        statuses = [c.get("/api/games/t1/sheet.svg?at=1").status_code for _ in range(5)]
        assert 429 in statuses and statuses[0] == 200
        refused = c.get("/api/games/t1/sheet")
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        r = c.post("/api/games/t1/deal", json={"id": "phone-0001", "version": 1, "line": DEAL}, headers=phone)
        assert r.status_code == 201  # a table's write is not an anonymous read


def test_5_games_that_do_not_exist_keep_no_memory(club: str) -> None:
    with client(club, bounds=Bounds(rate=1000, burst=1000)) as c:
        for i in range(2000):
            assert c.get(f"/api/games/no-such-game-{i}").status_code == 422
        assert not c.app.state.service._tables  # type: ignore[attr-defined]


def sent_before_answer(url: str, path: str, headers: dict[str, str], size: int, declared: bool = False
                       ) -> tuple[int, int]:
    """POST a body of ``size`` bytes to a real server (chunked, or of a ``declared``
    Content-Length), a chunk at a time until its answer comes: the answer's status, and
    how much of the body was sent by then."""
    import select
    import socket

    host, port = httpx.URL(url).host, httpx.URL(url).port
    assert port is not None
    sent = 0
    with socket.create_connection((host, port), timeout=20) as sock:
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        framing = f"Content-Length: {size}" if declared else "Transfer-Encoding: chunked"
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}\r\n{framing}\r\n"
                     f"Content-Type: application/json\r\n{head}\r\n".encode())
        chunk = b"[" * 0x10000 if declared else b"10000\r\n" + b"[" * 0x10000 + b"\r\n"
        answer = b""
        while sent < size:
            ready, _, _ = select.select([sock], [], [], 0)
            if ready:
                break
            try:
                sock.sendall(chunk)
            except OSError:  # the server closed the connection: it read no more
                break
            sent += 0x10000
        sock.settimeout(20)
        while b"\r\n" not in answer:
            more = sock.recv(4096)
            if not more:
                break
            answer += more
    return int(answer.split(b" ")[1]), sent


def test_5_a_long_body_is_not_read_whole_nor_one_read_before_the_role_check(club: str, tmp_path: Path) -> None:
    served = Served(club, tmp_path / "serve.log")
    try:
        with served.http() as http:
            csrf = http.get("/api/session").json()["csrf"]
            cookie = as_cookie(http)
            status, sent = sent_before_answer(served.url, "/api/session", {**cookie, "X-CSRF-Token": csrf},
                                              50 * 1024 * 1024)
            assert status == 413 and sent < 16 * 1024 * 1024, (status, sent)
            status, sent = sent_before_answer(served.url, "/api/session", {**cookie, "X-CSRF-Token": csrf},
                                              50 * 1024 * 1024, declared=True)
            assert status == 413 and sent < 16 * 1024 * 1024, (status, sent)
            status, sent = sent_before_answer(served.url, "/api/tournaments", {}, 50 * 1024 * 1024)
            assert status == 401 and sent < 16 * 1024 * 1024, (status, sent)
    finally:
        served.stop()
    with client(club) as c:  # a body that does not decode is not even decoded before the role check
        assert c.post("/api/tournaments", content=b"not json at all").status_code == 401


def test_5_event_streams_are_capped_per_address_and_below_the_file_limit(club: str, tmp_path: Path) -> None:
    import resource

    def low_limit() -> None:  # the child's own limit of open files
        resource.setrlimit(resource.RLIMIT_NOFILE, (160, 160))

    served = Served(club, tmp_path / "serve.log", args=("--streams-per-address", "3"), preexec_fn=low_limit)
    streams: list[Any] = []

    def opened(address: str) -> int:
        c = httpx.Client(base_url=served.url, transport=httpx.HTTPTransport(local_address=address), timeout=20)
        r = c.send(c.build_request("GET", "/api/games/t1/events"), stream=True)
        streams.append((c, r))
        return r.status_code

    try:
        with served.http() as http:
            director = sign_in(http, "dora")
            new_game(http, director)
        assert "32 live pages in all (the file limit is 160)" in (tmp_path / "serve.log").read_text()
        statuses = [opened(f"127.0.0.{2 + i // 3}") for i in range(33)]  # eleven addresses, three streams each
        assert statuses == [200] * 32 + [503], statuses
        assert opened("127.0.0.2") == 429  # a fourth from one address
        with served.http() as http:
            assert http.get("/api/health").status_code == 200  # everyone else is still served
    finally:
        for c, r in streams:
            r.close()
            c.close()
        served.stop()


# -- 6. no 500 for bad input; a 500 keeps its headers and is logged with its status ---------------


def test_6_malformed_points_deep_json_and_nul_are_refused_naming_the_field(club: str) -> None:
    with client(club) as c:
        director = sign_in(c, "dora")
        new_game(c, director)
        for path in ("sheet", "settlement", "deals", "sheet.svg"):
            for bad in ("²", "--5", "1e3", "٣"):
                r = c.get(f"/api/games/t1/{path}", params={"at": bad})
                assert r.status_code == 422 and r.json()["refused"]["field"] == "at", (path, bad, r.text)
        deep = '{"id": "tour-00001", "name": "cup", "players": ["a","b","c"], "pulya": 10, "rules": {"x": ' + \
            "[" * 10000 + "]" * 10000 + "}}"
        r = c.post("/api/tournaments", content=deep, headers={**director, "Content-Type": "application/json"})
        assert r.status_code == 422, r.text
        c.cookies.clear()
        csrf = {"X-CSRF-Token": c.get("/api/session").json()["csrf"]}
        r = c.post("/api/session", json={"name": "do\x00ra", "password": "whatever it is"}, headers=csrf)
        assert r.status_code == 401, r.text


def test_6_a_fault_is_answered_500_with_the_security_headers_and_logged_with_its_status(
        club: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    import web.api

    def broken(*args: Any) -> Any:
        raise RuntimeError("a fault of pulka")

    monkeypatch.setattr(web.api, "game_now_json", broken)
    with client(club) as c, caplog.at_level(logging.INFO, logger="pulka.serve"):
        r = c.get("/api/games/t1")
    assert r.status_code == 500 and "incident" in r.json()["error"]
    assert r.headers["content-security-policy"].startswith("default-src 'none'")
    assert r.headers["x-content-type-options"] == "nosniff" and r.headers["x-frame-options"] == "DENY"
    assert any(re.search(r"GET /api/games/t1 500 ", m) for m in caplog.messages), caplog.messages


# -- 7. names that cannot pass for another's -------------------------------------------------------


LOOK_ALIKES = ["Arbiter:Oleg", "\u0430rbiter:Oleg", "arbiter\uff1aOleg", "SCORER:Masha", "scorer\u0589Masha"]


def test_7_a_substitute_that_reads_as_an_arbiter_is_refused(club: str) -> None:
    with client(club) as c:
        director = sign_in(c, "dora")
        new_game(c, director)
        phone = bearer(table_token(c, director))
        c.cookies.clear()
        for i, name in enumerate(LOOK_ALIKES):
            r = c.post("/api/games/t1/substitute", json={"id": f"subst-{i:04d}", "version": 1, "player": "Anna",
                                                        "substitute": name, "agreed_by": ["Boris", "Vera"]},
                       headers=phone)
            assert r.status_code == 422 and "reads as" in r.json()["refused"]["message"], (name, r.text)
        assert c.post("/api/games/t1/deal", json={"id": "deal-00001", "version": 1, "line": DEAL},
                      headers=phone).status_code == 201
        r = c.post("/api/games/t1/substitute", json={"id": "subst-9999", "version": 8, "player": "Anna",
                                                     "substitute": "V\u0435ra", "agreed_by": ["Boris", "Vera"]},
                   headers=phone)  # a Cyrillic е: it reads as Vera, who sits at the table
        assert r.status_code == 422 and "read as one name" in r.json()["refused"]["message"], r.text
    assert count(club, "t1") == 8


@pytest.mark.parametrize("name", ["Dora", "d\u043era", "D\u043eRA", "", " ", "a\nb", "a\x1b[2Jb", "a\u202eb",
                                  "x" * 10000, "a:b", "Arbiter:Oleg"])
def test_7_account_names_that_are_taken_read_as_another_or_are_not_names_are_refused(club: str, name: str) -> None:
    with client(club) as c:
        director = sign_in(c, "dora")
        r = c.post("/api/accounts", json={"name": name, "password": "a long enough passphrase", "role": "arbiter"},
                   headers=director)
        assert r.status_code == 422, (name, r.text)
        assert len(c.get("/api/accounts").json()["accounts"]) == 2


# -- 8. the lock tells nothing of which names exist --------------------------------------------------


def test_8_a_name_without_an_account_is_locked_as_one_with_an_account(club: str) -> None:
    answers = []
    for i, name in enumerate(("dora", "nobody-here")):
        with client(club, address=f"192.0.2.{i + 1}") as c:
            csrf = {"X-CSRF-Token": c.get("/api/session").json()["csrf"]}
            said = [c.post("/api/session", json={"name": name, "password": "wrong password"}, headers=csrf)
                    for _ in range(FAILURES_FREE + 1)]
            answers.append([(r.status_code, re.sub(r"\d+", "N", r.json()["refused"]["message"]),
                             r.headers.get("retry-after") is not None) for r in said])
            assert 1 <= int(said[-1].headers["retry-after"]) <= LOCK_FIRST  # the wait, less the time it took
    assert answers[0] == answers[1]  # the same answers, whether the name has an account or not
    assert answers[0][-1][0] == 429 and answers[0][0][0] == 401


# -- 9. an id means one write --------------------------------------------------------------------------


def test_9_an_id_reused_with_another_body_is_refused_409_with_both_digests(club: str) -> None:
    with client(club) as c:
        director = sign_in(c, "dora")
        new_game(c, director)
        phone = bearer(table_token(c, director))
        first = c.post("/api/games/t1/deal", json={"id": "phone-0001", "version": 1, "line": DEAL}, headers=phone)
        assert first.status_code == 201
        again = c.post("/api/games/t1/deal", json={"id": "phone-0001", "version": 1, "line": DEAL}, headers=phone)
        assert again.status_code == 200 and again.json()["duplicate"]
        other = c.post("/api/games/t1/deal", json={"id": "phone-0001", "version": 1, "line": OTHER}, headers=phone)
        assert other.status_code == 409, other.text
        conflict = other.json()["conflict"]
        assert conflict["reused"] and len(conflict["stored_digest"]) == 64
        assert conflict["stored_digest"] != conflict["sent_digest"]
        assert count(club, "t1") == 8
        # a new game's id and a tournament's are the stream's they made
        r = c.post("/api/games", json={"id": "new-t1-0001", "game": "t2", "players": PLAYERS, "pulya": 10},
                   headers=director)
        assert r.status_code in (409, 422) and count(club, "t2") == 0, r.text
        six = [*PLAYERS, "Gleb", "Dima", "Zoya"]
        r = c.post("/api/tournaments", json={"id": "tour-00001", "name": "cup", "players": six, "pulya": 4,
                                             "table_size": 3}, headers=director)
        assert r.status_code == 201, r.text
        r = c.post("/api/tournaments", json={"id": "tour-00001", "name": "cup2", "players": six, "pulya": 4,
                                             "table_size": 3}, headers=director)
        assert r.status_code in (409, 422) and count(club, "cup2") == 0, r.text


# -- 10. no store in any answer; no forged log line ------------------------------------------------------


def store_words(db: str) -> list[str]:
    """What would name the store: its path and folder, or its user, host, port and schema."""
    if not db.startswith("postgresql"):
        return [db, Path(db).parent.name]
    url = httpx.URL(db)
    return [f"{url.username}@", f"{url.host}:{url.port}", f":{url.port}/", dict(url.params)["schema"]]


def test_10_error_answers_name_no_store_and_a_line_feed_forges_no_log_line(club: str, tmp_path: Path) -> None:
    served = Served(club, tmp_path / "serve.log")
    try:
        with served.http() as http:
            answers = [http.get("/api/games/no-such-game"), http.get("/api/tournaments/no-such-cup"),
                       http.get("/api/games/no-such-game/sheet"), http.get("/club/player/nobody")]
            http.get("/api/games/x%0A2026-01-01 pulka.serve.access INFO GET /forged 200")
    finally:
        served.stop()
    for r in answers:
        assert r.status_code < 500
        for word in store_words(club):
            assert word not in r.text, (word, r.text)
    log = (tmp_path / "serve.log").read_text()
    assert not any(line.startswith("2026-01-01 pulka.serve.access") for line in log.splitlines())
    assert "x\\n2026-01-01" in log


# -- 11. the docs say the waits the service keeps -------------------------------------------------------------


def test_11_the_api_docs_and_the_readme_say_the_same_waits_as_the_service() -> None:
    said = [f"{ATTEMPTS} attempts a minute", f"{FAILURES_FREE} failed sign-ins", f"{int(LOCK_FIRST)} s",
            f"{int(LOCK_MOST)} s"]
    assert WINDOW == 60
    for doc in ("docs/api.md", "README.md"):
        text = " ".join((ROOT / doc).read_text(encoding="utf-8").split())
        for words in said:
            assert words in text, (doc, words)

"""The attack suite of ``pulka serve``, generated from its route table, on both stores.

Every route says who may use it and what it is (``web.auth.rule``); this suite reads the
routes of the application itself, so that a route added without a rule, or without a
sample of its path's parameters here, fails it. Then, for every route and method:

- **every identity**: nobody, a table's token for this game, one for another game, a
  revoked token, a session signed out (its cookie copied), a session that may only enrol
  a second factor, an arbiter, a director. Those the rule lets in are served (never 401
  or 403, never 500); the others are refused 401 or 403, and a refused write changes
  nothing in the store;
- **CSRF**: every write made with the cookie, without the session's token, with a forged
  one, with another session's: 403, nothing stored;
- **malformed input**: bad query parameters (``?at=²``, ``?at=--5``, NUL, times that are
  not times), bad path values, bad bodies (not JSON, JSON nested 10,000 deep, NUL in a
  text, numbers of 40 digits, a body past the limit): never a 500.

Session revocation across two worker processes, the proxy's headers, simultaneous
guesses, the redirect, the confusable names and the reused id are
``test_serve_security.py``'s, tried as real processes where processes are the point.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from ledger.store.event_store import Store
from tests.serving import PASSWORD, Served, account, bearer, client, sign_in
from web.api_table import COMMANDS
from web.app import create_app, Settings
from web.auth import ANYONE, ARBITER, DIRECTOR, SIGNED_IN, TABLE, WRITE, SESSION, rule_of
from web.limits import Bounds

PLAYERS = ["Anna", "Boris", "Vera"]
GENEROUS = Bounds(rate=1000, burst=1000, at_once=64)  # the suite's own pace is not what it tries

# A sample of each path parameter the routes have: a route with a parameter not named
# here fails the suite (say what it should be tried with). The event streams are tried on
# a game and a tournament that do not exist: a test client cannot hold a stream open.
SAMPLES = {"game": "t1", "tournament": "cup", "tour": "1", "token": "{token}", "account": "{victim}",
           "name": "Anna", "command": "deal", "path": "0/000",  # "path": a tile of the served log
           "number": "deals"}  # "number": one of a player's statistics
STREAM_SAMPLES = {"game": "no-such-game", "tournament": "no-such-cup"}
PICTURE = {"name": "player.css"}

# Who each identity is, and what its requests carry.
IDENTITIES = ("nobody", "table token", "other table's token", "revoked token", "signed out", "enrolling",
              "arbiter", "director")
LETS_IN = {
    ANYONE: set(IDENTITIES),
    SESSION: set(IDENTITIES),
    TABLE: {"table token", "arbiter", "director"},
    ARBITER: {"arbiter", "director"},
    DIRECTOR: {"director"},
    SIGNED_IN: {"enrolling", "arbiter", "director"},
}

BAD_QUERIES = [{"at": "²"}, {"at": "--5"}, {"at": "9" * 40}, {"deal": "1e9"}, {"time": "yesterday"},
               {"time": "2026-13-45"}, {"time": "\x00"}, {"tour": "x"}, {"only_deal": "٣"}, {"since": "x"},
               {"until": "\x00"}, {"cell": "\x00"}, {"cell": "Anna.nothing"}, {"from": "x"}, {"to": "deal:"},
               {"by": "\x00"}, {"type": "x"}, {"next": "\x00//x"}, {"lang": "\x00"}, {"verdicts": "\x00"}]
BAD_BODIES = [b"", b"not json", b"[]", b"null", b'"x"', b"{" * 10000,
              b'{"rules": ' + b"[" * 10000 + b"]" * 10000 + b"}",
              b'{"id": "\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000", "version": 1, "line": "x"}',
              b'{"name": "\\u0000", "password": "\\u0000", "code": "\\u0000"}',
              b'{"id": "abcdefgh-1", "version": 100000000000000000000000000000000000000, "line": "6S"}',
              b'{"id": "abcdefgh-2", "version": 1, "tricks": {"\\u0000": 1}}',
              b'{"holder": "\\u202eevil"}', b'{"role": "god"}', b'{"required": "yes"}',
              b'{"current": "x", "password": "' + b"x" * 200 + b'"}', b'{"x": "' + b"y" * 70000 + b'"}']


@dataclass
class Who:
    """An identity of the suite: its own client (its own cookies, its own address) and
    the headers its requests carry."""

    name: str
    client: TestClient
    headers: dict[str, str]


def every_route() -> list[tuple[str, str, Any]]:
    """(method, path, endpoint) of every route of the application, as it is built."""
    app = create_app(Settings(db=":memory:", secret="x"))
    found = []
    for route in app.routes:
        if isinstance(route, Mount):
            found.append(("GET", route.path + "/pulka.css", None))
        elif isinstance(route, Route):
            for method in sorted((route.methods or set()) - {"HEAD"}):
                found.append((method, route.path, route.endpoint))
    return found


def test_every_route_has_a_rule_and_a_sample_of_its_parameters() -> None:
    missing = []
    for method, path, endpoint in every_route():
        if endpoint is not None and rule_of(endpoint) is None:
            missing.append(f"{method} {path}: no rule (web.auth.rule: who may use it, and what it is)")
        for name in re.findall(r"{(\w+)", path):
            if name not in SAMPLES:
                missing.append(f"{method} {path}: no sample of {{{name}}} in this suite's SAMPLES")
    assert not missing, "\n".join(missing)


def filled(path: str, values: dict[str, str], stream: bool) -> str:
    def value(m: re.Match[str]) -> str:
        name = m.group(1)
        if stream and name in STREAM_SAMPLES:
            return STREAM_SAMPLES[name]
        if path.startswith("/static/picture"):
            return PICTURE[name]
        return values[name]
    return re.sub(r"{(\w+)(?::\w+)?}", value, path)


def cases() -> list[tuple[str, str, str, str, str | None]]:
    """(method, path, who may, kind, command) of every route; the command route once for
    each command, with the command's own rule (the arbiter's rulings and penalties)."""
    out = []
    for method, path, endpoint in every_route():
        found = rule_of(endpoint) if endpoint is not None else None
        who, kind = (found.who, found.kind) if found is not None else (ANYONE, "file")
        if "{command}" in path:
            for command, (_body, needed, _call) in COMMANDS.items():
                out.append((method, path.replace("{command}", command), needed, kind, command))
        else:
            out.append((method, path, who, kind, None))
    return out


# -- the club the suite attacks ----------------------------------------------------------------------


@dataclass
class Club:
    db: str
    who: dict[str, Who]
    values: dict[str, str]


def identities(db: str, stack: ExitStack) -> tuple[dict[str, Who], dict[str, str]]:
    """The club's identities, each a client of its own from an address of its own."""
    def opened(i: int) -> TestClient:
        return stack.enter_context(client(db, address=f"192.0.2.{i + 1}", bounds=GENEROUS))

    director_c = opened(0)
    director = sign_in(director_c, "dora")
    for game in ("t1", "t2"):
        r = director_c.post("/api/games", json={"id": f"new-{game}-0001", "game": game, "players": PLAYERS,
                                                "pulya": 10}, headers=director)
        assert r.status_code == 201, r.text
    r = director_c.post("/api/tournaments", json={"id": "tour-00001", "name": "cup", "players": [
        *PLAYERS, "Gleb", "Dima", "Zoya"], "pulya": 4, "table_size": 3}, headers=director)
    assert r.status_code == 201, r.text

    def issued(game: str) -> str:
        r = director_c.post(f"/api/games/{game}/tokens", json={"holder": "Masha"}, headers=director)
        return str(r.json()["token"])

    tokens = {"table token": issued("t1"), "other table's token": issued("t2"), "revoked token": issued("t1")}
    victim_token = issued("t1")
    assert director_c.delete(f"/api/tokens/{tokens['revoked token'].partition('.')[0]}",
                             headers=director).status_code == 200
    who = {"director": Who("director", director_c, director)}
    for i, name in enumerate(("table token", "other table's token", "revoked token"), start=1):
        who[name] = Who(name, opened(i), bearer(tokens[name]))
    who["nobody"] = Who("nobody", opened(4), {})
    for name in ("nobody", "table token", "other table's token", "revoked token"):  # a CSRF token, as a page gets
        who[name].headers["X-CSRF-Token"] = who[name].client.get("/api/session", headers={
            k: v for k, v in who[name].headers.items() if name != "revoked token"}).json().get("csrf", "")
    arbiter_c = opened(5)
    who["arbiter"] = Who("arbiter", arbiter_c, sign_in(arbiter_c, "igor"))
    gone = opened(6)
    headers = sign_in(gone, "igor")
    cookie = "; ".join(f"{k}={v}" for k, v in gone.cookies.items())
    assert gone.delete("/api/session", headers=headers).status_code == 200
    who["signed out"] = Who("signed out", opened(7), {"Cookie": cookie, **headers})  # its copy, after sign-out
    assert director_c.post("/api/club/second-factor", json={"required": True}, headers=director).status_code == 200
    enrolling = opened(8)
    who["enrolling"] = Who("enrolling", enrolling, sign_in(enrolling, "newbie"))
    assert director_c.post("/api/club/second-factor", json={"required": False}, headers=director).status_code == 200
    victim = next(a["id"] for a in director_c.get("/api/accounts").json()["accounts"] if a["name"] == "victim")
    return who, {**SAMPLES, "token": victim_token.partition(".")[0], "account": victim}


@pytest.fixture
def club(store_url: str) -> Iterator[Club]:
    for name, role in (("dora", "director"), ("igor", "arbiter"), ("newbie", "arbiter"), ("victim", "arbiter")):
        account(store_url, name, role)
    with ExitStack() as stack:
        who, values = identities(store_url, stack)
        yield Club(store_url, who, values)


def state(db: str) -> dict[str, int]:
    """Every stream's number of events: what a refused write must leave as it was."""
    with Store(db, create=False) as store:
        return {name: store.count(name) for name in store.games()}


def signed_in_again(club: Club) -> None:
    """The sessions a case ended (a sign-out is a route too) begun again."""
    for name, account_name in (("arbiter", "igor"), ("director", "dora")):
        who = club.who[name]
        if who.client.get("/api/session").json()["signed_in"] is None:
            who.headers = sign_in(who.client, account_name)
    enrolling, director = club.who["enrolling"], club.who["director"]
    if enrolling.client.get("/api/session").json()["signed_in"] is None:
        required = director.client.post("/api/club/second-factor", json={"required": True}, headers=director.headers)
        assert required.status_code == 200
        enrolling.headers = sign_in(enrolling.client, "newbie")
        director.client.post("/api/club/second-factor", json={"required": False}, headers=director.headers)


def lets_in(who: str, kind: str) -> set[str]:
    return LETS_IN[SESSION] if kind == SESSION else LETS_IN[who]


def body_of(method: str, kind: str) -> dict[str, Any] | None:
    return {} if method != "GET" and kind in (WRITE, SESSION) else None


# -- the attacks ----------------------------------------------------------------------------------


def test_every_route_as_every_identity(club: Club) -> None:
    wrong = []
    for method, path, who, kind, command in cases():
        url = filled(path, club.values, kind == "stream")
        for name in IDENTITIES:
            me = club.who[name]
            before = state(club.db) if method != "GET" else None
            r = me.client.request(method, url, headers=me.headers, json=body_of(method, kind))
            denied = r.status_code in (401, 403)
            if (name, method, url) == ("revoked token", "GET", "/api/session") and r.status_code == 401:
                continue  # who the phone is: its link, refused, is what the page must be told
            if r.status_code >= 500:
                wrong.append(f"{name}: {method} {url} → {r.status_code} {r.text[:200]}")
            elif name in lets_in(who, kind) and denied:
                wrong.append(f"{name}: {method} {url} refused {r.status_code}, yet {who} may: {r.text[:200]}")
            elif name not in lets_in(who, kind) and not denied:
                wrong.append(f"{name}: {method} {url} served {r.status_code}, yet only {who} may: {r.text[:200]}")
            elif before is not None and denied and state(club.db) != before:
                wrong.append(f"{name}: {method} {url} refused, yet the store changed")
        signed_in_again(club)
    assert not wrong, "\n".join(wrong)


def test_every_write_with_the_cookie_needs_its_csrf_token(club: Club) -> None:
    wrong = []
    other = club.who["arbiter"].headers["X-CSRF-Token"]
    for method, path, who, kind, command in cases():
        if method == "GET" or not LETS_IN[who] & {"arbiter", "director"} or path == "/api/session" and \
                method == "POST":
            continue
        url = filled(path, club.values, False)
        me = club.who["director"]
        for sent in ({}, {"X-CSRF-Token": "forged-token"}, {"X-CSRF-Token": other}):
            before = state(club.db)
            r = me.client.request(method, url, headers=sent, json=body_of(method, kind) or {})
            if r.status_code != 403 or "CSRF" not in r.text or state(club.db) != before:
                wrong.append(f"{method} {url} with {sent or 'no token'} → {r.status_code} {r.text[:150]}")
    # signing in needs the token of the session it begins from, too
    c = club.who["nobody"].client
    r = c.post("/api/session", json={"name": "dora", "password": PASSWORD})
    if r.status_code != 403:
        wrong.append(f"a sign-in without its CSRF token → {r.status_code}")
    assert not wrong, "\n".join(wrong)


def test_malformed_queries_paths_and_bodies_are_never_a_500(club: Club) -> None:
    wrong = []
    nobody = club.who["nobody"]
    for method, path, who, kind, command in cases():
        url = filled(path, club.values, kind == "stream")
        # the sign-in is tried from an address that signs in no more (each try is counted)
        me = club.who["director"] if path != "/api/session" else nobody
        for query in BAD_QUERIES:
            for asker in (me, nobody):
                r = asker.client.request(method, url, params=query, headers=asker.headers,
                                         json=body_of(method, kind))
                if r.status_code >= 500:
                    wrong.append(f"{method} {url} ?{query} → {r.status_code} {r.text[:200]}")
        if method != "GET":
            for body in BAD_BODIES:
                r = me.client.request(method, url, content=body,
                                      headers={**me.headers, "Content-Type": "application/json"})
                if r.status_code >= 500:
                    wrong.append(f"{method} {url} body {body[:40]!r} → {r.status_code} {r.text[:200]}")
        for bad in ("%00", "%0A%0D", "x" * 3000, "..%2F..%2Fetc", "%E2%80%AE", "%FF%FE"):
            odd = filled(path, {k: bad for k in club.values}, False)
            r = me.client.request(method, odd, headers=me.headers, json=body_of(method, kind))
            if r.status_code >= 500:
                wrong.append(f"{method} {odd[:80]!r} → {r.status_code} {r.text[:200]}")
        signed_in_again(club)
    assert not wrong, "\n".join(wrong[:40])


# -- across processes ---------------------------------------------------------------------------------


def test_a_session_signed_out_through_one_process_is_over_in_the_other(store_url: str, tmp_path: Path) -> None:
    """Two worker processes of one store (``--workers 2`` on PostgreSQL; two processes
    on one SQLite file): the cookie of a session signed out through one signs in nobody
    at either."""
    account(store_url, "dora", "director")
    if store_url.startswith("postgresql"):
        pair = [Served(store_url, tmp_path / "serve.log", args=("--workers", "2"))] * 2
    else:
        pair = [Served(store_url, tmp_path / "one.log"), Served(store_url, tmp_path / "two.log")]
    try:
        with pair[0].http() as one, httpx.Client(base_url=pair[1].url, timeout=20) as two:
            headers = sign_in(one, "dora")
            copied = {"Cookie": "; ".join(f"{k}={v}" for k, v in one.cookies.items()), **headers}
            seen = {two.get("/api/session", headers=copied).json()["signed_in"]["by"] for _ in range(6)}
            assert seen == {"arbiter:dora"}
            assert one.delete("/api/session", headers=headers).status_code == 200
            after = [two.post("/api/games", json={"id": f"after-{i:04d}", "game": f"g{i}", "players": PLAYERS},
                              headers=copied).status_code for i in range(6)]
            assert after == [401] * 6
    finally:
        for served in {id(s): s for s in pair}.values():
            served.stop()

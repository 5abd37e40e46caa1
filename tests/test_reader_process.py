"""What anyone may read is made by a process of its own (``web.reader``, issues 29 and 30):
the service process admits an anonymous read and forwards it to its reader, whose answer
is byte for byte the one the service would have made, with the service's headers once,
charged to the address's budget; the club's signed-in people, the live feed, the files
and the health are answered by the service itself; a reader that ends is replaced while
the service answers in its place, and a reader never outlives its service."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from tests.serving import (PASSWORD, account, bearer, client, new_game, served_with_director, sign_in, started,
                           table_token, until)
from web.limits import Bounds
from web.reader import READ_REQUEST
from web.reader import ForwardedRequest, frame_read, framed
from web.reader_process import NICE, answered, answering
from web.service import CHARGED, ON_READERS, POOL

WAIT = 60.0  # seconds a condition may take to hold (a reader's start on a loaded machine), at most
DEALS = ["6S pass pass | 6S | whist whist | 6 2 2", "pass pass pass | 2 5 3", "6S pass pass | 6S | whist whist | 6 2 2"]
# Reads and pages anyone may ask for: at points in time, and the club's pages
READS = ["/api/games/t1/sheet.svg?at=3", "/api/games/t1/sheet.svg?at=9", "/api/games/t1/settlement?at=5",
         "/api/games/t1/deals?at=9", "/api/games/t1/sheet", "/api/games/t1/deals", "/club", "/watch/t1",
         "/api/games/t1/sheet.svg?at=9&lang=ru", "/club?lang=ru", "/api/games/nothing/sheet"]
FREE = Bounds(rate=1000, burst=1000, at_once=100)  # the budget is not what most tests here look at


def recorded(c: TestClient) -> None:
    """A pulka of three deals, made by a director and a table's phone."""
    account(str(c.app.state.service.db), "dora", "director", PASSWORD)  # type: ignore[attr-defined]
    director = sign_in(c, "dora")
    new_game(c, director)
    phone = bearer(table_token(c, director))
    for n, line in enumerate(DEALS):
        version = c.get("/api/games/t1").json()["version"]
        r = c.post("/api/games/t1/deal", json={"id": f"phone-{n:04d}", "version": version, "line": line},
                   headers=phone)
        assert r.status_code == 201, r.text


@contextmanager
def anonymous(db: str, **settings: Any) -> Iterator[tuple[TestClient, Any]]:
    """A service with its reader up, on a pulka of three deals (``recorded``), its client
    signed out; and its reader (``web.reader.Reader``)."""
    with client(db, read_process=True, **{"bounds": FREE, **settings}) as c:
        if settings.get("https"):
            c.base_url = "https://testserver"  # type: ignore[assignment]  # its cookie is Secure
        reader = c.app.state.reader  # type: ignore[attr-defined]
        assert reader.ready  # the service began to serve once its reader was up
        recorded(c)
        c.cookies.clear()  # anonymous from here
        yield c, reader


def answers(c: TestClient, paths: list[str]) -> list[tuple[int, str, bytes]]:
    found = []
    for path in paths:
        r = c.get(path)
        found.append((r.status_code, r.headers.get("content-type", ""), r.content))
    return found


def test_an_anonymous_read_is_the_readers_and_the_same_as_the_services(store_url: str) -> None:
    with anonymous(store_url) as (c, reader):
        made = answers(c, READS)
        assert reader.forwarded == len(READS)
        assert [status for status, _, _ in made] == [200] * (len(READS) - 1) + [422]  # no such game: said
        sign_in(c, "dora")  # a session: answered by the service itself
        assert answers(c, READS) == made
        assert reader.forwarded == len(READS)


def test_a_forwarded_answer_has_the_services_headers_once_and_is_charged(tmp_path: Path) -> None:
    bounds = Bounds(rate=0.001, burst=50, at_once=100)
    with anonymous(str(tmp_path / "club.db"), https=True, bounds=bounds) as (c, reader):
        limits = c.app.state.limits  # type: ignore[attr-defined]
        before = limits.clients["testclient"].budget
        r = c.get("/api/games/t1/sheet.svg?at=9")
        assert r.status_code == 200 and reader.forwarded == 1
        # the reader's time charged, not the request's fee alone (a refill of a millisecond a second aside)
        assert before - limits.clients["testclient"].budget > Bounds().cost + 0.0005
        names = [name.lower() for name, _ in r.headers.multi_items()]
        for name in ("content-security-policy", "strict-transport-security", "x-frame-options", "content-type",
                     "content-length"):
            assert names.count(name) == 1, (name, names)
        assert not {"date", "server"} & set(names)  # the reader's own: the service's server sets them


def test_the_reader_runs_below_its_service(tmp_path: Path) -> None:
    with anonymous(str(tmp_path / "club.db")) as (_c, reader):
        assert os.getpriority(os.PRIO_PROCESS, reader.pid) == min(19, os.getpriority(os.PRIO_PROCESS, 0) + NICE)


def test_what_the_service_answers_itself(tmp_path: Path) -> None:
    with anonymous(str(tmp_path / "club.db")) as (c, reader):
        assert c.get("/api/health").status_code == 200  # what only the service knows: its live feed
        assert c.get("/static/score.js").status_code == 200  # its files
        assert c.post("/api/session", json={"name": "dora", "password": "wrong password!"}).status_code != 200
        with c.stream("GET", "/api/games/t1/events") as events:  # its live feed
            assert events.status_code == 200
        assert reader.forwarded == 0
        assert c.get("/api/games/t1/sheet").status_code == 200 and reader.forwarded == 1


def test_a_reader_that_ends_is_replaced_and_the_service_answers_meanwhile(tmp_path: Path) -> None:
    with anonymous(str(tmp_path / "club.db")) as (c, reader):
        first = reader.pid
        expected = c.get("/api/games/t1/sheet.svg?at=9").content
        os.kill(first, signal.SIGKILL)
        until(lambda: not reader.ready or reader.pid != first, WAIT)
        r = c.get("/api/games/t1/sheet.svg?at=9")  # answered by the service itself, or by the new reader
        assert r.status_code == 200 and r.content == expected
        until(lambda: reader.ready and reader.pid != first, WAIT)
        before = reader.forwarded
        assert c.get("/api/games/t1/sheet.svg?at=9").content == expected
        assert reader.forwarded == before + 1 and reader.started == 2


def test_a_stuck_reader_is_started_again_and_the_service_answers_meanwhile(tmp_path: Path) -> None:
    with anonymous(str(tmp_path / "club.db")) as (c, reader):
        first, expected = reader.pid, c.get("/api/games/t1/settlement?at=5").content
        reader.timeout = 1.0  # the test's patience, not a timing it measures
        os.kill(first, signal.SIGSTOP)  # stuck: it takes the request and never answers
        r = c.get("/api/games/t1/settlement?at=5")
        assert r.status_code == 200 and r.content == expected  # answered by the service itself
        until(lambda: reader.ready and reader.pid != first, WAIT)
        assert not alive(first)
        assert c.get("/api/games/t1/settlement?at=5").content == expected and reader.forwarded == 2


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(p) for p in text]
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_served_reader_answers_and_ends_with_its_service(tmp_path: Path) -> None:
    """``pulka serve`` starts its reader unasked (``--no-read-process`` would not)."""
    with served_with_director(tmp_path) as served:
        http, _director, token = started(served)
        assert http.post("/api/games/t1/deal", json={"id": "phone-0001", "version": 1, "line": DEALS[0]},
                         headers=bearer(token)).status_code == 201
        until(lambda: "makes what anyone may read" in (tmp_path / "serve.log").read_text(), WAIT)
        [reader] = children(served.proc.pid)
        anonymous = served.http()
        assert anonymous.get("/api/games/t1/sheet.svg?at=5").status_code == 200
        assert anonymous.get("/club").status_code == 200
        served.kill()  # SIGKILL: the service cannot tell its reader
        until(lambda: not alive(reader), WAIT)


# -- the hand-over: a message of its own, on connections kept open ---------------------------


ASKED = ForwardedRequest("GET", "/api/games/t1/sheet", b"/api/games/t1/sheet", b"at=5", [(b"accept", b"*/*")],
              ("127.0.0.9", 4711), "https", "1.1", ("testserver", 443))


def test_a_message_read_in_pieces_and_a_connection_closed_between_or_within_messages() -> None:
    async def run() -> list[Any]:
        whole = framed(ASKED) + framed(ASKED)
        stream = asyncio.StreamReader()
        for i in range(len(whole)):  # a byte at a time, as a slow socket might give it
            stream.feed_data(whole[i:i + 1])
        stream.feed_eof()
        found: list[Any] = [READ_REQUEST.decode(await frame_read(stream)) for _ in range(2)]
        with pytest.raises(EOFError):  # closed between messages: the end of a kept connection
            await frame_read(stream)
        cut = asyncio.StreamReader()
        cut.feed_data(framed(ASKED)[:-1])
        cut.feed_eof()
        with pytest.raises(EOFError) as within:  # closed within one: never a message cut short
            await frame_read(cut)
        assert within.value.partial == framed(ASKED)[4:-1]  # type: ignore[attr-defined]  # the body read so far
        return found

    assert asyncio.run(run()) == [ASKED, ASKED]


def test_the_reader_answers_a_message_whole_on_its_readers_pool_and_charges_its_time() -> None:
    seen: list[dict[str, Any]] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope)
        assert POOL.get() is ON_READERS  # its work on the readers' pool, never the writers'
        assert (await receive())["type"] == "http.request"
        CHARGED.get()[0] += 0.25  # type: ignore[index]  # as the readers' pool charges a read
        await send({"type": "http.response.start", "status": 203, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"one ", "more_body": True})
        await send({"type": "http.response.body", "body": b"two"})
        assert (await receive())["type"] == "http.disconnect"  # asked after the answer: the client is gone

    answer = asyncio.run(answered(app, ASKED))
    assert (answer.status, answer.headers, answer.body, answer.worked) == \
        (203, [(b"content-type", b"text/plain")], b"one two", 0.25)
    [scope] = seen
    assert (scope["client"], scope["scheme"], scope["query_string"], scope["server"]) == \
        (("127.0.0.9", 4711), "https", b"at=5", ("testserver", 443))


def test_a_reader_that_fails_a_request_closes_its_connection_unanswered() -> None:
    """A fault of the reader's own (not a refusal, which its middleware answers): the
    connection is closed, and the service, finding it closed, answers the request itself."""

    async def broken(scope: dict[str, Any], receive: Any, send: Any) -> None:
        raise RuntimeError("a fault of the reader's own")

    async def run() -> bytes:
        ours, theirs = socket.socketpair()
        into, out = await asyncio.open_connection(sock=theirs)
        serving = asyncio.ensure_future(answering(broken, into, out))
        back, forth = await asyncio.open_connection(sock=ours)
        forth.write(framed(ASKED))
        got = await asyncio.wait_for(back.read(), WAIT)  # until the reader closes it (a deadline, not a timing)
        await serving
        forth.close()
        return got

    assert asyncio.run(run()) == b""


def test_connections_to_the_reader_are_kept_and_dropped_with_it(tmp_path: Path) -> None:
    with anonymous(str(tmp_path / "club.db")) as (c, reader):
        for _ in range(3):
            assert c.get("/api/games/t1/sheet").status_code == 200
        assert len(reader._idle) == 1  # one request at a time: one connection, kept for the next
        first = reader.pid
        os.kill(first, signal.SIGKILL)
        until(lambda: reader.pid != first and reader.ready, WAIT)
        assert reader._idle == []  # the old reader's connections closed with it
        assert c.get("/api/games/t1/sheet").status_code == 200 and len(reader._idle) == 1

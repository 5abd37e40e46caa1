"""A live page's event stream (``web.live.Followed``), at its own door: the states it is
given first, then what its subscriber is told, a keep-alive when nothing is; its end when
its client goes or the service stops (each leaves the hub's followers); a HEAD answered
with the headers alone; and a served service asked to stop ends its open streams at
once rather than waiting out uvicorn's grace for them."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.serving import served_with_director, started, until
from web.live import PING_COMMENT, Followed, Hub, event_message
from web.service import Service

pytestmark = pytest.mark.sqlite_only  # the subject is the stream, not the store


class Client:
    """The ASGI server's side of one stream: what was sent, and a client that goes
    when told to (``leave``)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.left = asyncio.Event()
        self.asked = False

    async def receive(self) -> dict[str, Any]:
        if not self.asked:
            self.asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.left.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def bodies(self) -> list[bytes]:
        return [m["body"] for m in self.sent if m["type"] == "http.response.body"]

    def leave(self) -> None:
        self.left.set()


def hub(tmp_path: Path) -> tuple[Hub, Service]:
    service = Service(str(tmp_path / "pulka.db"), threads=1)

    async def document(name: str, number: int, since: int | None) -> bytes:
        return b""

    return Hub(service, document), service


async def until_sent(client: Client, count: int) -> None:
    while len(client.bodies()) < count:
        await asyncio.sleep(0)  # a turn of the loop: the stream's task sends meanwhile


def test_a_stream_sends_its_first_states_what_it_is_told_and_a_keepalive(tmp_path: Path) -> None:
    live, service = hub(tmp_path)

    async def run() -> list[bytes]:
        client = Client()
        subscriber = live.subscribe({"g"})
        stream = asyncio.ensure_future(Followed(live, subscriber, [b"first"], ping=3600)(
            {"type": "http", "method": "GET"}, client.receive, client.send))
        await until_sent(client, 1)
        subscriber.tell("g", b"second")
        await until_sent(client, 2)
        subscriber.tell("g", b"stale")
        subscriber.tell("g", b"third")  # told twice before it was sent: the latest only
        await until_sent(client, 3)
        assert live.followers() == 1
        client.leave()
        await stream
        assert live.followers() == 0  # the client went: it follows no more
        start = client.sent[0]
        assert start["status"] == 200 and (b"content-type", b"text/event-stream; charset=utf-8") in start["headers"]
        return client.bodies()

    try:
        assert asyncio.run(run()) == [b"first", b"second", b"third"]
    finally:
        service.close()


def test_a_quiet_stream_sends_a_keepalive_comment(tmp_path: Path) -> None:
    live, service = hub(tmp_path)

    async def run() -> list[bytes]:
        client = Client()
        stream = asyncio.ensure_future(Followed(live, live.subscribe({"g"}), [], ping=0)(
            {"type": "http", "method": "GET"}, client.receive, client.send))
        await until_sent(client, 2)
        client.leave()
        await stream
        return client.bodies()[:2]

    try:
        assert asyncio.run(run()) == [PING_COMMENT, PING_COMMENT]
    finally:
        service.close()


def test_the_services_stop_ends_every_stream_and_a_head_is_headers_alone(tmp_path: Path) -> None:
    live, service = hub(tmp_path)

    async def run() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        clients = [Client() for _ in range(3)]
        streams = [asyncio.ensure_future(Followed(live, live.subscribe({"g", "h"}), [b"first"], ping=3600)(
            {"type": "http", "method": "GET"}, c.receive, c.send)) for c in clients]
        for c in clients:
            await until_sent(c, 1)
        live.end_all()
        await asyncio.gather(*streams)
        assert live.followers() == 0
        head = Client()
        await Followed(live, live.subscribe({"g"}), [b"first"], ping=3600)(
            {"type": "http", "method": "HEAD"}, head.receive, head.send)
        assert live.followers() == 0
        return clients[0].sent, head.sent

    try:
        ended, head = asyncio.run(run())
    finally:
        service.close()
    assert ended[-1] == {"type": "http.response.body", "body": b""}  # the end of the answer: no more_body
    assert [m["type"] for m in head] == ["http.response.start", "http.response.body"] and head[1]["body"] == b""


def test_a_served_service_asked_to_stop_ends_its_open_streams_at_once(tmp_path: Path) -> None:
    with served_with_director(tmp_path) as served:
        http, _director, _token = started(served)
        with httpx.Client(base_url=http.base_url, timeout=60) as watcher, \
                watcher.stream("GET", "/api/games/t1/events") as events:
            lines = events.iter_lines()
            assert next(lines).startswith("event:")
            until(lambda: '"followers":1' in http.get("/api/health").text, 60)
            served.proc.send_signal(signal.SIGTERM)
            rest = list(lines)  # ends when the service ends the stream (or kills it after its grace)
            assert served.proc.wait(60) in (0, -signal.SIGTERM)  # uvicorn ends as the signal asked, once stopped
        log = (tmp_path / "serve.log").read_text()
        assert "timeout graceful shutdown exceeded" not in log, log[-2000:]
        assert "Traceback" not in log, log[-2000:]  # nor the reader's, stopped with it
        assert all(not line.startswith("event:") or line == "event: state" for line in rest)


def test_an_event_is_its_type_and_a_data_line_for_each_line() -> None:
    assert event_message("state", '{"version": 3}') == b'event: state\r\ndata: {"version": 3}\r\n\r\n'
    assert event_message("state", "one\ntwo\r\nthree") == \
        b"event: state\r\ndata: one\r\ndata: two\r\ndata: three\r\n\r\n"  # no line of data read as a field

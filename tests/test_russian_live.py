"""Russian on the live pages (issue 31, finding 7): what the event stream pushes is in
each subscriber's own language, the one its request asked for (``?lang=``, else
``Accept-Language``), not the language of the service's own task that follows the store;
two subscribers reading in two languages are each told in theirs, each document made
once per language, not once per subscriber."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from ledger.vocabulary import language
from tests.serving import WAIT, Served, account, next_state, sign_in
from web.live import Hub
from web.service import Service

# The subject is what the stream tells, not the store: SQLite only (conftest.py).
pytestmark = pytest.mark.sqlite_only

LINE = "Anna 6S pass whist 6 2 2"  # Boris passes, Vera whists


def test_each_subscriber_is_told_in_the_language_it_subscribed_in(tmp_path: Path) -> None:
    service = Service(str(tmp_path / "pulka.db"), threads=1)
    made: list[tuple[str, str]] = []

    async def document(name: str, number: int, since: int | None) -> bytes:
        made.append((name, language.language()))
        return f"{language._('pulya')} {number}".encode()

    async def follow() -> None:
        hub = Hub(service, document)
        with language.using("ru"):
            russians = [hub.subscribe({"g"}, deltas=True) for _ in range(3)]
        english = hub.subscribe({"g"}, deltas=True)
        hub._changes = lambda: [("g", 4)]  # type: ignore[method-assign]
        await hub.look()
        assert [r.pending["g"] for r in russians] == [b"\xd0\xbf\xd1\x83\xd0\xbb\xd1\x8f 4"] * 3  # "пуля 4"
        assert english.pending["g"] == b"pulya 4"
        assert sorted(made) == [("g", "en"), ("g", "ru")]  # once per language, not per subscriber

    try:
        asyncio.run(follow())
    finally:
        service.close()


def test_the_stream_pushes_a_deal_in_the_reader_s_language(store_url: str, tmp_path: Path) -> None:
    """Through a real ``pulka serve``: a Russian and an English reader follow one game; the
    deal recorded after they subscribed reaches each in its language, as a read of the
    game in that language shows it."""
    account(store_url, "dora", "director")
    served = Served(store_url, tmp_path / "serve.log")
    try:
        http = served.http()
        director = sign_in(http, "dora")
        r = http.post("/api/games", json={"id": "new-ru-0001", "game": "ru1", "players": ["Anna", "Boris", "Vera"],
                                          "pulya": 50}, headers=director)
        assert r.status_code == 201, r.text
        with httpx.Client(base_url=served.url, timeout=WAIT) as a, httpx.Client(base_url=served.url, timeout=WAIT) as b, \
                a.stream("GET", "/api/games/ru1/events?lang=ru&deltas=1") as ru_events, \
                b.stream("GET", "/api/games/ru1/events", headers={"Accept-Language": "en"}) as en_events:
            ru_lines, en_lines = ru_events.iter_lines(), en_events.iter_lines()
            first = next_state(ru_lines, 1)["state"]
            next_state(en_lines, 1)
            r = http.post("/api/games/ru1/deal", json={"id": "deal-ru-0001", "version": first["version"],
                                                      "line": LINE}, headers=director)
            assert r.status_code == 201, r.text
            version = r.json()["state"]["version"]
            pushed_ru = next_state(ru_lines, version)["state"]["deals"][-1]
            pushed_en = next_state(en_lines, version)["state"]["deals"][-1]
        read_ru = http.get("/api/games/ru1?lang=ru").json()["deals"][-1]
        read_en = http.get("/api/games/ru1?lang=en").json()["deals"][-1]
        assert pushed_ru == read_ru and pushed_en == read_en
        assert "пас" in pushed_ru["line"] and "вист" in pushed_ru["line"], pushed_ru
        assert "pass" in pushed_en["line"] and "whist" in pushed_en["line"], pushed_en
        assert "pass" not in pushed_ru["line"] and "whist" not in pushed_ru["line"]
    finally:
        served.stop()

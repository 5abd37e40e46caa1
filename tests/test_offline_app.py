"""The scorer's page as an offline app (issue 31, findings 2, 6 and 10), in headless
Chromium at a phone's size (390×844) against a real ``pulka serve``.

The page opened once online registers its service worker, which then controls it; the
service stopped (the club's server down, the phone's Wi-Fi up), the page says so beside
the Record button within seconds — never "online" on a kept answer — and a cold reload
still opens the page, from what the worker kept, with the table marked as kept and
who records; deals entered then wait in the outbox (kept in the browser's storage),
counted beside Record; the service started again on the same address, each is stored
once, with the time it was played at the table (the phone's clock at the tap) beside
the time it arrived.

The service's own files: the worker at the site's root as a script under the strict
policy, the manifest as a manifest, both asked of the service without any browser.

This module has a service of its own (it stops and starts it); the browser's worker
and what it kept are removed at the end, so that no other module's pages meet them. No
sleeps: every wait is a bounded wait on a condition.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
import httpx
import pytest

import serving
from serving import Served
from test_web_pages import TEN, Club, enter, outbox, own_errors, served_club, text_of, version, wait
from ledger.vocabulary.times import parse_time
from web.middleware import CSP

try:
    from selenium.webdriver.remote.webdriver import WebDriver
except ImportError:  # pragma: no cover: selenium is in the test extras
    pass

GAME = "pwa"
SECOND = timedelta(seconds=1)  # the ledger stamps its times to the second, cut
NEAR = 120  # CSS px: the connection and the count of what waits are at most this far from Record


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    where = tmp_path_factory.mktemp("offline-club")
    clubs = served_club(str(where / "pulka.db"), where)
    found = next(clubs)
    try:
        yield found
    finally:
        found.served.stop()  # the one started again by the test, if it was
        next(clubs, None)


def started_again(served: Served, monkeypatch: pytest.MonkeyPatch) -> Served:
    """``pulka serve`` on the store and the address it had: the page's origin, so its worker
    and its outbox, is the same."""
    with monkeypatch.context() as m:
        m.setattr(serving, "free_port", lambda: served.port)
        return Served(served.db, served.log)


def net(driver: WebDriver) -> str:
    found: str = driver.execute_script("var e = document.getElementById('net'); return e ? e.className : '';")
    return found


def apart(driver: WebDriver, a: str, b: str) -> float:
    """How far apart two elements are, in CSS px (0 when they overlap)."""
    gap: float = driver.execute_script("""
        var a = document.getElementById(arguments[0]).getBoundingClientRect();
        var b = document.getElementById(arguments[1]).getBoundingClientRect();
        var dx = Math.max(0, a.left - b.right, b.left - a.right), dy = Math.max(0, a.top - b.bottom, b.top - a.bottom);
        return Math.hypot(dx, dy);""", a, b)
    return gap


def forget_the_worker(driver: WebDriver, url: str) -> None:
    """The worker and its caches removed (the browser is the test process's)."""
    driver.get(url + "/sw.js")  # a page of the origin (the worker's own script, as text)
    driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        navigator.serviceWorker.getRegistrations()
          .then(function (rs) { return Promise.all(rs.map(function (r) { return r.unregister(); })); })
          .then(function () { return caches.keys(); })
          .then(function (ks) { return Promise.all(ks.map(function (k) { return caches.delete(k); })); })
          .then(function () { localStorage.clear(); done(); }, function () { done(); });""")


def test_the_worker_and_the_manifest_are_the_services_own_files(club: Club) -> None:
    worker = httpx.get(f"{club.url}/sw.js")
    assert worker.status_code == 200 and worker.headers["content-type"].startswith("text/javascript")
    assert worker.headers["content-security-policy"] == CSP and "script-src 'self'" in CSP
    assert worker.headers["cache-control"] == "no-cache" and "caches.open" in worker.text
    manifest = httpx.get(f"{club.url}/manifest.webmanifest", params={"game": "spring/1/2", "lang": "ru"})
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    doc = manifest.json()
    assert doc["start_url"] == "/score/spring/1/2?lang=ru" and doc["scope"] == "/" and doc["display"] == "standalone"
    assert doc["lang"] == "ru" and doc["icons"][0]["src"] == "/static/icon.svg"
    assert httpx.get(f"{club.url}{doc['icons'][0]['src']}").status_code == 200
    assert '<script src="/static/offline.js">' in httpx.get(f"{club.url}/score/{GAME}").text


def test_a_cold_start_with_the_service_down_opens_the_page_and_records_each_deal_once_when_it_returns(
        phones: tuple[WebDriver, WebDriver], club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    scorer = phones[0]
    club.game(GAME)
    token = club.token(GAME, "Anna")
    try:
        scorer.get(f"{club.url}/score/{GAME}#token={token}")
        wait(scorer, lambda d: version(d) == 1 and "recording" in text_of(d, "recording-as"))
        wait(scorer, lambda d: d.execute_script(
            "return !!navigator.serviceWorker.controller && document.body.dataset.offlineReady === '1';"))
        wait(scorer, lambda d: net(d) == "net on")
        assert scorer.execute_script("return document.querySelector('link[rel=manifest]').href;") == \
            f"{club.url}/manifest.webmanifest?game={GAME}"
        scorer.execute_script("document.getElementById('record').scrollIntoView({block: 'center'});")
        assert apart(scorer, "record", "net") < NEAR and apart(scorer, "record", "pending") < NEAR
        assert text_of(scorer, "pending") == "nothing waiting"

        club.served.stop()  # the club's server down; the phone's network is still there
        wait(scorer, lambda d: net(d) == "net off", timeout=10)  # never green while the service is down
        scorer.refresh()  # a cold start: nothing of the page is left but what the phone kept
        wait(scorer, lambda d: version(d) == 1 and d.execute_script("return document.body.dataset.stale === '1';"))
        wait(scorer, lambda d: "recording as Anna" in text_of(d, "recording-as") and net(d) == "net off")
        assert "kept on this phone" in text_of(scorer, "stale")
        for touch, _line in TEN[:2]:
            enter(scorer, touch)
        wait(scorer, lambda d: outbox(d) == ["waiting", "waiting"])
        assert text_of(scorer, "pending") == "waiting to be sent: 2"
        kept = scorer.execute_script(f"return JSON.parse(localStorage.getItem('pulka.outbox.{GAME}'));")
        played = [item["played_at"] for item in kept]
        assert all(parse_time(p) <= datetime.now(timezone.utc) for p in played)

        down = datetime.now(timezone.utc)
        club.served = started_again(club.served, monkeypatch)
        wait(scorer, lambda d: outbox(d) == [] and net(d) == "net on")
        wait(scorer, lambda d: not d.execute_script("return document.body.dataset.stale === '1';"))
        # the service's reads follow its store: what the page was answered, a read shows soon after
        wait(scorer, lambda d: version(d) == club.state(GAME)["version"] and len(club.state(GAME)["deals"]) >= 2)
        log = club.http.get(f"/api/games/{GAME}/log").json()["events"]
        deals = httpx.get(f"{club.url}/api/games/{GAME}").json()["deals"]
        assert [d["line"].split(" | ")[-1] for d in deals] == ["Anna 6, Boris 3, Vera 1", "Boris 2, Vera 5, Anna 3"]
        by_deal = {e["deal"]: e for e in log[1:]}
        assert [by_deal[1]["played_at"], by_deal[2]["played_at"]] == played  # each stored once, as tapped
        for event in log[1:]:
            assert parse_time(event["played_at"]) < down <= parse_time(event["at"]) + SECOND
        assert own_errors(scorer) == []
    finally:
        forget_the_worker(scorer, club.url)

"""The scorer's offline app on a club's network (issue 31): a phone's browser lets a page
keep a service worker only in a secure context, and a club's address is no loopback.

A Chromium of this module's own opens the service at a name that is not this machine's
own, ``club.test`` (its resolver maps it to 127.0.0.1, as a club's network would map
the server's address), and trusts the club's certificate authority as a phone that has
installed its certificate does: in the NSS database of a home of its own (``certutil``,
Debian's ``libnss3-tools``), nothing of the kind ignored. Over plain HTTP the page is no
secure context and has no worker — what clubs met; over ``pulka serve --club-tls`` it
registers the worker, and a cold reload with the service stopped opens the page and
records two deals, each stored once when the service returns on the same address.

No sleeps: every wait is a bounded wait on a condition.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import browsers
import serving
from serving import Served, account, sign_in
from test_offline_app import net
from test_web_pages import TEN, Club, enter, outbox, own_errors, text_of, version, wait

GAME = "club-tls"
NAME = "club.test"
CERTUTIL = shutil.which("certutil")
pytestmark = pytest.mark.sqlite_only


def club_args() -> tuple[str, ...]:
    return ("--club-tls", "--tls-name", NAME)


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    """``pulka serve --club-tls --tls-name club.test`` on 127.0.0.1: its certificates made
    at its start, beside the store."""
    where = tmp_path_factory.mktemp("club-tls")
    db = str(where / "pulka.db")
    account(db, "dora", "director")
    served = Served(db, where / "serve.log", args=club_args(), tls=Path(db + ".tls") / "ca.pem")
    http = served.http()
    found = Club(served, http, sign_in(http, "dora"))
    try:
        yield found
    finally:
        http.close()
        found.served.stop()  # the one started again by a test, if it was


@pytest.fixture(scope="module")
def club_phone(club: Club, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A phone that has installed the club's certificate (its home's NSS database trusts
    the club CA) and on whose network ``club.test`` is the server."""
    if not browsers.available():
        pytest.skip(browsers.NO_BROWSER)
    assert CERTUTIL, "certutil is missing (apt-get install libnss3-tools; .ci/run installs it)"
    home = tmp_path_factory.mktemp("phone-home")
    nssdb = f"sql:{home}/.pki/nssdb"
    (home / ".pki" / "nssdb").mkdir(parents=True)
    subprocess.run([CERTUTIL, "-N", "-d", nssdb, "--empty-password"], check=True, timeout=60)
    assert club.served.tls is not None
    subprocess.run([CERTUTIL, "-A", "-d", nssdb, "-t", "C,,", "-n", "pulka club", "-i", str(club.served.tls)],
                   check=True, timeout=60)
    chromes = browsers.Chromes()
    try:
        driver = chromes.get(1, flags=(f"--host-resolver-rules=MAP {NAME} 127.0.0.1",),
                             env={**os.environ, "HOME": str(home)})[0]
        yield driver
    finally:
        chromes.quit()


@pytest.fixture
def phone(club_phone: Any) -> Any:
    """The club's phone, cleaned for this test (its logs read, no page open)."""
    return browsers.clean(club_phone, browsers.PHONE)


def at_name(served: Served) -> str:
    return served.url.replace("127.0.0.1", NAME)


def secure(driver: Any) -> tuple[bool, bool]:
    """Whether the page is a secure context, and whether it may have a service worker."""
    found: list[bool] = driver.execute_script("return [window.isSecureContext, 'serviceWorker' in navigator];")
    return found[0], found[1]


def test_over_plain_http_at_the_clubs_address_the_page_is_no_secure_context_and_has_no_worker(
        club: Club, phone: Any, tmp_path: Path) -> None:
    club.game(GAME + "-plain")
    token = club.token(GAME + "-plain", "Anna")
    plain = Served(club.served.db, tmp_path / "plain.log")  # the service as clubs ran it: no TLS
    try:
        phone.get(f"{at_name(plain)}/score/{GAME}-plain#token={token}")
        wait(phone, lambda d: version(d) == 1 and "recording" in text_of(d, "recording-as"))
        assert phone.current_url.startswith(f"http://{NAME}:")
        assert secure(phone) == (False, False)  # no worker: a cold reload offline cannot open the page
        assert phone.execute_script("return document.body.dataset.offlineReady || '';") != "1"
    finally:
        plain.stop()


def started_again(served: Served, monkeypatch: pytest.MonkeyPatch) -> Served:
    """``pulka serve --club-tls`` again on its store and its address: the page's origin."""
    with monkeypatch.context() as m:
        m.setattr(serving, "free_port", lambda: served.port)
        return Served(served.db, served.log, args=club_args(), tls=served.tls)


def test_over_the_clubs_certificate_the_worker_opens_the_page_cold_with_the_service_down_and_each_deal_is_stored_once(
        club: Club, phone: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    club.game(GAME)
    token = club.token(GAME, "Anna")
    base = at_name(club.served)
    phone.get(f"{base}/score/{GAME}#token={token}")
    wait(phone, lambda d: version(d) == 1 and "recording" in text_of(d, "recording-as"))
    assert phone.current_url.startswith(f"https://{NAME}:") and secure(phone) == (True, True)
    assert club.http.get("/api/health").headers["strict-transport-security"] == "max-age=86400"  # a day
    wait(phone, lambda d: d.execute_script(
        "return !!navigator.serviceWorker.controller && document.body.dataset.offlineReady === '1';"))
    wait(phone, lambda d: net(d) == "net on")

    club.served.stop()
    wait(phone, lambda d: net(d) == "net off", timeout=10)
    phone.refresh()  # a cold start with the service down: only the worker's cache answers
    wait(phone, lambda d: version(d) == 1 and d.execute_script("return document.body.dataset.stale === '1';"))
    wait(phone, lambda d: "recording as Anna" in text_of(d, "recording-as"))
    for touch, _line in TEN[:2]:
        enter(phone, touch)
    wait(phone, lambda d: outbox(d) == ["waiting", "waiting"])

    club.served = started_again(club.served, monkeypatch)
    wait(phone, lambda d: outbox(d) == [] and net(d) == "net on")
    deals = club.http.get(f"/api/games/{GAME}").json()["deals"]
    log = club.http.get(f"/api/games/{GAME}/log").json()["events"]
    assert [d["line"].split(" | ")[-1] for d in deals] == ["Anna 6, Boris 3, Vera 1", "Boris 2, Vera 5, Anna 3"]
    assert [e["deal"] for e in log[1:] if e["type"] == "tricks"] == [1, 2]  # each stored once
    assert own_errors(phone) == []

"""What the service's tests share: an application in the test's process (Starlette's
TestClient), a real ``pulka serve`` process on a free port, signing in, and reading a
server-sent event stream with a bounded wait."""

from __future__ import annotations

import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from starlette.testclient import TestClient

from web.accounts import Accounts
from web.app import Settings, create_app
from web.limits import Bounds

ROOT = Path(__file__).resolve().parent.parent
PULKA = [sys.executable, "-c", "from cli.main import main; main()"]
PASSWORD = "correct horse battery"
WAIT = 20.0  # seconds any wait below gives up after
START = 60.0  # seconds a server may take to answer first (its imports and store on a loaded machine)
# The tests play a whole club from one address (127.0.0.1, or the test client's): its
# phones, its spectators and the test's own checks. A club's people have addresses of
# their own, or its proxy's X-Forwarded-For; one address's budget of anonymous work
# (0.1 s a second, 0.5 s saved) is not theirs, and on a machine loaded by the whole
# suite a few reads on PostgreSQL run out of it (a 429 where a state was read). So the
# services the tests start have a budget no test's reads come near, unless a test gives
# its own: the budget itself is tested at its door, with bounds of its own
# (test_serve_readers.py, test_serve_security.py, test_printing.py, test_reader_process.py),
# and a page's answer to a refusal in test_page_retries.py.
# The benches that measure the service under its crowds start it with its own budget
# (``Served(..., budget=None)``): what an anonymous address is refused is what they measure.
ROOMY = Bounds(rate=64, burst=64)
ROOMY_BUDGET = "64"  # ``pulka serve --budget``'s most; its saved 0.5 s refills in 8 ms


def until(condition: Any, most: float = WAIT) -> None:
    """Return once ``condition()`` holds: a poll of a condition, bounded by ``most`` seconds."""
    deadline = time.monotonic() + most
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.01)


def account(db: str, name: str, role: str, password: str = PASSWORD) -> None:
    accounts = Accounts(db)
    try:
        accounts.create(name, password, role)
    finally:
        accounts.close()


@contextmanager
def client(db: str, address: str = "testclient", **settings: Any) -> Iterator[TestClient]:
    """The service on ``db`` in this process (its lifespan run: the hub follows the store),
    asked from ``address``; ``settings``: more of ``Settings`` (``bounds``: ``ROOMY``
    unless given)."""
    settings.setdefault("bounds", ROOMY)
    with TestClient(create_app(Settings(db=db, secret="the tests' secret", threads=4, **settings)),
                    client=(address, 50000)) as c:
        yield c


def sign_in(c: TestClient | httpx.Client, name: str, password: str = PASSWORD) -> dict[str, str]:
    """Sign in; the headers every write then carries (its CSRF token)."""
    csrf = c.get("/api/session").json()["csrf"]
    r = c.post("/api/session", json={"name": name, "password": password}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 200, r.text
    return {"X-CSRF-Token": r.json()["csrf"]}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# -- a served game: what most of the service's tests begin with ----------------------------------

THREE = ["Anna", "Boris", "Vera"]


def new_game(c: TestClient | httpx.Client, headers: dict[str, str], game: str = "t1", key: str | None = None,
             players: list[str] = THREE, pulya: int = 10) -> dict[str, Any]:
    """A new pulka, as a director (``headers``: his write headers) makes it; its state.
    ``key``: the write's id (``new-GAME-0001`` unless told)."""
    r = c.post("/api/games", json={"id": key or f"new-{game}-0001", "game": game, "players": players,
                                   "pulya": pulya}, headers=headers)
    assert r.status_code == 201, r.text
    state: dict[str, Any] = r.json()["state"]
    return state


def table_token(c: TestClient | httpx.Client, headers: dict[str, str], game: str = "t1", holder: str = "Masha") -> str:
    """The token of ``game``'s table held by ``holder``; its link carries it after ``#``
    only (never sent to a server)."""
    r = c.post(f"/api/games/{game}/tokens", json={"holder": holder}, headers=headers)
    assert r.status_code == 201, r.text
    assert r.json()["links"]["score"].endswith("#token=" + r.json()["token"])
    return str(r.json()["token"])


@contextmanager
def served_with_director(tmp_path: Path, args: tuple[str, ...] = ()) -> Iterator["Served"]:
    """A real ``pulka serve`` (``args`` its options) on a new store in ``tmp_path`` that
    has a director (dora), stopped after."""
    db = str(tmp_path / "club.db")
    account(db, "dora", "director", PASSWORD)
    served = Served(db, tmp_path / "serve.log", args=args)
    try:
        yield served
    finally:
        served.stop()


def started(served: "Served", game: str = "t1", pulya: int = 10) -> tuple[httpx.Client, dict[str, str], str]:
    """A director (dora) signed in to ``served``: his client, its write headers, and the
    token of a new ``game``'s table held by Masha."""
    http = served.http()
    director = sign_in(http, "dora")
    new_game(http, director, game, pulya=pulya)
    return http, director, table_token(http, director, game)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Served:
    """A real ``pulka serve`` process on a free port, its output kept in a file;
    ``prefix``: a command that runs it (``unshare``, say: a mount of the test's own);
    ``tls``: the CA's certificate that verifies the service's, when it speaks TLS
    (``--club-tls`` makes it at start-up); ``budget``: its ``--budget`` (``ROOMY_BUDGET``;
    None: the service's own; one in ``args`` wins, the last given being click's)."""

    def __init__(self, db: str, log: Path, env: dict[str, str] | None = None, args: tuple[str, ...] = (),
                 prefix: tuple[str, ...] = (), tls: Path | None = None, budget: str | None = ROOMY_BUDGET,
                 **popen: Any) -> None:
        self.db = db
        self.port = free_port()
        self.tls = tls
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.log = log
        self.out = open(log, "ab")
        self.proc = subprocess.Popen([*prefix, *PULKA, "--db", db, "serve", "--port", str(self.port), "--threads", "4",
                                      *(("--budget", budget) if budget else ()), *args],
                                     stdout=self.out, stderr=subprocess.STDOUT, cwd=ROOT,
                                     env={**os.environ, **(env or {})}, **popen)
        self.wait_up()

    def wait_up(self) -> None:
        deadline = time.monotonic() + START
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"pulka serve ended: {self.log.read_text(errors='replace')}")
            try:
                if (not self.tls or self.tls.exists()) and httpx.get(
                        self.url + "/api/health", timeout=1, verify=self.verify()).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)  # a poll of a condition, bounded by the deadline
        raise AssertionError("pulka serve did not answer in time")

    def verify(self) -> ssl.SSLContext | bool:
        """What verifies the service's certificate: its CA's, else the system's."""
        return ssl.create_default_context(cafile=self.tls) if self.tls else True

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=WAIT, verify=self.verify())

    def kill(self) -> None:
        """``kill -9``: nothing is flushed or closed."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(WAIT)
        self.out.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(WAIT)
        self.out.close()


def next_state(lines: Iterator[str], version: int) -> dict[str, Any]:
    """The first ``state`` event of an event stream whose version is at least ``version``,
    within ``WAIT`` seconds: the stream's read timeout bounds a silent stream, and this
    deadline one kept open by its pings (every 15 s) but never telling the version."""
    deadline = time.monotonic() + WAIT
    event = None
    for line in lines:
        if time.monotonic() > deadline:
            raise AssertionError(f"no state of version {version} within {WAIT:.0f} s")
        if line.startswith("event:"):
            event = line.partition(":")[2].strip()
        elif line.startswith("data:") and event == "state":
            message: dict[str, Any] = json.loads(line.partition(":")[2])
            if message["version"] >= version:
                return message
    raise AssertionError("the event stream ended")

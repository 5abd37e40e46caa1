"""``pulka serve`` while its PostgreSQL server is restarted in immediate mode (``pg_ctl
restart -m immediate``: every backend killed, crash recovery at the next start), once,
while a phone posts deals to a real service, with one process and with two workers.

The server is a private cluster the test makes (``initdb`` into a temporary folder, on a
free port of 127.0.0.1, as the ``postgres`` user when the suite runs as root, as in CI),
so that restarting it disturbs nobody else. No answer is a 500; a deal the store could
not take is a 503 and is sent again with the same id; recording is back within ``BACK``
seconds of the server's return; every deal is stored once; a spectator's live feed goes
on past the restart. Without the server's programs the test fails under CI (where
``PULKA_TEST_POSTGRES`` is set) and is skipped, saying why, elsewhere.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from ledger.store.event_store import Store
from tests.serving import WAIT, Served, account, bearer, free_port, next_state, started

pytestmark = pytest.mark.postgres

DEALS = ["pass pass pass | 2 5 3", "pass pass pass | 3 5 2"]  # all passes: four events each
BACK = 5.0  # seconds within which recording must be back after the server's restart
POSTGRES_ENV = "PULKA_TEST_POSTGRES"  # set under CI (.ci/run), where this test must run
BEFORE, AFTER = 3, 5  # deals recorded before the restart, and after recording is back


def server_programs() -> str | None:
    """The folder of initdb and pg_ctl: PATH's, else Debian's newest."""
    found = shutil.which("pg_ctl")
    folders = [os.path.dirname(os.path.realpath(found))] if found else []
    folders += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda f: int(f.split("/")[-2]), reverse=True)
    for folder in folders:
        if all(os.access(os.path.join(folder, p), os.X_OK) for p in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


@dataclass
class Cluster:
    """A private PostgreSQL cluster in ``folder``, run by ``as_user`` (a command prefix)."""

    bin: str
    folder: Path
    port: int
    as_user: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"postgresql://pulka@127.0.0.1:{self.port}/pulka"

    def ctl(self, *args: str) -> None:
        """pg_ctl ``args`` (a start names the log, or the server keeps pg_ctl's output open)."""
        done = subprocess.run([*self.as_user, f"{self.bin}/pg_ctl", "-D", str(self.folder / "data"), "-w", "-t", "60",
                               *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (args, done.stdout, done.stderr, self.server_log())

    def server_log(self) -> str:
        log = self.folder / "server.log"
        return log.read_text(errors="replace")[-3000:] if log.exists() else ""


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    if not os.environ.get(POSTGRES_ENV):
        pytest.skip(f"PostgreSQL half skipped: set {POSTGRES_ENV} (.ci/run sets it)")
    programs = server_programs()
    if programs is None:  # under CI the server's programs are there (.ci/run installs them): their lack is a failure
        pytest.fail("no initdb/pg_ctl/postgres found (PATH, /usr/lib/postgresql/*/bin): this test makes a private "
                    "PostgreSQL cluster to restart; install the server (Debian: postgresql)")
    # Not under the test's own temporary folder (root's, which the postgres user may not
    # enter), and a short path (the server's socket is made in it).
    folder = Path(tempfile.mkdtemp(prefix="pulka-restart-", dir="/tmp" if os.path.isdir("/tmp") else None))
    as_user: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root: the cluster is the postgres user's
        user = pwd.getpwnam("postgres")
        os.chown(folder, user.pw_uid, user.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    found = Cluster(programs, folder, free_port(), as_user)
    done = subprocess.run([*as_user, f"{programs}/initdb", "-D", str(folder / "data"), "-U", "pulka", "--auth=trust",
                           "-E", "UTF8", "--no-locale", "--no-sync"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # fsync off (the cluster is thrown away), but every commit acknowledged is in the WAL
    # the crash recovery replays (synchronous_commit stays on).
    found.ctl("-l", str(folder / "server.log"), "-o",
              f"-c listen_addresses=127.0.0.1 -p {found.port} -k {folder} -c fsync=off -c full_page_writes=off", "start")
    try:
        subprocess.run([*as_user, f"{programs}/createdb", "-h", str(folder), "-p", str(found.port), "-U",
                        "pulka", "pulka"], check=True, capture_output=True, timeout=60)
        yield found
    finally:
        subprocess.run([*as_user, f"{programs}/pg_ctl", "-D", str(folder / "data"), "-m", "immediate", "-w", "stop"],
                       capture_output=True, timeout=120)
        shutil.rmtree(folder, ignore_errors=True)


class Phone:
    """A scorer's phone posting deals one after another until told to stop: a 503 is
    sent again at once with the same id; every answer's status and time kept."""

    def __init__(self, url: str, game: str, token: str, version: int) -> None:
        self.http = httpx.Client(base_url=url, timeout=WAIT)
        self.game, self.token, self.version = game, token, version
        self.answers: list[int] = []
        self.recorded: list[float] = []  # when each deal was stored (its 2xx)
        self.stop = threading.Event()
        self.changed = threading.Condition()
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=self.run)

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                i = len(self.recorded)
                body = {"id": f"phone-{i:05d}", "version": self.version, "line": DEALS[i % 2]}
                r = self.http.post(f"/api/games/{self.game}/deal", json=body, headers=bearer(self.token))
                self.answers.append(r.status_code)
                if r.status_code == 503:
                    assert "nothing was stored" in r.json()["error"], r.text
                    continue  # the same id again
                assert r.status_code in (200, 201), r.text
                self.version = r.json()["state"]["version"]
                with self.changed:
                    self.recorded.append(time.monotonic())
                    self.changed.notify_all()
        except BaseException as exc:  # noqa: BLE001 - told to the test's thread
            self.failure = exc
            with self.changed:
                self.changed.notify_all()

    def wait_for(self, count: int, since: float, deadline: float) -> bool:
        """Whether ``count`` deals are stored after ``since`` before ``deadline`` (the
        monotonic clock's), waiting on the phone's news."""
        with self.changed:
            while time.monotonic() < deadline and self.failure is None:
                if sum(1 for t in self.recorded if t > since) >= count:
                    return True
                self.changed.wait(deadline - time.monotonic())
        if self.failure is not None:
            raise self.failure
        return sum(1 for t in self.recorded if t > since) >= count


@pytest.mark.parametrize("workers", [1, 2])
def test_an_immediate_restart_of_the_server_during_writes(cluster: Cluster, tmp_path: Path, workers: int) -> None:
    url = cluster.url
    account(url, "dora", "director")
    served = Served(url, tmp_path / "serve.log", args=("--workers", str(workers)))
    phone: Phone | None = None
    try:
        http, _, token = started(served, "r1", pulya=500)
        with httpx.Client(base_url=served.url, timeout=WAIT) as spectator, \
                spectator.stream("GET", "/api/games/r1/events") as events:
            lines = events.iter_lines()
            assert next_state(lines, 1)["version"] == 1
            phone = Phone(served.url, "r1", token, 1)
            phone.thread.start()
            assert phone.wait_for(BEFORE, 0.0, time.monotonic() + WAIT), "the phone could not record before"
            cluster.ctl("-l", str(cluster.folder / "server.log"), "-m", "immediate", "restart")
            back = time.monotonic()  # the server accepts connections again
            assert phone.wait_for(1, back, back + BACK), f"nothing recorded within {BACK} s of the restart: " \
                                                         f"{phone.answers[-20:]}"
            assert phone.wait_for(AFTER, back, time.monotonic() + WAIT)
            phone.stop.set()
            phone.thread.join(WAIT)
            if phone.failure is not None:
                raise phone.failure
            # The spectator's feed, open across the restart, tells the last version.
            assert next_state(lines, phone.version)["version"] == phone.version
        assert 500 not in phone.answers, phone.answers
        deals = http.get("/api/games/r1").json()["deals"]
        assert len(deals) == len(phone.recorded)
    finally:
        if phone is not None:
            phone.stop.set()
            phone.thread.join(WAIT)
        served.stop()
    assert "Traceback" not in served.log.read_text()
    with Store(url, create=False) as store:
        stored = store.load("r1")
    # Each deal of all passes is three passes and a tally: four events, each deal once.
    assert len(stored) == 1 + 4 * len(phone.recorded) == phone.version, (len(stored), phone.version)

"""``pulka serve`` on a store it can read but not write, at the service's door: a SQLite
store on a read-only mount (0444 file, 0555 folder, and the folder bind-mounted
read-only in a mount namespace of the test's own, which root cannot write either), and
a PostgreSQL role with the README's auditor grants (USAGE on the schema, SELECT on
pulka_events, nothing on the service's tables). The service starts, says on its
terminal that it serves read-only and why, answers every reading as a service on a
writable copy does, and refuses every write with 403 and what to do (never a 500);
nothing is stored."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import psycopg
import pytest
from psycopg import sql

from helpers import stored_rows
from ledger.store.backend import parse_postgres_url
from tests.serving import PULKA, Served, account, bearer, client, next_state
from web.accounts import Accounts

DEALS = ["6S pass pass | 6S | whist whist | 6 2 2", "pass pass pass | 2 5 3"]
# The readings compared with a writable service's, byte for byte.
READINGS = ["/api/games", "/api/games/g", "/api/games/g/sheet", "/api/games/g/sheet.svg", "/api/games/g/settlement",
            "/api/games/g/deals", "/api/tournaments"]
PAGES = ["/", "/watch/g", "/score/g", "/club", "/signin", "/api/session"]


def played(db: str) -> str:
    """A pulka of two deals in ``db``, the views caught up; a scorer's token for it."""
    for args in (["new", "g", "--players", "Anna,Boris,Vera", "--pulya", "10"],
                 *(["deal", "g", line] for line in DEALS), ["players"]):
        subprocess.run([*PULKA, "--db", db, *args], check=True, capture_output=True)
    account(db, "dora", "director")
    accounts = Accounts(db)
    try:
        return accounts.issue("g", "Masha", "arbiter:dora")
    finally:
        accounts.close()


def expected(db: str) -> dict[str, bytes]:
    """The readings as a service that may write its store answers them."""
    with client(db) as c:
        return {path: c.get(path).content for path in READINGS}


def served_read_only(served: Served, want: dict[str, bytes], token: str | None) -> None:
    """Every reading answered as ``want``, every page shown, the live feed's first
    state; every write refused, 403, with what to do; no 500."""
    log = served.log.read_text()
    assert "serving the store READ-ONLY, because it cannot be written" in log, log
    with served.http() as http:
        for path in READINGS:
            r = http.get(path)
            assert r.status_code == 200 and r.content == want[path], (path, r.status_code, r.text[:300])
        for path in PAGES:
            assert http.get(path).status_code == 200, path
        with http.stream("GET", "/api/games/g/events") as events:
            version = json.loads(want["/api/games/g"])["version"]
            assert next_state(events.iter_lines(), 1)["version"] == version
        writes = [("/api/games/g/deal", {"id": "phone-0001", "version": 9, "line": DEALS[1]}),
                  ("/api/session", {"name": "dora", "password": "x"}),
                  ("/api/games", {"id": "new-h-0001", "game": "h", "players": ["A", "B", "C"]})]
        for path, body in writes:
            r = http.post(path, json=body, headers=bearer(token) if token else {})
            assert r.status_code == 403, (path, r.status_code, r.text)
            refused = r.json()["refused"]
            assert refused["rule"] == "read-only", r.text
            assert "serves its store read-only" in refused["message"] and "nothing was stored" in refused["message"]
            assert "give it the right to write" in refused["message"], r.text
        assert http.delete("/api/session").status_code == 403


def left_open(db: str, left: tuple[str, ...]) -> None:
    """Beside ``db``, of its -wal and -shm files, those ``left`` and no other: as a reader
    that ended without closing (killed, a stick pulled out) leaves them, or a copy of
    some of them."""
    code = f"import os, sqlite3; sqlite3.connect({db!r}).execute('SELECT 1 FROM sqlite_master').fetchall(); os._exit(0)"
    subprocess.run([sys.executable, "-c", code], check=True)
    for suffix in ("-wal", "-shm"):
        assert os.path.exists(db + suffix), suffix  # the store is a WAL database
        if suffix not in left:
            os.remove(db + suffix)


# Whatever the files beside a WAL database, it is served read-only: with its -wal and
# -shm files there SQLite opens it read-only as it is (no write is tried on opening).
@pytest.mark.sqlite_only
@pytest.mark.parametrize("left", [(), ("-wal", "-shm"), ("-wal",), ("-shm",)])
def test_a_read_only_sqlite_store_is_served_read_only(tmp_path: Path, left: tuple[str, ...]) -> None:
    club = tmp_path / "club"
    club.mkdir()
    db = str(club / "pulka.db")
    token = played(db)
    copy = str(tmp_path / "copy.db")
    shutil.copy(db, copy)
    want = expected(copy)
    rows = stored_rows(db)
    left_open(db, left)
    # The service in a mount namespace of its own, where the store's folder is mounted
    # read-only (root would write a 0444 file in a 0555 folder).
    setup = (f"chmod 0444 {db} && chmod 0555 {club} && mount --bind {club} {club} && "
             f"mount -o remount,bind,ro {club} && exec \"$0\" \"$@\"")
    unshare = shutil.which("unshare") or "/usr/bin/unshare"
    prefix = (unshare, "--mount") if os.geteuid() == 0 else (unshare, "--map-root-user", "--mount")
    served = Served(db, tmp_path / "serve.log", prefix=(*prefix, "bash", "-c", setup))
    try:
        if not left:
            assert "the store is read-only here" in served.log.read_text()
        served_read_only(served, want, token)
    finally:
        served.stop()
        os.chmod(club, 0o755)
        os.chmod(db, 0o644)
    assert "Traceback" not in served.log.read_text()
    assert stored_rows(db) == rows


@pytest.fixture
def auditor(postgres_url: str) -> Iterator[str]:
    """The address of a role with the README's auditor grants on ``postgres_url``'s schema."""
    address = parse_postgres_url(postgres_url)
    role, password = f"pulka_auditor_{uuid4().hex[:10]}", uuid4().hex
    with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(role), sql.Literal(password)))
    yield f"postgresql://{role}:{password}@{address.host}:{address.port}/{address.dbname}?schema={address.schema}"
    with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
        conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


@pytest.mark.postgres
def test_a_role_with_select_alone_is_served_read_only(postgres_url: str, auditor: str, tmp_path: Path) -> None:
    played(postgres_url)
    address = parse_postgres_url(postgres_url)
    role = parse_postgres_url(auditor).user
    with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(address.schema),
                                                                     sql.Identifier(role)))
        conn.execute(sql.SQL("GRANT SELECT ON {} TO {}").format(sql.Identifier(address.schema, "pulka_events"),
                                                               sql.Identifier(role)))
    want = expected(postgres_url)
    rows = stored_rows(postgres_url)
    served = Served(auditor, tmp_path / "serve.log")
    try:
        assert "permission denied" in served.log.read_text()
        served_read_only(served, want, None)  # the role may not read the tokens: the writes are anonymous
    finally:
        served.stop()
    assert "Traceback" not in served.log.read_text()
    assert stored_rows(postgres_url) == rows

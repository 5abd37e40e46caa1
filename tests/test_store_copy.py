"""A club's store moved to another (``pulka copy``: SQLite to PostgreSQL and back) and
backed up while it is written (``pulka backup``), compared event by event with the
store it came from.

The club keeps everything a store holds: pulkas, a tournament, the register's alias, a
rubber, a signed checkpoint, the service's accounts, a table's token, the session's key
and the receipts of the phone's writes. A copy holds every row of the events table in
the same order and byte for byte, the same kept tables; the checkpoint published from
the first store proves the copy's events (``pulka_verify.py``) and a later one extends
it; the same sign-ins, the same table link, the same receipts work on the copy. A copy
into a store that holds anything is refused, and a copy that fails leaves nothing. A
store the service writes during the copy or the backup is copied as of one moment:
every append whole, every receipt with its events, the copy's rows the first rows of
the store's.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx
import psycopg
import pytest
from click.testing import CliRunner

from cli.main import main
from helpers import ok, run, stored_rows
from ledger.desks.upkeep import copied
from ledger.store import copy as store_copy
from ledger.store import layout
from ledger.store.backend import StoreError, parse_postgres_url
from ledger.store.event_store import Store
from tests.serving import PASSWORD, Served, account, bearer, sign_in
from web.accounts import Account, Accounts

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
PLAYERS = ["Анна", "Boris", "Вера"]
DEAL = "6S pass pass | 6S | whist whist | 6 2 2"  # 7 events: three bids, the contract, two calls, the tricks
TABLE = "стол"


def rows(db: str) -> list[tuple[Any, ...]]:
    """Every row of the store's events table in store order: stream, number, topic, bytes."""
    with Store(db, create=False) as store, store.backend.snapshot() as tx:
        found = tx.run(f"SELECT originator_id, originator_version, topic, state FROM {tx.name(tx.events_table)} "
                       f"ORDER BY {tx.position}")
    return [(stream if isinstance(stream, UUID) else UUID(stream), number, topic, bytes(state))
            for stream, number, topic, state in found]


def kept(db: str) -> dict[str, set[tuple[Any, ...]]]:
    """The rows of each table only the store holds."""
    with Store(db, create=False) as store, store.backend.snapshot() as tx:
        present = tx.tables()
        return {table: {tuple(row) for row in tx.run(f"SELECT {', '.join(layout.columns(table))} "
                                                     f"FROM {tx.name(table)}")}
                for table in layout.KEPT if table in present}


class Phone:
    """The table's phone: deals sent to the service with the table's token, each under a
    client id of its own (a receipt), the version it last saw."""

    def __init__(self, http: httpx.Client | Any, token: str, version: int) -> None:
        self.http, self.headers, self.version, self.sent = http, bearer(token), version, 0

    def deal(self) -> str:
        self.sent += 1
        key = f"00000000-0000-4000-8000-{self.sent:012d}"
        r = self.http.post(f"/api/games/{TABLE}/deal", json={"id": key, "version": self.version, "line": DEAL,
                                                            "again": self.sent > 1}, headers=self.headers)
        assert r.status_code == 201, r.text
        self.version = r.json()["state"]["version"]
        return key


def club(db: str, tmp_path: Path, http: httpx.Client | Any) -> dict[str, Any]:
    """A club's store with everything a store holds; what it published and handed out."""
    for source, game in (("ex07_leningrad_closing", "пятница"), ("conv_half_whist", "вечер")):
        lines = (FIXTURES / f"{source}.jsonl").read_text(encoding="utf-8").replace(f'"{source}"', f'"{game}"')
        for letter, name in zip("ABC", PLAYERS, strict=True):
            lines = lines.replace(f'"{letter}"', f'"{name}"')
        (tmp_path / f"{game}.jsonl").write_text(lines, encoding="utf-8")
        ok(db, "import", str(tmp_path / f"{game}.jsonl"))
    ok(db, "tournament", "new", "кубок", "--players", ",".join(PLAYERS), "--pulya", "10", "--tours", "1",
       "--table-size", "3", "--by", "arbiter:Oleg")
    ok(db, "alias", "Аня", "Анна", "--by", "arbiter:Oleg")
    ok(db, "bridge", "new", "роббер", "--players", "Анна,Boris,Вера,Gleb", "--by", "Анна")
    ok(db, "bridge", "deal", "роббер", "4S X N 10", "--by", "Анна")
    account(db, "dora", "director")
    director = sign_in(http, "dora")
    r = http.post("/api/games", json={"id": "new-game-0001", "game": TABLE, "players": PLAYERS, "pulya": 200},
                  headers=director)
    assert r.status_code == 201, r.text
    version = r.json()["state"]["version"]
    r = http.post(f"/api/games/{TABLE}/tokens", json={"holder": "Boris"}, headers=director)
    assert r.status_code == 201, r.text
    http.cookies.clear()
    phone = Phone(http, r.json()["token"], version)
    first = phone.deal()
    made = CliRunner().invoke(main, ["keygen", "club.example/pulka", "--out", str(tmp_path / "club.key")])
    assert made.exit_code == 0, made.output
    published = tmp_path / "published.txt"
    published.write_text(ok(db, "checkpoint", "--key", str(tmp_path / "club.key")), encoding="utf-8")
    phone.deal()
    accounts = Accounts(db)
    try:
        secret = accounts.secret()
    finally:
        accounts.close()
    return {"phone": phone, "first": first, "published": published, "secret": secret,
            "token": r.json()["token"]}


@contextmanager
def served(db: str, tmp_path: Path) -> Iterator[Served]:
    server = Served(db, tmp_path / f"serve-{len(list(tmp_path.glob('serve-*')))}.log")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite -> postgres", "postgres -> sqlite"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """A source and a target address: the move to PostgreSQL, and back."""
    sqlite_db = str(tmp_path / "club.db")
    postgres = request.getfixturevalue("postgres_url")
    return (sqlite_db, postgres) if request.param.startswith("sqlite") else (postgres, sqlite_db)


def checked_alone(key: Path, *args: str) -> str:
    """What the player's verifier (pulka_verify.py, nothing of pulka) says of a proof,
    with the club's public key and the checkpoints it saw before kept beside the key: it
    must check out."""
    done = subprocess.run([sys.executable, str(ROOT / "pulka_verify.py"), *args, "--key", str(key),
                           "--state", str(key.parent / "seen")],
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.endswith("OK\n"), done.stdout + done.stderr
    return done.stdout


@pytest.mark.postgres
def test_a_club_moves_to_another_store_whole_and_everything_works_there(stores: tuple[str, str],
                                                                       tmp_path: Path) -> None:
    source, target = stores
    with served(source, tmp_path) as server, server.http() as http:
        made = club(source, tmp_path, http)
    said = ok(source, "copy", target)
    assert said.startswith(f"copied {len(rows(source))} events of 7 streams into ")
    assert rows(target) == rows(source)
    assert kept(target) == kept(source) and kept(source)["pulka_receipts"] and kept(source)["pulka_tokens"]
    assert ok(target, "verify") == ok(source, "verify")
    for args in (("players", "--json"), ("rating", "--json"), ("tournament", "standings", "кубок", "--json"),
                 ("settle", "роббер", "--json"), ("settle", TABLE, "--json")):
        assert ok(target, *args) == ok(source, *args), args
    # The checkpoint published from the first store proves the copy's events, and a later
    # checkpoint of the copy extends it.
    bundle = tmp_path / "bundle.json"
    bundle.write_text(ok(target, "prove", TABLE, "--checkpoint", str(made["published"])), encoding="utf-8")
    checked_alone(tmp_path / "club.pub", str(bundle), "--no-recompute")
    later = ok(target, "checkpoint", "--key", str(tmp_path / "club.key"))
    size = int(made["published"].read_text(encoding="utf-8").splitlines()[1])
    proof = tmp_path / "consistency.json"
    proof.write_text(ok(target, "prove", "--consistency", str(size), later.splitlines()[1]), encoding="utf-8")
    # The player saw the published checkpoint (the bundle's): the proof from it is enough.
    said = checked_alone(tmp_path / "club.pub", "--consistency", str(proof))
    assert f"consistent with #{size}, the last checkpoint of club.example/pulka you saw: no fork" in said
    assert run(target, "verify").exit_code == 0
    # The same sign-ins, the same session key, the same table link; a write sent again is known.
    accounts = Accounts(target)
    try:
        assert accounts.sign_in("dora", PASSWORD) == Account("dora", "director")
        assert accounts.secret() == made["secret"]
        found = accounts.token(made["token"])
        assert found is not None and (found.game, found.by) == (TABLE, "Boris")
    finally:
        accounts.close()
    with served(target, tmp_path) as server, server.http() as http:
        phone: Phone = made["phone"]
        phone.http = http
        r = http.post(f"/api/games/{TABLE}/deal", json={"id": made["first"], "version": 1, "line": DEAL},
                      headers=phone.headers)
        assert r.status_code == 200 and r.json()["duplicate"] is True, r.text
        phone.deal()
    assert "стол: 22 events, chain intact" in ok(target, "verify")


@pytest.mark.postgres
def test_a_copy_refuses_a_store_that_holds_anything_and_changes_nothing(stores: tuple[str, str],
                                                                         tmp_path: Path) -> None:
    source, target = stores
    ok(source, "new", "g", "--players", ",".join(PLAYERS), "--pulya", "10")
    ok(target, "new", "h", "--players", ",".join(PLAYERS), "--pulya", "10")
    before = stored_rows(target)
    result = run(source, "copy", target)
    assert result.exit_code == 1, result.output
    assert re.search(r"is not empty \((pulka_events|stored_events) holds 1 row\)", result.stderr), result.stderr
    assert "a copy goes into a store that holds nothing yet" in result.stderr and "secret" not in result.stderr
    assert stored_rows(target) == before
    assert "refused" not in ok(source, "verify")
    # an account alone is something too
    other = str(tmp_path / "accounts.db")
    account(other, "dora", "director")
    result = run(source, "copy", other)
    assert result.exit_code == 1 and "(pulka_accounts holds 1 row)" in result.stderr
    assert run(source, "copy", source).exit_code == 1


@pytest.mark.postgres
def test_a_copy_that_fails_leaves_nothing_behind(stores: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    source, target = stores
    ok(source, "new", "g", "--players", ",".join(PLAYERS), "--pulya", "10")
    account(source, "dora", "director")

    def fails(*args: Any) -> None:
        raise StoreError("the disk went away")

    monkeypatch.setattr(layout, "record", fails)  # the copy's last step, after every row was written
    with pytest.raises(StoreError, match="the disk went away"):
        store_copy.copy_store(source, target)
    if target.startswith("postgresql://"):
        address = parse_postgres_url(target)
        with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
            assert conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s",
                                (address.schema,)).fetchall() == []
    else:
        assert not Path(target).exists() and not list(Path(target).parent.glob(Path(target).name + "*"))


def prefix_and_whole(copy: str, source: str) -> None:
    """The copy's rows are the source's first rows, event by event; the table's pulka at
    the end of an append (its start and whole deals of 7 events); a receipt in the copy
    exactly when its events are."""
    found, all_rows = rows(copy), rows(source)
    assert found == all_rows[:len(found)]
    assert run(copy, "verify").exit_code == 0
    with Store(copy, create=False) as store:
        assert (store.count(TABLE) - 1) % 7 == 0, store.count(TABLE)
        receipts = kept(copy).get("pulka_receipts", set())
        for key, stream, first, last in kept(source)["pulka_receipts"]:
            assert ((key, stream, first, last) in receipts) == (store.count(stream) >= last), key
            assert store.count(stream) >= last or store.count(stream) < first, key


@pytest.mark.postgres
def test_a_store_the_service_writes_during_the_copy_is_copied_as_of_one_moment(
    stores: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The copy reads a page of rows, then the table's phone sends five deals through
    the service, then the copy reads on: the copy is the store as it was when it began."""
    source, target = stores
    monkeypatch.setattr(store_copy, "PAGE", 10)
    with served(source, tmp_path) as server, server.http() as http:
        made = club(source, tmp_path, http)
        before = len(rows(source))
        phone: Phone = made["phone"]
        sent: list[str] = []

        def meanwhile(done: int) -> None:
            if not sent:
                sent.extend(phone.deal() for _ in range(5))

        copied(source, target, meanwhile)
    assert len(sent) == 5 and len(rows(source)) == before + 35
    assert rows(target) == rows(source)[:before]
    prefix_and_whole(target, source)
    with Store(target, create=False) as store:
        assert all(store.receipt(key) is None for key in sent)
        assert store.receipt(made["first"]) is not None


@pytest.mark.postgres
def test_a_backup_while_the_service_writes_restores_whole(stores: tuple[str, str], tmp_path: Path) -> None:
    """``pulka backup`` while the table's phone sends deal after deal through ``pulka
    serve``: each backup verifies clean, its rows are the store's first rows, every
    append whole and every receipt with its events; restored (the file put in the store's
    place, or copied back into PostgreSQL), it verifies clean and reads the same."""
    source, target = stores
    stop = threading.Event()
    failures: list[BaseException] = []
    with served(source, tmp_path) as server, server.http() as http:
        made = club(source, tmp_path, http)
        phone: Phone = made["phone"]
        ready = threading.Event()

        def send() -> None:
            try:
                while not stop.is_set():
                    phone.deal()
                    ready.set()
            except BaseException as exc:  # noqa: BLE001 - reported by the test
                failures.append(exc)
                ready.set()

        writer = threading.Thread(target=send)
        writer.start()
        try:
            assert ready.wait(60)
            backups = [tmp_path / f"backup-{n}.db" for n in range(2)]
            for backup in backups:
                said = ok(source, "backup", str(backup))
                assert said.startswith("backed up ") and str(backup) in said
        finally:
            stop.set()
            writer.join(60)
    assert not failures, failures
    assert phone.sent > 3
    for backup in backups:
        prefix_and_whole(str(backup), source)
    # Restored: the file itself where the store was, or copied back into a PostgreSQL schema.
    restored = str(tmp_path / "restored.db") if source.endswith(".db") else target
    if source.endswith(".db"):
        shutil.copy(backups[-1], restored)
    else:
        ok(str(backups[-1]), "copy", restored)
    assert rows(restored) == rows(str(backups[-1]))
    assert ok(restored, "verify") == ok(str(backups[-1]), "verify")
    assert ok(restored, "players", "--json") == ok(str(backups[-1]), "players", "--json")


def test_a_backup_goes_into_a_new_file(tmp_path: Path) -> None:
    db = str(tmp_path / "club.db")
    ok(db, "new", "g", "--players", ",".join(PLAYERS), "--pulya", "10")
    (tmp_path / "old.db").write_bytes(b"something")
    result = run(db, "backup", str(tmp_path / "old.db"))
    assert result.exit_code == 1 and "exists already: a backup goes into a new file" in result.stderr
    assert (tmp_path / "old.db").read_bytes() == b"something"
    assert not (tmp_path / "old.db.partial").exists()


"""Setting up and reaching a store, on SQLite and PostgreSQL: the table is created once
and never by a read; an auditor's read-only role runs every reading command; waits are
bounded and say what they wait for; large imports complete; addresses that cannot keep
anything are refused; and no message ever shows a password."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import msgspec
import psycopg
import pytest
from click.testing import CliRunner, Result
from psycopg import sql

from cli.main import main
from ledger.store import postgres, sqlite
from ledger.words.deal_line import deal_events
from ledger.judge.judging import judge_events
from ledger.judge.kinds import PULKA, start_stream
from ledger.store.event_store import Store, StoreError, parse_postgres_url
from ledger.vocabulary.events import GameStarted, encode_event

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GAME = "ex10_sochi_sixes"
READING = [["games"], ["sheet", GAME], ["settle", GAME], ["log", GAME], ["explain", GAME, "A.pulya"],
           ["verify"], ["verify", GAME], ["export", GAME], ["head", GAME], ["diff", GAME, "5", "9"]]


def run(db: str, *args: str) -> Result:
    result = CliRunner().invoke(main, [*args, "--db", db], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def ok(db: str, *args: str) -> str:
    result = run(db, *args)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.stdout


def refused(db: str, *args: str) -> str:
    result = run(db, *args)
    assert result.exit_code == 1, f"{args} should be refused: {result.output}"
    return result.stderr


def has_table(db: str) -> bool:
    if db.startswith("postgresql://"):
        address = parse_postgres_url(db)
        with psycopg.connect(**address.connect_kwargs()) as conn:
            found = conn.execute("SELECT 1 FROM pg_tables WHERE schemaname = %s AND tablename = 'pulka_events'",
                                 (address.schema,)).fetchone()
        return found is not None
    if not os.path.exists(db):
        return False
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'stored_events'").fetchone() is not None


def test_reads_never_create_the_store(store_url: str) -> None:
    for args in READING:
        run(store_url, *args)
    with Store(store_url, create=False) as store:
        where = store.description  # the file's full path; the server without its password
    assert ok(store_url, "games") == f"no games stored yet in the store {where}; start one with `pulka new`\n"
    assert f"no game named 'ex10_sochi_sixes' in the store {where}; it has no games yet" in refused(store_url, "sheet", GAME)
    assert not has_table(store_url)
    if not store_url.startswith("postgresql://"):
        assert not os.path.exists(store_url)  # not even an empty file


def test_a_command_refused_before_it_writes_creates_nothing(store_url: str, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.jsonl"
    lines = (FIXTURES / f"{GAME}.jsonl").read_text(encoding="utf-8").splitlines()
    damaged.write_text("\n".join(lines[:40] + ['{"type": "bid"'] + lines[40:]) + "\n", encoding="utf-8")
    assert "line 41" in refused(store_url, "import", str(damaged))
    assert "3 or 4 players" in refused(store_url, "new", "g", "--players", "A,B")
    assert not has_table(store_url)
    if not store_url.startswith("postgresql://"):
        assert not os.path.exists(store_url)  # not even an empty file
    # The first command that writes makes it.
    ok(store_url, "new", "g", "--players", "A,B,C")
    assert has_table(store_url)


def test_init_creates_the_store_once(store_url: str) -> None:
    assert ok(store_url, "init").startswith("store ready: ")
    assert has_table(store_url)
    assert ok(store_url, "init").startswith("store ready: ")
    ok(store_url, "import", str(FIXTURES / f"{GAME}.jsonl"))
    ok(store_url, "init")
    assert ok(store_url, "games").startswith(f"{GAME}: A, B, C; sochi, pulya to 20; 211 events, 30 deals")


def test_a_store_that_cannot_keep_anything_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="in-memory"):
        Store("")  # (on the command line, --db "" is the default store)
    for address in [":memory:", "file::memory:?cache=shared", "file:x?mode=memory", "file:/x?vfs=memdb"]:
        with pytest.raises(StoreError, match="in-memory"):
            Store(address)
        for args in (["games"], ["new", "g", "--players", "A,B,C"]):
            err = refused(address, *args)
            assert "in-memory SQLite database" in err and "give a file path" in err, (address, err)


@pytest.mark.postgres
def test_no_message_shows_a_password(postgres_url_with_password: str) -> None:
    postgres_url = postgres_url_with_password
    secret = "s3cr3t-Pa55%40word"
    address = parse_postgres_url(postgres_url)
    wrong_password = postgres_url.replace(f":{address.password}@", f":{secret}@", 1)
    unreachable = f"postgresql://anna:{secret}@127.0.0.1:1/pulka"
    bad_parameter = f"postgresql://anna:{secret}@127.0.0.1:1/pulka?sslmode=require"
    no_database = f"postgresql://anna:{secret}@127.0.0.1:1"
    for db in (wrong_password, unreachable, bad_parameter, no_database):
        for args in (["games"], ["sheet", "g"], ["new", "g", "--players", "A,B,C"], ["init"]):
            result = run(db, *args)
            assert result.exit_code == 1, (db, args, result.output)
            assert "s3cr3t" not in result.output and "Pa55" not in result.output, result.output
    assert "password authentication failed" in run(wrong_password, "games").stderr
    assert "cannot connect to postgresql://anna@127.0.0.1:1/pulka" in run(unreachable, "games").stderr
    # A refusal on a reachable store names the store without its password either.
    err = refused(postgres_url, "sheet", "nobody")
    assert address.password not in err


def test_a_writer_waiting_for_the_lock_says_what_it_waits_for(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok(store_url, "new", "g", "--players", "A,B,C")
    monkeypatch.setattr(sqlite, "LOCK_TIMEOUT", 1)
    monkeypatch.setattr(postgres, "LOCK_TIMEOUT", 1)
    with holding_the_write_lock(store_url):
        err = refused(store_url, "deal", "g", "pass pass pass | 4 3 3")
        assert "store error" in err
        if store_url.startswith("postgresql://"):
            assert "waited 1 s for the lock on table pulka_events, which another command writing to this store " \
                   "holds; try again" in err
        else:
            assert "waited 1 s for another command writing to this file to finish; try again" in err
        assert ok(store_url, "sheet", "g")  # reading does not wait
    assert ok(store_url, "deal", "g", "pass pass pass | 4 3 3")


class holding_the_write_lock:
    """Another connection in the middle of a write, holding what a writer must take."""

    def __init__(self, db: str) -> None:
        self.db = db

    def __enter__(self) -> None:
        if self.db.startswith("postgresql://"):
            address = parse_postgres_url(self.db)
            self.pg = psycopg.connect(**address.connect_kwargs())
            self.pg.execute(sql.SQL("LOCK TABLE {} IN EXCLUSIVE MODE").format(
                sql.Identifier(address.schema, "pulka_events")))
        else:
            self.lite = sqlite3.connect(self.db, isolation_level=None)
            self.lite.execute("BEGIN IMMEDIATE")

    def __exit__(self, *exc: object) -> None:
        if self.db.startswith("postgresql://"):
            self.pg.rollback()
            self.pg.close()
        else:
            self.lite.execute("ROLLBACK")
            self.lite.close()


@pytest.fixture
def auditor(postgres_url: str) -> Iterator[str]:
    """The address of a role that may only read the events table of the test's schema."""
    address = parse_postgres_url(postgres_url)
    role = f"pulka_auditor_{uuid4().hex[:10]}"
    password = uuid4().hex
    ok(postgres_url, "import", str(FIXTURES / f"{GAME}.jsonl"))
    with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(role), sql.Literal(password)))
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(address.schema),
                                                                     sql.Identifier(role)))
        conn.execute(sql.SQL("GRANT SELECT ON {} TO {}").format(sql.Identifier(address.schema, "pulka_events"),
                                                               sql.Identifier(role)))
    yield (f"postgresql://{role}:{password}@{address.host}:{address.port}/{address.dbname}"
           f"?schema={address.schema}")
    with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(role)))
        conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


@pytest.mark.postgres
def test_an_auditor_with_select_only_runs_every_reading_command(auditor: str, postgres_url: str) -> None:
    for args in READING:
        assert ok(auditor, *args) == ok(postgres_url, *args), args
    err = refused(auditor, "new", "other", "--players", "A,B,C")
    assert "permission denied" in err and "store error" in err
    assert "211 events, chain intact" in ok(postgres_url, "verify", GAME)  # nothing was stored


@pytest.mark.postgres
def test_a_large_import_into_postgres_completes(postgres_url: str, tmp_path: Path) -> None:
    # Three deals (a whole round of dealers) made by the command side, repeated.
    clock = "2026-11-30T20:00:00+00:00"
    _, started = start_stream(1, GameStarted(game="big", players=("A", "B", "C"), pulya=10**6), lambda: clock)
    assert isinstance(started, GameStarted)
    state = PULKA.fold([started])
    for line in ["6S pass pass | 6S | whist whist | 6 2 2", "pass pass pass | 4 3 3", "pass 7H pass | 7H | pass pass"]:
        judge_events(state, PULKA.decide, ((None, e) for e in deal_events(state, line)), lambda: clock)
    block = [encode_event(msgspec.structs.replace(e, deal=None)) for e in state.events[1:]]
    rounds = 100_000 // len(block) + 1
    log = tmp_path / "big.jsonl"
    with open(log, "wb") as f:
        f.write(encode_event(started) + b"\n")
        for _ in range(rounds):
            f.write(b"\n".join(block) + b"\n")
    count = 1 + rounds * len(block)
    assert count > 100_000

    # In a process of its own, so that a hang fails the test instead of stopping the suite.
    imported = subprocess.run([sys.executable, "-m", "cli.main", "import", str(log), "--db", postgres_url],
                              capture_output=True, text=True, timeout=300)
    assert imported.returncode == 0, imported.stderr
    assert f"created big: {count} events stored" in imported.stdout
    assert f"big: {count} events, chain intact" in ok(postgres_url, "verify", "big")

"""Real ``pulka`` processes racing and dying on a tournament (issue 24, items 5 and 6), on
SQLite and PostgreSQL.

A command is stopped at a chosen point by the store's own seam for tests
(``ledger.store.backend.pause``: with ``PULKA_TEST_PAUSE=POINT`` the process stops itself there and
the test waits until it has stopped, with ``waitpid``): no timing, no sleep.

- The close of a tour and a record into one of its tables, each stopped once it has read
  and decided, just before it writes, then let go one after the other in either order:
  the close sees the table's last record, or the record is refused because the tour is
  closed; either way the close recorded matches the table as stored.
- A tournament's import, and ``tournament start``, killed (SIGKILL) once they have
  written one stream and are about to write the next: nothing is stored, and the same
  command then stores the whole.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import main
from helpers import PULKA, environment, stored_rows

ARBITER = ("--by", "arbiter:Oleg")
DEALS = ["6S pass pass | 6S | whist whist | 6 2 2", "pass pass pass | 4 3 3"]
DEADLINE = 60  # seconds: a process that neither stops nor ends by then is killed, and the test fails


def ok(db: str, *args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--db", db], catch_exceptions=False)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.stdout


def capped_tour(db: str, players: str = "Anna,Boris,Vera") -> None:
    """Tournament ``cup``: tour 1 seated at tables of three (by hand, in the order of
    ``players``), started; every table plays its two deals, the cap."""
    ok(db, "tournament", "new", "cup", "--players", players, "--pulya", "6", "--tours", "2", "--deal-cap", "2",
       "--table-size", "3", *ARBITER)
    names = players.split(",")
    for table in range(len(names) // 3):
        ok(db, "tournament", "seat", "cup", "1", str(table + 1), ",".join(names[3 * table:3 * table + 3]), *ARBITER)
    ok(db, "tournament", "start", "cup", "1")
    for table in range(len(names) // 3):
        for line in DEALS:
            ok(db, "deal", f"cup/1/{table + 1}", line)


class Paused:
    """A pulka process that stops itself at ``point`` (``PULKA_TEST_PAUSE``)."""

    def __init__(self, tmp_path: Path, db: str, point: str, *args: str) -> None:
        self.go = tmp_path / f"go-{uuid.uuid4().hex}"  # made when the test lets it go on
        env = environment(tmp_path, PULKA_TEST_PAUSE=point, PULKA_TEST_PAUSE_GO=str(self.go))
        self.args = args
        self.proc = subprocess.Popen([*PULKA, *args, "--db", db], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env, cwd=tmp_path)
        # Bounded: a process that hangs is killed at the deadline, and waits below end.
        self.timer = threading.Timer(DEADLINE, self.proc.kill)
        self.timer.start()

    def stopped(self) -> None:
        """Wait until the process has stopped at its point (it fails the test if it ends
        or is killed instead)."""
        _, status = os.waitpid(self.proc.pid, os.WUNTRACED)
        if not os.WIFSTOPPED(status):
            self.timer.cancel()
            # Reaped by waitpid: what it printed is still in its pipes.
            out, err = self.proc.communicate()
            raise AssertionError(f"{self.args} did not stop at its point (wait status {status}): {out}{err}")

    def go_on(self) -> subprocess.CompletedProcess[str]:
        """Let it go on to its end: its exit status and what it printed."""
        self.go.touch()
        os.kill(self.proc.pid, signal.SIGCONT)
        return self.end()

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.end()

    def end(self) -> subprocess.CompletedProcess[str]:
        out, err = self.proc.communicate(timeout=DEADLINE)
        self.timer.cancel()
        assert "Traceback" not in err, err
        return subprocess.CompletedProcess(self.args, self.proc.returncode, out, err)


@pytest.fixture
def killed() -> Iterator[list[Paused]]:
    """Paused processes a failing test leaves behind are killed."""
    started: list[Paused] = []
    yield started
    for paused in started:
        if paused.proc.poll() is None:
            paused.proc.kill()
            paused.proc.wait()
        paused.timer.cancel()


def closes_what_is_stored(db: str) -> None:
    """The close of tour 1 records cup/1/1 as it is stored: its event count and last digest,
    and each player's rounded settlement; the tournament's export imports."""
    lines = [json.loads(line) for line in ok(db, "tournament", "export", "cup").splitlines()]
    closed = next(line for line in lines if line["type"] == "tour_closed")["tables"][0]
    table = [json.loads(line) for line in ok(db, "export", "cup/1/1").splitlines()]
    assert (closed["events"], closed["digest"]) == (len(table), table[-1]["digest"])
    assert closed["whists"] == json.loads(ok(db, "settle", "cup/1/1", "--json"))["rounded"]


@pytest.mark.parametrize("first", ["the record", "the close"])
def test_a_tours_close_and_a_record_at_its_table_are_ordered_by_the_store(
    store_url: str, tmp_path: Path, killed: list[Paused], first: str
) -> None:
    """Both commands have read (the table over at its cap, the tour open) before either
    writes, as on a busy store; then one writes, then the other."""
    db = store_url
    capped_tour(db)
    close = Paused(tmp_path, db, "write", "tournament", "close", "cup", "1", *ARBITER)
    killed.append(close)
    close.stopped()
    record = Paused(tmp_path, db, "write", "entry", "cup/1/1", "Vera", "whists", "4", "--on", "Boris")
    killed.append(record)
    record.stopped()
    if first == "the record":
        recorded = record.go_on()
        assert recorded.returncode == 0, recorded.stderr
        closed = close.go_on()
        assert closed.returncode == 0, closed.stderr
        # The close saw the entry: Vera's 4 whists on Boris are in the tour's result.
        assert "Boris -13" in closed.stdout and "Vera +5" in closed.stdout, closed.stdout
    else:
        closed = close.go_on()
        assert closed.returncode == 0, closed.stderr
        recorded = record.go_on()
        assert recorded.returncode == 1, recorded.stdout
        assert "tour 1 of cup was closed" in recorded.stderr and "[tournament.closed" in recorded.stderr, recorded.stderr
        assert len(ok(db, "export", "cup/1/1").splitlines()) == 12  # the entry is not stored
    closes_what_is_stored(db)
    assert "TAMPERED" not in ok(db, "verify")
    exported = tmp_path / "cup.jsonl"
    exported.write_text(ok(db, "tournament", "export", "cup"), encoding="utf-8")
    copy = str(tmp_path / "copy.db")
    ok(copy, "import", str(exported))
    assert ok(copy, "tournament", "standings", "cup", "--json") == ok(db, "tournament", "standings", "cup", "--json")


def test_a_tournaments_import_killed_between_its_streams_stores_nothing_and_comes_back_whole(
    store_url: str, tmp_path: Path, killed: list[Paused]
) -> None:
    source = str(tmp_path / "source.db")
    capped_tour(source)
    ok(source, "tournament", "close", "cup", "1", *ARBITER)
    exported = tmp_path / "cup.jsonl"
    exported.write_text(ok(source, "tournament", "export", "cup"), encoding="utf-8")
    db = store_url
    importing = Paused(tmp_path, db, "stream", "import", str(exported))
    killed.append(importing)
    importing.stopped()  # one stream written, inside the import's transaction
    importing.kill()
    assert stored_rows(db) == []
    assert "created cup:" in ok(db, "import", str(exported))
    assert ok(db, "tournament", "standings", "cup", "--json") == ok(source, "tournament", "standings", "cup", "--json")
    assert ok(db, "tournament", "export", "cup") == exported.read_text(encoding="utf-8")


def test_tournament_start_killed_between_its_tables_starts_none_and_then_all(
    store_url: str, tmp_path: Path, killed: list[Paused]
) -> None:
    db = store_url
    ok(db, "tournament", "new", "cup", "--players", "Anna,Boris,Vera,Gleb,Dina,Egor", "--pulya", "6",
       "--table-size", "3", *ARBITER)
    ok(db, "tournament", "seat", "cup", "1", "1", "Anna,Boris,Vera", *ARBITER)
    ok(db, "tournament", "seat", "cup", "1", "2", "Gleb,Dina,Egor", *ARBITER)
    before = stored_rows(db)
    starting = Paused(tmp_path, db, "stream", "tournament", "start", "cup", "1")
    killed.append(starting)
    starting.stopped()  # one table's game written, inside the command's transaction
    starting.kill()
    assert stored_rows(db) == before
    out = ok(db, "tournament", "start", "cup", "1")
    assert "started cup/1/1" in out and "started cup/1/2" in out, out


def test_a_paused_command_continued_by_anyone_but_the_test_stops_again(
    tmp_path: Path, killed: list[Paused]
) -> None:
    """A process stopped at its point and continued by something other than the test (a
    stray SIGCONT: once, a server a test was about to kill stored its deal) stops again
    there and writes nothing; the test's own go-on lets it end."""
    db = str(tmp_path / "pulka.db")
    ok(db, "new", "g", "--players", "Anna,Boris,Vera", "--pulya", "10")
    before = stored_rows(db)
    record = Paused(tmp_path, db, "write", "deal", "g", "6S pass pass | 6S | whist whist | 6 2 2")
    killed.append(record)
    record.stopped()
    os.kill(record.proc.pid, signal.SIGCONT)  # not the test's go-on: no go file
    record.stopped()  # it stopped again, at the same point
    assert stored_rows(db) == before
    ended = record.go_on()
    assert ended.returncode == 0, ended.stderr
    assert len(stored_rows(db)) == len(before) + 7

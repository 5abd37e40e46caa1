"""Running ``pulka`` in tests: in process through click (``run``, ``ok``, ``refused``),
as a real process (``pulka``), and on a real pseudo-terminal (``Terminal``); and the
rows of a store's events table (``stored_rows``), to show that a refusal left them alone.

``Terminal`` waits for what the program prints, never for a length of time: ``expect``
reads until a pattern appears (a deadline only turns a hang into a failure).
"""

from __future__ import annotations

import csv
import io
import os
import pty
import re
import select
import signal
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

import psycopg
from click.testing import CliRunner, Result
from psycopg import sql

from cli.main import main
from ledger.desks.told import Told
from ledger.store.event_store import is_postgres_url, parse_postgres_url
from ledger.vocabulary.refusal import cite
from ledger.vocabulary.wording import spoken_text
from projections.numbers import fmt

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r")
FLOAT_ARTEFACT = re.compile(r"\d\.\d{6,}")  # 13.333333333333334 in text for people


def run(db: str, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, [*args, "--db", db], input=input, env=env, catch_exceptions=False)


def ok(db: str, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> str:
    result = run(db, *args, input=input, env=env)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.stdout


BOM = b"\xef\xbb\xbf"  # UTF-8's byte order mark: how a spreadsheet knows a CSV file is UTF-8


def csv_rows(data: bytes) -> list[dict[str, str]]:
    """A CSV table as a spreadsheet reads it: UTF-8 that begins with the byte order mark,
    one header row; each row as ``csv.DictReader`` gives it."""
    assert data.startswith(BOM), data[:20]
    reader = csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline=""))
    rows = list(reader)
    assert all(None not in row and None not in row.values() for row in rows)  # every row as long as the header
    return rows


def csv_out(db: str, *args: str) -> list[dict[str, str]]:
    """The rows of the one table ``pulka ARGS --db DB`` prints."""
    result = run(db, *args)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return csv_rows(result.stdout_bytes)


def refused(db: str, *args: str, input: str | None = None) -> str:
    result = run(db, *args, input=input)
    assert result.exit_code == 1, f"{args} should be refused: {result.output}"
    assert "Traceback" not in result.output
    return result.stderr


def stored_rows(db: str) -> list[tuple[Any, ...]]:
    """Every row of the store's events table, in order (none before the table exists):
    what a refused command must leave exactly as it found it."""
    if is_postgres_url(db):
        address = parse_postgres_url(db)
        table = sql.Identifier(address.schema or "public", "pulka_events")
        with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
            found = conn.execute("SELECT to_regclass(%s)", (f"{address.schema or 'public'}.pulka_events",)).fetchone()
            if found is None or found[0] is None:
                return []
            query = sql.SQL("SELECT originator_id::text, originator_version, topic, state FROM {} "
                            "ORDER BY originator_id, originator_version").format(table)
            return [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)
                    for row in conn.execute(query).fetchall()]
    if not os.path.exists(db):
        return []
    with sqlite3.connect(db) as conn:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'stored_events'").fetchall():
            return []
        return conn.execute("SELECT originator_id, originator_version, topic, state FROM stored_events "
                            "ORDER BY originator_id, originator_version").fetchall()


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a pulka process: its own state and data folders (the current
    game, the default store), no stray game or store."""
    env = {k: v for k, v in os.environ.items() if k not in ("PULKA_GAME", "PULKA_DB", "TZ")}
    env.update({"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data"),
                "TERM": "dumb", "PYTHONIOENCODING": "utf-8"})
    env.update(extra)
    return env


# The installed `pulka` script beside this Python (the name shell completion answers to).
PULKA = [str(Path(sys.executable).parent / "pulka")]


def pulka(tmp_path: Path, *args: str, env: dict[str, str] | None = None,
          input: str | None = None) -> subprocess.CompletedProcess[str]:
    """pulka as a process of its own."""
    return subprocess.run([*PULKA, *args], capture_output=True, text=True, input=input,
                          env=env or environment(tmp_path), cwd=tmp_path, timeout=120)


class Terminal:
    """A pulka process whose standard input, output and error (or only its standard
    error) are a pseudo-terminal."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path, *, stderr_only: bool = False) -> None:
        self.master, slave = pty.openpty()
        self.stdout: IO[Any] | None = None
        if stderr_only:  # standard output to a file, read after the end
            self.stdout = tempfile.TemporaryFile(mode="w+b")
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.stdout, stderr=slave,
                                         env=env, cwd=cwd, close_fds=True)
        else:
            self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
                                         close_fds=True, start_new_session=True)
        os.close(slave)
        self.seen = ""  # everything read, without terminal control sequences
        self.pos = 0  # where the next expect starts looking

    def _read(self, deadline: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], deadline)
        if not ready:
            raise AssertionError(f"pulka printed nothing more; so far:\n{self.seen}")
        try:
            data = os.read(self.master, 65536)
        except OSError:  # the other side closed: the process ended
            return False
        if not data:
            return False
        self.seen += ANSI.sub("", data.decode("utf-8", errors="replace"))
        return True

    def expect(self, pattern: str, deadline: float = 60) -> str:
        """Read until ``pattern`` (a regular expression) appears; return what came before it."""
        regex = re.compile(pattern)
        while True:
            found = regex.search(self.seen, self.pos)
            if found:
                before = self.seen[self.pos : found.start()]
                self.pos = found.end()
                return before
            if not self._read(deadline):
                raise AssertionError(f"pulka ended without printing {pattern!r}; it printed:\n{self.seen}")

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def interrupt(self) -> None:
        """Ctrl-C at the prompt just read (``expect`` it first): SIGINT, then Enter.

        The prompt is printed by readline just before it waits for the terminal, so the
        signal may come in between: Python then only notes it, and readline's wait is
        not interrupted. The Enter ends that wait with an empty line, and Python raises
        the noted KeyboardInterrupt as ``input()`` returns, inside the same ``try``; a
        signal that came during the wait interrupted it already, and the Enter is never
        read. Either way the program sees Ctrl-C at its prompt, without this test
        guessing from outside when it waits."""
        self.proc.send_signal(signal.SIGINT)
        os.write(self.master, b"\n")

    def finish(self, deadline: float = 60) -> int:
        """Read to the end; the exit status."""
        while self._read(deadline):
            pass
        status = self.proc.wait(timeout=deadline)
        os.close(self.master)
        if self.stdout is not None:
            self.stdout.seek(0)
        return status


def tournament_export(db: str) -> str:
    """A small tournament recorded into ``db`` and exported whole: six players at two
    tables of three, one deal a table; the loser at each table is carded and removed
    for tour 2, the cut after tour 1 keeps three, and the arbiter's second card to Anna
    disqualifies her. Its file holds every kind of event of a tournament, with its
    tables' games."""
    from datetime import datetime, timedelta, timezone

    from ledger.application import Ledger
    from ledger.words.deal_line import deal_events
    from ledger.store.event_store import Store
    from ledger.desks.tournament import Tournaments
    from ledger.vocabulary.tournament_events import CutRule, TournamentStarted

    moments = (datetime(2026, 3, 1, 18, tzinfo=timezone.utc) + timedelta(minutes=n) for n in range(1000))
    with Store(db) as store:
        ledger = Ledger(store, clock=lambda: next(moments).isoformat(timespec="seconds"))
        t = Tournaments(ledger)
        t.create(TournamentStarted(game="cup", players=("Anna", "Boris", "Vera", "Gleb", "Dina", "Egor"), pulya=6,
                                   tours=3, deal_cap=1, table_size=3, removal_below=-1, cards_to_disqualify=2,
                                   cuts=(CutRule(1, 3),), by="arbiter:Oleg"))
        t.seat("cup", 1, 1, ["Anna", "Boris", "Vera"], by="arbiter:Oleg")
        t.seat("cup", 1, 2, ["Gleb", "Dina", "Egor"], by="arbiter:Oleg")
        t.start_tables("cup", 1)
        for table in ("cup/1/1", "cup/1/2"):
            ledger.execute(table, lambda state: deal_events(state, "misere pass pass | misere | 2"))
        t.close("cup", 1, by="arbiter:Oleg")
        t.card("cup", "Anna", "talking during the play", by="arbiter:Oleg")
        return "".join(line + "\n" for line in t.export("cup"))


# -- a rule of the Code at the scorer's desk ---------------------------------------------------


def told_text(told: Told) -> str:
    """What the scorer is told of a recording command, in the words the command line
    prints it (``cli.recording.tell``: standard output and error together), read from the
    desk's answer itself: the events it stored (or the deals it completed), the writes,
    each verdict with its rule cited, the reminders, and what comes next."""
    lines = [f"event {e.number}: {e.text}" for e in told.events]
    lines += [f"deal {k}: {story}" for k, story in told.deals]
    lines += [f"{w.text} {'+' if w.amount > 0 else ''}{fmt(w.amount)}" for w in told.writes]
    lines += [f"event {v.number}: {v.kind} [{cite(v.effect.rule)}]: {spoken_text(v.effect.reason)}"
              for v in told.verdicts]
    lines += [f"{n.text} [{cite(n.rule)}]" for n in told.notices]
    return "\n".join([*lines, told.next])


class Scorer:
    """One game at the scorer's desk (``ledger.desks.pulka.PulkaDesk``, or a rubber's
    ``RubberDesk``) on a store, for a test whose subject is a rule of the Code (or a Law
    of bridge): each recording command as the desk takes it, without the command line,
    which only parses and prints (its own words, options and exit statuses are tested
    through click, in test_cli.py, test_table.py and a test of each command's options).

    ``scorer.deal(line)``, ``scorer.ruling("3.4.4", by=...)``, any command of the desk on
    the game: what the scorer is told (``told_text``). ``scorer.refused("contract", "A",
    "7S")``: the refusal's words, as the command line prints them after ``refused:``,
    with the store left exactly as it was. ``sheet()``, ``explain("A.gora")``, ``log()``:
    what ``pulka sheet --json``, ``pulka explain`` and ``pulka log`` show of the game;
    ``settlement()`` and ``exported()``, ``pulka settle --json``'s and ``pulka export``'s."""

    def __init__(self, db: str, game: str, players: str, *, rubber: bool = False, **options: Any) -> None:
        from ledger.application import Ledger
        from ledger.desks.pulka import PulkaDesk
        from ledger.desks.rubber import RubberDesk
        from ledger.store.event_store import Store

        self.db, self.game = db, game
        self.store = Store(db)
        self.desk: Any = (RubberDesk if rubber else PulkaDesk)(Ledger(self.store))
        self.desk.new(game, players, **options)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Scorer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, command: str) -> Any:
        act = getattr(self.desk, command)

        def told(*args: Any, **options: Any) -> str:
            said = act(self.game, *args, **options)
            return told_text(getattr(said, "told", said))  # a correction's answer carries what it told

        return told

    def refused(self, command: str, *args: Any, **options: Any) -> str:
        from ledger.vocabulary.refusal import Refused

        before = stored_rows(self.db)
        try:
            getattr(self.desk, command)(self.game, *args, **options)
        except Refused as exc:
            assert stored_rows(self.db) == before, f"{command} {args}: refused, but the store changed"
            return str(exc)
        raise AssertionError(f"{command} {args} {options} should be refused")

    def events(self) -> list[Any]:
        return [s.event for s in self.store.load(self.game)]

    def kind(self) -> Any:
        from projections.kinds import kind_of

        return kind_of(self.events()[0])

    def view(self) -> Any:
        from projections.points import Point

        return self.kind().view(self.events(), Point(), None)

    def sheet(self) -> dict[str, Any]:
        doc: dict[str, Any] = self.view().sheet_doc()
        return doc

    def explain(self, number: str) -> str:
        from projections.trail import render_explain

        view = self.view()
        cell = view.parse_cell(number)
        return render_explain(cell, view.explain(cell), None, self.kind().cells)

    def log(self) -> str:
        from projections.trail import render_audit

        kind = self.kind()
        return render_audit(kind.audit(self.events(), None), None, kind.cells)

    def log_rows(self) -> dict[int, dict[str, Any]]:
        """``pulka log --json``'s rows, by event number."""
        from projections.trail import row_doc

        kind = self.kind()
        return {row["number"]: row for row in (row_doc(r, kind.cells) for r in kind.audit(self.events(), None))}

    def explained(self, number: str) -> list[dict[str, Any]]:
        """``pulka explain --json``'s writes."""
        view = self.view()
        rows: list[dict[str, Any]] = view.explain(view.parse_cell(number))
        return rows

    def settlement(self) -> dict[str, Any]:
        doc: dict[str, Any] = self.view().settlement_doc()
        return doc

    def exported(self) -> list[dict[str, Any]]:
        """The game's events as ``pulka export`` writes them (without their digests)."""
        from ledger.vocabulary.events import event_to_dict

        return [event_to_dict(event) for event in self.events()]

    def count(self) -> int:
        return self.store.count(self.game)

    def verified(self) -> bool:
        """What ``pulka verify`` finds: the chain intact and every event judged again as
        it was recorded."""
        from ledger.desks.verify import judged

        return self.store.verify(self.game) is None and judged(self.desk.ledger, self.game) is None

"""Speed figures, beside the machine's own limits, in one run (``make bench``).

Prints, for the embedded SQLite store and, when ``PULKA_BENCH_POSTGRES`` (or
``--postgres``) holds a ``postgresql://`` address, for PostgreSQL:

- the limits: plain SQL writing the rows a pulka stores (one transaction), and plain
  SQL reading them back with the msgspec decode of each row; no pulka code;
- each operation of the command line, run in process through the real click command,
  in events per second and as a share of the matching limit: ``import`` (of the
  write limit), ``settle`` (its share printed beside its target), ``settle --at`` the
  middle, ``log``, ``verify`` and ``export`` (of the read limit);
- one ``pulka deal`` on a pulka of 100 deals, start-up included, through the real
  ``pulka`` command in a subprocess (the median of several runs);
- a pulka with a correction on every deal against the same pulka without them,
  replayed and settled (the ratio);
- a club archive of 1,000 pulkas in one store, settled game by game;
- a rubber of bridge: judged, replayed to a settlement, audited.

Every log is made by the command side itself, as ``Ledger`` judges what a command
decides (``judging.judge_events`` with the pulka's ``decide``, over ``deal_events``),
never written by hand. Timings are the best of a few runs; nothing is asserted
(timing belongs here, not in the tests). ``--quick`` makes everything smaller.
"""

from __future__ import annotations

import argparse
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import uuid4

import msgspec
from click.testing import CliRunner

from cli.main import main as pulka
from ledger.application import Ledger
from ledger.store.event_store import bulk
from ledger.words.deal_line import deal_events
from ledger.judge.judging import judge_events
from ledger.store.event_store import Store, is_postgres_url, parse_postgres_url
from ledger.store.stored import game_id
from ledger.vocabulary.events import AnyEvent, Correction, Defence, GameStarted, PencilDown, Tricks, encode_event
from projections.game import GameState, replay
from projections.report import Point, settlement_doc, state_at
from ledger.judge.kinds import PULKA, judge_log, start_stream
from ledger.judge.rubber import start_rubber
from ledger.words.rubber_line import rubber_deal
from ledger.vocabulary.bridge import RubberStarted
from projections.rubber import replay_rubber
from projections.rubber_report import rubber_audit
from projections.rubber_settlement import settle_rubber

LINES = [
    "6S pass pass | 6S | whist whist | 6 2 2",
    "pass pass pass | 4 3 3",
    "7H pass pass | 7H | whist pass | 6 3 1",
    "misere pass pass | misere | 1",
    "pass 6NT pass | 6NT | pass pass",
    "pass 6D 7C pass | 7C | whist whist | 2 1 7",
    "pass pass pass | 2 5 3",
]
CLOCK = "2026-11-30T20:00:00+00:00"
TARGETS = {"settle": 150_000, "import": 60_000}  # events/s, in process
# ``pulka settle`` of the long pulka, the whole command in process, as a share of the
# read limit (plain SQL and msgspec): a read folds the game once, judging only what the
# ledger has not judged before (issue 30).
SETTLE_SHARE = 15.0  # per cent
ARCHIVE_TARGET = 8.0  # seconds to settle the whole archive


# -- logs made by the command side -------------------------------------------------------


def pulka_events(
    game: str, deals: int, *, correct_every: int = 0, offset: int = 0, pencil: bool = False
) -> list[AnyEvent]:
    """The events of a legal Sochi pulka of ``deals`` deals, as the ledger stores them.

    The target is never reached. With ``correct_every=K``, every K-th deal is followed
    by a correction of its last record (``correct_this_deal``). ``correct_every=1`` is an arbiter's disputed pulka. With ``pencil``,
    the recorder puts his pencil down before each correction, so every correction is
    a counted error [Code 4.2.7]: the first a warning, then equal for equal, whose
    verdict must score the deal both as recorded and as corrected.
    """
    started = GameStarted(game=game, players=("Anna", "Boris", "Vera"), pulya=100000, stake="0.10", at=CLOCK)
    _, first = start_stream(1, started, lambda: CLOCK)
    assert isinstance(first, GameStarted)
    state = PULKA.fold([first])
    for k in range(deals):
        line = LINES[(k + offset) % len(LINES)]
        begin = state.folded + 1
        judge_events(state, PULKA.decide, ((None, e) for e in deal_events(state, line)), lambda: CLOCK)
        if correct_every and (k + 1) % correct_every == 0:
            correct_this_deal(state, begin, pencil)
    return list(state.events)


def correct_this_deal(state: GameState, begin: int, pencil: bool) -> None:
    """Correct the last record of the deal whose events begin at event ``begin``: its
    tricks (two players' counts exchanged where that changes them), or, when it was
    not played, the second defender's pass, which becomes a half-whist."""
    number = state.folded
    last = state.events[number - 1]
    assert number >= begin
    replacement: dict[str, Any]
    if isinstance(last, Tricks):
        names, counts = list(last.tricks), list(last.tricks.values())
        swapped = dict(zip(names, [counts[0], *reversed(counts[1:])], strict=True))
        if swapped == last.tricks:
            swapped = dict(zip(names, list(reversed(counts)), strict=True))
        replacement = {"tricks": swapped}
    else:
        assert isinstance(last, Defence) and last.call == "pass", last
        replacement = {"call": "half_whist"}
    recorder = last.by
    events: list[AnyEvent] = [PencilDown(player=recorder)] if pencil and recorder in state.players else []
    events.append(Correction(target=number, replacement=replacement, by="Vera" if recorder != "Vera" else "Anna"))
    judge_events(state, PULKA.decide, [(None, e) for e in events], lambda: CLOCK)


def log_text(events: list[AnyEvent]) -> str:
    return "".join(encode_event(e).decode() + "\n" for e in events)


# -- measuring ---------------------------------------------------------------------------


def best(fn: Callable[[], Any], runs: int) -> float:
    """The shortest of ``runs`` timings of ``fn``, in seconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def cli(*args: str) -> str:
    result = CliRunner().invoke(pulka, list(args), catch_exceptions=False)
    if result.exit_code != 0:
        raise RuntimeError(f"pulka {' '.join(args)}: {result.output}")
    return result.stdout


class Decoded(msgspec.Struct):
    """A stored row's state as plain msgspec decodes it (the limit's decode)."""

    event: AnyEvent
    digest: str


DECODER = msgspec.json.Decoder(Decoded)
STORE_TABLE_SQLITE = "stored_events"


class Backend:
    """Fresh stores of one kind, and the plain-SQL limits on them."""

    def __init__(self, name: str, tmp: Path, postgres: str | None = None) -> None:
        self.name = name
        self.tmp = tmp
        self.postgres = postgres
        self.schemas: list[str] = []

    def fresh(self) -> str:
        """The address of a new, empty store."""
        if self.postgres is None:
            return str(self.tmp / f"{uuid4().hex}.db")
        import psycopg

        schema = f"pulka_bench_{uuid4().hex[:10]}"
        with psycopg.connect(**parse_postgres_url(self.postgres).connect_kwargs(), autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        self.schemas.append(schema)
        return self.postgres + ("&" if "?" in self.postgres else "?") + f"schema={schema}"

    def drop(self) -> None:
        if self.postgres is None or not self.schemas:
            return
        import psycopg

        with psycopg.connect(**parse_postgres_url(self.postgres).connect_kwargs(), autocommit=True) as conn:
            for schema in self.schemas:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')

    # the limits: plain SQL and msgspec, no pulka code

    def read_raw(self, db: str, game: str) -> list[tuple[int, str, bytes]]:
        """The rows a game is stored as, by plain SQL."""
        if self.postgres is None:
            with sqlite3.connect(db) as conn:
                return conn.execute(
                    f"SELECT originator_version, topic, state FROM {STORE_TABLE_SQLITE} "
                    "WHERE originator_id = ? ORDER BY originator_version", (game_id(game).hex,)
                ).fetchall()
        import psycopg

        address = parse_postgres_url(db)
        with psycopg.connect(**address.connect_kwargs()) as conn, conn.cursor(binary=True) as cur:
            cur.execute(
                f'SELECT originator_version, topic, state FROM "{address.schema}".pulka_events '
                "WHERE originator_id = %s ORDER BY originator_version", (game_id(game),)
            )
            return cur.fetchall()

    def read_limit(self, db: str, game: str) -> Callable[[], Any]:
        def read_and_decode() -> list[Decoded]:
            return [DECODER.decode(state) for _, _, state in self.read_raw(db, game)]
        return read_and_decode

    def write_limit(self, rows: list[tuple[int, str, bytes]]) -> Callable[[], Any]:
        stream = uuid4()
        if self.postgres is None:
            def write_sqlite() -> None:
                path = self.tmp / f"limit-{uuid4().hex}.db"
                with sqlite3.connect(path, isolation_level=None) as conn:
                    conn.execute("PRAGMA journal_mode=WAL")
                    conn.execute(
                        "CREATE TABLE t (originator_id TEXT, originator_version INTEGER, topic TEXT, "
                        "state BLOB, PRIMARY KEY (originator_id, originator_version))"
                    )
                    conn.execute("BEGIN")
                    conn.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [(stream.hex, v, t, s) for v, t, s in rows])
                    conn.execute("COMMIT")
            return write_sqlite

        import psycopg

        def write_postgres() -> None:
            db = self.fresh()
            address = parse_postgres_url(db)
            with psycopg.connect(**address.connect_kwargs()) as conn:
                table = f'"{address.schema}".t'
                conn.execute(
                    f"CREATE TABLE {table} (originator_id uuid, originator_version bigint, topic text, "
                    "state bytea, PRIMARY KEY (originator_id, originator_version))"
                )
                conn.commit()
                with conn.transaction():
                    for k in range(0, len(rows), 2000):
                        batch = rows[k:k + 2000]
                        conn.execute(
                            f"INSERT INTO {table} SELECT * FROM unnest(%s::uuid[], %s::bigint[], %s::text[], %s::bytea[])",
                            ([stream] * len(batch), [v for v, _, _ in batch], [t for _, t, _ in batch],
                             [s for _, _, s in batch]),
                        )
        return write_postgres


def rate(events: int, seconds: float) -> str:
    return f"{events / seconds:>11,.0f}"


def share(events: int, seconds: float, limit: float) -> str:
    return f"{100 * events / seconds / limit:5.1f} %"


def row(label: str, *cells: str) -> None:
    print(f"  {label:<36}" + "".join(f"{c:>22}" for c in cells))


# -- the parts of the run ----------------------------------------------------------------


def operations(backends: list[Backend], n: int, log: Path, runs: int) -> dict[str, float]:
    game = "bench"
    print(f"\nOperations on a pulka of {n:,} events, in process through the click commands "
          f"(events/s, share of the limit; best of {runs})")
    row("", *(b.name for b in backends))
    stores = {b.name: b.fresh() for b in backends}
    for b in backends:
        cli("import", str(log), "--db", stores[b.name])
    write_limits, read_limits = {}, {}
    for b in backends:
        db = stores[b.name]
        rows = b.read_raw(db, game)
        assert len(rows) == n, (len(rows), n)
        write_limits[b.name] = n / best(b.write_limit(rows), runs)
        read_limits[b.name] = n / best(b.read_limit(db, game), runs)
    row("limit: write (plain SQL)", *(f"{write_limits[b.name]:,.0f}" for b in backends))
    row("limit: read + decode (SQL, msgspec)", *(f"{read_limits[b.name]:,.0f}" for b in backends))

    figures: dict[str, float] = {}

    def measure(label: str, count: int, limit: dict[str, float], args: Callable[[Backend], list[str]]) -> None:
        cells = []
        for b in backends:
            seconds = best(lambda: cli(*args(b)), runs)
            figures[f"{label} {b.name}"] = count / seconds
            cells.append(f"{rate(count, seconds)} {share(count, seconds, limit[b.name])}")
        row(label, *cells)

    measure("import (parse, judge, store)", n, write_limits,
            lambda b: ["import", str(log), "--db", b.fresh()])
    measure("settle (load, replay, settle)", n, read_limits, lambda b: ["settle", game, "--db", stores[b.name]])
    row(f"  settle's share (target >= {SETTLE_SHARE:.0f} %)",
        *(f"{100 * figures[f'settle (load, replay, settle) {b.name}'] / read_limits[b.name]:.1f} %" for b in backends))
    measure("settle --at the middle", n // 2, read_limits,
            lambda b: ["settle", game, "--at", str(n // 2), "--db", stores[b.name]])
    measure("log (the audit trail)", n, read_limits, lambda b: ["log", game, "--db", stores[b.name]])
    measure("verify", n, read_limits, lambda b: ["verify", game, "--db", stores[b.name]])
    measure("export", n, read_limits, lambda b: ["export", game, "--db", stores[b.name]])

    # In process without the click layer: what the targets are stated for.
    cells = []
    for b in backends:
        with Store(stores[b.name], create=False) as store:
            ledger = Ledger(store)

            def settle() -> None:
                with bulk():
                    state = ledger.read_folded(game)[1]  # the read's one fold (judged or marked)
                    assert isinstance(state, GameState)
                    settlement_doc(state)

            seconds = best(settle, runs)
        figures[f"ledger settle {b.name}"] = n / seconds
        cells.append(f"{rate(n, seconds)} {share(n, seconds, read_limits[b.name])}")
    row("Ledger.read_folded + settle", *cells)
    # The fold alone, on events already read (the same for both stores).
    with Store(stores[backends[0].name], create=False) as store:
        events = Ledger(store).read(game).events

    def replay_and_settle() -> None:
        with bulk():
            settlement_doc(state_at(events, Point()))

    seconds = best(replay_and_settle, runs)
    figures["replay settle"] = n / seconds
    row("replay + settle (events read already)", f"{rate(n, seconds)}")
    return figures


def one_deal(backends: list[Backend], tmp: Path, runs: int) -> None:
    exe = Path(sys.executable).parent / "pulka"
    log = tmp / "deals100.jsonl"
    log.write_text(log_text(pulka_events("table", 100)))
    print(f"\nOne `pulka deal` on a pulka of 100 deals, start-up included (subprocess, {runs} runs)")
    for b in backends:
        db = b.fresh()
        cli("import", str(log), "--db", db)
        times = []
        for k in range(runs):
            start = time.perf_counter()
            subprocess.run([str(exe), "deal", "table", LINES[k % len(LINES)], "--db", db],
                           check=True, stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
        row(f"{b.name}: median / fastest", f"{1000 * statistics.median(times):.0f} ms / {1000 * min(times):.0f} ms")
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([str(exe), "--help"], check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    row("pulka --help: median / fastest", f"{1000 * statistics.median(times):.0f} ms / {1000 * min(times):.0f} ms")


def corrections(deals: int, runs: int) -> None:
    plain = pulka_events("plain", deals)
    at_once = pulka_events("at-once", deals, correct_every=1)
    counted = pulka_events("counted", deals, correct_every=1, pencil=True)
    print(f"\nA correction of every deal ({deals} deals), replayed and settled in process (best of {runs})")
    t_plain = best(lambda: settlement_doc(replay(plain)), runs)
    t_once = best(lambda: settlement_doc(replay(at_once)), runs)
    t_counted = best(lambda: settlement_doc(replay(counted)), runs)
    row("without corrections", f"{len(plain):,} events", f"{1000 * t_plain:.1f} ms")
    row("corrected in hand (free, 4.2.8)", f"{len(at_once):,} events", f"{1000 * t_once:.1f} ms",
        f"ratio {t_once / t_plain:.2f}")
    row("corrected after the pencil (4.2.7)", f"{len(counted):,} events", f"{1000 * t_counted:.1f} ms",
        f"ratio {t_counted / t_plain:.2f}")
    print("  (target: at most 1.5; a counted error's verdict scores the deal as recorded and as corrected)")


def archive(backends: list[Backend], pulkas: int) -> None:
    # Pulkas of about 1,000 events; half of them with a correction every 20 deals.
    templates = [pulka_events(f"t{k}", 172, correct_every=20 * (k % 2), offset=k) for k in range(8)]
    print(f"\nA club archive of {pulkas:,} pulkas in one store, settled game by game "
          f"(target under {ARCHIVE_TARGET:.0f} s)")
    for b in backends:
        db = b.fresh()
        total = 0
        start = time.perf_counter()
        with Store(db) as store:
            for k in range(pulkas):
                name = f"pulka-{k:04d}"
                events = templates[k % len(templates)]
                first = events[0]
                assert isinstance(first, GameStarted)
                store.append(name, [msgspec.structs.replace(first, game=name), *events[1:]], expected=0)
                total += len(events)
        built = time.perf_counter() - start
        start = time.perf_counter()
        with bulk(), Store(db, create=False) as store:
            ledger = Ledger(store)
            names = store.games()
            # Stored by ``Store.append`` alone, the archive carries no judged marks: each
            # read judges its game whole (as in a store upgraded from layout 9), in one fold.
            for name in names:
                state = ledger.read_folded(name)[1]
                assert isinstance(state, GameState)
                settlement_doc(state)
        seconds = time.perf_counter() - start
        assert len(names) == pulkas
        row(f"{b.name}: {total:,} events", f"settled in {seconds:.2f} s", f"{total / seconds:,.0f} events/s",
            f"(stored in {built:.1f} s)")


RUBBER_LINES = ["4S N 9", "3NT E 8", "pass", "2H S 7", "5D W 10"]


def rubber_bench(deals: int, runs: int) -> None:
    """A rubber that never ends (every contract fails), with a correction every tenth deal."""
    started = start_rubber(RubberStarted(game="bench-rubber", players=("Anna", "Boris", "Vera", "Gleb")))
    lines: list[tuple[int, AnyEvent]] = [(1, started)]
    for k in range(deals):
        lines.append((len(lines) + 1, rubber_deal(started.players, RUBBER_LINES[k % len(RUBBER_LINES)])))
        if k % 10 == 9:
            lines.append((len(lines) + 1, Correction(target=len(lines) - 1, replacement={"tricks": 6})))
    n = len(lines)
    judged = judge_log(lines)
    print(f"\nA rubber of bridge of {deals} deals, {n:,} events, in process (events/s, best of {runs})")
    row("judge every event", rate(n, best(lambda: judge_log(lines), runs)))
    row("replay to a settlement", rate(n, best(lambda: settle_rubber(replay_rubber(judged)), runs)))
    row("audit trail", rate(n, best(lambda: rubber_audit(judged), runs)))


def machine() -> str:
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}"


@contextmanager
def backends_for(tmp: Path, postgres: str | None) -> Iterator[list[Backend]]:
    chosen = [Backend("SQLite", tmp)]
    if postgres:
        if not is_postgres_url(postgres):
            raise SystemExit(f"not a postgresql:// address: {postgres!r}")
        chosen.append(Backend("PostgreSQL", tmp, postgres))
    try:
        yield chosen
    finally:
        for b in chosen:
            b.drop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs: a few seconds in all")
    parser.add_argument("--deals", type=int, help="deals of the long pulka (default 3500: about 20,000 events)")
    parser.add_argument("--pulkas", type=int, help="pulkas in the archive (default 1000)")
    parser.add_argument("--postgres", default=os.environ.get("PULKA_BENCH_POSTGRES"),
                        help="a postgresql:// address to measure too (default: $PULKA_BENCH_POSTGRES)")
    args = parser.parse_args()
    deals = args.deals or (600 if args.quick else 3500)
    pulkas = args.pulkas or (100 if args.quick else 1000)
    runs = 3
    print(f"pulka bench on {machine()}")
    with tempfile.TemporaryDirectory() as tmpdir, backends_for(Path(tmpdir), args.postgres) as backends:
        tmp = Path(tmpdir)
        # First, while this process is small: started from it after the operations below,
        # the same command took up to half as long again (194 ms against 137 ms).
        one_deal(backends, tmp, 9)
        # The long pulka lives in its file only: a bench that kept its 20,000 events (and
        # the holes their making left in the heap) alive would slow what it measures.
        events = pulka_events("bench", deals)
        log = tmp / "bench.jsonl"
        log.write_text(log_text(events))
        n = len(events)
        del events
        operations(backends, n, log, runs)
        corrections(50 if args.quick else 200, runs)
        archive(backends, pulkas)
        rubber_bench(300 if args.quick else 2000, runs)
    print(f"\nTargets: settle of the long pulka at least {SETTLE_SHARE:.0f} % of the read limit (its share "
          f"above), settle in process at least {TARGETS['settle']:,} events/s, import at least "
          f"{TARGETS['import']:,} events/s, the archive in under {ARCHIVE_TARGET:.0f} s.")


if __name__ == "__main__":
    main()

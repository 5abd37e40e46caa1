"""Peak memory of the commands on a big log (``make bench-memory``).

A legal Sochi pulka of 1,873,783 events (about 200 MB as JSON Lines, the log of issue
24) is made by the command side itself: one cycle of 21 deals (123 events) judged by
``bench.pulka_events``, then repeated with its deal numbers moved on, which the judge
takes as it took the first cycle (three players and seven deal lines come round again
every 21 deals, and its pulya of 100,000,000 is never reached). ``import`` judges every
line of it, so a log it stores is legal.

Each command runs as its own ``pulka`` process, through the real command line, one at
a time; its peak resident memory is the kernel's (``os.wait4``'s ``ru_maxrss``: what
``/usr/bin/time -v`` prints as "Maximum resident set size"), beside the wall time.
Printed: the figure, its ratio to the log's size and to the peak of a plain fold of the
game in memory (``replay`` of the decoded events, measured the same way), the shape
the commands should keep. Nothing is asserted.

``--events N`` for another size (``--quick``: 200,000); ``--db`` for another store (a
``postgresql://`` address: the benchmark makes a schema of its own and drops it);
``--keep DIR`` keeps the log and the store there between runs.

Then ``verify`` of a club's store (``--club-events``, 1,000,000 by default, 100,000
with ``--quick``; ``--only club`` for this part alone; SQLite): the pulkas of
``bench/archive.py``'s club copied until the store holds that many events, a checkpoint
signed over all of them (so the tree's cache and a root are checked too). verify runs
as it does by default (its games judged in a pool of processes, ``--jobs``) and in one
process (``--jobs 1``), in turns (``--runs``, 2 each). Printed beside their targets:
verify's peak resident memory, every process of it together (the sum of their resident
sets, and of their proportional sets, which count a page the fork shares once; bounded
by the largest game's fold in each, not by the store), and its rate as a share of the
machine's read limit, plain SQL reading every row back with the msgspec decode of each
in one process (as ``bench/bench.py`` measures it), taken before each run (the best of
them; the machine may be shared). The pool's share is so of a one-core read limit. Its
CPU seconds, each process's too, and what they imply for a machine with two cores free
(an estimate, printed as one, for a run on a busy machine).
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from uuid import uuid4

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import pulka_events  # noqa: E402

from ledger.vocabulary.events import encode_event  # noqa: E402

ISSUE_EVENTS = 1_873_783  # 1 + 123 x 15,234: the log of issue 24
CYCLE_DEALS = 21  # three players and seven deal lines come round again every 21 deals
PULYA = 100_000_000


def write_log(path: Path, events: int, game: str = "big") -> None:
    """A legal pulka of about ``events`` events (a whole number of 21-deal cycles after
    its start), one event a line, without digests (a log as a scorer writes it)."""
    template = pulka_events(game, CYCLE_DEALS)
    # A pulya no log of this size reaches (a cycle brings its players a few points).
    start, cycle = msgspec.structs.replace(template[0], pulya=PULYA), template[1:]
    cycles = max(1, round((events - 1) / len(cycle)))
    with open(path, "wb") as out:
        out.write(encode_event(start) + b"\n")
        for c in range(cycles):
            offset = c * CYCLE_DEALS
            out.write(b"".join(
                encode_event(msgspec.structs.replace(e, deal=(e.deal or 0) + offset)) + b"\n" for e in cycle
            ))


FOLD = """
import sys, msgspec
from ledger.vocabulary.events import decode_lines
from projections.game import replay
with open(sys.argv[1], encoding="utf-8") as f:
    events = decode_lines(f.read())
state = replay(events)
print(state.folded)
"""


def measure(argv: list[str], env: dict[str, str], stdout: Any = subprocess.DEVNULL) -> tuple[int, float, int, str]:
    """Run one process to its end: its peak resident memory in bytes, its wall time in
    seconds, its exit status and the end of its standard error."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen(argv, env=env, stdout=stdout, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read().decode("utf-8", "replace").strip()[-300:]
    return usage.ru_maxrss * 1024, time.perf_counter() - started, process.returncode, tail


CLUB_EVENTS = 1_000_000
CLUB_RSS_TARGET = 150 * 2**20  # bytes: verify of a club's 10^6 events, whatever the store's size
CLUB_SHARE_TARGET = 0.10  # verify's rate as a share of the read limit


def club_store(db: Path, events: int, env: dict[str, str], pulka: str) -> int:
    """A club's store of at least ``events`` events (pulkas of bench/archive.py's club,
    stored without judging them again) with a checkpoint signed over all of them, made
    once (kept in ``db``'s folder between runs with ``--keep``): how many events."""
    from archive import CONVENTIONS, fill, template

    from ledger.store.event_store import Store

    if db.exists():
        with Store(str(db), create=False) as store:
            return sum(v.events for v in store.found_streams())
    started = time.perf_counter()
    templates = [template(CONVENTIONS[k % 4], deals=130 + 5 * k, abandon=k % 3 == 2,
                          stake="0.10" if k % 2 else None) for k in range(6)]
    total = pulkas = 0
    with Store(str(db)) as store:
        while total < events:
            total += fill(store, pulkas, 1, templates)
            pulkas += 1
    key = db.with_suffix(".key")
    for argv in ([pulka, "keygen", "club.example/pulka", "--out", str(key)],
                 [pulka, "checkpoint", "--key", str(key), "--db", str(db)]):
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"stored {pulkas:,} pulkas ({total:,} events), a checkpoint signed, in {time.perf_counter() - started:.1f} s")
    return total


def read_limit(db: Path, cpu: list[float] | None = None) -> float:
    """Seconds to read every row back by plain SQL and decode it with msgspec (the CPU
    seconds it took appended to ``cpu``)."""
    import sqlite3

    from bench import DECODER

    started, busy = time.perf_counter(), time.process_time()
    with sqlite3.connect(db) as conn:
        for (state,) in conn.execute("SELECT state FROM stored_events ORDER BY originator_id, originator_version"):
            DECODER.decode(state)
    if cpu is not None:
        cpu.append(time.process_time() - busy)
    return time.perf_counter() - started


TICKS = os.sysconf("SC_CLK_TCK")


class TreeMemory:
    """The peak memory of a process and its descendants together (a pool's workers), read
    from /proc every few milliseconds while it runs: the sum of their resident sets (a
    page the fork shares counted in each) and of their proportional sets (PSS: a shared
    page counted once in all), in bytes. ``os.wait4``'s peak is of one process only."""

    def __init__(self, pid: int) -> None:
        self.pid, self.rss, self.pss = pid, 0, 0
        self.cpu: dict[int, float] = {}  # each process's CPU seconds, as last seen
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._done.set()
        self._thread.join()

    def _watch(self) -> None:
        # Its processes found again every second (a scan of /proc), their memory read ten
        # times a second: the watch's own CPU stays small beside what it watches.
        tree: list[int] = []
        for tick in itertools.count():
            if self._done.wait(0.1):
                return
            if tick % 10 == 0:
                tree = self._tree()
            rss = pss = 0
            for pid in tree:
                try:
                    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                    self.cpu[pid] = (int(fields[11]) + int(fields[12])) / TICKS
                    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                        if line.startswith("Rss:"):
                            rss += int(line.split()[1]) * 1024
                        elif line.startswith("Pss:"):
                            pss += int(line.split()[1]) * 1024
                except OSError:  # ended meanwhile
                    continue
            self.rss, self.pss = max(self.rss, rss), max(self.pss, pss)

    def _tree(self) -> list[int]:
        parents: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
        tree = [self.pid]
        for pid in tree:
            tree.extend(child for child, parent in parents.items() if parent == pid)
        return tree


def measure_tree(argv: list[str], env: dict[str, str]) -> tuple[TreeMemory, float, float, int, str]:
    """``measure``, with the peak memory of the process's tree (``TreeMemory``) and its CPU
    seconds (its own and its waited-for children's): the memory, the wall time, the CPU
    time, the exit status and the end of standard error."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=err)
        memory = TreeMemory(process.pid)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        memory.stop()
        err.seek(0)
        tail = err.read().decode("utf-8", "replace").strip()[-300:]
    memory.rss = max(memory.rss, usage.ru_maxrss * 1024)
    return memory, seconds, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status), tail


def club_verify(work: Path, events: int, env: dict[str, str], pulka: str, runs: int = 2) -> None:
    """verify of a club's store, in its pool of processes (the default) and in one
    (``--jobs 1``), ``runs`` times each in turns: peak memory, and rate against the
    read limit, taken before each run (the best of all of them: the machine may be
    shared). The limit is one process's: the pool's share is of a one-core limit."""
    db = work / f"club-{events}.db"
    total = club_store(db, events, env, pulka)
    print(f"\nverify of a club's store of {total:,} events ({db.stat().st_size / 1e6:,.0f} MB),"
          f" load average {os.getloadavg()[0]:.1f}")
    cpus: list[float] = []
    limits = [read_limit(db, cpus)]
    ways = {"a pool (default)": [], "one process (--jobs 1)": []}
    for _ in range(runs):
        for way, argv in zip(ways, ([pulka, "verify", "--db", str(db)],
                                    [pulka, "verify", "--jobs", "1", "--db", str(db)]), strict=True):
            ways[way].append(measure_tree(argv, env))
            limits.append(read_limit(db, cpus))
    limit = total / min(limits)
    print(f"  {'limit: read + decode (SQL, msgspec)':38} {limit:>10,.0f} events/s"
          f"  (the best of {len(limits)} reads, {min(limits):.2f}-{max(limits):.2f} s; load average"
          f" {os.getloadavg()[0]:.1f} after; CPU {min(cpus):.2f} s at best)")
    for way, measured in ways.items():
        best = min(measured, key=lambda m: m[1])
        memory, seconds, cpu, code, tail = best
        rss, pss = max(m[0].rss for m in measured), max(m[0].pss for m in measured)
        rate = total / seconds
        memory_met = "met" if rss <= CLUB_RSS_TARGET else "NOT MET"
        speed_met = "met" if rate >= CLUB_SHARE_TARGET * limit else "NOT MET"
        # What the run's CPU says of a machine with two cores free for it: no sooner than
        # its busiest process, nor than half of all its processes' CPU (an estimate),
        # beside the read limit's CPU seconds (what a busy machine changes less than wall time).
        parts = sorted(memory.cpu.values(), reverse=True)
        free = max(parts[0], cpu / 2) if len(parts) > 1 else cpu
        print(f"  verify in {way}:")
        print(f"  {'  peak RSS (every process, summed)':38} {rss / 2**20:>10,.0f} MB  (PSS {pss / 2**20:,.0f} MB)"
              f"  target <= {CLUB_RSS_TARGET / 2**20:.0f} MB: {memory_met}")
        print(f"  {f'  {seconds:.1f} s (CPU {cpu:.1f} s)':38} {rate:>10,.0f} events/s  {100 * rate / limit:.1f} %"
              f" of the limit, target >= {100 * CLUB_SHARE_TARGET:.0f} %: {speed_met}  (runs:"
              f" {', '.join(f'{m[1]:.1f}' for m in measured)} s)" + (f"  (exit {code}: {tail})" if code else ""))
        print(f"  {'  CPU of each process (as last seen)':38} {', '.join(f'{c:.1f}' for c in parts)} s: on two free"
              f" cores at least {free:.1f} s, {100 * min(cpus) / free:.1f} % of the limit's CPU (an estimate)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=ISSUE_EVENTS)
    parser.add_argument("--quick", action="store_true", help="200,000 events (the club's store: 100,000)")
    parser.add_argument("--db", help="a store address (default: a new SQLite file)")
    parser.add_argument("--keep", metavar="DIR", help="keep the log and the stores in DIR")
    parser.add_argument("--only", action="append", default=[],
                        help="only this command (again for more; club: verify of a club's store)")
    parser.add_argument("--club-events", type=int, default=CLUB_EVENTS, help="events of the club's store")
    parser.add_argument("--runs", type=int, default=2, help="verify of the club's store: runs of each way")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pulka-memory-"))
    work.mkdir(parents=True, exist_ok=True)
    pulka = shutil.which("pulka") or str(Path(sys.executable).with_name("pulka"))
    try:
        if args.only != ["club"]:
            one_game(args, work, pulka)
        if not args.only or "club" in args.only:
            club_verify(work, 100_000 if args.quick else args.club_events, dict(os.environ), pulka, args.runs)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def one_game(args: argparse.Namespace, work: Path, pulka: str) -> None:
    """Each command on one big pulka: its peak memory against the log and the fold."""
    events = 200_000 if args.quick else args.events
    log = work / f"big-{events}.jsonl"
    if not log.exists():
        t = time.perf_counter()
        write_log(log, events)
        print(f"wrote {log} in {time.perf_counter() - t:.1f} s")
    size = log.stat().st_size
    lines = sum(1 for _ in open(log, "rb"))
    print(f"log: {lines:,} events, {size / 1e6:,.0f} MB")

    env = dict(os.environ, PULKA_GAME="big")
    db = args.db
    cleanup = None
    if db is None:
        db = str(work / f"big-{events}.db")
    elif db.startswith("postgresql://") and "schema=" not in db:
        import psycopg

        from ledger.store.event_store import parse_postgres_url

        schema = f"pulka_memory_{uuid4().hex[:8]}"
        admin = psycopg.connect(**parse_postgres_url(db).connect_kwargs(), autocommit=True)
        admin.execute(f'CREATE SCHEMA "{schema}"')
        db += ("&" if "?" in db else "?") + f"schema={schema}"

        def cleanup() -> None:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
            admin.close()

    export = work / f"big-{events}.export.jsonl"
    fresh = not (args.keep and not db.startswith("postgresql://") and Path(db).exists())
    commands: list[tuple[str, list[str], Any]] = [
        ("a plain fold in memory (decode + replay)", [sys.executable, "-c", FOLD, str(log)], None),
        *([("import", [pulka, "import", str(log), "--db", db], None)] if fresh else []),
        ("settle", [pulka, "settle", "big", "--db", db], None),
        ("verify", [pulka, "verify", "big", "--db", db], None),
        ("head", [pulka, "head", "big", "--db", db], None),
        ("export", [pulka, "export", "big", "--db", db], "export"),
        ("verify --file (the export)", [pulka, "verify", "--file", str(export)], None),
        ("verify --against (the export)", [pulka, "verify", "big", "--against", str(export), "--db", db], None),
    ]
    if args.only:
        commands = [c for c in commands if c[0].split()[0] in args.only or c[0] in args.only]
        if not commands:
            return
    fold_peak = None
    print(f"\n{'command':42} {'peak RSS':>10} {'x log':>6} {'x fold':>7} {'seconds':>8}  exit")
    try:
        for label, argv, output in commands:
            if output == "export":
                with open(export, "wb") as out:
                    peak, seconds, code, tail = measure(argv, env, out)
            else:
                peak, seconds, code, tail = measure(argv, env)
            if fold_peak is None and label.startswith("a plain fold"):
                fold_peak = peak
            ratio = f"{peak / fold_peak:.1f}" if fold_peak else ""
            print(f"{label:42} {peak / 2**20:>8,.0f} MB {peak / size:>6.1f} {ratio:>7} {seconds:>8.1f}  {code}"
                  + (f"  {tail}" if code else ""), flush=True)
    finally:
        if cleanup is not None:
            cleanup()


if __name__ == "__main__":
    main()

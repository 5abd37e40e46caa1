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
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=ISSUE_EVENTS)
    parser.add_argument("--quick", action="store_true", help="200,000 events")
    parser.add_argument("--db", help="a store address (default: a new SQLite file)")
    parser.add_argument("--keep", metavar="DIR", help="keep the log and the store in DIR")
    parser.add_argument("--only", action="append", default=[], help="only this command (again for more)")
    args = parser.parse_args()
    events = 200_000 if args.quick else args.events

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pulka-memory-"))
    work.mkdir(parents=True, exist_ok=True)
    log = work / f"big-{events}.jsonl"
    if not log.exists():
        t = time.perf_counter()
        write_log(log, events)
        print(f"wrote {log} in {time.perf_counter() - t:.1f} s")
    size = log.stat().st_size
    lines = sum(1 for _ in open(log, "rb"))
    print(f"log: {lines:,} events, {size / 1e6:,.0f} MB")

    pulka = shutil.which("pulka") or str(Path(sys.executable).with_name("pulka"))
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
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Speed figures: judge, import and replay a long pulka on the embedded SQLite store.

Prints events per second for each stage; asserts nothing (timing belongs here, not
in the tests). Run with ``make bench`` or ``python bench/bench.py [DEALS]``.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from ledger.vocabulary.events import GameStarted, encode_event
from ledger.command.dealline import deal_events
from ledger.command.judge import judge_into
from ledger.command.application import Ledger
from ledger.command.judge import judge_log as check_log
from ledger.vocabulary.logfile import parse_log
from ledger.command.store import Store
from projections.audit import audit
from projections.game import GameState, replay
from projections.report import Point, settlement_doc, state_at
from ledger.command.kinds import judge_log as judge_stream_log
from ledger.command.rubber import start as rubber_start
from ledger.command.rubberline import rubber_deal
from ledger.vocabulary.bridge import RubberStarted
from ledger.vocabulary.events import AnyEvent, Correction
from projections.rubber import replay_rubber
from projections.rubber_report import audit as audit_rubber
from projections.rubber_settlement import settle_rubber

LINES = [
    "6S pass pass | 6S | whist whist | 6 2 2",
    "pass pass pass | 4 3 3",
    "7H pass pass | 7H | whist pass | 6 3 1",
    "misere pass pass | misere | 1",
    "pass 6NT pass | 6NT | pass pass",
]


def long_log(deals: int) -> str:
    """A legal Sochi pulka of ``deals`` deals whose target is never reached."""
    started = GameStarted(game="bench", players=("Anna", "Boris", "Vera"), pulya=100000, stake="0.10")
    state = GameState.start(check_log([(1, started)])[0])  # type: ignore[arg-type]
    for k in range(deals):
        line = LINES[k % len(LINES)]
        judge_into(state, ((None, e) for e in deal_events(state, line)), lambda: "2026-11-30T20:00:00+00:00")
    return "\n".join(encode_event(e).decode() for e in state.events) + "\n"


def timed(label: str, events: int, fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - start
    print(f"{label:<44} {events:>7} events  {elapsed:8.3f} s  {events / elapsed:>10,.0f} events/s")
    return result


def main() -> None:
    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    text = long_log(deals)
    lines = parse_log(text)
    n = len(lines)
    print(f"a Sochi pulka of {deals} deals: {n} events")
    timed("parse JSON Lines", n, lambda: parse_log(text))
    judged = timed("judge every event (no store)", n, lambda: check_log(lines))
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.db")
        with Store(db) as store:
            timed("import into SQLite (judge + store)", n, lambda: Ledger(store).record_lines(lines))
        with Store(db) as store:
            stored = timed("load from SQLite", n, lambda: store.load("bench"))
            events = [s.event for s in stored]
            timed("replay to a settlement", n, lambda: settlement_doc(replay(events)))
            timed("load + replay + settle (pulka settle)", n,
                  lambda: settlement_doc(replay([s.event for s in store.load("bench")])))
            timed("time travel to the middle (--at)", n // 2,
                  lambda: settlement_doc(state_at(events, Point(at=n // 2))))
            timed("verify the hash chain", n, lambda: store.verify("bench"))
            if n <= 30000:
                timed("audit trail (pulka log)", n, lambda: audit(events))
    assert len(judged) == n
    rubber_bench(deals)


RUBBER_LINES = ["4S N 9", "3NT E 8", "pass", "2H S 7", "5D W 10"]


def rubber_bench(deals: int) -> None:
    """A rubber that never ends (every contract fails), with a correction every tenth deal."""
    started = rubber_start(RubberStarted(game="bench-rubber", players=("Anna", "Boris", "Vera", "Gleb")))
    lines: list[tuple[int, AnyEvent]] = [(1, started)]
    for k in range(deals):
        lines.append((len(lines) + 1, rubber_deal(started.players, RUBBER_LINES[k % len(RUBBER_LINES)])))
        if k % 10 == 9:
            lines.append((len(lines) + 1, Correction(target=len(lines) - 1, replacement={"tricks": 6})))
    n = len(lines)
    print(f"a rubber of {deals} deals: {n} events")
    judged = timed("judge every event of the rubber", n, lambda: judge_stream_log(lines))
    timed("replay the rubber to a settlement", n, lambda: settle_rubber(replay_rubber(judged)))
    timed("audit trail of the rubber", n, lambda: audit_rubber(judged))


if __name__ == "__main__":
    main()

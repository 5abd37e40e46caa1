"""The judged marks (layout 10, ``pulka_judged``), on SQLite and PostgreSQL: the ledger
marks what it stores as judged in the same transaction, a read folds the events the
mark vouches for without judging them and judges the rest, an event written outside
pulka (after the mark, or before it and chained anew) is still refused by a read, a
forged mark is caught by ``verify`` (which judges everything from nothing), and a store
of layout 9 upgrades in place and reads correctly without marks.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from cli.main import main
from conftest import RawEvents
from ledger.application import Ledger
from ledger.judge import stored as judged_module
from ledger.store.backend import JUDGED
from ledger.store.event_store import Store
from ledger.store.layout import LAYOUT
from ledger.store.stored import game_id
from ledger.vocabulary.events import Bid
from ledger.vocabulary.refusal import Refused
from projections.points import Point

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GAME = "ex10_sochi_sixes"  # 211 events, 30 deals
EVENTS = 211
THIRTY_TRICKS = {"tricks": {"A": 10, "B": 10, "C": 10}}


def run(db: str, *args: str) -> Result:
    result = CliRunner().invoke(main, [*args, "--db", db], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def ok(db: str, *args: str) -> str:
    result = run(db, *args)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.stdout


@pytest.fixture
def db(store_url: str, tmp_path: Path) -> str:
    """The thirty deals of a fixture imported (a pulka to 1000, so that it goes on)."""
    log = (FIXTURES / f"{GAME}.jsonl").read_text(encoding="utf-8").replace('"pulya":20,', '"pulya":1000,', 1)
    (tmp_path / "game.jsonl").write_text(log, encoding="utf-8")
    ok(store_url, "import", str(tmp_path / "game.jsonl"))
    return store_url


@pytest.fixture
def raw(db: str) -> Iterator[RawEvents]:
    tamperer = RawEvents(db)
    yield tamperer
    tamperer.close()


def refusing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A judge that refuses every stored event it is asked about."""
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise Refused("event-log", "refused by the test's judge")

    monkeypatch.setattr(judged_module, "judge_events", refuse)


def mark(db: str) -> tuple[int, str] | None:
    with Store(db, create=False) as store:
        found = store.backend.mark(game_id(GAME))
    return None if found is None else (found.judged, found.digest)


def head(db: str) -> tuple[int, str]:
    with Store(db, create=False) as store:
        last = store.head(GAME)
    assert last is not None
    return last.number, last.digest


def test_what_the_ledger_stores_is_marked_in_its_transaction(db: str) -> None:
    assert mark(db) == head(db) and head(db)[0] == EVENTS  # import marks every event it judged
    ok(db, "entry", GAME, "A", "pulya", "2")
    assert mark(db) == head(db) and head(db)[0] == EVENTS + 1  # so does a recording command
    ok(db, "new", "fresh", "--players", "A,B,C", "--pulya", "10")
    with Store(db, create=False) as store:
        created = store.backend.mark(game_id("fresh"))
        assert created is not None and (created.judged, created.digest) == (1, store.load("fresh")[0].digest)


def test_a_marked_game_is_read_without_judging_what_the_mark_vouches_for(db: str, judged: list[int]) -> None:
    with Store(db, create=False) as store:
        ledger = Ledger(store)
        reading, state = ledger.read_folded(GAME)
        assert reading.judged == EVENTS and reading.refused is None and judged == []
        assert state is not None and state.folded == EVENTS
        assert ledger.keep(GAME).state.folded == EVENTS and judged == []  # what a recording command loads
        # A read of the first 50 events does not reach the marked one (its chain to it is
        # not checked): it vouches for nothing, and they are judged.
        assert ledger.read(GAME, Point(at=50)).judged == 0 and judged == list(range(2, 51))
        judged.clear()
        assert ledger.judged(GAME) is None and judged == list(range(2, EVENTS + 1))  # verify: all, from nothing


def test_a_judge_that_would_refuse_is_not_consulted_for_marked_events(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settled = ok(db, "settle", GAME)
    refusing(monkeypatch)
    assert ok(db, "settle", GAME) == settled  # the mark vouches for every event: nothing judged
    result = run(db, "verify", GAME)  # verify judges every event from nothing, marks or not
    assert result.exit_code == 1 and f"{GAME}: TAMPERED: " in result.stdout
    assert "refused by the test's judge" in result.stdout


def test_only_the_events_after_the_mark_are_judged(db: str, judged: list[int]) -> None:
    """Events stored by a path that does not mark them (``Store.append`` alone) are
    judged onto the fold of the marked ones, and nothing before them is judged again."""
    with Store(db, create=False) as store:
        store.append(GAME, [Bid(player="A", bid="pass", deal=31, at="2024-01-01T00:00:00+00:00")], expected=EVENTS)
        assert store.backend.mark(game_id(GAME)) is not None
        reading = Ledger(store).read(GAME)
    assert reading.judged == EVENTS and judged == [EVENTS + 1]


def test_an_event_appended_outside_pulka_after_the_mark_is_refused(db: str) -> None:
    """With its digest computed as the store computes it, an event the rules refuse
    (a bid out of turn) after the marked ones is judged, and refused."""
    with Store(db, create=False) as store:
        store.append(GAME, [Bid(player="C", bid="6S", deal=31, at="2024-01-01T00:00:00+00:00")], expected=EVENTS)
        reading = Ledger(store).read(GAME)
    assert reading.judged == EVENTS
    assert reading.refused is not None and reading.refused.number == EVENTS + 1, reading.refused
    said = run(db, "settle", GAME)
    assert said.exit_code == 1 and f"event {EVENTS + 1} of game '{GAME}' would be refused" in said.stderr
    assert f"event {EVENTS + 1} of game '{GAME}' would be refused" in run(db, "deal", GAME, "pass pass pass").stderr


def test_an_event_chained_anew_behind_the_mark_is_judged_and_refused(db: str, raw: RawEvents) -> None:
    """Rewritten with every digest after it computed anew, the chain holds, but the head
    digest is no longer the mark's: the read judges the game from its start."""
    marked = mark(db)
    raw.rechain(GAME, 8, lambda event: event.update(THIRTY_TRICKS))
    assert mark(db) == marked and head(db) != marked
    with Store(db, create=False) as store:
        reading = Ledger(store).read(GAME)
    assert reading.judged == 0 and reading.refused is not None and reading.refused.number == 8
    said = run(db, "settle", GAME)
    assert said.exit_code == 1 and "tricks sum to 30" in said.stderr


def test_a_forged_mark_is_caught_by_verify(db: str, raw: RawEvents) -> None:
    """Who rewrites the mark too (to the head chained anew) is trusted by a read, which
    is what the mark is for; ``verify`` judges every event from nothing and names it."""
    raw.rechain(GAME, 8, lambda event: event.update(THIRTY_TRICKS))
    number, digest = head(db)
    stream = game_id(GAME).hex
    table = f'"{raw.schema}"."{JUDGED}"' if raw.postgres else JUDGED
    raw.execute(f"UPDATE {table} SET judged = ?, digest = ? WHERE stream = ?", (number, digest, stream))
    with Store(db, create=False) as store:
        assert Ledger(store).read(GAME).judged == EVENTS  # the forged mark is read as the ledger's
    for args in (["verify", GAME], ["verify"]):
        result = run(db, *args)
        assert result.exit_code == 1 and f"{GAME}: TAMPERED: event 8 of game '{GAME}' would be refused: tricks sum " \
            "to 30" in result.stdout, result.stdout


@pytest.mark.sqlite_only
def test_a_store_of_layout_9_reads_without_marks_and_upgrades_in_place(
    store_url: str, tmp_path: Path, judged: list[int]
) -> None:
    """Layout 9 had no table of marks: taken back to it, a store reads every game judged
    whole (nothing fails for want of a mark), ``pulka upgrade`` makes the table in place,
    and the next write marks what it stores."""
    db = str(tmp_path / "club.db")
    log = tmp_path / "game.jsonl"
    log.write_text((FIXTURES / f"{GAME}.jsonl").read_text(encoding="utf-8").replace('"pulya":20,', '"pulya":1000,', 1),
                   encoding="utf-8")
    ok(db, "import", str(log))
    settled = ok(db, "settle", GAME)
    with Store(db) as store, store.backend.writing() as tx:
        tx.mark_layout(9)
        tx.run(f"DROP TABLE {JUDGED}")
    judged.clear()
    assert ok(db, "settle", GAME) == settled and judged == list(range(2, EVENTS + 1))
    assert mark(db) is None
    assert f"is upgraded from layout 9 to layout {LAYOUT}" in ok(db, "upgrade")
    with sqlite3.connect(db) as conn:
        assert conn.execute(f"SELECT COUNT(*) FROM {JUDGED}").fetchone() == (0,)  # made, and empty
    judged.clear()
    assert ok(db, "settle", GAME) == settled and judged == list(range(2, EVENTS + 1))
    ok(db, "entry", GAME, "A", "pulya", "2")
    assert mark(db) == head(db)
    judged.clear()
    ok(db, "settle", GAME)
    assert judged == []


@pytest.mark.sqlite_only
def test_a_copy_carries_no_marks_and_reads_the_same(db: str, tmp_path: Path, judged: list[int]) -> None:
    """A copy judges every game whole until pulka next stores events of it (``copy``)."""
    settled = ok(db, "settle", GAME)
    target = str(tmp_path / "copy.db")
    ok(db, "copy", target)
    assert mark(db) is not None and mark(target) is None
    judged.clear()
    assert ok(target, "settle", GAME) == settled and judged == list(range(2, EVENTS + 1))

"""Reads that stop early read only what they need, and show what a whole read shows.

``--at N`` reads events 1..N and ``--deal K`` stops after the first event of a later
deal; ``projections.report.cut`` applied to that must give what it gives on the whole
game, for every point, refusals included. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from ledger.application import Ledger
from ledger.store.event_store import bulk
from ledger.store.event_store import Store
from ledger.vocabulary.events import AnyEvent
from readings import parse_log
from projections.report import Point, PointError, cut

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# Late records (of earlier deals), corrections and many deals: the cases of cut.
GAMES = ["rec_late_tricks", "rec_deadline_boundary", "ex10_sochi_sixes"]


def cut_or_refusal(events: list[AnyEvent], point: Point) -> list[AnyEvent] | str:
    try:
        return cut(events, point)
    except PointError as exc:
        return f"refused: {exc}"


@pytest.fixture
def ledger(store_url: str) -> Ledger:
    with Store(store_url) as store:
        ledger = Ledger(store)
        for game in GAMES:
            ledger.record_lines(parse_log((FIXTURES / f"{game}.jsonl").read_text(encoding="utf-8")))
        yield ledger


@pytest.mark.parametrize("game", GAMES)
def test_every_point_reads_what_cut_keeps(ledger: Ledger, game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ledger.store, "PAGE", 4)  # several pages even for a short game
    everything = [s.event for s in ledger.events(game)]
    deals = max(e.deal or 0 for e in everything)
    points = [Point(at=n) for n in range(-1, len(everything) + 2)]
    points += [Point(deal=k) for k in range(-1, deals + 2)]
    points += [Point(at=3, deal=1), Point()]
    for point in points:
        reading = ledger.read(game, point)
        assert reading.problem is None
        assert cut_or_refusal(reading.events, point) == cut_or_refusal(everything, point), point
        if point.at is not None and 1 <= point.at <= len(everything):
            assert [s.number for s in reading.stored] == list(range(1, point.at + 1))


def test_the_end_of_an_early_deal_reads_a_page_past_it(ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ledger.store, "PAGE", 5)
    game = "ex10_sochi_sixes"
    everything = [s.event for s in ledger.events(game)]
    first_of_deal_3 = next(i for i, e in enumerate(everything) if (e.deal or 0) > 2)
    read = ledger.read(game, Point(deal=2)).events
    assert first_of_deal_3 < len(read) <= first_of_deal_3 + 5 < len(everything)


def test_a_game_never_stored_is_refused_naming_the_stored_ones(ledger: Ledger) -> None:
    with pytest.raises(ValueError, match="no game named 'nobody'.*ex10_sochi_sixes"):
        ledger.read("nobody", Point(at=3))


class _Cycle:
    """An object in a reference cycle: only the collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_bulk_turns_the_collector_off_and_back() -> None:
    assert gc.isenabled()
    gc.collect()
    garbage = _Cycle()
    found = weakref.ref(garbage)
    del garbage
    with bulk():
        assert not gc.isenabled()
        assert found() is not None
    assert gc.isenabled() and gc.get_freeze_count() == 0
    # Garbage made before stays young: the next young collection frees it (nothing was
    # frozen and then thawed into the oldest generation, where it would linger).
    gc.collect(0)
    assert found() is None
    gc.disable()
    try:
        with bulk():
            pass
        assert not gc.isenabled()  # left as it was found
    finally:
        gc.enable()

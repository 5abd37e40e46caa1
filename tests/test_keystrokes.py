"""The issue's 17-deal Sochi evening typed both ways (``bench/keystrokes.py``): the whole
deal as before, and the outcome as now. Both are recorded through the scorer's desk, with
its checks (nothing cut short, nothing doubted), and give the same sheet after every
deal; the outcome takes fewer keystrokes. ``python bench/keystrokes.py`` prints them.

On the phone (issue 31): the same evening tapped on the scorer's page in headless
Chromium at 390×844, each tap counted as it is made; the page stores the sheet of the
typed evening, in at most 5 taps a plain deal on average and 4 for raspasy and misère.
``python bench/keystrokes.py --phone`` prints them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import browsers
from ledger.application import Ledger
from ledger.desks.pulka import PulkaDesk
from ledger.store.event_store import Store
from projections.sheet import totals

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import keystrokes  # noqa: E402  (bench/keystrokes.py: the evening)
from test_web_pages import Club, club, open_score  # noqa: E402  (a pulka serve for this module)


def test_the_evening_typed_both_ways_gives_the_same_sheet(store: Store) -> None:
    desk = PulkaDesk(Ledger(store))
    for game in ("before", "after"):
        desk.new(game, keystrokes.PLAYERS, pulya=keystrokes.PULYA)
    for k, (old, new) in enumerate(keystrokes.EVENING, start=1):
        was, now = desk.deal("before", old), desk.deal("after", new)
        assert [d for d, _ in was.deals] == [d for d, _ in now.deals] == [k]
        assert totals(desk.ledger.state("before").sheet()) == totals(desk.ledger.state("after").sheet()), (k, new)
        assert was.next == now.next and not now.over


def test_the_outcome_takes_fewer_keystrokes() -> None:
    before = keystrokes.keystrokes([old for old, _ in keystrokes.EVENING])
    after = keystrokes.keystrokes([new for _, new in keystrokes.EVENING])
    assert len(keystrokes.EVENING) == 17
    assert keystrokes.keystrokes(["6S pass pass | 6S | whist whist | 6 2 2"]) == 40  # 39 characters and Enter
    assert after < before / 2, (before, after)


def test_the_outcome_lines_told_back_are_the_deals_as_the_table_calls_them() -> None:
    evening = keystrokes.touches()
    assert evening[0] == keystrokes.Touch("6S", "Anna", {"Boris": "whist", "Vera": "whist"},
                                          {"Anna": 6, "Boris": 2, "Vera": 2})
    assert evening[2] == keystrokes.Touch("raspasy", tricks={"Vera": 4, "Anna": 3, "Boris": 3})
    assert evening[3] == keystrokes.Touch("misere", "Vera", tricks={"Vera": 0})
    assert evening[4] == keystrokes.Touch("8S", "Anna", {"Boris": "pass", "Vera": "pass"})
    assert [t.kind for t in evening].count("plain") == 12


def test_the_evening_tapped_on_a_phone(chromes: browsers.Chromes, club: Club, store: Store) -> None:
    phone = browsers.clean(chromes.get(1)[0], browsers.PHONE)
    club.game("evening", list(keystrokes.PLAYERS), pulya=keystrokes.PULYA)
    open_score(phone, club, "evening", club.token("evening", "Anna"))
    evening = keystrokes.touches()
    counts = keystrokes.phone_taps(phone, lambda: club.state("evening")["version"], evening)
    means = keystrokes.averages(evening, counts)
    assert means["plain"] <= 5 and means["raspasy"] <= 4 and means["misere"] <= 4, (means, counts)
    assert min(counts) >= 2  # what was played, and Record, at the least
    # What the taps stored is the typed evening's sheet.
    desk = PulkaDesk(Ledger(store))
    desk.new("typed", keystrokes.PLAYERS, pulya=keystrokes.PULYA)
    for _old, new in keystrokes.EVENING:
        desk.deal("typed", new)
    with Store(club.served.db) as served:
        tapped = Ledger(served).state("evening")
    assert totals(tapped.sheet()) == totals(desk.ledger.state("typed").sheet())

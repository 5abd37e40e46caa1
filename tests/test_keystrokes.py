"""The issue's 17-deal Sochi evening typed both ways (``bench/keystrokes.py``): the whole
deal as before, and the outcome as now. Both are recorded through the scorer's desk, with
its checks (nothing cut short, nothing doubted), and give the same sheet after every
deal; the outcome takes fewer keystrokes. ``python bench/keystrokes.py`` prints them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ledger.application import Ledger
from ledger.desks.pulka import PulkaDesk
from ledger.store.event_store import Store
from projections.sheet import totals

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import keystrokes  # noqa: E402  (bench/keystrokes.py: the evening)


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

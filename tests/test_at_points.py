"""A pulka read at a point from its kept forks (``projections.at_points``) is the pulka
folded from event 1 to that point: at every event of every golden fixture, the sheet,
the settlement, the deals table, the audit trail and the drawn sheet, forks kept every
event and every few events, the stream followed a few events at a time between the
reads (as a service's kept game moves on); and a fork is a fold of its own."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, GameStarted
from projections import at_points
from projections.at_points import PointFolds
from projections.audit import audit, row_doc
from projections.deal_text import deal_table
from projections.drawing.svg import svg_document
from projections.game import GameState, replay
from projections.picture import picture
from projections.points import Point
from projections.pulka import PulkaView
from projections.trail import PLAYER_CELLS
from test_fixtures import GOOD, judged

FIXTURES: dict[str, list[AnyEvent]] = {}


def events_of(path: Path) -> list[AnyEvent]:
    if path.name not in FIXTURES:
        FIXTURES[path.name] = judged(path)
    return FIXTURES[path.name]


def documents(state: GameState) -> dict[str, Any]:
    """What the service shows of a state: the sheet, the settlement, the deals table."""
    view = PulkaView(state, Point(at=state.folded))
    head, rows = deal_table(state)
    return {"sheet": view.sheet_doc(), "settlement": view.settlement_doc(), "text": view.sheet_text(),
            "deals": [head, [[str(v) if isinstance(v, Fraction) else v for v in r] for r in rows]]}


@pytest.mark.parametrize("every", [1, 3, 32])
@pytest.mark.parametrize("path", GOOD, ids=[p.stem for p in GOOD])
def test_a_read_at_every_point_is_the_fold_from_event_one(path: Path, every: int,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Every event, read once the stream has reached it, and a few earlier ones again
    each time it moves on; the drawn sheet and the audit's documents in both languages
    (with forks every three events: the drawings from event 1 cost most)."""
    monkeypatch.setattr(at_points, "EVERY", every)
    events = events_of(path)
    first = events[0]
    assert isinstance(first, GameStarted)
    folds = PointFolds(first)
    rng = random.Random(f"{path.stem}-{every}")
    known = 1
    while known < len(events):
        before, known = known, min(len(events), known + rng.randint(1, 5))  # the stream moves on a few events
        folds.follow(events[:known])
        assert folds.folded == known
        again = rng.sample(range(1, before + 1), min(2, before))
        for k in [*range(before + 1, known + 1), *again]:
            state = folds.state_at(events, k)
            assert state.folded == k
            scratch = replay(events[:k])
            assert documents(state) == documents(scratch), f"event {k} of {known}"
            assert folds.audit_at(events, state) == audit(events[:k]), f"event {k} of {known}"
    if every != 3:
        return
    for spoken in ("en", "ru"):
        with language.using(spoken):
            for k in range(1, len(events) + 1):
                point = Point(at=k)
                drawn = folds.picture(events, point)
                assert drawn == picture(events, point), f"event {k} ({spoken})"
                if k == len(events):
                    assert svg_document(drawn) == svg_document(picture(events, point))
                assert [row_doc(r, PLAYER_CELLS) for r in folds.audit(events, point)] == \
                    [row_doc(r, PLAYER_CELLS) for r in audit(events[:k])]


def test_a_fork_folds_on_by_itself() -> None:
    """Two forks of one fold, each folded on its own way, and the fold they came from,
    each equal to a fold from event 1 of its own events: none changed another."""
    events = events_of(next(p for p in GOOD if p.stem == "code_4_2_7_scorer"))
    half = len(events) // 2
    base = replay(events[:half])
    one, two = base.fork(), base.fork()
    for event in events[half:]:
        one.apply(event)
    two.apply(events[half])
    assert documents(base) == documents(replay(events[:half]))
    assert documents(one) == documents(replay(events))
    assert documents(two) == documents(replay(events[: half + 1]))


def test_a_fork_shares_nothing_it_changes() -> None:
    """Every list, set and dict of a game and of its deals is copied by ``fork`` but
    those never changed in place (so that a field added to the fold and forgotten by
    ``fork`` fails here)."""
    events = events_of(next(p for p in GOOD if p.stem == "code_4_2_7_scorer"))
    base = replay(events)
    other = base.fork()
    for name, value in vars(base).items():
        if isinstance(value, (list, set, dict)):
            assert getattr(other, name) is not value, name
    for name, value in vars(base.table).items():
        if isinstance(value, (list, set, dict)):
            assert getattr(other.table, name) is not value, f"table.{name}"
    deal = base.deals[-1]
    copied = deal.fork(object())
    for name in deal.__slots__:  # type: ignore[attr-defined]
        value = getattr(deal, name, None)
        if isinstance(value, (list, set, dict)) and name != "seat_index":  # the table's, never changed
            assert getattr(copied, name) is not value, f"deal.{name}"

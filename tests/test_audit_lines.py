"""The audit trail's line for each event (``projections.audit.describe``) is a table of
one small function per type of a pulka's events (issue 19): each type has its own, and
an event of another kind of stream is named as such."""

from __future__ import annotations

from typing import get_args, get_type_hints

from ledger.vocabulary.bridge import PassedOut, RubberStarted
from ledger.vocabulary.events import AnyEvent, Bid, ForeignEvent, Withdrawn
from projections.audit import describe

PULKA_EVENTS = [t for t in get_args(AnyEvent) if not issubclass(t, ForeignEvent)]


def test_every_type_of_a_pulkas_events_has_its_own_line() -> None:
    fallback = describe.dispatch(object)
    missing = [t.__name__ for t in PULKA_EVENTS if describe.dispatch(t) is fallback]
    assert len(PULKA_EVENTS) == 19 and not missing, missing


def test_each_line_is_the_events_own() -> None:
    assert describe(Bid(player="Anna", bid="6S", dark=True)) == "Anna bids 6S dark [Code 3.3.19]"
    assert describe(Withdrawn(first=7)) == "withdrawn while in hand: events from 7 on"


def test_an_event_of_another_kind_of_stream_is_named_as_such() -> None:
    started = RubberStarted(game="r", players=("N", "E", "S", "W"))
    assert describe(started) == "rubber_started: not an event of a pulka"
    assert describe(PassedOut()) == "passed_out: not an event of a pulka"


def test_each_line_is_registered_for_the_type_it_reads() -> None:
    """A function is registered with its type named in the decorator (cheaper at start-up
    than reading the annotation), so the two are checked to agree here."""
    for kind, line in describe.registry.items():
        if kind is not object:
            assert get_type_hints(line)["event"] is kind, (kind, line)

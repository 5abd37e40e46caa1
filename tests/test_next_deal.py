"""How the next deal begins (``projections.next_deal``): ``Opening`` hands its fields to
``DealState`` by position (a deal opens often, and keyword arguments cost a dictionary
each time), so its fields are, in order, the first fields of ``DealState``."""

from __future__ import annotations

from ledger.vocabulary.events import GameStarted
from ledger.vocabulary.rules import resolve
from projections.deal_state import DealState
from projections.next_deal import Opening, opening
from projections.seats import Seats


def test_an_openings_fields_are_the_first_fields_of_a_deal_in_order() -> None:
    own = Opening.__struct_fields__[:-1]
    assert own == DealState.__struct_fields__[: len(own)]
    assert Opening.__struct_fields__[-1] == "seat_index"


def test_the_deal_an_opening_begins_has_each_field_where_it_belongs() -> None:
    started = GameStarted(game="g", players=("A", "B", "C"), pulya=10, first_dealer="B")
    rules = resolve(started.convention, started.rules)
    # B deals the first deal; with three at the table all bid, from C on his left [Code 3.2.2, 3.2.10].
    deal = opening([], Seats(started.players, started.players, ()), rules, started, None).deal()
    assert (deal.number, deal.dealer, deal.names, deal.bidders, deal.min_level) == (1, 1, ("A", "B", "C"), (2, 0, 1), 6)
    assert (deal.forced, deal.exit_dark, deal.dealer_errors_before) == (rules.opening_raspasy_rounds > 0, False, 0)
    assert deal.seat_index == {"A": 0, "B": 1, "C": 2}

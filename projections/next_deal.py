"""How the next deal begins: who deals it, its lowest contract, where the raspasy run
stands, and whether it is one of the forced raspasy that open the pulka.

The fold (``projections.game``) opens each deal with what ``opening`` works out from
the deal before it and the table as it sits; the judge asks the same of the deal a
bid would open. Nothing here changes the game.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from ledger.vocabulary.events import GameStarted
from ledger.vocabulary.rules import RuleSet
from projections.deal_state import DealState, first_bidders
from projections.scoring import deal_outcome
from projections.seats import Seats


class Opening(msgspec.Struct, frozen=True):
    """What a deal begins with: the fields of its ``DealState`` that the deals before it
    and the table decide."""

    number: int
    dealer: int
    names: tuple[str, ...]
    persons: tuple[str, ...]
    bidders: tuple[int, ...]
    min_level: int
    raspasy_before: int
    rules: RuleSet
    forced: bool
    exit_dark: bool
    dealer_errors_before: int
    seat_index: dict[str, int]  # shared by the deals at this table, never changed

    def deal(self) -> DealState:
        """A new deal that begins so (each call a deal of its own: a deal is folded into).
        The fields go in ``DealState``'s own order, by position: a deal opens often."""
        return DealState(self.number, self.dealer, self.names, self.persons, self.bidders, self.min_level,
                         self.raspasy_before, self.rules, self.forced, self.exit_dark, self.dealer_errors_before,
                         seat_index=self.seat_index)


def first_dealer(started: GameStarted) -> str:
    """Who deals the first deal: the one the game names, else the last player."""
    fd = started.first_dealer
    return fd if fd is not None else started.players[-1]


def opening(deals: Sequence[DealState], seats: Seats, rules: RuleSet, started: GameStarted,
            dealer: str | None) -> Opening:
    """The deal the next bid opens, after ``deals`` at the table ``seats``; ``dealer``: who
    actually dealt it, out of turn [Code 3.2.14]."""
    prev = deals[-1] if deals else None
    seating = seats.seating
    dealt = due_dealer(seats, prev, started, rules) if dealer is None else dealer
    errors = 0
    if prev is not None and prev.annulled_at is not None and not prev.passes_on:
        errors = prev.dealer_errors_before + (1 if prev.dealer_error else 0)
        if prev.names[prev.dealer] != dealt:
            errors = 0
    min_level, before = run_after(prev, rules)
    if prev is not None and prev.annulled_at is not None:
        exit_dark = prev.exit_dark
    else:
        exit_dark = prev is not None and prev.raspasy and min_level > rules.raspasy_exit and bool(
            prev.dark_doublings
        )
    at = seating.index(dealt)
    return Opening(len(deals) + 1, at, seating, seats.persons, first_bidders(at, len(seating)), min_level, before,
                   rules, forced_next(deals, rules, started), exit_dark, errors, seats.seat_index)


def due_dealer(seats: Seats, prev: DealState | None, started: GameStarted, rules: RuleSet) -> str:
    """Whose turn it is to deal after ``prev``: the player to the left of whoever dealt
    last [Code 3.2.2, 3.2.14], or the same dealer again after an annulment [3.2.13]
    (unless it was his second error [3.2.17]) or, where the rules say so, after a
    raspasy [3.7.7]; a newcomer deals first [3.1.2]."""
    if seats.dealer_next is not None:
        return seats.dealer_next
    if prev is None:
        return _seated_from(first_dealer(started), started.players, seats.seating, 0)
    last = prev.names[prev.dealer]
    again = (prev.annulled_at is not None and not prev.passes_on) or (
        prev.raspasy and rules.raspasy_same_dealer and not prev.forced
    )
    # Round the table as it sits now (a newcomer in the place of one who left deals
    # in his turn); from a dealer who has left, round the table he dealt at.
    order = seats.seating if last in seats.seating else prev.names
    return _seated_from(last, order, seats.seating, 0 if again else 1)


def forced_next(deals: Sequence[DealState], rules: RuleSet, started: GameStarted) -> bool:
    """The deal after ``deals`` is one of the forced raspasy that open the pulka [Code 3.7.9]."""
    rounds = rules.opening_raspasy_rounds
    if not rounds:
        return False
    # Counted only as far as the forced ones go: linear over a game, not quadratic.
    forced = rounds * len(started.players)
    played = 0
    for d in deals:
        if d.annulled_at is None:
            played += 1
            if played >= forced:
                return False
    return True


def run_after(prev: DealState | None, rules: RuleSet) -> tuple[int, int]:
    """The deal after ``prev``: its minimum contract and where the raspasy progression
    stands [Code 3.7.4, 3.7.8; 3.3.19 a and 3.7.7 for the exit after dark passes]."""
    if prev is None:
        return 6, 0
    if prev.annulled_at is not None:
        return prev.min_level, prev.raspasy_before
    if prev.raspasy:
        before = prev.raspasy_before + 1
        exit_level = rules.raspasy_exit + (before - 1 if rules.raspasy_exit_climbs else 0)
        exit_level = max(rules.raspasy_exit, min(8, exit_level))
        if prev.dark_doublings:
            exit_level = max(exit_level, 6 + prev.dark_doublings)
        return exit_level, before
    ends = rules.raspasy_run_ends
    if ends == "any_deal" and rules.raspasy_unwhisted_resets:
        return 6, 0  # the Code's reading: any game ends the run [Code 3.7.8]
    outcome = deal_outcome(prev)
    if ends == "any_deal" or outcome == "made" or (ends == "no_pass_misere_remiz" and outcome == "ruled"):
        keep = outcome == "unwhisted" and not rules.raspasy_unwhisted_resets
        return 6, prev.raspasy_before if keep else 0
    return (prev.min_level if rules.raspasy_exit_lasts else 6), prev.raspasy_before


def _seated_from(seat: str, order: tuple[str, ...], seating: tuple[str, ...], step: int) -> str:
    """``seat`` itself (``step`` 0) or the seat to its left (1) in the clockwise ``order``,
    passing over seats no longer at the table."""
    i = order.index(seat)
    for k in range(step, step + len(order)):
        candidate = order[(i + k) % len(order)]
        if candidate in seating:
            return candidate
    return seating[0]

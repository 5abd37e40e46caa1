"""The deadlines of the recording rules [Code 4.2.9, 4.2.10]: a partner's correction
counts, and a forgotten record may be added, until the bidding of the next game after
the deal ends; an annulled deal orders no game, so its redeal is that next game.

Pure answers over the deals and events folded so far; the game's forks
(``projections.forks``) ask them before they apply a correction, an objection or a late
record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ledger.vocabulary.events import AnyEvent, Entry, Tricks
from ledger.vocabulary.wording import said
from projections.deal_state import DealState
from projections.recording import Effect


def is_late(deals: Sequence[DealState], event: Entry | Tricks) -> bool:
    """A record of an earlier deal than the one in play: a forgotten record (4.2.10)."""
    return event.deal is not None and event.deal < len(deals)


def is_forgotten(events: Sequence[AnyEvent], effects: Mapping[int, Effect], number: int) -> bool:
    """Event ``number`` was judged as a forgotten record [Code 4.2.10]."""
    effect = effects.get(number)
    return effect is not None and effect.rule == "4.2.10" and isinstance(events[number - 1], (Entry, Tricks))


def next_game(deals: Sequence[DealState], deal: int) -> int:
    """The deal after ``deal`` that was actually played: an annulled deal orders no game,
    so the redeal is "the next game" of rule 4.2.9."""
    k = deal + 1
    while k <= len(deals) and deals[k - 1].annulled_at is not None:
        k += 1
    return k


def bidding_end(deals: Sequence[DealState], deal_number: int) -> int | None:
    """The event number at which the bidding of that deal ended, if it has."""
    if 1 <= deal_number <= len(deals):
        return deals[deal_number - 1].bidding_closed_at
    return None


def deadline(deals: Sequence[DealState], deal: int) -> int | None:
    """The event at which the bidding of the next game after ``deal`` ended (None: not yet)."""
    return bidding_end(deals, next_game(deals, deal))


def too_late_reason(deals: Sequence[DealState], events: Sequence[AnyEvent], deal: int, end: int) -> str:
    """Why a record of ``deal`` is too late at the deadline ``end``, with its time."""
    at = events[end - 1].at
    when = f" ({at})" if at else ""
    return said("too late: the bidding of deal {deal} closed at event {end}{when}", deal=next_game(deals, deal),
                end=end, when=when)

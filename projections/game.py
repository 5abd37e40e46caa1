"""The game projection: a fold of a pulka's events into deals and a sheet.

``GameState.apply`` takes the events of one game in order and never judges them
(``ledger.judge`` does that before an event is stored), so a log that was valid
when written always replays. Replay is linear, corrections included.

The fold is this module's job: each event's content into the deals (``DealState``)
and the records by hand, and back to an earlier deal to fold the stored events again
(``rewind``, ``refold``). Its other parts each have a room of their own:

- who sits where, and how the table changes: ``projections.seats``;
- how the next deal begins (who deals, its minimum, the raspasy run):
  ``projections.next_deal``;
- the sheet, kept as a checkpoint at the end of every deal, and what each record by
  hand writes on it: ``projections.deal_sheets``;
- what corrections, objections, late records and withdrawals do, by the recording
  rules (``projections.recording``), on a fork of the game: ``projections.forks``,
  with the deadlines of rules 4.2.9 and 4.2.10 in ``projections.deadlines``.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from copy import copy
from typing import assert_never

from ledger.vocabulary.bids import HERE, LADDER, PASS, parse_level
from ledger.vocabulary.events import (
    Abandoned,
    Annulled,
    AnyEvent,
    Bid,
    Contract,
    Correction,
    Dealt,
    Defence,
    Entry,
    ForeignEvent,
    GameStarted,
    Joined,
    Left,
    Objection,
    PencilDown,
    Penalty,
    Ruling,
    Substituted,
    Talon,
    Tricks,
    Withdrawn,
)
from ledger.vocabulary.rules import RuleSet, resolve
from ledger.vocabulary.tournament_events import TournamentStarted
from projections.deal_sheets import Checkpoints
from projections.deadlines import is_late
from projections.deal_state import DealState
from projections.next_deal import Opening, due_dealer, opening
from projections.recording import Effect
from projections.seats import Seats, TableSeats
from projections.sheet import Sheet, Write


def rules_of(started: GameStarted | TournamentStarted) -> RuleSet:
    """The rule set a game (or every table's game of a tournament) is played by: the
    recorded one, else resolved from the preset."""
    if started.rule_set is not None:
        return started.rule_set
    return resolve(started.convention, started.rules)


class GameState:
    """A game folded through its events: deals, records by hand, the sheet, the verdicts."""

    def __init__(self, started: GameStarted, rules: RuleSet) -> None:
        self.started = started
        self.rules = rules
        self.table = TableSeats(started.players)
        # The stored events; events[i] is event number i + 1. The first ``folded`` of
        # them are folded in: all of them, except while ``rewound`` re-folds them from
        # an earlier deal. ``folded`` is the number of the last event folded.
        self.events: list[AnyEvent] = [started]
        self.folded = 1
        self.deals: list[DealState] = []
        self.starts: list[int] = []  # starts[k - 1]: the number of deal k's first event
        # Records by hand per deal (items[0]: before the first deal): entries, arbiters'
        # penalties, and corrections that brought penalty writes, in event order.
        self.items: list[list[int]] = [[]]
        self.abandoned_at: int | None = None
        # What the recording rules decided [rules.md §8] (``projections.forks``): merged
        # corrections, records without effect (too late, objected to, withdrawn),
        # penalty writes of corrections, a verdict for each judged record, the players
        # already warned.
        self.overrides: dict[int, AnyEvent] = {}
        self.void: set[int] = set()
        self.penalties: dict[int, list[Write]] = {}
        self.effects: dict[int, Effect] = {}
        self.warned: set[str] = set()
        self.checkpoints = Checkpoints()
        # While re-folding from deal k: records of deals before k recorded later were
        # folded already and are not folded again.
        self._from_deal = 0
        self._last_time: str | None = started.at
        # How the next deal begins (``_opening``): as of which event, for which dealer.
        self._next: tuple[int, str | None, Opening] | None = None
        # The deals this fold may change in place are those it owns (``DealState.owner``);
        # one it shares with a fork (``fork``) is copied first (``writable``).
        self._token = object()

    @classmethod
    def start(cls, started: GameStarted) -> GameState:
        return cls(started, rules_of(started))

    def fork(self) -> GameState:
        """An independent copy of the game as folded so far, which folds on by itself:
        what it shares with this one is never changed in place (the events, the stored
        sheets, the seatings; the deals, which each fold copies before it changes one:
        ``writable``), the rest is copied. Costs what the lists of the game cost to copy,
        not a fold."""
        assert self.folded == len(self.events), "fork() of a rewound game"
        other = copy(self)
        other.table = self.table.fork()
        other.events = list(self.events)
        other.deals = list(self.deals)
        other.starts = list(self.starts)
        other.items = list(self.items)  # each deal's list is replaced, never changed (``add_item``)
        other.overrides = dict(self.overrides)
        other.void = set(self.void)
        other.penalties = dict(self.penalties)
        other.effects = dict(self.effects)
        other.warned = set(self.warned)
        other.checkpoints = self.checkpoints.fork()
        # Every deal is shared now: neither fold owns one.
        other._token = object()
        self._token = object()
        return other

    def writable(self, index: int) -> DealState:
        """``deals[index]``, to be changed in place: copied first when another fold
        shares it (``fork``)."""
        deal = self.deals[index]
        if deal.owner is not self._token:
            deal = self.deals[index] = deal.fork(self._token)
        return deal

    # -- facts ---------------------------------------------------------------------

    @property
    def seats(self) -> Seats:
        """Who sits where now (``projections.seats``)."""
        return self.table.seats

    @property
    def person_seat(self) -> dict[str, str]:
        """Every person who held a seat, and the seat."""
        return self.table.person_seat

    @property
    def opened_with(self) -> list[Seats]:
        """The seats each deal began with."""
        return self.table.opened_with

    @property
    def players(self) -> tuple[str, ...]:
        """The people at the table now, clockwise."""
        return self.table.seats.persons

    def seat_key(self, person: str) -> str | None:
        """The seat (its name on the sheet) a person holds or held; None for a stranger."""
        return self.table.person_seat.get(person)

    def seat(self, person: str) -> int:
        """The seat of a person at the table now, as an index of the seating."""
        return self.table.seat(person)

    def deal_seat(self, deal: DealState, person: str) -> int:
        """The seat, in ``deal``, of a person who held one there."""
        return self.table.deal_seat(deal, person)

    @property
    def current(self) -> DealState | None:
        return self.deals[-1] if self.deals else None

    @property
    def current_deal_number(self) -> int:
        return len(self.deals)

    def next_deal(self, dealer: str | None = None) -> DealState:
        """The deal that the next bid would open (not yet part of the state); ``dealer``:
        who actually dealt it, out of turn [Code 3.2.14]."""
        return self._opening(dealer, self.folded).deal()

    def _opening(self, dealer: str | None, last: int) -> Opening:
        """How the deal the next bid opens begins, the events through ``last`` folded:
        worked out once for the judge, who looks at the deal a bid would open, and for
        the fold that opens it (``_next``; dropped when the game is rewound)."""
        known = self._next
        if known is not None and known[0] == last and known[1] == dealer:
            return known[2]
        found = opening(self.deals, self.table.seats, self.rules, self.started, dealer)
        self._next = (last, dealer, found)
        return found

    def due_dealer(self) -> str:
        """Whose turn it is to deal (``next_deal.due_dealer``)."""
        return due_dealer(self.table.seats, self.current, self.started, self.rules)

    @property
    def results_shape_runs(self) -> bool:
        """Whether a deal's result (not only its auction) decides how the next deal
        begins: then a result recorded late, or corrected, folds the later deals again."""
        return self.rules.raspasy_run_ends != "any_deal"

    @property
    def in_auction(self) -> DealState | None:
        """The current deal while its auction is open: a bid belongs to it. Otherwise the
        next bid opens a new deal."""
        deals = self.deals  # ``current``, in line: asked before every bid
        if deals:
            d = deals[-1]
            if d.bidding_closed_at is None and d.annulled_at is None and d.ruling is None:
                return d
        return None

    @property
    def last_time(self) -> str | None:
        """The time of the latest folded event that has one."""
        return self._last_time

    def deal_in_progress(self) -> DealState | None:
        """The current deal when it has started and has no result yet."""
        d = self.current
        if d is None or d.annulled_at is not None or d.resolved:
            return None
        return d

    def content(self, number: int) -> AnyEvent:
        """Event ``number`` as it stands: with any effective correction merged in."""
        return self.overrides.get(number) or self.events[number - 1]

    def is_late(self, event: Entry | Tricks) -> bool:
        """A record of an earlier deal than the one in play: a forgotten record (4.2.10)."""
        return is_late(self.deals, event)

    # -- evolve --------------------------------------------------------------------

    def apply(self, event: AnyEvent) -> None:
        """Fold one more stored event in; what a correction, an objection, a late record
        or a withdrawal does is decided by the recording rules (``projections.forks``)."""
        events = self.events
        assert self.folded == len(events), "apply() on a rewound game"
        events.append(event)
        number = self.folded = self.folded + 1
        self.checkpoints.cache = None
        if event.at is not None:
            self._last_time = event.at
        if type(event) in _FOLDED:
            self.fold(number, event)
            return
        # The forks of the game (``projections.forks``), imported when one comes.
        match event:
            case Correction():
                from projections.forks import apply_correction

                apply_correction(self, number, event)
            case Objection():
                from projections.forks import apply_objection

                apply_objection(self, number, event)
            case Withdrawn():
                from projections.forks import apply_withdrawn

                apply_withdrawn(self, number, event)
            case Entry() | Tricks() if is_late(self.deals, event):
                from projections.forks import apply_late

                apply_late(self, number, event)
            case _:
                self.fold(number, event)

    def fold(self, number: int, event: AnyEvent) -> None:
        """Apply an event's content to the deals and the records by hand, judging nothing."""
        deals = self.deals
        if deals:
            # The one deal an event may change in place: the last one, or the deal its
            # tricks are of (a late record); owned before it is changed (``writable``).
            index = event.deal - 1 if type(event) is Tricks and event.deal else len(deals) - 1
            if 0 <= index < len(deals) and deals[index].owner is not self._token:
                self.writable(index)
        match event:
            case Bid():  # the commonest event: folded in line
                deal = self.in_auction or self._open_deal(number)
                deal.apply_bid(self.table.deal_seat(deal, event.player), _bid_key(event.bid), number, event.dark)
                self.checkpoints.drop_from(deal.number)
            case Contract():
                self._contract(number, event)
            case Defence():
                self._defence(number, event)
            case Tricks():
                deal = self.deals[event.deal - 1] if event.deal else self.deals[-1]
                self.table.tricks_into(deal, number, event)
                self.result_changed(deal, number)
            case Ruling() if event.rule in _PLAYED_ON:
                self._played_on(number, event)
            case Ruling():
                self._ruling(number, event)
            case Annulled():
                # The deal in progress, its bidding closed too (a misdeal found before the
                # contract, as the judge allows), else a new one annulled before a bid.
                deal = self.deal_in_progress() or self._open_deal(number)
                deal.apply_annulled(number, event.dealer_error)
                self.checkpoints.drop_from(deal.number)
            case Dealt():
                self._open_deal(number, self.table.person_seat[event.player])
            case Entry() | Penalty():
                self.add_item(number, event.deal if event.deal is not None else len(self.deals))
            case Talon():
                self._talon(number, event)
            case Joined():
                self.table.join(number, event, self.current)
                self.add_item(number, len(self.deals))
            case Left():
                self.table.leave(number, event)
                self.add_item(number, len(self.deals))
            case Substituted():
                self.table.substitute(number, event)
            case Abandoned():
                self.abandoned_at = number
            case PencilDown() | Correction() | Objection() | Withdrawn() | GameStarted() | ForeignEvent():
                pass
            case _:
                assert_never(event)

    def _contract(self, number: int, event: Contract) -> None:
        deal = self.deals[-1]
        table = self.table
        shared = table.deal_seat(deal, event.shared_with) if event.shared_with is not None else None
        deal.apply_contract(table.deal_seat(deal, event.player), event.contract, number, shared,
                            recall=event.evident_correction)
        self.checkpoints.drop_from(deal.number)

    def _defence(self, number: int, event: Defence) -> None:
        deal = self.deals[-1]
        table = self.table
        hand = table.deal_seat(deal, event.hand) if event.hand is not None else None
        deal.apply_call(table.deal_seat(deal, event.player), event.call, number, hand)
        self.checkpoints.drop_from(deal.number)

    def _ruling(self, number: int, event: Ruling) -> None:
        """A ruling that closes the deal [Code 3.3.16.3, 3.4.4, 3.5.4, 3.9.22]."""
        deal = self.deals[-1]
        seat = self.table.deal_seat
        tricks = self._ruled_tricks(deal, event)
        offender = seat(deal, event.offender) if event.offender is not None else None
        whists = tuple((seat(deal, p), a) for p, a in (event.whists or {}).items())
        deal.apply_ruling(event, number, tricks, offender, whists)
        self.checkpoints.drop_from(deal.number)

    def _played_on(self, number: int, event: Ruling) -> None:
        """A ruling after which the deal is still played: the talon given to the one
        player still bidding [Code 3.3.16.2], or how a deal played by one defender's plan
        is written [Code 3.8.5.1]."""
        deal = self.deals[-1]
        table = self.table
        seat = table.deal_seat
        if event.rule == "3.3.16.2":
            assert event.offender is not None
            deal.apply_exposed_talon(seat(deal, event.offender), number)
        else:
            assert event.planner is not None
            whists = tuple((seat(deal, p), a) for p, a in (event.whists or {}).items())
            other = table.by_seat(deal, event.tricks) if event.tricks is not None else None
            compensated = tuple(seat(deal, p) for p in event.compensated)
            deal.apply_plan_ruling(event, number, seat(deal, event.planner), whists, other, compensated)
        self.checkpoints.drop_from(deal.number)
        if event.rule == "3.8.5.1" and event.whists:
            self.add_item(number, deal.number)  # agreed compensation, whatever the result [3.8.5.1 a]

    def _ruled_tricks(self, deal: DealState, ruling: Ruling) -> dict[int, int] | None:
        """The result a ruling gives in tricks: an agreed result [Code 3.9.22]; a
        concession, the declarer without all and the defenders 5 and 5 unless the ruling
        splits them [Code 3.5.4]."""
        if ruling.rule == "3.9.22" and ruling.tricks is not None:
            return self.table.by_seat(deal, ruling.tricks)
        if ruling.rule == "3.5.4" and deal.declarer is not None:
            if ruling.tricks is not None:
                tricks = self.table.by_seat(deal, ruling.tricks)
            else:
                tricks = {s: 5 for s in deal.playing if s != deal.declarer}
            tricks[deal.declarer] = 0
            return tricks
        return None

    def _talon(self, number: int, event: Talon) -> None:
        """The talon's records write by hand; a look at it during the auction also keeps
        the one who looked out of the bidding [Code 3.2.21]."""
        if event.kind == "peek":
            deal = self.in_auction or self._open_deal(number)
            if deal.phase == "auction":
                deal.peeked.add(self.table.deal_seat(deal, event.player))
        self.add_item(number, len(self.deals))

    def _open_deal(self, number: int, dealer: str | None = None) -> DealState:
        deal = self._opening(dealer, number - 1).deal()
        deal.owner = self._token
        self.deals.append(deal)
        self.starts.append(number)
        self.table.deal_opened()
        return deal

    def add_item(self, number: int, k: int) -> None:
        """A write by hand (entry, penalty, a correction's penalty) at the end of deal k so far."""
        items = self.items
        while len(items) <= k:
            items.append([])
        items[k] = [*items[k], number]  # a new list: a fork of the game may share the one it had (``fork``)
        self.checkpoints.item_added(self, number, k)

    def changed(self, k: int) -> None:
        """Deal k (0: the records before the first deal) changed: drop its checkpoint and later ones."""
        self.checkpoints.drop_from(k)

    def result_changed(self, deal: DealState, number: int) -> None:
        """A deal's tricks were recorded or changed. Where a result decides how the next
        deal begins (``results_shape_runs``), the deals after it are folded again."""
        if self.results_shape_runs and deal.number < len(self.deals):
            self.refold(deal.number + 1, number)
        self.checkpoints.drop_from(deal.number)

    # -- folding again from a deal on -------------------------------------------------------

    def rewind(self, deal: int) -> None:
        """Fold the game back to just before deal ``deal`` began (0: before any record):
        the deals from ``deal`` on and their checkpoints are dropped; ``replay_recorded``
        then folds the stored events again, one by one, as the decisions taken say."""
        begin = self.starts[deal - 1] if 1 <= deal <= len(self.starts) else (2 if deal <= 0 else self.folded + 1)
        kept = max(0, deal - 1)
        self.checkpoints.rewind(self, deal)
        self.table.rewind(deal, begin)
        del self.deals[kept:]
        del self.starts[kept:]
        del self.items[max(1, deal):]
        if deal <= 0:
            self.items[0] = []
        if self.abandoned_at is not None and self.abandoned_at >= begin:
            self.abandoned_at = None
        self.folded = begin - 1
        self._from_deal = max(0, deal)
        self._next = None
        self._last_time = next(
            (self.events[i].at for i in range(self.folded - 1, -1, -1) if self.events[i].at is not None), None
        )

    def replay_recorded(self, number: int) -> None:
        """Fold stored event ``number``, the next one, as the decisions already taken say."""
        assert number == self.folded + 1, (number, self.folded)
        event = self.events[number - 1]
        self.folded = number
        self.checkpoints.cache = None
        if event.at is not None:
            self._last_time = event.at
        if number in self.void:
            return
        if isinstance(event, Correction):
            if self.penalties.get(number):
                self.add_item(number, event.deal or 0)
            return
        if event.deal is not None and event.deal < self._from_deal:
            return  # a late record of a deal before the rewind, folded there already
        self.fold(number, self.content(number))

    def refold(self, deal: int, through: int) -> None:
        """Rewind to deal ``deal`` and fold the stored events again through ``through``."""
        outer = self._from_deal
        self.rewind(deal)
        for number in range(self.folded + 1, through + 1):
            self.replay_recorded(number)
        self._from_deal = outer

    def rewound(self, deal: int, overrides: dict[int, AnyEvent]) -> AbstractContextManager[GameState]:
        """This game rewound to deal ``deal`` with ``overrides`` merged in, for the caller
        to fold forward again with ``replay_recorded``; afterwards it is as it was
        (``projections.forks.rewound``)."""
        from projections.forks import rewound

        return rewound(self, deal, overrides)

    # -- read ----------------------------------------------------------------------

    def sheet(self) -> Sheet:
        """The sheet now (``projections.deal_sheets``). Read it before the next event is
        applied, and never write on it."""
        return self.checkpoints.sheet(self)

    def credited(self, number: int, k: int) -> int:
        """The record a number written at event ``number`` for deal ``k`` is credited to:
        the deal's result and whoever recorded it [Code 4.2.4] — its tricks, a ruling, an
        annulment that passes the deal on, each the event that writes it; but a game the
        defenders' calls let stand unplayed (both pass, a half-whist that stands) is the
        declarer's, credited to his contract, not to the call that closed the deal."""
        if 1 <= k <= len(self.deals):
            deal = self.deals[k - 1]
            calls = deal.call_events
            if deal.tricks_event is None and deal.ruling_at is None and calls and number == calls[-1]:
                return self._contract_of(deal, calls[0]) or number
        return number

    def _contract_of(self, deal: DealState, before: int) -> int | None:
        """The event of the deal's contract as it stands (the last one given, 3.4.7)."""
        events = self.events
        for n in range(before - 1, self.starts[deal.number - 1] - 1, -1):
            if isinstance(events[n - 1], Contract) and n not in self.void:
                return n
        return None

    def unwritten(self, number: int) -> list[Write]:
        """What record ``number``, which has no effect, would have written
        (``Checkpoints.unwritten``): where ``explain`` names it."""
        return self.checkpoints.unwritten(self, number)

    @property
    def finished(self) -> bool:
        """The pulka has reached its end [Code 4.2.3]; an abandoned one is not 'finished'."""
        return self.sheet().finished

    @property
    def over(self) -> bool:
        """No deal may follow: the pulka ended or was abandoned."""
        return self.abandoned_at is not None or self.finished


# The rulings after which the deal is still played (the others close it).
_PLAYED_ON = frozenset({"3.3.16.2", "3.8.5.1"})

# The events whose content ``apply`` folds as it is: none that the recording rules decide on.
_FOLDED: frozenset[type] = frozenset({Bid, Contract, Defence, Ruling, Annulled, Dealt, Penalty, Talon, Joined, Left,
                                      Substituted, Abandoned, PencilDown})


def _bid_key(bid: str) -> str:
    if bid in LADDER or bid == PASS or bid == HERE:
        return bid  # as the log writes it
    level = parse_level(bid)
    return str(level) if level is not None else bid.strip().lower()


def replay(events: list[AnyEvent]) -> GameState:
    """Fold a stored log (first event ``game_started``) into its state."""
    first = events[0]
    assert isinstance(first, GameStarted)
    state = GameState.start(first)
    for event in events[1:]:
        state.apply(event)
    return state

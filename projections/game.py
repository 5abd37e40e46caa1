"""The game projection: a fold of a pulka's events into deals and a sheet.

``GameState.apply`` takes the events of one game in order and never judges them
(``ledger.commands`` does that before an event is stored), so a log that was valid
when written always replays. The state is incremental, so that judging a long
import stays linear: finished deals are scored onto ``committed``; the deal in
progress is scored on a copy whenever the sheet is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, assert_never

from ledger.bids import parse_level
from ledger.events import (
    Abandoned,
    Annulled,
    AnyEvent,
    Bid,
    Contract,
    Correction,
    Defence,
    Entry,
    GameStarted,
    Objection,
    PencilDown,
    Penalty,
    Tricks,
)
from ledger.rules import RuleSet, resolve
from projections.deal import DealState, first_bidders
from projections.scoring import score_deal
from projections.sheet import Sheet, Write

if TYPE_CHECKING:
    from projections.recording import Effect


def rules_of(started: GameStarted) -> RuleSet:
    """The rule set a game is played by: the recorded one, else resolved from the preset."""
    if started.rule_set is not None:
        return started.rule_set
    return resolve(started.convention, started.rules)


@dataclass
class GameState:
    started: GameStarted
    rules: RuleSet
    events: list[AnyEvent] = field(default_factory=list)  # events[i] is number i + 1
    deals: list[DealState] = field(default_factory=list)
    preamble: list[int] = field(default_factory=list)  # entries before the first deal
    items: dict[int, list[int]] = field(default_factory=dict)  # deal -> entry/penalty numbers
    committed: Sheet | None = None  # the sheet through the last finished deal
    committed_deals: int = 0
    abandoned_at: int | None = None
    # What the recording rules decided [rules.md §8]: merged corrections, late records
    # without effect, penalty writes of corrections, and a verdict for each attempt.
    overrides: dict[int, AnyEvent] = field(default_factory=dict)
    void: set[int] = field(default_factory=set)
    penalties: dict[int, list[Write]] = field(default_factory=dict)
    effects: dict[int, Effect] = field(default_factory=dict)
    warned: set[str] = field(default_factory=set)
    _commit_on_open: bool = True
    _sheet_cache: tuple[int, Sheet] | None = None

    @classmethod
    def start(cls, started: GameStarted) -> GameState:
        state = cls(started=started, rules=rules_of(started))
        state.events.append(started)
        state.committed = state._empty_sheet()
        return state

    # -- facts ---------------------------------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        return self.started.players

    @property
    def n(self) -> int:
        return len(self.started.players)

    @property
    def number(self) -> int:
        """How many events have been applied (game_started is event 1)."""
        return len(self.events)

    def seat(self, player: str) -> int:
        return self.players.index(player)

    @property
    def current(self) -> DealState | None:
        return self.deals[-1] if self.deals else None

    @property
    def current_deal_number(self) -> int:
        return self.deals[-1].number if self.deals else 0

    def first_dealer(self) -> int:
        fd = self.started.first_dealer
        return self.seat(fd) if fd is not None else self.n - 1

    def next_deal(self) -> DealState:
        """The deal that the next bid would open (not yet part of the state)."""
        prev = self.current
        rules = self.rules
        if prev is None:
            dealer, min_level, before = self.first_dealer(), 6, 0
        elif prev.annulled_at is not None:
            dealer, min_level, before = prev.dealer, prev.min_level, prev.raspasy_before
        elif prev.raspasy:
            same = rules.raspasy_same_dealer
            dealer = prev.dealer if same else (prev.dealer + 1) % self.n
            min_level, before = rules.raspasy_exit, prev.raspasy_before + 1
        else:
            dealer, min_level, before = (prev.dealer + 1) % self.n, 6, 0
        return DealState(
            number=(prev.number + 1) if prev else 1,
            dealer=dealer,
            n_players=self.n,
            bidders=first_bidders(dealer, self.n),
            min_level=min_level,
            raspasy_before=before,
            rules=rules,
        )

    def deal_in_progress(self) -> DealState | None:
        """The current deal when it has started and has no result yet."""
        d = self.current
        if d is None or d.annulled_at is not None or d.resolved:
            return None
        return d

    def bidding_end(self, deal_number: int) -> int | None:
        """The event number at which the bidding of that deal ended, if it has."""
        if 1 <= deal_number <= len(self.deals):
            return self.deals[deal_number - 1].bidding_closed_at
        return None

    # -- evolve --------------------------------------------------------------------

    def content(self, number: int) -> AnyEvent:
        """Event ``number`` as it stands: with any effective correction merged in."""
        return self.overrides.get(number) or self.events[number - 1]

    def apply(self, event: AnyEvent) -> None:
        """Fold one more stored event in; what a correction, an objection or a late
        record does is decided by the recording rules (``projections.recording``)."""
        from projections import recording

        self.events.append(event)
        number = len(self.events)
        self._sheet_cache = None
        match event:
            case Correction():
                recording.apply_correction(self, number, event)
            case Objection():
                recording.apply_objection(self, number, event)
            case Entry() | Tricks() if recording.is_late(self, event):
                recording.apply_late(self, number, event)
            case _:
                self._fold(number, event)

    def fold_plain(self, event: AnyEvent, judged: bool = True) -> None:
        """Append an event and apply its content as it stands, without the recording
        rules (for checking that a corrected log is still valid)."""
        self.events.append(event)
        if judged:
            self._fold(len(self.events), event)
        self._sheet_cache = None

    def _fold(self, number: int, event: AnyEvent) -> None:
        """Apply an event's content to the deals and the sheet, judging nothing."""
        self._sheet_cache = None
        match event:
            case Bid():
                self._open_deal_for(event.deal)
                deal = self.deals[-1]
                deal.apply_bid(self.seat(event.player), _bid_key(event.bid), number)
            case Contract():
                self.deals[-1].apply_contract(self.seat(event.player), event.contract, number)
            case Defence():
                self.deals[-1].apply_call(self.seat(event.player), event.call, event.open, number)
            case Tricks():
                deal = self.deals[event.deal - 1] if event.deal else self.deals[-1]
                deal.apply_tricks({self.seat(p): t for p, t in event.tricks.items()}, number)
                if deal.number <= self.committed_deals:
                    self._recommit()
            case Annulled():
                self._open_deal_for(event.deal)
                self.deals[-1].apply_annulled(number)
            case Entry() | Penalty():
                self._add_item(number, event.deal if event.deal is not None else self.current_deal_number)
            case Abandoned():
                self.abandoned_at = number
            case PencilDown() | Correction() | Objection() | GameStarted():
                pass
            case _:
                assert_never(event)

    def _add_item(self, number: int, k: int) -> None:
        """A write by hand (entry, penalty, a correction's penalty) at the end of deal k so far."""
        self._sheet_cache = None
        if k == 0:
            self.preamble.append(number)
        else:
            self.items.setdefault(k, []).append(number)
        if 0 < k <= self.committed_deals or (k == 0 and self.committed_deals):
            self._recommit()

    def _open_deal_for(self, deal_number: int | None) -> None:
        """A bid or an annulment opens the next deal unless its deal is already open."""
        current = self.current
        if deal_number is not None:
            if deal_number > len(self.deals):
                self._open_deal()
            return
        if current is None or current.annulled_at is not None or current.bidding_closed_at is not None:
            self._open_deal()

    def refold(self) -> None:
        """Rebuild deals and sheet from the stored events and the decided effects."""
        self.deals = []
        self.preamble = []
        self.items = {}
        self.committed = self._empty_sheet()
        self.committed_deals = 0
        self.abandoned_at = None
        self._sheet_cache = None
        # Fold the whole log first and score once at the end: committing deal by deal
        # would score every finished deal again at each late record on the way.
        self._commit_on_open = False
        try:
            for number in range(2, len(self.events) + 1):
                event = self.events[number - 1]
                if number in self.void:
                    continue
                if isinstance(event, Correction):
                    if self.penalties.get(number):
                        self._add_item(number, event.deal or 0)
                    continue
                self._fold(number, self.content(number))
        finally:
            self._commit_on_open = True
        self._commit_through(len(self.deals) - 1)

    def _open_deal(self) -> None:
        deal = self.next_deal()
        if self._commit_on_open:
            self._commit_through(len(self.deals))
        self.deals.append(deal)

    def _empty_sheet(self) -> Sheet:
        return Sheet(players=self.players, target=self.started.pulya, rules=self.rules)

    def _commit_through(self, count: int) -> None:
        """Score deals up to ``count`` (all finished) onto the committed sheet."""
        assert self.committed is not None
        if self.committed_deals == 0 and count > 0:
            self._apply_preamble(self.committed)
        while self.committed_deals < count:
            self._apply_deal(self.committed, self.deals[self.committed_deals])
            self.committed_deals += 1

    def _recommit(self) -> None:
        count = self.committed_deals
        self.committed = self._empty_sheet()
        self.committed_deals = 0
        self._commit_through(count)

    def _apply_preamble(self, sheet: Sheet) -> None:
        for number in self.preamble:
            self._apply_item(sheet, number, 0)

    def _apply_deal(self, sheet: Sheet, deal: DealState) -> None:
        """The deal's result at the event that resolved it, its entries at theirs."""
        resolved_at = deal.resolved_at if deal.resolved else None
        scored = False
        for number in self.items.get(deal.number, []):
            if resolved_at is not None and not scored and number > resolved_at:
                score_deal(sheet, deal)
                scored = True
            self._apply_item(sheet, number, deal.number)
        if resolved_at is not None and not scored:
            score_deal(sheet, deal)

    def _apply_item(self, sheet: Sheet, number: int, deal: int) -> None:
        event = self.content(number)
        if isinstance(event, Correction):
            for w in self.penalties.get(number, []):
                sheet.add(w)
            return
        assert isinstance(event, (Entry, Penalty))
        why = "entry" if isinstance(event, Entry) else f"penalty: {event.reason}"
        sheet.write(number, deal, event.player, event.column, Fraction(event.amount), event.on, why)

    # -- read ----------------------------------------------------------------------

    def sheet(self) -> Sheet:
        """The sheet now: committed deals plus the deal in progress."""
        if self._sheet_cache is not None and self._sheet_cache[0] == self.number:
            return self._sheet_cache[1]
        assert self.committed is not None
        sheet = self.committed.copy()
        if self.committed_deals == 0:
            self._apply_preamble(sheet)
        for deal in self.deals[self.committed_deals :]:
            self._apply_deal(sheet, deal)
        self._sheet_cache = (self.number, sheet)
        return sheet

    @property
    def finished(self) -> bool:
        """The pulka has reached its end [Code 4.2.3]; an abandoned one is not 'finished'."""
        return self.sheet().finished

    @property
    def over(self) -> bool:
        """No deal may follow: the pulka ended or was abandoned."""
        return self.abandoned_at is not None or self.finished


def _bid_key(bid: str) -> str:
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

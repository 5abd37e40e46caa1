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
from projections.sheet import Sheet


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

    def apply(self, event: AnyEvent) -> None:
        """Fold one more event in; ``event.deal`` and ``event.by`` are as stored."""
        self.events.append(event)
        number = len(self.events)
        self._sheet_cache = None
        match event:
            case Bid():
                if self.current is None or (self.current.resolved or self.current.annulled_at is not None):
                    self._open_deal()
                deal = self.deals[-1]
                deal.apply_bid(self.seat(event.player), _bid_key(event.bid), number)
            case Contract():
                deal = self.deals[-1]
                deal.apply_contract(self.seat(event.player), event.contract, number)
            case Defence():
                deal = self.deals[-1]
                deal.apply_call(self.seat(event.player), event.call, event.open, number)
            case Tricks():
                deal = self.deals[-1]
                deal.apply_tricks({self.seat(p): t for p, t in event.tricks.items()}, number)
            case Annulled():
                if self.current is None or self.current.resolved or self.current.annulled_at is not None:
                    self._open_deal()
                self.deals[-1].apply_annulled(number)
            case Entry() | Penalty():
                k = event.deal if event.deal is not None else self.current_deal_number
                if k == 0:
                    self.preamble.append(number)
                else:
                    self.items.setdefault(k, []).append(number)
                if k < self.committed_deals:
                    self._recommit()
            case Abandoned():
                self.abandoned_at = number
            case PencilDown() | Correction() | Objection() | GameStarted():
                pass

    def _open_deal(self) -> None:
        deal = self.next_deal()
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
        event = self.events[number - 1]
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

"""The game projection: a fold of a pulka's events into deals and a sheet.

``GameState.apply`` takes the events of one game in order and never judges them
(``ledger.command.judge`` does that before an event is stored), so a log that was valid
when written always replays. The state is incremental, so that judging a long
import stays linear: finished deals are scored onto ``committed``; the deal in
progress is scored on a copy whenever the sheet is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import assert_never

from ledger.vocabulary.bids import parse_level
from ledger.vocabulary.events import (
    Abandoned,
    Annulled,
    AnyEvent,
    Bid,
    Contract,
    Correction,
    Defence,
    Entry,
    ForeignEvent,
    GameStarted,
    Objection,
    PencilDown,
    Penalty,
    Tricks,
)
from ledger.vocabulary.rules import RuleSet, resolve
from projections.deal import DealState, first_bidders
from projections.recording import Effect, describe_write, equal_for_equal, exact_result, merge
from projections.scoring import score_deal
from projections.sheet import Sheet, Write


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

    @property
    def in_auction(self) -> DealState | None:
        """The current deal while its auction is open: a bid belongs to it. Otherwise the
        next bid opens a new deal."""
        d = self.current
        if d is not None and d.annulled_at is None and d.bidding_closed_at is None:
            return d
        return None

    @property
    def last_time(self) -> str | None:
        """The time of the latest event that has one."""
        for event in reversed(self.events):
            if event.at is not None:
                return event.at
        return None

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
        self.events.append(event)
        number = len(self.events)
        self._sheet_cache = None
        match event:
            case Correction():
                self._apply_correction(number, event)
            case Objection():
                self._apply_objection(number, event)
            case Entry() | Tricks() if self.is_late(event):
                self._apply_late(number, event)
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
            case PencilDown() | Correction() | Objection() | GameStarted() | ForeignEvent():
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
        if deal_number is not None:
            if deal_number > len(self.deals):
                self._open_deal()
            return
        if self.in_auction is None:
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


    # -- the recording rules [Code 4.2.7-4.2.10]: what corrections, objections and late records do

    def is_late(self, event: Entry | Tricks) -> bool:
        """A record of an earlier deal than the one in play: a forgotten record (4.2.10)."""
        return event.deal is not None and event.deal < self.current_deal_number


    def next_game(self, deal: int) -> int:
        """The deal after ``deal`` that was actually played: an annulled deal orders no game,
        so the redeal is "the next game" of rule 4.2.9."""
        k = deal + 1
        while k <= len(self.deals) and self.deals[k - 1].annulled_at is not None:
            k += 1
        return k


    def deadline(self, deal: int) -> int | None:
        """The event at which the bidding of the next game after ``deal`` ended (None: not yet)."""
        return self.bidding_end(self.next_game(deal))


    def too_late_reason(self, deal: int, end: int) -> str:
        at = self.events[end - 1].at
        when = f" ({at})" if at else ""
        return f"too late: the bidding of deal {self.next_game(deal)} closed at event {end}{when}"


    def _variant(self, number: int, overrides: dict[int, AnyEvent], void: set[int]) -> GameState:
        """The same game through event ``number`` - 1 with other decisions: for comparing."""
        other = GameState(started=self.started, rules=self.rules)
        other.events = self.events[: number - 1]
        other.overrides = overrides
        other.void = void
        other.penalties = self.penalties
        other.refold()
        return other

    def _apply_correction(self, number: int, c: Correction) -> None:
        target_no = c.target
        target = self.content(target_no)
        recorder = target.by or ""
        k = target.deal or 0
        merged = merge(target, c.replacement)
        wrong = self.sheet()
        right_state = self._variant(number, {**self.overrides, target_no: merged}, self.void)
        right = right_state.sheet()
        end = self.deadline(k)
        rule = "4.2.7"
        if end is not None and end < number:
            reason = self.too_late_reason(k, end)
            if c.by != recorder:
                self.effects[number] = Effect(number, False, reason + "; only the recorder may still correct it", "4.2.9")
                return
            if recorder in self.players and exact_result(right)[recorder] > exact_result(wrong)[recorder]:
                self.effects[number] = Effect(
                    number, False,
                    reason + "; after that the recorder may correct his own record only when it does not "
                    "improve his own position", "4.2.9",
                )
                return
            rule = "4.2.9"
        in_hand = all(
            isinstance(self.events[i - 1], Correction) and self.events[i - 1].target == target_no  # type: ignore[union-attr]
            for i in range(target_no + 1, number)
        )
        self.overrides[target_no] = merged
        if in_hand:
            effect = Effect(number, True, "corrected while the record was in hand: no penalty", "4.2.8", free=True)
        elif recorder not in self.players:
            effect = Effect(number, True, f"corrected; the record was {recorder}'s: no penalty", rule)
        elif recorder not in self.warned:
            self.warned.add(recorder)
            effect = Effect(number, True, f"corrected; {recorder}'s first counted error: a warning", rule, warning=True)
        else:
            writes = equal_for_equal(wrong, right, recorder, number, self.current_deal_number)
            if c.penalty == "waived":
                writes = [w for w in writes if w.column != "whists"]
            self.penalties[number] = writes
            shown = "; ".join(describe_write(w) for w in writes) or "the error gave no advantage"
            waived = " (the wronged partner waived the whists)" if c.penalty == "waived" else ""
            effect = Effect(number, True, f"corrected; equal for equal: {shown}{waived}", rule)
        self.effects[number] = effect
        self.refold()

    def _apply_objection(self, number: int, o: Objection) -> None:
        k = o.deal or 0
        end = self.deadline(k)
        if end is not None and end < number:
            self.effects[number] = Effect(number, False, self.too_late_reason(k, end) + ": the record stands", "4.2.10")
            return
        voided = []
        for late_no, effect in list(self.effects.items()):
            late = self.events[late_no - 1]
            if (
                isinstance(late, (Entry, Tricks))
                and effect.effective
                and late.deal == k
                and late_no not in self.void
                and (o.target is None or o.target == late_no)
                and late.by != o.player
            ):
                self.void.add(late_no)
                self.effects[late_no] = Effect(late_no, False, f"forgotten record withdrawn: {o.player} objected at event {number}", "4.2.10")
                voided.append(late_no)
        if voided:
            self.effects[number] = Effect(number, True, f"late record(s) {', '.join(map(str, voided))} withdrawn", "4.2.10")
            self.refold()
        else:
            self.effects[number] = Effect(number, True, f"no late record of deal {k} may be added while {o.player} objects", "4.2.10")


    def _apply_late(self, number: int, event: Entry | Tricks) -> None:
        k = event.deal or 0
        end = self.deadline(k)
        if end is not None and end < number:
            self.void.add(number)
            self.effects[number] = Effect(number, False, self.too_late_reason(k, end) + ": a forgotten record has no effect", "4.2.10")
            return
        for i in range(2, number):
            o = self.events[i - 1]
            if isinstance(o, Objection) and o.deal == k and o.target in (None, number) and o.player != event.by:
                self.void.add(number)
                self.effects[number] = Effect(number, False, f"{o.player} objected at event {i}: the forgotten record is refused", "4.2.10")
                return
        self.effects[number] = Effect(number, True, f"forgotten record of deal {k}, accepted before the deadline", "4.2.10")
        self.refold()

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

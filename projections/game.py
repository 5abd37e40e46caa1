"""The game projection: a fold of a pulka's events into deals and a sheet.

``GameState.apply`` takes the events of one game in order and never judges them
(``ledger.command`` does that before an event is stored), so a log that was valid
when written always replays. What corrections, objections, late records and
withdrawals do is decided here, in event order, by the recording rules
(``projections.recording``), and kept with the state.

Replay is linear, corrections included. The sheet is kept as a checkpoint at the end
of every deal (``sheets[k]``: the sheet after the records before deal 1 and deals
1..k), computed lazily and each deal scored once. An event that changes deal k (its
result, a record of it by hand, a late record) drops the checkpoints from k on. A
correction of a record of deal k is compared against a fork of the game that starts
from deal k's checkpoint and re-folds only the events from deal k on; when it takes
effect, the game adopts that fork. Checkpointed sheets are never changed after they
are stored, so a fork can share them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
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
    Withdrawn,
)
from ledger.vocabulary.rules import RuleSet, resolve
from projections.deal import DealState, first_bidders
from projections.recording import Effect, correction_verdict, merge
from projections.scoring import score_deal
from projections.sheet import UNIT, Sheet, Write


def rules_of(started: GameStarted) -> RuleSet:
    """The rule set a game is played by: the recorded one, else resolved from the preset."""
    if started.rule_set is not None:
        return started.rule_set
    return resolve(started.convention, started.rules)


class GameState:
    """A game folded through its events: deals, records by hand, the sheet, the verdicts."""

    def __init__(self, started: GameStarted, rules: RuleSet) -> None:
        self.started = started
        self.rules = rules
        self.players: tuple[str, ...] = started.players
        self.n = len(started.players)
        self._seats = {p: i for i, p in enumerate(started.players)}
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
        self.sheets: list[Sheet] = []  # checkpoints; see the module docstring
        self.abandoned_at: int | None = None
        # What the recording rules decided [rules.md §8]: merged corrections, records
        # without effect (too late, objected to, withdrawn), penalty writes of
        # corrections, a verdict for each judged record, the players already warned.
        self.overrides: dict[int, AnyEvent] = {}
        self.void: set[int] = set()
        self.penalties: dict[int, list[Write]] = {}
        self.effects: dict[int, Effect] = {}
        self.warned: set[str] = set()
        # While re-folding from deal k: records of deals before k recorded later were
        # folded already and are not folded again.
        self._from_deal = 0
        self._sheet_cache: tuple[int, Sheet] | None = None
        self._last_time: str | None = started.at

    @classmethod
    def start(cls, started: GameStarted) -> GameState:
        return cls(started, rules_of(started))

    # -- facts ---------------------------------------------------------------------

    def seat(self, player: str) -> int:
        return self._seats[player]

    @property
    def current(self) -> DealState | None:
        return self.deals[-1] if self.deals else None

    @property
    def current_deal_number(self) -> int:
        return len(self.deals)

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
            number=len(self.deals) + 1,
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
        """The time of the latest folded event that has one."""
        return self._last_time

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

    def content(self, number: int) -> AnyEvent:
        """Event ``number`` as it stands: with any effective correction merged in."""
        return self.overrides.get(number) or self.events[number - 1]

    # -- the recording rules' deadlines [Code 4.2.9, 4.2.10] ---------------------------

    def is_late(self, event: Entry | Tricks) -> bool:
        """A record of an earlier deal than the one in play: a forgotten record (4.2.10)."""
        return event.deal is not None and event.deal < len(self.deals)

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

    # -- evolve --------------------------------------------------------------------

    def apply(self, event: AnyEvent) -> None:
        """Fold one more stored event in; what a correction, an objection, a late record
        or a withdrawal does is decided by the recording rules."""
        assert self.folded == len(self.events), "apply() on a rewound game"
        self.events.append(event)
        number = self.folded = len(self.events)
        self._sheet_cache = None
        if event.at is not None:
            self._last_time = event.at
        match event:
            case Correction():
                self._apply_correction(number, event)
            case Objection():
                self._apply_objection(number, event)
            case Withdrawn():
                self._apply_withdrawn(number, event)
            case Entry() | Tricks() if self.is_late(event):
                self._apply_late(number, event)
            case _:
                self._fold(number, event)

    def _fold(self, number: int, event: AnyEvent) -> None:
        """Apply an event's content to the deals and the records by hand, judging nothing."""
        match event:
            case Bid():
                deal = self.in_auction
                if deal is None:
                    deal = self._open_deal(number)
                deal.apply_bid(self._seats[event.player], _bid_key(event.bid), number)
                self._changed(deal.number)
            case Contract():
                deal = self.deals[-1]
                deal.apply_contract(self._seats[event.player], event.contract, number)
                self._changed(deal.number)
            case Defence():
                deal = self.deals[-1]
                deal.apply_call(self._seats[event.player], event.call, number)
                self._changed(deal.number)
            case Tricks():
                deal = self.deals[event.deal - 1] if event.deal else self.deals[-1]
                deal.apply_tricks({self._seats[p]: t for p, t in event.tricks.items()}, number)
                self._changed(deal.number)
            case Annulled():
                deal = self.in_auction or self._open_deal(number)
                deal.apply_annulled(number)
                self._changed(deal.number)
            case Entry() | Penalty():
                self._add_item(number, event.deal if event.deal is not None else len(self.deals))
            case Abandoned():
                self.abandoned_at = number
            case PencilDown() | Correction() | Objection() | Withdrawn() | GameStarted() | ForeignEvent():
                pass
            case _:
                assert_never(event)

    def _open_deal(self, number: int) -> DealState:
        deal = self.next_deal()
        self.deals.append(deal)
        self.starts.append(number)
        return deal

    def _add_item(self, number: int, k: int) -> None:
        """A write by hand (entry, penalty, a correction's penalty) at the end of deal k so far."""
        items = self.items
        while len(items) <= k:
            items.append([])
        items[k].append(number)
        if k == len(self.deals) and len(self.sheets) == k + 1:
            # The last checkpoint is of this deal, settled: the new write comes after
            # everything on it, so it is written there instead of scoring the deal again.
            self._apply_item(self.sheets[k], number, k)
            self._sheet_cache = None
        else:
            self._changed(k)

    def _changed(self, k: int) -> None:
        """Deal k (0: the records before the first deal) changed: drop its checkpoint and later ones."""
        self._sheet_cache = None
        if len(self.sheets) > k:
            del self.sheets[k:]

    # -- re-folding from a deal on --------------------------------------------------------

    def rewind(self, deal: int) -> None:
        """Fold the game back to just before deal ``deal`` began (0: before any record):
        the deals from ``deal`` on and their checkpoints are dropped; ``replay_recorded``
        then folds the stored events again, one by one, as the decisions taken say."""
        begin = self.starts[deal - 1] if 1 <= deal <= len(self.starts) else (2 if deal <= 0 else self.folded + 1)
        kept = max(0, deal - 1)
        del self.deals[kept:]
        del self.starts[kept:]
        del self.items[max(1, deal):]
        if deal <= 0:
            self.items[0] = []
        del self.sheets[kept + 1 if deal > 0 else 0 :]
        if self.abandoned_at is not None and self.abandoned_at >= begin:
            self.abandoned_at = None
        self.folded = begin - 1
        self._from_deal = max(0, deal)
        self._sheet_cache = None
        self._last_time = next(
            (self.events[i].at for i in range(self.folded - 1, -1, -1) if self.events[i].at is not None), None
        )

    def replay_recorded(self, number: int) -> None:
        """Fold stored event ``number``, the next one, as the decisions already taken say."""
        assert number == self.folded + 1, (number, self.folded)
        event = self.events[number - 1]
        self.folded = number
        self._sheet_cache = None
        if event.at is not None:
            self._last_time = event.at
        if number in self.void:
            return
        if isinstance(event, Correction):
            if self.penalties.get(number):
                self._add_item(number, event.deal or 0)
            return
        if event.deal is not None and event.deal < self._from_deal:
            return  # a late record of a deal before the rewind, folded there already
        self._fold(number, self.content(number))

    def refold(self, deal: int, through: int) -> None:
        """Rewind to deal ``deal`` and fold the stored events again through ``through``."""
        self.rewind(deal)
        for number in range(self.folded + 1, through + 1):
            self.replay_recorded(number)
        self._from_deal = 0

    @contextmanager
    def rewound(self, deal: int, overrides: dict[int, AnyEvent]) -> Iterator[GameState]:
        """This game rewound to deal ``deal`` with ``overrides`` merged in, for the caller
        to fold forward again with ``replay_recorded``; afterwards it is as it was."""
        through = self.folded
        saved = {n: self.overrides.get(n) for n in overrides}
        self.overrides.update(overrides)
        try:
            self.rewind(deal)
            yield self
        finally:
            for n, old in saved.items():
                if old is None:
                    self.overrides.pop(n, None)
                else:
                    self.overrides[n] = old
            self.refold(deal, through)

    # -- the recording rules [Code 4.2.7-4.2.10] ------------------------------------------

    def _apply_correction(self, number: int, c: Correction) -> None:
        target_no = c.target
        target = self.content(target_no)
        recorder = target.by or ""
        k = target.deal or 0
        previous = self.overrides.get(target_no)
        merged = merge(target, c.replacement)
        compared = False

        def compare() -> tuple[Sheet, Sheet]:
            """The sheet as recorded, then as corrected (the correction now merged in)."""
            nonlocal compared
            wrong = self.sheet()
            self._override(target_no, merged)
            compared = True
            return wrong, self.sheet()

        end = self.deadline(k)
        effect, writes = correction_verdict(
            number=number,
            recorder=recorder,
            asked_by=c.by,
            players=self.players,
            too_late=self.too_late_reason(k, end) if end is not None and end < number else None,
            in_hand=all(
                isinstance(e, Correction) and e.target == target_no for e in self.events[target_no : number - 1]
            ),
            warned=recorder in self.warned,
            compare=compare,
            deal=len(self.deals),
            waived=c.penalty == "waived",
        )
        self.effects[number] = effect
        if effect.effective and not compared:
            self._override(target_no, merged)
        elif not effect.effective and compared:
            self._override(target_no, previous)
        if effect.warning:
            self.warned.add(recorder)
        if writes:
            self.penalties[number] = writes
            self._add_item(number, c.deal or 0)

    def _override(self, number: int, content: AnyEvent | None) -> None:
        """Event ``number`` now stands as ``content`` (None: as recorded); re-fold only what
        that can change. A record by hand changes only the sheet from its deal on; tricks
        only their deal's result; a bid, a contract or a call the deal's course, which is
        folded again from the deal's start."""
        if content is None:
            self.overrides.pop(number, None)
        else:
            self.overrides[number] = content
        self._sheet_cache = None
        if number in self.void:
            return
        event = self.content(number)
        match event:
            case Entry() | Penalty():
                self._changed(event.deal if event.deal is not None else 0)
            case Tricks():
                deal = self.deals[(event.deal or len(self.deals)) - 1]
                assert deal.tricks_event == number, (deal.number, deal.tricks_event, number)
                deal.apply_tricks({self._seats[p]: t for p, t in event.tricks.items()}, number)
                self._changed(deal.number)
            case Annulled():
                pass  # only its reason can change
            case _:
                through = self.folded
                self.refold(event.deal or 0, through)
                self.folded = through

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
                self.effects[late_no] = Effect(
                    late_no, False, f"forgotten record withdrawn: {o.player} objected at event {number}", "4.2.10"
                )
                voided.append(late_no)
        if voided:
            self.effects[number] = Effect(number, True, f"late record(s) {', '.join(map(str, voided))} withdrawn", "4.2.10")
            self.refold(k, number)
        else:
            self.effects[number] = Effect(
                number, True, f"no late record of deal {k} may be added while {o.player} objects", "4.2.10"
            )

    def _apply_late(self, number: int, event: Entry | Tricks) -> None:
        k = event.deal or 0
        end = self.deadline(k)
        if end is not None and end < number:
            self.void.add(number)
            self.effects[number] = Effect(
                number, False, self.too_late_reason(k, end) + ": a forgotten record has no effect", "4.2.10"
            )
            return
        for i in range(2, number):
            o = self.events[i - 1]
            if isinstance(o, Objection) and o.deal == k and o.target in (None, number) and o.player != event.by:
                self.void.add(number)
                self.effects[number] = Effect(
                    number, False, f"{o.player} objected at event {i}: the forgotten record is refused", "4.2.10"
                )
                return
        self.effects[number] = Effect(number, True, f"forgotten record of deal {k}, accepted before the deadline", "4.2.10")
        self._fold(number, event)

    def _apply_withdrawn(self, number: int, w: Withdrawn) -> None:
        first = self.content(w.first)
        k = first.deal if first.deal is not None else len(self.deals)
        for i in range(w.first, number):
            self.void.add(i)
            self.effects[i] = Effect(i, False, f"withdrawn at event {number} while in hand: no penalty", "4.2.8", free=True)
        shown = f"event {w.first}" if w.first == number - 1 else f"events {w.first}-{number - 1}"
        self.effects[number] = Effect(number, True, f"{shown} withdrawn while in hand: no penalty", "4.2.8", free=True)
        self.refold(k, number)

    # -- scoring ---------------------------------------------------------------------------

    def _settled_count(self) -> int:
        """How many deals can be checkpointed: all but a last one that has no result yet."""
        if not self.deals:
            return 0
        last = self.deals[-1]
        return len(self.deals) if last.annulled_at is not None or last.resolved else len(self.deals) - 1

    def _checkpoint(self, k: int) -> Sheet:
        """The sheet after deal k (0: after the records before deal 1), computed once."""
        sheets = self.sheets
        if not sheets:
            first = Sheet(self.players, self.started.pulya, self.rules)
            for number in self.items[0]:
                self._apply_item(first, number, 0)
            sheets.append(first)
        while len(sheets) <= k:
            deal = self.deals[len(sheets) - 1]
            nxt = sheets[-1].copy()
            self._apply_deal(nxt, deal)
            sheets.append(nxt)
        return sheets[k]

    def _apply_deal(self, sheet: Sheet, deal: DealState) -> None:
        """The deal's result at the event that resolved it, its records by hand at theirs."""
        resolved_at = deal.resolved_at if deal.resolved else None
        scored = False
        items = self.items[deal.number] if deal.number < len(self.items) else ()
        for number in items:
            if resolved_at is not None and not scored and number > resolved_at:
                score_deal(sheet, deal)
                scored = True
            self._apply_item(sheet, number, deal.number)
        if resolved_at is not None and not scored:
            score_deal(sheet, deal)

    def _apply_item(self, sheet: Sheet, number: int, deal: int) -> None:
        event = self.content(number)
        if isinstance(event, Correction):
            for w in self.penalties.get(number, ()):
                sheet.add(w)
            return
        assert isinstance(event, (Entry, Penalty))
        why = "entry" if isinstance(event, Entry) else f"penalty: {event.reason}"
        sheet.write(number, deal, event.player, event.column, event.amount * UNIT, event.on, why)

    # -- read ----------------------------------------------------------------------

    def sheet(self) -> Sheet:
        """The sheet now: the checkpoints, and the deal in progress on a copy. Read it
        before the next event is applied, and never write on it."""
        cache = self._sheet_cache
        if cache is not None and cache[0] == self.folded:
            return cache[1]
        settled = self._settled_count()
        sheet = self._checkpoint(settled)
        if settled < len(self.deals):
            sheet = sheet.copy()
            self._apply_deal(sheet, self.deals[-1])
        self._sheet_cache = (self.folded, sheet)
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

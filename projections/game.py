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
from copy import copy
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, assert_never

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
from projections.deal import DealState, first_bidders, seat_index
from projections.recording import Effect, correction_verdict, merge
from projections.scoring import deal_outcome, score_compensation, score_deal
from projections.sheet import UNIT, Sheet, Write


def rules_of(started: GameStarted) -> RuleSet:
    """The rule set a game is played by: the recorded one, else resolved from the preset."""
    if started.rule_set is not None:
        return started.rule_set
    return resolve(started.convention, started.rules)


@dataclass(frozen=True)
class Seats:
    """Who sits where [Code 3.1.2, 5.4.7, 5.4.18]: the seats at the table, clockwise (each
    seat is named by the player who first held it, and keeps its columns on the sheet);
    everyone who ever held a seat, in the sheet's order; who holds each seat now; who
    deals next when a newcomer has just joined; the seat of the player who left, while
    his place is empty, with the seating he left (a newcomer who replaces him sits
    there); and the last event that changed them."""

    seating: tuple[str, ...]
    everyone: tuple[str, ...]
    holders: tuple[tuple[str, str], ...]  # (seat, person)
    dealer_next: str | None = None
    changed_at: int = 0
    vacated: str | None = None
    vacated_from: tuple[str, ...] = ()

    @cached_property
    def _held(self) -> dict[str, str]:
        return dict(self.holders)

    def holder(self, seat: str) -> str:
        return self._held.get(seat, seat)

    @cached_property
    def persons(self) -> tuple[str, ...]:
        """The people at the table now, clockwise."""
        held = self._held
        return tuple(held.get(s, s) for s in self.seating)

    @cached_property
    def seat_index(self) -> dict[str, int]:
        """The index in ``seating`` of each seat's name and of each person holding one:
        what every deal dealt at this table looks seats up in (shared, never changed)."""
        return seat_index(self.seating, self.persons)


class GameState:
    """A game folded through its events: deals, records by hand, the sheet, the verdicts."""

    def __init__(self, started: GameStarted, rules: RuleSet) -> None:
        self.started = started
        self.rules = rules
        # The table; each deal keeps the seats it began with (``opened_with``), so that
        # re-folding from a deal restores them. Every person is mapped to the seat he
        # holds or held (``person_seat``), from the event that brought him (``arrived``:
        # a join or a substitution) on; re-folding from before that event forgets him
        # until it is folded again, so that a correction judges it afresh [Code 3.1.2].
        self.seats = Seats(started.players, started.players, ())
        self.person_seat: dict[str, str] = {p: p for p in started.players}
        self.arrived: dict[str, int] = {}
        self.opened_with: list[Seats] = []
        self.table_after: dict[int, tuple[str, ...]] = {}  # a change of the table -> the seating after
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
        # The fields of the next deal (``_deal_fields``): as of which event, for which dealer.
        self._next: tuple[int, str | None, dict[str, Any]] | None = None

    @classmethod
    def start(cls, started: GameStarted) -> GameState:
        return cls(started, rules_of(started))

    # -- facts ---------------------------------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        """The people at the table now, clockwise."""
        return self.seats.persons

    @property
    def n(self) -> int:
        return len(self.seats.seating)

    def seat_key(self, person: str) -> str | None:
        """The seat (its name on the sheet) a person holds or held; None for a stranger."""
        return self.person_seat.get(person)

    def seat(self, person: str) -> int:
        """The seat of a person at the table now, as an index of the seating."""
        key = self.person_seat[person]
        return self.seats.seating.index(key)

    def deal_seat(self, deal: DealState, person: str) -> int:
        """The seat, in ``deal``, of a person who held one there."""
        seat = deal.seat_index.get(person)
        if seat is None:
            key = self.person_seat.get(person)
            seat = deal.seat_of(key) if key is not None else None
            if seat is None:
                raise KeyError(person)
        return seat

    @property
    def current(self) -> DealState | None:
        return self.deals[-1] if self.deals else None

    @property
    def current_deal_number(self) -> int:
        return len(self.deals)

    def first_dealer(self) -> str:
        fd = self.started.first_dealer
        return fd if fd is not None else self.started.players[-1]

    def forced_next(self) -> bool:
        """The next deal is one of the forced raspasy that open the pulka [Code 3.7.9]."""
        rounds = self.rules.opening_raspasy_rounds
        if not rounds:
            return False
        # Counted only as far as the forced ones go: linear over a game, not quadratic.
        forced = rounds * len(self.started.players)
        played = 0
        for d in self.deals:
            if d.annulled_at is None:
                played += 1
                if played >= forced:
                    return False
        return True

    def next_deal(self, dealer: str | None = None) -> DealState:
        """The deal that the next bid would open (not yet part of the state); ``dealer``:
        who actually dealt it, out of turn [Code 3.2.14]."""
        return DealState(**self._deal_fields(dealer, self.folded))

    def _deal_fields(self, dealer: str | None, last: int) -> dict[str, Any]:
        """The fields of the deal the next bid opens, the events through ``last`` folded:
        worked out once for the judge, who looks at the deal a bid would open, and for
        the fold that opens it (``_next``; dropped when the game is rewound)."""
        known = self._next
        if known is not None and known[0] == last and known[1] == dealer:
            return known[2]
        prev = self.current
        seats = self.seats
        seating = seats.seating
        rules = self.rules
        due = self.due_dealer()
        dealt = due if dealer is None else dealer
        errors = 0
        if prev is not None and prev.annulled_at is not None and not prev.passes_on:
            errors = prev.dealer_errors_before + (1 if prev.dealer_error else 0)
            if prev.names[prev.dealer] != dealt:
                errors = 0
        min_level, before = self._run_after(prev)
        if prev is not None and prev.annulled_at is not None:
            exit_dark = prev.exit_dark
        else:
            exit_dark = prev is not None and prev.raspasy and min_level > rules.raspasy_exit and bool(
                prev.dark_doublings
            )
        at = seating.index(dealt)
        fields = {
            "number": len(self.deals) + 1,
            "dealer": at,
            "names": seating,
            "persons": seats.persons,
            "bidders": first_bidders(at, len(seating)),
            "min_level": min_level,
            "raspasy_before": before,
            "rules": rules,
            "forced": self.forced_next(),
            "out_of_turn": dealt != due,
            "dealer_errors_before": errors,
            "exit_dark": exit_dark,
            "index": seats.seat_index,
        }
        self._next = (last, dealer, fields)
        return fields

    def due_dealer(self) -> str:
        """Whose turn it is to deal: the player to the left of whoever dealt last [Code
        3.2.2, 3.2.14], or the same dealer again after an annulment [3.2.13] (unless it was
        his second error [3.2.17]) or, where the rules say so, after a raspasy [3.7.7]; a
        newcomer deals first [3.1.2]."""
        prev = self.current
        seats = self.seats
        if seats.dealer_next is not None:
            return seats.dealer_next
        if prev is None:
            return _seated_from(self.first_dealer(), self.started.players, seats.seating, 0)
        last = prev.names[prev.dealer]
        again = (prev.annulled_at is not None and not prev.passes_on) or (
            prev.raspasy and self.rules.raspasy_same_dealer and not prev.forced
        )
        # Round the table as it sits now (a newcomer in the place of one who left deals
        # in his turn); from a dealer who has left, round the table he dealt at.
        order = seats.seating if last in seats.seating else prev.names
        return _seated_from(last, order, seats.seating, 0 if again else 1)

    def _run_after(self, prev: DealState | None) -> tuple[int, int]:
        """The deal after ``prev``: its minimum contract and where the raspasy progression
        stands [Code 3.7.4, 3.7.8; 3.3.19 a and 3.7.7 for the exit after dark passes]."""
        rules = self.rules
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

    def bidding_end(self, deal_number: int) -> int | None:
        """The event number at which the bidding of that deal ended, if it has."""
        if 1 <= deal_number <= len(self.deals):
            return self.deals[deal_number - 1].bidding_closed_at
        return None

    def content(self, number: int) -> AnyEvent:
        """Event ``number`` as it stands: with any effective correction merged in."""
        return self.overrides.get(number) or self.events[number - 1]

    # -- the recording rules' deadlines [Code 4.2.9, 4.2.10] ---------------------------

    def is_forgotten(self, number: int) -> bool:
        """Event ``number`` was judged as a forgotten record [Code 4.2.10]."""
        effect = self.effects.get(number)
        return effect is not None and effect.rule == "4.2.10" and isinstance(self.events[number - 1], (Entry, Tricks))

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
        events = self.events
        assert self.folded == len(events), "apply() on a rewound game"
        events.append(event)
        number = self.folded = self.folded + 1
        self._sheet_cache = None
        if event.at is not None:
            self._last_time = event.at
        if type(event) in _FOLDED:
            self._fold(number, event)
            return
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
                deal = self.in_auction or self._open_deal(number)
                deal.apply_bid(self.deal_seat(deal, event.player), _bid_key(event.bid), number, event.dark)
                self._changed(deal.number)
            case Contract():
                deal = self.deals[-1]
                shared = self.deal_seat(deal, event.shared_with) if event.shared_with is not None else None
                deal.apply_contract(self.deal_seat(deal, event.player), event.contract, number, shared,
                                    recall=event.evident_correction)
                self._changed(deal.number)
            case Defence():
                deal = self.deals[-1]
                hand = self.deal_seat(deal, event.hand) if event.hand is not None else None
                deal.apply_call(self.deal_seat(deal, event.player), event.call, number, hand)
                self._changed(deal.number)
            case Tricks():
                deal = self.deals[event.deal - 1] if event.deal else self.deals[-1]
                deal.apply_tricks(self._by_seat(deal, event.tricks), number, self._penalty_seats(deal, event))
                self._result_changed(deal, number)
            case Ruling() if event.rule in _PLAYED_ON:
                self._fold_played_on(number, event)
            case Ruling():
                deal = self.deals[-1]
                tricks = self._ruled_tricks(deal, event)
                offender = self.deal_seat(deal, event.offender) if event.offender is not None else None
                whists = tuple((self.deal_seat(deal, p), a) for p, a in (event.whists or {}).items())
                deal.apply_ruling(event, number, tricks, offender, whists)
                self._changed(deal.number)
            case Annulled():
                # The deal in progress, its bidding closed too (a misdeal found before the
                # contract, as the judge allows), else a new one annulled before a bid.
                deal = self.deal_in_progress() or self._open_deal(number)
                deal.apply_annulled(number, event.dealer_error)
                self._changed(deal.number)
            case Dealt():
                self._open_deal(number, self.person_seat[event.player])
            case Entry() | Penalty():
                self._add_item(number, event.deal if event.deal is not None else len(self.deals))
            case Talon():
                if event.kind == "peek":
                    deal = self.in_auction or self._open_deal(number)
                    if deal.phase == "auction":
                        deal.peeked.add(self.deal_seat(deal, event.player))
                self._add_item(number, len(self.deals))
            case Joined():
                self._join(number, event)
            case Left():
                seats = self.seats
                key = self.person_seat[event.player]
                seating = tuple(s for s in seats.seating if s != key)
                nxt = seats.dealer_next if seats.dealer_next != key else None
                self.seats = replace(seats, seating=seating, dealer_next=nxt, changed_at=number, vacated=key,
                                     vacated_from=seats.seating)
                self.table_after[number] = seating
                self._add_item(number, len(self.deals))
            case Substituted():
                seats = self.seats
                key = self.person_seat[event.player]
                self._arrive(event.substitute, key, number)
                holders = tuple((s, p) for s, p in seats.holders if s != key) + ((key, event.substitute),)
                self.seats = replace(seats, holders=holders, changed_at=number)
            case Abandoned():
                self.abandoned_at = number
            case PencilDown() | Correction() | Objection() | Withdrawn() | GameStarted() | ForeignEvent():
                pass
            case _:
                assert_never(event)

    def _join(self, number: int, event: Joined) -> None:
        """A newcomer who replaces the player who left sits in his place, and the deal goes
        round as before; any other sits to the left of the one who dealt last and deals
        next [Code 3.1.2]. Either way the place left empty is taken."""
        seats = self.seats
        self._arrive(event.player, event.player, number)
        if event.replaces is not None and seats.vacated is not None:
            empty, seated = seats.vacated, seats.seating
            seating = tuple(event.player if s == empty else s for s in seats.vacated_from
                            if s == empty or s in seated)
            dealer_next = seats.dealer_next
        else:
            last = self.current
            after = last.names[last.dealer] if last is not None else seats.seating[-1]
            i = seats.seating.index(after) if after in seats.seating else len(seats.seating) - 1
            seating = seats.seating[: i + 1] + (event.player,) + seats.seating[i + 1 :]
            dealer_next = event.player
        self.seats = replace(
            seats, seating=seating, everyone=seats.everyone + (event.player,), dealer_next=dealer_next,
            changed_at=number, vacated=None, vacated_from=(),
        )
        self.table_after[number] = seating
        self._add_item(number, len(self.deals))

    def _arrive(self, person: str, seat: str, number: int) -> None:
        """``person`` holds ``seat`` from event ``number`` on (a substitute coming back to
        the seat he held keeps his first arrival)."""
        if person not in self.person_seat:
            self.person_seat[person] = seat
            self.arrived[person] = number

    def _by_seat(self, deal: DealState, counts: dict[str, int]) -> dict[int, int]:
        index = deal.seat_index
        if all(p in index for p in counts):
            return {index[p]: t for p, t in counts.items()}
        return {self.deal_seat(deal, p): t for p, t in counts.items()}

    def _penalty_seats(self, deal: DealState, event: Tricks) -> tuple[tuple[int, int, str], ...]:
        if not event.penalty_tricks:
            return ()
        return tuple((self.deal_seat(deal, pt.player), pt.tricks, pt.rule) for pt in event.penalty_tricks)

    def _fold_played_on(self, number: int, event: Ruling) -> None:
        """A ruling after which the deal is still played: the talon given to the one
        player still bidding [Code 3.3.16.2], or how a deal played by one defender's plan
        is written [Code 3.8.5.1]."""
        deal = self.deals[-1]
        if event.rule == "3.3.16.2":
            assert event.offender is not None
            deal.apply_exposed_talon(self.deal_seat(deal, event.offender), number)
        else:
            assert event.planner is not None
            whists = tuple((self.deal_seat(deal, p), a) for p, a in (event.whists or {}).items())
            other = self._by_seat(deal, event.tricks) if event.tricks is not None else None
            compensated = tuple(self.deal_seat(deal, p) for p in event.compensated)
            deal.apply_plan_ruling(event, number, self.deal_seat(deal, event.planner), whists, other, compensated)
        self._changed(deal.number)
        if event.rule == "3.8.5.1" and event.whists:
            self._add_item(number, deal.number)  # agreed compensation, whatever the result [3.8.5.1 a]

    def _ruled_tricks(self, deal: DealState, ruling: Ruling) -> dict[int, int] | None:
        """The result a ruling gives in tricks: an agreed result [Code 3.9.22]; a
        concession, the declarer without all and the defenders 5 and 5 unless the ruling
        splits them [Code 3.5.4]."""
        if ruling.rule == "3.9.22" and ruling.tricks is not None:
            return self._by_seat(deal, ruling.tricks)
        if ruling.rule == "3.5.4" and deal.declarer is not None:
            if ruling.tricks is not None:
                tricks = self._by_seat(deal, ruling.tricks)
            else:
                tricks = {s: 5 for s in deal.playing if s != deal.declarer}
            tricks[deal.declarer] = 0
            return tricks
        return None

    def _result_changed(self, deal: DealState, number: int) -> None:
        """A deal's tricks were recorded or changed. Where a result decides how the next
        deal begins (``results_shape_runs``), the deals after it are folded again."""
        if self.results_shape_runs and deal.number < len(self.deals):
            self.refold(deal.number + 1, number)
        self._changed(deal.number)

    def _open_deal(self, number: int, dealer: str | None = None) -> DealState:
        deal = DealState(**self._deal_fields(dealer, number - 1))
        self.deals.append(deal)
        self.starts.append(number)
        self.opened_with.append(self.seats)
        if self.seats.dealer_next is not None:
            self.seats = replace(self.seats, dealer_next=None)
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
        if 1 <= deal <= len(self.opened_with):
            self.seats = self.opened_with[deal - 1]
        elif deal <= 0:
            self.seats = Seats(self.started.players, self.started.players, ())
        del self.deals[kept:]
        del self.starts[kept:]
        del self.opened_with[kept:]
        del self.items[max(1, deal):]
        if deal <= 0:
            self.items[0] = []
        del self.sheets[kept + 1 if deal > 0 else 0 :]
        if self.abandoned_at is not None and self.abandoned_at >= begin:
            self.abandoned_at = None
        for person in [p for p, at in self.arrived.items() if at >= begin]:
            del self.person_seat[person], self.arrived[person]
        self.folded = begin - 1
        self._from_deal = max(0, deal)
        self._sheet_cache = None
        self._next = None
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
        outer = self._from_deal
        self.rewind(deal)
        for number in range(self.folded + 1, through + 1):
            self.replay_recorded(number)
        self._from_deal = outer

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
        # A record by a player (or by whoever holds his seat) is charged to his seat;
        # an arbiter's or a scorer's record is corrected free of penalty [Code 4.2.7].
        recorder = self.seat_key(target.by or "") or target.by or ""
        asked_by = self.seat_key(c.by) if c.by is not None and self.seat_key(c.by) else c.by
        k = target.deal or 0
        previous = self.overrides.get(target_no)
        merged = merge(target, c.replacement)
        sheets: tuple[Sheet, Sheet] | None = None

        def compare() -> tuple[Sheet, Sheet]:
            """The sheet as recorded, then as corrected (the correction now merged in); the
            verdict may ask twice (a late correction by its recorder, then equal for equal),
            and the second answer is the first, not the corrected sheet twice."""
            nonlocal sheets
            if sheets is None:
                wrong = self.sheet()
                self._override(target_no, merged)
                sheets = (wrong, self.sheet())
            return sheets

        end = self.deadline(k)
        effect, writes = correction_verdict(
            number=number,
            recorder=recorder,
            asked_by=asked_by,
            players=self.seats.everyone,
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
        compared = sheets is not None
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
                deal.apply_tricks(self._by_seat(deal, event.tricks), number, self._penalty_seats(deal, event))
                through = self.folded
                self._result_changed(deal, through)
                self.folded = through
            case Annulled():
                pass  # only its reason can change
            case Talon():
                self._changed(event.deal if event.deal is not None else 0)
            case _:
                through = self.folded
                self.refold(event.deal or 0, through)
                self.folded = through

    def _apply_objection(self, number: int, o: Objection) -> None:
        """A partner refuses the forgotten records of deal k (or the one named): those
        accepted are withdrawn until the deadline [Code 4.2.10]. The verdict says the
        same as the records': what stands stands, what had no effect had none already."""
        k = o.deal or 0
        end = self.deadline(k)
        late = self._objected_to(number, o)
        if o.target is not None and o.target not in late:
            self.effects[number] = Effect(number, False, f"event {o.target} was recorded in time, during deal {k}: "
                                          "an objection refuses only a forgotten record", "4.2.10")
            return
        standing = [n for n in late if n not in self.void]
        ignored = [n for n in late if n in self.void]
        if o.target is not None and ignored:
            why = self.effects.get(o.target)
            self.effects[number] = Effect(number, False, f"nothing to refuse: event {o.target} has no effect already"
                                          + (f" ({why.reason})" if why is not None else ""), "4.2.10")
            return
        if end is not None and end < number:
            parts = [f"late record(s) {_numbers(standing)} stand" if standing else "",
                     f"event(s) {_numbers(ignored)} had no effect already" if ignored else ""]
            said = "; ".join(p for p in parts if p) or f"there is no late record of deal {k} to refuse"
            self.effects[number] = Effect(number, False, f"{self.too_late_reason(k, end)}: {said}", "4.2.10")
            return
        for late_no in standing:
            self.void.add(late_no)
            self.effects[late_no] = Effect(
                late_no, False, f"forgotten record withdrawn: {o.player} objected at event {number}", "4.2.10"
            )
        if standing:
            self.effects[number] = Effect(number, True, f"late record(s) {_numbers(standing)} withdrawn", "4.2.10")
            self.refold(k, number)
        else:
            self.effects[number] = Effect(
                number, True, f"no late record of deal {k} may be added while {o.player} objects", "4.2.10"
            )

    def _objected_to(self, number: int, o: Objection) -> list[int]:
        """The forgotten records of the objection's deal (those recorded once the next deal
        had begun) by others than the objector, or the one it names, in event order."""
        k = o.deal or 0
        begun = self.starts[k] if 0 <= k < len(self.starts) else number
        events = self.events
        return [
            n for n in range(begun + 1, number)
            if (o.target is None or o.target == n) and isinstance(late := events[n - 1], (Entry, Tricks))
            and late.deal == k and late.by != o.player
        ]

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
            first = Sheet(self.started.players, self.started.pulya, self.rules)
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
        resolved_at = deal.resolved_at if deal.resolved else deal.annulled_at if deal.passes_on else None
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
        match event:
            case Correction():
                for w in self.penalties.get(number, ()):
                    sheet.add(w)
            case Entry():
                on = self._key(event.on) if event.on is not None else None
                sheet.write(number, deal, self._key(event.player), event.column, event.amount * UNIT, on, "entry")
            case Penalty():
                self._apply_penalty(sheet, number, deal, event)
            case Talon():
                self._apply_talon(sheet, number, deal, event)
            case Joined():
                self._seat_newcomer(sheet, number, deal, event)
            case Left():
                sheet.seated = self.table_after[number]
            case Ruling():
                score_compensation(sheet, self.deals[deal - 1])
            case _:
                raise AssertionError(f"event {number} is not a record by hand")

    def _key(self, person: str) -> str:
        return self.person_seat.get(person, person)

    def _apply_penalty(self, sheet: Sheet, number: int, deal: int, event: Penalty) -> None:
        """An arbiter's penalty never benefits the penalised player [Code 4.2.16]: in
        whists the wronged player writes it on him (a log older than ``wronged`` names the
        penalised player in ``on`` and the writer in ``player``)."""
        why = f"penalty: {event.reason}"
        if event.column == "whists" and event.wronged is not None:
            sheet.write(number, deal, self._key(event.wronged), "whists", event.amount * UNIT,
                        self._key(event.player), why)
            return
        on = self._key(event.on) if event.on is not None else None
        sheet.write(number, deal, self._key(event.player), event.column, event.amount * UNIT, on, why)

    def _apply_talon(self, sheet: Sheet, number: int, k: int, event: Talon) -> None:
        rules = self.rules
        deal = self.deals[k - 1] if k >= 1 else None
        player = self._key(event.player)
        if event.kind == "peek":
            sheet.write(number, k, player, "gora", rules.talon_peek_gora * UNIT,
                        why="looked at the talon before it was bought [Code 3.2.21]")
        elif deal is not None and event.kind == "refused":
            sheet.write(number, k, deal.names[deal.dealer], "gora", rules.talon_refusal_gora * UNIT,
                        why=f"{event.player} refused the talon: the dealer pays the agreed points [Code 3.4.10]")
        elif deal is not None and deal.contract is not None and deal.declarer is not None:
            price = deal.contract.price * rules.gora_whist_multiplier * UNIT
            sheet.write(number, k, deal.names[deal.dealer], "whists", event.tricks * price,
                        on=deal.names[deal.declarer],
                        why=f"premium for {event.tricks} trick(s) in the talon [Code 3.4.11]")

    def _seat_newcomer(self, sheet: Sheet, number: int, k: int, event: Joined) -> None:
        """The newcomer writes the mean pulya and gora of the players, rounded to whole
        points against him: the pulya down, the gora up [Code 3.1.2]."""
        seated = sheet.seated
        n = len(seated)
        pulya = sum(sheet.pulya[p] for p in seated)
        gora = sum(sheet.gora[p] for p in seated)
        sheet.seat(event.player, self.table_after[number])
        point = UNIT * n
        sheet.write(number, k, event.player, "pulya", (pulya // point) * UNIT,
                    why="newcomer: the mean pulya, rounded down [Code 3.1.2]")
        sheet.write(number, k, event.player, "gora", -((-gora) // point) * UNIT,
                    why="newcomer: the mean gora, rounded up [Code 3.1.2]")

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
        """What record ``number``, which has no effect (``void``: too late, objected to,
        withdrawn), would have written: where ``explain``
        names it. Only records that write numbers: entries, penalties and the talon's (as
        written), and the forgotten tricks of a deal (the deal scored on the sheet before
        it, as if they were its result; tricks withdrawn with their deal belong to no deal
        that stands)."""
        event = self.content(number)
        k = event.deal or 0
        forgotten_tricks = isinstance(event, Tricks) and 1 <= k <= len(self.deals) and self.is_forgotten(number)
        if not (isinstance(event, (Entry, Penalty, Talon)) or forgotten_tricks):
            return []
        if isinstance(event, Tricks):
            # The deal scored on the sheet as it stood before it (help follows the pulyas).
            before = self._checkpoint(k - 1)
            scratch = before.copy()
            deal = copy(self.deals[k - 1])
            deal.apply_tricks(self._by_seat(deal, event.tricks), number, self._penalty_seats(deal, event))
            score_deal(scratch, deal)
            return _moved(before, scratch, number, k)
        sheet = self.sheet()
        scratch = Sheet(sheet.players, self.started.pulya, self.rules)
        scratch.seated = sheet.seated
        self._apply_item(scratch, number, k)
        return scratch.writes

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


def _moved(before: Sheet, after: Sheet, number: int, k: int) -> list[Write]:
    """What changed from one sheet to the other, as writes of event ``number`` in deal k."""
    out = []
    for p in after.players:
        if after.pulya[p] != before.pulya.get(p, 0):
            out.append(Write(number, k, p, "pulya", after.pulya[p] - before.pulya.get(p, 0)))
        if after.gora[p] != before.gora.get(p, 0):
            out.append(Write(number, k, p, "gora", after.gora[p] - before.gora.get(p, 0)))
        for q, v in after.whists[p].items():
            moved = v - before.whists.get(p, {}).get(q, 0)
            if moved:
                out.append(Write(number, k, p, "whists", moved, q))
    return out


def _numbers(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers))


def _seated_from(seat: str, order: tuple[str, ...], seating: tuple[str, ...], step: int) -> str:
    """``seat`` itself (``step`` 0) or the seat to its left (1) in the clockwise ``order``,
    passing over seats no longer at the table."""
    i = order.index(seat)
    for k in range(step, step + len(order)):
        candidate = order[(i + k) % len(order)]
        if candidate in seating:
            return candidate
    return seating[0]


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

"""A second scorer of pulka logs, written in the tests from the Code and the docs alone.

The property tests generate legal pulkas by playing them through the real command side
(``strategies.legal_logs``) and check invariants; they could not tell a wrong number
from a right one. This module scores the same logs again without calling or copying the
ledger's folds and arithmetic (``projections``): from the events as stored, with the
``by`` and ``deal`` the judge filled in, it works out the sheet (pulya, gora and the
whists of every pair) and the settlement, exact and rounded; ``scorer_agreement``
compares the two. ``test_scorer_agrees`` holds this scorer to the golden fixtures'
numbers, which were worked out by hand.

Sources, cited as in the code: the Code of Preferans [Code x.y], ``docs/rules.md``
(rules.md §N) and ``docs/conventions.md``: the rule sets' parameters and the choices the
ledger makes where the Code is silent, which this scorer follows where they are
documented; and the docstring of ``projections/settlement.py`` for whists in fractions.

It also checks the judge's bookkeeping that it relies on: the deal the judge gave every
event is the deal counted here, and every deal's first bid is made by the forehand of the
dealer worked out here [Code 3.1.2, 3.2.2, 3.2.13, 3.2.14, 3.2.17, 3.7.7, 3.7.9].

Whenever the recording rules need a sheet (a correction's equal for equal, a late
correction that must not improve its recorder's position) the whole sheet is worked out
again from the log as it counted then: plain and slow, and enough for generated logs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import ceil, floor, gcd

import msgspec

from ledger.vocabulary.bids import LADDER, MISERE, OBLIGATION
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


HELP_WHISTS = 10  # whists per helped point, per gora point a pulya point is worth [Code 4.2.3]
MISERE_PRICE = 10  # [Code 2.2.2]

Write = tuple[str, str, Fraction, "str | None"]  # whose column, which, how much, on whom


# -- the sheet ----------------------------------------------------------------------------------


@dataclass
class Paper:
    """The sheet as it is kept on paper: three columns per seat, in exact numbers."""

    target: int
    rules: RuleSet
    order: list[str]  # everyone who held a seat, in the sheet's order
    seated: list[str]  # the seats at the table now, clockwise
    pulya: dict[str, Fraction] = field(default_factory=dict)
    gora: dict[str, Fraction] = field(default_factory=dict)
    whists: dict[tuple[str, str], Fraction] = field(default_factory=dict)
    # bombs earned on dark raspasy, oldest first [Code 3.3.19 a, footnotes 29-30]
    bombs: dict[str, list[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for p in self.order:
            self.pulya[p] = Fraction(0)
            self.gora[p] = Fraction(0)

    def add_seat(self, p: str) -> None:
        self.order.append(p)
        self.pulya[p] = Fraction(0)
        self.gora[p] = Fraction(0)

    def write(self, p: str, column: str, amount: Fraction | int, on: str | None = None) -> None:
        if column == "pulya":
            self.pulya[p] += amount
        elif column == "gora":
            self.gora[p] += amount
        else:
            assert on is not None and on != p, (p, on)
            self.whists[(p, on)] = self.whists.get((p, on), Fraction(0)) + amount

    def earn(self, p: str, points: Fraction | int) -> None:
        """Points for a game into the pulya. Past the target, help [Code 4.2.3]: the points
        go to the opponent at the table with the largest pulya still below the target (a
        tie: the nearer to the helper's left), and the helper writes 10 whists on him per
        point, per gora point a pulya point is worth; points nobody can take come off the
        own gora [Code 4.1.1]. Without help (Leningrad) the pulya grows freely [4.2.3.3]."""
        rules = self.rules
        if not rules.help:
            self.pulya[p] += points
            return
        own = min(Fraction(points), max(Fraction(0), self.target - self.pulya[p]))
        self.pulya[p] += own
        rest = points - own
        while rest > 0:
            helped = self.helped_by(p)
            if helped is None:
                self.gora[p] -= rest * rules.pulya_to_gora
                return
            give = min(rest, self.target - self.pulya[helped])
            self.pulya[helped] += give
            self.write(p, "whists", give * HELP_WHISTS * rules.pulya_to_gora, helped)
            rest -= give

    def helped_by(self, p: str) -> str | None:
        if p not in self.seated:
            return None  # a player who left gives no help and gets none [Code 5.4.18]
        i = self.seated.index(p)
        clockwise = [self.seated[(i + k) % len(self.seated)] for k in range(1, len(self.seated))]
        open_ = [q for q in clockwise if self.pulya[q] < self.target]
        if not open_:
            return None
        best = max(self.pulya[q] for q in open_)
        return next(q for q in open_ if self.pulya[q] == best)

    def closed(self, p: str) -> bool:
        return self.pulya[p] >= self.target

    def cells(self) -> dict[tuple[str, str, str | None], Fraction]:
        out: dict[tuple[str, str, str | None], Fraction] = {}
        for p in self.order:
            out[(p, "pulya", None)] = self.pulya[p]
            out[(p, "gora", None)] = self.gora[p]
            for q in self.order:
                if q != p:
                    out[(p, "whists", q)] = self.whists.get((p, q), Fraction(0))
        return out


# -- the settlement [Code 4.2.3, 4.2.3.3, 4.2.12, 4.2.14; rules.md §6-§7] ------------------------


@dataclass(frozen=True)
class Settled:
    gora: dict[str, Fraction]  # after bringing every pulya to the target
    result: dict[str, Fraction]
    rounded: dict[str, int]


def settle_paper(paper: Paper) -> Settled:
    """Every pulya brought to the target first: points short go onto the gora, points
    over it come off it (without help only), both times pulya_to_gora each."""
    rules = paper.rules
    players = list(paper.order)
    gora: dict[str, Fraction] = {}
    for p in players:
        short = paper.target - paper.pulya[p]
        if short < 0 and rules.help:
            short = Fraction(0)  # over the target only by hand: nothing comes off [rules.md §6]
        gora[p] = paper.gora[p] + short * rules.pulya_to_gora
    result = _results(players, gora, paper.whists)
    return Settled(gora, result, _rounded(players, gora, paper.whists, result))


def _results(players: list[str], gora: dict[str, Fraction],
             whists: dict[tuple[str, str], Fraction]) -> dict[str, Fraction]:
    """Variant 2 of 4.2.14: ten times the distance below the mean gora, and the whists
    each wrote on the others less those written on him."""
    mean = sum(gora.values(), Fraction(0)) / len(players)
    balance = {p: Fraction(0) for p in players}
    for (writer, on), amount in whists.items():
        balance[writer] += amount
        balance[on] -= amount
    return {p: 10 * (mean - gora[p]) + balance[p] for p in players}


def _rounded(players: list[str], gora: dict[str, Fraction], whists: dict[tuple[str, str], Fraction],
             result: dict[str, Fraction]) -> dict[str, int]:
    """Rule 4.2.12 as rules.md §7 and docs/conventions.md fix it: when ten times the whole
    gora total does not divide by the players, the player with the smallest gora (the
    first in the sheet's order on a tie) has it moved by one point to the nearer total that
    does: lowered, the others write floor(10/N) whists on him; raised, he writes them on
    each of them. Fractions of a whist this leaves are rounded by largest remainder, seat
    order on a tie (projections/settlement.py's docstring)."""
    n = len(players)
    total = sum(gora.values(), Fraction(0))
    modulus = n // gcd(10, n)
    moved = dict(gora)
    compensated = dict(whists)
    if total.denominator == 1 and total.numerator % modulus:
        step = -1 if 2 * (total.numerator % modulus) <= modulus else 1
        who = min(players, key=lambda p: (gora[p], players.index(p)))
        moved[who] += step
        for q in players:
            if q != who:
                pair = (q, who) if step < 0 else (who, q)
                compensated[pair] = compensated.get(pair, Fraction(0)) + 10 // n
    after = _results(players, moved, compensated)
    if all(v.denominator == 1 for v in after.values()):
        return {p: int(after[p]) for p in players}
    down = {p: floor(result[p]) for p in players}
    by_remainder = sorted(players, key=lambda p: (-(result[p] - down[p]), players.index(p)))
    for p in by_remainder[: -sum(down.values())]:
        down[p] += 1
    return down


# -- a deal -------------------------------------------------------------------------------------


@dataclass
class Deal:
    """One deal as its events tell it, in seats (the sheet's names)."""

    number: int
    dealer: str
    seating: tuple[str, ...]  # the table when it was dealt, clockwise
    forced: bool  # a forced raspasy that opens a pulka [Code 3.7.9]
    errors_before: int  # the dealer's errors at this deal so far [Code 3.2.17]
    ten_checked: bool  # a ten is checked, not whisted (seed 002)
    bids: list[tuple[str, str, bool]] = field(default_factory=list)  # seat, bid, dark
    closed_at: int | None = None  # the event that ended the bidding
    contracts: list[tuple[str, str, str | None]] = field(default_factory=list)  # seat, contract, shared with
    calls: list[tuple[int, str, str, str | None]] = field(default_factory=list)  # event, seat, call, hand
    tricks: dict[str, int] | None = None
    tricks_at: int | None = None
    penalty_tricks: list[tuple[str, int, str]] = field(default_factory=list)  # seat, tricks, rule
    ruling: Ruling | None = None  # one that closes the deal [3.3.16.3, 3.4.4, 3.5.4, 3.9.22]
    ruling_at: int | None = None
    peeked: set[str] = field(default_factory=set)  # looked at the talon in the auction [3.3.16.1]
    exposed_by: str | None = None  # the talon exposed with one still bidding [3.3.16.2]
    plan: Ruling | None = None  # a disputed plan of play [3.8.5.1]
    plan_at: int | None = None
    annulled_at: int | None = None
    dealer_error: bool = False

    @property
    def bidders(self) -> tuple[str, ...]:
        """The forehand, left of the dealer, and on clockwise; with four the dealer sits
        out [Code 3.2.10, 3.3.2]."""
        i = self.seating.index(self.dealer)
        return tuple(self.seating[(i + k) % len(self.seating)] for k in range(1, 4))

    @property
    def sitting_out(self) -> str | None:
        return self.dealer if len(self.seating) == 4 else None

    @property
    def passed(self) -> set[str]:
        return {s for s, b, _ in self.bids if b == "pass"}

    @property
    def raspasy(self) -> bool:
        return self.closed_at is not None and not self.contracts and len(self.passed) == 3

    @property
    def declarer(self) -> str | None:
        """Who declares: the one who did not pass; after the talon was exposed with one
        player still bidding, that player, the talon his [Code 3.3.16.2]: not the
        offender, nor anyone who passed or looked at the talon [3.3.16.1]."""
        if self.contracts:
            return self.contracts[0][0]
        if self.exposed_by is not None:
            left = self.passed | self.peeked | {self.exposed_by}
            return next(s for s in self.bidders if s not in left)
        if self.closed_at is not None and not self.raspasy:
            return next(s for s in self.bidders if s not in self.passed)
        return None

    @property
    def contract(self) -> str | None:
        return self.contracts[-1][1] if self.contracts else None

    @property
    def passes_on(self) -> bool:
        """The dealer's second error at this deal [Code 3.2.17]."""
        return self.annulled_at is not None and self.dealer_error and self.errors_before >= 1

    @property
    def checked_ten(self) -> bool:
        return self.ten_checked and self.contract is not None and LADDER[self.contract].level == 10

    def own_level(self, seat: str) -> str | None:
        """The level a bidder reached: his last bid; "here" holds the highest bid then."""
        level = highest = None
        for s, b, _ in self.bids:
            if b in LADDER:
                highest = b
                level = b if s == seat else level
            elif b == "here" and s == seat:
                level = highest
        return level

    def dark_game(self) -> bool:
        """The declarer's last word was dark, and he did not turn a dark bid into a misère
        [Code 3.3.19 b, footnote 31]."""
        declarer = self.declarer
        words = [dark for s, b, dark in self.bids if s == declarer and b != "pass"]
        turned = self.contract == MISERE and self.own_level(declarer or "") != MISERE
        return bool(words) and words[-1] and not turned

    @property
    def dark_passes(self) -> int:
        return sum(1 for _, b, dark in self.bids if b == "pass" and dark)

    def defenders(self) -> tuple[str, str]:
        """The two bidders after the declarer, clockwise, the first to speak first [3.8.1]."""
        assert self.declarer is not None
        i = self.bidders.index(self.declarer)
        return self.bidders[(i + 1) % 3], self.bidders[(i + 2) % 3]

    def defence(self) -> Calls:
        return Calls.read(self)

    @property
    def other_plan(self) -> dict[str, int] | None:
        """The tricks the arbiter found the other plan of play would have given, in
        persons [Code 3.8.5.1 b]; None without such a ruling."""
        return self.plan.tricks if self.plan is not None else None

    @property
    def result_at(self) -> int | None:
        """The event that gave the deal its result: the tricks, a ruling, the call that
        settled it without play, or a dealer's second error; None while it has none. An
        arbiter's ruling on the plan of play recorded after the play says how that result
        is written, where it stands: the arbiter is called before the play [Code 3.8.5.1
        b], and records by hand made since come after the deal."""
        if self.annulled_at is not None:
            return self.annulled_at if self.passes_on else None
        if self.ruling_at is not None:
            return self.ruling_at
        if self.tricks_at is not None:
            return self.tricks_at
        if self.contract is not None and self.calls and self.defence().settled:
            return self.calls[-1][0]
        return None


@dataclass
class Calls:
    """What the defence's calls amount to [Code 3.8; rules.md §3]: who whists, in the order
    they whisted; the defenders who pass and play their cards; a half-whist, standing or
    returned; the defender whose cards the whisting four-player dealer plays."""

    whisters: list[str]
    passers: list[str]
    half: str | None
    returned: bool
    hand: str | None  # [Code 3.8.8, 3.8.8.1]
    settled: bool  # no play: both passed, or a half-whist stands

    @classmethod
    def read(cls, deal: Deal) -> Calls:
        d1, d2 = deal.defenders()
        whisters: list[str] = []
        half = hand = None
        returned = False
        spoken: set[str] = set()
        for _, seat, call, cards in deal.calls:
            spoken.add(seat)
            if call == "half_whist":  # the second defender's, or the first's own [3.8.7, 3.8.14]
                half = seat
                whisters = [w for w in whisters if w != seat]
            elif call == "whist":
                if half is not None:  # a return: the half-whister may only pass [3.8.8.2]
                    returned = True
                    whisters = [w for w in whisters if w != half]
                whisters.append(seat)
                hand = cards if cards is not None else hand
        passers = [s for s in (d1, d2) if s != hand and s not in whisters]
        settled = d1 in spoken and d2 in spoken and not whisters
        return cls(whisters, passers, half, returned, hand, settled)


# -- the deals and the records folded from the events that count ------------------------------------


@dataclass
class Item:
    """What one event writes on the sheet outside a deal's result, in one deal's group:
    a record by hand, a talon's record, a change of the table, a correction's penalty."""

    number: int
    deal: int
    event: AnyEvent | None = None
    writes: tuple[Write, ...] = ()


class Table:
    """The deals, the table and the items, folded from the events that count, in order."""

    def __init__(self, started: GameStarted, rules: RuleSet) -> None:
        self.started = started
        self.rules = rules
        self.seating: tuple[str, ...] = tuple(started.players)
        self.seat_of: dict[str, str] = {p: p for p in started.players}  # a person -> his seat
        self.deals: list[Deal] = []
        self.items: list[Item] = []
        self.dealer_next: str | None = None  # a newcomer deals first [Code 3.1.2]
        self.vacated: tuple[str, tuple[str, ...]] | None = None  # who left last, and the table he left
        self.seating_after: dict[int, tuple[str, ...]] = {}  # a newcomer's event -> the table after
        self.mismatches: list[str] = []

    # dealing [Code 3.2.2, 3.2.13, 3.2.14, 3.2.17, 3.1.2, 3.7.7, 3.7.9]

    def due_dealer(self) -> str:
        """To the left of the last dealer; the same again after a misdeal that was not his
        second error, or after a raspasy where the rules say so (not a forced one)."""
        if self.dealer_next is not None:
            return self.dealer_next
        if not self.deals:
            first = self.started.first_dealer or self.started.players[-1]
            return self._seated_from(first, tuple(self.started.players), 0)
        prev = self.deals[-1]
        again = (prev.annulled_at is not None and not prev.passes_on) or (
            prev.raspasy and self.rules.raspasy_same_dealer and not prev.forced)
        return self._seated_from(prev.dealer, prev.seating, 0 if again else 1)

    def _seated_from(self, seat: str, order: tuple[str, ...], step: int) -> str:
        i = order.index(seat)
        for k in range(step, step + len(order)):
            if order[(i + k) % len(order)] in self.seating:
                return order[(i + k) % len(order)]
        return self.seating[0]

    def open_deal(self, dealer: str | None = None) -> Deal:
        dealt = dealer if dealer is not None else self.due_dealer()
        prev = self.deals[-1] if self.deals else None
        errors = 0
        if prev is not None and prev.annulled_at is not None and not prev.passes_on and prev.dealer == dealt:
            errors = prev.errors_before + (1 if prev.dealer_error else 0)
        rounds = self.rules.opening_raspasy_rounds
        played = sum(1 for d in self.deals if d.annulled_at is None)
        deal = Deal(number=len(self.deals) + 1, dealer=dealt, seating=self.seating,
                    forced=played < rounds * len(self.started.players), errors_before=errors,
                    ten_checked=self.rules.ten_checked)
        self.deals.append(deal)
        self.dealer_next = None
        return deal

    @property
    def current(self) -> Deal | None:
        return self.deals[-1] if self.deals else None

    def in_auction(self) -> Deal | None:
        d = self.current
        return d if d is not None and d.closed_at is None and d.annulled_at is None and d.ruling is None else None

    def annulable(self) -> Deal | None:
        """The deal a misdeal annuls: one in its auction, or bid out and not yet declared."""
        d = self.current
        if d is None or d.annulled_at is not None or d.ruling is not None or d.tricks is not None:
            return None
        return d if d.closed_at is None or (not d.raspasy and not d.contracts) else None

    def seat(self, person: str) -> str:
        return self.seat_of[person]

    def same_deal(self, number: int, event: AnyEvent, k: int) -> None:
        if event.deal != k:
            self.mismatches.append(f"event {number} ({type(event).__name__}) is stored in deal {event.deal}, "
                                   f"but is of deal {k}")

    def fold(self, number: int, event: AnyEvent) -> None:
        match event:
            case Bid():
                self._bid(number, event)
            case Contract():
                deal = self.deals[-1]
                self.same_deal(number, event, deal.number)
                shared = self.seat(event.shared_with) if event.shared_with is not None else None
                if event.evident_correction:  # the calls said to the mistaken contract are void [3.4.8]
                    deal.calls.clear()
                deal.contracts.append((self.seat(event.player), event.contract, shared))
                if deal.closed_at is None:  # the third hand after two passes [Code 3.3.15]
                    deal.closed_at = number
            case Defence():
                deal = self.deals[-1]
                self.same_deal(number, event, deal.number)
                hand = self.seat(event.hand) if event.hand is not None else None
                deal.calls.append((number, self.seat(event.player), event.call, hand))
            case Tricks():
                k = event.deal or len(self.deals)  # an earlier deal's: a forgotten record
                if not 1 <= k <= len(self.deals):
                    self.mismatches.append(f"event {number}: tricks of deal {k}, but {len(self.deals)} deals here")
                    return
                deal = self.deals[k - 1]
                deal.tricks = {self.seat(p): t for p, t in event.tricks.items()}
                deal.tricks_at = number
                deal.penalty_tricks = [(self.seat(pt.player), pt.tricks, pt.rule) for pt in event.penalty_tricks]
            case Ruling():
                self._ruling(number, event)
            case Annulled():
                deal = self.annulable() or self.open_deal()
                self.same_deal(number, event, deal.number)
                deal.annulled_at, deal.dealer_error = number, event.dealer_error
            case Dealt():
                self.same_deal(number, event, self.open_deal(self.seat(event.player)).number)
            case Entry() | Penalty():
                if event.deal is None or event.deal >= len(self.deals):
                    self.same_deal(number, event, len(self.deals))
                self.items.append(Item(number, event.deal or 0, event))
            case Talon():
                if event.kind == "peek":
                    (self.in_auction() or self.open_deal()).peeked.add(self.seat(event.player))
                self.same_deal(number, event, len(self.deals))
                self.items.append(Item(number, len(self.deals), event))
            case Joined():
                self._join(number, event)
            case Left():
                key = self.seat(event.player)
                self.vacated = (key, self.seating)
                self.seating = tuple(s for s in self.seating if s != key)
                self.dealer_next = None if self.dealer_next == key else self.dealer_next
                self.items.append(Item(number, len(self.deals), event))
            case Substituted():
                self.seat_of.setdefault(event.substitute, self.seat(event.player))
            case Abandoned() | PencilDown() | Objection() | Correction() | Withdrawn() | GameStarted():
                pass
            case _:
                raise AssertionError(f"event {number}: {type(event).__name__} is no event of a pulka")

    def _bid(self, number: int, event: Bid) -> None:
        deal = self.in_auction() or self.open_deal()
        self.same_deal(number, event, deal.number)
        seat = self.seat(event.player)
        if not deal.bids and seat != deal.bidders[0]:
            self.mismatches.append(f"deal {deal.number}: {seat} bids first, but {deal.dealer} deals and "
                                   f"{deal.bidders[0]} is the forehand")
        deal.bids.append((seat, event.bid, event.dark))
        # the auction closes when everyone passed, or all but one who bid [rules.md §2]
        if len(deal.passed) == 3 or (len(deal.passed) == 2 and any(b in LADDER for _, b, _ in deal.bids)):
            deal.closed_at = number

    def _ruling(self, number: int, event: Ruling) -> None:
        """The talon exposed with one still bidding ends the auction, the deal to be played
        [Code 3.3.16.2]; a disputed plan of play is ruled on with the deal in play or just
        played [3.8.5.1]; the others close the deal."""
        deal = self.deals[-1]
        self.same_deal(number, event, deal.number)
        if event.rule == "3.3.16.2":
            assert event.offender is not None
            deal.exposed_by, deal.closed_at = self.seat(event.offender), number
        elif event.rule == "3.8.5.1":
            deal.plan, deal.plan_at = event, number
            self.items.append(Item(number, deal.number, event))
        else:  # the talon exposed while two still bid ends the bidding too [3.3.16.3; 4.2.10]
            deal.ruling, deal.ruling_at = event, number
            deal.closed_at = number if deal.closed_at is None else deal.closed_at

    def _join(self, number: int, event: Joined) -> None:
        """A newcomer sits to the left of the one who dealt last and deals next; one who
        replaces the player who left sits in his place, and the deal goes round as before
        [Code 3.1.2, 3.2.2]."""
        self.seat_of.setdefault(event.player, event.player)
        if event.replaces is not None:
            assert self.vacated is not None and self.vacated[0] == self.seat(event.replaces), event
            gone, before = self.vacated
            self.seating = tuple(event.player if s == gone else s for s in before
                                 if s in self.seating or s == gone)
        else:
            after = self.current.dealer if self.current is not None else self.seating[-1]
            i = self.seating.index(after) if after in self.seating else len(self.seating) - 1
            self.seating = self.seating[: i + 1] + (event.player,) + self.seating[i + 1:]
            self.dealer_next = event.player
        self.vacated = None
        self.seating_after[number] = self.seating
        self.items.append(Item(number, len(self.deals), event))

    def deadline(self, k: int) -> int | None:
        """The end of the bidding of the next game after deal k, if it has ended: an
        annulled deal orders no game [Code 4.2.9, 4.2.10; docs/conventions.md]."""
        j = k + 1
        while j <= len(self.deals) and self.deals[j - 1].annulled_at is not None:
            j += 1
        return self.deals[j - 1].closed_at if j <= len(self.deals) else None


# -- writing the deals --------------------------------------------------------------------------


class Scorer:
    """Writes, deal by deal, each deal's items and its result in the order of their events."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.rules = table.rules
        players = list(table.started.players)
        self.paper = Paper(table.started.pulya, table.rules, players, list(players))
        self.run = 0  # raspasy so far in the current run [Code 3.7.4]

    def score(self) -> Paper:
        groups: dict[int, list[Item]] = {}
        for item in self.table.items:
            groups.setdefault(item.deal, []).append(item)
        for item in sorted(groups.get(0, []), key=lambda i: i.number):
            self.item(item, None)
        for deal in self.table.deals:
            result_at = deal.result_at
            pending = result_at is not None
            for item in sorted(groups.get(deal.number, []), key=lambda i: i.number):
                if pending and result_at is not None and item.number > result_at:
                    pending = self.result(deal)
                self.item(item, deal)
            if pending:
                self.result(deal)
            self.next_run(deal, result_at is not None)
        return self.paper

    # records by hand, the talon's, the table's [Code 3.1.2, 3.2.21, 3.4.10, 3.4.11, 4.2.16, 5.4.18]

    def item(self, item: Item, deal: Deal | None) -> None:
        paper, rules, seat = self.paper, self.rules, self.table.seat
        for player, column, amount, on in item.writes:
            paper.write(player, column, amount, on)
        match item.event:
            case Entry() as e:
                paper.write(seat(e.player), e.column, e.amount, seat(e.on) if e.on is not None else None)
            case Penalty() as e:  # it never benefits the penalised player [4.2.16]
                if e.column == "whists" and e.wronged is not None:
                    paper.write(seat(e.wronged), "whists", e.amount, seat(e.player))
                else:  # a log older than ``wronged``: ``player`` writes on ``on``
                    paper.write(seat(e.player), e.column, e.amount, seat(e.on) if e.on is not None else None)
            case Talon() as e:
                if e.kind == "peek":
                    paper.write(seat(e.player), "gora", rules.talon_peek_gora)
                elif deal is not None and e.kind == "refused":
                    paper.write(deal.dealer, "gora", rules.talon_refusal_gora)
                elif deal is not None and deal.contract is not None and deal.declarer is not None:
                    price = LADDER[deal.contract].price * rules.gora_whist_multiplier
                    paper.write(deal.dealer, "whists", e.tricks * price, deal.declarer)
            case Joined() as e:
                # the mean of the pulyas and goras at the table, rounded against him
                n = len(paper.seated)
                pulya = sum((paper.pulya[p] for p in paper.seated), Fraction(0))
                gora = sum((paper.gora[p] for p in paper.seated), Fraction(0))
                paper.add_seat(e.player)
                paper.seated = list(self.table.seating_after[item.number])
                paper.write(e.player, "pulya", floor(pulya / n))
                paper.write(e.player, "gora", ceil(gora / n))
            case Left() as e:
                paper.seated = [s for s in paper.seated if s != seat(e.player)]
            case Ruling() as e:  # agreed compensation for a plan of play, as agreed [Code 3.8.5.1 a]
                assert e.planner is not None
                for person, amount in (e.whists or {}).items():
                    paper.write(seat(person), "whists", amount, seat(e.planner))
            case None:
                pass
            case other:
                raise AssertionError(f"event {item.number} writes nothing by hand: {other}")

    # the runs of raspasy [Code 3.7.4, 3.7.8; docs/conventions.md, raspasy_run_ends]

    def next_run(self, deal: Deal, resolved: bool) -> None:
        """A raspasy adds to the run; what else ends it is the rules' choice. A deal whose
        result is not known does not end a run that its result could continue."""
        rules = self.rules
        if deal.annulled_at is not None:
            return
        if deal.raspasy:
            self.run += 1
            return
        ends, resets = rules.raspasy_run_ends, rules.raspasy_unwhisted_resets
        if ends == "any_deal" and resets:
            self.run = 0
            return
        outcome = self.outcome(deal) if resolved else "open"
        if ends == "any_deal" or outcome == "made" or (ends == "no_pass_misere_remiz" and outcome == "ruled"):
            if resets or outcome != "unwhisted":
                self.run = 0

    def outcome(self, deal: Deal) -> str:
        """unwhisted, made, remiz, misère or ruled (a ruling without a contract's result)."""
        ruling = deal.ruling
        if ruling is not None and ruling.rule == "3.3.16.3" or deal.declarer is None:
            return "ruled"
        if ruling is not None and ruling.rule == "3.4.4":
            return "remiz"
        if deal.contract == MISERE:
            return "misere"
        tricks, penalties = self.result_tricks(deal), deal.penalty_tricks
        if deal.other_plan is not None and deal.plan is not None and deal.plan.declarer_result == "other":
            tricks, penalties = {self.table.seat(p): t for p, t in deal.other_plan.items()}, []  # [3.8.5.1 b]
        if tricks is None:
            return "unwhisted" if deal.defence().half is None else "made"
        return "made" if self.declarer_under(deal, tricks, penalties) == 0 else "remiz"

    # a deal's result

    def result(self, deal: Deal) -> bool:
        """Writes the deal's result; returns False: no longer pending."""
        ruling = deal.ruling
        if deal.annulled_at is not None:  # the dealer's second error [Code 3.2.17]
            self.paper.write(deal.dealer, "gora", self.rules.dealer_error_gora)
        elif ruling is not None and ruling.rule == "3.3.16.3":
            # the talon exposed while two still bid: the wronged write on the offender
            assert ruling.offender is not None
            for person, amount in (ruling.whists or {}).items():
                self.paper.write(self.table.seat(person), "whists", amount, self.table.seat(ruling.offender))
        elif deal.raspasy:
            self.raspasy(deal)
        else:
            self.game(deal)
        return False

    def game(self, deal: Deal) -> None:
        """The declarer's game, on a bomb if he holds one (it multiplies every write of his
        game and a game made uses it up), doubled if won dark [Code 3.3.19, 4.1.2,
        footnotes 29-31]. After an arbiter's ruling on a disputed plan of play the
        dissenters it names are given the result of the other plan, the declarer the one
        drawn by lot, everybody else the one played [Code 3.8.5.1 b, footnote 58]."""
        declarer = deal.declarer
        assert declarer is not None
        bombs = self.paper.bombs.get(declarer, [])
        times = bombs[0] if bombs else 1
        if deal.ruling is not None and deal.ruling.rule == "3.4.4":
            self.without_all(deal, times)
            return
        times *= 2 if deal.dark_game() else 1
        closed = {s: self.paper.closed(s) for s in self.paper.order}  # before the deal writes anything
        marks, made = self.game_writes(deal, self.result_tricks(deal), deal.penalty_tricks, times, closed)
        other = deal.other_plan
        if other is not None:
            assert deal.plan is not None
            tricks = {self.table.seat(p): t for p, t in other.items()}
            other_marks, other_made = self.game_writes(deal, tricks, [], times, closed)  # no penalty carried over
            given = {self.table.seat(p) for p in deal.plan.compensated}
            if deal.plan.declarer_result == "other":
                given |= self.declaring(deal)
                made = other_made
            marks = [m for m in marks if m[0] not in given] + [m for m in other_marks if m[0] in given]
        for seat, column, amount, on in sorted(marks, key=lambda m: m[1] == "whists"):
            if column == "pulya":
                self.paper.earn(seat, amount)
            else:
                self.paper.write(seat, column, amount, on)
        if made and bombs:
            bombs.pop(0)

    def declaring(self, deal: Deal) -> set[str]:
        """The declarer, and a dealer who shares his misère: one result, written in halves
        [Code 3.6.9]."""
        assert deal.declarer is not None
        shared = deal.contracts[-1][2] if deal.contracts else None
        return {deal.declarer} | ({shared} if shared is not None else set())

    def game_writes(self, deal: Deal, tricks: dict[str, int] | None, penalties: list[tuple[str, int, str]],
                    times: int, closed: dict[str, bool]) -> tuple[list[Write], bool]:
        """What a game writes on these tricks (a pulya to earn, gora, whists on the
        declarer), and whether it was made."""
        if deal.contract == MISERE:
            return self.misere(deal, tricks, penalties, times)
        return self.tricks_game(deal, tricks, penalties, times, closed)

    def consolation(self, price: int) -> int:
        """Whists per undertrick: the price x m, or a fixed number [Code 3.8.1.2, fn 36, 54]."""
        c = self.rules.consolation
        return price * self.rules.gora_whist_multiplier if c == "price" else int(c)

    def without_all(self, deal: Deal, times: int) -> None:
        """A declaration against the rules that stands: a remiz without all at the level
        reached [Code 3.4.4]; nobody whisted, so every other player writes only his
        consolation, for each trick (the dealer as dealer_consolation says). Reached a
        misère: its remiz is counted in tricks taken, so without all is all ten, 10 x m
        each to gora, and a misère has no whists (docs/conventions.md, 3.4.4 at a
        misère)."""
        declarer = deal.declarer
        assert declarer is not None
        level = LADDER[deal.own_level(declarer) or deal.contract or "6S"]
        need, m = level.level, self.rules.gora_whist_multiplier
        if level.is_misere:
            self.paper.write(declarer, "gora", MISERE_PRICE * m * 10 * times)
            return
        self.paper.write(declarer, "gora", level.price * m * need * times)
        others = [s for s in deal.bidders if s != declarer]
        if deal.sitting_out is not None and self.rules.dealer_consolation:
            others.append(deal.sitting_out)
        for s in others:
            self.paper.write(s, "whists", self.consolation(level.price) * need * times, declarer)

    def misere(self, deal: Deal, tricks: dict[str, int] | None, penalties: list[tuple[str, int, str]],
               times: int) -> tuple[list[Write], bool]:
        """Made: 10 in pulya; failed: 10 x m a trick in gora; no whists [rules.md §4.5]. A
        misère shared with the dealer is written in halves [Code 3.6.9]; on a misère every
        penalty trick is a trick taken [docs/conventions.md]."""
        declarer = deal.declarer
        assert declarer is not None and tricks is not None
        taken = tricks.get(declarer, 0) + sum(n for s, n, _ in penalties if s == declarer)
        shared = deal.contracts[-1][2]
        writers = [declarer] + ([shared] if shared is not None else [])
        m = self.rules.gora_whist_multiplier
        if taken == 0:
            return [(w, "pulya", Fraction(MISERE_PRICE * times, len(writers)), None) for w in writers], True
        return [(w, "gora", Fraction(MISERE_PRICE * m * taken * times, len(writers)), None) for w in writers], False

    def declarer_under(self, deal: Deal, tricks: dict[str, int], penalties: list[tuple[str, int, str]]) -> int:
        """The declarer's undertricks as his own writes count them: looking at the discard
        or a closed trick takes a trick off those he took (an overtrick cancels one); a
        wrong number of cards adds undertricks to his actual remiz [Code 3.4.6, 3.4.9,
        3.9.11.2, 3.9.18, 3.2.16; docs/conventions.md]."""
        declarer = deal.declarer
        assert declarer is not None and deal.contract is not None
        need = LADDER[deal.contract].level
        taken = tricks.get(declarer, 0) - sum(
            n for s, n, rule in penalties if s == declarer and rule in ("3.4.9", "3.9.11.2"))
        added = sum(n for s, n, rule in penalties if s == declarer and rule not in ("3.4.9", "3.9.11.2"))
        return max(0, need - taken) + added

    def tricks_game(self, deal: Deal, tricks: dict[str, int] | None, penalties: list[tuple[str, int, str]],
                    times: int, closed: dict[str, bool]) -> tuple[list[Write], bool]:
        """A game on tricks [rules.md §3-§4; Code 3.8]: its writes, and whether it was made.

        Penalty tricks count in the offender's own writes only, everybody else is paid on
        the tricks actually taken [Code 3.9.12, 3.9.18 example 1, footnote 34]: each
        defender's writes are worked out as if his were the deal's only penalty tricks."""
        declarer = deal.declarer
        assert declarer is not None and deal.contract is not None
        contract = LADDER[deal.contract]
        pm = contract.price * self.rules.gora_whist_multiplier * times  # a trick's whists or gora
        out: list[Write] = []
        if tricks is None:  # both passed, or a half-whist stands [Code 4.2.3.2, 3.8.7]
            out.append((declarer, "pulya", Fraction(contract.price * times), None))
            view = deal.defence()
            if view.half is not None:
                out.append((view.half, "whists", Fraction(OBLIGATION[contract.level] * pm, 2), declarer))
            return out, True
        own_under = self.declarer_under(deal, tricks, penalties)
        if own_under == 0:
            out.append((declarer, "pulya", Fraction(contract.price * times), None))
        else:
            out.append((declarer, "gora", Fraction(pm * own_under), None))
        under = max(0, contract.level - tricks.get(declarer, 0))
        cons = self.consolation(contract.price) * times * under
        offenders = sorted({s for s, _, _ in penalties if s != declarer})
        writes = [w for w in self.defence(deal, tricks, [], pm, under, cons, closed) if w[0] not in offenders]
        for s in offenders:
            mine = [pt for pt in penalties if pt[0] == s]
            writes += [w for w in self.defence(deal, tricks, mine, pm, under, cons, closed) if w[0] == s]
        for seat, column, amount in writes:
            out.append((seat, column, amount, declarer if column == "whists" else None))
        return out, own_under == 0

    def defence(self, deal: Deal, tricks: dict[str, int], penalties: list[tuple[str, int, str]], pm: int,
                under: int, cons: int, closed: dict[str, bool]) -> list[tuple[str, str, Fraction]]:
        """What the defence writes on a played game, one defender's ``penalties`` counted:
        a trick lost for looking at a closed one comes off his trick whists and off the
        defence's total in his own shortfall [3.9.11.2]; a wrong number of cards is a remiz
        of that many tricks on the whist [3.9.18, 3.2.16]."""
        rules = self.rules
        lost = {s: n for s, n, rule in penalties if rule == "3.9.11.2"}
        remiz = {s: n for s, n, rule in penalties if rule != "3.9.11.2"}
        so = deal.sitting_out
        out: list[tuple[str, str, Fraction]] = []
        if deal.checked_ten:  # no calls, no obligation; each half of a whister's (seed 002)
            for d in deal.defenders():
                out.append((d, "whists", Fraction(max(0, tricks.get(d, 0) - lost.get(d, 0)) * pm + cons, 2)))
            if so is not None and under and rules.dealer_consolation:
                out.append((so, "whists", Fraction(cons)))
            return out
        view = deal.defence()
        whisters, playing = view.whisters, view.whisters + view.passers
        if so is not None and so not in whisters and under and rules.dealer_consolation:
            out.append((so, "whists", Fraction(cons)))  # the sitting-out dealer's [3.8.1.2]
        counted = {s: tricks.get(s, 0) - lost.get(s, 0) for s in playing}
        total = sum(counted.values())
        if len(whisters) == 2:  # each for himself [3.8.13, 3.8.14]
            for s in whisters:
                out.append((s, "whists", Fraction(max(0, counted[s]) * pm + cons)))
        elif len(whisters) == 1:
            w = whisters[0]
            passer = view.passers[0] if view.passers else None
            gentleman = rules.single_whist_split == "gentleman"
            if not under:  # the whister writes for the passer's tricks too
                out.append((w, "whists", Fraction(max(0, total) * pm)))
            elif view.returned or not gentleman or passer is None:
                # greedy [3.8.13]; after a return the returner writes everything, the
                # half-whister only his consolation, none under the gentleman's [3.8.14]
                out.append((w, "whists", Fraction(max(0, total) * pm + cons)))
                if passer is not None and not (gentleman and passer == view.half):
                    out.append((passer, "whists", Fraction(cons)))
            else:  # gentleman's: everything both would write, in halves [3.8.14]
                half = Fraction(max(0, total) * pm + 2 * cons, 2)
                out += [(w, "whists", half), (passer, "whists", half)]
        # With four players, the defender whose cards the whisting dealer plays writes his
        # consolation like everyone else [Code 3.8.1.2, footnote 36; 3.8.8] where the rule
        # set says so (hand_consolation: every preset; off for logs stored before it); a
        # half-whister under the gentleman's whist writes none [3.8.14].
        gentleman = rules.single_whist_split == "gentleman"
        if (rules.hand_consolation and view.hand is not None and under
                and not (gentleman and view.hand == view.half)):
            out.append((view.hand, "whists", Fraction(cons)))
        return out + self.shortfall(deal, view, counted, remiz, pm, closed)

    def shortfall(self, deal: Deal, view: Calls, counted: dict[str, int], remiz: dict[str, int], pm: int,
                  closed: dict[str, bool]) -> list[tuple[str, str, Fraction]]:
        """The defence short of its obligation [Code 3.8.2, 3.8.6, 3.8.11-3.8.12]: a lone
        whister answers for all of it; two whisters on a six or a seven each for half the
        obligation, and none writes more than the two lacked together; on an eight, nine
        or ten the one who whisted second. A whister's remiz on the whist adds [3.9.18]."""
        assert deal.contract is not None
        obligation = OBLIGATION[LADDER[deal.contract].level]
        lack = obligation - sum(counted.values())
        whisters = view.whisters
        short: dict[str, int] = {}
        if lack > 0 and len(whisters) == 1:
            short[whisters[0]] = lack
        elif lack > 0 and len(whisters) == 2 and obligation in (4, 2):
            for s in whisters:
                short[s] = min(max(0, obligation // 2 - counted[s]), lack)
        elif lack > 0 and len(whisters) == 2:
            short[whisters[1]] = lack
        for s, n in remiz.items():
            if s in counted:
                short[s] = short.get(s, 0) + n
        return [(s, "gora", self.responsibility(closed[s]) * pm * n) for s, n in short.items() if n]

    def responsibility(self, closed: bool) -> Fraction:
        """Responsible whist, half-responsible, or half until the pulya is closed [Code
        3.8.11, 3.8.12]."""
        r = self.rules.defence_responsibility
        return Fraction(1) if r == "full" or (r == "half_until_closed" and closed) else Fraction(1, 2)

    def result_tricks(self, deal: Deal) -> dict[str, int] | None:
        """The tricks a game is scored on: as recorded, as agreed [Code 3.9.22], or as a
        concession gives them: the declarer none, the defence 5 and 5 unless split [3.5.4]."""
        ruling = deal.ruling
        if ruling is not None and ruling.rule == "3.9.22" and ruling.tricks is not None:
            return {self.table.seat(p): t for p, t in ruling.tricks.items()}
        if ruling is not None and ruling.rule == "3.5.4":
            assert deal.declarer is not None
            if ruling.tricks is not None:
                tricks = {self.table.seat(p): t for p, t in ruling.tricks.items()}
            else:
                view = deal.defence()
                tricks = {s: 5 for s in view.whisters + view.passers}
            tricks[deal.declarer] = 0
            return tricks
        return deal.tricks

    def raspasy(self, deal: Deal) -> None:
        """All passed [Code 3.7; rules.md §5]. A trick's price is the run's step of the
        progression [3.7.4], doubled for each dark pass up to the agreed limit, or once on a
        forced raspasy [3.3.19 a, 3.7.9], and times m."""
        rules, paper = self.rules, self.paper
        assert deal.tricks is not None
        step = rules.raspasy_progression[min(self.run, len(rules.raspasy_progression) - 1)]
        doublings = 1 if deal.forced else min(deal.dark_passes, rules.dark_limit)
        k = step * 2 ** doublings
        m = rules.gora_whist_multiplier
        so = deal.sitting_out
        players = list(deal.bidders) + ([so] if so is not None and rules.raspasy_talon else [])
        actual = {s: deal.tricks.get(s, 0) for s in players}
        counted = dict(actual)  # a penalty trick "as if an eleventh" [Code 3.9.11.2]
        for s, n, _ in deal.penalty_tricks:
            counted[s] = counted.get(s, 0) + n
        if rules.raspasy_model == "gora":  # each trick to gora, after the amnesty [3.7.2.1, 3.7.3]
            amnesty = min(actual.values()) if rules.raspasy_amnesty else 0
            for s, t in counted.items():
                paper.write(s, "gora", (t - (amnesty if s in players else 0)) * k * m)
        else:
            # Rostov [3.7.2.2]: the fewest write on the others for their tricks, tied in
            # shares; only those who played are compared, a sitting-out dealer's penalty
            # trick is one the fewest write on him [3.9.11.2, 3.9.12]
            fewest = min(counted[s] for s in players)
            low = [s for s in players if counted[s] == fewest]
            for s in low:
                for q, t in counted.items():
                    if q not in low and t:
                        paper.write(s, "whists", Fraction(rules.raspasy_whist_price * t * k * m, len(low)), q)
        # no trick: the price of one in pulya, in seat order from the forehand; a penalty
        # trick is one for the offender's own writes [3.7.2.1, 3.7.6.2, 3.9.11.2]
        zero = k * m if rules.raspasy_zero_pulya == "price" else int(rules.raspasy_zero_pulya)
        for s in deal.bidders:
            if counted[s] == 0 and zero:
                paper.earn(s, zero)
        if so is not None and rules.raspasy_dealer_pulya and so not in {s for s, _, _ in deal.penalty_tricks}:
            paper.earn(so, rules.raspasy_dealer_pulya)
        # bombs: each dark passer, and with four the dealer [Code 3.3.19 a, footnotes 29-30]
        darks = list(deal.bidders) if deal.forced else [s for s, b, dark in deal.bids if b == "pass" and dark]
        for s in darks + ([so] if darks and so is not None else []):
            paper.bombs.setdefault(s, []).append(2 ** doublings)


# -- the recording rules [Code 4.2.7-4.2.10; rules.md §8] ---------------------------------------


@dataclass(frozen=True)
class Verdict:
    effective: bool
    free: bool = False
    warning: bool = False
    writes: tuple[Write, ...] = ()


class Recording:
    """The log walked in order, each record decided as of its place in it: a correction
    (in hand: free; a partner's until the next game's bidding ends, later only the
    recorder's own and not to his advantage; a first error a warning, then equal for
    equal), a forgotten record (until the same deadline, not while a partner objects), an
    objection (it withdraws the accepted forgotten records of partners, until then)."""

    def __init__(self, events: list[AnyEvent]) -> None:
        first = events[0]
        assert isinstance(first, GameStarted)
        self.started = first
        self.rules = first.rule_set or resolve(first.convention, first.rules)
        self.events = events
        self.content: dict[int, AnyEvent] = {}  # the events that count, as corrected
        self.void: set[int] = set()
        self.late: set[int] = set()  # forgotten records accepted
        self.penalties: dict[int, Item] = {}  # a correction -> its penalty writes
        self.warned: set[str] = set()  # seats that had their warning [Code 4.2.7]
        self.verdicts: dict[int, Verdict] = {}

    def walk(self) -> Recording:
        for number, event in enumerate(self.events[1:], start=2):
            match event:
                case Correction():
                    self.correction(number, event)
                case Objection():
                    self.objection(number, event)
                case Withdrawn():  # taken back while in hand [Code 4.2.8]
                    self.void.update(range(event.first, number))
                case Entry() | Tricks() if event.deal is not None and event.deal < len(self.table(number).deals):
                    self.forgotten(number, event)
                case _:
                    self.content[number] = event
        return self

    def table(self, before: int, change: dict[int, AnyEvent] | None = None) -> Table:
        """The table folded from the events before ``before`` as they count (``change``:
        some of them otherwise)."""
        t = Table(self.started, self.rules)
        for number in range(2, before):
            if number in self.penalties:
                t.items.append(self.penalties[number])
            event = (change or {}).get(number) or self.content.get(number)
            if event is not None and number not in self.void:
                t.fold(number, event)
        return t

    def paper(self, before: int, change: dict[int, AnyEvent] | None = None) -> Paper:
        return Scorer(self.table(before, change)).score()

    def correction(self, number: int, c: Correction) -> None:
        target = self.content.get(c.target) or self.events[c.target - 1]
        right = msgspec.structs.replace(target, **c.replacement)
        table = self.table(number)
        # a record by a scorer or an arbiter is no player's: corrected free [Code 4.2.4-4.2.7]
        recorder = table.seat_of.get(target.by or "", target.by or "")
        by_player = recorder in table.seat_of.values()
        asked = table.seat_of.get(c.by or "", c.by) if c.by is not None else recorder
        end = table.deadline(target.deal or 0)
        in_hand = all(isinstance(e, Correction) and e.target == c.target for e in self.events[c.target: number - 1])
        verdict = self.verdict(number, c, right, recorder, by_player, asked, end, in_hand)
        self.verdicts[number] = verdict
        if verdict.effective:
            self.content[c.target] = right
        if verdict.warning:
            self.warned.add(recorder)
        if verdict.writes:
            self.penalties[number] = Item(number, len(table.deals), writes=verdict.writes)

    def verdict(self, number: int, c: Correction, right: AnyEvent, recorder: str, by_player: bool,
                asked: str | None, end: int | None, in_hand: bool) -> Verdict:
        if end is not None and end < number:  # after the deadline [Code 4.2.9]
            if asked != recorder:
                return Verdict(False)
            if by_player:  # his own, and not to his advantage (docs/conventions.md)
                before = settle_paper(self.paper(number)).result[recorder]
                after = settle_paper(self.paper(number, {c.target: right})).result[recorder]
                if after > before:
                    return Verdict(False)
        if in_hand:
            return Verdict(True, free=True)  # the pencil rule [Code 4.2.8]
        if not by_player:
            return Verdict(True)
        wrong, corrected = self.paper(number), self.paper(number, {c.target: right})
        if wrong.cells() == corrected.cells():  # an error is a wrong number [4.2.7; docs/conventions.md]
            return Verdict(True, free=True)
        if recorder not in self.warned:
            return Verdict(True, warning=True)
        writes = equal_for_equal(wrong, corrected, recorder)
        if c.penalty == "waived":  # the wronged partner's whists are his to waive
            writes = tuple(w for w in writes if w[1] != "whists")
        return Verdict(True, writes=writes)

    def forgotten(self, number: int, event: Entry | Tricks) -> None:
        """A forgotten record [Code 4.2.10]: no later than the end of the next game's
        bidding, and not when a partner refuses to remember it."""
        k = event.deal or 0
        end = self.table(number).deadline(k)
        objected = any(isinstance(o, Objection) and o.deal == k and o.target in (None, number)
                       and o.player != event.by for o in self.events[1: number - 1])
        if (end is not None and end < number) or objected:
            self.void.add(number)
            return
        self.late.add(number)
        self.content[number] = event

    def objection(self, number: int, o: Objection) -> None:
        end = self.table(number).deadline(o.deal or 0)
        if end is not None and end < number:
            return
        for late in self.late - self.void:
            record = self.content[late]
            if record.deal == o.deal and o.target in (None, late) and record.by != o.player:
                self.void.add(late)


def equal_for_equal(wrong: Paper, right: Paper, recorder: str) -> tuple[Write, ...]:
    """The advantage the wrong record gave its recorder, in the same column [Code 4.2.7]:
    his pulya overstated or his gora understated goes into his gora; whists he wrote on a
    partner overstated, or a partner's on him understated, that partner writes on him."""
    out: list[Write] = []
    for gained in (wrong.pulya[recorder] - right.pulya[recorder], right.gora[recorder] - wrong.gora[recorder]):
        if gained > 0:
            out.append((recorder, "gora", gained, None))
    for q in wrong.order:
        if q == recorder:
            continue
        zero = Fraction(0)
        for gained in (wrong.whists.get((recorder, q), zero) - right.whists.get((recorder, q), zero),
                       right.whists.get((q, recorder), zero) - wrong.whists.get((q, recorder), zero)):
            if gained > 0:
                out.append((q, "whists", gained, recorder))
    return tuple(out)


# -- a whole log ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scored:
    cells: dict[tuple[str, str, str | None], Fraction]  # (player, column, on whom) -> amount
    settled: Settled
    mismatches: tuple[str, ...]  # where the judge's bookkeeping is not this scorer's


def score(events: list[AnyEvent]) -> Scored:
    """The sheet and the settlement of a judged log (the events as stored), worked out here."""
    recording = Recording(events).walk()
    table = recording.table(len(events) + 1)
    paper = Scorer(table).score()
    return Scored(paper.cells(), settle_paper(paper), tuple(table.mismatches))

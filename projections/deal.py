"""The structure of one deal: auction, contract, defence calls, tricks.

``DealState`` is folded from the deal's events without judging them: it records
what happened and derives what the deal is waiting for. The command side
(``ledger.command.judge``) asks it who may speak next and what would be allowed; the
scoring (``projections.scoring``) asks it who declared, who whisted and what was
taken. Seats are indexes into the ``players`` list, which is the clockwise order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ledger.vocabulary.bids import HERE, PASS, Level, parse_level
from ledger.vocabulary.rules import RuleSet

Phase = Literal["auction", "contract", "defence", "play", "done", "void"]


@dataclass(frozen=True)
class DefenceView:
    """What the defence calls so far amount to [rules.md §3].

    ``expect``: (seat, allowed calls) for the next call, or None.
    ``settled``: the deal needs no tricks (both passed, or a half-whist stands).
    ``whisters``: who defends actively, in the order they whisted; ``passers`` the rest;
    ``half_whister``: a half-whist that stands, or was returned (then a passer too).
    """

    expect: tuple[int, frozenset[str]] | None
    needs_tricks: bool
    settled: bool
    whisters: tuple[int, ...]
    passers: tuple[int, ...]
    half_whister: int | None
    returned: bool
    tricks_allowed: bool


def defence_view(
    calls: list[tuple[int, str]], d1: int, d2: int, level: Level, rules: RuleSet
) -> DefenceView:
    """The defence automaton: the legal sequences of calls and what each one means.

    The second defender may half-whist after the first passed, on the levels in
    ``half_whist_levels``; the first defender may then return with ``whist``. Under
    the gentleman's whist the first defender may also whist, and when the second
    passes, go to half-whist himself; the second may then return [Code 3.8.14].
    """
    hw_ok = level.level in rules.half_whist_levels
    seq = tuple((seat == d1 and 1 or 2, call) for seat, call in calls)
    W, P, H = "whist", "pass", "half_whist"

    def view(
        expect: tuple[int, set[str]] | None,
        *,
        needs_tricks: bool = False,
        settled: bool = False,
        whisters: tuple[int, ...] = (),
        half: int | None = None,
        returned: bool = False,
        tricks_allowed: bool | None = None,
    ) -> DefenceView:
        passers = tuple(s for s in (d1, d2) if s not in whisters)
        return DefenceView(
            expect=(expect[0], frozenset(expect[1])) if expect else None,
            needs_tricks=needs_tricks,
            settled=settled,
            whisters=whisters,
            passers=passers,
            half_whister=half,
            returned=returned,
            tricks_allowed=needs_tricks if tricks_allowed is None else tricks_allowed,
        )

    if seq == ():
        return view((d1, {W, P}))
    if seq == ((1, W),):
        return view((d2, {W, P}))
    if seq == ((1, W), (2, W)):
        return view(None, needs_tricks=True, whisters=(d1, d2))
    if seq == ((1, W), (2, P)):
        gentleman_hw = rules.single_whist_split == "gentleman" and hw_ok
        return view((d1, {H}) if gentleman_hw else None, needs_tricks=True, whisters=(d1,))
    if seq == ((1, W), (2, P), (1, H)):
        return view((d2, {W}), settled=True, half=d1)
    if seq == ((1, W), (2, P), (1, H), (2, W)):
        return view(None, needs_tricks=True, whisters=(d2,), half=d1, returned=True)
    if seq == ((1, P),):
        return view((d2, {W, P, H} if hw_ok else {W, P}))
    if seq == ((1, P), (2, P)):
        return view(None, settled=True)
    if seq == ((1, P), (2, W)):
        return view(None, needs_tricks=True, whisters=(d2,))
    if seq == ((1, P), (2, H)):
        return view((d1, {W}), settled=True, half=d2)
    if seq == ((1, P), (2, H), (1, W)):
        return view(None, needs_tricks=True, whisters=(d1,), half=d2, returned=True)
    # Not reachable through the command side; a stored log is never judged here.
    return view(None, needs_tricks=True, whisters=tuple(s for s, c in calls if c == W))


@dataclass
class DealState:
    number: int
    dealer: int
    n_players: int
    bidders: tuple[int, ...]  # seats that bid, forehand first
    min_level: int  # the lowest contract allowed (6, or the raspasy exit)
    raspasy_before: int  # consecutive raspasy deals right before this one
    rules: RuleSet
    bids: list[tuple[int, str, int]] = field(default_factory=list)  # seat, bid, event
    passed: set[int] = field(default_factory=set)
    spoken: set[int] = field(default_factory=set)
    highest: Level | None = None
    highest_by: int | None = None
    own_level: dict[int, Level] = field(default_factory=dict)
    misere_bidder: int | None = None
    bidding_closed_at: int | None = None
    declarer: int | None = None
    raspasy: bool = False
    talon_without_bid: bool = False
    contract: Level | None = None
    calls: list[tuple[int, str]] = field(default_factory=list)
    call_events: list[int] = field(default_factory=list)
    tricks: dict[int, int] | None = None
    tricks_event: int | None = None
    annulled_at: int | None = None
    # Derived once per change of the calls or the contract (``phase`` asks often).
    _view: DefenceView | None = field(default=None, init=False, repr=False, compare=False)

    # -- derived -------------------------------------------------------------------

    @property
    def defenders(self) -> tuple[int, int]:
        """The two defenders, the one after the declarer (clockwise) first."""
        declarer = self.declarer
        assert declarer is not None
        n, bidders = self.n_players, self.bidders
        first = (declarer + 1) % n
        if first not in bidders:
            first = (first + 1) % n
        second = (first + 1) % n
        if second not in bidders:
            second = (second + 1) % n
        return first, second

    @property
    def no_defence(self) -> bool:
        """A misère, or a checked 10, is played without defence calls."""
        c = self.contract
        return c is not None and (c.is_misere or (self.rules.ten_checked and c.level == 10))

    def defence(self) -> DefenceView:
        view = self._view
        if view is None:
            assert self.contract is not None
            d1, d2 = self.defenders
            view = self._view = defence_view(self.calls, d1, d2, self.contract, self.rules)
        return view

    @property
    def phase(self) -> Phase:
        if self.annulled_at is not None:
            return "void"
        if self.bidding_closed_at is None:
            return "auction"
        if self.tricks is not None:
            return "done"
        if self.raspasy:
            return "play"
        if self.contract is None:
            return "contract"
        if self.no_defence:
            return "play"
        view = self.defence()
        if view.settled:
            return "done"
        if view.needs_tricks:
            return "play"
        return "defence"

    @property
    def resolved(self) -> bool:
        """The deal has a result (a standing half-whist counts; a return reopens it)."""
        return self.phase == "done"

    @property
    def active(self) -> tuple[int, ...]:
        """The seats that play the cards (all but a sitting-out dealer)."""
        return self.bidders

    def turn(self) -> int | None:
        """Whose bid it is, or None once the auction is closed."""
        if self.bidding_closed_at is not None:
            return None
        if not self.bids:
            return self.bidders[0]
        last_seat = self.bids[-1][0]
        i = self.bidders.index(last_seat)
        for step in range(1, len(self.bidders) + 1):
            seat = self.bidders[(i + step) % len(self.bidders)]
            if seat not in self.passed:
                return seat
        return None

    def may_say_here(self, seat: int) -> bool:
        """The forehand may hold another player's bid, not a misère, with ``here`` [Code 3.3.8,
        3.6.4]."""
        highest = self.highest
        return (
            seat == self.bidders[0]
            and highest is not None
            and self.highest_by != seat
            and not highest.is_misere
        )

    def third_hand_may_take_talon(self, seat: int) -> bool:
        """After two passes the third hand may take the talon without bidding [Code 3.3.15]."""
        return (
            self.bidding_closed_at is None
            and len(self.passed) == len(self.bidders) - 1
            and seat not in self.passed
            and seat not in self.spoken
            and self.turn() == seat
        )

    # -- evolve (no judging) ---------------------------------------------------------

    def apply_bid(self, seat: int, bid: str, number: int) -> None:
        self.bids.append((seat, bid, number))
        self.spoken.add(seat)
        if bid == PASS:
            self.passed.add(seat)
        elif bid == HERE:
            assert self.highest is not None
            self.highest_by = seat
            self.own_level[seat] = self.highest
        else:
            level = parse_level(bid)
            assert level is not None
            self.highest, self.highest_by = level, seat
            self.own_level[seat] = level
            if level.is_misere:
                self.misere_bidder = seat
        self._close_auction_if_over(number)

    def _close_auction_if_over(self, number: int) -> None:
        still_in = [s for s in self.bidders if s not in self.passed]
        if not still_in:
            self.raspasy = True
            self.bidding_closed_at = number
        elif len(still_in) == 1 and still_in[0] in self.own_level:
            self.declarer = still_in[0]
            self.bidding_closed_at = number

    def apply_contract(self, seat: int, contract: str, number: int) -> None:
        if self.bidding_closed_at is None:
            # The third hand takes the talon without bidding [Code 3.3.15].
            self.talon_without_bid = True
            self.declarer = seat
            self.spoken.add(seat)
            self.bidding_closed_at = number
        self.contract = parse_level(contract)
        self._view = None

    def apply_call(self, seat: int, call: str, number: int) -> None:
        self.calls.append((seat, call))
        self._view = None
        self.call_events.append(number)

    def apply_tricks(self, tricks: dict[int, int], number: int) -> None:
        self.tricks = dict(tricks)
        self.tricks_event = number

    def apply_annulled(self, number: int) -> None:
        self.annulled_at = number

    @property
    def resolved_at(self) -> int | None:
        """The event whose recording gave the deal its result."""
        if self.tricks_event is not None:
            return self.tricks_event
        if self.phase == "done" and self.call_events:
            return self.call_events[-1]
        return None


def first_bidders(dealer: int, n_players: int) -> tuple[int, ...]:
    """Bidding order: from the forehand (left of the dealer); a 4th player's dealer sits out."""
    seats = [(dealer + i) % n_players for i in range(1, n_players + 1)]
    if n_players == 4:
        seats = seats[:3]
    return tuple(seats)


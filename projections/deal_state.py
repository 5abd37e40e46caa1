"""The structure of one deal: auction, contract, defence calls, tricks, and what closed it.

``DealState`` is folded from the deal's events without judging them: it records
what happened and derives what the deal is waiting for. The command side
(``ledger.judge.pulka``) asks it who may speak next and what would be allowed; the
scoring (``projections.scoring``) asks it who declared, who whisted and what was
taken. Seats are indexes into the deal's ``names``, the seats at the table when the
deal began in clockwise order (the table can change between deals [Code 3.1.2]);
``persons`` are the people holding those seats (a substitute holds another's seat
[Code 5.4.7]).
"""

from __future__ import annotations

from copy import copy
from typing import Literal

import msgspec

from ledger.vocabulary.bids import HERE, LADDER, MISERE, PASS, Level, parse_level
from ledger.vocabulary.events import Ruling
from ledger.vocabulary.rules import RuleSet

Phase = Literal["auction", "contract", "defence", "play", "done", "void"]

W, P, H = "whist", "pass", "half_whist"
MISERE_RANK = LADDER[MISERE].rank


class DefenceView(msgspec.Struct, frozen=True):
    """What the defence calls so far amount to [rules.md §3, Code 3.8].

    ``expect``: (seat, allowed calls) for the next call, or None. The call is due when
    the deal is neither ``settled`` nor ``needs_tricks``; otherwise it may still come
    (a return, the gentleman's own half-whist, the dealer's whist, the half-whister's
    pass after a return) and the deal may go on without it.
    ``settled``: the deal needs no tricks (both passed, or a half-whist stands).
    ``whisters``: who defends actively, in the order they whisted (with four players the
    dealer too, when he whisted); ``half_whister``: a half-whist that stands, or was
    returned; ``returned``: a half-whist was returned [Code 3.8.8, 3.8.14].
    """

    expect: tuple[int, frozenset[str]] | None
    needs_tricks: bool
    settled: bool
    whisters: tuple[int, ...]
    half_whister: int | None
    returned: bool


# What a sequence of calls amounts to, by roles (1: the first defender, 2: the second,
# 3: the four-player dealer): (the role expected next and his calls, or None; the roles
# whisting when the deal is played, or None; settled; the half-whister's role; returned).
Spec = tuple[tuple[int, frozenset[str]] | None, tuple[int, ...] | None, bool, int | None, bool]
_TABLES: dict[tuple[bool, bool, bool, bool], dict[tuple[tuple[int, str], ...], Spec]] = {}


def _table(four: bool, hw: bool, gentleman: bool, forced: bool) -> dict[tuple[tuple[int, str], ...], Spec]:
    """The legal sequences of calls for one kind of deal, and what each amounts to [Code
    3.8.1-3.8.8.2, 3.8.14, 3.3.19 b]; built once per kind."""
    key = (four, hw, gentleman, forced)
    table = _TABLES.get(key)
    if table is not None:
        return table

    def spec(
        expect: tuple[int, set[str]] | None = None,
        *,
        play: tuple[int, ...] | None = None,
        settled: bool = False,
        half: int | None = None,
        returned: bool = False,
    ) -> Spec:
        return ((expect[0], frozenset(expect[1])) if expect else None), play, settled, half, returned

    if forced:
        table = {
            (): spec((1, {W})),
            ((1, W),): spec((2, {W})),
            ((1, W), (2, W)): spec(play=(1, 2)),
        }
    else:
        table = {
            (): spec((1, {W, P})),
            ((1, W),): spec((2, {W, P})),
            ((1, W), (2, W)): spec(play=(1, 2)),
            ((1, W), (2, P)): spec((1, {H}) if gentleman and hw else None, play=(1,)),
            ((1, W), (2, P), (1, H)): spec((2, {W, P} if four else {W}), settled=True, half=1),
            ((1, W), (2, P), (1, H), (2, W)): spec((1, {P}), play=(2,), half=1, returned=True),
            ((1, W), (2, P), (1, H), (2, W), (1, P)): spec(play=(2,), half=1, returned=True),
            ((1, P),): spec((2, {W, P, H} if hw else {W, P})),
            ((1, P), (2, P)): spec((3, {W, P}) if four and not hw else None, settled=True),
            ((1, P), (2, W)): spec(play=(2,)),
            ((1, P), (2, H)): spec((1, {W, P} if four else {W}), settled=True, half=2),
            ((1, P), (2, H), (1, W)): spec((2, {P}), play=(1,), half=2, returned=True),
            ((1, P), (2, H), (1, W), (2, P)): spec(play=(1,), half=2, returned=True),
        }
        if four:
            table.update({
                ((1, W), (2, P), (1, H), (2, P)): spec((3, {W, P}), settled=True, half=1),
                ((1, W), (2, P), (1, H), (2, P), (3, W)): spec((1, {P}), play=(3,), half=1, returned=True),
                ((1, W), (2, P), (1, H), (2, P), (3, W), (1, P)): spec(play=(3,), half=1, returned=True),
                ((1, W), (2, P), (1, H), (2, P), (3, P)): spec(settled=True, half=1),
                ((1, P), (2, P), (3, W)): spec(play=(3,)),
                ((1, P), (2, P), (3, P)): spec(settled=True),
                ((1, P), (2, H), (1, P)): spec((3, {W, P}), settled=True, half=2),
                ((1, P), (2, H), (1, P), (3, W)): spec((2, {P}), play=(3,), half=2, returned=True),
                ((1, P), (2, H), (1, P), (3, W), (2, P)): spec(play=(3,), half=2, returned=True),
                ((1, P), (2, H), (1, P), (3, P)): spec(settled=True, half=2),
            })
    _TABLES[key] = table
    return table


def defence_view(
    calls: list[tuple[int, str]],
    d1: int,
    d2: int,
    dealer: int | None,
    level: Level,
    rules: RuleSet,
    forced_whist: bool = False,
) -> DefenceView:
    """The defence automaton: the legal sequences of calls and what each one means.

    ``d1`` speaks first, then ``d2`` [Code 3.8.1, 3.8.3]. The second defender may
    half-whist after the first passed, on the levels in ``half_whist_levels`` [3.8.7];
    the first may then return with ``whist`` [3.8.8]. Under the gentleman's whist the
    first may also whist and, when the second passes, go to half-whist himself; the
    second may then return [3.8.14]. With four players (``dealer`` is the sitting-out
    dealer) a passer's refusal to return is a second ``pass``, after which the dealer is
    asked last and may return the whist; where no half-whist is possible, he alone may
    whist after two passes [3.8.8, 3.8.8.1]. After any return the half-whister may only
    pass [3.8.8.2]. On a dark six both defenders must whist [3.3.19 b]
    (``forced_whist``).
    """
    four = dealer is not None
    kind = (four, level.level in rules.half_whist_levels, rules.single_whist_split == "gentleman", forced_whist)
    key = (kind, d1, d2, dealer, *calls)
    view = _VIEWS.get(key)
    if view is None:
        view = _defence_view(_table(*kind), calls, d1, d2, dealer)
        if len(_VIEWS) >= _VIEWS_MOST:
            _VIEWS.clear()
        _VIEWS[key] = view
    return view


# The views worked out, by the kind of deal, the defenders and the calls so far: a game
# asks again after each call, a deal's scoring too, and the same few sequences recur.
_VIEWS: dict[tuple[object, ...], DefenceView] = {}
_VIEWS_MOST = 4096


def _defence_view(table: dict[tuple[tuple[int, str], ...], Spec], calls: list[tuple[int, str]], d1: int, d2: int,
                  dealer: int | None) -> DefenceView:
    """``defence_view`` worked out from the table of the deal's kind."""
    role = {d1: 1, d2: 2}
    if dealer is not None:
        role[dealer] = 3
    seq = tuple((role.get(s, 0), call) for s, call in calls)
    found = table.get(seq)
    if found is None:
        # Not reachable through the command side; a stored log is never judged here.
        return DefenceView(None, True, False, tuple(s for s, c in calls if c == W), None, False)
    seat = (-1, d1, d2, dealer if dealer is not None else -1)
    expect, play, settled, half, returned = found
    return DefenceView(
        expect=(seat[expect[0]], expect[1]) if expect else None,
        needs_tricks=play is not None,
        settled=settled,
        whisters=tuple(seat[r] for r in play or ()),
        half_whister=seat[half] if half is not None else None,
        returned=returned,
    )


class DealState(msgspec.Struct):
    number: int
    dealer: int
    names: tuple[str, ...]  # the seats (sheet names) at the table, clockwise
    persons: tuple[str, ...]  # who holds each seat for this deal
    bidders: tuple[int, ...]  # seats that bid, forehand first
    min_level: int  # the lowest contract allowed (6, or the exit after raspasy)
    raspasy_before: int  # where the raspasy progression stands [Code 3.7.4]
    rules: RuleSet
    forced: bool = False  # a forced raspasy that opens the pulka [Code 3.7.9]
    exit_dark: bool = False  # the minimum is the exit after a dark raspasy [Code 3.7.7]
    dealer_errors_before: int = 0  # the dealer's errors at this deal so far [Code 3.2.17]
    bids: list[tuple[int, str, int]] = msgspec.field(default_factory=list)  # seat, bid, event
    passed: set[int] = msgspec.field(default_factory=set)
    spoken: set[int] = msgspec.field(default_factory=set)
    highest: Level | None = None
    highest_by: int | None = None
    own_level: dict[int, Level] = msgspec.field(default_factory=dict)
    misere_bidder: int | None = None
    # Dark bids [Code 3.3.19]: who passed dark (in order), who has bid in the light
    # (and so has seen his cards), whether each player's last bid was dark.
    dark_passers: list[int] = msgspec.field(default_factory=list)
    looked: set[int] = msgspec.field(default_factory=set)
    dark_last: dict[int, bool] = msgspec.field(default_factory=dict)
    peeked: set[int] = msgspec.field(default_factory=set)  # looked at the talon [Code 3.2.21]
    bidding_closed_at: int | None = None
    declarer: int | None = None
    raspasy: bool = False
    talon_without_bid: bool = False
    contract: Level | None = None
    shared_with: int | None = None  # the dealer sharing a misère [Code 3.6.9]
    calls: list[tuple[int, str]] = msgspec.field(default_factory=list)
    call_events: list[int] = msgspec.field(default_factory=list)
    dealer_hand: int | None = None  # whose cards the whisting dealer plays [Code 3.8.8]
    tricks: dict[int, int] | None = None
    tricks_event: int | None = None
    penalties: tuple[tuple[int, int, str], ...] = ()  # seat, tricks, rule
    ruling: Ruling | None = None
    ruling_at: int | None = None
    offender: int | None = None  # who exposed the talon [Code 3.3.16.3]
    ruled_whists: tuple[tuple[int, int], ...] = ()  # seat, whists on the offender
    # The talon exposed while one other player still bid: it went to him and the deal
    # is played [Code 3.3.16.2]; who exposed it.
    exposed_by: int | None = None
    # A plan of play carried out against a partner's view [Code 3.8.5.1]: the ruling, its
    # event, whose plan it was, a) the compensation whists each dissenter writes on him,
    # b) the other plan's result and the dissenters given it.
    plan: Ruling | None = None
    plan_at: int | None = None
    planner: int | None = None
    plan_whists: tuple[tuple[int, int], ...] = ()
    other_tricks: dict[int, int] | None = None
    compensated: tuple[int, ...] = ()
    annulled_at: int | None = None
    dealer_error: bool = False
    # Derived once per change of the calls or the contract (``phase`` asks often).
    _view: DefenceView | None = None
    # The seat of each name in the deal: the seats' names and the people holding them
    # (``seat_index``; a game passes the one its table shares, which nothing changes;
    # made here when none is given).
    seat_index: dict[str, int] = {}
    # The game whose fold may change this deal in place (``GameState.fork``): a deal
    # another fold shares is copied before it is changed (``fork``).
    owner: object = None

    def __post_init__(self) -> None:
        if not self.seat_index:
            self.seat_index = seat_index(self.names, self.persons)

    def fork(self, owner: object) -> DealState:
        """An independent copy of the deal for ``owner`` to change: its lists, sets and
        dicts copied, the rest (numbers, tuples, levels, rulings, the shared
        ``seat_index``) shared, as nothing changes them."""
        other = copy(self)
        for name in _CHANGED_IN_PLACE:
            value = getattr(self, name)
            if value is not None:
                setattr(other, name, copy(value))
        other.owner = owner
        return other

    # -- derived -------------------------------------------------------------------

    @property
    def n_players(self) -> int:
        return len(self.names)

    def seat_of(self, name: str) -> int | None:
        """The seat of a seat name in this deal, None when it was not at the table."""
        try:
            return self.names.index(name)
        except ValueError:
            return None

    @property
    def sitting_out(self) -> int | None:
        """The four-player dealer, who sits out the auction [Code 3.2.10]."""
        return self.dealer if len(self.bidders) < self.n_players else None

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

    @property
    def dark_doublings(self) -> int:
        """Doublings of a raspasy by dark passes [Code 3.3.19 a]; a forced raspasy counts
        as one (everyone is deemed to pass dark once, [Code 3.7.9])."""
        d = 1 if self.forced else len(self.dark_passers)
        return min(d, self.rules.dark_limit)

    @property
    def dark_contract(self) -> bool:
        """The declarer won with a dark bid and plays it dark: the game is doubled
        [Code 3.3.19 b, c]; a dark suit bid turned into a misère is not."""
        d = self.declarer
        if d is None or self.contract is None or not self.dark_last.get(d, False):
            return False
        own = self.own_level.get(d)
        return not (self.contract.is_misere and own is not None and not own.is_misere)

    @property
    def forced_whist(self) -> bool:
        """A dark six must be whisted by both defenders, dark [Code 3.3.19 b]."""
        return self.dark_contract and self.contract is not None and self.contract.level == 6

    def defence(self) -> DefenceView:
        view = self._view
        if view is None:
            assert self.contract is not None
            d1, d2 = self.defenders
            view = self._view = defence_view(
                self.calls, d1, d2, self.sitting_out, self.contract, self.rules, self.forced_whist
            )
        return view

    @property
    def passers(self) -> tuple[int, ...]:
        """The defenders who hold cards and do not whist (a defender whose cards the
        dealer plays is not one of them)."""
        whisters = self.defence().whisters
        return tuple(s for s in self.defenders if s not in whisters and s != self.dealer_hand)

    @property
    def playing(self) -> tuple[int, ...]:
        """Who holds the cards in play: the bidders, the whisting dealer in the place of
        the defender whose cards he plays [Code 3.8.8]."""
        hand = self.dealer_hand
        return tuple(self.dealer if s == hand else s for s in self.bidders)

    @property
    def phase(self) -> Phase:
        if self.annulled_at is not None:
            return "void"
        if self.ruling is not None:
            return "done"
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
        """The seats that bid and play (all but a sitting-out dealer)."""
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

    def bid_floor(self) -> int:
        """The lowest level a suit bid may have now: the deal's minimum, raised by one for
        each dark pass of this deal [Code 3.3.19 a]."""
        return min(10, max(self.min_level, 6 + min(len(self.dark_passers), self.rules.dark_limit)))

    @property
    def nine_over_misere(self) -> bool:
        """A nine or ten has beaten a misère in this auction [Code 3.6.4, footnote 41]."""
        return (
            self.misere_bidder is not None and self.highest is not None and self.highest.rank > MISERE_RANK
        )

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

    def apply_bid(self, seat: int, bid: str, number: int, dark: bool = False) -> None:
        self.bids.append((seat, bid, number))
        self.spoken.add(seat)
        if not dark:
            self.looked.add(seat)
        self.dark_last[seat] = dark
        if bid == PASS:
            self.passed.add(seat)
            if dark or self.forced:
                self.dark_passers.append(seat)
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
        if len(self.passed) + 2 <= len(self.bidders):
            return  # two bidders or more are still in
        still_in = [s for s in self.bidders if s not in self.passed]
        if not still_in:
            self.raspasy = True
            self.bidding_closed_at = number
        elif len(still_in) == 1 and still_in[0] in self.own_level:
            self.declarer = still_in[0]
            self.bidding_closed_at = number

    def apply_contract(
        self, seat: int, contract: str, number: int, shared_with: int | None = None, recall: bool = False
    ) -> None:
        """The contract declared (or changed). ``recall``: an evident correction after a
        whist, which voids the calls said so far; the defence calls again [Code 3.4.8]."""
        if recall:
            self.calls.clear()
            self.call_events.clear()
            self.dealer_hand = None
        if self.bidding_closed_at is None:
            # The third hand takes the talon without bidding [Code 3.3.15].
            self.talon_without_bid = True
            self.declarer = seat
            self.spoken.add(seat)
            self.looked.add(seat)
            self.dark_last[seat] = False
            self.bidding_closed_at = number
        self.contract = parse_level(contract)
        self.shared_with = shared_with
        self._view = None

    def apply_call(self, seat: int, call: str, number: int, hand: int | None = None) -> None:
        self.calls.append((seat, call))
        if hand is not None:
            self.dealer_hand = hand
        self._view = None
        self.call_events.append(number)

    def apply_tricks(
        self, tricks: dict[int, int], number: int, penalties: tuple[tuple[int, int, str], ...] = ()
    ) -> None:
        self.tricks = dict(tricks)
        self.tricks_event = number
        self.penalties = penalties

    def apply_ruling(
        self,
        ruling: Ruling,
        number: int,
        tricks: dict[int, int] | None,
        offender: int | None = None,
        whists: tuple[tuple[int, int], ...] = (),
    ) -> None:
        """A ruling closes the deal; a result it gives in tricks is scored as tricks. The
        talon exposed while two still bid ends the bidding there [Code 3.3.16.3]: the
        deadline of the deal before [4.2.9, 4.2.10]."""
        self.ruling = ruling
        self.ruling_at = number
        if self.bidding_closed_at is None:
            self.bidding_closed_at = number
        self.offender = offender
        self.ruled_whists = whists
        if tricks is not None:
            self.tricks = tricks
            self.tricks_event = number

    def apply_exposed_talon(self, offender: int, number: int) -> None:
        """The talon exposed by ``offender`` while one other player still bid: the talon
        goes to him, his last bid counts as the auction's last, and he declares; having
        made no bid, he declares as the third hand who takes the talon [Code 3.3.16.2,
        3.3.15]."""
        self.exposed_by = offender
        winner = self.still_bidding(offender)[0]
        self.declarer = winner
        if winner not in self.own_level:
            self.talon_without_bid = True
            self.spoken.add(winner)
            self.looked.add(winner)
            self.dark_last[winner] = False
        self.bidding_closed_at = number

    def apply_plan_ruling(
        self,
        ruling: Ruling,
        number: int,
        planner: int,
        whists: tuple[tuple[int, int], ...],
        other: dict[int, int] | None,
        compensated: tuple[int, ...],
    ) -> None:
        """How a deal played by one defender's plan is written [Code 3.8.5.1]."""
        self.plan = ruling
        self.plan_at = number
        self.planner = planner
        self.plan_whists = whists
        self.other_tricks = other
        self.compensated = compensated

    def still_bidding(self, offender: int) -> list[int]:
        """The players besides ``offender`` who have not finished the auction: neither
        passed nor barred by a look at the talon [Code 3.3.16, 3.3.16.1]."""
        return [s for s in self.bidders if s not in self.passed and s not in self.peeked and s != offender]

    def apply_annulled(self, number: int, dealer_error: bool = False) -> None:
        self.annulled_at = number
        self.dealer_error = dealer_error

    @property
    def passes_on(self) -> bool:
        """The dealer's second error at this deal: the deal passes on [Code 3.2.17]."""
        return self.annulled_at is not None and self.dealer_error and self.dealer_errors_before >= 1

    @property
    def resolved_at(self) -> int | None:
        """The event whose recording gave the deal its result."""
        if self.ruling_at is not None:
            return self.ruling_at
        if self.tricks_event is not None:
            return self.tricks_event
        if self.phase == "done" and self.call_events:
            return self.call_events[-1]
        return None


def seat_index(names: tuple[str, ...], persons: tuple[str, ...]) -> dict[str, int]:
    """The seat of each seat name and of each person holding a seat."""
    index = {name: i for i, name in enumerate(names)}
    for i, person in enumerate(persons):
        index[person] = i
    return index


def first_bidders(dealer: int, n_players: int) -> tuple[int, ...]:
    """Bidding order: from the forehand (left of the dealer); a 4th player's dealer sits out."""
    known = _BIDDERS.get((dealer, n_players))
    if known is not None:
        return known
    seats = [(dealer + i) % n_players for i in range(1, n_players + 1)]
    if n_players == 4:
        seats = seats[:3]
    _BIDDERS[(dealer, n_players)] = found = tuple(seats)
    return found


_BIDDERS: dict[tuple[int, int], tuple[int, ...]] = {}  # first_bidders, worked out once for each table


# The fields of a deal that its fold changes in place (the others it replaces): what
# ``DealState.fork`` copies.
_CHANGED_IN_PLACE = ("bids", "passed", "spoken", "own_level", "dark_passers", "looked", "dark_last", "peeked",
                     "calls", "call_events", "tricks", "other_tricks")

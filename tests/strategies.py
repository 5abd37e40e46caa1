"""Hypothesis strategies that generate legal pulka logs by playing them.

``legal_logs`` walks a game with the real command side: at every step it looks at
the current ``GameState``, draws one of the events the rules allow next (a bid, a
contract, a defence call, the tricks with or without penalty tricks, an entry, an
arbiter's penalty or ruling, a deal out of turn, a dealer's error, the talon's records,
a newcomer, a leaver, a substitute, the end), has ``ledger.judge.pulka.decide`` judge
it and folds the judged event in with ``GameState.apply``. The log is therefore legal
by construction, and when ``decide`` refuses an event the generator believed legal,
the ``Refused`` propagates: the generator and the command side disagree about the
rules, which is a bug in one of them (hypothesis shrinks it to a minimal game).

The generator reads only the facts of the projection (whose turn, the highest bid,
who passed dark, the calls made, whose cards the dealer plays); what is legal is
derived here from rules.md and the Code, independently of the checks in
``ledger.judge`` and of the defence automaton in ``projections.deal_state``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import msgspec
from hypothesis import strategies as st

from ledger.judge.pulka import Refused, decide, start
from ledger.vocabulary.bids import BY_RANK, LADDER, MISERE, Level
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
    PenaltyTrick,
    Ruling,
    Substituted,
    Talon,
    Tricks,
)
from ledger.vocabulary.rules import PRESETS
from projections.deal_state import DealState
from projections.game import GameState

NAMES = ("Anna", "Boris", "Vera", "Gleb")
NEWCOMERS = ("Dima", "Egor", "Zoya", "Lev")
CONVENTIONS = tuple(PRESETS)  # sochi, leningrad, rostov, classic
ARBITER = "arbiter:Oleg"
SCORER = "scorer:Masha"
START_TIME = datetime(2026, 11, 30, 19, 0, tzinfo=timezone.utc)
MISERE_RANK = LADDER[MISERE].rank

Draw = Any  # hypothesis' draw function inside a composite strategy


class Walk:
    """A game being played: the judged events so far and the state they fold into."""

    def __init__(self, draw: Draw, started: GameStarted) -> None:
        self.draw = draw
        self.seconds = 0
        started = self.stamp(start(started))
        assert isinstance(started, GameStarted)
        self.state = GameState.start(started)
        self.events: list[AnyEvent] = [started]
        # How readily players pass, per game: some games are mostly raspasy.
        self.passiness = draw(st.integers(20, 75))
        # Some tables have a scorer who types every record [Code 4.2.4-4.2.7].
        self.scorer = draw(st.booleans())
        self.premium_done: set[int] = set()

    def stamp(self, event: AnyEvent) -> AnyEvent:
        """Give the event a time, never earlier than the previous one (ties allowed)."""
        self.seconds += self.draw(st.integers(0, 120))
        at = (START_TIME + timedelta(seconds=self.seconds)).isoformat()
        return msgspec.structs.replace(event, at=at)

    def record(self, event: AnyEvent) -> AnyEvent:
        """Judge the event on the real command side and fold it in; Refused propagates."""
        if self.scorer and event.by is None and not isinstance(event, Penalty) and self.chance(50):
            event = msgspec.structs.replace(event, by=SCORER)
        judged = decide(self.state, self.stamp(event))
        self.state.apply(judged)
        self.events.append(judged)
        return judged

    def chance(self, percent: int) -> bool:
        """True with about that probability; shrinks towards False."""
        return bool(self.draw(st.integers(0, 99)) >= 100 - percent)

    def player(self) -> str:
        return self.draw(st.sampled_from(self.state.players))


# -- what is legal next, from rules.md and the Code ---------------------------------------


def bid_floor(deal: DealState) -> int:
    """The lowest suit bid: the deal's minimum, one higher for each dark pass before it,
    up to the agreed limit [Code 3.3.19 a]."""
    return max(deal.min_level, 6 + min(len(deal.dark_passers), deal.rules.dark_limit))


def only_pass(deal: DealState, seat: int) -> bool:
    """Who may only pass: the misère bidder [3.6.4], everyone after a nine beat a misère
    where the auction then stops [footnote 41], a player who saw the talon [3.3.16.1],
    everyone in a forced raspasy [3.7.9]."""
    nine_over_misere = (
        deal.misere_bidder is not None and deal.highest is not None and deal.highest.rank > MISERE_RANK
    )
    return (
        deal.misere_bidder == seat
        or (nine_over_misere and deal.rules.misere_nine_ends_auction)
        or seat in deal.peeked
        or deal.forced
    )


def bid_levels(deal: DealState) -> list[Level]:
    """Suit bids the player whose turn it is may make: above the highest, at least the
    deal's floor; one step only when ``jump_bids`` is off (rules.md §2)."""
    floor = deal.highest.rank if deal.highest is not None else -1
    levels = [lv for lv in BY_RANK if not lv.is_misere and lv.rank > floor and lv.level >= bid_floor(deal)]
    if not deal.rules.jump_bids:
        levels = levels[:1]
    return levels


def may_bid_misere(deal: DealState, seat: int) -> bool:
    """Misère only as a player's first bid while the highest bid is below it [Code 3.3.9]."""
    return seat not in deal.spoken and (deal.highest is None or deal.highest.rank < MISERE_RANK)


def may_say_here(deal: DealState, seat: int) -> bool:
    """The forehand holds another player's bid; never a misère [Code 3.3.8, 3.6.4]."""
    return (
        seat == deal.bidders[0]
        and deal.highest is not None
        and deal.highest_by != seat
        and not deal.highest.is_misere
        and deal.misere_bidder != seat
    )


def contract_levels(deal: DealState, seat: int) -> list[Level]:
    """What the declarer may declare: a misère iff he bid one, else at least his bid
    (at least the deal's floor after taking the talon without bidding) [Code 3.4]; a
    dark winner may turn to a misère [3.3.19 b]."""
    own = deal.own_level.get(seat)
    if own is not None and own.is_misere:
        return [LADDER[MISERE]]
    floor = own.rank if own is not None else -1
    levels = [lv for lv in BY_RANK if not lv.is_misere and lv.rank >= floor and lv.level >= bid_floor(deal)]
    if own is not None and deal.dark_last.get(seat, False):
        levels.append(LADDER[MISERE])
    return levels


def may_change_contract(deal: DealState) -> bool:
    """The declarer may change his contract until a defender has whisted [Code 3.4.7-3.4.8]."""
    return (
        deal.contract is not None
        and not deal.contract.is_misere
        and not deal.no_defence
        and deal.phase == "defence"
        and all(call == "pass" for _, call in deal.calls)
    )


W, P, H = "whist", "pass", "half_whist"


def defenders_of(deal: DealState) -> tuple[int, int]:
    """The two defenders: the bidders after the declarer, clockwise (rules.md §3)."""
    assert deal.declarer is not None
    n = deal.n_players
    after = [(deal.declarer + i) % n for i in range(1, n)]
    first, second = [s for s in after if s in deal.bidders]
    return first, second


def dark_six(deal: DealState) -> bool:
    """A six won with a dark bid: both defenders must whist [Code 3.3.19 b]."""
    assert deal.declarer is not None and deal.contract is not None
    return deal.contract.level == 6 and deal.dark_last.get(deal.declarer, False)


def defence_options(deal: DealState) -> tuple[int, list[str], bool, str]:
    """What the Code allows next in the defence, derived here from its wording by
    reading the calls one by one, and not from the projection's automaton: the seat to
    speak, the calls it may make, whether it must speak (False: the deal may go on
    without it), and what the calls so far amount to: "calls" (more are due), "play"
    or "settled" (no play).

    The first defender speaks, then the second [3.8.1, 3.8.3]; after a pass the second
    may half-whist on the half-whist levels [3.8.7], after which the passer may return
    the whist [3.8.8]; under the gentleman's whist the first may whist and, the second
    passing, go to half-whist himself, the second returning [3.8.14]. With four players
    the dealer is asked last: after a half-whist the passer's refusal is his second pass,
    then the dealer may return the whist [3.8.8]; where no half-whist is possible the
    dealer alone may whist after two passes [3.8.8.1]. After any return the half-whister
    may only pass [3.8.8.2]. A dark six is whisted by both [3.3.19 b].
    """
    assert deal.contract is not None
    d1, d2 = defenders_of(deal)
    dealer = deal.dealer if deal.n_players == 4 else None
    half_ok = deal.contract.level in deal.rules.half_whist_levels
    gentleman = deal.rules.single_whist_split == "gentleman"
    calls = list(deal.calls)

    def take(seat: int) -> str | None:
        if calls and calls[0][0] == seat:
            return calls.pop(0)[1]
        return None

    if dark_six(deal):
        for s in (d1, d2):
            if take(s) is None:
                return s, [W], True, "calls"
        assert not calls, f"calls after a dark six: {calls}"
        return d1, [], False, "play"

    def after_half(half: int, returner: int) -> tuple[int, list[str], bool, str]:
        """A half-whist stands until the partner who passed returns the whist; with four
        the dealer after him."""
        answer = take(returner)
        if answer is None:
            return returner, [W, P] if dealer is not None else [W], False, "settled"
        if answer == W:
            return after_return(half)
        assert answer == P and dealer is not None, f"{answer} after a half-whist"
        answer = take(dealer)
        if answer is None:
            return dealer, [W, P], False, "settled"
        if answer == W:
            return after_return(half)
        return dealer, [], False, "settled"

    def after_return(half: int) -> tuple[int, list[str], bool, str]:
        if take(half) is None:
            return half, [P], False, "play"
        return half, [], False, "play"

    first = take(d1)
    if first is None:
        return d1, [W, P], True, "calls"
    second = take(d2)
    if first == W:
        if second is None:
            return d2, [W, P], True, "calls"
        if second == W:
            return d1, [], False, "play"
        if take(d1) == H:
            return after_half(d1, d2)
        return d1, [H] if gentleman and half_ok else [], False, "play"
    if second is None:
        return d2, [W, P] + ([H] if half_ok else []), True, "calls"
    if second == W:
        return d1, [], False, "play"
    if second == H:
        return after_half(d2, d1)
    if dealer is not None and not half_ok:
        answer = take(dealer)
        if answer is None:
            return dealer, [W, P], False, "settled"
        return dealer, [], False, "play" if answer == W else "settled"
    return d1, [], False, "settled"


def pending_call(deal: DealState | None) -> tuple[int, list[str]] | None:
    """A call that may still come after the deal is settled: a return of the whist, a
    second pass, the dealer's whist or pass."""
    if deal is None or deal.annulled_at is not None or deal.raspasy or deal.contract is None:
        return None
    if deal.no_defence or deal.tricks is not None or deal.ruling is not None:
        return None
    seat, calls, _, outcome = defence_options(deal)
    if deal.phase == "done":
        assert outcome == "settled", f"deal {deal.number}: the projection ends it unplayed, the rules say {outcome}"
    return (seat, calls) if outcome == "settled" and calls else None


pending_return = pending_call


def defence_call(walk: Walk, deal: DealState, seat: int, calls: list[str]) -> Defence:
    """One of the calls; the dealer who whists names the defender whose cards he plays."""
    names = deal.persons
    call = walk.draw(st.sampled_from(sorted(calls)))
    hand = None
    if call == W and deal.n_players == 4 and seat == deal.dealer:
        hand = names[walk.draw(st.sampled_from(defenders_of(deal)))]
    is_open = True if call == W and not dark_six(deal) and walk.chance(20) else None
    return Defence(player=names[seat], call=call, open=is_open, hand=hand)


# -- drawing one event ----------------------------------------------------------------------


def pick(walk: Walk, options: list[Any], near: int = 3) -> Any:
    """One of the options, usually among the first ``near`` (shrinks to the first)."""
    if walk.chance(80):
        return options[walk.draw(st.integers(0, min(near, len(options)) - 1))]
    return options[walk.draw(st.integers(0, len(options) - 1))]


def split(walk: Walk, total: int, parts: int) -> list[int]:
    """A random split of ``total`` tricks into ``parts`` counts."""
    counts = []
    for _ in range(parts - 1):
        t = walk.draw(st.integers(0, total))
        counts.append(t)
        total -= t
    counts.append(total)
    return walk.draw(st.permutations(counts))


def auction_event(walk: Walk, deal: DealState) -> AnyEvent:
    names = deal.persons
    seat = deal.turn()
    assert seat is not None
    player = names[seat]
    dark_ok = deal.rules.dark_bids and seat not in deal.looked
    if deal.third_hand_may_take_talon(seat) and not deal.forced and walk.chance(25):
        level = pick(walk, [lv for lv in contract_levels(deal, seat) if not lv.is_misere])
        return Contract(player=player, contract=str(level))
    if only_pass(deal, seat):
        return Bid(player=player, bid="pass", dark=dark_ok and deal.forced and walk.chance(50))
    # A dark pass is a first word before anyone has bid [Code 3.3.19 a].
    if dark_ok and seat not in deal.spoken and deal.highest is None and walk.chance(15):
        return Bid(player=player, bid="pass", dark=True)
    # Passing grows likelier as the auction climbs, so auctions end.
    climbed = deal.highest.rank if deal.highest is not None else 0
    if walk.draw(st.integers(0, 99)) < walk.passiness + climbed * 2:
        return Bid(player=player, bid="pass")
    dark = dark_ok and walk.chance(20)
    options: list[str] = [str(lv) for lv in bid_levels(deal)]
    dark_misere = (
        deal.highest is not None and deal.highest.is_misere and deal.misere_bidder is not None
        and deal.dark_last.get(deal.misere_bidder, False)
    )
    if dark_misere and not dark:
        # A dark misère is beaten only by a dark nine or a ten [Code 3.3.19 c].
        options = [o for o in options if not o.startswith("9")]
    extras = []
    if may_bid_misere(deal, seat) and walk.chance(8):
        extras.append(MISERE)
    if may_say_here(deal, seat) and walk.chance(40):
        extras.append("here")
    if extras:
        word = walk.draw(st.sampled_from(extras))
        return Bid(player=player, bid=word, dark=dark and word == MISERE)
    if not options:
        return Bid(player=player, bid="pass")
    return Bid(player=player, bid=pick(walk, options), dark=dark)


def contract_event(walk: Walk, deal: DealState) -> AnyEvent:
    assert deal.declarer is not None
    levels = contract_levels(deal, deal.declarer)
    if deal.calls and deal.dark_last.get(deal.declarer, False):
        # a dark six needs both defenders' whists: not after a pass [Code 3.3.19 b]
        levels = [lv for lv in levels if lv.level != 6]
    if deal.contract is not None:
        # a dark game turns into a misère only before the talon is taken [Code 3.3.19 b]
        levels = [lv for lv in levels if not lv.is_misere] or levels
    level = pick(walk, levels, near=2)
    shared = None
    if level.is_misere and deal.rules.misere_with_dealer and deal.n_players == 4 and walk.chance(40):
        shared = deal.persons[deal.dealer]  # a misère in halves with the dealer [Code 3.6.9]
    return Contract(player=deal.persons[deal.declarer], contract=str(level), shared_with=shared)


def defence_event(walk: Walk, deal: DealState) -> AnyEvent:
    assert deal.declarer is not None
    if may_change_contract(deal) and walk.chance(5):
        return contract_event(walk, deal)
    seat, calls, must, outcome = defence_options(deal)
    assert must and outcome == "calls", f"deal {deal.number} is in defence but the rules expect {outcome}"
    return defence_call(walk, deal, seat, calls)


def hands_in_play(deal: DealState) -> list[int]:
    """Who holds cards in a played contract: the declarer and the defenders, the dealer
    in the place of the defender whose cards he whists with [Code 3.8.8]."""
    assert deal.declarer is not None
    seats = [deal.declarer, *defenders_of(deal)]
    return [deal.dealer if s == deal.dealer_hand else s for s in seats]


def result_tricks(walk: Walk, deal: DealState) -> dict[str, int]:
    """A result in tricks for a deal in play."""
    names = deal.persons
    if deal.raspasy:
        seats = list(deal.active)
        tricks: dict[str, int] = {}
        rest = 10
        sitting_out = deal.n_players > len(seats)
        if sitting_out and deal.rules.raspasy_talon:
            talon = walk.draw(st.integers(0, 2))
            tricks[names[deal.dealer]] = talon
            rest -= talon
        elif sitting_out and walk.chance(20):
            tricks[names[deal.dealer]] = 0  # named, without talon tricks
        for s, t in zip(seats, split(walk, rest, len(seats))):
            tricks[names[s]] = t
        return tricks
    assert deal.declarer is not None and deal.contract is not None
    declarer = deal.declarer
    if deal.contract.is_misere:
        taken = walk.draw(st.integers(0, 2)) if walk.chance(80) else walk.draw(st.integers(0, 10))
        if walk.chance(30):
            return {names[declarer]: taken}
    else:
        need = deal.contract.needed
        if walk.chance(70):
            taken = max(0, min(10, need + walk.draw(st.integers(-2, 2))))
        else:
            taken = walk.draw(st.integers(0, 10))
    _, a_seat, b_seat = hands_in_play(deal)
    a, b = split(walk, 10 - taken, 2)
    return {names[declarer]: taken, names[a_seat]: a, names[b_seat]: b}


def penalty_tricks(walk: Walk, deal: DealState, tricks: dict[str, int]) -> tuple[PenaltyTrick, ...]:
    """Now and then the Code's penalty tricks [3.4.6, 3.4.9, 3.9.11.2, 3.9.18]: on
    raspasy only for looking at a closed trick; the declarer's rules for the declarer;
    on a misère or a checked 10 the defenders' tricks carry no obligation to touch."""
    if not walk.chance(15):
        return ()
    player = walk.draw(st.sampled_from(sorted(tricks)))
    seat = deal.persons.index(player)
    if deal.raspasy:
        return (PenaltyTrick(player=player, tricks=1, rule="3.9.11.2"),)
    assert deal.contract is not None
    declarer = seat == deal.declarer
    if declarer:
        rule = walk.draw(st.sampled_from(("3.4.6", "3.4.9", "3.9.11.2", "3.9.18", "3.2.16")))
    elif deal.contract.is_misere:
        return ()
    elif deal.no_defence:
        rule = "3.9.11.2"
    else:
        rule = walk.draw(st.sampled_from(("3.9.11.2", "3.9.18", "3.2.16")))
    n = {"3.4.6": 2, "3.4.9": 1, "3.9.11.2": 1}.get(rule) or walk.draw(st.integers(2, 3))
    return (PenaltyTrick(player=player, tricks=n, rule=rule),)


def tricks_event(walk: Walk, deal: DealState) -> AnyEvent:
    tricks = result_tricks(walk, deal)
    return Tricks(tricks=tricks, penalty_tricks=penalty_tricks(walk, deal, tricks))


def ruling_event(walk: Walk, deal: DealState) -> AnyEvent | None:
    """A ruling or agreement, where the Code allows one: one that closes the deal
    [3.3.16.3, 3.4.4, 3.5.4, 3.9.22], or one after which it is played [3.3.16.2, 3.8.5.1]."""
    names = deal.persons
    phase = deal.phase
    state = walk.state
    if phase == "auction":
        offender = walk.draw(st.sampled_from(range(deal.n_players)))
        still = deal.still_bidding(offender)
        if len(still) == 1:
            return Ruling(rule="3.3.16.2", offender=names[offender], by=ARBITER)
        if len(still) < 2:
            return None
        wronged = [s for s in range(deal.n_players) if s != offender]
        whists = {names[s]: walk.draw(st.integers(1, 60)) for s in wronged[: walk.draw(st.integers(1, 2))]}
        return Ruling(rule="3.3.16.3", offender=names[offender], whists=whists, by=ARBITER)
    if phase == "contract":
        assert deal.declarer is not None
        if deal.own_level.get(deal.declarer) is None:
            return None
        return Ruling(rule="3.4.4", by=ARBITER, reason="declared against the rules and would not change")
    if phase != "play" or deal.raspasy:
        return None
    assert deal.contract is not None
    plan = plan_ruling(walk, deal)
    if plan is not None:
        return plan
    whisted = not deal.no_defence and bool(deal.defence().whisters)
    if not deal.contract.is_misere and whisted and walk.chance(50):
        tricks = None
        if walk.chance(50):
            _, a_seat, b_seat = hands_in_play(deal)
            a = walk.draw(st.integers(0, 10))
            assert deal.declarer is not None
            tricks = {names[deal.declarer]: 0, names[a_seat]: a, names[b_seat]: 10 - a}
        return Ruling(rule="3.5.4", tricks=tricks)
    return Ruling(rule="3.9.22", tricks=result_tricks(walk, deal), agreed_by=state.players)


def plan_ruling(walk: Walk, deal: DealState) -> AnyEvent | None:
    """Sometimes, on a game whisted by one or a misère, a ruling on the plan of play
    [Code 3.8.5.1]: agreed compensation (a) or the arbiter's compensating result (b)."""
    assert deal.contract is not None and deal.declarer is not None
    if deal.plan is not None or not walk.chance(30):
        return None
    names = deal.persons
    if deal.contract.is_misere:
        planner = walk.draw(st.sampled_from(deal.defenders))
    elif deal.no_defence or len(deal.defence().whisters) != 1:
        return None
    else:
        planner = deal.defence().whisters[0]
    others = [s for s in range(deal.n_players) if s not in (deal.declarer, planner, deal.shared_with)]
    dissenters = others[: walk.draw(st.integers(1, len(others)))]
    if walk.chance(50):
        whists = {names[s]: walk.draw(st.integers(1, 60)) for s in dissenters}
        return Ruling(rule="3.8.5.1", planner=names[planner], whists=whists,
                      agreed_by=(names[planner], *whists))
    return Ruling(rule="3.8.5.1", planner=names[planner], tricks=result_tricks(walk, deal),
                  compensated=tuple(names[s] for s in dissenters),
                  declarer_result="other" if walk.chance(50) else "played", by=ARBITER)


def by_hand_event(walk: Walk) -> AnyEvent:
    """An entry, a pencil down or an arbiter's penalty: small numbers in any column; a
    penalty never benefits the penalised player (gora up, pulya down, whists on him)."""
    state = walk.state
    kind = walk.draw(st.integers(0, 9))
    player = walk.player()
    if kind >= 8:
        return PencilDown(player=SCORER if walk.scorer and walk.chance(50) else player)
    column = walk.draw(st.sampled_from(("pulya", "gora", "whists")))
    other = walk.draw(st.sampled_from([p for p in state.players if p != player]))
    if kind == 7:
        if column == "whists":
            return Penalty(player=player, column="whists", amount=walk.draw(st.integers(1, 8)), wronged=other,
                           reason="ruling", by=ARBITER)
        amount = walk.draw(st.integers(1, 8))
        return Penalty(player=player, column=column, amount=amount if column == "gora" else -amount,
                       reason="ruling", by=ARBITER)
    amount = walk.draw(st.integers(-3, 8))
    return Entry(player=player, column=column, amount=amount, on=other if column == "whists" else None)


def recording_step(walk: Walk, forgotten: set[int]) -> None:
    """One event of the recording rules (rules.md §8): a late record, an objection, or
    a correction of an entry, a penalty or tricks.

    A correction is an attempt: the command side refuses one that would make a later
    recorded event invalid (a changed result can end the pulka before a recorded
    deal), which only a replay of the corrected log can tell; such a refusal is
    skipped, any other propagates.
    """
    state = walk.state
    current = state.current_deal_number
    kind = walk.draw(st.integers(0, 3))
    waiting = [k for k in sorted(forgotten) if k < current and state.deals[k - 1].phase == "play"]
    if kind == 0 and waiting:
        k = walk.draw(st.sampled_from(waiting))
        late = tricks_event(walk, state.deals[k - 1])
        walk.record(msgspec.structs.replace(late, deal=k))
        return
    if kind <= 1 and current >= 2:
        entry = by_hand_event(walk)
        if isinstance(entry, (Entry, Penalty)):
            k = current - 1 if walk.chance(70) else walk.draw(st.integers(1, current - 1))
            # a record of deal k names only players who were in the pulka then [Code 3.1.2]
            then = state.opened_with[k].everyone
            named = [entry.player, entry.on, entry.wronged if isinstance(entry, Penalty) else None]
            if all(n is None or state.seat_key(n) in then for n in named):
                walk.record(msgspec.structs.replace(entry, deal=k))
        return
    if kind == 2 and current >= 2:
        # An objection refuses late records of the deal before the one begun [Code 4.2.10].
        player = walk.player()
        k = current - 1
        late = [
            i for i, e in enumerate(state.events, start=1)
            if isinstance(e, (Entry, Tricks)) and e.deal == k and e.by != player
        ]
        target = walk.draw(st.sampled_from(late)) if late and walk.chance(50) else None
        walk.record(Objection(player=player, deal=k, target=target))
        return
    targets = [
        i for i in range(2, state.folded + 1)
        if isinstance(state.content(i), (Entry, Penalty, Tricks))
    ]
    if not targets:
        return
    number = walk.draw(st.sampled_from(targets))
    target = state.content(number)
    replacement: dict[str, Any]
    if isinstance(target, Tricks):
        deal = state.deals[(target.deal or current) - 1]
        movable = [p for p in target.tricks if not (deal.raspasy and deal.persons.index(p) not in deal.active)]
        if len(movable) < 2:
            return
        giver, taker = walk.draw(st.permutations(movable))[:2]
        if target.tricks[giver] == 0:
            return
        tricks = dict(target.tricks)
        tricks[giver] -= 1
        tricks[taker] += 1
        replacement = {"tricks": tricks}
    else:
        replacement = {"amount": target.amount + walk.draw(st.sampled_from((-2, -1, 1, 3)))}
    by = walk.draw(st.sampled_from(tuple(p for p in (target.by,) if p) + state.players))
    penalty = "waived" if walk.chance(20) else None
    try:
        walk.record(Correction(target=number, replacement=replacement, penalty=penalty, by=by))
    except Refused as exc:
        if not (exc.rule == "4.2.7" and "would make" in exc.reason):
            raise


def talon_event(walk: Walk, deal: DealState) -> AnyEvent | None:
    """The talon's records, where the rules have them [Code 3.2.21, 3.4.10, 3.4.11]."""
    rules = deal.rules
    names = deal.persons
    if deal.phase == "auction":
        return Talon(kind="peek", player=walk.player()) if walk.chance(30) else None
    if deal.declarer is None or deal.declarer == deal.dealer:
        return None
    declarer = names[deal.declarer]
    if deal.phase == "contract" and rules.talon_refusal_gora:
        return Talon(kind="refused", player=declarer)
    if (
        rules.talon_premium and deal.contract is not None and not deal.contract.is_misere
        and deal.phase in ("defence", "play") and deal.number not in walk.premium_done
    ):
        walk.premium_done.add(deal.number)
        return Talon(kind="premium", player=declarer, tricks=walk.draw(st.integers(1, 3)))
    return None


def deal_event(walk: Walk, deal: DealState) -> AnyEvent:
    """The next event of a deal in progress."""
    phase = deal.phase
    if walk.chance({"auction": 1, "contract": 4, "play": 4}.get(phase, 0)):
        ruling = ruling_event(walk, deal)
        if ruling is not None:
            return ruling
    if walk.chance(15 if phase == "contract" else 4):
        talon = talon_event(walk, deal)
        if talon is not None:
            return talon
    if phase == "auction":
        if walk.chance(2):
            return Annulled(reason="misdeal found during the auction", dealer_error=walk.chance(50))
        seat = deal.turn()
        assert seat is not None
        if (
            deal.n_players == 4 and deal.rules.misere_with_dealer and not deal.bids and not only_pass(deal, seat)
            and walk.chance(20)
        ):
            return Bid(player=deal.persons[seat], bid=MISERE)
        return auction_event(walk, deal)
    if phase == "contract":
        if walk.chance(2):  # a misdeal found once the bidding is over, before the contract [Code 3.2.16]
            return Annulled(reason="misdeal found before the contract", dealer_error=walk.chance(50))
        return contract_event(walk, deal)
    if phase == "defence":
        return defence_event(walk, deal)
    assert phase == "play", phase
    if deal.contract is not None and not deal.raspasy and not deal.no_defence:
        seat, calls, _, outcome = defence_options(deal)
        assert outcome == "play", f"deal {deal.number}: the projection plays it, the rules say {outcome}"
        if deal.plan is not None:
            # the plan of play ruled on is carried out: no half-whist now leaves the deal
            # unplayed [Code 3.8.5.1, 3.8.7]; the half-whister's pass after a return stands
            calls = [c for c in calls if c != H]
        if calls and walk.chance(25):  # the gentleman's own half-whist, the half-whister's pass
            return defence_call(walk, deal, seat, calls)
    return tricks_event(walk, deal)


def first_bid(walk: Walk) -> AnyEvent:
    """The bid that opens the next deal: its forehand's."""
    nxt = walk.state.next_deal()
    return auction_event(walk, nxt)


def table_event(walk: Walk) -> AnyEvent | None:
    """Between deals: a newcomer, a leaver, a substitute, a deal out of turn
    [Code 3.1.2, 5.4.7, 5.4.18, 3.2.14]."""
    state = walk.state
    players = state.players
    fresh = [n for n in NEWCOMERS if state.seat_key(n) is None]
    if len(players) == 3 and state.current is not None and fresh and walk.chance(50):
        return Joined(player=fresh[0], agreed_by=players)
    if len(players) == 4 and walk.chance(40):
        return Left(player=walk.player(), reason="a train to catch")
    if fresh and walk.chance(40):
        leaving = walk.player()
        return Substituted(player=leaving, substitute=fresh[0],
                           agreed_by=tuple(p for p in players if p != leaving))
    due = state.seats.holder(state.due_dealer())
    others = [p for p in players if p != due]
    return Dealt(player=walk.draw(st.sampled_from(others)))


# -- the strategy ---------------------------------------------------------------------------


def rule_overrides() -> st.SearchStrategy[dict[str, Any]]:
    """A club's overrides of any parameters (rules.md §9), as a JSON log carries them."""
    return st.fixed_dictionaries(
        {},
        optional={
            "gora_whist_multiplier": st.integers(1, 3),
            "consolation": st.sampled_from(["price", 10, 15]),
            "single_whist_split": st.sampled_from(["greedy", "gentleman"]),
            "defence_responsibility": st.sampled_from(["full", "half", "half_until_closed"]),
            "raspasy_model": st.sampled_from(["gora", "whists"]),
            "raspasy_progression": st.lists(st.integers(1, 3), min_size=1, max_size=3),
            "raspasy_zero_pulya": st.sampled_from(["price", 0, 1]),
            "raspasy_amnesty": st.booleans(),
            "raspasy_talon": st.booleans(),
            "raspasy_dealer_pulya": st.integers(0, 2),
            "raspasy_exit": st.sampled_from([6, 7, 8]),
            "raspasy_same_dealer": st.booleans(),
            "help": st.booleans(),
            "pulya_to_gora": st.integers(1, 2),
            "half_whist_levels": st.lists(st.sampled_from([6, 7, 8, 9, 10]), unique=True),
            "ten_checked": st.booleans(),
            "jump_bids": st.booleans(),
            "misere_nine_ends_auction": st.booleans(),
            "dealer_error_gora": st.sampled_from([0, 2, 5]),
            "dealer_consolation": st.booleans(),
            "raspasy_run_ends": st.sampled_from(["any_deal", "whisted_and_made", "no_pass_misere_remiz"]),
            "raspasy_exit_lasts": st.booleans(),
            "raspasy_exit_climbs": st.booleans(),
            "raspasy_unwhisted_resets": st.booleans(),
            "dark_bids": st.booleans(),
            "dark_limit": st.integers(1, 3),
            "talon_peek_gora": st.sampled_from([0, 5]),
            "talon_refusal_gora": st.sampled_from([0, 2]),
            "talon_premium": st.booleans(),
            "misere_with_dealer": st.booleans(),
            "hand_consolation": st.booleans(),
        },
    ).map(_consistent)


def _consistent(overrides: dict[str, Any]) -> dict[str, Any]:
    """Forced opening raspasy only where dark bids are agreed (rules.md §9)."""
    if overrides.get("dark_bids") and len(overrides) % 3 == 0:
        overrides["opening_raspasy_rounds"] = 1
    return overrides


@st.composite
def game_starts(
    draw: Draw,
    convention: str | None = None,
    players: int | None = None,
    overrides: dict[str, Any] | None = None,
) -> GameStarted:
    """A ``game_started`` line: a preset, 3 or 4 players, often a small pulya target."""
    convention = convention or draw(st.sampled_from(CONVENTIONS))
    n = players or draw(st.sampled_from((3, 4)))
    names = tuple(NAMES[:n])
    target = draw(st.one_of(st.integers(2, 10), st.sampled_from((10, 20))))
    first_dealer = draw(st.one_of(st.none(), st.sampled_from(names)))
    stake = draw(st.sampled_from((None, "0.10", "1", "0.25")))
    return GameStarted(
        game=f"prop-{convention}-{n}",
        players=names,
        pulya=target,
        convention=convention,
        rules=dict(overrides or {}),
        stake=stake,
        first_dealer=first_dealer,
    )


@st.composite
def legal_logs(
    draw: Draw,
    convention: str | None = None,
    players: int | None = None,
    max_deals: int = 8,
    finish: bool = False,
    overrides: dict[str, Any] | None = None,
    club_rules: bool = False,
    recording: bool = False,
) -> list[AnyEvent]:
    """A legal pulka log, judged event by event: ``game_started`` first, then deals.

    ``convention``: one of the presets (default: any); ``players``: 3 or 4 (default:
    either); ``max_deals``: deal numbers to play at most (annulled deals count);
    ``finish``: end with the pulka over, abandoning it if it has not finished;
    ``overrides``: rule parameters the game starts with; ``club_rules``: draw them
    (``rule_overrides``) when none are given; ``recording``: also the recording rules
    of rules.md §8 (corrections, objections, late entries, tricks forgotten at the
    table and recorded later).
    """
    if overrides is None and club_rules:
        overrides = draw(rule_overrides())
    walk = Walk(draw, draw(game_starts(convention, players, overrides)))
    state = walk.state
    forgotten: set[int] = set()  # deals whose tricks were not recorded at the table
    while True:
        deal = state.current
        between = deal is None or deal.phase in ("done", "void") or deal.number in forgotten
        if walk.chance(12):
            walk.record(by_hand_event(walk))
            continue
        if recording and walk.chance(10):
            recording_step(walk, forgotten)
            continue
        if not between:
            assert deal is not None
            if (
                recording and deal.phase == "play" and state.current_deal_number < max_deals
                and not state.over and walk.chance(5)
            ):
                forgotten.add(deal.number)  # the next deal starts; the tricks may come late
                continue
            walk.record(deal_event(walk, deal))
            continue
        if state.over:
            break
        if deal is not None and deal.number in forgotten and deal.phase == "play":
            # Only the next deal's bid can follow a deal waiting for its tricks.
            walk.record(first_bid(walk))
            continue
        back = pending_call(deal)
        if back is not None and state.seats.changed_at > state.starts[-1]:
            back = None  # the table changed since: the deal's defence is closed
        if back is not None and walk.chance(60):
            assert deal is not None
            walk.record(defence_call(walk, deal, *back))
            continue
        if state.current_deal_number >= max_deals:
            if finish or walk.chance(20):
                walk.record(_abandon(walk))
            break
        roll = walk.draw(st.integers(0, 99))
        if roll >= 97:
            walk.record(_abandon(walk))
            break
        if roll >= 94:
            walk.record(Annulled(reason="misdeal", dealer_error=walk.chance(50)))
            if state.current is not None and state.current.dealer_error and walk.chance(50):
                # the same dealer fails again: the deal passes on [Code 3.2.17]
                walk.record(Annulled(reason="misdeal again", dealer_error=True))
            continue
        if roll >= 90:
            table = table_event(walk)
            if table is not None:
                walk.record(table)
                continue
        walk.record(first_bid(walk))
    return walk.events


def _abandon(walk: Walk) -> Abandoned:
    """The end before the end: by everyone's agreement, or on one player's demand [Code
    4.2.3, 5.4.18]."""
    players = walk.state.players
    if walk.chance(30):
        return Abandoned(demanded_by=walk.draw(st.sampled_from(players)), reason="a fire in the building")
    return Abandoned(agreed_by=tuple(walk.draw(st.permutations(players))))

"""Judging the events of play: the auction, the contract, the defence, the tricks, the
numbers written by hand, an arbiter's penalty, an annulment and the abandonment.

``judge_play(state, event)`` returns the event as it will be stored, its recorder and
its deal filled in, or raises ``Refused`` naming the rule [Code x.y] it breaks and what
would be allowed. Corrections and objections are judged in ``corrections``; the
dispatch over all events, and the loop that judges and folds a batch, are in ``judge``.
The projections apply what was judged here without judging it again.
"""

from __future__ import annotations

from typing import TypeGuard, assert_never

import msgspec

from ledger.vocabulary.refusal import Refused
from ledger.command.checks import filled, is_arbiter, seat_of
from ledger.vocabulary.bids import HERE, LADDER, LEVELS_TEXT, MISERE, PASS, Level, lowest, next_step, parse_level
from ledger.vocabulary.events import (
    Abandoned,
    Annulled,
    AnyEvent,
    Bid,
    Contract,
    Defence,
    Entry,
    PencilDown,
    Penalty,
    Tricks,
)
from projections.deal import DealState
from projections.game import GameState

PlayEvent = Bid | Contract | Defence | Tricks | Entry | Penalty | PencilDown | Abandoned | Annulled
PLAY_EVENTS = (Bid, Contract, Defence, Tricks, Entry, Penalty, PencilDown, Abandoned, Annulled)


def is_play(event: AnyEvent) -> TypeGuard[PlayEvent]:
    """An event of play (judged here), not a game_started, correction, objection or withdrawal."""
    return isinstance(event, PLAY_EVENTS)


def judge_play(state: GameState, event: PlayEvent) -> AnyEvent:
    """Judge one event of play against ``state``; return it as it will be stored."""
    match event:
        case Bid():
            return _bid(state, event)
        case Contract():
            return _contract(state, event)
        case Defence():
            return _defence(state, event)
        case Tricks():
            return _tricks(state, event)
        case Entry():
            return _entry(state, event)
        case Penalty():
            return _penalty(state, event)
        case PencilDown():
            seat_of(state, event.player)
            return filled(state, event, by=event.by or event.player)
        case Abandoned():
            return _abandoned(state, event)
        case Annulled():
            return _annulled(state, event)
        case _:
            assert_never(event)


def _no_new_deal_after_end(state: GameState) -> None:
    if state.abandoned_at is not None:
        raise Refused("4.2.3", f"the pulka was abandoned at event {state.abandoned_at}; no deal may follow")
    if state.finished:
        raise Refused("4.2.3", "the pulka has ended: every pulya reached the target"
                      if state.rules.help else "the pulka has ended: the pulyas reached players x target")


def _deal_for_bid(state: GameState) -> DealState:
    """The deal a bid belongs to: the one in its auction, or a new one."""
    if state.in_auction is not None:
        return state.in_auction
    current = state.current
    if current is not None and current.annulled_at is None and not current.resolved:
        if current.phase != "play":
            waiting = waiting_for(state, current)
            raise Refused("3.3", f"the auction of deal {current.number} is over; the deal waits for {waiting}",
                          waiting)
        # Played, but its result not recorded: the next deal may begin, and the tricks
        # may still come as a forgotten record with their deal number [Code 4.2.10].
    _no_new_deal_after_end(state)
    return state.next_deal()


def waiting_for(state: GameState, deal: DealState) -> str:
    names = state.players
    phase = deal.phase
    if phase == "auction":
        turn = deal.turn()
        return f"a bid by {names[turn]}" if turn is not None else "the end of the auction"
    if phase == "contract":
        assert deal.declarer is not None
        return f"the contract of {names[deal.declarer]}"
    if phase == "defence":
        expect = deal.defence().expect
        if expect is not None:
            return f"{' or '.join(sorted(expect[1]))} by {names[expect[0]]}"
    if phase == "play":
        return "the tricks"
    return "the next deal"


# -- the auction [Code 3.3] -------------------------------------------------------------


def _bid(state: GameState, event: Bid) -> AnyEvent:
    seat = seat_of(state, event.player)
    deal = _deal_for_bid(state)
    names = state.players
    if seat not in deal.bidders:
        raise Refused("3.3", f"{event.player} deals deal {deal.number} and sits out the auction",
                      ", ".join(names[s] for s in deal.bidders))
    turn = deal.turn()
    if turn != seat:
        if seat in deal.passed:
            raise Refused("3.3.10", f"{event.player} has passed and is out of the auction",
                          f"a bid by {names[turn]}" if turn is not None else None)
        raise Refused("3.3.2", f"not {event.player}'s turn to bid in deal {deal.number}",
                      f"a bid by {names[turn]}" if turn is not None else None)
    text = event.bid.strip()
    if text.lower() == PASS:
        return filled(state, msgspec.structs.replace(event, bid=PASS), by=event.by or event.player, deal=deal.number)
    if deal.misere_bidder == seat:
        raise Refused("3.6.4", f"{event.player} bid misère and may only pass now", "pass")
    if text.lower() == HERE:
        _here(state, deal, seat)
        return filled(state, msgspec.structs.replace(event, bid=HERE), by=event.by or event.player, deal=deal.number)
    level = parse_level(text)
    if level is None:
        raise Refused("2.2.2", f"{event.bid!r} is not a bid", f"pass, here, {LEVELS_TEXT}")
    allowed = _allowed_bids(deal, seat)
    if level.is_misere:
        if not _misere_open(deal, seat):
            reason = f"misère must be {event.player}'s first bid" if seat in deal.spoken else (
                f"misère cannot follow {deal.highest}")
            raise Refused("3.3.9", reason, allowed)
    else:
        if level.level < deal.min_level:
            raise _below_minimum(deal, "bid", allowed)
        if deal.highest is not None and level.rank <= deal.highest.rank:
            raise Refused("3.3.7", f"{level} is not above the current bid {deal.highest}", allowed)
        if not deal.rules.jump_bids:
            expected = _one_step(deal)
            if expected is not None and level != expected:
                raise Refused("3.3.8", f"bids go one step at a time here (jump_bids is off); {level} skips",
                              allowed)
    return filled(state, msgspec.structs.replace(event, bid=str(level)), by=event.by or event.player,
                 deal=deal.number)


def _below_minimum(deal: DealState, what: str, allowed: str) -> Refused:
    """A bid or contract under the minimum: 6 [Code 3.3.5], or the exit from raspasy
    that the rule set asks for after a raspasy (raspasy_exit) [Code 3.7.8]."""
    if deal.min_level > 6:
        return Refused("3.7.8", f"the lowest {what} in deal {deal.number}, after raspasy, is {deal.min_level} "
                       f"(raspasy_exit)", allowed)
    return Refused("3.3.5", f"the lowest {what} is 6", allowed)


def _one_step(deal: DealState) -> Level | None:
    if deal.highest is None:
        return lowest(deal.min_level)
    if deal.highest.is_misere:
        return lowest(9)
    return next_step(deal.highest)


def _here(state: GameState, deal: DealState, seat: int) -> None:
    """Explain why ``here`` is not allowed now [Code 3.3.8, 3.6.4]."""
    if deal.may_say_here(seat):
        return
    name = state.players[seat]
    if seat != deal.bidders[0]:
        raise Refused("3.3.8", f"only the forehand ({state.players[deal.bidders[0]]}) may say here",
                      _allowed_bids(deal, seat))
    if deal.highest is not None and deal.highest.is_misere:
        raise Refused("3.6.4", "nobody may answer a misère with here", _allowed_bids(deal, seat))
    raise Refused("3.3.8", f"{name} may say here only to hold another player's bid", _allowed_bids(deal, seat))


def _misere_open(deal: DealState, seat: int) -> bool:
    """Misère only as a player's first bid, while the highest bid is below it [Code 3.3.9]."""
    return seat not in deal.spoken and (deal.highest is None or deal.highest.rank < LADDER[MISERE].rank)


def _allowed_bids(deal: DealState, seat: int) -> str:
    if deal.misere_bidder == seat:
        return "pass"
    options = ["pass"]
    step = _one_step(deal)
    if step is not None:
        options.append(f"{step} or higher" if deal.rules.jump_bids else str(step))
    if deal.may_say_here(seat):
        options.append("here")
    if _misere_open(deal, seat):
        options.append(MISERE)
    return ", ".join(options)


# -- the contract [Code 3.4] ------------------------------------------------------------


def _not_abandoned(state: GameState) -> None:
    if state.abandoned_at is not None:
        raise Refused("4.2.3", f"the pulka was abandoned at event {state.abandoned_at}; its deals are closed")


def _contract(state: GameState, event: Contract) -> AnyEvent:
    _not_abandoned(state)
    seat = seat_of(state, event.player)
    names = state.players
    deal = state.current
    level = parse_level(event.contract)
    if level is None:
        raise Refused("2.2.2", f"{event.contract!r} is not a contract", LEVELS_TEXT)
    if deal is not None and deal.annulled_at is None and deal.third_hand_may_take_talon(seat):
        # Two passes, then the third hand takes the talon without bidding [Code 3.3.15].
        if level.is_misere:
            raise Refused("3.3.15", "taking the talon without bidding obliges a contract, not a misère",
                          f"{deal.min_level}S or higher")
        if level.level < deal.min_level:
            raise _below_minimum(deal, "contract", f"{deal.min_level}S or higher")
        return filled(state, msgspec.structs.replace(event, contract=str(level)), by=event.by or event.player)
    if deal is None or deal.annulled_at is not None or deal.bidding_closed_at is None:
        raise Refused("3.4", "no auction has ended with a declarer",
                      waiting_for(state, deal) if deal is not None and deal.annulled_at is None else "a bid")
    if deal.raspasy:
        raise Refused("3.3.12", f"everyone passed in deal {deal.number}: it is raspasy, no contract",
                      "the raspasy tricks")
    assert deal.declarer is not None
    if seat != deal.declarer:
        raise Refused("3.3.13", f"{event.player} did not win the auction; {names[deal.declarer]} declares",
                      f"a contract by {names[deal.declarer]}")
    if deal.contract is not None:
        # The declarer may change his contract until a defender has whisted [Code 3.4.7-3.4.8].
        if deal.no_defence or deal.resolved or any(call != PASS for _, call in deal.calls) or deal.tricks:
            raise Refused("3.4.7", "the contract can no longer change: it has been whisted or played")
    bid = deal.own_level.get(seat)
    if deal.talon_without_bid:
        if level.is_misere or level.level < deal.min_level:
            raise Refused("3.3.15", "a contract taken without bidding must be a contract of "
                          f"{deal.min_level} or more, not a misère", f"{deal.min_level}S or higher")
    elif bid is not None and bid.is_misere:
        if not level.is_misere:
            raise Refused("3.4.4", f"{event.player} bid misère and must declare the misère", MISERE)
    elif level.is_misere:
        raise Refused("3.4.4", f"{event.player} did not bid misère and cannot declare one",
                      f"{bid} or higher" if bid else None)
    elif bid is not None and level.rank < bid.rank:
        raise Refused("3.4.3", f"the contract {level} is below {event.player}'s bid {bid}", f"{bid} or higher")
    return filled(state, msgspec.structs.replace(event, contract=str(level)), by=event.by or event.player)


# -- the defence [Code 3.8] -------------------------------------------------------------


def _defence(state: GameState, event: Defence) -> AnyEvent:
    _not_abandoned(state)
    seat = seat_of(state, event.player)
    names = state.players
    deal = state.current
    if deal is None or deal.annulled_at is not None or deal.contract is None or deal.raspasy:
        raise Refused("3.8", "there is no declared contract to whist", waiting_for(state, deal) if deal else "a bid")
    if deal.no_defence:
        what = "a misère" if deal.contract.is_misere else "a checked 10 (ten_checked)"
        raise Refused("3.6" if deal.contract.is_misere else "3.8", f"{what} has no defence calls", "the tricks")
    if deal.tricks is not None:
        raise Refused("3.8", f"deal {deal.number} has been played", "a bid of the next deal")
    view = deal.defence()
    if view.expect is None:
        if event.call == "half_whist" and len(deal.calls) == 2 and deal.calls[0] == (seat, "whist"):
            raise Refused("3.8.14", f"{event.player} may half-whist after his own whist only under the "
                          "gentleman's whist (single_whist_split) and on the half_whist_levels", "the tricks")
        raise Refused("3.8", f"the defence of deal {deal.number} is complete", waiting_for(state, deal))
    expect_seat, calls = view.expect
    allowed = f"{' or '.join(sorted(calls))} by {names[expect_seat]}"
    if seat != expect_seat:
        if seat not in deal.defenders:
            raise Refused("3.8", f"{event.player} is not a defender in deal {deal.number}", allowed)
        raise Refused("3.8", f"not {event.player}'s turn to call", allowed)
    if event.call not in calls:
        rule = "3.8.14" if event.call == "half_whist" or "half_whist" in calls else "3.8"
        if event.call == "half_whist":
            c = deal.contract
            if c.level not in deal.rules.half_whist_levels:
                reason = f"half-whist is not allowed on level {c.level} (half_whist_levels: {list(deal.rules.half_whist_levels)})"
            elif not deal.calls:
                reason = "only the second defender may half-whist, after the first passed"
            else:
                reason = f"{event.player} may not half-whist now"
        else:
            reason = f"{event.call} is not allowed now"
        raise Refused(rule, reason, allowed)
    return filled(state, event, by=event.by or event.player)


# -- tricks [Code 3.5, 3.7.6] -----------------------------------------------------------


def _tricks(state: GameState, event: Tricks) -> AnyEvent:
    _not_abandoned(state)
    names = state.players
    for name in event.tricks:
        seat_of(state, name)
    deal = state.current
    if event.deal is not None and event.deal != state.current_deal_number:
        if not 1 <= event.deal < state.current_deal_number:
            raise Refused("4.2.10", f"there is no deal {event.deal} before this one",
                          f"1 to {state.current_deal_number - 1}")
        deal = state.deals[event.deal - 1]
        if deal.phase != "play":
            raise Refused("4.2.10", f"deal {deal.number} is not waiting for its tricks; "
                          "a recorded result is changed with a correction")
    if deal is None or deal.annulled_at is not None or deal.phase != "play":
        if deal is not None and deal.annulled_at is None and deal.phase == "done":
            raise Refused("3.5", f"deal {deal.number} has its result already", "a bid of the next deal")
        raise Refused("3.5", "no deal is waiting for its tricks",
                      waiting_for(state, deal) if deal is not None and deal.annulled_at is None else "a bid")
    for name, t in event.tricks.items():
        if not 0 <= t <= 10:
            raise Refused("3.5", f"{name} cannot take {t} tricks", "0 to 10")
    seats = {state.seat(p): t for p, t in event.tricks.items()}
    participants = set(deal.active)
    total = sum(seats.values())
    if deal.raspasy:
        dealer = deal.dealer
        outside = len(deal.active) < state.n
        if outside and dealer in seats:
            if not deal.rules.raspasy_talon and seats[dealer]:
                raise Refused("3.7.6.2", f"the talon is not used on raspasy here: {names[dealer]} takes no trick",
                              f"tricks for {', '.join(names[s] for s in deal.active)}")
            if seats[dealer] > 2:
                raise Refused("3.7.6.1", f"the dealer {names[dealer]} can win only the two talon tricks",
                              "0, 1 or 2")
        missing = participants - set(seats)
        if missing:
            raise Refused("3.7", f"raspasy tricks must name every player: {', '.join(names[s] for s in sorted(missing))} missing",
                          ", ".join(names[s] for s in deal.active))
        if total != 10:
            raise Refused("3.5", f"tricks sum to {total}, not 10", "counts that sum to 10")
        by = event.by or names[deal.dealer]
        return filled(state, event, by=by, deal=deal.number)
    assert deal.declarer is not None and deal.contract is not None
    extra = set(seats) - participants
    if extra:
        raise Refused("3.5", f"{', '.join(names[s] for s in sorted(extra))} sits out deal {deal.number} as the dealer and takes no tricks",
                      ", ".join(names[s] for s in deal.active))
    if deal.contract.is_misere and set(seats) == {deal.declarer}:
        return filled(state, event, by=event.by or names[deal.declarer], deal=deal.number)
    missing = participants - set(seats)
    if missing:
        raise Refused("3.5", f"tricks must name the declarer and both defenders: "
                      f"{', '.join(names[s] for s in sorted(missing))} missing",
                      ", ".join(names[s] for s in deal.active))
    if total != 10:
        raise Refused("3.5", f"tricks sum to {total}, not 10", "counts that sum to 10")
    return filled(state, event, by=event.by or names[deal.declarer], deal=deal.number)


# -- records by hand, penalties, the end ---------------------------------------------------


def _column_check(state: GameState, player: str, column: str, on: str | None) -> None:
    seat_of(state, player)
    if column == "whists":
        if on is None:
            raise Refused("4.2.1", "whists are written on someone: give `on`",
                          ", ".join(p for p in state.players if p != player))
        seat_of(state, on)
        if on == player:
            raise Refused("4.2.1", f"{player} cannot write whists on himself",
                          ", ".join(p for p in state.players if p != player))
    elif on is not None:
        raise Refused("4.2.1", f"`on` goes only with the whists column, not {column}")


def _entry(state: GameState, event: Entry) -> AnyEvent:
    _column_check(state, event.player, event.column, event.on)
    _check_deal_exists(state, event.deal)
    return filled(state, event, by=event.by or event.player, late_ok=True)


def _check_deal_exists(state: GameState, deal: int | None) -> None:
    if deal is not None and not 0 <= deal <= state.current_deal_number:
        raise Refused("4.2.10", f"there is no deal {deal} yet", f"0 to {state.current_deal_number}")


def _penalty(state: GameState, event: Penalty) -> AnyEvent:
    _column_check(state, event.player, event.column, event.on)
    if event.by is None or not is_arbiter(event.by):
        raise Refused("4.2.16", "a penalty is an arbiter's ruling: `by` must be arbiter:NAME")
    _check_deal_exists(state, event.deal)
    return filled(state, event, by=event.by, late_ok=True)


def _abandoned(state: GameState, event: Abandoned) -> AnyEvent:
    missing = [p for p in state.players if p not in event.agreed_by]
    unknown = [p for p in event.agreed_by if p not in state.players]
    if unknown:
        raise Refused("event-log", f"unknown player(s) {', '.join(unknown)}", ", ".join(state.players))
    if missing:
        raise Refused("4.2.3", f"abandoning needs the agreement of all players; {', '.join(missing)} did not agree")
    if state.abandoned_at is not None:
        raise Refused("4.2.3", "the pulka has already been abandoned")
    if state.deal_in_progress() is not None:
        raise Refused("4.2.3", "a pulka cannot be abandoned in the middle of a deal",
                      waiting_for(state, state.deal_in_progress()))  # type: ignore[arg-type]
    if state.finished:
        raise Refused("4.2.3", "the pulka has ended already")
    return filled(state, event, by=event.by or event.agreed_by[0])


def _annulled(state: GameState, event: Annulled) -> AnyEvent:
    deal = state.current
    if deal is None or deal.annulled_at is not None or deal.resolved:
        _no_new_deal_after_end(state)
        nxt = state.next_deal()
        return filled(state, event, by=event.by or state.players[nxt.dealer], deal=nxt.number)
    if deal.tricks is not None:
        raise Refused("3.2.13", f"deal {deal.number} has been played and cannot be annulled")
    return filled(state, event, by=event.by or state.players[deal.dealer], deal=deal.number)

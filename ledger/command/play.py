"""Judging the events of play: the auction, the contract, the defence, the tricks, the
numbers written by hand, an arbiter's penalty or ruling, the dealing, the talon, the
changes of players, an annulment and the end of the pulka.

``judge_play(state, event)`` returns the event as it will be stored, its recorder and
its deal filled in, or raises ``Refused`` naming the rule [Code x.y] that forbids it and
what would be allowed. Corrections and objections are judged in ``corrections``; the
dispatch over all events, and the loop that judges and folds a batch, are in ``judge``.
The projections apply what was judged here without judging it again.
"""

from __future__ import annotations

from typing import NoReturn, TypeGuard, assert_never

from ledger.command.admission import check_newcomer
from ledger.command.checks import filled, is_arbiter, is_official, person_of, seat_of
from ledger.vocabulary.bids import HERE, LADDER, LEVELS_TEXT, MISERE, PASS, Level, lowest, next_step, parse_level
from ledger.vocabulary.events import (
    Abandoned,
    Annulled,
    AnyEvent,
    Bid,
    Contract,
    Dealt,
    Defence,
    Entry,
    Joined,
    Left,
    PencilDown,
    Penalty,
    Ruling,
    Substituted,
    Talon,
    Tricks,
)
from ledger.vocabulary.refusal import Refused
from projections.deal import DealState, DefenceView
from projections.game import GameState
from projections.scoring import PENALTY_KINDS, PENALTY_RULES_TEXT

PlayEvent = (
    Bid | Contract | Defence | Tricks | Entry | Penalty | PencilDown | Abandoned | Annulled | Dealt | Ruling | Joined
    | Left | Substituted | Talon
)
PLAY_EVENTS = (
    Bid, Contract, Defence, Tricks, Entry, Penalty, PencilDown, Abandoned, Annulled, Dealt, Ruling, Joined, Left,
    Substituted, Talon,
)
RULINGS = ("3.3.16.2", "3.3.16.3", "3.4.4", "3.5.4", "3.8.5.1", "3.9.22")


def is_play(event: AnyEvent) -> TypeGuard[PlayEvent]:
    """An event of play (judged here), not a game_started, correction, objection or withdrawal."""
    return isinstance(event, PLAY_EVENTS)


def of_play_type(event: AnyEvent) -> TypeGuard[PlayEvent]:
    """An event whose type is one of the events of play itself: ``is_play`` by one look-up."""
    return type(event) in _PLAY_TYPES


_PLAY_TYPES: frozenset[type] = frozenset(PLAY_EVENTS)


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
            if not is_official(event.player):
                person_of(state, event.player)
            return filled(state, event, by=event.by or event.player)
        case Abandoned():
            return _abandoned(state, event)
        case Annulled():
            return _annulled(state, event)
        case Dealt():
            return _dealt(state, event)
        case Ruling():
            return _ruling(state, event)
        case Joined():
            return _joined(state, event)
        case Left():
            return _left(state, event)
        case Substituted():
            return _substituted(state, event)
        case Talon():
            return _talon(state, event)
        case _:
            assert_never(event)


def in_deal(state: GameState, deal: DealState, name: str) -> int:
    """The seat, in ``deal``, of a player who held one there; else a refusal."""
    if name not in deal.persons:
        if state.seat_key(name) is None:
            raise Refused("event-log", f"unknown player {name!r}", ", ".join(deal.persons))
        raise Refused("event-log", f"{name} was not at the table in deal {deal.number}", ", ".join(deal.persons))
    return deal.persons.index(name)


def _no_new_deal_after_end(state: GameState) -> None:
    if state.abandoned_at is not None:
        end = state.content(state.abandoned_at)
        if isinstance(end, Abandoned) and end.demanded_by is not None:
            raise Refused("5.4.18", f"the pulka was settled on {end.demanded_by}'s demand at event "
                          f"{state.abandoned_at}; no deal may follow")
        raise Refused("4.2.3", f"the pulka was abandoned at event {state.abandoned_at}; no deal may follow")
    if state.finished:
        if state.rules.help:
            raise Refused("4.2.3", "the pulka has ended: every pulya reached the target")
        raise Refused("4.2.3.3", "the pulka has ended: the pulyas reached players x target")


def _between_deals(state: GameState, what: str, rule: str) -> None:
    """Changes of the table and settlement come between deals: a deal once dealt is
    played out [Code 5.4.18 and its footnote 94]."""
    progress = state.deal_in_progress()
    if progress is not None:
        raise Refused(rule, f"{what} comes between deals; deal {progress.number} is not over",
                      waiting_for(state, progress))


def _deal_for_bid(state: GameState) -> DealState:
    """The deal a bid belongs to: the one in its auction, or a new one."""
    if state.in_auction is not None:
        return state.in_auction
    current = state.current
    if current is not None and current.annulled_at is None and not current.resolved:
        if current.phase != "play":
            waiting = waiting_for(state, current)
            rule = "3.4.1" if current.phase == "contract" else "3.8.1"
            raise Refused(rule, f"the auction of deal {current.number} is over; the deal waits for {waiting}",
                          waiting)
        # Played, but its result not recorded: the next deal may begin, and the tricks
        # may still come as a forgotten record with their deal number [Code 4.2.10].
    _no_new_deal_after_end(state)
    return state.next_deal()


def waiting_for(state: GameState, deal: DealState) -> str:
    names = deal.persons
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
    deal = _deal_for_bid(state)
    seat = in_deal(state, deal, event.player)
    names = deal.persons
    rules = deal.rules
    if seat not in deal.bidders:
        raise Refused("3.2.10", f"{event.player} deals deal {deal.number} and sits out the auction",
                      ", ".join(names[s] for s in deal.bidders))
    turn = deal.turn()
    if turn != seat:
        if seat in deal.passed:
            raise Refused("3.3.10", f"{event.player} has passed and is out of the auction",
                          f"a bid by {names[turn]}" if turn is not None else None)
        raise Refused("3.3.18", f"not {event.player}'s turn to bid in deal {deal.number}",
                      f"a bid by {names[turn]}" if turn is not None else None)
    text = event.bid.strip()
    if event.dark:
        if not rules.dark_bids:
            raise Refused("3.3.19", "dark bids are made only by prior agreement, and this pulka's rules have none "
                          "(dark_bids)", "the same bid in the light")
        if seat in deal.looked:
            raise Refused("3.3.19", f"{event.player} has bid in the light and seen his cards: no more dark bids",
                          "a bid in the light")
    by = event.by or event.player
    if text.lower() == PASS:
        if event.dark and (seat in deal.spoken or deal.highest is not None):
            raise Refused("3.3.19", "a dark pass is a player's first word, before anyone has bid", "pass")
        return filled(state, event, by=by, deal=deal.number, bid=PASS)
    if deal.forced:
        raise Refused("3.7.9", f"deal {deal.number} is a forced raspasy opening the pulka: everyone passes dark",
                      "pass")
    if seat in deal.peeked:
        raise Refused("3.3.16.1", f"{event.player} has seen the talon and takes no further part in the auction",
                      "pass")
    if deal.misere_bidder == seat:
        raise Refused("3.6.4", f"{event.player} bid misère and may only pass now (footnote 41)", "pass")
    if deal.nine_over_misere and rules.misere_nine_ends_auction:
        raise Refused("3.6.4", "after a nine beats a misère the auction goes no further (footnote 41's norm, "
                      "misere_nine_ends_auction)", "pass")
    if text.lower() == HERE:
        _here(state, deal, seat)
        return filled(state, event, by=by, deal=deal.number, bid=HERE)
    level = parse_level(text)
    if level is None:
        raise Refused("3.3.7", f"{event.bid!r} is not a bid", f"pass, here, {LEVELS_TEXT}")
    if level.is_misere:
        if not _misere_open(deal, seat):
            if seat in deal.spoken:
                raise Refused("3.3.9", f"misère must be {event.player}'s first bid", _allowed_bids(deal, seat))
            raise Refused("3.6.4", f"misère cannot follow {deal.highest}", _allowed_bids(deal, seat))
    else:
        if level.level < deal.bid_floor():
            raise _below_minimum(deal, "bid", _allowed_bids(deal, seat))
        if deal.highest is not None and level.rank <= deal.highest.rank:
            raise Refused("3.3.7", f"{level} is not above the current bid {deal.highest}", _allowed_bids(deal, seat))
        if _dark_misere_stands(deal) and level.level == 9 and not event.dark:
            raise Refused("3.3.19", "a dark misère is beaten only by a dark nine or a ten", "a dark nine, or a ten")
        if not rules.jump_bids:
            expected = _one_step(deal)
            if expected is not None and level != expected:
                raise Refused("3.3.8", f"bids go one step at a time here (jump_bids is off); {level} skips",
                              _allowed_bids(deal, seat))
    return filled(state, event, by=by, deal=deal.number, bid=text if text in LADDER else str(level))


def _dark_misere_stands(deal: DealState) -> bool:
    return (
        deal.highest is not None and deal.highest.is_misere and deal.misere_bidder is not None
        and deal.dark_last.get(deal.misere_bidder, False)
    )


def _below_minimum(deal: DealState, what: str, allowed: str) -> Refused:
    """A bid or contract under the minimum: 6 [Code 3.3.5], the exit from raspasy that the
    rule set asks for (raspasy_exit) [Code 3.7.8], or the level a dark pass raised it to
    [Code 3.3.19 a, 3.7.7]."""
    floor = deal.bid_floor()
    if floor > deal.min_level:
        return Refused("3.3.19", f"after {len(deal.dark_passers)} dark pass(es) the lowest {what} in deal "
                       f"{deal.number} is {floor}", allowed)
    if deal.exit_dark:
        return Refused("3.7.7", f"the lowest {what} in deal {deal.number}, after a raspasy with dark passes, is "
                       f"{deal.min_level}", allowed)
    if deal.min_level > 6:
        rules = deal.rules
        how = ", ".join(["raspasy_exit"] + [k for k in ("raspasy_exit_lasts", "raspasy_exit_climbs") if getattr(rules, k)])
        return Refused("3.7.8", f"the lowest {what} in deal {deal.number}, after raspasy, is {deal.min_level} ({how})",
                       allowed)
    return Refused("3.3.5", f"the lowest {what} is 6", allowed)


def _one_step(deal: DealState) -> Level | None:
    if deal.highest is None:
        return lowest(deal.bid_floor())
    if deal.highest.is_misere:
        return lowest(9)
    return next_step(deal.highest)


def _here(state: GameState, deal: DealState, seat: int) -> None:
    """Explain why ``here`` is not allowed now [Code 3.3.8, 3.6.4]."""
    if deal.may_say_here(seat):
        return
    name = deal.persons[seat]
    if seat != deal.bidders[0]:
        raise Refused("3.3.8", f"only the forehand ({deal.persons[deal.bidders[0]]}) may say here",
                      _allowed_bids(deal, seat))
    if deal.highest is not None and deal.highest.is_misere:
        raise Refused("3.6.4", "nobody may answer a misère with here (footnote 41)", _allowed_bids(deal, seat))
    raise Refused("3.3.8", f"{name} may say here only to hold another player's bid", _allowed_bids(deal, seat))


def _misere_open(deal: DealState, seat: int) -> bool:
    """Misère only as a player's first bid, while the highest bid is below it [Code 3.3.9]."""
    return seat not in deal.spoken and (deal.highest is None or deal.highest.rank < LADDER[MISERE].rank)


def _allowed_bids(deal: DealState, seat: int) -> str:
    if deal.misere_bidder == seat or deal.forced or seat in deal.peeked:
        return "pass"
    if deal.nine_over_misere and deal.rules.misere_nine_ends_auction:
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
    deal = state.current
    level = parse_level(event.contract)
    if level is None:
        raise Refused("2.2.2", f"{event.contract!r} is not a contract", LEVELS_TEXT)
    if deal is None or deal.annulled_at is not None or deal.ruling is not None:
        raise Refused("3.4.1", "no auction has ended with a declarer", "a bid")
    seat = in_deal(state, deal, event.player)
    names = deal.persons
    floor = deal.bid_floor()
    by = event.by or event.player
    if deal.third_hand_may_take_talon(seat):
        # Two passes, then the third hand takes the talon without bidding [Code 3.3.15].
        _change(state, deal, event)
        if level.is_misere:
            raise Refused("3.3.15", "taking the talon without bidding obliges a contract, not a misère",
                          f"{floor}S or higher")
        if level.level < floor:
            raise _below_minimum(deal, "contract", f"{floor}S or higher")
        _shared(state, deal, event, level)
        return filled(state, event, by=by, contract=str(level))
    if deal.bidding_closed_at is None:
        raise Refused("3.4.1", "no auction has ended with a declarer", waiting_for(state, deal))
    if deal.raspasy:
        raise Refused("3.3.12", f"everyone passed in deal {deal.number}: it is raspasy, no contract",
                      "the raspasy tricks")
    assert deal.declarer is not None
    if seat != deal.declarer:
        raise Refused("3.3.13", f"{event.player} did not win the auction; {names[deal.declarer]} declares",
                      f"a contract by {names[deal.declarer]}")
    _change(state, deal, event)
    bid = deal.own_level.get(seat)
    dark_winner = deal.dark_last.get(seat, False)
    if deal.talon_without_bid:
        if level.is_misere or level.level < floor:
            raise Refused("3.3.15", "a contract taken without bidding must be a contract of "
                          f"{floor} or more, not a misère", f"{floor}S or higher")
    elif bid is not None and bid.is_misere:
        if not level.is_misere:
            raise Refused("3.4.4", f"{event.player} bid misère and must declare the misère",
                          f"{MISERE}; if he will not, a ruling under 3.4.4: a misère without all, all ten tricks")
    elif level.is_misere:
        if not dark_winner:
            raise Refused("3.4.4", f"{event.player} did not bid misère and cannot declare one",
                          f"{bid} or higher" if bid else None)
        # A dark winner may turn his game into a misère before taking the talon [Code 3.3.19 b].
        if deal.contract is not None:
            raise Refused("3.3.19", "a dark game turns into a misère only before the talon is taken",
                          f"{bid} or higher" if bid else None)
    elif bid is not None and level.rank < bid.rank:
        raise Refused("3.4.3", f"the contract {level} is below {event.player}'s bid {bid}", f"{bid} or higher")
    if dark_winner and level.level == 6 and deal.calls:
        raise Refused("3.3.19", f"a dark six is whisted by both defenders, and {names[deal.calls[0][0]]} has passed "
                      "already", "a contract of 7 or more, or the contract as declared")
    _shared(state, deal, event, level)
    return filled(state, event, by=by, contract=str(level))


def _change(state: GameState, deal: DealState, event: Contract) -> None:
    """The declarer may change his contract until a defender has whisted [Code 3.4.7,
    3.4.8]; after a whist only where his intention to correct the error was evident, as
    in the Code's "6D - oh-oh-oh - whist! - 6H" (``evident_correction``) [3.4.8]."""
    whisted = any(call != PASS for _, call in deal.calls)
    if event.evident_correction:
        if deal.contract is None:
            raise Refused("3.4.8", "an evident correction changes a contract declared already; none is",
                          "the contract without evident_correction")
        if deal.tricks is not None or deal.no_defence:
            raise Refused("3.4.7", "the contract can no longer change: it has been played"
                          if deal.tricks is not None else "a misère or a checked 10 is played at once, without calls")
        if not whisted:
            raise Refused("3.4.8", "nobody has whisted: the declarer changes his contract without claiming an "
                          "evident correction", "the contract without evident_correction")
        if state.seats.changed_at > state.starts[-1]:
            raise Refused("3.1.2", f"the table changed after deal {deal.number}; its contract is closed",
                          "a bid of the next deal")
        return
    if deal.contract is None:
        return
    if deal.no_defence or deal.resolved or whisted or deal.tricks:
        raise Refused("3.4.7", "the contract can no longer change: it has been whisted or played",
                      "an evident correction (evident_correction), where the declarer's intention to correct his "
                      "error was evident before the whist (3.4.8)" if whisted and deal.tricks is None else None)


def _shared(state: GameState, deal: DealState, event: Contract, level: Level) -> None:
    """A misère shared in halves with the sitting-out dealer [Code 3.6.9]."""
    if event.shared_with is None:
        return
    if not deal.rules.misere_with_dealer:
        raise Refused("3.6.9", "sharing a misère with the dealer is not agreed in this pulka (misere_with_dealer)")
    if not level.is_misere:
        raise Refused("3.6.9", "only a misère may be shared with the dealer", MISERE)
    out = deal.sitting_out
    if out is None:
        raise Refused("3.6.9", "a misère is shared only with a dealer who sits out, with four players")
    if event.shared_with != deal.persons[out]:
        raise Refused("3.6.9", f"{event.shared_with} is not the dealer of deal {deal.number}", deal.persons[out])


# -- the defence [Code 3.8] -------------------------------------------------------------


def _defence(state: GameState, event: Defence) -> AnyEvent:
    _not_abandoned(state)
    deal = state.current
    if deal is None or deal.annulled_at is not None or deal.contract is None or deal.raspasy:
        raise Refused("3.8.1", "there is no declared contract to whist", waiting_for(state, deal) if deal else "a bid")
    if deal.ruling is not None:
        raise Refused("3.8.1", f"deal {deal.number} was closed by a ruling", "a bid of the next deal")
    seat = in_deal(state, deal, event.player)
    if deal.no_defence:
        if deal.contract.is_misere:
            raise Refused("3.6.6", "a misère has no defence calls: it is played at once", "the tricks")
        raise Refused("3.5.3", "a checked 10 (ten_checked, footnote 39) has no defence calls", "the tricks")
    if deal.tricks is not None:
        raise Refused("3.8.1", f"deal {deal.number} has been played", "a bid of the next deal")
    if state.seats.changed_at > (state.starts[-1] if state.starts else 0):
        raise Refused("3.1.2", f"the table changed after deal {deal.number}; its defence is closed",
                      "a bid of the next deal")
    view = deal.defence()
    if view.expect is None:
        if seat == deal.sitting_out:
            raise Refused("3.8.8.1", f"the dealer {event.player} may only return a half-whist, or whist after two "
                          "passes where no half-whist is possible (an 8, 9 or 10)", waiting_for(state, deal))
        if event.call == "half_whist" and len(deal.calls) == 2 and deal.calls[0] == (seat, "whist"):
            raise Refused("3.8.14", f"{event.player} may half-whist after his own whist only under the "
                          "gentleman's whist (single_whist_split) and on the half_whist_levels", "the tricks")
        raise Refused("3.8.1", f"the defence of deal {deal.number} is complete", waiting_for(state, deal))
    expect_seat, calls = view.expect
    if seat != expect_seat or event.call not in calls:
        _refuse_call(deal, event, seat, view, expect_seat, calls)
    if event.hand is not None or (seat == deal.sitting_out and event.call == "whist"):
        _dealer_hand(deal, seat, event)
    if deal.forced_whist and event.open:
        raise Refused("3.3.19", "a dark six is whisted dark: no open whist", "whist, closed")
    return filled(state, event, by=event.by or event.player)


def _refuse_call(
    deal: DealState, event: Defence, seat: int, view: DefenceView, expect_seat: int, calls: frozenset[str]
) -> NoReturn:
    """Why a call out of turn, or one the defence does not allow now, is refused."""
    names = deal.persons
    allowed = f"{' or '.join(sorted(calls))} by {names[expect_seat]}"
    rule = _defence_rule(deal)
    if seat != expect_seat:
        if seat not in deal.defenders and seat != deal.sitting_out:
            raise Refused("3.8.1", f"{event.player} is not a defender in deal {deal.number}", allowed)
        raise Refused(rule, f"not {event.player}'s turn to call", allowed)
    if event.call == "half_whist" and not view.returned and view.half_whister is None and not deal.forced_whist:
        c = deal.contract
        assert c is not None
        if c.level not in deal.rules.half_whist_levels:
            reason = (f"half-whist is not allowed on level {c.level}: the obligation there is one trick "
                      f"(footnote 60; half_whist_levels: {list(deal.rules.half_whist_levels)})")
        elif not deal.calls:
            reason = "only the second defender may half-whist, after the first passed"
        else:
            reason = f"{event.player} may not half-whist now"
        raise Refused("3.8.7", reason, allowed)
    if deal.forced_whist:
        reason = "a dark six is whisted by both defenders, dark"
    elif view.returned and seat == view.half_whister:
        reason = f"the whist was returned: the half-whister {event.player} may only pass"
    else:
        reason = f"{event.call} is not allowed now"
    raise Refused(rule, reason, allowed)


def _defence_rule(deal: DealState) -> str:
    """The rule that governs the call the deal waits for."""
    view = deal.defence()
    if deal.forced_whist:
        return "3.3.19"
    if view.returned:
        return "3.8.8.2"
    if view.expect is not None and view.expect[0] == deal.sitting_out:
        return "3.8.8.1" if view.half_whister is None else "3.8.8"
    if view.half_whister is not None:
        return "3.8.8"
    return "3.8.1"


def _dealer_hand(deal: DealState, seat: int, event: Defence) -> None:
    """The four-player dealer who whists plays the cards of one of the declarer's
    opponents, named in ``hand`` [Code 3.8.8]."""
    if seat != deal.sitting_out or event.call != "whist":
        raise Refused("3.8.8", "only the whisting dealer names the hand he plays (hand)")
    defenders = [deal.persons[s] for s in deal.defenders]
    if event.hand is None:
        raise Refused("3.8.8", "the dealer whists with the cards of one of the declarer's opponents: name him "
                      "(hand)", " or ".join(defenders))
    if event.hand not in defenders:
        raise Refused("3.8.8", f"{event.hand} is not an opponent of the declarer in deal {deal.number}",
                      " or ".join(defenders))


# -- tricks [Code 3.5, 3.7.6, 3.9] -------------------------------------------------------


def _tricks(state: GameState, event: Tricks) -> AnyEvent:
    _not_abandoned(state)
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
            raise Refused("4.2.7", f"deal {deal.number} has its result already; it is changed with a correction",
                          "a bid of the next deal")
        raise Refused("4.2.6", "no deal is waiting for its tricks",
                      waiting_for(state, deal) if deal is not None and deal.annulled_at is None else "a bid")
    check_result(state, deal, event.tricks, "tricks")
    _penalty_tricks(state, deal, event)
    # Recorded by default by the declarer, on raspasy by the dealer [event-log.md].
    default = deal.dealer if deal.raspasy or deal.declarer is None else deal.declarer
    return filled(state, event, by=event.by or deal.persons[default], deal=deal.number)


def check_result(state: GameState, deal: DealState, tricks: dict[str, int], what: str) -> None:
    """Tricks as a deal's result must name who played and add up to the ten tricks of a
    deal of ten cards each [Code 3.2.8, 3.7.6, 3.8.8]."""
    names = deal.persons
    seats: dict[int, int] = {}
    for name, t in tricks.items():
        seats[in_deal(state, deal, name)] = t
        if not 0 <= t <= 10:
            raise Refused("3.2.8", f"{name} cannot take {t} tricks", "0 to 10")
    total = sum(seats.values())
    if deal.raspasy:
        dealer = deal.dealer
        outside = deal.sitting_out is not None
        if outside and dealer in seats:
            if not deal.rules.raspasy_talon and seats[dealer]:
                raise Refused("3.7.6.2", f"the talon is not used on raspasy here: {names[dealer]} takes no trick",
                              f"{what} for {', '.join(names[s] for s in deal.active)}")
            if seats[dealer] > 2:
                raise Refused("3.7.6.1", f"the dealer {names[dealer]} can win only the two talon tricks",
                              "0, 1 or 2")
        missing = set(deal.active) - set(seats)
        if missing:
            raise Refused("3.7.2", f"raspasy tricks must name every player: "
                          f"{', '.join(names[s] for s in sorted(missing))} missing",
                          ", ".join(names[s] for s in deal.active))
        if total != 10:
            raise Refused("3.2.8", f"{what} sum to {total}, not 10", "counts that sum to 10")
        return
    assert deal.declarer is not None and deal.contract is not None
    playing = set(deal.playing)
    extra = set(seats) - playing
    if extra:
        who = sorted(extra)
        if deal.dealer_hand is not None and deal.dealer_hand in extra:
            raise Refused("3.8.8", f"{names[deal.dealer_hand]}'s cards were played by the dealer "
                          f"{names[deal.dealer]}, who takes the tricks of that hand",
                          ", ".join(names[s] for s in deal.playing))
        raise Refused("3.2.10", f"{', '.join(names[s] for s in who)} sits out deal {deal.number} as the dealer "
                      "and takes no tricks", ", ".join(names[s] for s in deal.playing))
    if deal.contract.is_misere and set(seats) == {deal.declarer}:
        return
    missing = playing - set(seats)
    if missing:
        raise Refused("4.2.1", f"{what} must name the declarer and both defenders: "
                      f"{', '.join(names[s] for s in sorted(missing))} missing",
                      ", ".join(names[s] for s in deal.playing))
    if total != 10:
        raise Refused("3.2.8", f"{what} sum to {total}, not 10", "counts that sum to 10")


def _penalty_tricks(state: GameState, deal: DealState, event: Tricks) -> None:
    """Penalty tricks name a player of the deal and the rule that gives them [Code 3.4.6,
    3.4.9, 3.9.11.2, 3.9.18, 3.2.16]."""
    for pt in event.penalty_tricks:
        rule = pt.rule
        if rule not in PENALTY_KINDS:
            raise Refused("3.9.12", f"{rule!r} is not a rule that gives penalty tricks",
                          "; ".join(f"{r}: {t}" for r, t in PENALTY_RULES_TEXT.items()))
        if pt.player not in event.tricks:
            raise Refused(rule, f"penalty tricks fall on a player named in the tricks, not {pt.player}",
                          ", ".join(event.tricks))
        seat = in_deal(state, deal, pt.player)
        declarer = seat == deal.declarer
        if deal.raspasy and rule != "3.9.11.2":
            raise Refused(rule, "on raspasy the Code gives a penalty trick only for looking at a closed trick; "
                          "other damages are an arbiter's penalty", "3.9.11.2")
        if rule in ("3.4.6", "3.4.9") and not declarer:
            raise Refused(rule, f"rule {rule} punishes the declarer, not {pt.player}")
        if rule == "3.4.6" and pt.tricks != 2:
            raise Refused(rule, "a declaration with a wrong number of cards is a remiz without two", "2")
        if rule == "3.4.9" and pt.tricks != 1:
            raise Refused(rule, "looking at the discard costs one trick", "1")
        if rule in ("3.9.18", "3.2.16") and pt.tricks < 2:
            raise Refused(rule, "a wrong number of cards is a remiz of at least two", "2 or more")
        if pt.tricks < 1:
            raise Refused(rule, "penalty tricks are one or more", "1 or more")
        c = deal.contract
        if not declarer and c is not None and (c.is_misere or (deal.no_defence and rule != "3.9.11.2")):
            raise Refused(rule, "on a misère or a checked 10 the defenders carry no obligation the penalty "
                          "could touch (3.9.12)")


# -- records by hand, penalties, rulings, the end ---------------------------------------


def _column_check(state: GameState, player: str, column: str, on: str | None) -> None:
    key = person_of(state, player)
    if column == "whists":
        others = ", ".join(p for p in state.players if p != player)
        if on is None:
            raise Refused("4.2.1", "whists are written on someone: give `on`", others)
        if person_of(state, on) == key:
            raise Refused("4.2.1", f"{player} cannot write whists on himself", others)
    elif on is not None:
        raise Refused("4.2.1", f"`on` goes only with the whists column, not {column}")


def _entry(state: GameState, event: Entry) -> AnyEvent:
    _column_check(state, event.player, event.column, event.on)
    _check_deal_exists(state, event.deal, (event.player, event.on))
    return filled(state, event, by=event.by or event.player, late_ok=True)


def _check_deal_exists(state: GameState, deal: int | None, names: tuple[str | None, ...] = ()) -> None:
    """A record of an earlier deal names players who were on the sheet then [Code 4.2.10, 3.1.2]."""
    if deal is None:
        return
    if not 0 <= deal <= state.current_deal_number:
        raise Refused("4.2.10", f"there is no deal {deal} yet", f"0 to {state.current_deal_number}")
    if deal < state.current_deal_number:
        then = state.opened_with[deal].everyone if deal < len(state.opened_with) else state.seats.everyone
        for name in names:
            if name is not None and state.seat_key(name) not in then:
                raise Refused("4.2.10", f"{name} was not in the pulka at the end of deal {deal}",
                              ", ".join(then))


def _penalty(state: GameState, event: Penalty) -> AnyEvent:
    """An arbiter's penalty never benefits the penalised ``player`` [Code 4.2.16]: gora
    goes up, pulya comes down, and whists are written on him by the wronged player."""
    if event.by is None or not is_arbiter(event.by):
        raise Refused("4.2.16", "a penalty is an arbiter's ruling: `by` must be arbiter:NAME")
    penalised = person_of(state, event.player)
    if event.column == "whists":
        if event.wronged is not None:
            if event.on is not None:
                raise Refused("4.2.16", "a penalty in whists names the wronged player (wronged), not `on`")
            if person_of(state, event.wronged) == penalised:
                raise Refused("4.2.16", f"{event.player} cannot be wronged by his own penalty",
                              ", ".join(p for p in state.players if p != event.player))
        elif event.on is not None:
            # The form of logs older than ``wronged``: ``player`` writes on ``on``.
            _column_check(state, event.player, event.column, event.on)
        else:
            raise Refused("4.2.16", "a penalty in whists is written by the wronged player on the penalised one: "
                          "name him (wronged)", ", ".join(p for p in state.players if p != event.player))
        if event.amount <= 0:
            raise Refused("4.2.16", "a penalty never benefits the penalised player: the whists written on him "
                          "are positive", "an amount of 1 or more")
    else:
        if event.wronged is not None or event.on is not None:
            raise Refused("4.2.1", f"a penalty in {event.column} names nobody else (no wronged, no on)")
        if event.column == "gora" and event.amount <= 0:
            raise Refused("4.2.16", "a penalty never benefits the penalised player: his gora goes up",
                          "an amount of 1 or more")
        if event.column == "pulya" and event.amount >= 0:
            raise Refused("4.2.16", "a penalty never benefits the penalised player: his pulya comes down",
                          "an amount of -1 or less")
    _check_deal_exists(state, event.deal, (event.player, event.on, event.wronged))
    return filled(state, event, by=event.by, late_ok=True)


def _abandoned(state: GameState, event: Abandoned) -> AnyEvent:
    if state.abandoned_at is not None:
        raise Refused("4.2.3", "the pulka has already been abandoned")
    if state.finished:
        raise Refused("4.2.3", "the pulka has ended already")
    progress = state.deal_in_progress()
    if progress is not None:
        raise Refused("5.4.18", "a pulka cannot be abandoned in the middle of a deal: a deal once dealt is "
                      "played out (footnote 94)", waiting_for(state, progress))
    if event.demanded_by is not None:
        # Any player may demand immediate settlement in an emergency [Code 4.2.15, 5.4.18].
        if event.demanded_by not in state.players:
            raise Refused("5.4.18", f"{event.demanded_by} is not at the table", ", ".join(state.players))
        if not event.reason.strip():
            raise Refused("5.4.18", "settling on one player's demand needs its reason (an emergency)",
                          "reason: why the pulka cannot go on")
        return filled(state, event, by=event.by or event.demanded_by)
    unknown = [p for p in event.agreed_by if p not in state.players]
    if unknown:
        raise Refused("event-log", f"unknown player(s) {', '.join(unknown)}", ", ".join(state.players))
    missing = [p for p in state.players if p not in event.agreed_by]
    if missing:
        raise Refused("4.2.3", f"abandoning needs the agreement of all players; {', '.join(missing)} did not agree",
                      "the agreement of all, or one player's demand with its reason (5.4.18)")
    return filled(state, event, by=event.by or event.agreed_by[0])


def _annulled(state: GameState, event: Annulled) -> AnyEvent:
    deal = state.current
    if deal is None or deal.annulled_at is not None or deal.resolved:
        _no_new_deal_after_end(state)
        nxt = state.next_deal()
        return filled(state, event, by=event.by or nxt.persons[nxt.dealer], deal=nxt.number)
    if deal.tricks is not None or deal.phase in ("defence", "play"):
        raise Refused("3.2.13", f"deal {deal.number} is past its auction and cannot be dealt again")
    return filled(state, event, by=event.by or deal.persons[deal.dealer], deal=deal.number)


def _dealt(state: GameState, event: Dealt) -> AnyEvent:
    """A deal out of turn stands once the cards were lifted [Code 3.2.14]."""
    if state.in_auction is not None:
        raise Refused("3.2.14", f"deal {state.in_auction.number} has been dealt already", waiting_for(
            state, state.in_auction))
    _between_deals(state, "a deal", "3.2.14")
    _no_new_deal_after_end(state)
    seat_of(state, event.player)
    due = state.due_dealer()
    if state.seat_key(event.player) == due:
        raise Refused("3.2.14", f"{event.player} deals in turn; only a deal out of turn is recorded",
                      f"a player other than {state.seats.holder(due)}")
    nxt = state.next_deal(state.seat_key(event.player))
    return filled(state, event, by=event.by or event.player, deal=nxt.number)


def _ruling(state: GameState, event: Ruling) -> AnyEvent:
    """A ruling or an agreement on the current deal [Code 3.3.16.2, 3.3.16.3, 3.4.4, 3.5.4,
    3.8.5.1, 3.9.22]: each names the fields its rule needs and no other."""
    rule = event.rule
    if rule not in RULINGS:
        raise Refused("4.2.16", f"a ruling on a deal cites one of {', '.join(RULINGS)}, not {event.rule!r}",
                      ", ".join(RULINGS))
    _not_abandoned(state)
    _ruling_fields(event)
    deal = state.current
    if rule == "3.8.5.1":
        return _plan_ruling(state, deal, event)
    if deal is None or deal.annulled_at is not None or deal.resolved:
        raise Refused(rule, "there is no deal in progress to rule on", "a bid")
    names = deal.persons
    if rule in ("3.3.16.2", "3.3.16.3"):
        by = _exposed_talon(state, deal, event)
    elif rule == "3.4.4":
        if deal.phase != "contract" or deal.declarer is None:
            raise Refused(rule, "this ruling is for a declaration against the rules, before any contract stands",
                          waiting_for(state, deal))
        if deal.own_level.get(deal.declarer) is None:
            raise Refused(rule, "the declarer reached no level in the auction for a remiz without all: he took "
                          "the talon without bidding (3.3.15)", "a contract by the declarer")
        by = event.by or names[deal.defenders[0]]
    elif rule == "3.5.4":
        if deal.phase != "play" or deal.raspasy or deal.contract is None or deal.contract.is_misere:
            raise Refused(rule, "a declarer concedes a whisted game in play", waiting_for(state, deal))
        if deal.no_defence or not deal.defence().whisters:
            raise Refused(rule, "only a whisted game is conceded without all")
        assert deal.declarer is not None
        if event.tricks is not None:
            check_result(state, deal, event.tricks, "the conceded tricks")
            if event.tricks.get(names[deal.declarer], 0) != 0:
                raise Refused(rule, "conceding means the declarer is without all: he takes no trick", "0")
        by = event.by or names[deal.declarer]
    else:
        if deal.phase != "play" or deal.raspasy:
            raise Refused(rule, "an agreed result settles a declared contract instead of its play",
                          waiting_for(state, deal))
        missing = [p for p in state.players if p not in event.agreed_by]
        if missing:
            raise Refused(rule, f"a result without play needs everyone's agreement; {', '.join(missing)} did not "
                          "agree", ", ".join(state.players))
        if event.tricks is None:
            raise Refused(rule, "an agreed result gives the tricks it stands for", '"tricks": {NAME: N}')
        check_result(state, deal, event.tricks, "the agreed tricks")
        by = event.by or event.agreed_by[0]
    return filled(state, event, by=by, deal=deal.number)


# The fields of a ruling beside ``rule``, ``reason`` and ``agreed_by`` (which any ruling
# may carry, as it always could), and the rulings that take each.
RULING_FIELDS: dict[str, tuple[str, ...]] = {
    "offender": ("3.3.16.2", "3.3.16.3"),
    "whists": ("3.3.16.3", "3.8.5.1"),
    "tricks": ("3.5.4", "3.8.5.1", "3.9.22"),
    "planner": ("3.8.5.1",),
    "compensated": ("3.8.5.1",),
    "declarer_result": ("3.8.5.1",),
}


def _ruling_fields(event: Ruling) -> None:
    """A field that belongs to another rule is refused, naming the rule it belongs to."""
    for name, rules in RULING_FIELDS.items():
        if getattr(event, name) not in (None, ()) and event.rule not in rules:
            raise Refused(event.rule, f"{name} belongs to a ruling under {' or '.join(rules)}, not {event.rule}")


def _exposed_talon(state: GameState, deal: DealState, event: Ruling) -> str:
    """The talon exposed to all during the auction [Code 3.3.16]: with one player besides
    the offender still bidding, the talon is his and the deal is played [3.3.16.2]; with
    two or more, the cards are opened and each writes on the offender what his contract
    would have given him [3.3.16.3]. Returns the default recorder."""
    rule = event.rule
    names = deal.persons
    if deal.phase != "auction":
        raise Refused(rule, f"the talon counts as exposed in the auction only while it is open; deal {deal.number} "
                      "waits for " + waiting_for(state, deal))
    if event.offender is None:
        raise Refused(rule, "name the offender, who exposed the talon", '"offender": NAME')
    offender = in_deal(state, deal, event.offender)
    still = deal.still_bidding(offender)
    if not still:
        raise Refused(rule, f"nobody besides {event.offender} still bids: the auction is his, and so is the talon "
                      "(3.3.15)", waiting_for(state, deal))
    who = " and ".join(names[s] for s in still)
    if len(still) == 1:
        if rule == "3.3.16.2":
            return event.by or names[still[0]]
        level = deal.own_level.get(still[0])
        raise Refused("3.3.16.2", f"only {who} besides the offender {event.offender} still bids: the talon goes to "
                      f"{who} and the deal is played; 3.3.16.3 is for a talon exposed while two players still bid",
                      f"a ruling under 3.3.16.2 (offender {event.offender}): {who} takes the talon and declares "
                      + (f"{level} or higher" if level is not None else "a contract, as the third hand does (3.3.15)"))
    if rule == "3.3.16.2":
        raise Refused(rule, f"two players besides the offender {event.offender} still bid ({who}): the talon cannot "
                      "go to one of them", f"a ruling under 3.3.16.3: each writes on {event.offender} what his "
                      "contract would have given him")
    if not event.whists:
        raise Refused(rule, "name the whists each wronged player writes on the offender", '"whists": {NAME: N}')
    for name, amount in event.whists.items():
        if in_deal(state, deal, name) == offender:
            raise Refused(rule, f"{name} exposed the talon and writes nothing")
        if amount <= 0:
            raise Refused(rule, f"{name}'s whists on the offender must be positive", "1 or more")
    return event.by or next(iter(event.whists))


def _plan_ruling(state: GameState, deal: DealState | None, event: Ruling) -> AnyEvent:
    """A defender's plan of play carried out though his partner (or the four-player
    dealer) did not support it [Code 3.8.5, 3.8.5.1]: a) the compensation the dissenters
    agreed to write on him, whatever the play gives; b) the arbiter's ruling: the
    dissenters are given the other plan's result, the declarer one of the two by lot
    (footnote 58: the arbiter must be there). It comes with the deal in play or just
    played, before the next deal begins."""
    rule = event.rule
    if deal is None or deal.annulled_at is not None or deal.raspasy or deal.contract is None or (
        deal.ruling is not None or not (deal.phase == "play" or deal.tricks_event is not None)
    ):
        raise Refused(rule, "a plan of play is disputed in a declared game being played (or just played, before "
                      "the next deal)", waiting_for(state, deal) if deal is not None else "a bid")
    if deal.plan is not None:
        raise Refused(rule, f"deal {deal.number} has its ruling on the plan of play already (event {deal.plan_at})")
    names = deal.persons
    planner, dissenters = _plan_sides(state, deal, event)
    if event.whists is not None:
        if event.tricks is not None or event.compensated or event.declarer_result is not None:
            raise Refused(rule, "agreed compensation (a) and the arbiter's compensating result (b) are two ways; "
                          "a ruling records one", '"whists" and "agreed_by", or "tricks", "compensated" and '
                          '"declarer_result"')
        for name, amount in event.whists.items():
            if in_deal(state, deal, name) not in dissenters:
                raise Refused(rule, f"{name} is not a partner of {event.planner} who could dissent from his plan",
                              ", ".join(names[s] for s in dissenters))
            if amount <= 0:
                raise Refused(rule, f"{name}'s compensation on {event.planner} must be positive", "1 or more")
        needed = [names[planner]] + list(event.whists)
        missing = [p for p in needed if p not in event.agreed_by]
        if missing:
            raise Refused(rule, f"agreed compensation needs the agreement of {', '.join(needed)}; "
                          f"{', '.join(missing)} did not agree", ", ".join(needed))
        return filled(state, event, by=event.by or next(iter(event.whists)), deal=deal.number)
    if event.by is None or not is_arbiter(event.by):
        raise Refused(rule, "without agreed compensation (a) the arbiter rules (b), and he must be at the table "
                      "(footnote 58): `by` must be arbiter:NAME", '"whists" agreed by the partners, or by arbiter:NAME')
    if event.tricks is None or not event.compensated or event.declarer_result is None:
        raise Refused(rule, "the arbiter's ruling gives the other plan's result (tricks), the dissenters given it "
                      "(compensated) and the declarer's result drawn by lot (declarer_result)",
                      '"tricks": {NAME: N}, "compensated": [NAME], "declarer_result": "played" or "other"')
    for name in event.compensated:
        if in_deal(state, deal, name) not in dissenters:
            raise Refused(rule, f"{name} is not a partner of {event.planner} who could dissent from his plan",
                          ", ".join(names[s] for s in dissenters))
    if len(set(event.compensated)) != len(event.compensated):
        raise Refused(rule, "each dissenter is named once", ", ".join(names[s] for s in dissenters))
    check_result(state, deal, event.tricks, "the other plan's tricks")
    return filled(state, event, by=event.by, deal=deal.number)


def _plan_sides(state: GameState, deal: DealState, event: Ruling) -> tuple[int, tuple[int, ...]]:
    """The defender whose plan was carried out, and those who could dissent from it: on a
    game whisted by one, the whister, and the passer or the four-player dealer [Code
    3.8.5]; on a misère, one of its catchers, and the other or the dealer [3.8.5.1 a,
    its example]."""
    rule = event.rule
    names = deal.persons
    assert deal.contract is not None and deal.declarer is not None
    if event.planner is None:
        raise Refused(rule, "name the defender whose plan of play was carried out", '"planner": NAME')
    planner = in_deal(state, deal, event.planner)
    if deal.contract.is_misere:
        catchers = deal.defenders
        if planner not in catchers:
            raise Refused(rule, f"{event.planner} did not catch the misère", " or ".join(names[s] for s in catchers))
    elif deal.no_defence:
        raise Refused(rule, "a checked 10 has no whister to plan the play")
    else:
        whisters = deal.defence().whisters
        if len(whisters) != 1:
            raise Refused(rule, "a plan of play is the single whister's, who plays his partner's cards too; "
                          + ("both whisted and each plays his own [3.8.4]" if whisters else "nobody whisted"))
        if planner != whisters[0]:
            raise Refused(rule, f"{names[whisters[0]]} whisted alone and decides the plan of play, not "
                          f"{event.planner}", names[whisters[0]])
    others = tuple(s for s in range(deal.n_players) if s not in (deal.declarer, planner, deal.shared_with))
    return planner, others


# -- changes of players [Code 3.1.2, 5.4.7, 5.4.18] ---------------------------------------


def _new_name(state: GameState, name: str, rule: str) -> None:
    if not name.strip() or is_official(name) or name.startswith("arbiter:") or name.startswith("scorer:"):
        raise Refused(rule, f"{name!r} cannot be a player's name")
    check_newcomer(name, state.person_seat)


def _consent(state: GameState, agreed_by: tuple[str, ...], needed: list[str], rule: str, what: str) -> None:
    missing = [p for p in needed if p not in agreed_by]
    if missing:
        raise Refused(rule, f"{what} needs the consent of {', '.join(needed)}; {', '.join(missing)} did not consent",
                      ", ".join(needed))


def _joined(state: GameState, event: Joined) -> AnyEvent:
    _between_deals(state, "a newcomer", "3.1.2")
    _no_new_deal_after_end(state)
    if state.current is None:
        raise Refused("3.1.2", "a newcomer sits to the left of the one who has just dealt; before the first deal, "
                      "start the pulka with four players")
    if len(state.players) != 3:
        raise Refused("3.1.2", "a newcomer joins three players as the fourth", "a substitute (5.4.7)")
    _new_name(state, event.player, "3.1.2")
    if state.seat_key(event.player) is not None:
        raise Refused("3.1.2", f"{event.player} has played in this pulka already", "a new player's name")
    if event.replaces is not None:
        _replaced(state, event.replaces)
    _consent(state, event.agreed_by, list(state.players), "3.1.2", "a newcomer")
    return filled(state, event, by=event.by or event.agreed_by[0])


def _replaced(state: GameState, name: str) -> None:
    """A newcomer replaces the player whose leaving left three at the table, and sits in
    his place [Code 3.1.2]."""
    empty = state.seats.vacated
    left = state.seats.holder(empty) if empty is not None else None
    if name != left:
        who = f"{left} left the table" if left is not None else "nobody has left the table"
        allowed = f"replaces {left}, or " if left is not None else ""
        raise Refused("3.1.2", f"a newcomer replaces the player who left, in his place; {name} did not leave "
                      f"the table ({who})", f"{allowed}no replaces: he sits to the left of the last dealer")


def _left(state: GameState, event: Left) -> AnyEvent:
    _between_deals(state, "leaving the table", "5.4.18")
    _no_new_deal_after_end(state)
    seat_of(state, event.player)
    if len(state.players) < 4:
        raise Refused("5.4.18", "three players cannot go on as two: a substitute takes the seat (5.4.7), or the "
                      "pulka is settled", "substituted, or abandoned")
    return filled(state, event, by=event.by or event.player)


def _substituted(state: GameState, event: Substituted) -> AnyEvent:
    _between_deals(state, "a substitute", "5.4.7")
    _no_new_deal_after_end(state)
    seat_of(state, event.player)
    key = state.seat_key(event.player)
    _new_name(state, event.substitute, "5.4.7")
    if event.substitute in state.players:
        raise Refused("5.4.7", f"{event.substitute} is at the table already")
    other = state.seat_key(event.substitute)
    if other is not None and other != key:
        raise Refused("5.4.7", f"{event.substitute} held another seat in this pulka")
    _consent(state, event.agreed_by, [p for p in state.players if p != event.player], "5.4.7", "a substitute")
    return filled(state, event, by=event.by or event.player)


# -- the talon [Code 3.2.21, 3.4.10, 3.4.11] -----------------------------------------------


def _talon(state: GameState, event: Talon) -> AnyEvent:
    _not_abandoned(state)
    rules = state.rules
    if event.kind == "peek":
        seat_of(state, event.player)
        deal = state.in_auction
        if deal is None:
            current = state.current
            if current is not None and current.phase == "contract":
                deal = current
            elif current is None or current.annulled_at is not None or current.resolved:
                _no_new_deal_after_end(state)
                deal = state.next_deal()
            else:
                raise Refused("3.2.21", "the talon has been bought in this deal; looking at it costs nothing now",
                              waiting_for(state, current))
        if event.tricks:
            raise Refused("3.2.21", "looking at the talon gives no tricks", "tricks 0")
        return filled(state, event, by=event.by or event.player, deal=deal.number)
    current = state.current
    if current is None or current.annulled_at is not None or current.declarer is None or current.ruling is not None:
        raise Refused("3.4.1", "the talon is the declarer's: there is no declarer in this deal")
    names = current.persons
    declarer = names[current.declarer]
    if event.player != declarer:
        raise Refused("3.4.1", f"the talon is {declarer}'s", declarer)
    if event.kind == "refused":
        if not rules.talon_refusal_gora:
            raise Refused("3.4.10", "refusing the talon costs the dealer nothing in this pulka "
                          "(talon_refusal_gora is 0)")
        if current.phase != "contract":
            raise Refused("3.4.10", "the talon is refused before the contract is declared")
        if current.dealer == current.declarer:
            raise Refused("3.4.10", f"{declarer} dealt this deal himself")
        return filled(state, event, by=event.by or event.player, deal=current.number)
    if not rules.talon_premium:
        raise Refused("3.4.11", "the dealer's premium for the talon is not agreed in this pulka (talon_premium)")
    c = current.contract
    if c is None or c.is_misere or current.phase in ("auction", "contract"):
        raise Refused("3.4.11", "the premium is for tricks the talon gave to a declared suit contract")
    if current.dealer == current.declarer:
        raise Refused("3.4.11", f"{declarer} dealt this deal himself and writes no premium on himself")
    if not 1 <= event.tricks <= 3:
        raise Refused("3.4.11", "the talon gives one trick (an ace, a marriage), two (ace and king of a suit) or "
                      "three (two aces)", "1, 2 or 3")
    if any(isinstance(e, Talon) and e.kind == "premium" and e.deal == current.number
           for e in state.events[state.starts[-1] - 1:]):
        raise Refused("3.4.11", f"the premium of deal {current.number} is recorded already")
    return filled(state, event, by=event.by or names[current.dealer], deal=current.number)

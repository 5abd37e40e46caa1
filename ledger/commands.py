"""The command side: judge an event against the game so far, fill in its defaults.

``decide(state, event)`` returns the event as it will be stored (with ``by`` and
``deal`` filled in) or raises ``Refused`` naming the rule it breaks and what would
be allowed instead. Every check of the rules lives here; the projections apply
stored events without judging them, so an old log always replays.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import assert_never

import msgspec

from ledger.bids import HERE, LADDER, LEVELS_TEXT, MISERE, PASS, Level, lowest, next_step, parse_level
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
    event_type,
)
from ledger.rules import RuleSetError, resolve
from ledger.rules import check as check_rules
from projections.deal import DealState
from projections.game import GameState


class Refused(ValueError):
    """An event the rules do not allow: the rule, the reason, and what would be allowed."""

    def __init__(self, rule: str, reason: str, allowed: str | None = None) -> None:
        self.rule = rule
        self.reason = reason
        self.allowed = allowed
        self.line: int | None = None
        super().__init__(self.message)

    @property
    def message(self) -> str:
        text = f"{self.reason} [rule {self.rule}]"
        if self.allowed:
            text += f"; allowed: {self.allowed}"
        return text

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return where + self.message


def start(event: AnyEvent) -> GameStarted:
    """Judge a ``game_started`` and return it with the resolved rule set recorded."""
    if not isinstance(event, GameStarted):
        raise Refused("event-log", f"a log must begin with game_started, not {type(event).__name__}",
                      "a game_started line first")
    players = event.players
    if len(players) not in (3, 4):
        raise Refused("1.2", f"a pulka is played by 3 or 4 players, not {len(players)}")
    if len(set(players)) != len(players) or any(not p.strip() for p in players):
        raise Refused("event-log", "player names must be distinct and not empty")
    if any(p.startswith("arbiter:") for p in players):
        raise Refused("event-log", "a player's name may not begin with 'arbiter:'")
    if not event.game.strip():
        raise Refused("event-log", "the game needs a name")
    if event.pulya < 1:
        raise Refused("4.2.2", f"the pulya target must be a positive number of points, not {event.pulya}")
    if event.first_dealer is not None and event.first_dealer not in players:
        raise Refused("event-log", f"first_dealer {event.first_dealer!r} is not a player",
                      ", ".join(players))
    if event.stake is not None and not _is_stake(event.stake):
        raise Refused("4.2.13", f'stake must be a decimal number like "0.10", not {event.stake!r}')
    try:
        resolved = resolve(event.convention, event.rules)
        if event.rule_set is not None and event.rule_set != resolved:
            # An exported game carries its full rule set; it is what replay uses.
            check_rules(event.rule_set)
            resolved = event.rule_set
    except RuleSetError as exc:
        raise Refused("rules.md §9", str(exc)) from None
    if event.by is not None and event.by not in players and not _is_arbiter(event.by):
        raise Refused("event-log", f"unknown recorder {event.by!r}", f"a player ({', '.join(players)}) or arbiter:NAME")
    fd = event.first_dealer if event.first_dealer is not None else players[-1]
    return msgspec.structs.replace(
        event, rule_set=resolved, first_dealer=fd, by=event.by or fd, deal=None
    )


def _is_stake(text: str) -> bool:
    try:
        stake = Decimal(text)
    except InvalidOperation:
        return False
    return stake.is_finite() and stake >= 0


def _is_arbiter(by: str) -> bool:
    return by.startswith("arbiter:") and len(by) > len("arbiter:")


def decide(state: GameState, event: AnyEvent) -> AnyEvent:
    """Judge one event against ``state`` and return it as it will be stored."""
    _check_time(state, event)
    _check_by(state, event.by)
    match event:
        case GameStarted():
            raise Refused("event-log", "a game has only one game_started line")
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
            _player(state, event.player)
            return _fill(state, event, by=event.by or event.player)
        case Abandoned():
            return _abandoned(state, event)
        case Annulled():
            return _annulled(state, event)
        case Correction():
            return _correction(state, event)
        case Objection():
            return _objection(state, event)
        case _:
            assert_never(event)


# -- helpers ----------------------------------------------------------------------------


def _fill(
    state: GameState, event: AnyEvent, *, by: str | None, deal: int | None = None, late_ok: bool = False
) -> AnyEvent:
    """The event as stored: its recorder and its deal filled in. A ``deal`` given in the
    input must be the deal the event belongs to, except for a record by hand (an entry
    or an arbiter's penalty), which may name an earlier deal: a late record [4.2.10]."""
    k = deal if deal is not None else state.current_deal_number
    if event.deal is not None and event.deal != k:
        if not late_ok:
            raise Refused("event-log", f"this {event_type(event)} belongs to deal {k}, not deal {event.deal}",
                          f'"deal": {k}, or no deal')
        k = event.deal
    return msgspec.structs.replace(event, by=by, deal=k)


def _player(state: GameState, name: str) -> int:
    if name not in state.players:
        raise Refused("event-log", f"unknown player {name!r}", ", ".join(state.players))
    return state.seat(name)


def _check_by(state: GameState, by: str | None) -> None:
    if by is None or by in state.players or _is_arbiter(by):
        return
    raise Refused("event-log", f"unknown recorder {by!r}", f"a player ({', '.join(state.players)}) or arbiter:NAME")


def _check_time(state: GameState, event: AnyEvent) -> None:
    if event.at is None:
        return
    now = _parse_time(event.at)
    for earlier in reversed(state.events):
        if earlier.at is not None:
            if now < _parse_time(earlier.at):
                raise Refused("event-log", f"time {event.at} is before the previous event's {earlier.at}",
                              f"a time at or after {earlier.at}")
            return


def _parse_time(text: str) -> datetime:
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise Refused("event-log", f"{text!r} is not an ISO 8601 time", "e.g. 2026-11-30T20:14:03+01:00") from None
    if when.tzinfo is None:
        raise Refused("event-log", f"time {text!r} has no offset", "e.g. 2026-11-30T20:14:03+01:00")
    return when


def _no_new_deal_after_end(state: GameState) -> None:
    if state.abandoned_at is not None:
        raise Refused("4.2.3", f"the pulka was abandoned at event {state.abandoned_at}; no deal may follow")
    if state.finished:
        raise Refused("4.2.3", "the pulka has ended: every pulya reached the target"
                      if state.rules.help else "the pulka has ended: the pulyas reached players x target")


def _deal_for_bid(state: GameState) -> DealState:
    """The deal a bid belongs to: the one in its auction, or a new one."""
    current = state.current
    if current is not None and current.annulled_at is None and not current.resolved:
        if current.bidding_closed_at is None:
            return current
        if current.phase != "play":
            waiting = _waiting_for(state, current)
            raise Refused("3.3", f"the auction of deal {current.number} is over; the deal waits for {waiting}",
                          waiting)
        # Played, but its result not recorded: the next deal may begin, and the tricks
        # may still come as a forgotten record with their deal number [Code 4.2.10].
    _no_new_deal_after_end(state)
    return state.next_deal()


def _waiting_for(state: GameState, deal: DealState) -> str:
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
    seat = _player(state, event.player)
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
        return _fill(state, msgspec.structs.replace(event, bid=PASS), by=event.by or event.player, deal=deal.number)
    if deal.misere_bidder == seat:
        raise Refused("3.6.4", f"{event.player} bid misère and may only pass now", "pass")
    if text.lower() == HERE:
        _here(state, deal, seat)
        return _fill(state, msgspec.structs.replace(event, bid=HERE), by=event.by or event.player, deal=deal.number)
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
    return _fill(state, msgspec.structs.replace(event, bid=str(level)), by=event.by or event.player,
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
    name = state.players[seat]
    if seat != deal.bidders[0]:
        raise Refused("3.3.8", f"only the forehand ({state.players[deal.bidders[0]]}) may say here",
                      _allowed_bids(deal, seat))
    if deal.highest is None or deal.highest_by == seat:
        raise Refused("3.3.8", f"{name} may say here only to hold another player's bid",
                      _allowed_bids(deal, seat))
    if deal.highest.is_misere:
        raise Refused("3.6.4", "nobody may answer a misère with here", _allowed_bids(deal, seat))


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
    if (
        seat == deal.bidders[0]
        and deal.highest is not None
        and deal.highest_by != seat
        and not deal.highest.is_misere
    ):
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
    seat = _player(state, event.player)
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
        return _fill(state, msgspec.structs.replace(event, contract=str(level)), by=event.by or event.player)
    if deal is None or deal.annulled_at is not None or deal.bidding_closed_at is None:
        raise Refused("3.4", "no auction has ended with a declarer",
                      _waiting_for(state, deal) if deal is not None and deal.annulled_at is None else "a bid")
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
    return _fill(state, msgspec.structs.replace(event, contract=str(level)), by=event.by or event.player)


# -- the defence [Code 3.8] -------------------------------------------------------------


def _defence(state: GameState, event: Defence) -> AnyEvent:
    _not_abandoned(state)
    seat = _player(state, event.player)
    names = state.players
    deal = state.current
    if deal is None or deal.annulled_at is not None or deal.contract is None or deal.raspasy:
        raise Refused("3.8", "there is no declared contract to whist", _waiting_for(state, deal) if deal else "a bid")
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
        raise Refused("3.8", f"the defence of deal {deal.number} is complete", _waiting_for(state, deal))
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
    return _fill(state, event, by=event.by or event.player)


# -- tricks [Code 3.5, 3.7.6] -----------------------------------------------------------


def _tricks(state: GameState, event: Tricks) -> AnyEvent:
    _not_abandoned(state)
    names = state.players
    for name in event.tricks:
        _player(state, name)
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
                      _waiting_for(state, deal) if deal is not None and deal.annulled_at is None else "a bid")
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
        return _fill(state, event, by=by, deal=deal.number)
    assert deal.declarer is not None and deal.contract is not None
    extra = set(seats) - participants
    if extra:
        raise Refused("3.5", f"{', '.join(names[s] for s in sorted(extra))} sits out deal {deal.number} as the dealer and takes no tricks",
                      ", ".join(names[s] for s in deal.active))
    if deal.contract.is_misere and set(seats) == {deal.declarer}:
        return _fill(state, event, by=event.by or names[deal.declarer], deal=deal.number)
    missing = participants - set(seats)
    if missing:
        raise Refused("3.5", f"tricks must name the declarer and both defenders: "
                      f"{', '.join(names[s] for s in sorted(missing))} missing",
                      ", ".join(names[s] for s in deal.active))
    if total != 10:
        raise Refused("3.5", f"tricks sum to {total}, not 10", "counts that sum to 10")
    return _fill(state, event, by=event.by or names[deal.declarer], deal=deal.number)


# -- records by hand, penalties, the end ---------------------------------------------------


def _column_check(state: GameState, player: str, column: str, on: str | None) -> None:
    _player(state, player)
    if column == "whists":
        if on is None:
            raise Refused("4.2.1", "whists are written on someone: give `on`",
                          ", ".join(p for p in state.players if p != player))
        _player(state, on)
        if on == player:
            raise Refused("4.2.1", f"{player} cannot write whists on himself",
                          ", ".join(p for p in state.players if p != player))
    elif on is not None:
        raise Refused("4.2.1", f"`on` goes only with the whists column, not {column}")


def _entry(state: GameState, event: Entry) -> AnyEvent:
    _column_check(state, event.player, event.column, event.on)
    _check_deal_exists(state, event.deal)
    return _fill(state, event, by=event.by or event.player, late_ok=True)


def _check_deal_exists(state: GameState, deal: int | None) -> None:
    if deal is not None and not 0 <= deal <= state.current_deal_number:
        raise Refused("4.2.10", f"there is no deal {deal} yet", f"0 to {state.current_deal_number}")


def _penalty(state: GameState, event: Penalty) -> AnyEvent:
    _column_check(state, event.player, event.column, event.on)
    if event.by is None or not _is_arbiter(event.by):
        raise Refused("4.2.16", "a penalty is an arbiter's ruling: `by` must be arbiter:NAME")
    _check_deal_exists(state, event.deal)
    return _fill(state, event, by=event.by, late_ok=True)


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
                      _waiting_for(state, state.deal_in_progress()))  # type: ignore[arg-type]
    if state.finished:
        raise Refused("4.2.3", "the pulka has ended already")
    return _fill(state, event, by=event.by or event.agreed_by[0])


def _annulled(state: GameState, event: Annulled) -> AnyEvent:
    deal = state.current
    if deal is None or deal.annulled_at is not None or deal.resolved:
        _no_new_deal_after_end(state)
        nxt = state.next_deal()
        return _fill(state, event, by=event.by or state.players[nxt.dealer], deal=nxt.number)
    if deal.tricks is not None:
        raise Refused("3.2.13", f"deal {deal.number} has been played and cannot be annulled")
    return _fill(state, event, by=event.by or state.players[deal.dealer], deal=deal.number)


def _correction(state: GameState, event: Correction) -> AnyEvent:
    from ledger.corrections import judge_correction

    return judge_correction(state, event)


def _objection(state: GameState, event: Objection) -> AnyEvent:
    from ledger.corrections import judge_objection

    return judge_objection(state, event)

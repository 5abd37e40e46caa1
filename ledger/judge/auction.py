"""Judging the auction and the contract [Code 3.3, 3.4, 3.6.4, 3.6.9, 3.7.7-3.7.9]: whose
turn it is to bid, which bids are allowed (the ladder, here, misère, dark bids, the
minimum after raspasy), and the contract the auction's winner declares or changes.
"""

from __future__ import annotations

from ledger.judge.checks import filled, in_deal, no_new_deal_after_end, not_abandoned, waiting_for
from ledger.vocabulary import language
from ledger.vocabulary.bids import HERE, LADDER, LEVELS_TEXT, MISERE, PASS, Level, lowest, next_step, parse_level, \
    spoken
from ledger.vocabulary.events import AnyEvent, Bid, Contract
from ledger.vocabulary.refusal import Refused
from projections.deal_state import DealState
from projections.game import GameState

_ = language._  # every text a person reads, in the language in effect


def judge_bid(state: GameState, event: Bid) -> AnyEvent:
    """A bid, in turn, that the auction allows now [Code 3.3]."""
    deal = _deal_for_bid(state)
    seat = in_deal(state, deal, event.player)
    _in_turn(deal, seat, event)
    text = event.bid.strip()
    if event.dark:
        _dark_allowed(deal, seat, event)
    by = event.by or event.player
    if text.lower() == PASS:
        if event.dark and (seat in deal.spoken or deal.highest is not None):
            raise Refused("3.3.19", _("a dark pass is a player's first word, before anyone has bid"), _("pass"))
        return filled(state, event, by=by, deal=deal.number, bid=PASS)
    _may_only_pass(deal, seat, event)
    if text.lower() == HERE:
        _here(state, deal, seat)
        return filled(state, event, by=by, deal=deal.number, bid=HERE)
    level = parse_level(text)
    if level is None:
        raise Refused("3.3.7", _("{text} is not a bid").format(text=repr(event.bid)),
                      _("pass, here, {levels}").format(levels=LEVELS_TEXT))
    if level.is_misere:
        _misere_allowed(deal, seat, event)
    else:
        _level_allowed(deal, seat, event, level)
    return filled(state, event, by=by, deal=deal.number, bid=text if text in LADDER else str(level))


def _in_turn(deal: DealState, seat: int, event: Bid) -> None:
    """The bidder is in the auction, and it is his turn [Code 3.2.10, 3.3.10, 3.3.18]."""
    names = deal.persons
    if seat not in deal.bidders:
        raise Refused("3.2.10", _("{player} deals deal {deal} and sits out the auction").format(
            player=event.player, deal=deal.number), ", ".join(names[s] for s in deal.bidders))
    turn = deal.turn()
    if turn != seat:
        if seat in deal.passed:
            raise Refused("3.3.10", _("{player} has passed and is out of the auction").format(player=event.player),
                          _("a bid by {player}").format(player=names[turn]) if turn is not None else None)
        raise Refused("3.3.18", _("not {player}'s turn to bid in deal {deal}").format(
            player=event.player, deal=deal.number),
            _("a bid by {player}").format(player=names[turn]) if turn is not None else None)


def _dark_allowed(deal: DealState, seat: int, event: Bid) -> None:
    """Dark bids only by agreement, and only before one has seen his cards [Code 3.3.19]."""
    if not deal.rules.dark_bids:
        raise Refused("3.3.19", _("dark bids are made only by prior agreement, and this pulka's rules have none "
                                  "(dark_bids)"), _("the same bid in the light"))
    if seat in deal.looked:
        raise Refused("3.3.19", _("{player} has bid in the light and seen his cards: no more dark bids").format(
            player=event.player), _("a bid in the light"))


def _may_only_pass(deal: DealState, seat: int, event: Bid) -> None:
    """Where only a pass is allowed: a forced raspasy [Code 3.7.9], after a look at the
    talon [3.3.16.1], after one's own misère, or after a nine beat it [3.6.4]."""
    if deal.forced:
        raise Refused("3.7.9", _("deal {deal} is a forced raspasy opening the pulka: everyone passes dark").format(
            deal=deal.number), _("pass"))
    if seat in deal.peeked:
        raise Refused("3.3.16.1", _("{player} has seen the talon and takes no further part in the auction").format(
            player=event.player), _("pass"))
    if deal.misere_bidder == seat:
        raise Refused("3.6.4", _("{player} bid misère and may only pass now (footnote 41)").format(
            player=event.player), _("pass"))
    if deal.nine_over_misere and deal.rules.misere_nine_ends_auction:
        raise Refused("3.6.4", _("after a nine beats a misère the auction goes no further (footnote 41's norm, "
                                 "misere_nine_ends_auction)"), _("pass"))


def _misere_allowed(deal: DealState, seat: int, event: Bid) -> None:
    """Misère only as a player's first bid, below it on the ladder [Code 3.3.9, 3.6.4]."""
    if not _misere_open(deal, seat):
        if seat in deal.spoken:
            raise Refused("3.3.9", _("misère must be {player}'s first bid").format(player=event.player),
                          _allowed_bids(deal, seat))
        raise Refused("3.6.4", _("misère cannot follow {bid}").format(bid=spoken(str(deal.highest))), _allowed_bids(deal, seat))


def _level_allowed(deal: DealState, seat: int, event: Bid, level: Level) -> None:
    """A game bid: at least the minimum [Code 3.3.5, 3.7.8, 3.3.19 a], above the current
    bid [3.3.7], a dark misère beaten only dark [3.3.19], one step at a time unless
    jumps are agreed [3.3.8]."""
    if level.level < deal.bid_floor():
        raise _below_minimum(deal, "bid", _allowed_bids(deal, seat))
    if deal.highest is not None and level.rank <= deal.highest.rank:
        raise Refused("3.3.7", _("{level} is not above the current bid {bid}").format(level=spoken(str(level)),
                                                                                   bid=spoken(str(deal.highest))),
                      _allowed_bids(deal, seat))
    if _dark_misere_stands(deal) and level.level == 9 and not event.dark:
        raise Refused("3.3.19", _("a dark misère is beaten only by a dark nine or a ten"), _("a dark nine, or a ten"))
    if not deal.rules.jump_bids:
        expected = _one_step(deal)
        if expected is not None and level != expected:
            raise Refused("3.3.8", _("bids go one step at a time here (jump_bids is off); {level} skips").format(
                level=level), _allowed_bids(deal, seat))


def _deal_for_bid(state: GameState) -> DealState:
    """The deal a bid belongs to: the one in its auction, or a new one."""
    if state.in_auction is not None:
        return state.in_auction
    current = state.current
    if current is not None and current.annulled_at is None and not current.resolved:
        if current.phase != "play":
            waiting = waiting_for(state, current)
            rule = "3.4.1" if current.phase == "contract" else "3.8.1"
            raise Refused(rule, _("the auction of deal {deal} is over; the deal waits for {what}").format(
                deal=current.number, what=waiting), waiting)
        # Played, but its result not recorded: the next deal may begin, and the tricks
        # may still come as a forgotten record with their deal number [Code 4.2.10].
    no_new_deal_after_end(state)
    return state.next_deal()


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
    bid = what == "bid"
    if floor > deal.min_level:
        text = (_("after {n} dark pass(es) the lowest bid in deal {deal} is {floor}") if bid else
                _("after {n} dark pass(es) the lowest contract in deal {deal} is {floor}"))
        return Refused("3.3.19", text.format(n=len(deal.dark_passers), deal=deal.number, floor=floor), allowed)
    if deal.exit_dark:
        text = (_("the lowest bid in deal {deal}, after a raspasy with dark passes, is {level}") if bid else
                _("the lowest contract in deal {deal}, after a raspasy with dark passes, is {level}"))
        return Refused("3.7.7", text.format(deal=deal.number, level=deal.min_level), allowed)
    if deal.min_level > 6:
        rules = deal.rules
        how = ", ".join(["raspasy_exit"] + [k for k in ("raspasy_exit_lasts", "raspasy_exit_climbs") if getattr(rules, k)])
        text = (_("the lowest bid in deal {deal}, after raspasy, is {level} ({how})") if bid else
                _("the lowest contract in deal {deal}, after raspasy, is {level} ({how})"))
        return Refused("3.7.8", text.format(deal=deal.number, level=deal.min_level, how=how), allowed)
    return Refused("3.3.5", (_("the lowest bid is 6") if what == "bid" else _("the lowest contract is 6")), allowed)


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
        raise Refused("3.3.8", _("only the forehand ({player}) may say here").format(
            player=deal.persons[deal.bidders[0]]), _allowed_bids(deal, seat))
    if deal.highest is not None and deal.highest.is_misere:
        raise Refused("3.6.4", _("nobody may answer a misère with here (footnote 41)"), _allowed_bids(deal, seat))
    raise Refused("3.3.8", _("{player} may say here only to hold another player's bid").format(player=name),
                  _allowed_bids(deal, seat))


def _misere_open(deal: DealState, seat: int) -> bool:
    """Misère only as a player's first bid, while the highest bid is below it [Code 3.3.9]."""
    return seat not in deal.spoken and (deal.highest is None or deal.highest.rank < LADDER[MISERE].rank)


def _allowed_bids(deal: DealState, seat: int) -> str:
    """The bids the player may make, in the players' words (``пас, 7♠ или выше, мизер``)."""
    if deal.misere_bidder == seat or deal.forced or seat in deal.peeked:
        return spoken(PASS)
    if deal.nine_over_misere and deal.rules.misere_nine_ends_auction:
        return spoken(PASS)
    options = [spoken(PASS)]
    step = _one_step(deal)
    if step is not None:
        options.append(_("{bid} or higher").format(bid=spoken(str(step))) if deal.rules.jump_bids else spoken(str(step)))
    if deal.may_say_here(seat):
        options.append(spoken(HERE))
    if _misere_open(deal, seat):
        options.append(spoken(MISERE))
    return ", ".join(options)


# -- the contract [Code 3.4] -----------------------------------------------------------


def judge_contract(state: GameState, event: Contract) -> AnyEvent:
    """The contract of the auction's winner, or of the third hand who takes the talon
    after two passes [Code 3.3.15, 3.4]."""
    not_abandoned(state)
    deal = state.current
    level = parse_level(event.contract)
    if level is None:
        raise Refused("2.2.2", _("{text} is not a contract").format(text=repr(event.contract)), LEVELS_TEXT)
    if deal is None or deal.annulled_at is not None or deal.ruling is not None:
        raise Refused("3.4.1", _("no auction has ended with a declarer"), _("a bid"))
    seat = in_deal(state, deal, event.player)
    floor = deal.bid_floor()
    by = event.by or event.player
    if deal.third_hand_may_take_talon(seat):
        # Two passes, then the third hand takes the talon without bidding [Code 3.3.15].
        _change(state, deal, event)
        if level.is_misere:
            raise Refused("3.3.15", _("taking the talon without bidding obliges a contract, not a misère"),
                          _("{bid} or higher").format(bid=spoken(f"{floor}S")))
        if level.level < floor:
            raise _below_minimum(deal, "contract", _("{bid} or higher").format(bid=spoken(f"{floor}S")))
        _shared(state, deal, event, level)
        return filled(state, event, by=by, contract=str(level))
    _the_declarer(state, deal, seat, event)
    _change(state, deal, event)
    _declarable(deal, seat, event, level)
    _shared(state, deal, event, level)
    return filled(state, event, by=by, contract=str(level))


def _the_declarer(state: GameState, deal: DealState, seat: int, event: Contract) -> None:
    """The auction has ended, with a declarer, and he declares [Code 3.4.1, 3.3.12, 3.3.13]."""
    if deal.bidding_closed_at is None:
        raise Refused("3.4.1", _("no auction has ended with a declarer"), waiting_for(state, deal))
    if deal.raspasy:
        raise Refused("3.3.12", _("everyone passed in deal {deal}: it is raspasy, no contract").format(
            deal=deal.number), _("the raspasy tricks"))
    assert deal.declarer is not None
    if seat != deal.declarer:
        names = deal.persons
        raise Refused("3.3.13", _("{player} did not win the auction; {declarer} declares").format(
            player=event.player, declarer=names[deal.declarer]),
            _("a contract by {player}").format(player=names[deal.declarer]))


def _declarable(deal: DealState, seat: int, event: Contract, level: Level) -> None:
    """The contract the declarer's auction allows: not below his bid [Code 3.4.3], a
    misère as bid [3.4.4] or from a dark game before the talon [3.3.19 b], a contract of
    the minimum or more when he took the talon without bidding [3.3.15], no dark six
    once a defender has passed [3.3.19]."""
    floor = deal.bid_floor()
    bid = deal.own_level.get(seat)
    dark_winner = deal.dark_last.get(seat, False)
    if deal.talon_without_bid:
        if level.is_misere or level.level < floor:
            raise Refused("3.3.15", _("a contract taken without bidding must be a contract of {floor} or more, not a "
                                      "misère").format(floor=floor), _("{bid} or higher").format(bid=spoken(f"{floor}S")))
    elif bid is not None and bid.is_misere:
        if not level.is_misere:
            raise Refused("3.4.4", _("{player} bid misère and must declare the misère").format(player=event.player),
                          _("{misere}; if he will not, a ruling under 3.4.4: a misère without all, all ten "
                            "tricks").format(misere=spoken(MISERE)))
    elif level.is_misere:
        if not dark_winner:
            raise Refused("3.4.4", _("{player} did not bid misère and cannot declare one").format(player=event.player),
                          _("{bid} or higher").format(bid=spoken(str(bid))) if bid else None)
        # A dark winner may turn his game into a misère before taking the talon [Code 3.3.19 b].
        if deal.contract is not None:
            raise Refused("3.3.19", _("a dark game turns into a misère only before the talon is taken"),
                          _("{bid} or higher").format(bid=spoken(str(bid))) if bid else None)
    elif bid is not None and level.rank < bid.rank:
        raise Refused("3.4.3", _("the contract {level} is below {player}'s bid {bid}").format(
            level=spoken(str(level)), player=event.player, bid=spoken(str(bid))),
            _("{bid} or higher").format(bid=spoken(str(bid))))
    if dark_winner and level.level == 6 and deal.calls:
        raise Refused("3.3.19", _("a dark six is whisted by both defenders, and {player} has passed already").format(
            player=deal.persons[deal.calls[0][0]]), _("a contract of 7 or more, or the contract as declared"))


def _change(state: GameState, deal: DealState, event: Contract) -> None:
    """The declarer may change his contract until a defender has whisted [Code 3.4.7,
    3.4.8]; after a whist only where his intention to correct the error was evident, as
    in the Code's "6D - oh-oh-oh - whist! - 6H" (``evident_correction``) [3.4.8]."""
    whisted = any(call != PASS for _, call in deal.calls)
    if event.evident_correction:
        if deal.contract is None:
            raise Refused("3.4.8", _("an evident correction changes a contract declared already; none is"),
                          _("the contract without evident_correction"))
        if deal.tricks is not None or deal.no_defence:
            raise Refused("3.4.7", _("the contract can no longer change: it has been played") if deal.tricks is not None
                          else _("a misère or a checked 10 is played at once, without calls"))
        if deal.plan is not None:
            # the ruling rests on the calls to this contract, which the change would void
            raise Refused("3.8.5.1", _("the contract of deal {deal} can no longer change: the plan of play was "
                                       "ruled on at event {event}").format(deal=deal.number, event=deal.plan_at),
                          _("the tricks"))
        if not whisted:
            raise Refused("3.4.8", _("nobody has whisted: the declarer changes his contract without claiming an "
                                     "evident correction"), _("the contract without evident_correction"))
        if state.seats.changed_at > state.starts[-1]:
            raise Refused("3.1.2", _("the table changed after deal {deal}; its contract is closed").format(
                deal=deal.number), _("a bid of the next deal"))
        return
    if deal.contract is None:
        return
    if deal.no_defence or deal.resolved or whisted or deal.tricks:
        raise Refused("3.4.7", _("the contract can no longer change: it has been whisted or played"),
                      _("an evident correction (evident_correction), where the declarer's intention to correct his "
                        "error was evident before the whist (3.4.8)") if whisted and deal.tricks is None else None)


def _shared(state: GameState, deal: DealState, event: Contract, level: Level) -> None:
    """A misère shared in halves with the sitting-out dealer [Code 3.6.9]."""
    if event.shared_with is None:
        return
    if not deal.rules.misere_with_dealer:
        raise Refused("3.6.9", _("sharing a misère with the dealer is not agreed in this pulka (misere_with_dealer)"))
    if not level.is_misere:
        raise Refused("3.6.9", _("only a misère may be shared with the dealer"), spoken(MISERE))
    out = deal.sitting_out
    if out is None:
        raise Refused("3.6.9", _("a misère is shared only with a dealer who sits out, with four players"))
    if event.shared_with != deal.persons[out]:
        raise Refused("3.6.9", _("{player} is not the dealer of deal {deal}").format(
            player=event.shared_with, deal=deal.number), deal.persons[out])

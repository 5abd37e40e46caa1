"""Judging the defence [Code 3.8]: who calls next and which calls are allowed (whist,
pass, half-whist, a return), the dealer's whist with a defender's cards [3.8.8], the
dark six whisted by both [3.3.19], and no call that would undo a ruling on the plan of
play [3.8.5.1].
"""

from __future__ import annotations

from typing import NoReturn

from ledger.judge.checks import filled, in_deal, not_abandoned, waiting_for
from ledger.vocabulary import language
from ledger.vocabulary.bids import spoken
from ledger.vocabulary.events import AnyEvent, Defence
from ledger.vocabulary.refusal import Refused
from projections.deal_state import DealState, DefenceView, defence_view
from projections.game import GameState

_ = language._  # every text a person reads, in the language in effect


def judge_defence(state: GameState, event: Defence) -> AnyEvent:
    not_abandoned(state)
    deal = state.current
    if deal is None or deal.annulled_at is not None or deal.contract is None or deal.raspasy:
        raise Refused("3.8.1", _("there is no declared contract to whist"),
                      waiting_for(state, deal) if deal else _("a bid"))
    if deal.ruling is not None:
        raise Refused("3.8.1", _("deal {deal} was closed by a ruling").format(deal=deal.number),
                      _("a bid of the next deal"))
    seat = in_deal(state, deal, event.player)
    if deal.no_defence:
        if deal.contract.is_misere:
            raise Refused("3.6.6", _("a misère has no defence calls: it is played at once"), _("the tricks"))
        raise Refused("3.5.3", _("a checked 10 (ten_checked, footnote 39) has no defence calls"), _("the tricks"))
    if deal.tricks is not None:
        raise Refused("3.8.1", _("deal {deal} has been played").format(deal=deal.number), _("a bid of the next deal"))
    if state.seats.changed_at > (state.starts[-1] if state.starts else 0):
        raise Refused("3.1.2", _("the table changed after deal {deal}; its defence is closed").format(
            deal=deal.number), _("a bid of the next deal"))
    view = deal.defence()
    if view.expect is None:
        if seat == deal.sitting_out:
            raise Refused("3.8.8.1", _("the dealer {player} may only return a half-whist, or whist after two "
                                       "passes where no half-whist is possible (an 8, 9 or 10)").format(
                player=event.player), waiting_for(state, deal))
        if event.call == "half_whist" and len(deal.calls) == 2 and deal.calls[0] == (seat, "whist"):
            raise Refused("3.8.14", _("{player} may half-whist after his own whist only under the gentleman's whist "
                                      "(single_whist_split) and on the half_whist_levels").format(player=event.player),
                          _("the tricks"))
        raise Refused("3.8.1", _("the defence of deal {deal} is complete").format(deal=deal.number),
                      waiting_for(state, deal))
    expect_seat, calls = view.expect
    if seat != expect_seat or event.call not in calls:
        _refuse_call(deal, event, seat, view, expect_seat, calls)
    if deal.plan is not None:
        _plan_stands(deal, seat, event, view)
    if event.hand is not None or (seat == deal.sitting_out and event.call == "whist"):
        _dealer_hand(deal, seat, event)
    if deal.forced_whist and event.open:
        raise Refused("3.3.19", _("a dark six is whisted dark: no open whist"), _("whist, closed"))
    return filled(state, event, by=event.by or event.player)


def _refuse_call(
    deal: DealState, event: Defence, seat: int, view: DefenceView, expect_seat: int, calls: frozenset[str]
) -> NoReturn:
    """Why a call out of turn, or one the defence does not allow now, is refused."""
    names = deal.persons
    allowed = _("{calls} by {player}").format(calls=_(" or ").join(spoken(c) for c in sorted(calls)),
                                              player=names[expect_seat])
    rule = _defence_rule(deal)
    if seat != expect_seat:
        if seat not in deal.defenders and seat != deal.sitting_out:
            raise Refused("3.8.1", _("{player} is not a defender in deal {deal}").format(
                player=event.player, deal=deal.number), allowed)
        raise Refused(rule, _("not {player}'s turn to call").format(player=event.player), allowed)
    if event.call == "half_whist" and not view.returned and view.half_whister is None and not deal.forced_whist:
        c = deal.contract
        assert c is not None
        if c.level not in deal.rules.half_whist_levels:
            reason = _("half-whist is not allowed on level {level}: the obligation there is one trick (footnote 60; "
                       "half_whist_levels: {levels})").format(level=c.level, levels=list(deal.rules.half_whist_levels))
        elif not deal.calls:
            reason = _("only the second defender may half-whist, after the first passed")
        else:
            reason = _("{player} may not half-whist now").format(player=event.player)
        raise Refused("3.8.7", reason, allowed)
    if deal.forced_whist:
        reason = _("a dark six is whisted by both defenders, dark")
    elif view.returned and seat == view.half_whister:
        reason = _("the whist was returned: the half-whister {player} may only pass").format(player=event.player)
    else:
        reason = _("{call} is not allowed now").format(call=spoken(event.call))
    raise Refused(rule, reason, allowed)


def _plan_stands(deal: DealState, seat: int, event: Defence, view: DefenceView) -> None:
    """A ruling on the plan of play [Code 3.8.5.1] rests on the calls made: the single
    whister carries out his plan and the deal is played; a or b is written against that
    play. So no call may follow that changes who whists or leaves the deal unplayed: the
    gentleman's own half-whist [3.8.14] would settle it without play [3.8.7], and the
    ruling would have no play to compensate. The half-whister's pass after a return
    [3.8.8.2] changes neither, and stands."""
    assert deal.contract is not None and deal.planner is not None
    d1, d2 = deal.defenders
    after = defence_view(deal.calls + [(seat, event.call)], d1, d2, deal.sitting_out, deal.contract, deal.rules,
                         deal.forced_whist)
    if after.needs_tricks and after.whisters == view.whisters:
        return
    raise Refused("3.8.5.1", _("deal {deal} is played by {planner}'s plan of play, ruled on at event {event}: "
                               "no call may now change who whists or leave it unplayed").format(
        deal=deal.number, planner=deal.persons[deal.planner], event=deal.plan_at), _("the tricks"))


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
        raise Refused("3.8.8", _("only the whisting dealer names the hand he plays (hand)"))
    defenders = [deal.persons[s] for s in deal.defenders]
    if event.hand is None:
        raise Refused("3.8.8", _("the dealer whists with the cards of one of the declarer's opponents: name him "
                                 "(hand)"), _(" or ").join(defenders))
    if event.hand not in defenders:
        raise Refused("3.8.8", _("{player} is not an opponent of the declarer in deal {deal}").format(
            player=event.hand, deal=deal.number), _(" or ").join(defenders))

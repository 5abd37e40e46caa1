"""Judging a deal's result in tricks [Code 3.2.8, 3.5, 3.7.6, 3.8.8, 3.9]: who played,
that the tricks make the ten of a deal, and the penalty tricks a rule gives; a result
recorded late names its deal [Code 4.2.10].
"""

from __future__ import annotations

from ledger.judge.checks import filled, in_deal, not_abandoned, waiting_for
from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, Tricks
from ledger.vocabulary.language import N_
from ledger.vocabulary.refusal import Refused
from projections.deal_state import DealState
from projections.game import GameState
from projections.penalty_tricks import PENALTY_KINDS, PENALTY_RULES_TEXT

_ = language._  # every text a person reads, in the language in effect


def judge_tricks(state: GameState, event: Tricks) -> AnyEvent:
    not_abandoned(state)
    deal = state.current
    if event.deal is not None and event.deal != state.current_deal_number:
        if not 1 <= event.deal < state.current_deal_number:
            raise Refused("4.2.10", _("there is no deal {deal} before this one").format(deal=event.deal),
                          _("1 to {last}").format(last=state.current_deal_number - 1))
        deal = state.deals[event.deal - 1]
        if deal.phase != "play":
            raise Refused("4.2.10", _("deal {deal} is not waiting for its tricks; a recorded result is changed with "
                                      "a correction").format(deal=deal.number))
    if deal is None or deal.annulled_at is not None or deal.phase != "play":
        if deal is not None and deal.annulled_at is None and deal.phase == "done":
            raise Refused("4.2.7", _("deal {deal} has its result already; it is changed with a correction").format(
                deal=deal.number), _("a bid of the next deal"))
        raise Refused("4.2.6", _("no deal is waiting for its tricks"),
                      waiting_for(state, deal) if deal is not None and deal.annulled_at is None else _("a bid"))
    check_result(state, deal, event.tricks, N_("tricks"))
    _penalty_tricks(state, deal, event)
    # Recorded by default by the declarer, on raspasy by the dealer [event-log.md].
    default = deal.dealer if deal.raspasy or deal.declarer is None else deal.declarer
    return filled(state, event, by=event.by or deal.persons[default], deal=deal.number)


def check_result(state: GameState, deal: DealState, tricks: dict[str, int], what: str) -> None:
    """Tricks as a deal's result must name who played and add up to the ten tricks of a
    deal of ten cards each [Code 3.2.8, 3.7.6, 3.8.8]; ``what`` names them in a refusal
    (a text marked for the catalogue with ``N_``)."""
    names = deal.persons
    seats: dict[int, int] = {}
    for name, t in tricks.items():
        seats[in_deal(state, deal, name)] = t
        if not 0 <= t <= 10:
            raise Refused("3.2.8", _("{player} cannot take {n} tricks").format(player=name, n=t), _("0 to 10"))
    total = sum(seats.values())
    if deal.raspasy:
        dealer = deal.dealer
        outside = deal.sitting_out is not None
        if outside and dealer in seats:
            if not deal.rules.raspasy_talon and seats[dealer]:
                raise Refused("3.7.6.2", _("the talon is not used on raspasy here: {dealer} takes no trick").format(
                    dealer=names[dealer]), _("{what} for {players}").format(
                    what=_(what), players=", ".join(names[s] for s in deal.active)))
            if seats[dealer] > 2:
                raise Refused("3.7.6.1", _("the dealer {dealer} can win only the two talon tricks").format(
                    dealer=names[dealer]), _("0, 1 or 2"))
        missing = set(deal.active) - set(seats)
        if missing:
            raise Refused("3.7.2", _("raspasy tricks must name every player: {players} missing").format(
                players=", ".join(names[s] for s in sorted(missing))), ", ".join(names[s] for s in deal.active))
        if total != 10:
            raise Refused("3.2.8", _("{what} sum to {total}, not 10").format(what=_(what), total=total),
                          _("counts that sum to 10"))
        return
    assert deal.declarer is not None and deal.contract is not None
    playing = set(deal.playing)
    extra = set(seats) - playing
    if extra:
        who = sorted(extra)
        if deal.dealer_hand is not None and deal.dealer_hand in extra:
            raise Refused("3.8.8", _("{player}'s cards were played by the dealer {dealer}, who takes the tricks of "
                                    "that hand").format(player=names[deal.dealer_hand], dealer=names[deal.dealer]),
                          ", ".join(names[s] for s in deal.playing))
        raise Refused("3.2.10", _("{player} sits out deal {deal} as the dealer and takes no tricks").format(
            player=", ".join(names[s] for s in who), deal=deal.number), ", ".join(names[s] for s in deal.playing))
    if deal.contract.is_misere and set(seats) == {deal.declarer}:
        return
    missing = playing - set(seats)
    if missing:
        raise Refused("4.2.1", _("{what} must name the declarer and both defenders: {players} missing").format(
            what=_(what), players=", ".join(names[s] for s in sorted(missing))),
            ", ".join(names[s] for s in deal.playing))
    if total != 10:
        raise Refused("3.2.8", _("{what} sum to {total}, not 10").format(what=_(what), total=total),
                          _("counts that sum to 10"))


def _penalty_tricks(state: GameState, deal: DealState, event: Tricks) -> None:
    """Penalty tricks name a player of the deal and the rule that gives them [Code 3.4.6,
    3.4.9, 3.9.11.2, 3.9.18, 3.2.16]."""
    for pt in event.penalty_tricks:
        rule = pt.rule
        if rule not in PENALTY_KINDS:
            raise Refused("3.9.12", _("{rule} is not a rule that gives penalty tricks").format(rule=repr(rule)),
                          "; ".join(f"{r}: {_(t)}" for r, t in PENALTY_RULES_TEXT.items()))
        if pt.player not in event.tricks:
            raise Refused(rule, _("penalty tricks fall on a player named in the tricks, not {player}").format(
                player=pt.player),
                          ", ".join(event.tricks))
        seat = in_deal(state, deal, pt.player)
        declarer = seat == deal.declarer
        if deal.raspasy and rule != "3.9.11.2":
            raise Refused(rule, _("on raspasy the Code gives a penalty trick only for looking at a closed trick; "
                                   "other damages are an arbiter's penalty"), "3.9.11.2")
        if rule in ("3.4.6", "3.4.9") and not declarer:
            raise Refused(rule, _("rule {rule} punishes the declarer, not {player}").format(
                rule=rule, player=pt.player))
        if rule == "3.4.6" and pt.tricks != 2:
            raise Refused(rule, _("a declaration with a wrong number of cards is a remiz without two"), "2")
        if rule == "3.4.9" and pt.tricks != 1:
            raise Refused(rule, _("looking at the discard costs one trick"), "1")
        if rule in ("3.9.18", "3.2.16") and pt.tricks < 2:
            raise Refused(rule, _("a wrong number of cards is a remiz of at least two"), _("2 or more"))
        if pt.tricks < 1:
            raise Refused(rule, _("penalty tricks are one or more"), _("1 or more"))
        c = deal.contract
        if not declarer and c is not None and (c.is_misere or (deal.no_defence and rule != "3.9.11.2")):
            raise Refused(rule, _("on a misère or a checked 10 the defenders carry no obligation the penalty "
                                   "could touch (3.9.12)"))

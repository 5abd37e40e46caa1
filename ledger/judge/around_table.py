"""Judging what happens around the table, between the deals' play: a deal out of turn
[Code 3.2.14], an annulment [3.2.13, 3.2.17], a newcomer [3.1.2], a player who leaves
[5.4.18], a substitute [5.4.7], and the end of the pulka by agreement or on a
player's demand [4.2.3, 4.2.15, 5.4.18].
"""

from __future__ import annotations

from ledger.judge.admission import check_newcomer
from ledger.judge.checks import (
    between_deals,
    filled,
    is_official,
    no_new_deal_after_end,
    seat_of,
    waiting_for,
)
from ledger.vocabulary import language
from ledger.vocabulary.events import Abandoned, Annulled, AnyEvent, Dealt, Joined, Left, Substituted
from ledger.vocabulary.refusal import Refused
from projections.game import GameState

_ = language._  # every text a person reads, in the language in effect
N_ = language.N_


def judge_abandoned(state: GameState, event: Abandoned) -> AnyEvent:
    if state.abandoned_at is not None:
        raise Refused("4.2.3", _("the pulka has already been abandoned"))
    if state.finished:
        raise Refused("4.2.3", _("the pulka has ended already"))
    progress = state.deal_in_progress()
    if progress is not None:
        raise Refused("5.4.18", _("a pulka cannot be abandoned in the middle of a deal: a deal once dealt is "
                                  "played out (footnote 94)"), waiting_for(state, progress))
    if event.demanded_by is not None:
        # Any player may demand immediate settlement in an emergency [Code 4.2.15, 5.4.18].
        if event.demanded_by not in state.players:
            raise Refused("5.4.18", _("{player} is not at the table").format(player=event.demanded_by),
                          ", ".join(state.players))
        if not event.reason.strip():
            raise Refused("5.4.18", _("settling on one player's demand needs its reason (an emergency)"),
                          _("reason: why the pulka cannot go on"))
        return filled(state, event, by=event.by or event.demanded_by)
    unknown = [p for p in event.agreed_by if p not in state.players]
    if unknown:
        raise Refused("event-log", _("unknown player(s) {players}").format(players=", ".join(unknown)),
                      ", ".join(state.players))
    missing = [p for p in state.players if p not in event.agreed_by]
    if missing:
        raise Refused("4.2.3", _("abandoning needs the agreement of all players; {missing} did not agree").format(
            missing=", ".join(missing)), _("the agreement of all, or one player's demand with its reason (5.4.18)"))
    return filled(state, event, by=event.by or event.agreed_by[0])


def judge_annulled(state: GameState, event: Annulled) -> AnyEvent:
    deal = state.current
    if deal is None or deal.annulled_at is not None or deal.resolved:
        no_new_deal_after_end(state)
        nxt = state.next_deal()
        return filled(state, event, by=event.by or nxt.persons[nxt.dealer], deal=nxt.number)
    if deal.tricks is not None or deal.phase in ("defence", "play"):
        raise Refused("3.2.13", _("deal {deal} is past its auction and cannot be dealt again").format(deal=deal.number))
    return filled(state, event, by=event.by or deal.persons[deal.dealer], deal=deal.number)


def judge_dealt(state: GameState, event: Dealt) -> AnyEvent:
    """A deal out of turn stands once the cards were lifted [Code 3.2.14]."""
    if state.in_auction is not None:
        raise Refused("3.2.14", _("deal {deal} has been dealt already").format(deal=state.in_auction.number),
                      waiting_for(state, state.in_auction))
    between_deals(state, N_("a deal"), "3.2.14")
    no_new_deal_after_end(state)
    seat_of(state, event.player)
    due = state.due_dealer()
    if state.seat_key(event.player) == due:
        raise Refused("3.2.14", _("{player} deals in turn; only a deal out of turn is recorded").format(
            player=event.player), _("a player other than {player}").format(player=state.seats.holder(due)))
    nxt = state.next_deal(state.seat_key(event.player))
    return filled(state, event, by=event.by or event.player, deal=nxt.number)


# -- changes of players [Code 3.1.2, 5.4.7, 5.4.18] ------------------------------------


def _new_name(state: GameState, name: str, rule: str) -> None:
    if not name.strip() or is_official(name) or name.startswith("arbiter:") or name.startswith("scorer:"):
        raise Refused(rule, _("{name} cannot be a player's name").format(name=repr(name)))
    check_newcomer(name, state.person_seat)


def _consent(state: GameState, agreed_by: tuple[str, ...], needed: list[str], rule: str, what: str) -> None:
    missing = [p for p in needed if p not in agreed_by]
    if missing:
        raise Refused(rule, _("{what} needs the consent of {needed}; {missing} did not consent").format(
            what=_(what), needed=", ".join(needed), missing=", ".join(missing)), ", ".join(needed))


def judge_joined(state: GameState, event: Joined) -> AnyEvent:
    between_deals(state, N_("a newcomer"), "3.1.2")
    no_new_deal_after_end(state)
    if state.current is None:
        raise Refused("3.1.2", _("a newcomer sits to the left of the one who has just dealt; before the first deal, "
                                 "start the pulka with four players"))
    if len(state.players) != 3:
        raise Refused("3.1.2", _("a newcomer joins three players as the fourth"), _("a substitute (5.4.7)"))
    _new_name(state, event.player, "3.1.2")
    if state.seat_key(event.player) is not None:
        raise Refused("3.1.2", _("{player} has played in this pulka already").format(player=event.player),
                      _("a new player's name"))
    if event.replaces is not None:
        _replaced(state, event.replaces)
    _consent(state, event.agreed_by, list(state.players), "3.1.2", N_("a newcomer"))
    return filled(state, event, by=event.by or event.agreed_by[0])


def _replaced(state: GameState, name: str) -> None:
    """A newcomer replaces the player whose leaving left three at the table, and sits in
    his place [Code 3.1.2]."""
    empty = state.seats.vacated
    left = state.seats.holder(empty) if empty is not None else None
    if name != left:
        who = _("{player} left the table").format(player=left) if left is not None else _("nobody has left the table")
        allowed = (_("replaces {player}, or no replaces: he sits to the left of the last dealer").format(player=left)
                   if left is not None else _("no replaces: he sits to the left of the last dealer"))
        raise Refused("3.1.2", _("a newcomer replaces the player who left, in his place; {player} did not leave "
                                 "the table ({who})").format(player=name, who=who), allowed)


def judge_left(state: GameState, event: Left) -> AnyEvent:
    between_deals(state, N_("leaving the table"), "5.4.18")
    no_new_deal_after_end(state)
    seat_of(state, event.player)
    if len(state.players) < 4:
        raise Refused("5.4.18", _("three players cannot go on as two: a substitute takes the seat (5.4.7), or the "
                                  "pulka is settled"), _("substituted, or abandoned"))
    return filled(state, event, by=event.by or event.player)


def judge_substituted(state: GameState, event: Substituted) -> AnyEvent:
    between_deals(state, N_("a substitute"), "5.4.7")
    no_new_deal_after_end(state)
    seat_of(state, event.player)
    key = state.seat_key(event.player)
    _new_name(state, event.substitute, "5.4.7")
    if event.substitute in state.players:
        raise Refused("5.4.7", _("{player} is at the table already").format(player=event.substitute))
    other = state.seat_key(event.substitute)
    if other is not None and other != key:
        raise Refused("5.4.7", _("{player} held another seat in this pulka").format(player=event.substitute))
    _consent(state, event.agreed_by, [p for p in state.players if p != event.player], "5.4.7", N_("a substitute"))
    return filled(state, event, by=event.by or event.player)

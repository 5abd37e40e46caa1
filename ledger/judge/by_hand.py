"""Judging the records written by hand [Code 4.2.1, 4.2.10]: an entry in a column, on
an earlier deal when it is a late record, and the talon's writes: a look at it before
it was bought [3.2.21], its refusal [3.4.10], the dealer's premium [3.4.11].
"""

from __future__ import annotations

from ledger.judge.checks import filled, no_new_deal_after_end, not_abandoned, person_of, seat_of, waiting_for
from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, Entry, Talon
from ledger.vocabulary.refusal import Refused
from projections.deal_state import DealState
from projections.game import GameState

_ = language._  # every text a person reads, in the language in effect


def judge_entry(state: GameState, event: Entry) -> AnyEvent:
    column_check(state, event.player, event.column, event.on)
    check_deal_exists(state, event.deal, (event.player, event.on))
    return filled(state, event, by=event.by or event.player, late_ok=True)


def column_check(state: GameState, player: str, column: str, on: str | None) -> None:
    key = person_of(state, player)
    if column == "whists":
        others = ", ".join(p for p in state.players if p != player)
        if on is None:
            raise Refused("4.2.1", _("whists are written on someone: give `on`"), others)
        if person_of(state, on) == key:
            raise Refused("4.2.1", _("{player} cannot write whists on himself").format(player=player), others)
    elif on is not None:
        raise Refused("4.2.1", _("`on` goes only with the whists column, not {column}").format(column=column))


def check_deal_exists(state: GameState, deal: int | None, names: tuple[str | None, ...] = ()) -> None:
    """A record of an earlier deal names players who were on the sheet then [Code 4.2.10, 3.1.2]."""
    if deal is None:
        return
    if not 0 <= deal <= state.current_deal_number:
        raise Refused("4.2.10", _("there is no deal {deal} yet").format(deal=deal),
                      _("0 to {last}").format(last=state.current_deal_number))
    if deal < state.current_deal_number:
        then = state.opened_with[deal].everyone if deal < len(state.opened_with) else state.seats.everyone
        for name in names:
            if name is not None and state.seat_key(name) not in then:
                raise Refused("4.2.10", _("{player} was not in the pulka at the end of deal {deal}").format(
                    player=name, deal=deal),
                              ", ".join(then))


# -- the talon [Code 3.2.21, 3.4.10, 3.4.11] -------------------------------------------


def judge_talon(state: GameState, event: Talon) -> AnyEvent:
    """A look at the talon before it was bought [Code 3.2.21], the declarer's refusal of
    it [3.4.10], or the tricks it gave him, for the dealer's premium [3.4.11]."""
    not_abandoned(state)
    if event.kind == "peek":
        return _peek(state, event)
    current = state.current
    if current is None or current.annulled_at is not None or current.declarer is None or current.ruling is not None:
        raise Refused("3.4.1", _("the talon is the declarer's: there is no declarer in this deal"))
    declarer = current.persons[current.declarer]
    if event.player != declarer:
        raise Refused("3.4.1", _("the talon is {declarer}'s").format(declarer=declarer), declarer)
    if event.kind == "refused":
        return _refused(state, current, event)
    return _premium(state, current, event)


def _peek(state: GameState, event: Talon) -> AnyEvent:
    """A look at the talon during the auction, or in the deal it opens [Code 3.2.21]."""
    seat_of(state, event.player)
    deal = state.in_auction
    if deal is None:
        current = state.current
        if current is not None and current.phase == "contract":
            deal = current
        elif current is None or current.annulled_at is not None or current.resolved:
            no_new_deal_after_end(state)
            deal = state.next_deal()
        else:
            raise Refused("3.2.21", _("the talon has been bought in this deal; looking at it costs nothing now"),
                          waiting_for(state, current))
    if event.tricks:
        raise Refused("3.2.21", _("looking at the talon gives no tricks"), _("tricks 0"))
    return filled(state, event, by=event.by or event.player, deal=deal.number)


def _refused(state: GameState, current: DealState, event: Talon) -> AnyEvent:
    """The declarer refuses the talon before he declares; the dealer pays [Code 3.4.10]."""
    if not state.rules.talon_refusal_gora:
        raise Refused("3.4.10", _("refusing the talon costs the dealer nothing in this pulka "
                                  "(talon_refusal_gora is 0)"))
    if current.phase != "contract":
        raise Refused("3.4.10", _("the talon is refused before the contract is declared"))
    if current.dealer == current.declarer:
        raise Refused("3.4.10", _("{player} dealt this deal himself").format(player=event.player))
    return filled(state, event, by=event.by or event.player, deal=current.number)


def _premium(state: GameState, current: DealState, event: Talon) -> AnyEvent:
    """The tricks the talon gave a declared suit contract: the dealer's premium, once a
    deal [Code 3.4.11]."""
    if not state.rules.talon_premium:
        raise Refused("3.4.11", _("the dealer's premium for the talon is not agreed in this pulka (talon_premium)"))
    c = current.contract
    if c is None or c.is_misere or current.phase in ("auction", "contract"):
        raise Refused("3.4.11", _("the premium is for tricks the talon gave to a declared suit contract"))
    if current.dealer == current.declarer:
        raise Refused("3.4.11", _("{player} dealt this deal himself and writes no premium on himself").format(
            player=event.player))
    if not 1 <= event.tricks <= 3:
        raise Refused("3.4.11", _("the talon gives one trick (an ace, a marriage), two (ace and king of a suit) or "
                                  "three (two aces)"), _("1, 2 or 3"))
    if any(isinstance(e, Talon) and e.kind == "premium" and e.deal == current.number
           for e in state.events[state.starts[-1] - 1:]):
        raise Refused("3.4.11", _("the premium of deal {deal} is recorded already").format(deal=current.number))
    return filled(state, event, by=event.by or current.persons[current.dealer], deal=current.number)

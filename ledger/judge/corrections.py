"""Judging corrections, objections and withdrawals [Code 4.2.7-4.2.10; rules.md §8].

The command side only checks that a correction, objection or withdrawal is well
formed, that a correction leaves the log valid, and that withdrawn records were still
in hand. Whether a correction takes effect (in hand, too late, objected to) and what it
costs is the projection's decision (``projections.recording``), so the log keeps
every attempt.
"""

from __future__ import annotations

import msgspec

from ledger.judge.checks import correction_of, check_recorder, filled, seat_of
from ledger.judge.play import is_play, judge_play
from ledger.vocabulary import language
from ledger.vocabulary.events import (
    Annulled,
    AnyEvent,
    Bid,
    Contract,
    Correction,
    Dealt,
    Defence,
    Entry,
    Objection,
    PencilDown,
    Penalty,
    Ruling,
    Talon,
    Tricks,
    Withdrawn,
    event_type,
)
from ledger.vocabulary.refusal import Refused, cite
from projections.game import GameState
from projections.recording import CORRECTABLE

_ = language._  # every text a person reads, in the language in effect
N_ = language.N_


def judge_correction(state: GameState, c: Correction) -> AnyEvent:
    number = state.folded + 1
    if number <= 2:
        raise Refused("4.2.7", _("nothing has been recorded yet that could be corrected"))
    withdrawn = state.effects.get(c.target)
    if withdrawn is not None and withdrawn.rule == "4.2.8" and not withdrawn.effective:
        raise Refused("4.2.8", _("event {event} was withdrawn; record it again instead of correcting it").format(
            event=c.target))
    target, merged = correction_of(state, c, CORRECTABLE, "4.2.7", N_("type, by, player and deal"))
    check_recorder(state, c.by)
    # The corrected log must still be valid from the target on: fold it again from the
    # target's deal with the correction merged in, judging every record from the target.
    k = target.deal or 0
    with state.rewound(k, {c.target: merged}) as scratch:
        for i in range(scratch.folded + 1, number):
            event = state.events[i - 1]
            if i >= c.target and i not in state.void and is_play(event) and not (
                event.deal is not None and event.deal < k
            ):
                content = scratch.content(i)
                assert is_play(content)
                try:
                    judge_play(scratch, content)
                except Refused as exc:
                    what = _("the corrected event") if i == c.target else _("event {event}").format(event=i)
                    raise Refused("4.2.7", _("the correction of event {event} would make {what} invalid: "
                                             "{reason} [{rule}]").format(
                        event=c.target, what=what, reason=exc.reason, rule=cite(exc.rule))) from None
            scratch.replay_recorded(i)
    return filled(state, c, by=c.by or target.by)


def judge_objection(state: GameState, o: Objection) -> AnyEvent:
    seat_of(state, o.player)
    if o.deal is None:
        raise Refused("4.2.10", _("an objection names the deal whose late record it refuses"), "deal: K")
    if not 1 <= o.deal <= state.current_deal_number:
        raise Refused("4.2.10", _("there is no deal {deal} yet").format(deal=o.deal),
                      _("1 to {last}").format(last=state.current_deal_number))
    if o.deal == state.current_deal_number:
        # A record is forgotten (late) once the next deal has begun; until then the
        # records of the last deal are made in time, and there is nothing to refuse.
        raise Refused("4.2.10", _("the records of deal {deal} are still made in time: a record of it is late "
                                  "only once deal {next} has begun").format(deal=o.deal, next=o.deal + 1),
                      _("deal {deal} (its late records)").format(deal=o.deal - 1) if o.deal > 1
                      else _("an objection once deal 2 has begun"))
    if o.target is not None:
        if not 2 <= o.target <= state.folded:
            raise Refused("4.2.10", _("there is no event {event}").format(event=o.target))
        late = state.events[o.target - 1]
        if not isinstance(late, (Entry, Tricks)) or late.deal != o.deal:
            raise Refused("4.2.10", _("event {event} is not a record of deal {deal}").format(
                event=o.target, deal=o.deal))
        if late.by == o.player:
            raise Refused("4.2.10", _("{player} cannot object to his own record").format(player=o.player))
    return filled(state, msgspec.structs.replace(o, by=o.by or o.player), by=o.by or o.player, deal=o.deal)


# Records that can be taken back while in hand; a pencil down ends "in hand" [Code 4.2.8],
# and corrections, objections and withdrawals are not records of the game.
WITHDRAWABLE = (Bid, Contract, Defence, Tricks, Entry, Penalty, Annulled, Dealt, Ruling, Talon)


def judge_withdrawal(state: GameState, w: Withdrawn) -> AnyEvent:
    """Records taken back while still in hand [Code 4.2.8]: the last events of the log,
    from ``first`` on, all records of one deal, with no pencil down among them."""
    number = state.folded + 1
    if not 2 <= w.first < number:
        raise Refused("4.2.8", _("there is no event {event} to withdraw").format(event=w.first),
                      f"{number - 1}" if number > 2 else _("nothing: no record yet"))
    taken = state.events[w.first - 1 : state.folded]
    for i, event in enumerate(taken, start=w.first):
        if not isinstance(event, WITHDRAWABLE):
            kind = event_type(event)
            if isinstance(event, PencilDown):
                raise Refused("4.2.8", _("event {event} puts the pencil down: the records before it are out of "
                                         "hand; correct them instead").format(event=i), "pulka correct")
            raise Refused("4.2.8", _("event {event} is a {kind}, not a record that can be withdrawn").format(
                event=i, kind=kind),
                          _("bids, contracts, defence calls, tricks, entries, penalties, annulments, deals out of "
                            "turn, rulings, the talon's records"))
    deals = {event.deal for event in taken}
    if len(deals) > 1:
        raise Refused("4.2.8", _("events {first}-{last} belong to more than one deal; only the last "
                                 "record, or the last deal line, is still in hand").format(
                          first=w.first, last=number - 1),
                      _("{event} or later").format(event=_last_line_start(state)))
    first = state.events[w.first - 1]
    return filled(state, w, by=w.by or first.by)


def _last_line_start(state: GameState) -> int:
    """The first event of the last run of withdrawable events of one deal."""
    i = state.folded
    last = state.events[i - 1]
    while i > 2:
        before = state.events[i - 2]
        if not isinstance(before, WITHDRAWABLE) or before.deal != last.deal:
            break
        i -= 1
    return i

"""The small checks that every judgement of the command side shares: look up players
and recorders, check times, fill in what the ledger records for an event (its
recorder and its deal), and, for the judgements of a pulka's play, where its deal
stands (a player's seat in it, what it waits for, whether a deal may follow). A failed
check raises ``Refused``.
"""

from __future__ import annotations

import re
from datetime import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from ledger.vocabulary import language
from ledger.vocabulary.bids import spoken
from ledger.vocabulary.events import Abandoned, AnyEvent, Correction, EventFormatError, event_type
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.times import EXAMPLE, TimeFormatError, parse_time
from projections.deal_state import DealState
from projections.game import GameState
from projections.recording import checked_merge

_ = language._  # every text a person reads, in the language in effect
N_ = language.N_

ARBITER = "arbiter:"
SCORER = "scorer:"


if TYPE_CHECKING:  # a type for mypy alone: no class made as a command starts

    class Records(Protocol):
        """What a correction's form is checked against: how many events are folded, and
        each event as it stands (with effective corrections merged in)."""

        @property
        def folded(self) -> int: ...

        def content(self, number: int) -> AnyEvent: ...


def correction_of(
    state: Records, c: Correction, correctable: Mapping[str, tuple[str, ...]], rule: str, never: str,
    record: str = N_("a record that can be corrected"),
) -> tuple[AnyEvent, AnyEvent]:
    """A correction's form, checked the same way for every kind of stream: it targets an
    earlier record of a type that can be corrected (``correctable``: type -> fields),
    changes some of that type's fields and no other (``never`` names those that never
    change), and the record with them merged in is still an event. Returns the record
    as it stands and as it would stand corrected; ``rule`` is cited in a refusal, and
    ``record`` says what the kind of stream calls a record that can be corrected (``never``
    and ``record``: texts marked for the catalogue with ``N_``)."""
    number = state.folded + 1
    if not 2 <= c.target < number:
        raise Refused(rule, _("there is no event {event} to correct").format(event=c.target),
                      _("2 to {last}").format(last=number - 1) if number > 2
                      else _("nothing: nothing has been recorded yet"))
    target = state.content(c.target)
    kind = event_type(target)
    fields = correctable.get(kind)
    if fields is None:
        raise Refused(rule, _("event {event} is a {kind}, which is not {record}").format(
            event=c.target, kind=kind, record=_(record)),
                      ", ".join(sorted(correctable)))
    if not c.replacement:
        raise Refused(rule, _("a correction needs the fields that change"), ", ".join(fields))
    bad = sorted(set(c.replacement) - set(fields))
    if bad:
        raise Refused(rule, _("a correction of a {kind} cannot change {fields} ({never} never change)").format(
            kind=kind, fields=", ".join(bad), never=_(never)),
                      ", ".join(fields))
    try:
        merged = checked_merge(target, c.replacement)
    except EventFormatError as exc:
        raise Refused("event-log", _("the corrected event {event} would not be an event: {problem}").format(
            event=c.target, problem=exc)) from None
    return target, merged


if TYPE_CHECKING:  # a type for mypy alone: no class made as a command starts

    class CheckedState(Protocol):
        """What the shared checks read of any stream's state (a pulka's, a rubber's): its
        players, the time of its latest event, and the deal in play."""

        @property
        def players(self) -> tuple[str, ...]: ...

        @property
        def last_time(self) -> str | None: ...

        @property
        def current_deal_number(self) -> int: ...


def is_arbiter(by: str) -> bool:
    return by.startswith(ARBITER) and len(by) > len(ARBITER)


def is_scorer(by: str) -> bool:
    """A scorer who is not a player, typing the records of the table [Code 4.2.4-4.2.7]."""
    return by.startswith(SCORER) and len(by) > len(SCORER)


def is_official(by: str) -> bool:
    """An arbiter or a scorer: a recorder who is not a player."""
    return is_arbiter(by) or is_scorer(by)


def seat_of(state: GameState, name: str) -> int:
    """The seat of a player at the table now, or a refusal listing the players."""
    if name not in state.players:
        raise Refused("event-log", _("unknown player {name}").format(name=repr(name)), ", ".join(state.players))
    return state.seat(name)


def person_of(state: GameState, name: str) -> str:
    """A player of the game, at the table or not (his columns stay on the sheet); the
    seat he holds or held, or a refusal."""
    key = state.seat_key(name)
    if key is None:
        raise Refused("event-log", _("unknown player {name}").format(name=repr(name)), ", ".join(state.seats.everyone))
    return key


def check_recorder(state: CheckedState, by: str | None) -> None:
    """``by`` must be a player of the game (a pulka's: anyone who held a seat in it), an
    arbiter or a scorer [Code 4.2.4-4.2.7]."""
    if by is None or by in state.players:
        return
    if (isinstance(state, GameState) and state.seat_key(by) is not None) or is_official(by):
        return
    raise Refused("event-log", _("unknown recorder {name}").format(name=repr(by)),
                  _("a player ({players}), arbiter:NAME or scorer:NAME").format(players=", ".join(state.players)))


def check_time(state: CheckedState, event: AnyEvent) -> None:
    """An event's time must carry an offset and may not go back [event-log.md]."""
    if event.at is None:
        return
    last = state.last_time
    if event.at == last:
        return  # the very time of the event before, which was checked
    now = time_of(event.at)
    if last is not None and now < time_of(last):
        raise Refused("event-log", _("time {time} is before the previous event's {last}").format(
            time=event.at, last=last),
                      _("a time at or after {last}").format(last=last))


# A stake: money per whist (a rubber's: per 100 points), written plainly: at most seven
# digits before the point and six after it ("0.10", "5", "0.0025").
STAKE = r"\d{1,7}(\.\d{1,6})?"
STAKE_TEXT = N_('a decimal number like "0.10": up to 9999999.999999, no exponent, no sign')  # shown as _(STAKE_TEXT)


def is_stake(text: str) -> bool:
    """A stake is a plain decimal number, 0 or more, of the size of ``STAKE``."""
    return re.fullmatch(STAKE, text) is not None


def time_of(text: str) -> datetime:
    try:
        return parse_time(text)
    except TimeFormatError as exc:
        raise Refused("event-log", str(exc), _("e.g. {example}").format(example=EXAMPLE)) from None


def filled(
    state: CheckedState, event: AnyEvent, *, by: str | None, deal: int | None = None, late_ok: bool = False,
    **written: Any,
) -> AnyEvent:
    """The event as stored: its recorder and its deal filled in, and any field in
    ``written`` as the judge writes it (a bid, a contract). A ``deal`` given in the
    input must be the deal the event belongs to, except for a record by hand (an entry
    or an arbiter's penalty), which may name an earlier deal: a late record [4.2.10].
    An event that has all of them already (an export imported) is returned as it is."""
    k = deal if deal is not None else state.current_deal_number
    if event.deal is not None and event.deal != k:
        if not late_ok:
            raise Refused("event-log", _("this {kind} belongs to deal {deal}, not deal {given}").format(
                kind=event_type(event), deal=k, given=event.deal), _('"deal": {deal}, or no deal').format(deal=k))
        k = event.deal
    if event.by == by and event.deal == k:
        for field, value in written.items():
            if getattr(event, field) != value:
                break
        else:
            return event
    return msgspec.structs.replace(event, by=by, deal=k, **written)


# -- where a pulka's deal stands, as every judgement of play asks it ---------------------


def in_deal(state: GameState, deal: DealState, name: str) -> int:
    """The seat, in ``deal``, of a player who held one there; else a refusal."""
    if name not in deal.persons:
        if state.seat_key(name) is None:
            raise Refused("event-log", _("unknown player {name}").format(name=repr(name)), ", ".join(deal.persons))
        raise Refused("event-log", _("{player} was not at the table in deal {deal}").format(
            player=name, deal=deal.number), ", ".join(deal.persons))
    return deal.persons.index(name)


def waiting_for(state: GameState, deal: DealState) -> str:
    """What the deal waits for, in the players' words: a bid by whom, the contract, a
    whist or a pass by whom, the tricks."""
    names = deal.persons
    phase = deal.phase
    if phase == "auction":
        turn = deal.turn()
        return _("a bid by {player}").format(player=names[turn]) if turn is not None else _("the end of the auction")
    if phase == "contract":
        assert deal.declarer is not None
        return _("the contract of {player}").format(player=names[deal.declarer])
    if phase == "defence":
        expect = deal.defence().expect
        if expect is not None:
            return _("{calls} by {player}").format(calls=_(" or ").join(spoken(c) for c in sorted(expect[1])),
                                                    player=names[expect[0]])
    if phase == "play":
        return _("the tricks")
    return _("the next deal")


def not_abandoned(state: GameState) -> None:
    if state.abandoned_at is not None:
        raise Refused("4.2.3", _("the pulka was abandoned at event {event}; its deals are closed").format(
            event=state.abandoned_at))


def no_new_deal_after_end(state: GameState) -> None:
    if state.abandoned_at is not None:
        end = state.content(state.abandoned_at)
        if isinstance(end, Abandoned) and end.demanded_by is not None:
            raise Refused("5.4.18", _("the pulka was settled on {player}'s demand at event {event}; no deal may "
                                      "follow").format(player=end.demanded_by, event=state.abandoned_at))
        raise Refused("4.2.3", _("the pulka was abandoned at event {event}; no deal may follow").format(
            event=state.abandoned_at))
    if state.finished:
        if state.rules.help:
            raise Refused("4.2.3", _("the pulka has ended: every pulya reached the target"))
        raise Refused("4.2.3.3", _("the pulka has ended: the pulyas reached players x target"))


def between_deals(state: GameState, what: str, rule: str) -> None:
    """Changes of the table and settlement come between deals: a deal once dealt is
    played out [Code 5.4.18 and its footnote 94]. ``what``: a text marked with ``N_``."""
    progress = state.deal_in_progress()
    if progress is not None:
        raise Refused(rule, _("{what} comes between deals; deal {deal} is not over").format(
            what=_(what), deal=progress.number),
                      waiting_for(state, progress))

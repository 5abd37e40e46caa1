"""What undo takes back and what redo records again [Code 4.2.8], for the scorer's desk
(``PulkaDesk.preview_undo``, ``PulkaDesk.redo``).

An undo stores a ``withdrawn`` event: the records from its ``first`` on are folded as if
never recorded, and an undo is never undone (``PulkaDesk.undo``). Redo is how a scorer
takes an undo back: it records again, as new events by the one redoing, the records the
last undo withdrew — no new kind of event, so the store's layout and the logs written
before redo existed are untouched, and ``pulka log`` shows the withdrawal and the records
made again, each with who made it. Redo is refused when the game's last event is not an
undo: nothing to redo, or something recorded after it (the undone records would then be
judged against a table that has moved on; they are entered again instead).
"""

from __future__ import annotations


import msgspec

from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, Withdrawn
from ledger.vocabulary.refusal import Refused
from projections.audit import describe
from projections.deal_text import deal_game, spoken_line
from projections.game import GameState

_ = language._  # every text a person reads, in the language in effect


class TakenBack(msgspec.Struct, frozen=True):
    """Records an undo would take back (or took back), as the scorer is asked about them:
    their event numbers, their deal, what that deal was and the line that recorded it
    (a deal line), or each record described (a record alone); ``expected``: the events
    the game had, so that what is confirmed is what was shown."""

    first: int
    last: int
    deal: int | None
    what: str
    expected: int


def taken_back(state: GameState, first: int) -> TakenBack:
    """The records from ``first`` to the game's last, as an undo of them is described."""
    last = state.folded
    events = [state.events[n - 1] for n in range(first, last + 1)]
    number = events[-1].deal
    deal = state.deals[number - 1] if number is not None and 1 <= number <= len(state.deals) else None
    if deal is not None and len(events) > 1:
        line = spoken_line(state, deal)
        what = f"{deal_game(state, deal)}: {line}" if line else deal_game(state, deal)
    else:
        what = "; ".join(describe(e) for e in events)
    return TakenBack(first=first, last=last, deal=number, what=what, expected=last)


def last_undo(state: GameState) -> int | None:
    """The number of the game's last undo (a ``withdrawn`` event), if any."""
    for n in range(state.folded, 1, -1):
        if isinstance(state.events[n - 1], Withdrawn):
            return n
    return None


def redone(state: GameState, by: str | None) -> list[AnyEvent]:
    """The records the last undo withdrew, made again by ``by`` (stamped anew when
    stored); refused when the game's last event is not that undo."""
    undo = last_undo(state)
    if undo is None:
        raise Refused("4.2.8", _("nothing to redo: no record of this game was undone"),
                      _("redo right after an undo"))
    if undo != state.folded:
        raise Refused("4.2.8", _("nothing to redo: event {last} was recorded after the undo (event {undo}); the "
                                 "undone records are entered again instead").format(last=state.folded, undo=undo),
                      _("redo right after an undo, before anything else is recorded"))
    withdrawn = state.events[undo - 1]
    assert isinstance(withdrawn, Withdrawn)
    return [msgspec.structs.replace(state.events[n - 1], at=None, by=by)
            for n in range(withdrawn.first, undo)]

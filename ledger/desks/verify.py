"""What ``verify`` judges of a stored stream, whatever its kind, once its hash chain is
known to hold: every event judged again as it was on its way in, so that an event
written with its digests computed anew is named all the same.

- a game (a pulka, a rubber): by its kind's judge (``Ledger.judged``);
- a tournament: with its tables' games, as ``verify --file`` judges its export
  (``tournament.judged_tournament``): each close against the tables as they are stored;
- the club register: its chain is what is checked.

``verdict`` is what ``verify`` says of a stream: its chain, then its events judged,
from one read of its rows (``Store.verified``): what is kept is one stream's events
and its fold, whatever the size of the store.
"""

from __future__ import annotations

from ledger.application import Ledger
from ledger.desks.tournament import judged_tournament
from ledger.judge.kinds import judging_of
from ledger.vocabulary.chain import ChainProblem
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.tournament_events import TournamentStarted


def judged(ledger: Ledger, stream: str) -> ChainProblem | None:
    """The first event of ``stream`` (its chain intact) that the ledger would not have
    recorded as stored; None when there is none."""
    first = ledger.store.read(stream, upto=1).stored
    if first and isinstance(first[0].event, TournamentStarted):
        return judged_tournament(ledger, stream)
    return ledger.judged(stream)


def verdict(ledger: Ledger, stream: str) -> ChainProblem | None:
    """The first problem of ``stream`` that ``verify`` names: of its chain, else the first
    event the ledger would not have recorded (``judged``), its rows read once: the
    events the chain check decoded are the events judged (a tournament's, with its
    tables, is read again by ``judged_tournament``)."""
    events, problem = ledger.store.verified(stream)
    if problem is not None:
        return problem
    if events and isinstance(events[0], TournamentStarted):
        return judged_tournament(ledger, stream)
    try:
        judging_of(events[0])
    except (Refused, IndexError):
        return None  # the club register, or nothing stored: its chain is what is checked
    return ledger.judge(stream, events)[1]

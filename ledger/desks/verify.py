"""What ``verify`` judges of a stored stream, whatever its kind, once its hash chain is
known to hold: every event judged again as it was on its way in, so that an event
written with its digests computed anew is named all the same.

- a game (a pulka, a rubber): by its kind's judge (``Ledger.judged``);
- a tournament: with its tables' games, as ``verify --file`` judges its export
  (``tournament.judged_tournament``): each close against the tables as they are stored;
- the club register: its chain is what is checked.
"""

from __future__ import annotations

from ledger.application import Ledger
from ledger.desks.tournament import judged_tournament
from ledger.vocabulary.chain import ChainProblem
from ledger.vocabulary.tournament_events import TournamentStarted


def judged(ledger: Ledger, stream: str) -> ChainProblem | None:
    """The first event of ``stream`` (its chain intact) that the ledger would not have
    recorded as stored; None when there is none."""
    first = ledger.store.read(stream, upto=1).stored
    if first and isinstance(first[0].event, TournamentStarted):
        return judged_tournament(ledger, stream)
    return ledger.judged(stream)

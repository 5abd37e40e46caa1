"""A tournament table's deal cap as read from the store, the one home both faces read
it from: at it, the table's pulka is over and settles as abandoned [Code 4.2.15], and
every page, file and printout shows it so."""

from __future__ import annotations

from ledger.application import Ledger
from ledger.store.stored import BrokenChainError, UnreadableEventError
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.tournament_events import parse_table_game


def deal_cap(ledger: Ledger, game: str) -> int | None:
    """The deal cap of the tournament whose table ``game`` is (``T/R/K``): at it, the
    table's pulka is over and settles as abandoned [Code 4.2.15]. None for any other
    game, and when the tournament cannot be read (its own commands say why): the game is
    then shown as its own events say."""
    if parse_table_game(game) is None:
        return None
    from ledger.judge.tables import tournament_of  # only a table's name reads its tournament

    try:
        found = tournament_of(ledger.store, game)
    except (BrokenChainError, Refused, UnreadableEventError):
        return None
    return found[0].started.deal_cap if found else None

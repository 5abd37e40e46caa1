"""A tournament's report page from the store, for both faces (``pulka tournament
report``; the service's download of it): the documents it is drawn from, read here,
and the page drawn from them by ``projections.drawing.tournament_page``."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from ledger.application import Ledger
from ledger.desks.tournament import Tournaments
from ledger.views.archive import Views
from ledger.vocabulary.tournament_events import table_game
from projections.drawing.tournament_page import tournament_html
from projections.picture import picture
from projections.points import Point
from projections.tournament_state import fold_tournament, standings, standings_doc, through_tour

# The archive's views brought up to the last event, as the face reads them (what it says
# on the way, how it refuses a store without views): the tables in play are its.
CaughtUp = Callable[[Ledger], AbstractContextManager[Views]]


def report_documents(ledger: Ledger, name: str, caught_up: CaughtUp) -> tuple[list[dict[str, Any]],
                                                                                dict[str, dict[str, Any]]]:
    """The standings after each tour closed (oldest first) and, while a tour is in play
    (or none has closed), as they stand now; and every table's sheet as a picture
    document, by game name."""
    events = [s.event for s in Tournaments(ledger).events(name)]
    state = fold_tournament(events)
    docs = [standings_doc(standings(fold_tournament(through_tour(events, tour)))) for tour in sorted(state.closed)]
    playing = any(tour not in state.closed for tour in state.seating)
    if playing or not docs:
        with caught_up(ledger) as views:
            docs.append(standings_doc(standings(state, views.tables(name))))
    sheets = {}
    for tour, tables in sorted(state.seating.items()):
        for table in sorted(tables):
            game = table_game(name, tour, table)
            stored = [s.event for s in ledger.sound(game)]
            if stored:  # a table at the deal cap is drawn over [Code 4.2.15]
                sheets[game] = picture(stored, Point(), state.started.deal_cap)
    return docs, sheets


def report_html(ledger: Ledger, name: str, caught_up: CaughtUp) -> str:
    """The tournament's report page (``pulka tournament report``; the service's
    download of it too)."""
    return tournament_html(*report_documents(ledger, name, caught_up))

"""The printed pages from the store, for both faces (``pulka sheet --pdf``, ``pulka settle
--pdf``, ``pulka tournament standings --pdf``; the service's ``sheet.pdf``,
``settlement.pdf`` and ``standings.pdf``): the documents read here, the checkpoint of
the club log that covers them with them, and the PDF drawn from them by
``projections.drawing.pdf`` (imported when a page is printed: the drawing library is
not loaded by any other command).
"""

from __future__ import annotations

from typing import Any

from ledger.application import Ledger
from ledger.desks.tournament import Tournaments
from ledger.proofs.checkpoints import Attestations
from ledger.judge.tables import deal_cap_of
from ledger.reads.tournament_report import CaughtUp
from ledger.vocabulary import language
from ledger.vocabulary.events import GameStarted
from ledger.vocabulary.refusal import Refused
from projections.picture import picture
from projections.points import Point, cut
from projections.tournament_state import TournamentState, standings_doc

_ = language._  # every text a person reads, in the language in effect


def checkpoint_covering(ledger: Ledger, stream: str, number: int) -> dict[str, Any] | None:
    """The checkpoint of the club log that covers events 1..``number`` of ``stream``:
    its caption and its signed note (None: not yet under one); None for a store that
    keeps no checkpoint."""
    attestations = Attestations(ledger.store, ledger.clock)
    if not attestations.checkpoints():
        return None
    history = attestations.history(stream, number)
    return {"caption": history["caption"], "note": history["note"]}


def printed_picture(ledger: Ledger, game: str, point: Point) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A pulka's picture document as of ``point`` (over at its tournament's deal cap),
    and the checkpoint that covers the events it shows."""
    stored = ledger.sound(game)
    if not stored:
        raise ledger.unknown(game)
    events = [s.event for s in stored]
    if not isinstance(events[0], GameStarted):
        cut(events, point)  # a point the game does not have is refused first, as for a pulka
        raise Refused("print", _("{game} is not a pulka: only a pulka's sheet and settlement are printed").format(
            game=repr(game)), _("a pulka's name"), field="game")
    drawn = picture(events, point, deal_cap_of(ledger.store, game))
    return drawn, checkpoint_covering(ledger, game, drawn.get("event") or len(events))


def sheet_pdf_of(ledger: Ledger, game: str, point: Point = Point()) -> bytes:
    """The drawn sheet of a pulka as of ``point``, with its settlement and checkpoint."""
    from projections.drawing.pdf import sheet_pdf

    return sheet_pdf(*printed_picture(ledger, game, point))


def settlement_pdf_of(ledger: Ledger, game: str, point: Point = Point()) -> bytes:
    """A pulka's settlement and who pays whom as of ``point``, with its checkpoint."""
    from projections.drawing.pdf import settlement_pdf

    return settlement_pdf(*printed_picture(ledger, game, point))


def standings_pdf_of(ledger: Ledger, name: str, tour: int | None, caught_up: CaughtUp) -> bytes:
    """A tournament's standings after ``tour`` (None: now, its tables in play from the
    archive's views as ``caught_up`` brings them up), with the checkpoint that covers
    the tournament's events."""
    from projections.drawing.pdf import standings_pdf

    tournaments = Tournaments(ledger)

    def live(state: TournamentState, at: str | None) -> Any:
        with caught_up(ledger) as views:
            return views.tables(state.name)

    table, _state = tournaments.standings(name, tour, None, live)
    return standings_pdf(standings_doc(table), checkpoint_covering(ledger, name, len(tournaments.events(name))))

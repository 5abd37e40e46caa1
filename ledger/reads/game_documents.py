"""A game as a document, the one home of both faces' game documents: a game in the list
of games (``listed_doc``: ``pulka games --json``) and the game as a page shows it now
(``game_doc``: the service's ``GET /api/games/{game}`` and its live messages), with the
status both name (``status_of``). The sheet and the settlement of ``pulka sheet
--json``, ``pulka settle --json`` and the API's ``/sheet`` and ``/settlement`` are the
documents of the game's kind (``projections.kinds.View``).

Functions of a game's state alone: nothing here reads the store. Among the reads
above the desks because the page's document says what the game waits for as the scorer's desk does
(``ledger.desks.told``).
"""

from __future__ import annotations

from typing import Any

from ledger.application import Kept
from ledger.desks.told import left_open, next_text
from projections.deal_text import deal_table, seats_of
from projections.game import GameState
from projections.kinds import kind_of
from projections.points import Point
from projections.report import capped, settlement_doc
from projections.rubber import RubberState
from projections.rubber_report import rubber_summary_doc


def status_of(state: GameState) -> str:
    """A pulka's status as the documents name it: playing, finished or abandoned."""
    if state.abandoned_at is not None:
        return "abandoned"
    return "finished" if state.finished else "playing"


def listed_doc(name: str, state: GameState | RubberState, cap: int | None = None) -> dict[str, Any]:
    """A game in the list of games; a tournament's table at its deal ``cap`` is
    ``capped``: over [Code 4.2.15]."""
    if isinstance(state, RubberState):
        return rubber_summary_doc(name, state)
    times = [e.at for e in state.events if e.at]
    return {
        "game": name,
        "players": list(state.players),
        "convention": state.rules.convention,
        "pulya": state.started.pulya,
        "events": state.folded,
        "deals": state.current_deal_number,
        "status": "capped" if capped(state, cap) else status_of(state),
        "first": times[0] if times else None,
        "last": times[-1] if times else None,
    }


def game_doc(kept: Kept) -> dict[str, Any]:
    """The game as a page shows it now: its version (the number of its events, which a
    write names), who deals and leads, what the deal waits for, the settlement with who
    pays whom, and the deals."""
    state = kept.state
    head = kept.stored[-1]
    doc: dict[str, Any] = {"game": kept.game, "version": len(kept.stored), "head": head.digest[:16]}
    if not isinstance(state, GameState):
        view = kind_of(kept.stored[0].event).view([s.event for s in kept.stored], Point(), None)
        return {**doc, "kind": "rubber", "sheet": view.sheet_doc(), "settlement": view.settlement_doc()}
    started = state.started
    opened = left_open(state)
    doc.update({
        "kind": "pulka", "players": list(state.players), "convention": state.rules.convention,
        "pulya": started.pulya, "stake": started.stake, "status": status_of(state),
        "over": state.over, "deal": state.current_deal_number, "next": next_text(state),
        "open_deal": opened.number if opened is not None else None,
    })
    if not state.over:
        deal = state.in_auction or state.next_deal()
        dealer, leads = seats_of(state, deal)
        doc.update({"dealer": dealer, "leads": leads, "order": [deal.persons[s] for s in deal.bidders]})
    doc["settlement"] = settlement_doc(state)
    head_row, rows = deal_table(state)
    doc["deals"] = [{"deal": r[0], "dealer": r[1], "leads": r[2], "game": r[3], "line": r[4],
                     "writes": {head_row[i]: str(v) for i, v in enumerate(r[5:], start=5) if v != ""}} for r in rows]
    return doc

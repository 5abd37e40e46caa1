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

from bisect import bisect_right
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
    if not isinstance(state, GameState):
        return rubber_doc(kept)
    doc = pulka_head(kept, state)
    doc["deals"] = deal_rows(state)
    return doc


def game_delta(kept: Kept, since: int) -> dict[str, Any]:
    """What changed in the game since its version ``since``, for a page that holds
    ``game_doc`` at that version: ``game_doc``'s fields but the deals, with ``since``,
    ``deals_from`` (the first deal an event after ``since`` may have changed: a
    correction's or an objection's target, an undo's first record, the deal an event
    names) and the deals rows from it on. The page keeps its rows before ``deals_from``
    and takes these (``apply_delta``). A version this game never had, or a rubber, gets
    the whole ``game_doc``: a document without ``since``."""
    state = kept.state
    if not isinstance(state, GameState) or not 1 <= since <= len(kept.stored):
        return game_doc(kept)
    first = first_changed(state, since, [s.event for s in kept.stored[since:]])
    doc = pulka_head(kept, state)
    doc.update({"since": since, "deals_from": first, "deals": deal_rows(state, first)})
    return doc


def apply_delta(held: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any] | None:
    """``game_doc`` at the delta's version from ``held`` (``game_doc`` at its ``since``),
    or None when ``held`` is at another version (the page asks for the whole game). A
    document without ``since`` is whole already. The pages' script does the same
    (``applyDelta`` in web/static/common.js)."""
    if "since" not in delta:
        return delta
    if held.get("version") != delta["since"]:
        return None
    doc = {k: v for k, v in delta.items() if k not in ("since", "deals_from", "deals")}
    doc["deals"] = [r for r in held["deals"] if r["deal"] < delta["deals_from"]] + delta["deals"]
    return doc


def first_changed(state: GameState, since: int, later: list[Any]) -> int:
    """The first deal whose row the events after number ``since`` (``later``, in order)
    may have changed (0: the writes by hand before the first deal). An event is of the
    deal its number falls in, or of the deal it names; a correction or an objection
    changes its target's deal, an undo every deal from its first record's (and a
    corrected deal's result may move the numbers of every later deal: those rows are
    sent too, being after it)."""
    first = len(state.deals) + 1
    for number, event in enumerate(later, start=since + 1):
        named = [number, *(v for v in (getattr(event, "target", None), getattr(event, "first", None))
                           if isinstance(v, int))]
        first = min(first, bisect_right(state.starts, min(named)))
        if event.deal is not None:
            first = min(first, event.deal)
    return first


def rubber_doc(kept: Kept) -> dict[str, Any]:
    """A rubber of bridge as a page shows it: its sheet and settlement."""
    view = kind_of(kept.stored[0].event).view([s.event for s in kept.stored], Point(), None)
    return {**version_doc(kept), "kind": "rubber", "sheet": view.sheet_doc(), "settlement": view.settlement_doc()}


def version_doc(kept: Kept) -> dict[str, Any]:
    """The fields every game document opens with: the game, its version and its head."""
    return {"game": kept.game, "version": len(kept.stored), "head": kept.stored[-1].digest[:16]}


def pulka_head(kept: Kept, state: GameState) -> dict[str, Any]:
    """A pulka's ``game_doc`` but its deals: who deals and leads, what it waits for, the
    settlement."""
    started = state.started
    opened = left_open(state)
    doc = version_doc(kept)
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
    return doc


def deal_rows(state: GameState, first: int = 0) -> list[dict[str, Any]]:
    """The deals rows of ``game_doc``, from deal ``first`` on."""
    head_row, rows = deal_table(state, first)
    return [{"deal": r[0], "dealer": r[1], "leads": r[2], "game": r[3], "line": r[4],
             "writes": {head_row[i]: str(v) for i, v in enumerate(r[5:], start=5) if v != ""}} for r in rows]

"""The self-contained HTML page of a tournament (``pulka tournament report``).

Built from documents only: the standings as they stood after each tour (the JSON
of ``pulka tournament standings --json``, one per tour, oldest first) and the drawn
sheets of the tables, by game name (``T/R/K``, each a ``projections.picture``
document). The page shows the standings with a slider over the tours, each tour's
tables with their players' results, and each table's sheet drawn once, linked from
the standings. ``tournament.html`` and ``tournament.js`` are the page and its script;
the look is ``report.css`` and ``sheet.css``, shared with ``pulka report``.
"""

from __future__ import annotations

import html
from typing import Any

from ledger.vocabulary.tournament_events import table_game
from projections.drawing.page import embed_json, fill, resource
from projections.drawing.svg import draw


def tours_of(standings: dict[str, Any]) -> list[dict[str, Any]]:
    """Each tour's tables with their players and results, from one standings document."""
    tables: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for row in standings["standings"]:
        for t in row["tours"]:
            tables.setdefault((t["tour"], t["table"]), []).append(
                {"player": row["player"], "whists": t["whists"], "points": t["points"],
                 "in_play": bool(t.get("in_play"))})
    tours: dict[int, list[dict[str, Any]]] = {}
    for (tour, table), players in sorted(tables.items()):
        tours.setdefault(tour, []).append({
            "table": table,
            "game": table_game(standings["tournament"], tour, table),
            "players": sorted(players, key=lambda p: -p["whists"]),
        })
    return [{"tour": tour, "tables": tables_} for tour, tables_ in sorted(tours.items())]


def tournament_html(standings: list[dict[str, Any]], sheets: dict[str, dict[str, Any]]) -> str:
    """The page: ``standings`` after each tour (oldest first), ``sheets`` by game name."""
    if not standings:
        raise ValueError("a tournament page needs the standings after at least one point")
    name = standings[-1]["tournament"]
    games = sorted(sheets)
    templates = [
        f'<template data-sheet="{html.escape(game)}">{draw(sheets[game], settlement=True, styled=False).svg}</template>'
        for game in games
    ]
    data = {
        "tournament": name,
        "points": standings,
        "tours": tours_of(standings[-1]),
        "sheets": games,
    }
    return fill(resource("tournament.html"), {
        "title": html.escape(f"tournament {name}"),
        "css": resource("sheet.css") + resource("report.css"),
        "sheets": "\n".join(templates),
        "data": embed_json(data),
        "js": resource("tournament.js"),
    })

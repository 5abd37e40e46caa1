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

from ledger.vocabulary import language
from ledger.vocabulary.language import N_
from ledger.vocabulary.tournament_events import table_game
from ledger.vocabulary.wording import spoken_count
from projections.drawing.page import TRANSLATED, embed_json, fill, resource
from projections.drawing.svg import draw

_ = language._  # every text a person reads, in the language in effect

# The page's own words, marked for the catalogue (Babel reads Python, not the page or
# its script): the texts of tournament.html (``{{_ text}}``) and of tournament.js
# (``say("text")``) and a player's statuses; the page carries them in the reader's
# language (``words``). tests/test_russian_crawl.py checks that each text of the two
# files is here.
TOURNAMENT_WORDS = (
    N_("As of a tour"), N_("previous tour"), N_("next tour"), N_("tour"), N_("Standings"),
    N_("Points per tour, the tour's result in whists in brackets; a link opens the table's sheet."),
    N_("Tours and tables"), N_("The tables' sheets"),
    # tournament.js
    N_("place"), N_("player"), N_("points"), N_("whists"), N_("tour {tour}"), N_("status"), N_("in play"),
    N_("over, counted at the close"), N_("cards {cards}"), N_("table {table}"), N_("Tour {tour}"),
    N_("Standings after tour {tour}"), N_("Before the first tour closed"),
    # a player's status (projections.tournament_state)
    N_("playing"), N_("finished"), N_("cut"), N_("removed"), N_("final"), N_("disqualified"),
)


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
        "words": {text: _(text) for text in TOURNAMENT_WORDS},
        "players_said": spoken_count(len(standings[-1]["standings"]), "player"),
    }
    data["tours_said"] = spoken_count(len(data["tours"]), "tour")
    page = TRANSLATED.sub(lambda m: html.escape(_(m.group(1))), resource("tournament.html"))
    return fill(page, {
        "lang": language.language(),
        "title": html.escape(_("tournament {name}").format(name=name)),
        "css": resource("sheet.css") + resource("report.css"),
        "sheets": "\n".join(templates),
        "data": embed_json(data),
        "js": resource("tournament.js"),
    })

"""What only the tests read, written once for them: a log's whole text read into events
(``parse_export``; ``parse_log`` without the digests), as import reads a file; a sheet's
gora and whists as exact numbers (``adjusted_gora``, ``exact_whists``; the settlement
works in the sheet's integer sub-units), to hold the Code's settlement formulas
against; and every row of the archive's views (``dump``), to compare two builds.
"""

from __future__ import annotations

import io
from fractions import Fraction
from typing import Any

from ledger.vocabulary.events import AnyEvent
from ledger.views.archive import Views
from ledger.views.recorders import TABLES
from ledger.vocabulary.logfile import LogLine, read_batches
from projections.settlement import adjusted_units
from projections.sheet import Sheet, exact


def parse_export(text: str) -> list[LogLine]:
    """The events of a log's whole text with their line numbers and digests, read as
    ``pulka import`` reads a file (``read_batches``)."""
    return [line for batch in read_batches(io.BytesIO(text.encode("utf-8"))) for line in batch]


def parse_log(text: str) -> list[tuple[int, AnyEvent]]:
    """Like ``parse_export``, without the digests."""
    return [(line.line, line.event) for line in parse_export(text)]


def adjusted_gora(sheet: Sheet) -> dict[str, Fraction]:
    """``adjusted_units``, exact."""
    return {p: exact(g) for p, g in adjusted_units(sheet).items()}


def exact_whists(sheet: Sheet) -> dict[str, dict[str, Fraction]]:
    """The whists of the sheet, exact."""
    return {p: {q: exact(v) for q, v in w.items()} for p, w in sheet.whists.items()}


# Every table of the views, with the columns that order its rows.
DUMP_ORDER = {"archive_games": "game", "archive_results": "game, version", "archive_tournaments": "tournament",
              "archive_aliases": "seq", "archive_broken": "stream", "archive_known": "stream, version",
              "archive_rules": "game", "archive_clock": "name", "archive_stats": "game, person",
              "archive_stories": "game, language", "archive_totals": "person",
              "rating_pulkas": "game", "rating_moves": "game, player", "rating_models": "seq"}


def dump(views: Views) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the views, in a fixed order (to compare two builds)."""
    assert set(DUMP_ORDER) == set(TABLES)  # a table added to the views is compared too
    return {t: views.view.select(f"SELECT * FROM {{{t}}} ORDER BY {k}") for t, k in DUMP_ORDER.items()}

"""The ledger's sheet and settlement against the independent scorer's (``independent_scorer``).

``assert_scored_alike`` is what the property tests ask of every generated pulka: every
number of the sheet (pulya, gora and the whists of every pair), the exact settlement and
the rounded one are the same both ways, and the judge's deal numbers and dealing order
are the ones the scorer works out.
"""

from __future__ import annotations

from fractions import Fraction

from independent_scorer import score
from ledger.vocabulary.events import AnyEvent
from projections.game import replay
from projections.settlement import settle_sheet
from projections.sheet import totals


def differences(events: list[AnyEvent]) -> list[str]:
    """What the two scorers disagree on, in words (nothing: they agree)."""
    mine = score(events)
    sheet = replay(events).sheet()
    ledger = totals(sheet)
    out = list(mine.mismatches)
    for cell in sorted(set(mine.cells) | set(ledger), key=str):
        here, there = mine.cells.get(cell), ledger.get(cell)
        if here != there:
            out.append(f"{cell}: independent {here}, ledger {there}")
    settled = settle_sheet(sheet)
    for what, here_, there_ in (("result", mine.settled.result, settled.result),
                                ("rounded", mine.settled.rounded, settled.rounded)):
        if dict(here_) != dict(there_):
            out.append(f"{what}: independent {_shown(here_)}, ledger {_shown(there_)}")
    return out


def assert_scored_alike(events: list[AnyEvent]) -> None:
    found = differences(events)
    assert not found, "the ledger and the independent scorer disagree:\n" + "\n".join(found)


def _shown(values: dict[str, Fraction] | dict[str, int]) -> str:
    return ", ".join(f"{p} {v}" for p, v in values.items())

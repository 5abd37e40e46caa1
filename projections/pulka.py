"""Preferans as a kind of stream: the pulka's fold and documents behind the interface
every kind offers the command line (``projections.kinds.View``).

Nothing here computes: it hands a ``GameState`` to the functions of ``report`` (the
sheet and the settlement) and ``audit`` (explain).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ledger.vocabulary.events import AnyEvent
from projections.audit import Cell, parse_cell, pulka_explain
from projections.audit import audit as audit  # the kind's read side (projections.kinds)
from projections.audit import numbers_at as numbers_at
from projections.game import GameState
from projections.points import Point
from projections.report import render_settlement, render_sheet, settlement_doc, sheet_doc, state_at
from projections.trail import PLAYER_CELLS


@dataclass(frozen=True)
class PulkaView:
    """A pulka folded to a point in time, and what the command line shows of it."""

    state: GameState
    point: Point
    deal_cap: int | None = None  # the tournament's, for a table: at it, the pulka is over [Code 4.2.15]

    @property
    def folded(self) -> int:
        return self.state.folded

    def sheet_doc(self) -> dict[str, Any]:
        return sheet_doc(self.state.sheet())

    def sheet_text(self) -> str:
        return render_sheet(self.state, self.point)

    def settlement_doc(self) -> dict[str, Any]:
        return settlement_doc(self.state, self.deal_cap)

    def settlement_text(self) -> str:
        return render_settlement(self.state, self.point, self.deal_cap)

    def parse_cell(self, text: str) -> Cell:
        return parse_cell(text, self.state.players)

    def explain(self, cell: Cell) -> list[dict[str, Any]]:
        return pulka_explain(self.state, cell)


def pulka_view(events: list[AnyEvent], point: Point, progress: Callable[[int], None] | None = None) -> PulkaView:
    return PulkaView(state_at(events, point, progress), point)


def pulka_view_of(state: GameState, point: Point) -> PulkaView:
    """The pulka folded already to ``point`` (by the read that judged it), as shown."""
    return PulkaView(state, point)


# The names every kind's read side offers (projections.kinds.Kind).
view = pulka_view
view_of = pulka_view_of
CELLS = PLAYER_CELLS

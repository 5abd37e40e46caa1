"""The kinds of stream the ledger keeps, as the read side sees them: the seam between
the shared machinery and each game's own modules.

A stream's kind is told by its first event (``game_started``: a pulka of Preferans,
``rubber_started``: a rubber of bridge). For each kind, ``Kind`` names what the
command line needs and nothing more:

- ``view``: the stream folded to a point in time (``--at``, ``--deal``, ``--time``),
  with its documents: the sheet as text and JSON, the settlement, and the cells
  ``explain`` can trace;
- ``audit``: every event with what it did to the cells and the verdicts on it;
- ``numbers_at`` and ``cells``: what ``diff`` compares and how it names the cells.

Everything else (the store, the hash chain, the log file, points in time, the audit
trail's rows and their text) is shared and knows no kind. The command side's half of
the seam, how each kind judges its events, is ``ledger.command.kinds``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ledger.vocabulary.bridge import RubberStarted
from ledger.vocabulary.events import AnyEvent, GameStarted, StreamStart, event_type
from projections.points import Point
from projections.trail import AuditRow, Cell, CellNames, Numbers
from projections.trail import diff as diff_numbers


Progress = Callable[[int], None]  # told how many events are folded so far


class View(Protocol):
    """A stream folded to a point in time: what the command line shows of it."""

    @property
    def folded(self) -> int: ...

    def sheet_doc(self) -> dict[str, Any]: ...

    def sheet_text(self) -> str: ...

    def settlement_doc(self) -> dict[str, Any]: ...

    def settlement_text(self) -> str: ...

    def parse_cell(self, text: str) -> Cell:
        """A cell of the sheet named on the command line; ValueError says what is allowed."""
        ...

    def explain(self, cell: Cell) -> list[dict[str, Any]]: ...


@dataclass(frozen=True)
class Kind:
    """One kind of stream, as the read side sees it.

    ``side`` names the module of the kind's read side, which offers ``view``, ``audit``,
    ``numbers_at`` and ``CELLS``; it is imported when a command first asks for one of
    them, so that a command that only records (``pulka deal``) loads no audit.
    """

    name: str  # "pulka", "rubber"
    start: type[StreamStart]  # the type of its first event
    side: str  # e.g. "projections.pulka"

    @property
    def view(self) -> Callable[[list[AnyEvent], Point, Progress | None], View]:
        """The stream folded to a point, with its documents."""
        return importlib.import_module(self.side).view  # type: ignore[no-any-return]

    @property
    def audit(self) -> Callable[[list[AnyEvent], Progress | None], list[AuditRow]]:
        """Every event with what it did to the cells, and the verdicts on it."""
        return importlib.import_module(self.side).audit  # type: ignore[no-any-return]

    @property
    def numbers_at(self) -> Callable[[list[AnyEvent], Point], Numbers]:
        """What ``diff`` compares at one point."""
        return importlib.import_module(self.side).numbers_at  # type: ignore[no-any-return]

    @property
    def cells(self) -> CellNames:
        """How the kind's cells are named."""
        return importlib.import_module(self.side).CELLS  # type: ignore[no-any-return]

    def diff(self, events: list[AnyEvent], a: Point, b: Point) -> dict[str, Any]:
        """What changed between two points, and which events changed it."""
        return diff_numbers(events, a, b, self.numbers_at, lambda kept: self.audit(kept, None), self.cells)


PULKA = Kind("pulka", GameStarted, "projections.pulka")
RUBBER = Kind("rubber", RubberStarted, "projections.rubber_report")
KINDS: tuple[Kind, ...] = (PULKA, RUBBER)


class UnknownKind(ValueError):
    """A stream whose first event starts no kind the ledger knows."""


def kind_of(first: AnyEvent) -> Kind:
    """The kind of the stream that ``first`` (its first event) starts."""
    for kind in KINDS:
        if isinstance(first, kind.start):
            return kind
    raise UnknownKind(f"a {event_type(first)} does not start a stream; the first event is one of "
                      + ", ".join(k.start.__struct_config__.tag for k in KINDS))  # type: ignore[misc]

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
the seam, how each kind judges its events, is ``ledger.judge.kinds``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import msgspec

from ledger.vocabulary import language
from ledger.vocabulary.bridge import RubberStarted
from ledger.vocabulary.events import AnyEvent, GameStarted, StreamStart, event_type
from projections.points import Point
from projections.trail import AuditRow, Cell, CellNames, Numbers, diff_numbers


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


class ReadSide(Protocol):
    """What the module of a kind's read side offers (``projections.pulka``,
    ``projections.rubber_report``): the module itself is the implementation, checked
    against this by mypy where the registry names it."""

    def view(self, events: list[AnyEvent], point: Point, progress: Progress | None = None) -> View:
        """The stream folded to a point, with its documents."""
        ...

    def view_of(self, state: Any, point: Point) -> View:
        """The documents of the stream folded already to ``point`` (``state``: a fold of
        the kind's own, which a read made as it judged the events)."""
        ...

    def audit(self, events: list[AnyEvent], progress: Progress | None = None) -> list[AuditRow]:
        """Every event with what it did to the cells, and the verdicts on it."""
        ...

    def numbers_at(self, events: list[AnyEvent], point: Point) -> Numbers:
        """What ``diff`` compares at one point."""
        ...

    @property
    def CELLS(self) -> CellNames:  # noqa: N802 (the module's constant)
        """How the kind's cells are named."""
        ...


class Kind(msgspec.Struct, frozen=True):
    """One kind of stream, as the read side sees it.

    ``side`` gives the module of the kind's read side (``ReadSide``); it imports the
    module when a command first asks for the view, audit, numbers or cells, so that a
    command that only records (``pulka deal``) loads no audit. Each loader below names
    its module in a plain import, which mypy and the floors check see.
    """

    name: str  # "pulka", "rubber"
    noun: str  # the kind as a message names it, marked for the catalogue: shown as _(noun)
    start: type[StreamStart]  # the type of its first event
    side: Callable[[], ReadSide]

    @property
    def view(self) -> Callable[[list[AnyEvent], Point, Progress | None], View]:
        """The stream folded to a point, with its documents."""
        return self.side().view

    @property
    def view_of(self) -> Callable[[Any, Point], View]:
        """The documents of the stream folded already to a point (no fold of its own)."""
        return self.side().view_of

    @property
    def audit(self) -> Callable[[list[AnyEvent], Progress | None], list[AuditRow]]:
        """Every event with what it did to the cells, and the verdicts on it."""
        return self.side().audit

    @property
    def numbers_at(self) -> Callable[[list[AnyEvent], Point], Numbers]:
        """What ``diff`` compares at one point."""
        return self.side().numbers_at

    @property
    def cells(self) -> CellNames:
        """How the kind's cells are named."""
        return self.side().CELLS

    def diff(self, events: list[AnyEvent], a: Point, b: Point) -> dict[str, Any]:
        """What changed between two points, and which events changed it."""
        return diff_numbers(events, a, b, self.numbers_at, lambda kept: self.audit(kept, None), self.cells)


def _pulka() -> ReadSide:
    from projections import pulka  # imported when first asked for (see Kind)

    return pulka


def _rubber() -> ReadSide:
    from projections import rubber_report  # imported when first asked for (see Kind)

    return rubber_report


PULKA = Kind("pulka", language.N_("a pulka"), GameStarted, _pulka)
RUBBER = Kind("rubber", language.N_("a rubber"), RubberStarted, _rubber)
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

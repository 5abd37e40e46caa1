"""The kinds of stream, as the command side sees them: how each kind judges its events.

The read side's half of the seam (``projections.kinds.Kind``: the fold, documents and
audit of each kind) is joined here to what only the command side knows: how the
first event is judged (``start``), how a log that appends must begin (``same_start``),
what folds a stored stream (``fold``) and how every later event is judged (``decide``).
``Ledger`` (``application``) dispatches on a stream's first event through
``judging_of`` and runs the one loop of ``judging`` with the kind's ``decide``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Generic, TypeVar

import msgspec

from ledger.command import judge, rubber
from ledger.command.admission import admit
from ledger.command.judging import judge_events
from ledger.vocabulary.bridge import RubberStarted
from ledger.vocabulary.events import AnyEvent, GameStarted, StreamStart, event_type
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.times import now_iso
from projections import kinds
from projections.game import GameState, replay
from projections.sheet import totals
from projections.rubber import RubberState, replay_rubber
from projections.rubber import totals as rubber_totals
from projections.trail import Cell

S = TypeVar("S")
# The first events of the kinds of stream below.
Start = GameStarted | RubberStarted


@dataclass(frozen=True)
class Judging(Generic[S]):
    """One kind of stream on the command side: its read side, and how it is judged."""

    kind: kinds.Kind
    start: Callable[[AnyEvent], Start]  # judge the first event
    same_start: Callable[[Any, Any], bool]  # both of ``kind.start``
    fold: Callable[[list[AnyEvent]], S]  # a stored stream, first event first
    decide: Callable[[S, AnyEvent], AnyEvent]  # judge one later event
    cells: Callable[[S], dict[Cell, Fraction]]  # every number of the state's sheet

    @property
    def name(self) -> str:
        return self.kind.name


PULKA: Judging[GameState] = Judging(kinds.PULKA, judge.start, judge.same_start, replay, judge.decide,
                                    lambda state: totals(state.sheet()))
RUBBER: Judging[RubberState] = Judging(kinds.RUBBER, rubber.start, rubber.same_start, replay_rubber, rubber.decide,
                                       lambda state: rubber_totals(state.sheet()))
JUDGING: tuple[Judging[Any], ...] = (PULKA, RUBBER)

# The first events of the games (the streams that are not tournaments or the register).
GAME_STARTS: tuple[type[StreamStart], ...] = tuple(j.kind.start for j in JUDGING)

FIRST_LINES = " or ".join(f"a {j.kind.start.__struct_config__.tag} line" for j in JUDGING)


def judging_of(first: AnyEvent) -> Judging[Any]:
    """The kind of stream ``first`` starts, or a refusal naming the first events allowed."""
    for judging in JUDGING:
        if isinstance(first, judging.kind.start):
            return judging
    raise Refused("event-log", f"a log must begin with the start of a game, not a {event_type(first)}",
                  FIRST_LINES + " first")


def start_stream(line: int | None, event: AnyEvent, clock: Callable[[], str]) -> tuple[Judging[Any], Start]:
    """Judge the first line of a log of any kind (admitted first: ``admission.admit``),
    naming the line in a refusal, and give it the clock's time when it has none; with
    the kind it starts."""
    try:
        admit(event)
        judging = judging_of(event)
        started = judging.start(event)
    except Refused as exc:
        exc.line = line
        raise
    if started.at is None:
        started = msgspec.structs.replace(started, at=clock())
    return judging, started


def judge_log(lines: Sequence[tuple[int, AnyEvent]], clock: Callable[[], str] = now_iso) -> list[AnyEvent]:
    """Judge a whole log of any kind without a store: the events as they would be stored."""
    judging, started = start_stream(*lines[0], clock)
    state = judging.fold([started])
    return [started, *judge_events(state, judging.decide, lines[1:], clock, total=len(lines) - 1)]

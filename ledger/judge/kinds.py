"""The kinds of stream, as the command side sees them: how each kind judges its events.

The read side's half of the seam (``projections.kinds.Kind``: the fold, documents and
audit of each kind) is joined here to what only the command side knows: how the
first event is judged (``start``), how a log that appends must begin (``same_start``),
what folds a stored stream (``fold``) and how every later event is judged (``decide``).
``Ledger`` (``application``) dispatches on a stream's first event through
``judging_of`` and runs the one loop of ``judging`` with the kind's ``decide``.

``Judging`` is generic in the kind's state (a ``GameState``, a ``RubberState``), so
that mypy checks each kind's fold and judge against each other. A kind found at run
time is one of ``AnyJudging``; code written once for every kind is a function generic
in the state, which ``Judging.run`` calls with the kind (mypy checks it once for each).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Concatenate, Generic, ParamSpec, Protocol, TypeAlias, TypeVar

import msgspec

from ledger.judge import pulka
from ledger.judge.admission import admit
from ledger.judge.judging import Progress, judge_events
from ledger.vocabulary.bridge import RubberStarted
from ledger.vocabulary.events import AnyEvent, GameStarted, StreamStart, event_type
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.times import now_iso
from projections import kinds
from projections.game import GameState, replay
from projections.recording import Effect
from projections.sheet import totals
from projections.trail import Cell

if TYPE_CHECKING:  # a rubber's judge and fold are loaded by the first rubber (a pulka's commands never are)
    from projections.rubber import RubberState


class StreamState(Protocol):
    """What the command side asks of any kind's state: the time of its latest event and
    its fold (for the judging loop), and the verdicts of the recording rules."""

    @property
    def last_time(self) -> str | None: ...

    @property
    def effects(self) -> Mapping[int, Effect]: ...

    def apply(self, event: AnyEvent) -> None: ...


S = TypeVar("S", bound=StreamState)
R = TypeVar("R")
P = ParamSpec("P")
# The first events of the kinds of stream below.
Start = GameStarted | RubberStarted


class Judging(msgspec.Struct, Generic[S], frozen=True):
    """One kind of stream on the command side: its read side, and how it is judged."""

    kind: kinds.Kind
    start: Callable[[AnyEvent], Start]  # judge the first event
    same_start: Callable[[StreamStart, StreamStart], bool]  # both of ``kind.start``
    fold: Callable[[list[AnyEvent]], S]  # a stored stream, first event first
    decide: Callable[[S, AnyEvent], AnyEvent]  # judge one later event
    cells: Callable[[S], dict[Cell, Fraction]]  # every number of the state's sheet

    @property
    def name(self) -> str:
        return self.kind.name

    def run(self, f: Callable[Concatenate[Judging[S], P], R], *args: P.args, **kwargs: P.kwargs) -> R:
        """``f(self, ...)``: how code written once for every kind (a function generic in
        the state) is run with a kind found at run time, ``judging_of(first)``."""
        return f(self, *args, **kwargs)

    def totals(self, events: list[AnyEvent]) -> dict[Cell, Fraction]:
        """Every number of the sheet of a stored stream."""
        return self.cells(self.fold(events))

    def judged(self, started: Start, rest: Sequence[tuple[int | None, AnyEvent]], clock: Callable[[], str],
               progress: Progress | None = None) -> list[AnyEvent]:
        """A stream that begins with ``started`` (judged already), the rest of its events
        judged in order: the events as they would be stored."""
        state = self.fold([started])
        return [started, *judge_events(state, self.decide, rest, clock, progress, total=len(rest))]


PULKA: Judging[GameState] = Judging(kinds.PULKA, pulka.start, pulka.same_start, replay, pulka.decide,
                                    lambda state: totals(state.sheet()))


# A rubber's judge and fold, imported when a rubber is first judged or read.
def _start_rubber(event: AnyEvent) -> RubberStarted:
    from ledger.judge.rubber import start_rubber

    return start_rubber(event)


def _same_rubber_start(a: StreamStart, b: StreamStart) -> bool:
    from ledger.judge.rubber import same_rubber_start

    return same_rubber_start(a, b)


def _replay_rubber(events: list[AnyEvent]) -> RubberState:
    from projections.rubber import replay_rubber

    return replay_rubber(events)


def _decide_rubber(state: RubberState, event: AnyEvent) -> AnyEvent:
    from ledger.judge.rubber import decide_rubber

    return decide_rubber(state, event)


def _rubber_cells(state: RubberState) -> dict[Cell, Fraction]:
    from projections.rubber import rubber_totals

    return rubber_totals(state.sheet())


RUBBER: Judging[RubberState] = Judging(kinds.RUBBER, _start_rubber, _same_rubber_start, _replay_rubber,
                                       _decide_rubber, _rubber_cells)
AnyJudging: TypeAlias = "Judging[GameState] | Judging[RubberState]"
State: TypeAlias = "GameState | RubberState"  # the state of a stream of any kind
JUDGING: tuple[AnyJudging, ...] = (PULKA, RUBBER)

# The first events of the games (the streams that are not tournaments or the register).
GAME_STARTS: tuple[type[StreamStart], ...] = tuple(j.kind.start for j in JUDGING)

FIRST_LINES = " or ".join(f"a {j.kind.start.__struct_config__.tag} line" for j in JUDGING)


def judging_of(first: AnyEvent) -> AnyJudging:
    """The kind of stream ``first`` starts, or a refusal naming the first events allowed."""
    for judging in JUDGING:
        if isinstance(first, judging.kind.start):
            return judging
    raise Refused("event-log", f"a log must begin with the start of a game, not a {event_type(first)}",
                  FIRST_LINES + " first")


def start_stream(line: int | None, event: AnyEvent, clock: Callable[[], str]) -> tuple[AnyJudging, Start]:
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
    return judging.judged(started, lines[1:], clock)

"""The one loop that judges a batch of events, for a stream of any kind.

``judge_events`` judges each event against the state the one before it left, with
the ``decide`` of the stream's kind (``pulka.decide`` for a pulka, ``rubber.decide_rubber``
for a rubber), and folds it into that state as it goes: a file's lines, a deal line's
events, a table command's event all go through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol, TypeVar

import msgspec

from ledger.judge.admission import admit
from ledger.judge.checks import time_of
from ledger.vocabulary.events import AnyEvent, as_stored
from ledger.vocabulary.refusal import Refused

Progress = Callable[[int, int], None]


if TYPE_CHECKING:  # a type for mypy alone: no class made as a command starts

    class Folding(Protocol):
        """A stream's state as the loop needs it: the time of its latest event, and a fold."""

        @property
        def last_time(self) -> str | None: ...

        def apply(self, event: AnyEvent) -> None: ...


S = TypeVar("S", bound="Folding")


def judge_events(
    state: S,
    decide: Callable[[S, AnyEvent], AnyEvent],
    events: Iterable[tuple[int | None, AnyEvent]],
    clock: Callable[[], str],
    progress: Progress | None = None,
    total: int = 0,
) -> list[AnyEvent]:
    """Judge each event against ``state`` and fold it in, so that the next one is judged
    on the state it will be applied to; return the events as they will be stored.

    Each event comes with the line of its file (None for the command line), which a
    refusal then names. ``events`` is read one at a time, after the one before it was
    folded in: a generator may look at ``state`` to make the next event. An event without
    a time gets the clock's, or the previous event's when that is later (times never go
    back within a game). Every event is first admitted (``admission.admit``: its names,
    texts, numbers and time), whatever its kind.
    """
    out: list[AnyEvent] = []
    stamp = clock()
    stamp_time = time_of(stamp)
    apply, keep, check = state.apply, out.append, admit  # looked up once for every event
    for i, (line, event) in enumerate(events, start=1):
        if event.at is None:
            last = state.last_time
            later = last is None or last == stamp or stamp_time >= time_of(last)
            event = msgspec.structs.replace(event, at=stamp if later else last)
        try:
            check(event)
            judged = as_stored(decide(state, event))  # its dicts in the order the store gives them back
        except Refused as exc:
            exc.line = line
            raise
        apply(judged)
        keep(judged)
        if progress is not None and (i % 500 == 0 or i == total):
            progress(i, total)
    return out

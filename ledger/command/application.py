"""The ledger application: every command is one load, one decision, one save.

``Ledger`` joins the command side (``judge``) to the event store (``store``). Each
recording command, whether a table command, a deal line, a correction or a whole
imported file, goes through ``Ledger.execute``: the game's events are read once and
replayed once, each new event is judged once against the state it will be applied to
(``judge.judge_into``), and all of them are stored in one transaction, or none. A
concurrent writer is caught by the store's optimistic concurrency.

Reading commands read only what they show: ``Ledger.read`` asks the store for events
1..N for ``--at N`` and stops at the end of deal K for ``--deal K``, and the chain of
what was read is checked on the way. ``bulk`` turns the garbage collector off around
the load and replay of a long game, which allocates much and frees nothing cyclic.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeVar

from ledger.command.judge import Progress, judge_into, start_log
from ledger.command.store import ConcurrentWriteError, Reading, Store, StoredEvent, Verified
from ledger.vocabulary.chain import GENESIS, ChainProblem
from ledger.vocabulary.events import AnyEvent, GameStarted
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.times import now_iso
from projections.audit import Cell, totals
from projections.game import GameState, replay
from projections.recording import Effect
from projections.report import Point, settlement_of

# What a recording command decides: given the game as it stands, the events to record,
# each computed once the one before it has been judged and folded in (a generator may
# read the state between events, as a deal line does).
Command = Callable[[GameState], Iterable[AnyEvent]]


T = TypeVar("T")


class BrokenChainError(Exception):
    """A game whose hash chain does not check out: nothing is recorded onto it, and
    reading it needs the reader's explicit consent."""

    def __init__(self, game: str, problem: ChainProblem) -> None:
        self.game = game
        self.problem = problem
        super().__init__(f"the hash chain of game {game!r} is broken: {problem}; see `pulka verify {game}`")


class ImpossibleEventError(Exception):
    """A stored event that the projections cannot take (eleven tricks, an unknown
    player): one the ledger would never have recorded, so it was written around it."""

    def __init__(self, game: str, number: int, cause: Exception) -> None:
        self.game = game
        self.number = number
        super().__init__(
            f"event {number} of game {game!r} cannot be replayed ({type(cause).__name__}: {cause}): the store "
            "holds an event the ledger would not have recorded (written outside pulka? see `pulka verify`)"
        )


@dataclass(frozen=True)
class Outcome:
    """What a recording command stored: the game, whether it was created, the events,
    and the game before them (its sheet totals and verdicts), to say what they did."""

    game: str
    created: bool
    stored: list[StoredEvent]
    state: GameState  # the game after the new events
    totals_before: dict[Cell, Fraction] = field(default_factory=dict)
    effects_before: dict[int, Effect] = field(default_factory=dict)


def same_start(a: GameStarted, b: GameStarted) -> bool:
    """A file that appends must begin with the stored game's own game_started."""
    keys = ("game", "players", "pulya", "stake", "first_dealer", "rule_set")
    return all(getattr(a, k) == getattr(b, k) for k in keys)


class Ledger:
    def __init__(self, store: Store, clock: Callable[[], str] = now_iso) -> None:
        self.store = store
        self.clock = clock

    # -- reading -----------------------------------------------------------------------

    def events(self, game: str) -> list[StoredEvent]:
        """The stored events of a game, or a refusal naming the stored games."""
        stored = self.store.load(game)
        if not stored:
            raise self.unknown(game)
        return stored

    def read(self, game: str, point: Point = Point()) -> Reading:
        """The events of a game that a reading command needs to show it as of ``point``
        (all of them when no point is given), with their chain checked; a refusal
        naming the stored games when there is no such game.

        ``projections.report.cut`` applied to what this returns gives what it gives on
        the whole game: ``--at N`` reads events 1..N, ``--deal K`` reads up to the first
        event of a later deal, and ``--time`` (and a point that cut will refuse) reads
        everything.
        """
        if point.at is not None and point.at >= 1:
            reading = self.store.read(game, upto=point.at)
        elif point.deal is not None and point.deal >= 0:
            reading = self.store.read(game, through_deal=point.deal)
        else:
            reading = self.store.read(game)
        if not reading.stored:
            raise self.unknown(game)
        return reading

    def unknown(self, game: str) -> Refused:
        known = self.store.games()
        hint = f"; stored games: {', '.join(known)}" if known else "; the store has no games yet"
        return Refused("event-log", f"no game named {game!r}{hint}")

    def state(self, game: str) -> GameState:
        return self.replayed(game, self.read(game).events)

    def sound(self, game: str) -> list[StoredEvent]:
        """All events of a game whose chain checks out (what recording continues from)."""
        reading = self.store.read(game)
        if reading.problem is not None:
            raise BrokenChainError(game, reading.problem)
        return reading.stored

    def verify(self, game: str) -> ChainProblem | None:
        """The first problem of a stored game: a break of its hash chain, or, when the
        chain is intact, an event that cannot be replayed (one the ledger would not have
        recorded, written with its digests computed anew); None when it is sound."""
        problem = self.store.verify(game)
        if problem is not None:
            return problem
        try:
            self.replayed(game, [s.event for s in self.store.load(game)])
        except ImpossibleEventError as exc:
            return ChainProblem(exc.number, str(exc))
        return None

    def verify_all(self) -> list[Verified]:
        """Every stream of the store checked as ``verify`` checks a game."""
        checked = []
        for v in self.store.verify_all():
            if v.problem is None:
                v = v._replace(problem=self.verify(v.name))
            checked.append(v)
        return checked

    def replayed(self, game: str, events: list[AnyEvent]) -> GameState:
        """The game after ``events``, which must replay and settle; an event that makes
        them fail is refused by number (``ImpossibleEventError``)."""
        return guarded(game, events, _settled)

    # -- recording: load, decide, save ---------------------------------------------------

    def execute(self, game: str, command: Command, expected: int | None = None) -> Outcome:
        """Record what ``command`` decides on the stored game: one load, one replay, each
        new event judged once, one save. ``expected``: the number of events the caller
        saw (in a preview); when the game has more by now, nothing is stored."""
        return self._decide(game, command, expected, save=True)

    def preview(self, game: str, command: Command) -> Outcome:
        """What ``execute`` would record, judged and folded by the same judge and
        projection, without saving: the events numbered as they would be, no digests."""
        return self._decide(game, command, None, save=False)

    def _decide(self, game: str, command: Command, expected: int | None, save: bool) -> Outcome:
        stored = self.sound(game)
        if not stored:
            raise self.unknown(game)
        if expected is not None and len(stored) != expected:
            raise ConcurrentWriteError(game, expected, len(stored))
        state = self.replayed(game, [s.event for s in stored])
        before, effects = totals(state.sheet()), dict(state.effects)
        new = judge_into(state, ((None, e) for e in command(state)), self.clock)
        if save:
            saved = self.store.append(game, new, expected=len(stored), previous=stored[-1].digest) if new else []
        else:
            saved = [StoredEvent(n, e, "") for n, e in enumerate(new, start=len(stored) + 1)]
        return Outcome(game, False, saved, state, before, effects)

    def record_lines(
        self, lines: Sequence[tuple[int, AnyEvent]], progress: Progress | None = None
    ) -> Outcome:
        """Judge and store a whole log: a new game, or events appended to one."""
        first_line, first = lines[0]
        return self._record(start_log(first_line, first, self.clock), first_line, lines[1:], progress)

    def create(self, event: GameStarted) -> Outcome:
        """Start a game from the command line (no file, so no line numbers)."""
        return self._record(start_log(None, event, self.clock), None, [], None)

    def _record(
        self,
        started: GameStarted,
        first_line: int | None,
        rest: Sequence[tuple[int, AnyEvent]],
        progress: Progress | None,
    ) -> Outcome:
        stored = self.sound(started.game)
        if stored:
            existing = stored[0].event
            assert isinstance(existing, GameStarted)
            if not same_start(existing, started):
                refused = Refused(
                    "event-log",
                    f"game {started.game!r} is stored with a different game_started line; a file that "
                    "appends must begin with the stored one (see `pulka export`)",
                )
                refused.line = first_line
                raise refused
            state = self.replayed(started.game, [s.event for s in stored])
            new: list[AnyEvent] = []
        else:
            state = GameState.start(started)
            new = [started]
        new += judge_into(state, rest, self.clock, progress, total=len(rest))
        previous = stored[-1].digest if stored else GENESIS
        saved = self.store.append(started.game, new, expected=len(stored), previous=previous) if new else []
        return Outcome(started.game, not stored, saved, state)


def guarded(game: str, events: list[AnyEvent], show: Callable[[list[AnyEvent]], T]) -> T:
    """``show(events)``; when that fails, and replaying some first events of the game
    fails too, the event that makes it fail is refused by number (found by halving,
    only on that path). Any other failure is raised as it is."""
    try:
        return show(events)
    except Exception as exc:
        number = _first_failing(events, _settled)
        if number is None:
            raise
        raise ImpossibleEventError(game, number, exc) from exc


def _settled(events: list[AnyEvent]) -> GameState:
    state = replay(events)
    settlement_of(state)
    return state


def _first_failing(events: list[AnyEvent], probe: Callable[[list[AnyEvent]], object]) -> int | None:
    """The number of the first event after which ``probe`` of the events so far fails;
    None when it does not fail on them all."""
    def fails(count: int) -> bool:
        try:
            probe(events[:count])
        except Exception:
            return True
        return False

    if not events or not fails(len(events)):
        return None
    low, high = 1, len(events)  # probe fails on the first ``high`` events
    while low < high:
        middle = (low + high) // 2
        if fails(middle):
            high = middle
        else:
            low = middle + 1
    return low


@contextmanager
def bulk() -> Iterator[None]:
    """The garbage collector off (and what exists so far frozen out of its scans) for a
    bulk load and replay: a long game makes many objects and no cycles to free, and
    the collector's passes over them cost a fifth of the time at 100,000 events."""
    enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        gc.unfreeze()

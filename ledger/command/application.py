"""The ledger application: every command is one load, one decision, one save.

``Ledger`` joins the command side (``judge``, ``rubber``) to the event store
(``store``). Each recording command, whether a table command, a deal line, a
correction or a whole imported file, goes through ``Ledger.execute``: the game's
events are read once and replayed once, each new event is judged once against the
state it will be applied to (``judging.judge_events``, with the ``decide`` of the
stream's kind: ``kinds.judging_of`` its first event), and all of them are stored in
one transaction, or none. A concurrent writer is caught by the store's optimistic
concurrency. Nothing is recorded onto a stream whose hash chain is broken.

Reading commands read only what they show: ``Ledger.read`` asks the store for events
1..N for ``--at N`` and stops at the end of deal K for ``--deal K``, and the chain of
what was read is checked on the way. A stored event that cannot be replayed is refused
by number (``guarded``). ``bulk`` turns the garbage collector off around the load and
replay of a long game, which allocates much and frees nothing cyclic.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Generic, TypeVar, cast, overload

from ledger.command.judging import Progress, judge_events
from ledger.command.kinds import Judging, Start, State, StreamState, judge_log, judging_of, start_stream
from ledger.command.store import ConcurrentWriteError, Reading, Store, StoredEvent
from ledger.command.tables import check_table_game
from ledger.vocabulary.bridge import RubberStarted
from ledger.vocabulary.chain import GENESIS, ChainProblem
from ledger.vocabulary.club import ClubStarted
from ledger.vocabulary.events import AnyEvent, GameStarted, encode_event, event_type
from ledger.vocabulary.logfile import LogLine
from ledger.vocabulary.stream import StreamStart
from ledger.vocabulary.tournament import TournamentStarted
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.times import now_iso
from projections.game import GameState
from projections.recording import Effect
from projections.report import Point
from projections.rubber import RubberState
from projections.trail import Cell

S = TypeVar("S", bound=StreamState)
T = TypeVar("T")

# What a recording command decides: given the game as it stands, the events to record,
# each computed once the one before it has been judged and folded in (a generator may
# read the state between events, as a deal line does). The state is the stream's own
# (``Command[GameState]`` for a pulka, ``Command[RubberState]`` for a rubber), and the
# command names its kind (``execute(..., kind=PULKA)``).
Command = Callable[[S], Iterable[AnyEvent]]


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
class Outcome(Generic[S]):
    """What a recording command stored: the game, whether it was created, the events,
    and the game before them (its sheet totals and verdicts), to say what they did."""

    game: str
    created: bool
    stored: list[StoredEvent]
    state: S  # the game after the new events: a GameState for a pulka, a RubberState for a rubber
    totals_before: dict[Cell, Fraction] = field(default_factory=dict)
    effects_before: dict[int, Effect] = field(default_factory=dict)


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
        a_game(game, stored[0].event)
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
        a_game(game, reading.stored[0].event)
        return reading

    def sound(self, game: str) -> list[StoredEvent]:
        """All events of a stream whose chain checks out (what recording continues
        from); [] for a stream never stored."""
        reading = self.store.read(game)
        if reading.problem is not None:
            raise BrokenChainError(game, reading.problem)
        return reading.stored

    def judged(self, stream: str) -> ChainProblem | None:
        """The first event of a stream whose chain is intact (``Store.verify``) that the
        ledger would not have recorded, written with its digests computed anew: one that
        cannot be replayed, one that its judge refuses on the game before it (as
        ``import`` and ``verify --file`` judge every line), or one stored otherwise than
        the judge records it. None when there is none; for a tournament's or the club
        register's stream, whose chain is what ``verify`` checks, None."""
        events = [s.event for s in self.store.load(stream)]
        try:
            judging_of(events[0])
        except (Refused, IndexError):
            return None
        try:
            return rejudged(stream, events, self.clock)
        except Exception:
            # An event that makes the judging itself fail (one the fold cannot take, or
            # whose sheet cannot be read): the replay to the sheet names it, found by
            # halving, as a reading command would.
            judging = judging_of(events[0])
            try:
                guarded(stream, events, judging.totals)
            except ImpossibleEventError as exc:
                return ChainProblem(exc.number, str(exc))
            raise

    def replayed(self, game: str, events: list[AnyEvent]) -> State:
        """The game after ``events`` (folded by its kind), or a refusal naming the first
        event that cannot be replayed (``ImpossibleEventError``)."""
        return judging_of(events[0]).run(replayed_as, game, events)

    def unknown(self, game: str) -> Refused:
        known = self.store.games()
        hint = f"; stored games: {', '.join(known)}" if known else "; the store has no games yet"
        return Refused("event-log", f"no game named {game!r}{hint}")

    def state(self, game: str) -> State:
        """The stored game folded: a GameState for a pulka, a RubberState for a rubber."""
        return self.replayed(game, self.read(game).events)

    # -- recording: load, decide, save ---------------------------------------------------

    @overload
    def execute(self, game: str, command: Command[S], expected: int | None = None, *,
                kind: Judging[S]) -> Outcome[S]: ...

    @overload
    def execute(self, game: str, command: Command[State], expected: int | None = None,
                kind: None = None) -> Outcome[GameState] | Outcome[RubberState]: ...

    def execute(self, game: str, command: Command[S] | Command[State], expected: int | None = None,
                kind: Judging[S] | None = None) -> Outcome[S] | Outcome[GameState] | Outcome[RubberState]:
        """Record what ``command`` decides on the stored game: one load, one replay, each
        new event judged once, one save. ``expected``: the number of events the caller
        saw (in a preview); when the game has more by now, nothing is stored. A command
        that reads the state of one kind names its ``kind`` (``Command[S]``; it is refused
        on a game of another kind); one that names none takes the state of any kind."""
        return self._decide(game, command, expected, True, kind)

    @overload
    def preview(self, game: str, command: Command[S], *, kind: Judging[S]) -> Outcome[S]: ...

    @overload
    def preview(self, game: str, command: Command[State],
                kind: None = None) -> Outcome[GameState] | Outcome[RubberState]: ...

    def preview(self, game: str, command: Command[S] | Command[State],
                kind: Judging[S] | None = None) -> Outcome[S] | Outcome[GameState] | Outcome[RubberState]:
        """What ``execute`` would record, judged and folded by the same judge and
        projection, without saving: the events numbered as they would be, no digests."""
        return self._decide(game, command, None, False, kind)

    def _decide(self, game: str, command: Command[S] | Command[State], expected: int | None, save: bool,
                kind: Judging[S] | None) -> Outcome[S] | Outcome[GameState] | Outcome[RubberState]:
        stored = self.sound(game)
        if not stored:
            raise self.unknown(game)
        a_game(game, stored[0].event)
        if expected is not None and len(stored) != expected:
            raise ConcurrentWriteError(game, expected, len(stored))
        judging = judging_of(stored[0].event)
        if kind is None:
            return judging.run(self._decided, game, stored, cast("Command[State]", command), save)
        if judging is not kind:
            raise Refused("event-log", f"{game!r} is a {judging.name}, not a {kind.name}",
                          "the commands of a rubber: pulka bridge ..." if judging.name == "rubber"
                          else "the commands of a pulka")
        return self._decided(kind, game, stored, cast("Command[S]", command), save)

    def _decided(self, judging: Judging[S], game: str, stored: list[StoredEvent], command: Command[S],
                 save: bool) -> Outcome[S]:
        """The one load's replay, the command's events judged in order, and the save."""
        state = replayed_as(judging, game, [s.event for s in stored])
        before, effects = judging.cells(state), dict(state.effects)
        new = judge_events(state, judging.decide, ((None, e) for e in command(state)), self.clock)
        check_table_game(self.store, game, state if isinstance(state, GameState) else None, new)
        if save:
            saved = self.store.append(game, new, expected=len(stored), previous=stored[-1].digest) if new else []
        else:
            saved = [StoredEvent(n, e, "") for n, e in enumerate(new, start=len(stored) + 1)]
        return Outcome(game, False, saved, state, before, effects)

    def stored_prefix(self, lines: Sequence[LogLine]) -> int:
        """How many lines at the head of an export are events its stream has stored
        already, digest for digest (a digest binds everything before it, so equal digests
        mean the same history); 0 for a log without digests or a stream not stored."""
        if not lines or any(line.digest is None for line in lines):
            return 0
        first = lines[0].event
        if not isinstance(first, StreamStart):
            return 0
        same = 0
        for line, stored in zip(lines, self.store.load(first.game)):
            if line.digest != stored.digest:
                break
            same += 1
        return same

    def record_lines(
        self, lines: Sequence[tuple[int, AnyEvent]], progress: Progress | None = None
    ) -> Outcome[GameState] | Outcome[RubberState]:
        """Judge and store a whole log: a new game, or events appended to one."""
        first_line, first = lines[0]
        judging, started = start_stream(first_line, first, self.clock)
        return judging.run(self._record, started, first_line, lines[1:], progress)

    @overload
    def create(self, event: GameStarted) -> Outcome[GameState]: ...

    @overload
    def create(self, event: RubberStarted) -> Outcome[RubberState]: ...

    def create(self, event: Start) -> Outcome[GameState] | Outcome[RubberState]:
        """Start a game from the command line (no file, so no line numbers)."""
        judging, started = start_stream(None, event, self.clock)
        return judging.run(self._record, started, None, [], None)

    def _record(
        self,
        judging: Judging[S],
        started: Start,
        first_line: int | None,
        rest: Sequence[tuple[int, AnyEvent]],
        progress: Progress | None,
    ) -> Outcome[S]:
        stored = self.sound(started.game)
        if stored:
            existing = stored[0].event
            if not isinstance(existing, type(started)) or not judging.same_start(existing, started):
                refused = Refused(
                    "event-log",
                    f"game {started.game!r} is stored with a different {event_type(existing)} line; a file that "
                    "appends must begin with the stored one (see `pulka export`)",
                )
                refused.line = first_line
                raise refused
            state = replayed_as(judging, started.game, [s.event for s in stored])
            new: list[AnyEvent] = []
        else:
            state = judging.fold([started])
            new = [started]
        new += judge_events(state, judging.decide, rest, self.clock, progress, total=len(rest))
        check_table_game(self.store, started.game, state if isinstance(state, GameState) else None, new)
        if not stored:
            # The views' machinery (eventsourcing's projections) is needed only when a
            # stream is created: a deal recorded into a game never loads it.
            from ledger.command.views import ensure_views

            ensure_views(self.store)
        previous = stored[-1].digest if stored else GENESIS
        saved = self.store.append(started.game, new, expected=len(stored), previous=previous) if new else []
        return Outcome(started.game, not stored, saved, state)


def rejudged(game: str, events: list[AnyEvent], clock: Callable[[], str]) -> ChainProblem | None:
    """The first of a game's stored events that the ledger would not record as stored:
    each is judged again, as it was on its way in (admitted, then judged by its kind's
    judge on the game before it), and the event the judge records must be the stored
    one. Every stored event carries its time, so the clock decides nothing here."""
    try:
        judged = judge_log(list(enumerate(events, start=1)), clock)
    except Refused as exc:
        number = exc.line or 1
        return ChainProblem(number, f"event {number} of game {game!r} would be refused: {exc.message} (the store holds an "
                                    "event the ledger would not have recorded: written outside pulka?)")
    for number, (stored, again) in enumerate(zip(events, judged, strict=True), start=1):
        if stored != again:
            return ChainProblem(number, f"event {number} of game {game!r} is stored otherwise than the ledger "
                                        f"records it (written outside pulka?): stored {encode_event(stored).decode()}, "
                                        f"recorded {encode_event(again).decode()}")
    return None


def a_game(name: str, first: AnyEvent) -> None:
    """Refuse a stream that is not a game (a tournament, the club register) where a
    game is meant."""
    if isinstance(first, TournamentStarted | ClubStarted):
        kind = "a tournament" if isinstance(first, TournamentStarted) else "the club register"
        raise Refused("event-log", f"{name!r} is {kind}, not a game",
                      "pulka tournament … for a tournament" if isinstance(first, TournamentStarted) else "a game's name")


def replayed_as(judging: Judging[S], game: str, events: list[AnyEvent]) -> S:
    """The game after ``events``, folded by its kind ``judging`` (``guarded``)."""
    return guarded(game, events, judging.fold)


def guarded(game: str, events: list[AnyEvent], show: Callable[[list[AnyEvent]], T]) -> T:
    """``show(events)``; when that fails, and replaying some first events of the game
    fails too, the event that makes it fail is refused by number (found by halving,
    only on that path). Any other failure is raised as it is."""
    try:
        return show(events)
    except Exception as exc:
        number = _first_failing(events)
        if number is None:
            raise
        raise ImpossibleEventError(game, number, exc) from exc


def _replays(events: list[AnyEvent]) -> bool:
    """Whether the events fold, by their kind, into a state whose sheet can be read."""
    try:
        judging_of(events[0]).totals(events)
    except Exception:
        return False
    return True


def _first_failing(events: list[AnyEvent]) -> int | None:
    """The number of the first event after which the game no longer replays; None when
    it replays whole (or its first event starts no game)."""
    if not events or _replays(events):
        return None
    try:
        judging_of(events[0])
    except Refused:
        return None
    low, high = 1, len(events)  # the first ``high`` events do not replay
    while low < high:
        middle = (low + high) // 2
        if _replays(events[:middle]):
            low = middle + 1
        else:
            high = middle
    return low


@contextmanager
def bulk() -> Iterator[None]:
    """The garbage collector off for a bulk load and replay: a long game makes many
    objects and no cycles to free, and the collector's passes over them cost a fifth of
    the time at 100,000 events. Nothing is frozen out of its scans: what was garbage
    before stays in its generation, to be collected as soon as it would have been."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()

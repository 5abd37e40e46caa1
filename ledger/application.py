"""The ledger application: every command is one load, one decision, one save.

``Ledger`` joins the judge (``ledger.judge``) to the event store (``ledger.store``).
Each recording command, whether a table command, a deal line, a correction or a whole
imported file, goes through ``Ledger.execute``: the game's events are read once and
replayed once, each new event is judged once against the state it will be applied to
(``judging.judge_events``, with the ``decide`` of the stream's kind: ``kinds.judging_of``
its first event), and all of them are stored in one transaction, or none. A concurrent
writer is caught by the store's optimistic concurrency. Nothing is recorded onto a
stream whose hash chain is broken. A command judged by another stream too (a table's
game by its tournament, a seating by the club register) stores only if that stream is
unchanged when it writes, and is decided again once when it is not
(``ledger.store.retry``).

A caller that records into one game again and again (the scorer's session, ``pulka
play``; a service) may keep the game loaded (``Ledger.keep``: a ``Kept``): a command
on it then reads only the stream's head, and is refused as a concurrent write when
someone else has written since; a command refused keeps the fold as it was.

Reading commands read only what they show: ``Ledger.read`` asks the store for events
1..N for ``--at N`` and stops at the end of deal K for ``--deal K``, and the chain of
what was read is checked on the way. Every stored event a command reads or records onto
that the ledger has not judged before is judged as it was on its way in
(``ledger.judge.stored``: ``judged_fold``; a recording command's fold of the stored game
is that judging), so that an event the rules refuse, written with its digests computed
anew, is named by number (``RefusedEventError``, ``Reading.refused``) rather than shown
or built on; one that cannot be replayed too (``pinpointed``). The read's fold is the
view's (``read_folded``): a read folds the game once.

What a read trusts: the stream's judged mark (``backend.Mark``: N events judged, the
digest of event N), which the ledger writes in the transaction that stores events it
judged (every recording command, ``import``, a new game: ``Append.judged``). When the
chain read holds and event N is stored with the mark's digest, which commits to events
1..N, those are folded without judging and only the rest judged onto them. An event
appended behind the ledger's back comes after the mark, and is judged; one edited and
chained anew changes the stored digest of event N, so the game is judged from its start.
What only ``verify`` proves: who rewrites the mark too is trusted by a read, but
``judged`` (what ``verify`` asks) reads no mark and judges every event from nothing, and
the club log's signed checkpoints, whose leaves are the events' digests, no longer match
a history chained anew (``ledger.proofs``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Generic, TypeVar, cast, overload

import msgspec

from ledger.judge.judging import Progress, judge_events
from ledger.judge.kinds import GAME_STARTS, Judging, Start, State, StreamState, judging_of, start_stream
from ledger.judge.stored import (
    ImpossibleEventError,
    RefusedEventError,
    a_game,
    judged_fold,
    judged_onto,
    kind_checked,
    pinpointed,
    replayed_as,
)
from ledger.store.event_store import Store
from ledger.store.retry import retried, stale_read
from ledger.store.stored import Append, BrokenChainError, ConcurrentWriteError, Reading, StoredEvent
from ledger.judge.tables import check_table_game
from ledger.vocabulary import language
from ledger.vocabulary.bridge import RubberStarted
from ledger.vocabulary.chain import GENESIS, ChainProblem
from ledger.vocabulary.events import AnyEvent, GameStarted, Joined, Substituted, event_type
from ledger.vocabulary.stream import StreamStart
from ledger.vocabulary.tournament_events import TournamentStarted
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.times import now_iso
from projections.game import GameState
from projections.recording import Effect
from projections.points import Point
from projections.trail import Cell

if TYPE_CHECKING:  # a rubber's fold is loaded by the first rubber (``judge.kinds``), a log's reader by an import
    from ledger.vocabulary.logfile import LogLine
    from projections.rubber import RubberState

_ = language._  # every text a person reads, in the language in effect

S = TypeVar("S", bound=StreamState)
T = TypeVar("T")

# What a recording command decides: given the game as it stands, the events to record,
# each computed once the one before it has been judged and folded in (a generator may
# read the state between events, as a deal line does). The state is the stream's own
# (``Command[GameState]`` for a pulka, ``Command[RubberState]`` for a rubber), and the
# command names its kind (``execute(..., kind=PULKA)``).
Command = Callable[[S], Iterable[AnyEvent]]


class Outcome(msgspec.Struct, Generic[S], frozen=True):
    """What a recording command stored: the game, whether it was created, the events,
    and the game before them (its sheet totals and verdicts), to say what they did."""

    game: str
    created: bool
    stored: list[StoredEvent]
    state: S  # the game after the new events: a GameState for a pulka, a RubberState for a rubber
    totals_before: dict[Cell, Fraction] = msgspec.field(default_factory=dict)
    effects_before: dict[int, Effect] = msgspec.field(default_factory=dict)


class Kept(msgspec.Struct):
    """A game loaded once and kept between commands: its stored events (their chain
    checked and each judged when they were read) and its fold, which each command
    recorded through it extends.
    Commands on one kept game run one at a time (a session, or a service's lock per
    game); other writers are caught by its head."""

    game: str
    stored: list[StoredEvent]
    state: State


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

    def read(self, game: str, point: Point = Point(), *, digests: bool = True) -> Reading:
        """The events of a game that a reading command needs to show it as of ``point``
        (all of them when no point is given), with their chain checked; a refusal
        naming the stored games when there is no such game.

        ``projections.report.cut`` applied to what this returns gives what it gives on
        the whole game: ``--at N`` reads events 1..N, ``--deal K`` reads up to the first
        event of a later deal, and ``--time`` (and a point that cut will refuse) reads
        everything.
        """
        return self.read_folded(game, point, digests=digests)[0]

    def read_folded(self, game: str, point: Point = Point(), *, digests: bool = True,
                    progress: Callable[[int], None] | None = None) -> tuple[Reading, State | None]:
        """``read``, and the game folded after every event it read: the fold its judging
        made (None when the chain is broken or an event refused), so that a view of what
        was read need not fold it again. The events the stream's judged mark vouches for
        (``Reading.judged``) are folded without judging; only those after them are judged.
        ``progress(done)``: told how many events are folded, a batch at a time."""
        if point.at is not None and point.at >= 1:
            reading = self.store.read(game, upto=point.at, digests=digests, marked=True)
        elif point.deal is not None and point.deal >= 0:
            reading = self.store.read(game, through_deal=point.deal, digests=digests, marked=True)
        else:
            reading = self.store.read(game, digests=digests, marked=True)
        if not reading.stored:
            raise self.unknown(game)
        a_game(game, reading.stored[0].event)
        if reading.problem is not None:
            return reading, None
        state, refused = self.judge(game, reading.events, reading.judged, progress)
        return msgspec.structs.replace(reading, refused=refused), state

    def sound(self, game: str) -> list[StoredEvent]:
        """All events of a game whose chain checks out and whose every event its judge
        takes as stored (what is shown of it or recorded onto it); [] for a stream never
        stored. ``RefusedEventError`` names an event the ledger would not have recorded."""
        return self.loaded(game)[0]

    def loaded(self, game: str) -> tuple[list[StoredEvent], State | None]:
        """A game's events, their chain checked, each judged again on the way
        (``judged_fold``), and the game after them: what a recording command continues
        from. ([], None) for a stream never stored; a stream of another kind than a game
        (a tournament, the club register) is folded by no judge here ((its events,
        None)). ``BrokenChainError`` names a break of the chain, ``RefusedEventError`` an
        event the ledger would not have recorded. The events the stream's judged mark
        vouches for are folded without judging (``judge``)."""
        reading = self.store.read(game, marked=True)
        if reading.problem is not None:
            raise BrokenChainError(game, reading.problem)
        stored = reading.stored
        try:
            judging_of(stored[0].event)
        except (Refused, IndexError):
            return stored, None
        state, problem = self.judge(game, [s.event for s in stored], reading.judged)
        if problem is not None:
            raise RefusedEventError(game, problem)
        return stored, state

    def judged(self, stream: str) -> ChainProblem | None:
        """The first event of a stream whose chain is intact (``Store.verify``) that the
        ledger would not have recorded, written with its digests computed anew: one that
        cannot be replayed, one that its judge refuses on the game before it (as
        ``import`` and ``verify --file`` judge every line), or one stored otherwise than
        the judge records it. None when there is none; for a tournament's or the club
        register's stream, None (``ledger.desks.verify`` judges a tournament with its tables).

        What ``verify`` proves: every event judged from nothing, whatever the stream's
        judged mark says (the mark is not read here)."""
        events = self.store.events(stream)
        try:
            judging_of(events[0])
        except (Refused, IndexError):
            return None
        return self.judge(stream, events, trusted=0)[1]

    def judge(self, game: str, events: list[AnyEvent], trusted: int = 0,
              progress: Callable[[int], None] | None = None) -> tuple[State | None, ChainProblem | None]:
        """``judged_fold`` of a game's events: the game after them and None, or (None, the
        first event the ledger would not have recorded as stored). An event that makes
        the judging itself fail (one the fold cannot take, or whose sheet cannot be read)
        is found by the replay to the sheet, by halving, as a reading command finds it.
        ``trusted``: how many first events the judged mark vouches for (``Reading.judged``):
        folded, not judged again; should their fold fail, every event is judged."""
        if trusted:
            try:
                return judged_fold(game, events, self.clock, trusted, progress)
            except Exception:
                pass  # judged from the start below, which names the event
        try:
            return judged_fold(game, events, self.clock, progress=progress)
        except Exception:
            judging = judging_of(events[0])
            try:
                pinpointed(game, events, judging.totals)
            except ImpossibleEventError as exc:
                return None, ChainProblem(exc.number, str(exc))
            raise

    def replayed(self, game: str, events: list[AnyEvent]) -> State:
        """The game after ``events`` (folded by its kind), or a refusal naming the first
        event that cannot be replayed (``ImpossibleEventError``)."""
        return judging_of(events[0]).run(replayed_as, game, events)

    def unknown(self, game: str) -> Refused:
        """No game of that name: the stored games named (a tournament and the club
        register are not games, and are not listed as such)."""
        known = self.store.games(GAME_STARTS)
        hint = _("; stored games: {games}").format(games=", ".join(known)) if known else _("; it has no games yet")
        tournaments = self.store.games(TournamentStarted)
        if tournaments:
            hint += _(" (tournaments, `pulka tournament …`: {tournaments})").format(tournaments=", ".join(tournaments))
        return Refused("event-log", _("no game named {game} in the store {store}{hint}").format(
            game=repr(game), store=self.store.description, hint=hint))

    def state(self, game: str) -> State:
        """The stored game folded: a GameState for a pulka, a RubberState for a rubber."""
        reading = self.store.read(game)
        if not reading.stored:
            raise self.unknown(game)
        a_game(game, reading.stored[0].event)
        return self.replayed(game, reading.events)

    def keep(self, game: str) -> Kept:
        """The game loaded once, its chain checked and its events judged, to record into
        again and again (``execute(..., kept=)``)."""
        stored, state = self.loaded(game)
        if not stored:
            raise self.unknown(game)
        a_game(game, stored[0].event)
        assert state is not None  # a game's stream is folded by its kind
        return Kept(game, stored, state)

    def renewed(self, kept: Kept) -> Kept:
        """``kept`` when nobody has written to its game since; when someone has, ``kept``
        with only the new events read (``Store.tail``: chained to its last one) and
        judged onto it as ``loaded`` judges every event, so that following another's
        writes costs what they wrote; else (the new events do not chain on, or are not
        as the ledger records them) the game loaded again, which names what is wrong."""
        found = self.store.count(kept.game)
        if found == len(kept.stored):
            return kept
        tail = self.store.tail(kept.game, kept.stored[-1]) if found > len(kept.stored) else None
        if tail:
            judging = judging_of(kept.stored[0].event)
            try:
                problem = judging.run(judged_onto, kept.state, kept.game, [(s.number, s.event) for s in tail],
                                      self.clock)
            except Exception:  # an event the fold cannot take: the whole load names it
                return self.keep(kept.game)
            if problem is not None:
                return self.keep(kept.game)
            kept.stored.extend(tail)
            return kept
        return self.keep(kept.game)

    # -- recording: load, decide, save ---------------------------------------------------

    @overload
    def execute(self, game: str, command: Command[S], expected: int | None = None, *,
                kind: Judging[S], kept: Kept | None = None) -> Outcome[S]: ...

    @overload
    def execute(self, game: str, command: Command[State], expected: int | None = None,
                kind: None = None, kept: Kept | None = None) -> Outcome[GameState] | Outcome[RubberState]: ...

    def execute(self, game: str, command: Command[S] | Command[State], expected: int | None = None,
                kind: Judging[S] | None = None,
                kept: Kept | None = None) -> Outcome[S] | Outcome[GameState] | Outcome[RubberState]:
        """Record what ``command`` decides on the stored game: one load, one replay, each
        new event judged once, one save. ``expected``: the number of events the caller
        saw (in a preview); when the game has more by now, nothing is stored. A command
        that reads the state of one kind names its ``kind`` (``Command[S]``; it is refused
        on a game of another kind); one that names none takes the state of any kind.
        ``kept``: the game as loaded before (``keep``), read again only as far as its head:
        when someone else has written to it since, nothing is stored."""
        if kept is not None and kept.game == game:
            return self._decide_kept(kept, command, expected, kind)
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
        return retried(lambda seen: self._decide_once(game, command, seen if seen is not None else expected,
                                                      save, kind))

    def _decide_once(self, game: str, command: Command[S] | Command[State], expected: int | None, save: bool,
                     kind: Judging[S] | None) -> Outcome[S] | Outcome[GameState] | Outcome[RubberState]:
        stored, state = self.loaded(game)
        if not stored:
            raise self.unknown(game)
        a_game(game, stored[0].event)
        if expected is not None and len(stored) != expected:
            raise ConcurrentWriteError(game, expected, len(stored))
        judging = judging_of(stored[0].event)
        if kind is None:
            return judging.run(self._decided, game, stored, state, cast("Command[State]", command), save)
        kind_checked(game, judging, kind)
        return self._decided(kind, game, stored, state, cast("Command[S]", command), save)

    def _decided(self, judging: Judging[S], game: str, stored: list[StoredEvent], loaded: StreamState | None,
                 command: Command[S], save: bool) -> Outcome[S]:
        """The one load's judged fold (``loaded``), the command's events judged in order,
        and the save."""
        state = cast(S, loaded)  # folded by the kind of its first event, which is ``judging``
        before, effects = judging.cells(state), dict(state.effects)
        new, read = self._judged(game, judging, state, command)
        if save:
            saved = stale_read(len(stored), lambda: self.store.append(
                game, new, expected=len(stored), previous=stored[-1].digest, unchanged=read, judged=True)) if new else []
        else:
            saved = [StoredEvent(n, e, "") for n, e in enumerate(new, start=len(stored) + 1)]
        return Outcome(game, False, saved, state, before, effects)

    def judged_against(self, game: str, state: StreamState | None, new: Sequence[AnyEvent]) -> dict[str, int]:
        """Refuse ``new`` events of ``game`` (``state``: the game after them) that the
        streams it depends on do not allow: a pulka's tournament
        (``tables.check_table_game``), and the club's register for a player seated
        (``register.one_person_once``). What was read of them, with the count of events of
        each, which must be unchanged when ``new`` is stored."""
        pulka = state if isinstance(state, GameState) else None
        read = check_table_game(self.store, game, pulka, new)
        if any(isinstance(e, StreamStart | Joined | Substituted) for e in new):
            # Only a command that seats someone reads the register (a deal loads none of it).
            from ledger.judge.register import one_person_once

            read |= one_person_once(self.store, new, pulka)
        return read

    def _decide_kept(self, kept: Kept, command: Command[S] | Command[State], expected: int | None,
                     kind: Judging[S] | None) -> Outcome[S] | Outcome[GameState] | Outcome[RubberState]:
        """``_decide`` on a kept game: its head is read instead of the whole game, and a
        command refused (or not stored) leaves the kept fold as it was."""
        game, stored = kept.game, kept.stored
        found = self.store.count(game)
        if found != len(stored) or (expected is not None and expected != found):
            raise ConcurrentWriteError(game, len(stored) if expected is None else expected, found)
        judging = judging_of(stored[0].event)
        if kind is None:
            return judging.run(self._kept_decided, kept, cast("Command[State]", command))
        kind_checked(game, judging, kind)
        return self._kept_decided(kind, kept, cast("Command[S]", command))

    def _kept_decided(self, judging: Judging[S], kept: Kept, command: Command[S]) -> Outcome[S]:
        game, stored = kept.game, kept.stored
        state = cast(S, kept.state)  # folded by the kind of its first event, which is ``judging``
        before, effects = judging.cells(state), dict(state.effects)
        try:
            new, read = self._judged(game, judging, state, command)
            saved = stale_read(len(stored), lambda: self.store.append(
                game, new, expected=len(stored), previous=stored[-1].digest, unchanged=read, judged=True)) if new else []
        except BaseException:
            kept.state = self.replayed(game, [s.event for s in stored])  # the events judged so far are folded in
            raise
        stored.extend(saved)
        return Outcome(game, False, saved, state, before, effects)

    def _judged(self, game: str, judging: Judging[S], state: S,
                command: Command[S]) -> tuple[list[AnyEvent], dict[str, int]]:
        """The events ``command`` decides, each judged and folded into ``state``, and
        judged against the streams the game depends on (``judged_against``), with what
        was read of those."""
        new = judge_events(state, judging.decide, ((None, e) for e in command(state)), self.clock)
        return new, self.judged_against(game, state, new)

    def record_lines(
        self, lines: Sequence[tuple[int, AnyEvent]], progress: Progress | None = None
    ) -> Outcome[GameState] | Outcome[RubberState]:
        """Judge and store a whole log: a new game, or events appended to one. A log that
        appends begins with the stored start; when it gives the start's time, the same."""
        first_line, first = lines[0]
        judging, started = start_stream(first_line, first, self.clock)
        return judging.run(self._record, started, first_line, lines[1:], progress, first.at)

    def record_stream(self, lines: Iterator[LogLine], progress: Progress | None = None,
                      total: int = 0) -> Outcome[GameState] | Outcome[RubberState]:
        """Judge and store the log of a new game read a line at a time (``import`` of a
        long log): each line judged as it comes and let go of, its events stored in
        bounded batches within one transaction once every line is judged. What it keeps
        is the game's fold and the judged events it holds, nothing of the file.

        ``NotStreamed`` (nothing read is lost: the caller reads the log again whole) for
        what only the whole log can say: a game stored already (a log that appends), an
        export whose digests are missing on a line or do not chain (named as ``import``
        names them). A refusal by the judge names its line as ``record_lines`` does."""
        from ledger.vocabulary.logfile import NotAsExported, checked_export

        checked = checked_export(lines)
        try:
            first = next(checked)
            judging, started = start_stream(first.line, first.event, self.clock)
        except NotAsExported as exc:
            raise NotStreamed(f"line {exc}") from None
        if self.store.count(started.game):
            raise NotStreamed(f"{started.game!r} is stored already")
        return judging.run(self._streamed, started, checked, progress, total)

    def _streamed(self, judging: Judging[S], started: Start, checked: Iterator[LogLine], progress: Progress | None,
                  total: int) -> Outcome[S]:
        from ledger.vocabulary.logfile import NotAsExported

        state = judging.fold([started])
        new: list[AnyEvent] = [started]
        try:
            new += judge_events(state, judging.decide, ((line.line, line.event) for line in checked), self.clock,
                                progress, total=total)
        except NotAsExported as exc:
            raise NotStreamed(f"line {exc}") from None
        read = self.judged_against(started.game, state, new)
        from ledger.views.archive import ensure_views

        ensure_views(self.store)
        saved = self.store.append(started.game, new, expected=0, previous=GENESIS, unchanged=read, judged=True)
        return Outcome(started.game, True, saved, state)

    @overload
    def create(self, event: GameStarted) -> Outcome[GameState]: ...

    @overload
    def create(self, event: RubberStarted) -> Outcome[RubberState]: ...

    def create(self, event: Start) -> Outcome[GameState] | Outcome[RubberState]:
        """Start a game from the command line (no file, so no line numbers)."""
        judging, started = start_stream(None, event, self.clock)
        return judging.run(self._record, started, None, [], None)

    @overload
    def create_all(self, events: Sequence[GameStarted]) -> list[Outcome[GameState]]: ...

    @overload
    def create_all(self, events: Sequence[Start]) -> list[Outcome[GameState] | Outcome[RubberState]]: ...

    def create_all(
        self, events: Sequence[Start]
    ) -> list[Outcome[GameState]] | list[Outcome[GameState] | Outcome[RubberState]]:
        """Start several games from the command line (a tournament's tour) in one
        transaction: all of them, or none."""
        return retried(lambda seen: self._create_all_once(events))

    def _create_all_once(self, events: Sequence[Start]) -> list[Outcome[GameState] | Outcome[RubberState]]:
        appends: list[Append] = []
        outcomes: list[Outcome[GameState] | Outcome[RubberState]] = []
        read: dict[str, int] = {}
        for event in events:
            judging, started = start_stream(None, event, self.clock)
            if self.store.count(started.game):
                raise Refused("event-log", _("game {game} exists already").format(game=repr(started.game)),
                              _("another name"))
            outcome = judging.run(_created, started)
            read |= self.judged_against(started.game, outcome.state, [started])
            appends.append(Append(started.game, [started], 0, GENESIS, judged=True))
            outcomes.append(outcome)
        from ledger.views.archive import ensure_views

        ensure_views(self.store)
        saved = stale_read(0, lambda: self.store.append_all(appends, unchanged=read))
        return [msgspec.structs.replace(outcome, stored=stored) for outcome, stored in zip(outcomes, saved, strict=True)]

    def _record(
        self,
        judging: Judging[S],
        started: Start,
        first_line: int | None,
        rest: Sequence[tuple[int, AnyEvent]],
        progress: Progress | None,
        given_at: str | None = None,
    ) -> Outcome[S]:
        return retried(lambda seen: self._record_once(judging, started, first_line, rest, progress, seen, given_at))

    def _record_once(
        self,
        judging: Judging[S],
        started: Start,
        first_line: int | None,
        rest: Sequence[tuple[int, AnyEvent]],
        progress: Progress | None,
        expected: int | None,
        given_at: str | None = None,
    ) -> Outcome[S]:
        stored, loaded = self.loaded(started.game)
        if expected is not None and len(stored) != expected:
            raise ConcurrentWriteError(started.game, expected, len(stored))
        if stored:
            existing = stored[0].event
            if not isinstance(existing, GAME_STARTS):
                if isinstance(existing, TournamentStarted):
                    why = _("{game} is a tournament, not a game: a game's log cannot be stored under its name")
                else:
                    why = _("{game} is the club register, not a game: a game's log cannot be stored under its name")
                refused = Refused("event-log", why.format(game=repr(started.game)),
                                  _("another name in the file's first line"))
                refused.line = first_line
                raise refused
            if not isinstance(existing, type(started)) or not judging.same_start(existing, started):
                refused = Refused(
                    "event-log",
                    _("game {game} is stored with a different {type} line; a file that appends must begin with the "
                      "stored one (see `pulka export`)").format(game=repr(started.game), type=event_type(existing)),
                )
                refused.line = first_line
                raise refused
            if given_at is not None and given_at != existing.at:
                refused = Refused(
                    "event-log",
                    _("game {game} was started at {at}, and the file's {type} line says {given}: a file that "
                      "appends must begin with the stored start").format(
                        game=repr(started.game), at=existing.at, type=event_type(existing), given=given_at),
                    _("the line as `pulka export {game}` writes it, or without its time").format(game=started.game),
                )
                refused.line = first_line
                raise refused
            state = cast(S, loaded)  # folded by the kind of its first event, which is ``judging``
            new: list[AnyEvent] = []
        else:
            state = judging.fold([started])
            new = [started]
        new += judge_events(state, judging.decide, rest, self.clock, progress, total=len(rest))
        read = self.judged_against(started.game, state, new)
        if not stored:
            # The views' machinery (eventsourcing's projections) is needed only when a
            # stream is created: a deal recorded into a game never loads it.
            from ledger.views.archive import ensure_views

            ensure_views(self.store)
        previous = stored[-1].digest if stored else GENESIS
        saved = stale_read(len(stored), lambda: self.store.append(
            started.game, new, expected=len(stored), previous=previous, unchanged=read, judged=True)) if new else []
        return Outcome(started.game, not stored, saved, state)


class NotStreamed(Exception):
    """A log that ``record_stream`` cannot judge a line at a time: the caller reads it
    whole (``record_lines``), which says what is wrong with it, if anything."""



def _created(judging: Judging[S], started: Start) -> Outcome[S]:
    """A game just started: its first event folded (stored with the others)."""
    return Outcome(started.game, True, [], judging.fold([started]))

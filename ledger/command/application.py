"""The ledger application: every command is one load, one decision, one save.

``Ledger`` joins the command side (``judge``, ``rubber``) to the event store
(``store``). Each recording command, whether a table command, a deal line, a
correction or a whole imported file, goes through ``Ledger.execute``: the game's
events are read once and replayed once, each new event is judged once against the
state it will be applied to (``judging.judge_events``, with the ``decide`` of the
stream's kind: ``kinds.judging_of`` its first event), and all of them are stored in
one transaction, or none. A concurrent writer is caught by the store's optimistic
concurrency.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ledger.command.judge import same_start as same_start
from ledger.command.judging import Progress, judge_events
from ledger.command.kinds import PULKA, Judging, Start, judging_of, start_stream
from ledger.command.store import ConcurrentWriteError, Store, StoredEvent
from ledger.command.tables import check_table_game
from ledger.command.views import ensure_views
from ledger.vocabulary.club import ClubStarted
from ledger.vocabulary.events import AnyEvent, event_type
from ledger.vocabulary.tournament import TournamentStarted
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.times import now_iso
from projections.recording import Effect
from projections.trail import Cell

# What a recording command decides: given the game as it stands, the events to record,
# each computed once the one before it has been judged and folded in (a generator may
# read the state between events, as a deal line does). The state is the stream's own
# (a ``GameState`` for a pulka, a ``RubberState`` for a rubber): a command that reads
# it names the kind it expects (``execute(..., kind=PULKA)``).
Command = Callable[[Any], Iterable[AnyEvent]]


@dataclass(frozen=True)
class Outcome:
    """What a recording command stored: the game, whether it was created, the events,
    and the game before them (its sheet totals and verdicts), to say what they did."""

    game: str
    created: bool
    stored: list[StoredEvent]
    state: Any  # the game after the new events: a GameState, a RubberState
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
        first = stored[0].event
        if isinstance(first, TournamentStarted | ClubStarted):
            raise Refused("event-log", f"{game!r} is {'a tournament' if isinstance(first, TournamentStarted) else 'the club register'}, not a game",
                          "pulka tournament … for a tournament" if isinstance(first, TournamentStarted) else "a game's name")
        return stored

    def unknown(self, game: str) -> Refused:
        known = self.store.games()
        hint = f"; stored games: {', '.join(known)}" if known else "; the store has no games yet"
        return Refused("event-log", f"no game named {game!r}{hint}")

    def state(self, game: str) -> Any:
        """The stored game folded: a GameState for a pulka, a RubberState for a rubber."""
        stored = [s.event for s in self.events(game)]
        return judging_of(stored[0]).fold(stored)

    # -- recording: load, decide, save ---------------------------------------------------

    def execute(self, game: str, command: Command, expected: int | None = None,
                kind: Judging[Any] | None = None) -> Outcome:
        """Record what ``command`` decides on the stored game: one load, one replay, each
        new event judged once, one save. ``expected``: the number of events the caller
        saw (in a preview); when the game has more by now, nothing is stored. A command
        that reads the state names its ``kind``; it is refused on a game of another kind."""
        return self._decide(game, command, expected, save=True, kind=kind)

    def preview(self, game: str, command: Command, kind: Judging[Any] | None = None) -> Outcome:
        """What ``execute`` would record, judged and folded by the same judge and
        projection, without saving: the events numbered as they would be, no digests."""
        return self._decide(game, command, None, save=False, kind=kind)

    def _decide(self, game: str, command: Command, expected: int | None, save: bool,
                kind: Judging[Any] | None) -> Outcome:
        stored = self.events(game)
        if expected is not None and len(stored) != expected:
            raise ConcurrentWriteError(game, expected, len(stored))
        judging = judging_of(stored[0].event)
        if kind is not None and judging is not kind:
            raise Refused("event-log", f"{game!r} is a {judging.name}, not a {kind.name}",
                          "the commands of a rubber: pulka bridge ..." if judging.name == "rubber"
                          else "the commands of a pulka")
        state = judging.fold([s.event for s in stored])
        before, effects = judging.cells(state), dict(state.effects)
        new = judge_events(state, judging.decide, ((None, e) for e in command(state)), self.clock)
        check_table_game(self.store, game, state if judging is PULKA else None, new)
        if save:
            saved = self.store.append(game, new, expected=len(stored)) if new else []
        else:
            saved = [StoredEvent(n, e, "") for n, e in enumerate(new, start=len(stored) + 1)]
        return Outcome(game, False, saved, state, before, effects)

    def record_lines(
        self, lines: Sequence[tuple[int, AnyEvent]], progress: Progress | None = None
    ) -> Outcome:
        """Judge and store a whole log: a new game, or events appended to one."""
        first_line, first = lines[0]
        judging, started = start_stream(first_line, first, self.clock)
        return self._record(judging, started, first_line, lines[1:], progress)

    def create(self, event: Start) -> Outcome:
        """Start a game from the command line (no file, so no line numbers)."""
        judging, started = start_stream(None, event, self.clock)
        return self._record(judging, started, None, [], None)

    def _record(
        self,
        judging: Judging[Any],
        started: Start,
        first_line: int | None,
        rest: Sequence[tuple[int, AnyEvent]],
        progress: Progress | None,
    ) -> Outcome:
        stored = self.store.load(started.game)
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
            state = judging.fold([s.event for s in stored])
            new: list[AnyEvent] = []
        else:
            state = judging.fold([started])
            new = [started]
        new += judge_events(state, judging.decide, rest, self.clock, progress, total=len(rest))
        check_table_game(self.store, started.game, state if judging is PULKA else None, new)
        if not stored:
            ensure_views(self.store)
        saved = self.store.append(started.game, new, expected=len(stored)) if new else []
        return Outcome(started.game, not stored, saved, state)

"""The ledger application: every command is one load, one decision, one save.

``Ledger`` joins the command side (``judge``) to the event store (``store``). Each
recording command, whether a table command, a deal line, a correction or a whole
imported file, goes through ``Ledger.execute``: the game's events are read once and
replayed once, each new event is judged once against the state it will be applied to
(``judge.judge_into``), and all of them are stored in one transaction, or none. A
concurrent writer is caught by the store's optimistic concurrency.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ledger.command.judge import Progress, judge_into, start_log
from ledger.command.store import ConcurrentWriteError, Store, StoredEvent
from ledger.vocabulary.events import AnyEvent, GameStarted
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.times import now_iso
from projections.audit import Cell, totals
from projections.game import GameState, replay
from projections.recording import Effect

# What a recording command decides: given the game as it stands, the events to record,
# each computed once the one before it has been judged and folded in (a generator may
# read the state between events, as a deal line does).
Command = Callable[[GameState], Iterable[AnyEvent]]


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

    def unknown(self, game: str) -> Refused:
        known = self.store.games()
        hint = f"; stored games: {', '.join(known)}" if known else "; the store has no games yet"
        return Refused("event-log", f"no game named {game!r}{hint}")

    def state(self, game: str) -> GameState:
        return replay([s.event for s in self.events(game)])

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
        stored = self.events(game)
        if expected is not None and len(stored) != expected:
            raise ConcurrentWriteError(game, expected, len(stored))
        state = replay([s.event for s in stored])
        before, effects = totals(state.sheet()), dict(state.effects)
        new = judge_into(state, ((None, e) for e in command(state)), self.clock)
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
        stored = self.store.load(started.game)
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
            state = replay([s.event for s in stored])
            new: list[AnyEvent] = []
        else:
            state = GameState.start(started)
            new = [started]
        new += judge_into(state, rest, self.clock, progress, total=len(rest))
        saved = self.store.append(started.game, new, expected=len(stored)) if new else []
        return Outcome(started.game, not stored, saved, state)

"""Recording events: read a log, judge every line, store all of it or nothing.

``Ledger`` joins the command side (``ledger.commands``) to the event store
(``ledger.store``). A refused line stops the whole import before anything is
written; a concurrent writer is caught by the store's optimistic concurrency.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar
from datetime import datetime, timezone

import msgspec

from ledger.chain import verify_chain
from ledger.commands import Refused, decide, start
from ledger.events import AnyEvent, EventFormatError, GameStarted, decode_event, event_from_dict, event_to_dict
from projections.game import GameState, replay

if TYPE_CHECKING:
    from ledger.store import Store, StoredEvent

Progress = Callable[[int, int], None]
T = TypeVar("T")


def parse_log(text: str) -> list[tuple[int, AnyEvent]]:
    """The events of a JSON Lines log with their line numbers; blank lines are skipped."""
    return [(line, event) for line, event, _ in parse_export(text)]


def parse_export(text: str) -> list[tuple[int, AnyEvent, str | None]]:
    """Like ``parse_log``, keeping the ``digest`` an export writes beside each event."""
    events = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        digest = None
        try:
            if '"digest"' in line:
                data = msgspec.json.decode(line)
                if not isinstance(data, dict):
                    raise EventFormatError("a line must be a JSON object")
                digest = data.pop("digest", None)
                event = event_from_dict(data)
            else:
                event = decode_event(line)
        except (EventFormatError, msgspec.DecodeError) as exc:
            refused = Refused("event-log", str(exc))
            refused.line = number
            raise refused from None
        events.append((number, event, digest if isinstance(digest, str) else None))
    if not events:
        raise Refused("event-log", "the log is empty", "a game_started line, then the game's events")
    return events


def check_export(lines: Sequence[tuple[int, AnyEvent, str | None]]) -> None:
    """An export whose every line carries its digest must still form an unbroken chain:
    an export edited by hand is refused, naming the first line that does not check out."""
    if not lines or any(digest is None for _, _, digest in lines):
        return
    first = lines[0][1]
    game = first.game if isinstance(first, GameStarted) else ""
    problem = verify_chain(game, [(i, e, d or "") for i, (_, e, d) in enumerate(lines, start=1)])
    if problem is not None:
        refused = Refused("event-log", f"the export's digest chain breaks here: {problem}",
                          "an export as `pulka export` wrote it, or the log without its digest fields")
        refused.line = lines[problem.number - 1][0]
        raise refused


def export_line(event: AnyEvent, digest: str) -> str:
    """One line of ``pulka export``: the event as stored, and its chain digest."""
    data = event_to_dict(event)
    data["digest"] = digest
    return msgspec.json.encode(data).decode()


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Recorded:
    game: str
    created: bool
    stored: list[StoredEvent]


def same_start(a: GameStarted, b: GameStarted) -> bool:
    """A file that appends must begin with the stored game's own game_started."""
    keys = ("game", "players", "pulya", "stake", "first_dealer", "rule_set")
    return all(getattr(a, k) == getattr(b, k) for k in keys)


def _at_line(line: int, judge: Callable[[], T]) -> T:
    """Run a judgement, naming the file's line in a refusal."""
    try:
        return judge()
    except Refused as exc:
        exc.line = line
        raise


def _judge_into(
    state: GameState,
    lines: Sequence[tuple[int, AnyEvent]],
    out: list[AnyEvent],
    clock: Callable[[], str],
    progress: Progress | None = None,
    lines_known: bool = True,
) -> None:
    """Judge each event in turn, folding it in, so the next is judged on the new state.
    An event without a time gets the clock's, or the previous event's when that is later."""
    stamp = clock()
    total = len(lines)
    last_at = _last_time(state)
    for i, (line, event) in enumerate(lines, start=1):
        if event.at is None:
            later = last_at is None or datetime.fromisoformat(stamp) >= datetime.fromisoformat(last_at)
            event = msgspec.structs.replace(event, at=stamp if later else last_at)
        if lines_known:
            judged = _at_line(line, lambda: decide(state, event))
        else:
            judged = decide(state, event)
        state.apply(judged)
        out.append(judged)
        last_at = judged.at
        if progress is not None and (i % 500 == 0 or i == total):
            progress(i, total)


def check_log(lines: Sequence[tuple[int, AnyEvent]], clock: Callable[[], str] = now_iso) -> list[AnyEvent]:
    """Judge a whole log without a store: the events as they would be stored."""
    first_line, first = lines[0]
    started = _at_line(first_line, lambda: start(first))
    if started.at is None:
        started = msgspec.structs.replace(started, at=clock())
    out: list[AnyEvent] = [started]
    _judge_into(GameState.start(started), lines[1:], out, clock)
    return out


class Ledger:
    def __init__(self, store: Store, clock: Callable[[], str] = now_iso) -> None:
        self.store = store
        self.clock = clock

    def events(self, game: str) -> list[StoredEvent]:
        """The stored events of a game, or a refusal naming the stored games."""
        stored = self.store.load(game)
        if not stored:
            known = self.store.games()
            hint = f"; stored games: {', '.join(known)}" if known else "; the store has no games yet"
            raise Refused("event-log", f"no game named {game!r}{hint}")
        return stored

    def state(self, game: str) -> GameState:
        return replay([s.event for s in self.events(game)])

    def record_lines(
        self, lines: Sequence[tuple[int, AnyEvent]], progress: Progress | None = None
    ) -> Recorded:
        """Judge and store a whole log: a new game, or events appended to one."""
        first_line, first = lines[0]
        started = _at_line(first_line, lambda: start(first))
        return self._record(started, first_line, lines[1:], progress)

    def create(self, event: GameStarted) -> Recorded:
        """Start a game from the command line (no file, so no line numbers)."""
        return self._record(start(event), None, [], None)

    def _record(
        self,
        started: GameStarted,
        first_line: int | None,
        rest: Sequence[tuple[int, AnyEvent]],
        progress: Progress | None,
    ) -> Recorded:
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
            if started.at is None:
                started = msgspec.structs.replace(started, at=self.clock())
            state = GameState.start(started)
            new = [started]
        _judge_into(state, rest, new, self.clock, progress)
        if not new:
            return Recorded(started.game, False, [])
        result = self.store.append(started.game, new, expected=len(stored))
        return Recorded(started.game, not stored, result)

    def append(self, game: str, events: Iterable[AnyEvent]) -> list[StoredEvent]:
        """Judge and store events for a stored game (the scorer's commands)."""
        stored = self.events(game)
        new: list[AnyEvent] = []
        state = replay([s.event for s in stored])
        _judge_into(state, list(enumerate(events, start=1)), new, self.clock, lines_known=False)
        return self.store.append(game, new, expected=len(stored))


def _last_time(state: GameState) -> str | None:
    for event in reversed(state.events):
        if event.at is not None:
            return event.at
    return None

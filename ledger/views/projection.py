"""The archive's projection: an ``eventsourcing.projection.Projection`` that follows the
store's event order (``ArchiveProjection``), and the runner that drives it
(``ArchiveRunner``, eventsourcing's projection runner on the store's application).

For each stored event the projection folds the event into its game
(``projections.archive.game_result``) and gives what changed (``recorders.Change``) to
the view, which writes it with the event's position, through its tracking recorder, in
one transaction. After a crash nothing half-done remains, and the next runner starts
after the last position saved.

Each game a save touches is counted for its players as it then stands
(``projections.stats.counted_text``, each deal's story in every reader's language:
``stories_text``), written in the same transaction (``recorders.StatsRow``), with
each person's totals over his pulkas moved by it (``ledger.views.totals``).

Only events whose chain holds are taken in, each checked as ``verify`` checks it: at
the first that is not, the stream is left out of the views from there on.

And a game's events are counted (its results, and so the rating; its players' counts
and stories) only judged, as a read judges them (``judged``, at each save): what the
game's judged mark vouches for (``Mark``: written by pulka in the transaction that
stored the events) is not judged again, what it does not is judged once
(``ledger.judge.stored.judged_fold``), and a game with an event the judge refuses (one
the ledger would not have recorded, written outside pulka with its digests computed
anew) is left out as a broken chain is, by that event's number.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from uuid import UUID

from eventsourcing.persistence import Mapper, Tracking
from eventsourcing.projection import BaseProjectionRunner, Projection

from ledger.judge.stored import judged_fold
from ledger.store.backend import Mark
from ledger.store.stored import game_id
from ledger.store.records import LedgerApplication, Opened, Recorded
from ledger.views.recorders import (AliasRow, ArchiveView, BrokenRow, Change, ClockRow, GameRow, KnownRow, ModelRow,
                                    ResultRow, StatsRow, TournamentRow)
from ledger.vocabulary.chain import GENESIS, ChainProblem, link, link_of, verify_chain
from ledger.vocabulary import language
from ledger.vocabulary.club import PlayerAliased, RatingModelChosen
from ledger.vocabulary.events import GameStarted, StreamStart
from ledger.vocabulary.times import TimeFormatError, now_iso, utc_micros
from ledger.vocabulary.tournament_events import TournamentStarted, parse_table_game
from projections.archive import GameResult, deals_done, game_result, may_change_result
from projections.game import GameState, replay
from projections.stats import counted_text, seated_persons, stories_text

# Games whose folded state a projection keeps in memory between events.
GAMES_KEPT = 256


class EventSource(Protocol):
    """Where the projection reads a stream's earlier records when it meets it mid-way (or
    judges them), and the stream's judged mark."""

    def load(self, stream: UUID, upto: int, after: int = 0) -> list[Recorded]: ...

    def mark(self, stream: UUID) -> Mark | None: ...


@dataclass
class _Stream:
    name: str
    state: GameState | None = None  # a game's fold; None for other kinds of stream
    result: GameResult | None = None
    cap: int | None = None
    count: int = 0  # the number of the last event taken in
    digest: str = GENESIS  # and its digest, which the next event must be chained to
    broken: bool = False  # its chain broke: nothing more of it is read
    judged: int = 0  # how many of its first events are known judged (by its mark, or here)


class ArchiveProjection(Projection[Any]):
    """Every game's result after each event that changed it, the tournaments' deal caps
    and the aliases, from the store's notification log in order."""

    name = "Archive"
    topics = ()

    def __init__(self, view: Any, source: EventSource) -> None:
        super().__init__(view=view)
        self.source = source
        self.streams: OrderedDict[UUID, _Stream] = OrderedDict()
        self.caps: dict[str, int | None] = {}
        self.pending: list[Change] = []  # changes not yet saved, of ``unsaved`` events
        # The games those events changed: their players' counts are made once, as they are saved.
        self.counted: dict[UUID, _Stream] = {}
        self.unsaved = 0
        self.batch = 1  # save after this many events (a follower: every event)
        self.flush_at: int | None = None  # and at this position (the end of a catch-up)
        self.processed = 0
        # The latest time of any event taken in: what the store held by then. An event
        # stored after another was not known before it, whatever time it records (an
        # old sheet imported), so each event is known from the latest time so far.
        self.known: int | None = None

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        """Fold one stored event in; save what changed with its position, now or (while
        catching up) with the batch it ends, in one transaction."""
        assert isinstance(domain_event, Recorded), domain_event
        if self.known is None:
            saved = self.view.select("SELECT known_utc FROM {archive_clock}")
            self.known = int(saved[0][0]) if saved else 0
        at = domain_event.event.at
        if at is not None:
            self.known = max(self.known, _micros(at))
        self.pending.extend(self.changes(domain_event))
        self.unsaved += 1
        self.processed += 1
        if self.unsaved >= self.batch or (self.flush_at is not None and tracking.notification_id >= self.flush_at):
            self.pending.extend(self.judged())
            self.view.write([*self.pending, *self.counts(), ClockRow(self.known)], tracking)
            self.pending = []
            self.unsaved = 0

    def changes(self, record: Recorded) -> list[Change]:
        """What one stored event changes in the view (the pure part is ``projections.archive``).

        Only events whose chain holds are read: each must be chained to the one before
        it in its stream, as ``verify`` checks. At the first that is not (a row edited
        without its digest computed anew, a row deleted), or that the fold cannot take,
        the stream is left out from there on (``BrokenRow``): a game whole, the club
        register's later aliases."""
        version = record.originator_version
        if version == 1:
            stream = _Stream(_name_of(record) or f"stream {record.originator_id}")
        else:
            stream, problem = self._stream(record.originator_id, version)
            if problem is not None:
                return self._broken(record.originator_id, stream, problem)
            if stream.broken:
                return []
        problem = _follows(stream, record)
        if problem is not None:
            return self._broken(record.originator_id, stream, problem)
        stream.count, stream.digest = version, record.digest
        try:
            return self._taken(record, stream)
        except Exception as exc:  # the fold cannot take it: an event the ledger would not have recorded
            return self._broken(record.originator_id, stream, ChainProblem(
                version, f"event {version} cannot be replayed ({type(exc).__name__}: {exc})"))

    def judged(self) -> list[Change]:
        """The games of this save judged up to the last event taken in (``judged_game``):
        each that holds an event the judge refuses is left out from it (``BrokenRow``),
        so that neither its results nor its counts are kept."""
        changes: list[Change] = []
        for stream_id, stream in self.counted.items():
            if stream.state is None or stream.broken:
                continue
            problem = self.judged_game(stream_id, stream)
            if problem is not None:
                changes += self._broken(stream_id, stream, problem)
        return changes

    def judged_game(self, stream_id: UUID, stream: _Stream) -> ChainProblem | None:
        """Why the game's events taken in so far are not all ones the ledger would have
        recorded (the first the judge refuses), or None.

        What the game's judged mark vouches for is not judged again: a mark of event
        ``judged`` >= those taken in, stored with that event's digest (its chain up to the
        events taken in was checked on the way here, and the rest is checked as it comes,
        the stream left out where it breaks). That is the usual case, pulka marking what
        it stores: one small read. Otherwise (events stored outside pulka, a copy, which
        carries no marks) the game's stored events are judged once, only those beyond the
        mark (or beyond what was judged here before) when it is the stored digest of its
        event."""
        count = stream.count
        if stream.judged >= count:
            return None
        mark = self.source.mark(stream_id)
        if mark is not None and mark.judged >= count:
            digest = stream.digest if mark.judged == count else next(
                (r.digest for r in self.source.load(stream_id, mark.judged, after=mark.judged - 1)), None)
            if digest == mark.digest:
                stream.judged = count
                return None
        records = self.source.load(stream_id, count)
        problem = _chain_problem(stream.name, records, count)
        if problem is None and records[-1].digest != stream.digest:
            problem = ChainProblem(count, f"event {count}: changed since the views took it in (edited?)")
        if problem is not None:
            return problem
        trusted = stream.judged
        if mark is not None and mark.judged <= count and records[mark.judged - 1].digest == mark.digest:
            trusted = max(trusted, mark.judged)
        with language.using(language.DEFAULT):  # the reason is stored (``archive_broken``): in English
            try:
                _, problem = judged_fold(stream.name, [r.event for r in records], now_iso, trusted)
            except Exception as exc:  # what the judge cannot take: an event the ledger would not have recorded
                problem = ChainProblem(trusted + 1, f"events {trusted + 1}-{count} cannot be judged "
                                                    f"({type(exc).__name__}: {exc})")
        if problem is None:
            stream.judged = count
        return problem

    def counts(self) -> list[StatsRow]:
        """What the deals and records of each game changed since the last save gave each
        person who held a seat in it (``projections.stats.pulka_counts``), as it stands now."""
        rows = []
        for stream in self.counted.values():
            state = stream.state
            if state is None or stream.broken:
                continue
            try:
                counted = tuple((person, *counted_text(state, person))
                                for person in sorted(seated_persons(state.events)))
                stories = []
                for lang in language.LANGUAGES:  # a deal's story is told in every reader's language
                    with language.using(lang):
                        stories.append((lang, stories_text(state)))
            except Exception:  # a game the statistics cannot count: none kept, its readers count it as before
                counted, stories = (), []
            rows.append(StatsRow(stream.name, stream.count, counted, tuple(stories)))
        self.counted = {}
        return rows

    def _taken(self, record: Recorded, stream: _Stream) -> list[Change]:
        event = record.event
        version = record.originator_version
        if version == 1:
            assert isinstance(event, StreamStart), event
            return self._start(record.originator_id, event, stream)
        known = self.known or 0
        if isinstance(event, PlayerAliased):
            return [AliasRow(version, _micros(event.at), event.name, event.same_as, known)]
        if isinstance(event, RatingModelChosen):
            return [ModelRow(version, _micros(event.at), known, event.model, dict(event.parameters))]
        state = stream.state
        if state is None:
            return [KnownRow(stream.name, version, known)]
        done_before = deals_done(state)
        state.apply(event)
        self.counted[record.originator_id] = stream
        if not may_change_result(event, state, done_before):
            return []
        result = game_result(state, stream.cap)
        if result == stream.result:
            return []
        was_over = stream.result is not None and stream.result.over
        stream.result = result
        return [ResultRow(stream.name, version, _micros(event.at), result, was_over, known)]

    def _broken(self, stream_id: UUID, stream: _Stream, problem: ChainProblem) -> list[Change]:
        """The stream left out from the event ``problem`` names on."""
        stream.broken = True
        stream.state = None
        self._keep(stream_id, stream)
        was_over = stream.result is not None and stream.result.over
        return [BrokenRow(str(stream_id), stream.name, problem.number, problem.reason, was_over)]

    def _start(self, stream_id: UUID, event: StreamStart, stream: _Stream) -> list[Change]:
        known = self.known or 0
        if isinstance(event, TournamentStarted):
            self.caps[event.game] = event.deal_cap
            self._keep(stream_id, stream)
            return [TournamentRow(event.game, event.deal_cap), KnownRow(event.game, 1, known)]
        if not isinstance(event, GameStarted):
            self._keep(stream_id, stream)
            return [KnownRow(event.game, 1, known)]
        state = GameState.start(event)
        tournament, cap = self._tournament_of(event.game)
        result = game_result(state, cap)
        stream.state, stream.result, stream.cap = state, result, cap
        self._keep(stream_id, stream)
        self.counted[stream_id] = stream
        at = _micros(event.at)
        assert event.at is not None
        return [
            GameRow(event.game, event.at, at, state.rules.convention, event.players, tournament,
                    state.rules.gora_whist_multiplier),
            ResultRow(event.game, 1, at, result, known_utc=known),
        ]

    def _stream(self, stream_id: UUID, version: int) -> tuple[_Stream, ChainProblem | None]:
        """The stream as it was before event ``version``: kept, or read again (its chain
        checked) and folded again; with the problem of what was read again, if any (a
        row changed since the views took it in, or an event the fold cannot take)."""
        kept = self.streams.get(stream_id)
        if kept is not None:
            self.streams.move_to_end(stream_id)
            if kept.broken or kept.count == version - 1:
                return kept, None
        records = self.source.load(stream_id, version - 1)
        name = _name_of(records[0]) if records else None
        stream = self._keep(stream_id, _Stream(name or f"stream {stream_id}"))
        problem = _chain_problem(name, records, version - 1)
        if problem is not None:
            return stream, problem
        first = records[0].event
        stream.count, stream.digest = len(records), records[-1].digest
        if isinstance(first, GameStarted):
            try:
                state = replay([r.event for r in records])
            except Exception as exc:
                return stream, ChainProblem(version - 1, f"events 1-{version - 1} cannot be replayed "
                                                         f"({type(exc).__name__}: {exc})")
            _, cap = self._tournament_of(first.game)
            stream.state, stream.result, stream.cap = state, game_result(state, cap), cap
        return stream, None

    def _keep(self, stream_id: UUID, stream: _Stream) -> _Stream:
        self.streams[stream_id] = stream
        self.streams.move_to_end(stream_id)
        while len(self.streams) > GAMES_KEPT:
            self.streams.popitem(last=False)
        return stream

    def _tournament_of(self, game: str) -> tuple[str | None, int | None]:
        """The tournament a game ``T/R/K`` is a table of, and its deal cap."""
        parsed = parse_table_game(game)
        if parsed is None:
            return None, None
        name = parsed[0]
        if name not in self.caps:
            rows = self.view.select("SELECT deal_cap FROM {archive_tournaments} WHERE tournament = ?", (name,))
            if not rows:
                return None, None
            self.caps[name] = rows[0][0]
        return name, self.caps[name]


def _name_of(record: Recorded) -> str | None:
    """The name of the stream a record is the first event of, when it starts the stream
    it is stored in (else None)."""
    event = record.event
    if isinstance(event, StreamStart) and game_id(event.game) == record.originator_id:
        return event.game
    return None


def _follows(stream: _Stream, record: Recorded) -> ChainProblem | None:
    """Why ``record`` is not the next event of ``stream`` in its chain (as ``verify``
    checks it: its number, its topic, its digest and the link it records); None when it is."""
    version = record.originator_version
    if version != stream.count + 1:
        return ChainProblem(stream.count + 1, f"event {stream.count + 1} is missing (deleted?)")
    if (version == 1) != isinstance(record, Opened):
        return ChainProblem(version, f"event {version}: its topic was changed (edited?)")
    if version == 1 and _name_of(record) is None:
        return ChainProblem(version, f"event {version} is not the start of its stream (moved or edited?)")
    if link(stream.digest, stream.name, version, record.event) != record.digest:
        return ChainProblem(version, f"event {version}: digest does not match its content or the events "
                                     "before it (edited?)")
    if record.link is not None and record.link != link_of(stream.digest):
        return ChainProblem(version, f"event {version}: the link it records to the event before it was "
                                     "changed (edited?)")
    return None


def _chain_problem(name: str | None, records: Sequence[Recorded], upto: int) -> ChainProblem | None:
    """The first problem of a stream's first ``upto`` records, read again (``verify_chain``)."""
    if len(records) != upto or not records or name is None:
        return ChainProblem(1, f"events 1-{upto} are not all there, or event 1 starts no stream here (edited?)")
    if any((r.originator_version == 1) != isinstance(r, Opened) for r in records):
        return ChainProblem(1, "a topic was changed (edited?)")
    rows = [(r.originator_version, r.event, r.digest) for r in records]
    return verify_chain(name, rows, {r.originator_version: r.link for r in records if r.link is not None})


def _micros(at: str | None) -> int:
    assert at is not None, "stored events always carry their time"
    try:
        return utc_micros(at)
    except TimeFormatError:  # pragma: no cover - the command side refuses such times
        return 0


# -- running it ---------------------------------------------------------------------------


class ArchiveRunner(BaseProjectionRunner[LedgerApplication]):
    """eventsourcing's projection runner on the store's application, for the archive."""

    def __init__(self, projection: ArchiveProjection, view: ArchiveView, env: dict[str, str]) -> None:
        super().__init__(
            projection=projection,
            application_class=LedgerApplication,
            tracking_recorder=view,  # type: ignore[arg-type]
            topics=projection.topics,
            env=env,
        )


class StoreSource:
    """Reads a stream's events through a reader of the store's application, and its
    judged mark through the store's ``marks`` (``Backend.mark``)."""

    def __init__(self, app: LedgerApplication, marks: Callable[[UUID], Mark | None]) -> None:
        self.recorder = app.recorder
        self.mapper: Mapper[UUID] = app.mapper
        self.marks = marks

    def mark(self, stream: UUID) -> Mark | None:
        return self.marks(stream)

    def load(self, stream: UUID, upto: int, after: int = 0) -> list[Recorded]:
        rows = self.recorder.select_events(stream, gt=after or None, lte=upto)
        out: list[Recorded] = []
        for row in rows:
            record = self.mapper.to_domain_event(row)
            assert isinstance(record, Recorded)
            out.append(record)
        return out

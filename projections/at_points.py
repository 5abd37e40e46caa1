"""A pulka read at any point of its history for what one more point costs, not a fold
from event 1: what a service keeps beside each open game (``PointFolds``).

The game is folded once, forward, as its stream grows (``follow``: only the new events),
and every ``EVERY`` events a fork of that fold is kept (``GameState.fork``: the forks
share the events, the deals until one of them changes one, and the sheets stored at
the ends of the deals). The game as of event K is then the nearest fork at or before
K, forked again and folded through the few events after it (``state_at``): equal to a
fold of events 1..K, as tests/test_at_points.py checks at every event of every golden
fixture.

The audit trail as of K is the rows of events 1..K as their own folds made them, with
the verdicts of the game as of K (``AuditFold.rows_at``), so the rows are kept as the
stream grows, one trail per language a reader asked in (their texts are in it). The
drawn sheet as of K (``picture_doc``) needs, for each event that struck entries, the
entries just before it and after it: those depend on no later event, and are worked
out once each (per language, as their texts are).

The deals table as of K (``deals``) is one row per deal, each in JSON: a deal's row is
made once and taken again by any later read at which the deal, its events of play and
what it wrote are the same (the deal the same object: no fold changes a deal once a
fork shares it, ``GameState.writable``), so a read makes only the rows of the deals
that changed since, as the reads before it saw them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, GameStarted
from projections.audit import AuditFold, AuditRow
from projections.deal_state import DealState
from projections.deal_text import cells, deal_row, events_by_deal, hand_row, row_json, table_head, written_by_deal
from projections.game import GameState
from projections.picture import (
    REVISING_TYPES, Marks, Runs, marks_at, marks_of, picture_doc, revising, struck, traces_of,
)
from projections.points import Point, cut
from projections.pulka import PulkaView
from projections.trail import CellNames

# Events between two kept forks: a read folds at most EVERY - 1 events after one; the
# forks of a 2,000-event game are some sixty lists of its events and deals.
EVERY = 32

# A deals table's row as made: the deal, its events of play, what it wrote, the sheet's
# numbers (the columns) and who held which seat, then the row in JSON.
Row = tuple[DealState, list[AnyEvent], dict[Any, Any], list[Any], dict[str, str], bytes]


class PointFolds:
    """A pulka's fold kept with a fork every ``EVERY`` events, its audit trail and the
    entries its revising events struck, each made once as the stream grows."""

    def __init__(self, started: GameStarted) -> None:
        self.head = GameState.start(started)
        self.forks: list[GameState] = [self.head.fork()]  # forks[i]: as of event 1 + i * EVERY
        self.trails: dict[str, AuditFold] = {}
        self.strikes: dict[tuple[str, int], Marks] = {}  # (language, event): the entries it struck
        self.said: dict[str, dict[int, tuple[str, str]]] = {}  # per language: each reason said (``marks_at``)
        self.runs: dict[str, dict[int, tuple[object, Runs]]] = {}  # per language: the entries by chunk (``marks_at``)
        self.types: dict[int, str] = {}  # each event's type by its number, as the trail's rows give it
        self.peaks: list[int] = []  # peaks[n - 1]: the highest deal number of events 1..n
        self.rows: dict[tuple[str, int], Row] = {}  # (language, deal): its row in the deals table as last made
        # Per language, as ``trails``: the numbers of its trail's rows that revise as made
        # (``revising``), and how many rows were looked at.
        self.revisers: dict[str, tuple[list[int], int]] = {}

    @property
    def folded(self) -> int:
        return self.head.folded

    def follow(self, events: Sequence[AnyEvent]) -> None:
        """Fold the events of ``events`` (the game's, from its first) not folded yet."""
        head, forks = self.head, self.forks
        for event in events[head.folded:]:
            head.apply(event)
            if (head.folded - 1) % EVERY == 0:
                head.sheet()  # the sheets of the deals ended so far, stored once and shared by the forks
                forks.append(head.fork())

    def view(self, events: Sequence[AnyEvent], point: Point) -> PulkaView:
        """The game as of ``point`` and its documents, as ``pulka.view`` gives them."""
        return PulkaView(self.state(events, point), point)

    def state(self, events: Sequence[AnyEvent], point: Point) -> GameState:
        """The game as of ``point`` (``points.cut`` says which events it keeps, or why
        there is no such point: ``PointError``)."""
        return self.state_at(events, len(cut(list(events), point)))

    def audit(self, events: Sequence[AnyEvent], point: Point) -> list[AuditRow]:
        """The audit trail as of ``point``, as ``audit`` gives it."""
        return self.audit_at(events, self.state(events, point))

    def audit_json(self, events: Sequence[AnyEvent], rows: Sequence[AuditRow], names: CellNames) -> list[bytes]:
        """Rows of ``audit`` (all, or those an arbiter chose) in JSON, as ``trail.trail_row_json``
        makes them: each row the trail keeps encoded once (``AuditFold.rows_json``)."""
        return self.trail(events, max((r.number for r in rows), default=1)).rows_json(rows, names)

    def picture(self, events: Sequence[AnyEvent], point: Point, deal_cap: int | None = None) -> dict[str, Any]:
        """The drawn sheet as of ``point``, as ``picture.picture`` draws it."""
        return self.picture_at(events, self.state(events, point), point, deal_cap)

    def deals(self, events: Sequence[AnyEvent], point: Point) -> tuple[list[str], list[bytes]]:
        """The deals table as of ``point``, as ``deal_text.deal_table`` gives it: its
        columns, and each row in JSON (``deal_text.row_json``)."""
        state = self.state(events, point)  # a fork: the deals it shares no fold changes in place
        columns = cells(state)
        written = written_by_deal(state)
        played = events_by_deal(state)
        seats = state.table.person_seat
        spoken = language.language()
        rows = [row_json(hand_row(written[0], columns))] if 0 in written else []
        for deal in state.deals:
            mine, wrote = played.get(deal.number, []), written.get(deal.number, {})
            key = (spoken, deal.number)
            row = self.rows.get(key)
            if row is None or not (row[0] is deal and row[1] == mine and row[2] == wrote and row[3] == columns
                                   and row[4] == seats):
                made = row_json(deal_row(state, deal, mine, wrote, columns))
                row = self.rows[key] = (deal, mine, wrote, columns, dict(seats), made)
            rows.append(row[5])
        return table_head(columns), rows

    def state_at(self, events: Sequence[AnyEvent], k: int) -> GameState:
        """The game folded through its first ``k`` events (``events``: the game's, as
        ``follow`` was given them), of its own: the caller may read it, fold on, keep it."""
        assert 1 <= k <= self.head.folded, (k, self.head.folded)
        state = self.forks[(k - 1) // EVERY].fork()
        for event in events[state.folded:k]:
            state.apply(event)
        return state

    def audit_at(self, events: Sequence[AnyEvent], state: GameState) -> list[AuditRow]:
        """The audit trail of the game as of ``state`` (``state_at``), as ``audit`` gives
        it, in the language in effect."""
        trail = self.trail(events, state.folded)
        return trail.rows_at(state)

    def trail(self, events: Sequence[AnyEvent], k: int) -> AuditFold:
        """The audit trail in the language in effect, made as far as event ``k`` at least."""
        spoken = language.language()
        trail = self.trails.get(spoken)
        if trail is None:
            first = events[0]
            assert isinstance(first, GameStarted)
            trail = self.trails[spoken] = AuditFold(first)
        if trail.state.folded < k:
            trail.extend(events[trail.state.folded:k])
        return trail

    def picture_at(self, events: Sequence[AnyEvent], state: GameState, point: Point,
                   deal_cap: int | None = None) -> dict[str, Any]:
        """The drawn sheet as of ``state`` (``state_at``), as ``picture.picture`` draws it."""
        k = state.folded
        trail = self.trail(events, k)
        types, peaks = self.types, self.peaks  # an event's type is its own, and so is its deal: both kept
        for r in trail.rows[len(types):k]:
            types[r.number] = r.type
        for e in events[len(peaks):k]:
            peaks.append(max(peaks[-1] if peaks else 0, e.deal or 0))
        strikes = [self._struck(events, n, types) for n in self.revisions(events, state)]
        spoken = language.language()
        current = marks_at(state, types, self.said.setdefault(spoken, {}), self.runs.setdefault(spoken, {}))
        return picture_doc(state, list(events[:k]), point, types, strikes, deal_cap, current, peaks[k - 1])

    def revisions(self, events: Sequence[AnyEvent], state: GameState) -> list[int]:
        """The events that can change what earlier events wrote, as of ``state``
        (``state_at``): ``revising(audit_at(events, state))`` without the rows made. The
        trail's rows that revise as their own folds made them (``revisers``, kept per trail
        as it grows), but for those whose verdict ``state`` has, which revise as it says."""
        rows = self.trail(events, state.folded).rows
        spoken = language.language()
        revisers, scanned = self.revisers.setdefault(spoken, ([], 0))
        if scanned < len(rows):
            revisers += revising(rows[scanned:])
            self.revisers[spoken] = (revisers, len(rows))
        k, effects = state.folded, state.effects
        found = [n for n in revisers[:bisect_right(revisers, k)] if n not in effects]
        found += [n for n, effect in effects.items()
                  if n <= k and (rows[n - 1].type in REVISING_TYPES or effect.effective is not None)]
        return sorted(found)

    def _struck(self, events: Sequence[AnyEvent], n: int, types: dict[int, str]) -> Marks:
        """The entries event ``n`` struck: its game's entries just before it against
        those just after it (``types`` holds the types of events 1..n at least)."""
        key = (language.language(), n)
        found = self.strikes.get(key)
        if found is None:
            state = self.state_at(events, n - 1)
            before = marks_of(traces_of(state), types)
            state.apply(events[n - 1])
            found = self.strikes[key] = struck(before, marks_of(traces_of(state), types), n)
        return found

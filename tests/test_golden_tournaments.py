"""The golden tournaments (``fixtures/tournaments``, described in its README): each one
recorded at the tournament desk's door (``Tournaments``), tour by tour, and its
standings after every tour compared with the numbers its expected file holds, which
were worked by hand from the documented rules; those numbers are also the ones this
suite works out again without the ledger's tournament code (``golden_tournament``,
with each table's pulka scored by ``independent_scorer``). Then the tournament is
replayed: exported, judged as a file, imported into an empty store, and its standings
after every tour read again there, from its stream alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from fractions import Fraction
from pathlib import Path
from typing import Any

import msgspec
import pytest

import golden_tournament
from ledger.application import Ledger
from ledger.desks.streams import import_streams
from ledger.desks.tournament import Tournaments, judged_tournament
from ledger.judge.streams import judge_streams
from ledger.judge.kinds import judge_log
from ledger.store.event_store import Store
from ledger.views.archive import Views
from ledger.vocabulary.events import AnyEvent, GameStarted
from ledger.vocabulary.logfile import LogLine, split_streams
from readings import parse_export, parse_log
from ledger.vocabulary.stream import StreamStart
from ledger.vocabulary.times import utc_micros
from ledger.vocabulary.tournament_events import (
    CutMade,
    Disqualified,
    Removed,
    Seated,
    TourClosed,
    TournamentStarted,
    YellowCard,
    table_game,
)
from projections.archive import GameResult
from projections.tournament_state import Standings, TournamentState

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "tournaments"
CASES = sorted(FIXTURES.glob("*.jsonl"))
ARBITER = "arbiter:Oleg"


class Clock:
    """One minute later at every call: every event has a time of its own."""

    def __init__(self) -> None:
        self.now = datetime(2026, 4, 4, 10, 0, tzinfo=timezone.utc)

    def __call__(self) -> str:
        self.now += timedelta(minutes=1)
        return self.now.isoformat(timespec="seconds")


@dataclass(frozen=True)
class Fixture:
    name: str
    started: dict[str, Any]  # tournament_started as written
    tournament: list[AnyEvent]  # the seatings and the arbiter's cards, in order
    games: dict[str, list[tuple[int, AnyEvent]]]  # each table's log (line, event)
    expected: dict[str, Any]

    def tours(self) -> Iterator[tuple[int, list[AnyEvent]]]:
        """The tournament's own events grouped by the tour they belong to."""
        groups: dict[int, list[AnyEvent]] = {}
        for event in self.tournament:
            assert isinstance(event, Seated | YellowCard), event
            groups.setdefault(event.tour, []).append(event)
        yield from sorted(groups.items())

    def expected_tour(self, tour: int) -> dict[str, Any]:
        found: dict[str, Any] = next(t for t in self.expected["tours"] if t["tour"] == tour)
        return found

    def table_log(self, game: str) -> list[tuple[int, AnyEvent]]:
        return self.games[game]


def load(path: Path) -> Fixture:
    text = path.read_text(encoding="utf-8")
    first = json.loads(text.splitlines()[0])
    assert first["type"] == "tournament_started"
    lines = parse_log(text)
    tournament: list[AnyEvent] = []
    games: dict[str, list[tuple[int, AnyEvent]]] = {}
    current: list[tuple[int, AnyEvent]] | None = None
    for line, event in lines[1:]:
        if isinstance(event, GameStarted):
            current = games.setdefault(event.game, [])
        if current is None:
            tournament.append(event)
        else:
            current.append((line, event))
    expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text(encoding="utf-8"))
    return Fixture(first["game"], first, tournament, games, expected)


def clock() -> str:
    return "2026-04-04T10:00:00+00:00"


def exact(value: int | str) -> Fraction:
    return Fraction(value)


# -- the numbers, worked out again ----------------------------------------------------------------


def worked(fixture: Fixture) -> list[dict[str, Any]]:
    """Every tour as the rules make it (``golden_tournament``), in the expected file's shape."""
    t = golden_tournament.Tournament(fixture.started)
    out = []
    for tour, events in fixture.tours():
        seated = [e for e in events if isinstance(e, Seated)]
        cards = []
        for e in events:
            if isinstance(e, YellowCard):
                t.card(e.player, tour)
                cards.append({"player": e.player, "tour": tour})
        method = seated[0].method
        if method != "manual":
            assert t.seating(tour, method, seated[0].seed) == [list(s.players) for s in seated], tour
        tables = [golden_tournament.table(judge_log(fixture.table_log(table_game(fixture.name, tour, s.table)), clock),
                                          fixture.started.get("deal_cap")) for s in seated]
        closed = t.close(tour, tables)
        out.append({"tour": tour, "cards": cards, "seating": [list(s.players) for s in seated],
                    "tables": {x.game: {"end": x.end, "deals": x.deals, "whists": x.whists}
                               | ({"tallies": x.tallies} if _tallied(fixture) else {}) for x in tables},
                    "closed": closed, "standings": t.standings()})
    return out


def _tallied(fixture: Fixture) -> bool:
    return bool(set(fixture.started.get("tie_breaks", ())) & set(golden_tournament.CRITERIA))


def same_rows(expected: list[dict[str, Any]], rows: list[dict[str, Any]], where: str) -> None:
    """Rows compared field by field, points as exact fractions; ``tie_breaks`` where the
    expected row gives them."""
    assert [r["player"] for r in rows] == [r["player"] for r in expected], where
    for want, got in zip(expected, rows, strict=True):
        at = f"{where}: {want['player']}"
        assert got["place"] == want["place"], at
        assert Fraction(got["points"]) == exact(want["points"]), at
        for key in ("whists", "tours_won", "last_tour", "status", "cards"):
            assert got[key] == want[key], f"{at}: {key} {got[key]!r}, expected {want[key]!r}"
        assert [(t, k, w, Fraction(p)) for t, k, w, p in got["tours"]] == \
            [(t, k, w, exact(p)) for t, k, w, p in want["tours"]], at
        if "tie_breaks" in want:
            assert got["tie_breaks"] == want["tie_breaks"], at


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_the_hand_worked_numbers_are_those_the_rules_give(path: Path) -> None:
    """The expected file against the tournament worked out again here: the seatings,
    each table's end, deals and result, what each close brings, and the standings."""
    fixture = load(path)
    for mine in worked(fixture):
        tour = mine["tour"]
        want = fixture.expected_tour(tour)
        assert mine["seating"] == want["seating"], tour
        assert mine["cards"] == want.get("cards", []), tour
        assert mine["tables"] == want["tables"], tour
        assert mine["closed"] == want["closed"], tour
        same_rows(want["standings"], mine["standings"], f"tour {tour} (worked out)")


# -- at the tournament desk's door ---------------------------------------------------------------------


def rows_of(standings: Standings) -> list[dict[str, Any]]:
    """The ledger's standings in the expected file's shape (the tours counted only)."""
    return [{
        "place": r.place, "player": r.player, "points": r.points, "whists": r.whists, "tours_won": r.tours_won,
        "last_tour": r.last_tour, "status": r.status, "cards": r.cards,
        "tours": [[e.tour, e.table, e.whists, e.points] for e in r.tours if not e.in_play],
        "tie_breaks": dict(r.breaks),
    } for r in standings.rows]


def consequences(events: list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for e in events:
        if isinstance(e, YellowCard | Disqualified):
            out.append({"type": "yellow_card" if isinstance(e, YellowCard) else "disqualified", "player": e.player,
                        "tour": e.tour} | ({"at_close": True} if e.at_close else {}))
        elif isinstance(e, Removed):
            out.append({"type": "removed", "player": e.player, "tour": e.tour, "at_close": e.at_close})
        elif isinstance(e, CutMade):
            out.append({"type": "cut_made", "after_tour": e.after_tour, "kept": list(e.kept)})
    return out


Live = Callable[[TournamentState, str | None], Mapping[str, GameResult]]


def from_views(views: Views) -> Live:
    def tables(state: TournamentState, time: str | None) -> Mapping[str, GameResult]:
        views.catch_up()
        return views.tables(state.name, utc_micros(time) if time else None)
    return tables


@dataclass
class Recorded:
    db: str
    standings: dict[int, list[dict[str, Any]]]  # as the desk read them right after each close
    export: str


def record(fixture: Fixture, db: str) -> Recorded:
    """The fixture recorded command by command at the desk: the tournament created, each
    tour seated (by hand, or ``seat --auto``, which must seat as the fixture says), the
    arbiter's cards given, the tables started and their logs recorded, the tour closed."""
    after: dict[int, list[dict[str, Any]]] = {}
    with Store(db) as store, Views(store) as views:
        ledger = Ledger(store, clock=Clock())
        desk = Tournaments(ledger)
        started = msgspec.convert(fixture.started, TournamentStarted)
        assert desk.create(started).rule_set is not None
        for tour, events in fixture.tours():
            _seat_and_card(desk, fixture, tour, events)
            _play(ledger, desk, fixture, tour, from_views(views))
            closed = [s.event for s in desk.close(fixture.name, tour, by=ARBITER)]
            want = fixture.expected_tour(tour)
            assert isinstance(closed[0], TourClosed)
            assert {t.game: {"end": t.end, "deals": t.deals, "whists": dict(t.whists)}
                    | ({"tallies": {p: msgspec.to_builtins(x) | {} for p, x in t.tallies.items()}} if t.tallies else {})
                    for t in closed[0].tables} == _without_zero_tallies(want["tables"]), tour
            assert consequences(closed[1:]) == want["closed"], tour
            now, state = desk.standings(fixture.name, None, None, from_views(views))
            assert state.last_closed == tour
            after[tour] = rows_of(now)
            same_rows(want["standings"], after[tour], f"tour {tour} (at the desk)")
        export = "".join(line + "\n" for line in desk.export(fixture.name))
    return Recorded(db, after, export)


def _without_zero_tallies(tables: dict[str, Any]) -> dict[str, Any]:
    """A close records only the counts that are not zero (``Tally`` omits its defaults)."""
    out = {}
    for game, table in tables.items():
        table = dict(table)
        if "tallies" in table:
            table["tallies"] = {p: {k: v for k, v in counts.items() if v} for p, counts in table["tallies"].items()}
        out[game] = table
    return out


def _seat_and_card(desk: Tournaments, fixture: Fixture, tour: int, events: list[AnyEvent]) -> None:
    auto = [e for e in events if isinstance(e, Seated) and e.method != "manual"]
    if auto:
        seated = [s.event for s in desk.seat_auto(fixture.name, tour, auto[0].seed, by=ARBITER)]
        assert [(s.table, s.players, s.method, s.seed) for s in seated if isinstance(s, Seated)] == \
            [(s.table, s.players, s.method, s.seed) for s in auto], tour
    for e in events:
        if isinstance(e, Seated) and e.method == "manual":
            desk.seat(fixture.name, tour, e.table, e.players, by=ARBITER)
        elif isinstance(e, YellowCard):
            card = desk.card(fixture.name, e.player, e.reason, by=ARBITER)[0].event
            assert isinstance(card, YellowCard) and (card.player, card.tour, card.at_close) == (e.player, tour, False)


def logged(lines: list[tuple[int, AnyEvent]]) -> Callable[[object], list[AnyEvent]]:
    """A command that records a table's written events as they stand."""
    def command(_state: object) -> list[AnyEvent]:
        return [event for _, event in lines]
    return command


def _play(ledger: Ledger, desk: Tournaments, fixture: Fixture, tour: int, live: Live) -> None:
    """Start the tour's tables and record their logs; before the close, the standings
    show the tables beside them, in play, not counted."""
    state = desk.state(fixture.name)
    games = {table_game(fixture.name, tour, table): players for table, players in state.seating[tour].items()}
    started = {o.game: o.state.started for o in desk.start_tables(fixture.name, tour, by=ARBITER)}
    assert sorted(started) == sorted(games)
    for game, start in started.items():
        written = fixture.table_log(game)
        first = written[0][1]
        assert isinstance(first, GameStarted)
        assert (start.players, start.pulya, start.rule_set) == (first.players, first.pulya, state.rules), game
        ledger.execute(game, logged(written[1:]))
    want = fixture.expected_tour(tour)
    before = desk.standings(fixture.name, None, None, live)[0]
    for row in before.rows:
        in_play = [e for e in row.tours if e.in_play]
        mine = [(table_game(fixture.name, tour, e.table), e.whists, e.end) for e in in_play]
        assert mine == [(g, t["whists"][row.player], t["end"]) for g, t in want["tables"].items()
                        if row.player in t["whists"]], (tour, row.player)
    # The same from the stored tables replayed, without the views.
    replayed = desk.replayed(state, None)
    assert {g: (r.status, r.deals, r.whists) for g, r in replayed.items()} == \
        {g: (t["end"], t["deals"], t["whists"]) for g, t in want["tables"].items()}


def name_of(stream: list[LogLine]) -> str:
    first = stream[0].event
    assert isinstance(first, StreamStart)
    return first.game


def nothing_live(state: TournamentState, time: str | None) -> Mapping[str, GameResult]:
    return {}


@pytest.fixture(scope="module", params=CASES, ids=[p.stem for p in CASES])
def recorded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Fixture, Recorded]:
    fixture = load(request.param)
    return fixture, record(fixture, str(tmp_path_factory.mktemp("golden") / "pulka.db"))


def test_the_desk_gives_the_expected_standings_after_every_tour(recorded: tuple[Fixture, Recorded]) -> None:
    fixture, done = recorded
    assert sorted(done.standings) == [t["tour"] for t in fixture.expected["tours"]]
    with Store(done.db) as store:
        desk = Tournaments(Ledger(store, clock=Clock()))
        for tour in done.standings:
            # Read again as of each tour: the events through that close and what it brought.
            again, state = desk.standings(fixture.name, tour, None, nothing_live)
            assert state.last_closed == tour
            same_rows(fixture.expected_tour(tour)["standings"], rows_of(again), f"as of tour {tour}")
        assert judged_tournament(desk.ledger, fixture.name) is None


def test_the_export_replays_to_the_same_standings_in_an_empty_store(recorded: tuple[Fixture, Recorded],
                                                                    tmp_path: Path) -> None:
    """The tournament's export judged as a file, then imported into an empty store: the
    same events, and the same standings after every tour, read from the stream alone."""
    fixture, done = recorded
    streams = split_streams(parse_export(done.export))
    assert name_of(streams[0]) == fixture.name
    plan = judge_streams(streams, clock)
    stored = {name_of(s): [line.event for line in s] for s in streams}
    assert plan.events == {name: stored[name] for name in plan.events}
    with Store(str(tmp_path / "copy.db")) as store:
        ledger = Ledger(store, clock=Clock())
        imported = import_streams(ledger, streams)
        assert sorted(i.stream for i in imported) == sorted(stored)
        desk = Tournaments(ledger)
        for tour, rows in done.standings.items():
            again, _ = desk.standings(fixture.name, tour, None, nothing_live)
            assert rows_of(again) == rows, tour
        assert judged_tournament(ledger, fixture.name) is None
        assert "".join(line + "\n" for line in desk.export(fixture.name)) == done.export

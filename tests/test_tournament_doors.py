"""The tournament desk at its door (``ledger.desks.tournament``) and the tournament's
fold (``projections.tournament_state``), for what was reached only through the command
line: every refusal when a tournament starts, a lot seed drawn when none is given, the
tables in play as they stood at a time, the refusals of a file of several streams
(a close that no longer matches its tables, a stream stored already, a register into
a store with games, a table seated otherwise, a game event in a tournament's stream),
``verify``'s judgement of a table changed behind the ledger's back, and what the
tournament's log and standings say for people. On SQLite: the desk's own SQL is
nothing but the store's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import msgspec
import pytest

from conftest import RawEvents
from helpers import stored_rows, tournament_export
from independent_scorer import score
from ledger.application import Ledger
from ledger.desks.streams import import_streams
from ledger.desks.tournament import Tournaments, judged_tournament
from ledger.judge.streams import judge_streams
from ledger.judge.tournament import TOURNAMENT_MAX, judge_tournament_start
from ledger.judge.kinds import judge_log
from ledger.store.event_store import Store
from ledger.vocabulary.events import Bid, GameStarted
from ledger.vocabulary.logfile import split_streams
from readings import parse_export
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.tournament_events import CutRule, Segment, TourClosed, TournamentStarted
from ledger.words.deal_line import deal_events
from projections.game import GameState
from projections.report import PointError
from projections.tournament_log import log_rows, render_log
from projections.tournament_state import (
    as_of,
    fold_tournament,
    points_text,
    render_standings,
    standings,
    standings_doc,
)
from test_golden_tournaments import CASES, Clock, Recorded, load, record
from test_inputs import rechained
from test_tournament_rules import redrawn

SIX = ("Anna", "Boris", "Vera", "Gleb", "Dina", "Egor")
BASE = TournamentStarted(game="spring", players=SIX, pulya=10, tours=3, table_size=3, by="arbiter:Oleg")
GOLDEN = {p.stem: p for p in CASES}
CLUB = Path(__file__).resolve().parent.parent / "fixtures" / "club" / "golden_club.jsonl"


# -- starting a tournament ---------------------------------------------------------------------

STARTS: list[tuple[str, dict[str, Any], str, str]] = [
    ("empty name", {"game": " "}, "event-log", "the game's name is empty"),
    ("a slash", {"game": "spring/cup"}, "tournament.name", "hold '/'"),
    ("the ledger's prefix", {"game": "@spring"}, "tournament.name", "begin with '@'"),
    ("too long", {"game": "x" * (TOURNAMENT_MAX + 1)}, "tournament.name", f"{TOURNAMENT_MAX + 1} characters long"),
    ("two players", {"players": ("Anna", "Boris")}, "tournament.players", "3 players or more, not 2"),
    ("an arbiter plays", {"players": ("Anna", "Boris", "arbiter:Vera")}, "tournament.players", "'arbiter:'"),
    ("no target", {"pulya": 0}, "4.2.2", "positive number of points, not 0"),
    ("an unknown rule", {"rules": {"raspasy_exits": 7}}, "rules.md §9", "raspasy_exits"),
    ("a table of five", {"table_size": 5}, "1.2", "3 or 4 players, not 5"),
    ("five entrants", {"players": SIX[:5]}, "1.2", "a tournament of 5 players cannot be seated at tables of 3 and 4"),
    ("no tours", {"tours": 0}, "tournament.tours", "1 or more, not 0"),
    ("no deals", {"deal_cap": 0}, "tournament.deal_cap", "1 or more, not 0"),
    ("no cards", {"cards_to_disqualify": 0}, "tournament.cards", "1 or more"),
    ("a rate in words", {"cutoff": (Segment(50, "half"),)}, "tournament.cutoff", "rate 'half' is not a number"),
    ("a negative rate", {"cutoff": (Segment(50, "-1"),)}, "tournament.cutoff", "rate -1 is negative"),
    ("unbounded first", {"cutoff": (Segment(None, "1"), Segment(50, "1/2"))}, "tournament.cutoff", "only the last"),
    ("bounds falling", {"cutoff": (Segment(50, "1"), Segment(40, "1/2"))}, "tournament.cutoff", "40 after 50"),
    ("a tie-break twice", {"tie_breaks": ("whists", "whists")}, "tournament.tie_breaks", "each once"),
    ("an unknown tie-break", {"tie_breaks": ("luck",)}, "tournament.tie_breaks", "tie-breaks luck"),
    ("the lot first", {"tie_breaks": ("lot", "whists"), "lot_seed": "s"}, "tournament.tie_breaks",
     "nothing after it can matter"),
    ("a seed without the lot", {"lot_seed": "s"}, "tournament.tie_breaks", "the lot is not a tie-break"),
    ("a cut after the last tour", {"cuts": (CutRule(3, 3),)}, "tournament.cuts", "a cut after tour 3"),
    ("a cut keeping all", {"cuts": (CutRule(1, 6),)}, "tournament.cuts", "a cut to 6 players"),
    ("a cut to five", {"players": (*SIX, "Igor"), "cuts": (CutRule(1, 5),)}, "1.2",
     "after the cut after tour 1, 5 players cannot be seated"),
    ("a final of five", {"final_table": 5}, "tournament.final", "a final table of 5"),
    ("a final above the cut", {"cuts": (CutRule(1, 3),), "final_table": 4}, "tournament.final",
     "a final table of 4 from 3 players"),
    ("a final without tours", {"tours": None, "final_table": 3}, "tournament.final", "needs a number of tours"),
    ("a cut too late for the final", {"cuts": (CutRule(2, 3),), "final_table": 3}, "tournament.final",
     "leaves no tour before the final"),
    ("recorded by a player", {"by": "Anna"}, "tournament.arbiter", "by its arbiter, not 'Anna'"),
    ("a time in words", {"at": "yesterday"}, "event-log", "yesterday"),
]


@pytest.mark.parametrize(("changes", "rule", "said"), [s[1:] for s in STARTS], ids=[s[0] for s in STARTS])
def test_a_tournament_that_cannot_be_held_is_refused_naming_its_rule(tmp_path: Path, changes: dict[str, Any],
                                                                     rule: str, said: str) -> None:
    db = str(tmp_path / "pulka.db")
    with Store(db) as store:
        desk = Tournaments(Ledger(store, clock=Clock()))
        with pytest.raises(Refused) as refused:
            desk.create(msgspec.structs.replace(BASE, **changes))
    assert refused.value.rule == rule and said in str(refused.value), str(refused.value)
    assert stored_rows(db) == []


def test_the_counts_around_an_unseatable_one_are_named() -> None:
    """Five cannot sit at tables of 3 and 4 [Code 1.2]: four can (one table), six can
    (two of three); the refusal says so."""
    with pytest.raises(Refused) as refused:
        judge_tournament_start(msgspec.structs.replace(BASE, players=SIX[:5]))
    assert refused.value.allowed == "4 players: one table of 4; 6 players: tables of 3, 3"


def test_the_lot_needs_its_seed_and_the_desk_draws_one(tmp_path: Path) -> None:
    """Judged alone, a tie-break by lot without a seed is refused; the desk draws and
    records one, and the standings' lot is that seed's draw."""
    lot = msgspec.structs.replace(BASE, tie_breaks=("whists", "lot"))
    with pytest.raises(Refused) as refused:
        judge_tournament_start(lot)
    assert refused.value.rule == "tournament.tie_breaks" and "records its seed" in str(refused.value)
    with Store(str(tmp_path / "pulka.db")) as store:
        desk = Tournaments(Ledger(store, clock=Clock()))
        started = desk.create(lot)
        seed = started.lot_seed
        assert seed is not None and len(seed) == 16 and int(seed, 16) >= 0
        assert desk.state("spring").started.lot_seed == seed
        rows = standings(desk.state("spring")).rows
        drawn = redrawn(seed, list(SIX))
        assert [dict(r.breaks)["lot"] for r in rows] == [drawn.index(r.player) + 1 for r in rows]
        # Nothing closed: everyone equal but for the lot, which orders them.
        assert [r.player for r in rows] == drawn and [r.place for r in rows] == [1, 2, 3, 4, 5, 6]
        with pytest.raises(Refused) as again:
            desk.create(lot)
        assert "'spring' exists already" in str(again.value)


# -- the tables in play at a time -------------------------------------------------------------------


def test_the_tables_in_play_as_they_stood_at_a_time(tmp_path: Path) -> None:
    """``replayed`` with a time: each table's game cut at that time and settled as if
    abandoned then; a table started after it is not shown. Worked out again by the
    independent scorer from the events recorded by then."""
    with Store(str(tmp_path / "pulka.db")) as store:
        clock = Clock()
        ledger = Ledger(store, clock=clock)
        desk = Tournaments(ledger)
        desk.create(msgspec.structs.replace(BASE, tours=None))
        desk.seat("spring", 1, 1, ["Anna", "Boris", "Vera"])
        desk.seat("spring", 1, 2, ["Gleb", "Dina", "Egor"])
        before_start = clock()
        desk.start_tables("spring", 1)
        for line in ("7S pass pass | 7S | whist whist | 7 2 1", "pass pass pass | 2 4 4"):
            ledger.execute("spring/1/1", lambda st, line=line: deal_events(st, line))
        then = clock()
        ledger.execute("spring/1/1", lambda st: deal_events(st, "misere pass pass | misere | 3"))
        ledger.execute("spring/1/2", lambda st: deal_events(st, "6S pass pass | 6S | pass pass"))
        state = desk.state("spring")
        assert desk.replayed(state, before_start) == {}
        at_then = desk.replayed(state, then)
        events = [s.event for s in store.sound("spring/1/1")]
        kept = [e for e in events if e.at is not None and e.at <= then]
        assert at_then["spring/1/1"].whists == score(kept).settled.rounded
        assert at_then["spring/1/1"].deals == 2 and at_then["spring/1/1"].status == "playing"
        assert at_then["spring/1/2"].deals == 0
        now = desk.replayed(state, None)
        assert now["spring/1/1"].whists == score(events).settled.rounded and now["spring/1/1"].deals == 3
        # The standings at that time show them in play, counted nowhere.
        shown, _ = desk.standings("spring", None, then, desk.replayed)
        assert all(e.in_play for r in shown.rows for e in r.tours) and all(r.points == 0 for r in shown.rows)
        assert {r.player: r.tours[0].whists for r in shown.rows if r.tours} == {
            **at_then["spring/1/1"].whists, **at_then["spring/1/2"].whists}


def test_a_point_the_standings_cannot_be_read_at() -> None:
    path = GOLDEN["swiss_cut_final"]
    fixture = load(path)
    started = msgspec.convert(fixture.started, TournamentStarted)
    events = [started, *fixture.tournament[:2]]
    with pytest.raises(PointError, match="give only one of --tour and --time"):
        as_of(events, 1, "2026-04-04T10:00:00+00:00")
    with pytest.raises(PointError, match="tour 1 is not closed; no tour is closed yet"):
        as_of(events, 1, None)
    with pytest.raises(PointError, match="is not a time|time"):
        as_of(events, None, "soon")


# -- a file of several streams ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The small tournament of ``helpers.tournament_export``: two tables of three, one
    deal each, tour 1 closed with cards, a removal and a cut, then an arbiter's card."""
    return tournament_export(str(tmp_path_factory.mktemp("cup") / "cup.db"))


def refused_import(tmp_path: Path, text: str) -> Refused:
    """The file refused as a whole, judged and imported alike, nothing stored."""
    streams = split_streams(parse_export(text))
    with pytest.raises(Refused) as judged_:
        judge_streams(streams)
    db = str(tmp_path / f"other-{len(list(tmp_path.iterdir()))}.db")
    with Store(db) as store:
        with pytest.raises(Refused) as imported:
            import_streams(Ledger(store, clock=Clock()), streams)
    assert stored_rows(db) == []
    assert (imported.value.line, str(imported.value)) == (judged_.value.line, str(judged_.value))
    return imported.value


def line_of(text: str, kind: str, nth: int = 1) -> int:
    found = [i for i, line in enumerate(text.splitlines(), start=1) if json.loads(line)["type"] == kind]
    return found[nth - 1]


def edit_close(edit: Any) -> Any:
    """An edit of the close's tables: ``edit`` takes them as a list and returns them."""
    def change(number: int, data: dict[str, Any]) -> None:
        if data["type"] == "tour_closed":
            data["tables"] = edit([dict(t) for t in data["tables"]])
    return change


def changed(table: int, **fields: Any) -> Any:
    def edit(tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
        tables[table] = tables[table] | {k: v(tables[table][k]) if callable(v) else v for k, v in fields.items()}
        return tables
    return edit


CLOSES = [
    ("a game that is not there", changed(0, game="cup/1/9"), "the close of tour 1 records cup/1/9 with"),
    ("a game cut short", changed(0, events=lambda n: n - 1),
     "the close of tour 1 does not match cup/1/1 as recorded: the close records"),
    ("a table left out", lambda t: t[:1], "the close of tour 1 records 1 table, and the tour has 2"),
    ("a result changed", changed(1, whists=lambda w: w | {"Gleb": w["Gleb"] + 1}),
     "does not match cup/1/2 as recorded: its whists {"),
    ("an end changed", changed(0, end="finished"),
     "does not match cup/1/1 as recorded: its end finished, the game's capped"),
]


@pytest.mark.parametrize(("edit", "said"), [c[1:] for c in CLOSES], ids=[c[0] for c in CLOSES])
def test_a_close_that_does_not_match_its_tables_is_refused_at_its_line(cup: str, tmp_path: Path, edit: Any,
                                                                       said: str) -> None:
    """A recorded close must be the close of its tables as they are (its digests chained
    anew, as someone who knows the chain could): refused at its line, nothing stored."""
    text = rechained(cup, edit_close(edit))
    refused = refused_import(tmp_path, text)
    assert refused.rule == "tournament.closed" and said in str(refused), str(refused)
    assert refused.line == line_of(text, "tour_closed")


def test_a_game_event_in_a_tournaments_stream_is_refused(cup: str, tmp_path: Path) -> None:
    def to_a_bid(number: int, data: dict[str, Any]) -> None:
        if data["type"] == "yellow_card" and not data.get("at_close"):
            at = data["at"]
            data.clear()
            data.update(type="bid", player="Anna", bid="pass", at=at)

    text = rechained(cup, to_a_bid)
    refused = refused_import(tmp_path, text)
    assert refused.rule == "event-log" and "a bid cannot follow tournament_started in a tournament" in str(refused)
    assert refused.line == line_of(text, "bid")


def test_a_table_played_to_another_target_is_refused_at_its_first_line(cup: str, tmp_path: Path) -> None:
    def other_target(number: int, data: dict[str, Any]) -> None:
        if data["type"] == "game_started" and data["game"] == "cup/1/2":
            data["pulya"] = 8

    text = rechained(cup, other_target)
    refused = refused_import(tmp_path, text)
    assert refused.rule == "tournament.rules" and "pulya of 6" in str(refused), str(refused)
    assert refused.line == line_of(text, "game_started", 2)


def test_a_file_imports_into_a_store_without_its_streams_only(cup: str, tmp_path: Path) -> None:
    streams = split_streams(parse_export(cup))
    db = str(tmp_path / "pulka.db")
    with Store(db) as store:
        ledger = Ledger(store, clock=Clock())
        assert {i.stream for i in import_streams(ledger, streams)} == {"cup", "cup/1/1", "cup/1/2"}
        rows = stored_rows(db)
        with pytest.raises(Refused) as again:
            import_streams(ledger, streams)
        assert "'cup' is stored already" in str(again.value) and again.value.line == 1
        assert stored_rows(db) == rows
        # The club's register comes only into a store without games (its aliases are
        # judged against the file's games).
        club = split_streams(parse_export(CLUB.read_text(encoding="utf-8")))
        with pytest.raises(Refused) as register:
            import_streams(ledger, club)
        assert "holds cup, cup/1/1, cup/1/2" in str(register.value) and register.value.line == 1
        assert stored_rows(db) == rows


def test_an_alias_joining_two_players_of_one_table_in_a_club_file_is_refused(tmp_path: Path) -> None:
    text = CLUB.read_text(encoding="utf-8").replace('"name":"Anya","same_as":"Anna"', '"name":"Anya","same_as":"Boris"')
    refused = refused_import(tmp_path, text)
    assert refused.rule == "club.alias" and "'Anya' and 'Boris' both sat at club-2" in str(refused), str(refused)
    assert refused.line == line_of(text, "player_aliased")


def test_a_rubber_comes_with_a_tournament_in_one_file(cup: str, tmp_path: Path) -> None:
    rubber = (Path(__file__).resolve().parent.parent / "fixtures" / "bridge" / "seed_rubber_two_nil.jsonl").read_text(
        encoding="utf-8")
    with Store(str(tmp_path / "pulka.db")) as store:
        ledger = Ledger(store, clock=Clock())
        done = import_streams(ledger, split_streams(parse_export(cup + rubber)))
        assert [i.stream for i in done][-1] == json.loads(rubber.splitlines()[0])["game"]
        assert judged_tournament(ledger, "cup") is None


# -- verify's judgement of a stored tournament ----------------------------------------------------------


def test_a_table_changed_behind_the_ledgers_back_is_named_by_verify(cup: str, tmp_path: Path) -> None:
    """``judged`` (what ``verify`` says of a stored tournament): a closed table cut short
    behind the ledger's back (its chain still holds) no longer matches the close, named
    by the tournament's event; an event stored at a closed table without the judge (a
    deal past the cap) is named by the table."""
    for kind in ("cut short", "past the cap"):
        db = str(tmp_path / f"{kind}.db")
        with Store(db) as store:
            ledger = Ledger(store, clock=Clock())
            import_streams(ledger, split_streams(parse_export(cup)))
            assert judged_tournament(ledger, "cup") is None
            stored = store.sound("cup/1/1")
            closes = [s.number for s in store.sound("cup") if isinstance(s.event, TourClosed)]
            if kind == "cut short":
                raw = RawEvents(db)
                raw.delete("cup/1/1", len(stored))
                raw.close()
            else:
                state = ledger.state("cup/1/1")
                assert isinstance(state, GameState)
                turn = state.next_deal().turn()
                assert turn is not None
                store.append("cup/1/1", [Bid(player=state.players[turn], bid="6S", at="2026-03-01T20:00:00+00:00")],
                             expected=len(stored), previous=stored[-1].digest)
            problem = judged_tournament(ledger, "cup")
        assert problem is not None
        if kind == "cut short":
            assert problem.number == closes[0]
            assert problem.reason.startswith(f"event {closes[0]} of tournament 'cup' would be refused: the close of "
                                             "tour 1 does not match cup/1/1 as recorded"), problem.reason
        else:
            assert problem.reason.startswith("its table cup/1/1: event 1 would be refused: cup/1/1 has played its 1 "
                                             "deals, the tournament's cap"), problem.reason


# -- what the tournament says for people ----------------------------------------------------------------


@pytest.fixture(scope="module")
def golden(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Any, Recorded]]]:
    yield {name: (load(path), record(load(path), str(tmp_path_factory.mktemp(name) / "pulka.db")))
           for name, path in GOLDEN.items()}


def stream_of(done: Recorded, name: str) -> list[Any]:
    streams = split_streams(parse_export(done.export))
    return [line.event for line in next(s for s in streams if getattr(s[0].event, "game", None) == name)]


def test_the_standings_document_shows_the_codes_criteria_and_the_lot(golden: dict[str, tuple[Any, Recorded]]) -> None:
    fixture, done = golden["code_criteria_and_lot"]
    doc = standings_doc(standings(fold_tournament(stream_of(done, fixture.name))))
    want = fixture.expected_tour(1)["standings"]
    assert doc["after_tour"] == 1 and [r["player"] for r in doc["standings"]] == [r["player"] for r in want]
    for row, expected in zip(doc["standings"], want, strict=True):
        assert row["tie_breaks"] == expected["tie_breaks"]
        assert row["points"] == expected["points"] and isinstance(row["points"], int)
    # The default tie-breaks are not shown: they are the row's own fields.
    fixture, done = golden["swiss_cut_final"]
    doc = standings_doc(standings(fold_tournament(stream_of(done, fixture.name))))
    assert all("tie_breaks" not in r for r in doc["standings"])
    egor = doc["standings"][0]
    assert egor["points"] == 153.5 and egor["tours"][1] == {"tour": 2, "table": 1, "whists": 125, "points": 82.5}


def test_the_standings_and_the_log_for_people(golden: dict[str, tuple[Any, Recorded]]) -> None:
    fixture, done = golden["swiss_cut_final"]
    events = stream_of(done, fixture.name)
    state = fold_tournament(events)
    text = render_standings(standings(state), state, "now")
    assert text.startswith("tournament golden-cup: standings after tour 3 (now)\n")
    lines = text.splitlines()
    egor = next(line for line in lines if line.startswith("1     Egor"))
    assert "153.5" in egor and "+227" in egor and "82.5 (+125)" in egor and egor.endswith("finished")
    anna = next(line for line in lines if " Anna " in line)
    assert anna.startswith("8     ") and "-49.5" in anna and anna.endswith("disqualified, 2 cards")
    assert "ties are broken by whists, tours_won, last_tour." in text
    rows = log_rows(events)
    said = [r.effect for r in rows]
    assert said[0] == ("tournament golden-cup started: 8 players; sochi, pulya to 10; tables of 4; 3 tours; "
                       "deal cap 4; cut-off 40:1, *:1/2; removal below -100; after tour 1 the first 7 go on; "
                       "final table of 3")
    assert "tour 1, table 1 (golden-cup/1/1): Gleb, Dina, Boris, Kira; by lot (seed golden-2026)" in said
    assert "tour 2, table 2 (golden-cup/2/2): Boris, Vera, Inna; Swiss, by the standings" in said
    assert "tour 3, table 1 (golden-cup/3/1): Egor, Gleb, Vera; the final table" in said
    closes = [line for line in said if line.startswith("tour 1 closed: ")]
    assert [sorted(t.split(": ")[-1].split(", ")) for t in closes[0].split("; ")] == [
        ["Boris -36", "Dina +102", "Gleb +26", "Kira -92"], ["Anna +26", "Egor +102", "Inna -92", "Vera -36"]]
    assert [t.split(":")[0] for t in closes[0].removeprefix("tour 1 closed: ").split("; ")] == [
        "table 1 capped after 4 deals", "table 2 capped after 4 deals"]
    assert any(line.startswith("tour 2 closed: ") and "table 2 abandoned after 2 deals" in line for line in said)
    assert any(line.startswith("tour 3 closed: table 1 finished after 4 deals") for line in said)
    assert "yellow card 1 to Dina in tour 2: tour 2 result -111 below -100" in said
    assert "yellow card 1 to Anna in tour 2: talking during the play" in said
    assert "yellow card 2 to Anna in tour 2: tour 2 result -111 below -100" in said
    assert "Dina sits out tour 3: tour 2 result -111 below -100" in said
    assert "Anna disqualified in tour 2: yellow card 2" in said
    assert "cut after tour 2: 3 go on (Egor, Gleb, Vera)" in said
    assert [r.number for r in rows] == list(range(1, len(events) + 1))
    assert all(r.by == "arbiter:Oleg" for r in rows)
    log = render_log(rows)
    assert log.count("\n") == len(rows) and "arbiter:Oleg" in log.splitlines()[0]


@pytest.mark.parametrize(("points", "shown"), [(Fraction(307, 2), "153.5"), (Fraction(-9, 2), "-4.5"),
                                                (Fraction(71), "71"), (Fraction(1, 3), "1/3"), (Fraction(1, 8), "0.125")])
def test_points_are_shown_exactly(points: Fraction, shown: str) -> None:
    assert points_text(points) == shown


def test_a_table_log_replays_in_the_fixture_as_judged(golden: dict[str, tuple[Any, Recorded]]) -> None:
    """The tables as the desk stored them are the fixture's logs as the judge records
    them (the desk adds nothing of its own to a table's events)."""
    fixture, done = golden["swiss_cut_final"]
    for game, lines in fixture.games.items():
        stored = stream_of(done, game)
        written = judge_log(lines, lambda: "2026-04-04T10:00:00+00:00")
        first, judged_first = stored[0], written[0]
        assert isinstance(first, GameStarted) and isinstance(judged_first, GameStarted)
        assert first.players == judged_first.players
        strip = [msgspec.structs.replace(e, at=None, by=None) for e in stored[1:]]
        assert strip == [msgspec.structs.replace(e, at=None, by=None) for e in written[1:]], game

"""A whole small tournament: seating by hand, by lot, Swiss and the final
table; tours played to the deal cap and closed; a yellow card and a removal below the
threshold, a second card that disqualifies, the cut to the final table; the refusals
with their rules; standings as of a tour and a time, from the views and replayed;
export, import into an empty store, and verify.

The tournament is played once per store (a module fixture); each test reads it. The
views, the export and import are read on both stores; the rules on SQLite alone.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from uuid import uuid4

import psycopg
import pytest
from click.testing import CliRunner, Result
from psycopg import sql

from cli.main import main
from conftest import POSTGRES_ENV, POSTGRES_SKIP
from helpers import stored_rows
from ledger.application import Ledger
from ledger.words.deal_line import deal_events
from ledger.store.event_store import Store, parse_postgres_url
from ledger.desks.tournament import Tournaments
from ledger.views.archive import Views
from ledger.vocabulary.events import GameStarted
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.times import utc_micros
from ledger.vocabulary.tournament_events import Segment, TournamentStarted
from projections.archive import game_result
from projections.tournament_state import TournamentState, standings_doc, tallies_of
from readings import dump
from test_inputs import rechained
from test_tournament_rules import redrawn

PLAYERS = ("Anna", "Boris", "Vera", "Gleb", "Dina", "Egor")
WIN = "6S pass pass | 6S | pass pass"  # the forehand plays a six unopposed: 2 in his pulya
LOSE = "misere pass pass | misere | 2"  # the forehand's misère fails with two tricks


class Clock:
    """One minute later at every call, so that every event has a time of its own."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 18, 0, tzinfo=timezone.utc)

    def __call__(self) -> str:
        self.now += timedelta(minutes=1)
        return self.now.isoformat(timespec="seconds")


def play(ledger: Ledger, game: str, loser: str | None, cap: int, deals: int = 99) -> None:
    """Deal until the pulka is over (or ``deals`` more): ``loser`` fails a misère whenever
    he is forehand, every other forehand makes a six."""
    for _ in range(deals):
        state = ledger.state(game)
        if game_result(state, cap).over:
            return
        nxt = state.next_deal()
        turn = nxt.turn()
        assert turn is not None
        line = LOSE if state.players[turn] == loser else WIN
        ledger.execute(game, lambda st: deal_events(st, line))


def cli(db: str, *args: str) -> Result:
    return CliRunner().invoke(main, [*args, "--db", db], catch_exceptions=False)


def ok(db: str, *args: str) -> str:
    result = cli(db, *args)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.stdout


def refused(db: str, *args: str) -> str:
    result = cli(db, *args)
    assert result.exit_code == 1, f"{args} should be refused: {result.output}"
    assert "Traceback" not in result.output
    return result.stderr


@dataclass
class Played:
    db: str
    tmp: Path
    after_tour_1: dict[str, Any]  # the standings as they stood right after tour 1 was closed
    mid_tour_2: str  # a time while tour 2 was being played
    at_mid_tour_2: dict[str, Any]  # the standings at that time (with the table in play)
    refusals: dict[str, Refused]


def new_schema() -> Iterator[str]:
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        pytest.skip(POSTGRES_SKIP)
    address = parse_postgres_url(base)
    schema = f"pulka_test_{uuid4().hex[:12]}"
    with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    yield base + ("&" if "?" in base else "?") + f"schema={schema}"
    with psycopg.connect(**address.connect_kwargs(), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


STORE_FIXTURES = ("played",)  # on both stores, or SQLite alone for a test marked sqlite_only (conftest.py)


@pytest.fixture(scope="module")
def played(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    tmp = tmp_path_factory.mktemp("tournament")
    if request.param == "sqlite":
        yield from _play(str(tmp / "pulka.db"), tmp)
    else:
        for url in new_schema():
            yield from _play(url, tmp)


def _refusal(call: Any) -> Refused:
    with pytest.raises(Refused) as caught:
        call()
    return caught.value


def live(views: Views) -> Any:
    def tables(state: TournamentState, time: str | None) -> Any:
        views.catch_up()
        return views.tables(state.name, utc_micros(time) if time else None)
    return tables


def _play(db: str, tmp: Path) -> Iterator[Played]:
    cap = 6
    refusals: dict[str, Refused] = {}
    with Store(db) as store, Views(store) as views:
        ledger = Ledger(store, clock=Clock())
        t = Tournaments(ledger)
        t.create(TournamentStarted(
            game="cup", players=PLAYERS, pulya=6, tours=3, deal_cap=cap, table_size=3,
            cutoff=(Segment(50, "1"), Segment(None, "1/10")), removal_below=-100, final_table=3,
            by="arbiter:Oleg",
        ))
        # Tour 1, by hand: Anna and Gleb lose at their tables.
        t.seat("cup", 1, 1, ["Anna", "Boris", "Vera"])
        refusals["seated twice"] = _refusal(lambda: t.seat("cup", 1, 2, ["Gleb", "Dina", "anna"]))
        refusals["table size"] = _refusal(lambda: t.seat("cup", 1, 2, ["Gleb", "Dina"]))
        refusals["unknown"] = _refusal(lambda: t.seat("cup", 1, 2, ["Gleb", "Dina", "Zoya"]))
        t.seat("cup", 1, 2, ["Gleb", "Dina", "Egor"])
        refusals["other rules"] = _refusal(lambda: ledger.create(GameStarted(
            game="cup/1/1", players=("Anna", "Boris", "Vera"), pulya=6, convention="leningrad")))
        refusals["other pulya"] = _refusal(lambda: ledger.create(GameStarted(
            game="cup/1/1", players=("Anna", "Boris", "Vera"), pulya=10)))
        refusals["unseated table"] = _refusal(lambda: ledger.create(GameStarted(
            game="cup/1/3", players=("Anna", "Boris", "Vera"), pulya=6)))
        refusals["other players"] = _refusal(lambda: ledger.create(GameStarted(
            game="cup/1/1", players=("Anna", "Boris", "Dina"), pulya=6)))
        t.start_tables("cup", 1)
        refusals["close in play"] = _refusal(lambda: t.close("cup", 1))
        play(ledger, "cup/1/1", "Anna", cap)
        play(ledger, "cup/1/2", "Gleb", cap)
        refusals["past the cap"] = _refusal(lambda: ledger.execute("cup/1/1", lambda st: deal_events(st, WIN)))
        refusals["seat before close"] = _refusal(lambda: t.seat_auto("cup", 2))
        t.close("cup", 1)
        refusals["after close"] = _refusal(lambda: ledger.execute("cup/1/1", lambda st: deal_events(st, WIN)))
        after_tour_1 = standings_doc(t.standings("cup", None, None, live(views))[0])
        # Anna and Gleb sit out tour 2 (a card each); Anna's second card disqualifies her.
        refusals["removed"] = _refusal(lambda: t.seat("cup", 2, 1, ["Gleb", "Boris", "Vera"]))
        t.card("cup", "Anna", "talking during the play", by="arbiter:Oleg")
        refusals["disqualified"] = _refusal(lambda: t.seat("cup", 2, 1, ["Anna", "Boris", "Vera"]))
        t.seat_auto("cup", 2)
        t.start_tables("cup", 2)
        play(ledger, "cup/2/1", None, cap, deals=3)
        mid_tour_2 = ledger.clock()
        at_mid_tour_2 = standings_doc(t.standings("cup", None, None, live(views))[0])
        play(ledger, "cup/2/1", None, cap)
        t.close("cup", 2)
        refusals["cut"] = _refusal(lambda: t.seat("cup", 3, 1, ["Gleb", "Boris", "Vera"]))
        t.seat_auto("cup", 3)
        t.start_tables("cup", 3)
        play(ledger, "cup/3/1", "Boris", cap)
        t.close("cup", 3)
        refusals["after the last tour"] = _refusal(lambda: t.seat_auto("cup", 4))
    yield Played(db, tmp, after_tour_1, mid_tour_2, at_mid_tour_2, refusals)


@pytest.mark.sqlite_only
def test_refusals_name_their_rule(played: Played) -> None:
    r = played.refusals
    assert r["seated twice"].rule == "tournament.seating" and "Anna is seated twice in tour 1" in str(r["seated twice"])
    assert r["table size"].rule == "1.2" and "3 or 4" in str(r["table size"])
    assert r["unknown"].rule == "tournament.players" and "'Zoya' is not a player" in str(r["unknown"])
    assert r["other rules"].rule == "tournament.rules" and "rule set" in str(r["other rules"])
    assert r["other pulya"].rule == "tournament.rules" and "pulya of 6" in str(r["other pulya"])
    assert r["unseated table"].rule == "tournament.seating" and "table 3 of tour 1" in str(r["unseated table"])
    assert r["other players"].rule == "tournament.seating"
    assert r["close in play"].rule == "tournament.closed" and "still in play" in str(r["close in play"])
    assert r["past the cap"].rule == "tournament.deal_cap" and "4.2.15" in str(r["past the cap"])
    assert r["seat before close"].rule == "tournament.seating"
    assert r["after close"].rule == "tournament.closed" and "tour 1 of cup was closed" in str(r["after close"])
    assert r["removed"].rule == "tournament.removal" and "Gleb is removed for tour 2" in str(r["removed"])
    assert r["disqualified"].rule == "tournament.removal" and "disqualified" in str(r["disqualified"])
    assert r["cut"].rule == "tournament.cuts" and "did not pass the cut after tour 2" in str(r["cut"])
    assert r["after the last tour"].rule == "tournament.tours"


@pytest.mark.sqlite_only
def test_nobody_joins_a_tournament_table_and_a_substitute_is_the_arbiters_and_plays_at_one_table(
    store_url: str,
) -> None:
    """A newcomer at a table would play for nobody in the standings: the arbiter seats the
    tables. A substitute plays for the seated player, who keeps the seat's result; the
    arbiter records him [Code 5.4.7, 4.2.16], and one person plays at one table a tour."""
    db = store_url
    ok(db, "tournament", "new", "spring", "--players", "Anna,Boris,Vera,Gleb,Dina,Egor", "--pulya", "4",
       "--deal-cap", "6")
    ok(db, "tournament", "seat", "spring", "1", "1", "Anna,Boris,Vera")
    ok(db, "tournament", "seat", "spring", "1", "2", "Gleb,Dina,Egor")
    ok(db, "tournament", "start", "spring", "1")
    ok(db, "deal", "spring/1/1", "6S pass pass | 6S | pass pass")
    before = stored_rows(db)
    err = refused(db, "join", "spring/1/1", "Zoya", "--agreed-by", "Anna,Boris,Vera")
    assert "Zoya cannot join spring/1/1" in err and "[tournament.seating" in err and "pulka substitute" in err
    # Without the arbiter: refused, whoever records it.
    for by in ((), ("--by", "Anna")):
        err = refused(db, "substitute", "spring/1/1", "Vera", "Zoya", "--agreed-by", "Anna,Boris", *by)
        assert "substitute is seated by the arbiter" in err and "[tournament.substitute" in err, err
        assert "--by arbiter:NAME" in err
    # Gleb sits at spring/1/2 in this tour: he cannot play for Vera at spring/1/1 too.
    err = refused(db, "substitute", "spring/1/1", "Vera", "gleb", "--agreed-by", "Anna,Boris", "--by", "arbiter:Oleg")
    assert "gleb is seated at table 2 of tour 1 (spring/1/2)" in err and "[tournament.substitute" in err, err
    assert stored_rows(db) == before
    ok(db, "substitute", "spring/1/1", "Vera", "Zoya", "--agreed-by", "Anna,Boris", "--by", "arbiter:Oleg")
    # Zoya now plays at spring/1/1: she cannot take a seat at spring/1/2 as well.
    before = stored_rows(db)
    err = refused(db, "substitute", "spring/1/2", "Egor", "ZOYA", "--agreed-by", "Gleb,Dina", "--by", "arbiter:Oleg")
    assert "ZOYA plays at spring/1/1 in tour 1 already" in err and "[tournament.substitute" in err, err
    assert stored_rows(db) == before
    ok(db, "deal", "spring/1/1", "pass pass pass | 4 3 3")
    assert set(json.loads(ok(db, "settle", "spring/1/1", "--json"))["rounded"]) == {"Anna", "Boris", "Vera"}


def test_a_substitute_at_two_tables_of_a_tour_is_refused_on_import(tmp_path: Path) -> None:
    """The same judgement when a whole tournament comes from a file: the second table's
    substitute, recorded outside the ledger, is refused at its line, nothing stored."""
    db = str(tmp_path / "one.db")
    ok(db, "tournament", "new", "spring", "--players", "Anna,Boris,Vera,Gleb,Dina,Egor", "--pulya", "4")
    ok(db, "tournament", "seat", "spring", "1", "1", "Anna,Boris,Vera")
    ok(db, "tournament", "seat", "spring", "1", "2", "Gleb,Dina,Egor")
    ok(db, "tournament", "start", "spring", "1")
    ok(db, "substitute", "spring/1/1", "Vera", "Zoya", "--agreed-by", "Anna,Boris", "--by", "arbiter:Oleg")
    ok(db, "substitute", "spring/1/2", "Egor", "Ira", "--agreed-by", "Gleb,Dina", "--by", "arbiter:Oleg")
    lines = [json.loads(line) for line in ok(db, "tournament", "export", "spring").splitlines()]
    sub = [i for i, line in enumerate(lines) if line["type"] == "substituted"]
    assert [lines[i]["substitute"] for i in sub] == ["Zoya", "Ira"]
    for line in lines:
        line.pop("digest")
    lines[sub[1]]["substitute"] = "Zoya"
    path = tmp_path / "two.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    other = str(tmp_path / "other.db")
    err = refused(other, "import", str(path))
    assert "Zoya plays at spring/1/1 in tour 1 already" in err, err
    assert stored_rows(other) == []


@pytest.mark.sqlite_only
def test_an_unseatable_tournament_is_refused_with_what_would_be_seatable(store_url: str, tmp_path: Path) -> None:
    """Five players cannot sit at tables of 3 and 4 [Code 1.2]: no tour of such a
    tournament could be seated; four (one table) or six (two of three) could."""
    db = store_url
    five = "Anna,Boris,Vera,Gleb,Dina"
    for size in ("3", "4"):
        err = refused(db, "tournament", "new", "five", "--players", five, "--pulya", "4", "--table-size", size)
        assert "a tournament of 5 players cannot be seated at tables of 3 and 4 [Code 1.2]" in err, err
        assert "allowed: 4 players: one table of 4; 6 players: tables of 3, 3" in err, err
    # A cut to five leaves the tours after it unseatable, as a final table larger than the field.
    six = five + ",Egor"
    err = refused(db, "tournament", "new", "cut", "--players", six + ",Igor", "--pulya", "4", "--table-size", "3",
                  "--tours", "3", "--cut", "1:5")
    assert "after the cut after tour 1, 5 players cannot be seated at tables of 3 and 4 [Code 1.2]" in err, err
    err = refused(db, "tournament", "new", "tiny", "--players", "Anna,Boris,Vera", "--pulya", "4", "--tours", "2",
                  "--final-table", "4")
    assert "a final table of 4 from 3 players" in err and "[tournament.final" in err, err
    assert stored_rows(db) == []
    # The same from a file.
    path = tmp_path / "five.jsonl"
    path.write_text(json.dumps({"type": "tournament_started", "game": "five", "players": five.split(","),
                                "pulya": 4, "table_size": 3}) + "\n")
    assert "line 1:" in refused(db, "import", str(path))
    assert stored_rows(db) == []
    ok(db, "tournament", "new", "six", "--players", six, "--pulya", "4", "--table-size", "4")
    assert ok(db, "tournament", "list") == "six\n"


def deals(ledger: Ledger, game: str, lines: list[str]) -> None:
    for line in lines:
        ledger.execute(game, lambda st, line=line: deal_events(st, line))


@pytest.mark.sqlite_only
def test_a_removal_at_the_close_before_the_final_leaves_the_cut_to_the_next_eligible(store_url: str) -> None:
    """A player removed at the close of the tour before the final sits the final out: the
    cut to the final table takes the next eligible players, and the final is seated."""
    db = store_url
    a_loses = [LOSE, WIN, WIN]  # the forehand (the table's first player) fails a misère
    others_lose = [WIN, LOSE, LOSE]  # the second and third players fail theirs
    even = [WIN, WIN, WIN]
    with Store(db) as store:
        ledger = Ledger(store, clock=Clock())
        t = Tournaments(ledger)
        t.create(TournamentStarted(game="cup", players=("A", "B", "C", "D", "E", "F"), pulya=6, tours=3,
                                   deal_cap=3, table_size=3, removal_below=-100, final_table=4, by="arbiter:Oleg"))
        t.seat("cup", 1, 1, ["A", "B", "C"])
        t.seat("cup", 1, 2, ["D", "E", "F"])
        t.start_tables("cup", 1)
        deals(ledger, "cup/1/1", others_lose)
        deals(ledger, "cup/1/2", even)
        t.close("cup", 1)
        t.seat("cup", 2, 1, ["A", "D", "E"])
        t.seat("cup", 2, 2, ["B", "C", "F"])
        t.start_tables("cup", 2)
        deals(ledger, "cup/2/1", a_loses)
        deals(ledger, "cup/2/2", even)
        t.close("cup", 2)
    after_2 = json.loads(ok(db, "tournament", "standings", "cup", "--json", "--tour", "2"))["standings"]
    entry = "ABCDEF"

    def rank(r: dict[str, Any]) -> tuple[Any, ...]:
        last = next(e["whists"] for e in r["tours"] if e["tour"] == 2)
        return (-r["points"], -r["whists"], -r["tours_won"], -last, entry.index(r["player"]))

    by_points = [r["player"] for r in sorted(after_2, key=rank)]
    # The situation of the issue: A lost below the threshold in tour 2, so sits out tour 3,
    # and yet his points put him among the first four.
    a_tour_2 = settled(db, "cup/2/1")["A"]
    assert a_tour_2 < -100 and by_points.index("A") < 4, (a_tour_2, by_points)
    expected = [p for p in by_points if p != "A"][:4]
    log = ok(db, "tournament", "log", "cup")
    assert "A sits out tour 3" in log
    assert f"cut after tour 2: 4 go on ({', '.join(expected)})" in log, log
    statuses = {r["player"]: r["status"] for r in after_2}
    assert statuses["A"] == "cut" and all(statuses[p] == "final" for p in expected)
    seated = ok(db, "tournament", "seat", "cup", "3", "--auto", "--by", "arbiter:Oleg")
    assert f"tour 3, table 1 (cup/3/1): {', '.join(expected)}; the final table" in seated, seated
    assert "started cup/3/1" in ok(db, "tournament", "start", "cup", "3")


def settled(db: str, game: str) -> dict[str, int]:
    doc: dict[str, int] = json.loads(ok(db, "settle", game, "--json"))["rounded"]
    return doc


def points(whists: int) -> float:
    """The cut-off of the test's tournament: 50 in full, a tenth of the rest."""
    if abs(whists) <= 50:
        return whists
    return (50 + (abs(whists) - 50) / 10) * (1 if whists > 0 else -1)


@pytest.mark.sqlite_only
def test_standings_add_each_tours_rounded_settlement_through_the_cut_off(played: Played) -> None:
    doc = json.loads(ok(played.db, "tournament", "standings", "cup", "--json"))
    assert doc["tournament"] == "cup" and doc["after_tour"] == 3
    rows = {r["player"]: r for r in doc["standings"]}
    games = {f"cup/{tour}/{table}": settled(played.db, f"cup/{tour}/{table}")
             for tour, table in [(1, 1), (1, 2), (2, 1), (3, 1)]}
    for player, row in rows.items():
        tours = row["tours"]
        expected = [(g, w[player]) for g, w in games.items() if player in w]
        assert [(f"cup/{e['tour']}/{e['table']}", e["whists"]) for e in tours] == expected
        assert row["whists"] == sum(w for _, w in expected)
        assert row["points"] == pytest.approx(sum(points(w) for _, w in expected))
        assert all(e["points"] == pytest.approx(points(e["whists"])) for e in tours)


@pytest.mark.sqlite_only
def test_a_loss_below_the_threshold_cards_and_removes_and_a_second_card_disqualifies(played: Played) -> None:
    doc = json.loads(ok(played.db, "tournament", "standings", "cup", "--json"))
    rows = {r["player"]: r for r in doc["standings"]}
    assert settled(played.db, "cup/1/1")["Anna"] < -100 and settled(played.db, "cup/1/2")["Gleb"] < -100
    assert rows["Anna"]["status"] == "disqualified" and rows["Anna"]["cards"] == 2
    assert rows["Gleb"]["cards"] == 1 and [e["tour"] for e in rows["Gleb"]["tours"]] == [1]  # sat out tour 2
    assert doc["standings"][-1]["player"] == "Anna"  # the disqualified come last
    log = ok(played.db, "tournament", "log", "cup")
    assert "yellow card 1 to Gleb in tour 1: tour 1 result" in log and "Gleb sits out tour 2" in log
    assert "yellow card 2 to Anna" in log and "Anna disqualified" in log


@pytest.mark.sqlite_only
def test_the_cut_leaves_the_final_table_on_top(played: Played) -> None:
    doc = json.loads(ok(played.db, "tournament", "standings", "cup", "--json"))
    after_2 = json.loads(ok(played.db, "tournament", "standings", "cup", "--json", "--tour", "2"))
    finalists = [r["player"] for r in after_2["standings"][:3]]
    assert [r["status"] for r in after_2["standings"][:3]] == ["final"] * 3
    log = ok(played.db, "tournament", "log", "cup")
    assert f"cut after tour 2: 3 go on ({', '.join(finalists)})" in log
    assert "tour 3, table 1 (cup/3/1)" in log and "the final table" in log
    # After the final the finalists stay above the players cut, whatever their points.
    assert sorted(r["player"] for r in doc["standings"][:3]) == sorted(finalists)
    assert all(r["status"] == "finished" for r in doc["standings"][:3])
    assert {r["status"] for r in doc["standings"][3:]} == {"cut", "disqualified"}


@pytest.mark.sqlite_only
def test_standings_replay_as_of_a_tour_and_a_time(played: Played) -> None:
    after_1 = json.loads(ok(played.db, "tournament", "standings", "cup", "--json", "--tour", "1"))
    assert after_1 == played.after_tour_1
    at_mid = json.loads(ok(played.db, "tournament", "standings", "cup", "--json", "--time", played.mid_tour_2))
    assert at_mid == played.at_mid_tour_2
    in_play = [e for r in at_mid["standings"] for e in r["tours"] if e.get("in_play")]
    assert at_mid["after_tour"] == 1 and {e["tour"] for e in in_play} == {2} and len(in_play) == 4
    replayed = json.loads(ok(played.db, "tournament", "standings", "cup", "--json", "--time", played.mid_tour_2,
                             "--replay"))
    assert replayed == at_mid
    assert "tour 4 is not closed" in refused(played.db, "tournament", "standings", "cup", "--tour", "4")


def test_the_lot_is_recorded_with_its_seed(tmp_path: Path) -> None:
    db = str(tmp_path / "lot.db")
    ok(db, "tournament", "new", "lot", "--players", ",".join(PLAYERS + ("Igor", "Kira", "Lev", "Mira")),
       "--pulya", "6", "--table-size", "4", "--tours", "2")
    out = ok(db, "tournament", "seat", "lot", "1", "--auto", "--seed", "abc")
    assert "by lot (seed abc)" in out
    assert len([line for line in out.splitlines() if "table" in line]) == 3  # 10 players: 4, 3, 3
    log = json.loads(ok(db, "tournament", "log", "lot", "--json"))["events"]
    assert [e["type"] for e in log] == ["tournament_started", "seated", "seated", "seated"]


def test_export_import_into_an_empty_store_reproduces_the_standings_and_verifies(played: Played) -> None:
    export = played.tmp / "cup.jsonl"
    export.write_text(ok(played.db, "tournament", "export", "cup"))
    streams = [json.loads(line) for line in export.read_text().splitlines()
               if '"tournament_started"' in line or '"game_started"' in line]
    assert [s["game"] for s in streams] == ["cup", "cup/1/1", "cup/1/2", "cup/2/1", "cup/3/1"]
    checked = ok(played.db, "verify", "--file", str(export))
    assert checked.count("chain intact") == 5
    copy = str(played.tmp / f"copy-{uuid4().hex[:6]}.db")
    imported = ok(copy, "import", str(export))
    assert "created cup:" in imported and "created cup/3/1:" in imported
    for args in (["--json"], ["--json", "--tour", "1"], ["--json", "--time", played.mid_tour_2]):
        assert ok(copy, "tournament", "standings", "cup", *args) == ok(played.db, "tournament", "standings", "cup", *args)
    assert ok(copy, "verify").count("chain intact") == 5
    # Into a store that has it already: refused, nothing changes.
    assert "stored already" in refused(copy, "import", str(export))
    # An edited result in the tour's close no longer chains.
    edited = played.tmp / "edited.jsonl"
    edited.write_text(export.read_text().replace('"end":"capped"', '"end":"finished"', 1))
    assert "digest chain" in refused(str(played.tmp / "other.db"), "import", str(edited))
    assert "export of cup:" in refused(played.db, "verify", "--file", str(edited))


@pytest.mark.sqlite_only
def test_the_tournament_page_holds_every_tour_and_every_table(played: Played) -> None:
    page = ok(played.db, "tournament", "report", "cup")
    assert re.findall(r'<template data-sheet="([^"]+)"', page) == ["cup/1/1", "cup/1/2", "cup/2/1", "cup/3/1"]
    assert re.findall(r'"after_tour":\s*(\d+)', page) == ["1", "2", "3"]


def test_the_views_kept_incrementally_equal_a_rebuild(played: Played) -> None:
    with Store(played.db) as store, Views(store) as views:
        views.catch_up()
        kept = dump(views)
        assert views.position() == views.head()
        views.rebuild()
        assert dump(views) == kept
        assert views.position() == views.head()
    games = [row[0] for row in kept["archive_games"]]
    assert games == sorted(["cup/1/1", "cup/1/2", "cup/2/1", "cup/3/1"])
    assert kept["archive_tournaments"] == [("cup", 6)]


@pytest.mark.sqlite_only
def test_the_close_records_the_codes_criteria_and_the_standings_break_ties_by_them(store_url: str,
                                                                                    tmp_path: Path) -> None:
    """A tournament that breaks ties by the Code's criteria [Code 4.1.3] and the lot: the
    close of a tour records each player's counts from his table's deals (derived here by
    hand), the standings show them, and an import checks them against the games."""
    db = store_url
    out = ok(db, "tournament", "new", "crit", "--players", "Anna,Boris,Vera", "--pulya", "20", "--tours", "1",
             "--deal-cap", "7", "--table-size", "3", "--tie-breaks",
             "whists,raspasy_won,raspasy_tricks,remizes,misere_tricks,lot", "--lot-seed", "crit-2026",
             "--by", "arbiter:Oleg")
    assert "ties broken by whists, raspasy_won, raspasy_tricks, remizes, misere_tricks, lot (seed crit-2026)" in out
    ok(db, "tournament", "seat", "crit", "1", "1", "Anna,Boris,Vera")
    ok(db, "tournament", "start", "crit", "1")
    for line in (
        "pass pass pass | 4 3 3",                 # raspasy: Boris and Vera took fewest (3): both won
        "misere pass pass | misere | 2",          # Boris's misère, two tricks: a remiz
        "7S pass pass | 7S | whist whist | 5 3 2",  # Vera's seven, five tricks: a remiz
        "6S pass pass | 6S | whist pass | 6 3 1",  # Anna's six made
        "misere pass pass | misere | 0",          # Boris's misère made, no trick
    ):
        ok(db, "deal", "crit/1/1", line)
    ok(db, "annul", "crit/1/1", "--reason", "misdeal")  # deal 6: void, counts nothing
    ok(db, "deal", "crit/1/1", "pass pass pass | 0 5 5")  # raspasy from Vera: she took none, won
    ok(db, "tournament", "close", "crit", "1")
    expected = {
        "Anna": {"raspasy_tricks": 4 + 5},
        "Boris": {"raspasy_won": 1, "raspasy_tricks": 3 + 5, "remizes": 1, "misere_tricks": 2 + 0},
        "Vera": {"raspasy_won": 2, "raspasy_tricks": 3 + 0, "remizes": 1},
    }
    export = ok(db, "tournament", "export", "crit")
    closed = next(json.loads(line) for line in export.splitlines() if '"tour_closed"' in line)
    assert closed["tables"][0]["tallies"] == expected
    lot = redrawn("crit-2026", ["Anna", "Boris", "Vera"])
    rows = json.loads(ok(db, "tournament", "standings", "crit", "--json"))["standings"]
    for row in rows:
        counts = expected[row["player"]]
        assert row["tie_breaks"] == {
            "whists": row["whists"], "lot": lot.index(row["player"]) + 1,
            **{k: counts.get(k, 0) for k in ("raspasy_won", "raspasy_tricks", "remizes", "misere_tricks")},
        }
    # The export comes back whole; a count changed (and chained anew) is refused at its line.
    (tmp_path / "crit.jsonl").write_text(export)
    copy = str(tmp_path / "copy.db")
    ok(copy, "import", str(tmp_path / "crit.jsonl"))
    assert ok(copy, "tournament", "standings", "crit", "--json") == ok(db, "tournament", "standings", "crit", "--json")

    def more_remizes(number: int, data: dict[str, Any]) -> None:
        if data["type"] == "tour_closed":
            data["tables"][0]["tallies"]["Anna"]["remizes"] = 1

    (tmp_path / "edited.jsonl").write_text(rechained(export, more_remizes))
    err = refused(str(tmp_path / "other.db"), "import", str(tmp_path / "edited.jsonl"))
    assert "the close of tour 1 does not match crit/1/1 as recorded" in err, err


@pytest.mark.sqlite_only
def test_the_tie_breaks_are_judged_when_the_tournament_starts(store_url: str) -> None:
    db = store_url
    start = ("tournament", "new", "t", "--players", "Anna,Boris,Vera", "--pulya", "10")
    assert "the lot separates every tie" in refused(db, *start, "--tie-breaks", "lot,whists")
    assert "the lot is not a tie-break" in refused(db, *start, "--lot-seed", "x")
    assert "unknown tie-break 'raspasy'" in refused(db, *start, "--tie-breaks", "raspasy")
    assert stored_rows(db) == []
    # The lot without a seed: the ledger draws one and records it, so it replays.
    ok(db, *start, "--tie-breaks", "remizes,lot")
    log = json.loads(ok(db, "tournament", "log", "t", "--json"))["events"]
    seed = re.search(r"lot \(seed ([0-9a-f]{16})\)", log[0]["effect"])
    assert seed is not None, log[0]["effect"]
    exported = json.loads(ok(db, "tournament", "export", "t").splitlines()[0])
    assert exported["lot_seed"] == seed.group(1) and exported["tie_breaks"] == ["remizes", "lot"]


WORDS_REFUSED = (  # (the option, the API's field, a word of it that cannot be read, the reason)
    ("--cutoff", "cutoff", "200", "--cutoff takes UPTO:RATE,…, e.g. 200:1,650:1/10,*:0; not '200'"),
    ("--cutoff", "cutoff", "200:1,x:0", "--cutoff bound 'x' is not a whole number of whists or *"),
    ("--cut", "cuts", "1", "--cut takes TOUR:KEEP (after tour TOUR the first KEEP go on), not '1'"),
    ("--tie-breaks", "tie_breaks", "whists,raspasy",
     "unknown tie-break 'raspasy'; the tie-breaks are whists, tours_won, last_tour, raspasy_won, raspasy_tricks, "
     "remizes, misere_tricks, lot"),
)


def test_the_tournaments_words_are_refused_alike_by_both_faces(store_url: str) -> None:
    """The cut-off, a cut and the tie-breaks are read by the ledger's words
    (``ledger.words.tournament``) for both faces. The command line says a word it cannot
    read as a mistake in an option, its reason alone, exit status 1; the API refuses it
    as it refuses anything (docs/api.md), with the rule and the field. Nothing is stored."""
    from serving import account, client, sign_in

    db = store_url
    start = ("tournament", "new", "t", "--players", "Anna,Boris,Vera", "--pulya", "10")
    for option, _, word, reason in WORDS_REFUSED:
        result = cli(db, *start, option, word)
        assert (result.exit_code, result.stderr) == (1, f"pulka: {reason}\n"), result.output
    account(db, "dora", "director")
    with client(db) as c:
        director = sign_in(c, "dora")
        for i, (option, field, word, reason) in enumerate(WORDS_REFUSED):
            body = {"id": f"tour-{i:05d}", "name": "t", "players": ["Anna", "Boris", "Vera"], "pulya": 10,
                    field: [word] if field == "cuts" else word}
            r = c.post("/api/tournaments", json=body, headers=director)
            assert r.status_code == 422, r.text
            assert {k: r.json()["refused"][k] for k in ("rule", "reason", "field")} == {
                "rule": f"tournament.{field}", "reason": reason, "field": field}
    with Store(db, create=False) as store:
        assert store.games() == []


def test_a_tally_counts_the_four_player_dealers_talon_tricks_but_not_his_win(tmp_path: Path) -> None:
    """Raspasy with four players [Code 3.7.6.1]: the sitting-out dealer's talon tricks
    count among the raspasy tricks, but only the three in the deal can win it."""
    with Store(str(tmp_path / "four.db")) as store:
        ledger = Ledger(store, clock=Clock())
        ledger.create(GameStarted(game="four", players=("Anna", "Boris", "Vera", "Gleb"), pulya=10))
        deals(ledger, "four", ["pass pass pass | 3 4 2 1"])
        state = ledger.state("four")
    deal = state.deals[0]
    forehand, second, third = (deal.names[s] for s in deal.bidders)
    dealer = deal.names[deal.dealer]
    tallies = tallies_of(state)
    assert {p: (t.raspasy_won, t.raspasy_tricks) for p, t in tallies.items()} == {
        forehand: (0, 3), second: (0, 4), third: (1, 2), dealer: (0, 1)}

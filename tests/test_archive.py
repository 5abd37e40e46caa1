"""The club archive: one identity per player across pulkas (names compared after Unicode
normalisation and case folding, aliases by an explicit event), ``pulka players`` and
``pulka player`` now, between dates, by convention and as of a time; the views that keep
them: incremental equals rebuilt, a crash leaves them as they were and the next run
resumes, a read never makes tables."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from cli.main import main
from conftest import RawEvents
from helpers import stored_rows
from ledger.application import Ledger
from ledger.judge.kinds import start_stream
from ledger.words.deal_line import deal_events
from ledger.store.event_store import Store, StoreError
from ledger.views.archive import Views
from ledger.vocabulary.events import Abandoned, EVENT_TYPES, ForeignEvent, GameStarted, decode_event, encode_event
from readings import dump, parse_log
from ledger.vocabulary.names import colliding, name_key
from projections.archive import deals_done, may_change_result, game_result
from projections.game import GameState

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
WIN = "6S pass pass | 6S | pass pass"


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


# -- names ------------------------------------------------------------------------------


@pytest.mark.parametrize("spelling", ["Anna", "anna", " ANNA ", "Ａｎｎａ", "ａｎｎａ\u3000"])
def test_one_player_whatever_the_case_width_or_blanks(spelling: str) -> None:
    assert name_key(spelling) == name_key("Anna")


def test_names_that_differ_stay_apart_and_collisions_are_found() -> None:
    assert name_key("Anna P.") != name_key("Anna")
    assert name_key("Straße") == name_key("STRASSE")  # case folding, not lowercasing
    assert name_key("Anna  Petrova") == name_key("anna petrova")
    assert colliding(["Anna", "Boris", "ANNA"]) == ("Anna", "ANNA")
    assert colliding(["Anna", "Boris", "Vera"]) is None


MINIMAL = {
    "club_started": '"game":"@club"', "player_aliased": '"name":"a","same_as":"b"',
    "tournament_started": '"game":"t","players":["a","b","c"],"pulya":10',
    "seated": '"tour":1,"table":1,"players":["a","b","c"]', "tour_closed": '"tour":1,"tables":[]',
    "yellow_card": '"player":"a","tour":1', "removed": '"player":"a","tour":2',
    "disqualified": '"player":"a","tour":1', "cut_made": '"after_tour":1,"kept":["a"]',
}


@pytest.mark.parametrize("tag", sorted(MINIMAL))
def test_events_of_tournaments_and_the_register_round_trip(tag: str) -> None:
    event = decode_event(f'{{"type":"{tag}",{MINIMAL[tag]}}}')
    assert isinstance(event, ForeignEvent) and type(event) is EVENT_TYPES[tag]
    assert decode_event(encode_event(event)) == event


# -- when the archive settles -------------------------------------------------------------


@pytest.mark.parametrize("log", sorted(FIXTURES.glob("*.jsonl")), ids=lambda p: p.stem)
def test_an_event_the_archive_does_not_settle_after_changes_no_result(log: Path) -> None:
    """The archive settles only after events that may change the result: check on every
    prefix of every fixture that the others leave it as it was."""
    events = [e for _, e in parse_log(log.read_text())]
    first = events[0]
    assert isinstance(first, GameStarted)
    state = GameState.start(first)
    before = game_result(state, 3)
    for event in events[1:]:
        done_before = deals_done(state)
        state.apply(event)
        if not may_change_result(event, state, done_before):
            assert game_result(state, 3) == before, event
        before = game_result(state, 3)


# -- the archive -------------------------------------------------------------------------


class Clock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> str:
        self.now += timedelta(minutes=1)
        return self.now.isoformat(timespec="seconds")


def record(db: str, game: str, players: tuple[str, ...], when: datetime, *, convention: str = "sochi",
           stake: str | None = None, deals: int = 99, abandon: bool = False) -> None:
    """A pulka to a pulya of 2, each forehand making a six, started at ``when``."""
    with Store(db) as store:
        ledger = Ledger(store, clock=Clock(when))
        ledger.create(GameStarted(game=game, players=players, pulya=2, convention=convention, stake=stake))
        for _ in range(deals):
            if ledger.state(game).over:
                break
            ledger.execute(game, lambda st: deal_events(st, WIN))
        if abandon:
            ledger.execute(game, lambda st: [Abandoned(agreed_by=players)])


def day(n: int) -> datetime:
    return datetime(2026, n, 10, 19, 0, tzinfo=timezone(timedelta(hours=3)))


@pytest.fixture
def archive(store_url: str) -> str:
    record(store_url, "jan", ("Anna", "Boris", "Vera"), day(1), stake="0.10")  # finished
    record(store_url, "feb", ("ANNA", "Gleb", "Boris"), day(2), convention="piter", deals=2, abandon=True)
    record(store_url, "mar", ("Ａｎｎａ", "Vera", "Anna P."), day(3), deals=2)  # still in play
    record(store_url, "apr", ("Anna P.", "Boris", "Gleb"), day(4), stake="0.50")  # finished
    return store_url


def settled(db: str, game: str, *args: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(ok(db, "settle", game, "--json", *args))
    return doc


def rows(db: str, *args: str) -> dict[str, dict[str, Any]]:
    return {p["player"]: p for p in json.loads(ok(db, "players", "--json", *args))["players"]}


def test_players_total_the_rounded_settlements_of_the_pulkas_over(archive: str) -> None:
    jan, feb, mar, apr = (settled(archive, g) for g in ("jan", "feb", "mar", "apr"))
    assert jan["finished"] and feb["abandoned"] and not mar["finished"] and apr["finished"]
    players = rows(archive)
    # Named as in her latest pulka: jan and feb (as ANNA) counted; mar (as Ａｎｎａ) in play.
    anna = players["Ａｎｎａ"]
    assert (anna["pulkas"], anna["finished"], anna["abandoned"], anna["in_play"]) == (2, 1, 1, 1)
    assert anna["whists"] == jan["rounded"]["Anna"] + feb["rounded"]["ANNA"]
    assert anna["best"] == max(jan["rounded"]["Anna"], feb["rounded"]["ANNA"])
    assert anna["worst"] == min(jan["rounded"]["Anna"], feb["rounded"]["ANNA"])
    assert anna["money"] == jan["money"]["Anna"]  # feb had no stake
    boris = players["Boris"]
    assert boris["pulkas"] == 3
    assert boris["whists"] == jan["rounded"]["Boris"] + feb["rounded"]["Boris"] + apr["rounded"]["Boris"]
    assert Decimal(boris["money"]) == Decimal(jan["money"]["Boris"]) + Decimal(apr["money"]["Boris"])
    assert boris["average"] == pytest.approx(boris["whists"] / 3)
    assert players["Anna P."]["pulkas"] == 1 and players["Anna P."]["in_play"] == 1


def test_a_players_history_runs_in_the_order_of_the_pulkas(archive: str) -> None:
    doc = json.loads(ok(archive, "player", "ａｎｎａ", "--json"))
    assert doc["player"] == "Ａｎｎａ"  # the spelling of the latest pulka
    assert sorted(doc["spellings"]) == sorted(["Anna", "ANNA", "Ａｎｎａ"])
    lines = doc["pulkas"]
    assert [(x["date"], x["game"], x["convention"], x["seat"], x["status"]) for x in lines] == [
        ("2026-01-10", "jan", "sochi", 1, "finished"),
        ("2026-02-10", "feb", "leningrad", 1, "abandoned"),
        ("2026-03-10", "mar", "sochi", 1, "playing"),
    ]
    jan, feb = settled(archive, "jan")["rounded"]["Anna"], settled(archive, "feb")["rounded"]["ANNA"]
    assert [x["running"] for x in lines] == [jan, jan + feb, jan + feb]  # in play: not added
    assert "no pulka of 'Zoya'" in refused(archive, "player", "Zoya")


def test_a_player_who_joined_counts_like_the_others(store_url: str) -> None:
    """A fourth player who joins [Code 3.1.2] has a result of his own: he is in the
    table of players and has a history, and the table of a pulka sums to zero."""
    db = store_url
    ok(db, "new", "g", "--players", "Anna,Boris,Vera", "--pulya", "10")
    ok(db, "deal", "g", "6S pass pass | 6S | whist pass | 6 2 2")
    ok(db, "join", "g", "Gleb", "--agreed-by", "Anna,Boris,Vera")
    ok(db, "deal", "g", "pass pass pass | 4 3 3")
    ok(db, "deal", "g", "7H pass pass | 7H | whist pass | 6 3 1")
    ok(db, "abandon", "g", "--agreed-by", "Anna,Boris,Vera,Gleb")
    rounded = settled(db, "g")["rounded"]
    assert set(rounded) == {"Anna", "Boris", "Vera", "Gleb"} and rounded["Gleb"] != 0
    players = rows(db)
    assert {p: players[p]["whists"] for p in players} == rounded
    assert sum(p["whists"] for p in players.values()) == 0
    gleb = json.loads(ok(db, "player", "gleb", "--json"))
    assert [(x["game"], x["seat"], x["players"], x["whists"]) for x in gleb["pulkas"]] == [
        ("g", 4, ["Anna", "Boris", "Vera", "Gleb"], rounded["Gleb"])
    ]
    assert "1 pulka over (0 finished, 1 abandoned)" in ok(db, "player", "Gleb")


def test_players_between_dates_and_by_convention(archive: str) -> None:
    assert set(rows(archive, "--from", "2026-02-01", "--to", "2026-02-28")) == {"ANNA", "Gleb", "Boris"}
    assert set(rows(archive, "--convention", "leningrad")) == set(rows(archive, "--convention", "piter"))
    assert rows(archive, "--convention", "leningrad")["Gleb"]["pulkas"] == 1
    assert "not a date" in refused(archive, "players", "--from", "yesterday")


def test_the_archive_as_of_a_time(archive: str) -> None:
    with Store(archive) as store:
        events = [s.event for s in store.load("mar")]
    during_mar = events[9].at  # deal 1 of mar recorded, deal 2 not yet
    assert during_mar is not None
    then = rows(archive, "--time", during_mar)
    assert "Anna P." in then and then["Anna P."]["in_play"] == 1
    assert then["Boris"]["pulkas"] == 2  # apr not started yet
    history = json.loads(ok(archive, "player", "Anna P.", "--json", "--time", during_mar))
    assert history["pulkas"][0]["whists"] == settled(archive, "mar", "--time", during_mar)["rounded"]["Anna P."]
    before_all = rows(archive, "--time", "2025-12-31T23:59:59+00:00")
    assert before_all == {}


def test_an_alias_joins_two_spellings_from_when_it_is_recorded(archive: str) -> None:
    assert "sat at mar" in refused(archive, "alias", "Anna P.", "Anna")  # both at the table of mar
    assert "one player already" in refused(archive, "alias", "ANNA", "anna")
    ok(archive, "alias", "Anna P.", "Anna Petrova", "--by", "arbiter:Oleg")
    assert "circle" in refused(archive, "alias", "Anna Petrova", "anna p.")
    assert "already" in refused(archive, "alias", "Anna P.", "Boris")
    players = rows(archive)
    assert "Anna P." not in players and players["Anna Petrova"]["pulkas"] == 1
    assert set(json.loads(ok(archive, "player", "anna petrova", "--json"))["spellings"]) == {"Anna P."}
    with Store(archive) as store:
        register = [s.event for s in store.load("@club")]
    assert [type(e).__name__ for e in register] == ["ClubStarted", "PlayerAliased"]
    before = register[1].at
    assert before is not None
    # What the archive said before the alias was recorded: two spellings, two players.
    earlier = (datetime.fromisoformat(before) - timedelta(seconds=1)).isoformat()
    assert "Anna P." in rows(archive, "--time", earlier)
    assert "'@club' is the club register, not a game" in refused(archive, "sheet", "@club")
    assert "may not begin with '@'" in refused(archive, "new", "@x", "--players", "A,B,C")
    assert "@club" not in ok(archive, "games")


def test_the_archive_reads_only_events_whose_chain_holds(archive: str) -> None:
    """Rows edited behind the ledger's back, their digests not computed anew: a pulka's
    contract and an alias's ``same_as``. The views leave each stream out from the event
    where its chain breaks (the pulka whole, the register's aliases from there on) and
    name it, on a read that catches up and on a rebuild alike (issue 24 item 4)."""
    db = archive
    feb, apr = (settled(db, g)["rounded"] for g in ("feb", "apr"))
    ok(db, "alias", "Anna P.", "Anna Petrova", "--by", "arbiter:Oleg")  # the views take in jan first
    raw = RawEvents(db)
    try:
        _, state = raw.row("jan", 5)
        assert b'"contract":"6S"' in state
        raw.set("jan", 5, state=state.replace(b'"contract":"6S"', b'"contract":"9S"'))
        _, state = raw.row("@club", 2)
        assert b'"same_as":"Anna Petrova"' in state
        raw.set("@club", 2, state=state.replace(b'"same_as":"Anna Petrova"', b'"same_as":"Boris"'))
    finally:
        raw.close()

    # A read takes in the alias, edited: left out, and named.
    read = cli(db, "players", "--json")
    assert read.exit_code == 0, read.output
    assert "warning: '@club' is left out of the archive from event 2 on, where its chain breaks" in read.stderr
    players = {p["player"]: p for p in json.loads(read.stdout)["players"]}
    assert players["Anna P."]["pulkas"] == 1 and "Anna Petrova" not in players
    assert players["Boris"]["pulkas"] == 3  # jan was taken in before its edit, as it was recorded

    rebuilt = cli(db, "views", "rebuild")
    assert rebuilt.exit_code == 0, rebuilt.output
    for result in (rebuilt, cli(db, "players")):
        assert "warning: 'jan' is left out of the archive from event 5 on, where its chain breaks" in result.stderr
        assert "warning: '@club' is left out of the archive from event 2 on" in result.stderr
    players = rows(db)
    boris = players["Boris"]
    assert boris["pulkas"] == 2 and boris["whists"] == feb["Boris"] + apr["Boris"]  # feb and apr, not jan
    anna = players["Ａｎｎａ"]  # named as in her latest pulka (mar, in play)
    assert anna["pulkas"] == 1 and anna["whists"] == feb["ANNA"]
    assert players["Anna P."]["pulkas"] == 1 and "Anna Petrova" not in players
    assert players["Anna P."]["whists"] == apr["Anna P."]
    assert players["Vera"]["pulkas"] == 0  # her one pulka over was jan
    assert "jan" not in {x["game"] for x in json.loads(ok(db, "player", "Vera", "--json"))["pulkas"]}


def test_an_alias_keeps_one_person_from_sitting_twice_at_one_table(store_url: str, tmp_path: Path) -> None:
    """Once "Anna P." is written for Anna, and "A. Petrova" for "Anna P.", no game seats
    two of those names (from the command line or a log, at its start, by a player who
    joins or takes a seat, a rubber too), no tournament enters two of them, and the
    archive never counts one person twice at a table; others are seated as before."""
    db = store_url
    ok(db, "new", "g", "--players", "Anna,Boris,Vera", "--pulya", "10")
    ok(db, "deal", "g", "6S pass pass | 6S | whist pass | 6 2 2")  # a newcomer joins after a deal [Code 3.1.2]
    ok(db, "alias", "Anna P.", "Anna", "--by", "arbiter:Oleg")
    ok(db, "alias", "A. Petrova", "anna p.", "--by", "arbiter:Oleg")
    log = tmp_path / "twice.jsonl"
    log.write_text(json.dumps({"type": "game_started", "game": "twice", "players": ["Boris", "A. Petrova", "ANNA"],
                               "pulya": 10}) + "\n", encoding="utf-8")
    before = stored_rows(db)
    for args, names, where in [
        (["new", "two", "--players", "Anna P.,Anna,Boris", "--pulya", "10"], ("Anna P.", "Anna"), "sits at a table"),
        (["import", str(log)], ("A. Petrova", "ANNA"), "sits at a table"),
        (["bridge", "new", "r", "--players", "Anna,Boris,A. Petrova,Gleb"], ("Anna", "A. Petrova"), "sits at a table"),
        (["join", "g", "A. Petrova", "--agreed-by", "Anna,Boris,Vera"], ("A. Petrova", "Anna"), "sits at a table"),
        (["substitute", "g", "Boris", "anna p.", "--agreed-by", "Anna,Vera"], ("anna p.", "Anna"), "sits at a table"),
        (["tournament", "new", "cup", "--players", "Anna,Boris,Vera,Anna P.", "--pulya", "6"], ("Anna", "Anna P."),
         "enters a tournament"),
    ]:
        err = refused(db, *args)
        first, second = names
        assert f"'{first}' and '{second}' are one player by the club's register" in err, (args, err)
        assert f"one person {where} once [club.alias" in err, (args, err)
    assert stored_rows(db) == before
    ok(db, "new", "two", "--players", "Anna P.,Boris,Vera", "--pulya", "10")
    ok(db, "join", "g", "Gleb", "--agreed-by", "Anna,Boris,Vera")
    assert rows(db)["Anna"]["in_play"] == 2  # g and two: one person, one seat at each


# -- the views -----------------------------------------------------------------------------

def test_views_incremental_equal_rebuilt_and_a_crash_resumes_where_it_stopped(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    record(store_url, "one", ("Anna", "Boris", "Vera"), day(1), stake="0.10")
    with Store(store_url) as store, Views(store) as views:
        views.catch_up()
        first = views.position()
        assert first == views.head()
        record(store_url, "two", ("Anna", "Gleb", "Vera"), day(2), deals=3)
        record(store_url, "three", ("Boris", "Gleb", "Dina"), day(3))
        monkeypatch.setattr("ledger.views.archive.CATCH_UP_BATCH", 4)
        saved: list[tuple[int, dict[str, Any]]] = []
        write, statements = views.view.write, views.view.write_statements
        counted = 0

        def counting_write(changes: Any, tracking: Any) -> None:
            write(changes, tracking)
            saved.append((tracking.notification_id, dump(views)))

        def failing_statements(change: Any) -> Any:
            nonlocal counted
            counted += 1
            if len(saved) == 3 and counted > 1:  # the 4th batch, after a write of it ran
                raise RuntimeError("the power went out")
            return statements(change)

        monkeypatch.setattr(views.view, "write", counting_write)
        monkeypatch.setattr(views.view, "write_statements", failing_statements)
        with pytest.raises(StoreError, match="power went out"):
            views.catch_up()
        position, dumped = saved[-1]
        assert len(saved) == 3 and views.position() == position > first
        assert dump(views) == dumped  # the failed batch left nothing, its position neither
        monkeypatch.undo()
        assert views.catch_up() > 0
        assert views.position() == views.head()
        kept = dump(views)
        views.rebuild()
        assert dump(views) == kept
    assert ok(store_url, "players") == ok(store_url, "players")


def test_a_read_never_makes_the_views(store_url: str) -> None:
    # The start as the ledger records it (its rules resolved), for the views count only
    # what the ledger would have recorded.
    _, started = start_stream(1, GameStarted(game="g", players=("A", "B", "C"), pulya=10),
                              lambda: "2026-01-01T10:00:00Z")
    with Store(store_url) as store:  # events stored around the ledger: no views made
        store.append("g", [started], 0)
    assert "no player views" in refused(store_url, "players")
    assert "no player views" in refused(store_url, "player", "A")
    with Store(store_url) as store, Views(store) as views:
        assert not views.exists()
    assert "views rebuilt from 1 event" in ok(store_url, "views", "rebuild")
    assert "A" in json.loads(ok(store_url, "players", "--json"))["players"][0]["player"]
    assert "views at event position" in ok(store_url, "views", "status")


def test_views_made_while_another_process_writes_hold_the_write_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two commands making the views at once: the second finds the tables made by the
    first (its CREATE TABLE IF NOT EXISTS only read), and a third process writes before
    the second writes its first row. The making takes SQLite's write lock as it begins,
    so the third waits for it; were the lock taken only at the first row, SQLite would
    refuse the making at once ("database is locked", the store error a race of sixteen
    processes once met)."""
    db = str(tmp_path / "pulka.db")
    record(db, "one", ("Anna", "Boris", "Vera"), day(1))
    ok(db, "players")  # the views' tables are there
    other = sqlite3.connect(db, timeout=0, isolation_level=None)  # a writer that does not wait
    told: list[str] = []

    def another_process_writes(point: str) -> None:
        try:
            other.execute("CREATE TABLE scratch (x)")
            told.append("written")
        except sqlite3.OperationalError as exc:
            told.append(str(exc))

    monkeypatch.setattr("ledger.views.recorders.pause", another_process_writes)
    with Store(db) as store, Views(store) as views:
        views.view.create()  # the second command's making, after the first made the tables
    assert told == ["database is locked"]  # the other writer had to wait for the making
    other.execute("CREATE TABLE scratch (x)")  # and writes once it is done
    other.close()
    assert ok(db, "players") == ok(db, "players")


def test_sqlite_view_tables_sit_beside_the_events(tmp_path: Path) -> None:
    db = str(tmp_path / "pulka.db")
    record(db, "one", ("Anna", "Boris", "Vera"), day(1))
    ok(db, "players")
    tables = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"stored_events", "tracking", "archive_games", "archive_results"} <= tables


def test_an_event_changed_behind_the_ledgers_back_stops_the_views_with_a_message(
    store: Store, store_url: str, raw: Any
) -> None:
    record(store_url, "one", ("Anna", "Boris", "Vera"), day(1))
    topic, state = raw.row("one", 2)  # Anna's first bid
    assert b'"bid":' in state
    raw.set("one", 2, state=state.replace(b'"bid":', b'"bid!":', 1))  # no longer an event
    err = refused(store_url, "players")
    assert "player views stopped after position" in err and "pulka verify" in err
    assert "TAMPERED" in cli(store_url, "verify", "one").stdout

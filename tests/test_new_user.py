"""Smaller things a new user ran into (issue 20, item 7): a time of day typed alone is
today's; a tournament's log shows times as a game's does; every `new` takes -q; diff
says each end once; an empty game says it has no deal yet; a refusal for a concurrent
write says what to do at a command line; a tournament's table stopped at its deal cap
is over wherever it is shown. (The report's audit trail, the standings on a phone and
the drawn sheet's wrapped sums are checked in the browser and picture tests.)"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from cli.common import concurrent_write
from helpers import PULKA, Terminal, csv_out, environment, ok, pulka, refused, run, write
from ledger.store.stored import ConcurrentWriteError
from ledger.store.event_store import Store
from ledger.vocabulary.times import TimeFormatError, parse_local

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only

MOSCOW = ZoneInfo("Europe/Moscow")
DEAL = "6S pass pass | 6S | whist whist | 6 2 2"  # events 2-8: three bids, the contract, two calls, the tricks


# -- a time of day alone -----------------------------------------------------------------


def test_a_time_of_day_alone_is_that_time_today_in_the_local_zone() -> None:
    # 22:30 UTC on 1 December is 01:30 on 2 December in Moscow: "today" is the zone's day.
    now = datetime(2026, 12, 1, 22, 30, tzinfo=timezone.utc)
    assert parse_local("20:14", MOSCOW, now=now) == datetime(2026, 12, 2, 20, 14, tzinfo=MOSCOW)
    assert parse_local("9:05:30", MOSCOW, now=now) == datetime(2026, 12, 2, 9, 5, 30, tzinfo=MOSCOW)
    assert parse_local(" 20:14 ", MOSCOW, now=now, end_of_day=True) == datetime(2026, 12, 2, 20, 14, tzinfo=MOSCOW)
    # With its own offset, the day is that offset's.
    assert parse_local("20:14Z", MOSCOW, now=now) == datetime(2026, 12, 1, 20, 14, tzinfo=timezone.utc)
    for text in ("25:00", "20:61", "2014"):
        with pytest.raises(TimeFormatError):
            parse_local(text, MOSCOW, now=now)


def test_time_20_14_on_the_command_line_means_today(store_url: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Europe/Moscow")
    for _ in range(2):  # once more should the day turn while the test runs
        today = datetime.now(MOSCOW).date()
        stamps = [datetime.combine(today, datetime.min.time(), MOSCOW).replace(hour=10, minute=m) for m in range(9)]
        lines = [{"type": "game_started", "game": f"g{today}", "players": ["Anna", "Boris", "Vera"], "pulya": 10},
                 {"type": "bid", "player": "Anna", "bid": "6S"}, {"type": "bid", "player": "Boris", "bid": "pass"},
                 {"type": "bid", "player": "Vera", "bid": "pass"}, {"type": "contract", "player": "Anna", "contract": "6S"},
                 {"type": "defence", "player": "Boris", "call": "whist"},
                 {"type": "defence", "player": "Vera", "call": "whist"},
                 {"type": "tricks", "tricks": {"Anna": 6, "Boris": 2, "Vera": 2}}]
        log = "".join(json.dumps(line | {"at": stamps[i].isoformat()}) + "\n" for i, line in enumerate(lines))
        game = f"g{today}"
        ok(store_url, "import", write(tmp_path, f"{game}.jsonl", log))
        # 10:03 today: events 1-4 (10:00 to 10:03), as --at 4 gives it.
        as_of = ok(store_url, "sheet", game, "--json", "--time", "10:03")
        since = json.loads(ok(store_url, "log", game, "--json", "--since", "10:05", "--until", "10:06"))
        if datetime.now(MOSCOW).date() == today:
            break
    assert as_of == ok(store_url, "sheet", game, "--json", "--at", "4")
    assert [e["number"] for e in since["events"]] == [6, 7]
    d = json.loads(ok(store_url, "diff", game, "10:01", "10:07", "--json"))
    assert (d["from"]["event"], d["to"]["event"]) == (2, 8)


# -- the logs' times -------------------------------------------------------------------------


def tournament(db: str, name: str = "spring", cap: int = 1) -> None:
    """Three players, one tour of one table, ``cap`` deals a table; one deal played."""
    ok(db, "tournament", "new", name, "--players", "Anna,Boris,Vera", "--pulya", "6", "--tours", "1",
       "--deal-cap", str(cap), "--table-size", "3", "--by", "arbiter:Oleg", "-q")
    ok(db, "tournament", "seat", name, "1", "--auto", "--seed", "7", "--by", "arbiter:Oleg")
    ok(db, "tournament", "start", name, "1")
    ok(db, "deal", f"{name}/1/1", "pass pass pass | 2 5 3")


def test_a_tournaments_log_shows_times_as_a_games_log(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Europe/Moscow")
    tournament(store_url)
    stored = json.loads(ok(store_url, "tournament", "log", "spring", "--json"))["events"]
    game_log = ok(store_url, "log", "spring/1/1").splitlines()
    tour_log = ok(store_url, "tournament", "log", "spring").splitlines()
    assert tour_log[0] == "log of tournament spring: 2 events; times in Europe/Moscow"  # started, seated
    assert game_log[0].endswith("; times in Europe/Moscow")
    # Each event's time in the local zone, to the second, named, in the same column.
    when = re.compile(r"^ {0,3}\d+  (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d MSK)  ")
    for number, line in enumerate(tour_log[1:], start=1):
        found = when.match(line)
        assert found, line
        local = datetime.fromisoformat(stored[number - 1]["at"]).astimezone(MOSCOW)
        assert found.group(1) == local.strftime("%Y-%m-%d %H:%M:%S MSK")
        assert line[found.end():].startswith("arbiter:Oleg")
    assert when.match(game_log[1])


# -- -q on every new ----------------------------------------------------------------------


def test_every_new_is_quiet_with_q(store_url: str) -> None:
    for command, name, rest in ((["new"], "g", ["--players", "Anna,Boris,Vera"]),
                                (["bridge", "new"], "r", ["--players", "Anna,Boris,Vera,Gleb"]),
                                (["tournament", "new"], "t", ["--players", "Anna,Boris,Vera", "--pulya", "6",
                                                              "--table-size", "3", "--by", "arbiter:Oleg"])):
        for quiet in ("-q", "--quiet"):
            result = run(store_url, *command, f"{name}{quiet}", *rest, quiet)
            assert result.exit_code == 0 and result.stdout == "", (command, quiet, result.output)
    assert [g["game"] for g in json.loads(ok(store_url, "games", "--json"))] == \
        sorted(["g-q", "g--quiet", "r-q", "r--quiet"])
    assert ok(store_url, "tournament", "list").count("t-") == 2


# -- diff, and an empty game ---------------------------------------------------------------------


def test_diff_says_each_end_once(store_url: str) -> None:
    ok(store_url, "new", "g", "--players", "Anna,Boris,Vera", "-q")
    ok(store_url, "deal", "g", DEAL, "-q")
    ok(store_url, "deal", "g", "pass pass pass | 2 5 3", "-q")
    events = json.loads(ok(store_url, "log", "g", "--json"))["events"]
    end_of_1 = max(e["number"] for e in events if e["deal"] == 1)
    assert ok(store_url, "diff", "g", "5", "9").splitlines()[0] == "from event 5 to event 9"
    assert ok(store_url, "diff", "g", "5", "deal:1").splitlines()[0] == \
        f"from event 5 to the end of deal 1 (event {end_of_1})"
    assert "(event 5)" not in ok(store_url, "diff", "g", "5", "deal:2")


def test_an_empty_game_has_no_deal_yet(store_url: str) -> None:
    ok(store_url, "new", "g", "--players", "Anna,Boris,Vera", "-q")
    err = refused(store_url, "sheet", "g", "--deal", "1")
    assert "the game has no deal yet (deal 0 is its start); there is no deal 1" in err
    assert "1 to 0" not in err
    assert ok(store_url, "sheet", "g", "--deal", "0", "--json") == ok(store_url, "sheet", "g", "--json")
    ok(store_url, "deal", "g", DEAL, "-q")
    assert "the game has deal 1 only; there is no deal 3" in refused(store_url, "settle", "g", "--deal", "3")
    ok(store_url, "deal", "g", DEAL, "--again", "-q")
    assert "the game has deals 1 to 2; there is no deal 3" in refused(store_url, "settle", "g", "--deal", "3")


# -- a concurrent write ---------------------------------------------------------------------------


def test_a_concurrent_write_says_to_run_the_command_again(tmp_path: Path) -> None:
    """A correction confirmed at the terminal after another scorer recorded a deal: not
    stored, and the message says what to do at a command line."""
    env = environment(tmp_path)
    db = str(tmp_path / "club.db")
    for args in (["new", "g", "--players", "Anna,Boris,Vera"], ["deal", "g", DEAL]):
        assert pulka(tmp_path, *args, "--db", db, env=env).returncode == 0
    scorer = Terminal([*PULKA, "correct", "g", "8", "Anna=7", "Boris=2", "--db", db], env, tmp_path)
    scorer.expect(r"store this correction\? \[y/N\]")
    other = pulka(tmp_path, "deal", "g", "pass pass pass | 2 5 3", "--db", db, env=env)  # meanwhile, at the table
    assert other.returncode == 0, other.stderr
    scorer.send("y")
    assert scorer.finish() == 1
    said = " ".join(scorer.seen.split())
    assert "not stored: 'g' was changed by someone else: expected 8 stored event(s), found 12." in said
    assert "Nothing of this command was stored; try again: run the same command, which decides on what is " \
           "stored now (`pulka log g` shows what the other scorer recorded)" in said
    assert "reload" not in said
    assert len(json.loads(pulka(tmp_path, "log", "g", "--json", "--db", db, env=env).stdout)["events"]) == 12


def test_a_concurrent_write_to_a_tournament_points_to_its_log(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    tournament(db)
    with Store(db) as store:
        said = concurrent_write(ConcurrentWriteError("spring", 3, 4), store)
        assert said.endswith("(`pulka tournament log spring` shows what the other scorer recorded)")
        assert concurrent_write(ConcurrentWriteError("spring/1/1", 5, 6), store).endswith(
            "(`pulka log spring/1/1` shows what the other scorer recorded)")
        assert "pulka log" not in concurrent_write(ConcurrentWriteError("@club", 2, 3), store)


# -- a table at its deal cap ----------------------------------------------------------------------


def test_a_table_at_its_deal_cap_is_over_wherever_it_is_shown(store_url: str, tmp_path: Path) -> None:
    tournament(store_url, "spring", cap=1)  # its one deal played: over [Code 4.2.15]
    tournament(store_url, "autumn", cap=2)  # one deal of two: still in play
    ok(store_url, "tournament", "close", "spring", "1", "--by", "arbiter:Oleg")
    listed = {g["game"]: g["status"] for g in json.loads(ok(store_url, "games", "--json"))}
    assert listed == {"spring/1/1": "capped", "autumn/1/1": "playing"}
    lines = {line.split(":", 1)[0]: line for line in ok(store_url, "games").splitlines()}
    assert "1 deal, over at the tournament's deal cap;" in lines["spring/1/1"]
    assert "1 deal, playing;" in lines["autumn/1/1"]
    settled = ok(store_url, "settle", "spring/1/1").splitlines()[0]
    assert settled.endswith("over: the tournament's deal cap, 1 deal played, settled as abandoned [Code 4.2.15]")
    assert ok(store_url, "settle", "autumn/1/1").splitlines()[0].endswith("not finished: settled as if abandoned now")
    doc = json.loads(ok(store_url, "settle", "spring/1/1", "--json"))
    assert doc["capped"] is True and doc["finished"] is False
    assert "capped" not in json.loads(ok(store_url, "settle", "autumn/1/1", "--json"))
    assert {r["status"] for r in csv_out(store_url, "settle", "spring/1/1", "--csv")} == {"capped"}
    assert {r["status"] for r in csv_out(store_url, "export", "autumn/1/1", "--csv", "--table", "settlement")} == \
        {"playing"}
    # The drawn sheet, the game's report and the tournament's report say so too.
    for args in (["sheet", "spring/1/1", "--svg"], ["tournament", "report", "spring"]):
        page = ok(store_url, *args)
        assert "over: the deal cap (as abandoned)" in page and "in play: as if abandoned now" not in page, args
    assert '"capped"' in ok(store_url, "report", "spring/1/1")
    assert "in play: as if abandoned now" in ok(store_url, "sheet", "autumn/1/1", "--svg")
    # A game's own file (no tournament in it) is shown as its events say.
    export = write(tmp_path, "spring-1-1.jsonl", ok(store_url, "export", "spring/1/1"))
    assert ok(store_url, "settle", "--file", export).splitlines()[0].endswith("not finished: settled as if abandoned now")

"""The command line, end to end through click: what a command stores, refuses and prints,
on SQLite; what the store must keep (round trips, a refusal that stores nothing,
concurrent writers, the same bytes from either store) on PostgreSQL too."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
import pytest
from click.testing import CliRunner, Result

from cli.main import main
from helpers import Scorer
from ledger.vocabulary.events import Bid
from ledger.application import Ledger
from ledger.store.stored import ConcurrentWriteError
from ledger.store.event_store import Store

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def run(db: str, *args: str, input: str | None = None) -> Result:
    result = CliRunner().invoke(main, [*args, "--db", db], input=input, catch_exceptions=False)
    return result


def ok(db: str, *args: str, input: str | None = None) -> str:
    result = run(db, *args, input=input)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.stdout


def refused(db: str, *args: str, input: str | None = None) -> str:
    result = run(db, *args, input=input)
    assert result.exit_code == 1, f"{args} should be refused: {result.output}"
    assert "Traceback" not in result.output
    return result.stderr


# The settlement document of docs/event-log.md (examples.md no. 7 with a nine), verbatim.
DOCUMENTED = json.loads("""
{"game":"club-7","convention":"leningrad","players":["Anna","Boris","Vera"],
 "finished":true,"abandoned":false,
 "sheet":{"Anna":{"pulya":56,"gora":0,"whists":{"Boris":0,"Vera":0}},
          "Boris":{"pulya":48,"gora":0,"whists":{"Anna":0,"Vera":0}},
          "Vera":{"pulya":48,"gora":0,"whists":{"Anna":0,"Boris":0}}},
 "result":{"Anna":106.66666666666667,"Boris":-53.333333333333336,"Vera":-53.333333333333336},
 "rounded":{"Anna":106,"Boris":-53,"Vera":-53},
 "money":{"Anna":"10.60","Boris":"-5.30","Vera":"-5.30"},
 "result_exact":{"Anna":"320/3","Boris":"-160/3","Vera":"-160/3"},
 "transfers":[{"from":"Boris","to":"Anna","whists":53,"money":"5.30"},
              {"from":"Vera","to":"Anna","whists":53,"money":"5.30"}]}
""")

CLUB7 = "\n".join([
    '{"type":"game_started","game":"club-7","players":["Anna","Boris","Vera"],"convention":"leningrad",'
    '"pulya":50,"rules":{},"stake":"0.10","first_dealer":"Vera"}',
    '{"type":"entry","player":"Anna","column":"pulya","amount":48}',
    '{"type":"entry","player":"Boris","column":"pulya","amount":48}',
    '{"type":"entry","player":"Vera","column":"pulya","amount":48}',
    '{"type":"bid","player":"Anna","bid":"9S"}',
    '{"type":"bid","player":"Boris","bid":"pass"}',
    '{"type":"bid","player":"Vera","bid":"pass"}',
    '{"type":"contract","player":"Anna","contract":"9S"}',
    '{"type":"defence","player":"Boris","call":"pass"}',
    '{"type":"defence","player":"Vera","call":"pass"}',
]) + "\n"


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.sqlite_only
def test_settle_json_is_the_documented_document(store_url: str, tmp_path: Path) -> None:
    ok(store_url, "import", write(tmp_path, "club7.jsonl", CLUB7))
    out = ok(store_url, "settle", "club-7", "--json")
    doc = json.loads(out)
    assert doc == DOCUMENTED
    assert list(doc) == list(DOCUMENTED)  # the key order other tools may rely on
    assert json.loads(ok(store_url, "sheet", "club-7", "--json")) == DOCUMENTED["sheet"]


def test_same_log_prints_the_same_bytes_in_both_stores(store_url: str, tmp_path: Path) -> None:
    other = str(tmp_path / "other.db")
    log = write(tmp_path, "club7.jsonl", CLUB7)
    ok(store_url, "import", log)
    ok(other, "import", log)
    for args in (["settle", "club-7", "--json"], ["sheet", "club-7", "--json"], ["settle", "club-7", "--at", "7"]):
        assert ok(store_url, *args) == ok(other, *args) == ok(store_url, *args)


def test_refused_import_names_line_and_rule_and_stores_nothing(store_url: str, tmp_path: Path) -> None:
    bad = CLUB7.replace('{"type":"bid","player":"Vera","bid":"pass"}', '{"type":"bid","player":"Anna","bid":"10S"}')
    err = refused(store_url, "import", write(tmp_path, "bad.jsonl", bad))
    assert "line 7" in err and "[Code 3.3.18]" in err and "allowed: a bid by Vera" in err
    assert "no game" in refused(store_url, "settle", "club-7")
    with Store(store_url) as store:
        assert store.games() == []


def test_refused_append_leaves_the_stored_game_unchanged(store_url: str, tmp_path: Path) -> None:
    head = CLUB7.splitlines()
    ok(store_url, "import", write(tmp_path, "start.jsonl", "\n".join(head[:6]) + "\n"))
    before = ok(store_url, "export", "club-7")
    more = "\n".join([head[0], head[6], '{"type":"contract","player":"Boris","contract":"9S"}']) + "\n"
    err = refused(store_url, "import", write(tmp_path, "more.jsonl", more))
    assert "line 3" in err and "Anna declares" in err
    assert ok(store_url, "export", "club-7") == before
    # The same file without its bad line appends.
    good = "\n".join([head[0], head[6], head[7]]) + "\n"
    assert "appended to club-7: 2 events" in ok(store_url, "import", write(tmp_path, "good.jsonl", good))
    # A file for the same game with another game_started is refused.
    other_start = head[0].replace('"pulya":50', '"pulya":60')
    err = refused(store_url, "import", write(tmp_path, "other.jsonl", other_start + "\n" + head[8] + "\n"))
    assert "different game_started" in err and "line 1" in err


def test_export_import_round_trip(store_url: str, tmp_path: Path) -> None:
    ok(store_url, "import", str(FIXTURES / "ex10_sochi_sixes.jsonl"))
    exported = ok(store_url, "export", "ex10_sochi_sixes")
    copy = str(tmp_path / "copy.db")
    ok(copy, "import", write(tmp_path, "export.jsonl", exported))
    assert ok(copy, "export", "ex10_sochi_sixes") == exported
    assert ok(copy, "settle", "ex10_sochi_sixes", "--json") == ok(store_url, "settle", "ex10_sochi_sixes", "--json")
    assert "chain intact" in ok(copy, "verify", "--file", write(tmp_path, "e.jsonl", exported))


@pytest.mark.sqlite_only
def test_scorer_commands_record_a_deal(store_url: str) -> None:
    ok(store_url, "new", "t1", "--players", "Anna,Boris,Vera", "--pulya", "10")
    ok(store_url, "bid", "t1", "Anna", "6S")
    assert "not Vera's turn" in refused(store_url, "bid", "t1", "Vera", "7S")
    ok(store_url, "bid", "t1", "Boris", "pass")
    ok(store_url, "bid", "t1", "Vera", "pass")
    assert "did not bid misère" in refused(store_url, "contract", "t1", "Anna", "misere")
    ok(store_url, "contract", "t1", "Anna", "7S")
    ok(store_url, "defence", "t1", "Boris", "whist")
    ok(store_url, "defence", "t1", "Vera", "pass", "--open")
    assert "sum to 9" in refused(store_url, "tricks", "t1", "Anna=7", "Boris=1", "Vera=1")
    ok(store_url, "tricks", "t1", "Anna=7", "Boris=2", "Vera=1")
    sheet = json.loads(ok(store_url, "sheet", "t1", "--json"))
    assert sheet["Anna"]["pulya"] == 4 and sheet["Boris"]["whists"]["Anna"] == 12
    text = ok(store_url, "sheet", "t1")
    assert "whists on Anna" in text and "= 12" in text


@pytest.mark.sqlite_only
def test_deal_line_and_time_travel(store_url: str) -> None:
    ok(store_url, "new", "t2", "--players", "A,B,C", "--pulya", "10")
    ok(store_url, "deal", "t2", "6S pass pass | 6S | whist whist | 6 2 2")
    ok(store_url, "deal", "t2", "pass pass pass | 2 5 3")
    ok(store_url, "deal", "t2", "pass pass | 7S | whist pass | 1 2 7*")  # C, A pass; B takes the talon
    assert "is not a bid" in refused(store_url, "deal", "t2", "7Z pass pass | 7Z")
    deal1 = json.loads(ok(store_url, "sheet", "t2", "--json", "--deal", "1"))
    assert deal1["A"]["pulya"] == 2 and deal1["B"]["gora"] == 0
    deal2 = json.loads(ok(store_url, "sheet", "t2", "--json", "--deal", "2"))
    # raspasy 2/5/3 from the forehand B: amnesty 2 -> B 0, C 3, A 1
    assert (deal2["B"]["gora"], deal2["C"]["gora"], deal2["A"]["gora"]) == (0, 3, 1)
    assert json.loads(ok(store_url, "sheet", "t2", "--json", "--at", "8")) == deal1
    final = json.loads(ok(store_url, "settle", "t2", "--json"))
    assert final["finished"] is False and sum(final["rounded"].values()) == 0
    # the third hand (B, after two passes in deal 3) took the talon without bidding
    assert final["sheet"]["B"]["pulya"] == 4
    assert "no event 99" in refused(store_url, "sheet", "t2", "--at", "99")
    assert "no deal 9" in refused(store_url, "settle", "t2", "--deal", "9")


@pytest.mark.sqlite_only
def test_time_travel_by_the_clock(store_url: str, tmp_path: Path) -> None:
    lines = CLUB7.splitlines()
    times = ["20:00:00", "20:00:05", "20:00:05", "20:00:06", "20:10:00", "20:10:01", "20:10:02", "20:11:00",
             "20:12:00", "20:12:30"]
    stamped = [line[:-1] + f',"at":"2026-11-30T{t}+03:00"}}' for line, t in zip(lines, times)]
    ok(store_url, "import", write(tmp_path, "timed.jsonl", "\n".join(stamped) + "\n"))
    before_play = json.loads(ok(store_url, "settle", "club-7", "--json", "--time", "2026-11-30T20:05:00+03:00"))
    assert before_play["finished"] is False and before_play["sheet"]["Anna"]["pulya"] == 48
    # the same moment written in UTC
    assert json.loads(ok(store_url, "settle", "club-7", "--json", "--time", "2026-11-30T17:05:00Z")) == before_play
    at_end = json.loads(ok(store_url, "settle", "club-7", "--json", "--time", "2026-11-30T20:12:30+03:00"))
    assert at_end == DOCUMENTED
    assert "started after" in refused(store_url, "sheet", "club-7", "--time", "2026-11-30T19:00:00+03:00")
    backwards = [stamped[0].replace("club-7", "club-8"), stamped[1], stamped[2].replace("20:00:05", "19:59:00")]
    err = refused(store_url, "import", write(tmp_path, "back.jsonl", "\n".join(backwards) + "\n"))
    assert "line 3" in err and "before the previous event" in err


@pytest.mark.sqlite_only
def test_audit_log_explain_and_diff(store_url: str, tmp_path: Path) -> None:
    ok(store_url, "new", "t3", "--players", "A,B,C", "--pulya", "20")
    ok(store_url, "deal", "t3", "6S pass pass | 6S | whist whist | 6 2 2")
    ok(store_url, "entry", "t3", "B", "whists", "10", "--on", "A")  # event 9, B's record
    ok(store_url, "pencil", "t3", "B")
    ok(store_url, "correct", "t3", "9", "amount=6", "--by", "A", "--yes")  # counted: B's first error
    log = json.loads(ok(store_url, "log", "t3", "--json"))["events"]
    correction = log[10]
    assert correction["number"] == 11 and correction["effective"] is True
    assert "warning" in correction["reason"] and correction["rule"] == "4.2.7"
    assert correction["changes"] == [{"player": "B", "column": "whists", "on": "A", "amount": -4}]
    text = ok(store_url, "log", "t3")
    assert "correction of event 9" in text and "warning" in text
    explained = json.loads(ok(store_url, "explain", "t3", "B.whists.A", "--json"))["writes"]
    assert [w["event"] for w in explained] == [8, 9]
    assert explained[-1]["total"] == 10 and explained[-1]["corrected_by"] == [11]
    assert "not a number of the sheet" in refused(store_url, "explain", "t3", "B.whists.B")
    assert "did you mean `pulka explain B.pulya`?" in refused(store_url, "explain", "B", "pulya")
    before = json.loads(ok(store_url, "settle", "t3", "--json", "--at", "8"))
    after = json.loads(ok(store_url, "settle", "t3", "--json"))
    d = json.loads(ok(store_url, "diff", "t3", "8", "11", "--json"))
    for p in ("A", "B", "C"):
        assert d["result"][p] == pytest.approx(after["result"][p] - before["result"][p])
        assert d["rounded"][p] == after["rounded"][p] - before["rounded"][p]
    assert [e["number"] for e in d["events"]] == [9, 11]


@pytest.mark.sqlite_only
def test_unknown_game_and_bad_points_are_refused(store_url: str) -> None:
    ok(store_url, "new", "known", "--players", "A,B,C")
    err = refused(store_url, "sheet", "unknown")
    assert "no game named 'unknown'" in err and "known" in err
    assert "exists already" in refused(store_url, "new", "known", "--players", "A,B,C")
    assert "3 or 4 players" in refused(store_url, "new", "two", "--players", "A,B")
    assert "ISO 8601" in refused(store_url, "settle", "known", "--time", "yesterday")


def test_verify_finds_an_edited_row(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    ok(db, "import", write(tmp_path, "club7.jsonl", CLUB7))
    assert "chain intact" in ok(db, "verify")
    with sqlite3.connect(db) as conn:
        (table,) = [r[0] for r in conn.execute("select name from sqlite_master where type='table'")
                    if "event" in r[0] and "track" not in r[0]][:1]
        rows = conn.execute(f"select rowid, state from {table} where originator_version = 5").fetchall()
        rowid, state = rows[0]
        conn.execute(f"update {table} set state = ? where rowid = ?",
                     (bytes(state).replace(b'"9S"', b'"10S"'), rowid))
    result = run(db, "verify")
    assert result.exit_code == 1 and "club-7" in result.stderr
    assert "club-7: TAMPERED: event 5" in result.stdout


def test_concurrent_writers_are_caught(store_url: str) -> None:
    ok(store_url, "new", "race", "--players", "A,B,C")
    with Store(store_url) as one, Store(store_url) as two:
        stale = len(two.load("race"))
        Ledger(one).execute("race", lambda state: [Bid(player="A", bid="6S")])
        with pytest.raises(ConcurrentWriteError):
            two.append("race", [Bid(player="A", bid="7S", by="A", deal=1)], expected=stale)
    events = [json.loads(line) for line in ok(store_url, "export", "race").splitlines()]
    assert [e.get("bid") for e in events[1:]] == ["6S"]


@pytest.mark.sqlite_only
def test_rules_command_and_custom_rule_sets(store_url: str, tmp_path: Path) -> None:
    out = CliRunner().invoke(main, ["rules"]).stdout.split()
    assert out == ["sochi", "leningrad", "rostov", "classic"]
    len_doc = json.loads(CliRunner().invoke(main, ["rules", "piter", "--json"]).stdout)
    assert len_doc["gora_whist_multiplier"] == 2 and len_doc["help"] is False
    text = CliRunner().invoke(main, ["rules", "rostov"]).stdout
    assert "raspasy_model" in text and "whists" in text
    assert CliRunner().invoke(main, ["rules", "moscow"]).stdout == text  # Rostov's other name
    assert CliRunner().invoke(main, ["rules", "Ростовка"]).stdout == text
    bad = CliRunner().invoke(main, ["rules", "vienna"])
    assert bad.exit_code == 1 and "sochi" in bad.stderr and "moscow (rostov)" in bad.stderr
    club = write(tmp_path, "club.toml", '[rules]\nraspasy_progression = [1, 3]\nconsolation = 5\n')
    ok(store_url, "new", "c1", "--players", "A,B,C", "--rules-file", club, "--rule", "raspasy_exit=7")
    first = json.loads(ok(store_url, "export", "c1").splitlines()[0])
    assert first["rule_set"]["raspasy_progression"] == [1, 3]
    assert first["rule_set"]["consolation"] == 5 and first["rule_set"]["raspasy_exit"] == 7
    err = refused(store_url, "new", "c2", "--players", "A,B,C", "--rule", "gora_multiplier=2")
    assert "unknown rule parameter" in err and "gora_whist_multiplier" in err
    assert "raspasy_progression" in refused(store_url, "new", "c3", "--players", "A,B,C",
                                            "--rule", "raspasy_progression=[]")



def test_an_export_edited_by_hand_is_refused(tmp_path: Path) -> None:
    db, copy = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    ok(db, "import", write(tmp_path, "club7.jsonl", CLUB7))
    lines = ok(db, "export", "club-7").splitlines()
    lines[4] = lines[4].replace('"9S"', '"10S"')  # line 5: Anna's bid, as if she had bid a ten
    err = refused(copy, "import", write(tmp_path, "edited.jsonl", "\n".join(lines) + "\n"))
    assert "line 5" in err and "digest chain" in err
    assert "event 5" in refused(copy, "verify", "--file", str(tmp_path / "edited.jsonl"))
    with Store(copy) as store:
        assert store.games() == []


def test_a_forgotten_result_is_flagged_and_may_come_late(tmp_path: Path) -> None:
    """[Code 4.2.10], at the scorer's desk: a deal's result not recorded is flagged; it
    may come until the next deal's bidding has ended, and after that has no effect."""
    with Scorer(str(tmp_path / "pulka.db"), "f", "A,B,C") as t:
        t.deal("6S pass pass | 6S | whist whist", leave_open=True)  # played, tricks forgotten
        t.deal("pass pass pass | 3 3 4", leave_open=True)  # the next deal goes on
        log = t.log_rows()
        assert "not recorded" in log[8]["note"]
        before = t.sheet()
        assert before["A"]["pulya"] == 0
        # The deadline for deal 1 has passed (deal 2's bidding closed at event 10): no effect.
        t.tricks(["A=6", "B=2", "C=2"], deal=1)
        after = t.log_rows()[t.count()]
        assert after["effective"] is False and "too late" in after["reason"] and after["rule"] == "4.2.10"
        assert t.sheet() == before
        assert "deal 2 has its result already" in t.refused("tricks", ["A=6", "B=2", "C=2"], deal=2)
    with Scorer(str(tmp_path / "pulka.db"), "g", "A,B,C") as t:
        t.deal("6S pass pass | 6S | whist whist", leave_open=True)
        t.bid("B", "pass", leave_open=True)  # deal 2's auction has begun, not ended
        t.tricks(["A=6", "B=2", "C=2"], deal=1)
        sheet = t.sheet()
        assert sheet["A"]["pulya"] == 2 and sheet["B"]["whists"]["A"] == 4
        assert "accepted" in t.log_rows()[t.count()]["reason"]


@pytest.mark.sqlite_only
def test_the_command_line_records_a_result_late(store_url: str) -> None:
    """What the command line adds to a late result: ``--leave-open`` on a deal line and a
    bid, ``tricks --deal``, the note in ``log --json``, a refusal's exit status."""
    ok(store_url, "new", "f", "--players", "A,B,C")
    ok(store_url, "deal", "f", "6S pass pass | 6S | whist whist", "--leave-open")
    ok(store_url, "bid", "f", "B", "pass", "--leave-open")
    assert "not recorded" in json.loads(ok(store_url, "log", "f", "--json"))["events"][7]["note"]
    ok(store_url, "tricks", "f", "A=6", "B=2", "C=2", "--deal", "1")
    assert json.loads(ok(store_url, "sheet", "f", "--json"))["A"]["pulya"] == 2
    assert "deal 1 is not waiting for its tricks" in refused(store_url, "tricks", "f", "A=6", "B=2", "C=2", "--deal", "1")


def test_an_export_imported_again_stores_only_what_is_new(store_url: str, tmp_path: Path) -> None:
    """Events an export shares with the store, digest for digest, are not appended again:
    importing the same export twice changes nothing, and a later export of the same game
    appends only its new events."""
    ok(store_url, "import", write(tmp_path, "club7.jsonl", CLUB7))
    first = ok(store_url, "export", "club-7")
    count = len(first.splitlines())
    again = write(tmp_path, "again.jsonl", first)
    assert f"nothing new, the file's {count} events are stored already" in ok(store_url, "import", again)
    assert ok(store_url, "export", "club-7") == first
    other = str(tmp_path / "other.db")
    head = "\n".join(first.splitlines()[:5]) + "\n"
    ok(other, "import", write(tmp_path, "head.jsonl", head))
    out = ok(other, "import", again)
    assert f"appended to club-7: {count - 5} events stored (5 already stored)" in out
    assert ok(other, "export", "club-7") == first

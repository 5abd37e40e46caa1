"""At the arbiter's desk, through the command line: the log's filters,
times in the local zone, reading an export directly, the list of games, who pays whom,
exact values beside the floats of the JSON documents, and spreadsheets."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from helpers import FLOAT_ARTEFACT, csv_out, csv_rows, ok, refused, run, write

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only

# A short timed evening: deal 1 at 20:00 Moscow time, an entry and its correction, a
# deal 2 recorded in UTC, then deal 3 on the next day.
TIMED = "\n".join([
    '{"type":"game_started","game":"t","players":["Anna","Boris","Vera"],"convention":"sochi","pulya":10,'
    '"stake":"0.10","first_dealer":"Vera","at":"2026-12-01T19:59:00+03:00"}',
    '{"type":"bid","player":"Anna","bid":"6S","at":"2026-12-01T20:00:00+03:00"}',
    '{"type":"bid","player":"Boris","bid":"pass","at":"2026-12-01T20:00:10+03:00"}',
    '{"type":"bid","player":"Vera","bid":"pass","at":"2026-12-01T20:00:20+03:00"}',
    '{"type":"contract","player":"Anna","contract":"6S","at":"2026-12-01T20:01:00+03:00"}',
    '{"type":"defence","player":"Boris","call":"whist","at":"2026-12-01T20:01:10+03:00"}',
    '{"type":"defence","player":"Vera","call":"whist","at":"2026-12-01T20:01:20+03:00"}',
    '{"type":"tricks","tricks":{"Anna":6,"Boris":2,"Vera":2},"at":"2026-12-01T20:10:00+03:00"}',
    '{"type":"entry","player":"Boris","column":"whists","amount":10,"on":"Anna","at":"2026-12-01T20:11:00+03:00"}',
    '{"type":"pencil_down","player":"Boris","at":"2026-12-01T20:12:00+03:00"}',
    '{"type":"correction","target":9,"replacement":{"amount":6},"by":"Anna","at":"2026-12-01T20:13:00+03:00"}',
    '{"type":"bid","player":"Boris","bid":"pass","at":"2026-12-01T17:20:00Z"}',
    '{"type":"bid","player":"Vera","bid":"pass","at":"2026-12-01T17:20:10Z"}',
    '{"type":"bid","player":"Anna","bid":"pass","at":"2026-12-01T17:20:20Z"}',
    '{"type":"tricks","tricks":{"Anna":2,"Boris":5,"Vera":3},"at":"2026-12-01T17:30:00Z"}',
    '{"type":"bid","player":"Vera","bid":"7H","at":"2026-12-02T00:30:00+03:00"}',
    '{"type":"bid","player":"Anna","bid":"pass","at":"2026-12-02T00:30:10+03:00"}',
    '{"type":"bid","player":"Boris","bid":"pass","at":"2026-12-02T00:30:20+03:00"}',
    '{"type":"contract","player":"Vera","contract":"7H","at":"2026-12-02T00:31:00+03:00"}',
    '{"type":"defence","player":"Anna","call":"whist","at":"2026-12-02T00:31:10+03:00"}',
    '{"type":"defence","player":"Boris","call":"pass","at":"2026-12-02T00:31:20+03:00"}',
    '{"type":"tricks","tricks":{"Anna":3,"Boris":1,"Vera":6},"at":"2026-12-02T00:40:00+03:00"}',
]) + "\n"


@pytest.fixture
def timed(store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TZ", "Europe/Moscow")
    ok(store_url, "import", write(tmp_path, "timed.jsonl", TIMED))
    return store_url


def numbers(db: str, *args: str) -> list[int]:
    return [e["number"] for e in json.loads(ok(db, "log", "t", "--json", *args))["events"]]


def test_log_filters(timed: str) -> None:
    assert numbers(timed, "--only-deal", "2") == [12, 13, 14, 15]
    assert numbers(timed, "--by", "boris") == [3, 6, 9, 10, 12, 18, 21]
    assert numbers(timed, "--type", "tricks", "--type", "correction") == [8, 11, 15, 22]
    assert numbers(timed, "--verdicts") == [11]
    # Local times (TZ Europe/Moscow, three hours ahead of UTC) and offsets mean the same.
    assert numbers(timed, "--since", "2026-12-01 20:12", "--until", "2026-12-01 20:20:10") == [10, 11, 12, 13]
    assert numbers(timed, "--since", "2026-12-01T17:12:00Z", "--until", "2026-12-01T17:20:10Z") == [10, 11, 12, 13]
    # A date is the whole day: from its start, to its end.
    assert numbers(timed, "--since", "2026-12-02") == list(range(16, 23))
    assert numbers(timed, "--until", "2026-12-01") == list(range(1, 16))
    assert numbers(timed, "--only-deal", "1", "--by", "Anna", "--type", "bid") == [2]
    # A correction of a record of deal 1 made during deal 3 is part of deal 1's story too.
    ok(timed, "correct", "t", "9", "4", "--by", "Boris", "--yes")
    assert numbers(timed, "--only-deal", "1")[-1] == 23 and numbers(timed, "--only-deal", "3")[-1] == 23
    assert 23 not in numbers(timed, "--only-deal", "2")
    result = run(timed, "log", "t", "--type", "bids")
    assert result.exit_code == 2 and "bid" in result.output  # not a type: a usage error
    assert "is not a time" in refused(timed, "log", "t", "--since", "yesterday")


def test_times_are_shown_in_the_local_zone(timed: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = ok(timed, "log", "t")
    assert "times in Europe/Moscow" in text.splitlines()[0]
    assert "2026-12-01 20:20:00 MSK" in text  # stored as 17:20:00Z
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    text = ok(timed, "log", "t", "--only-deal", "2")
    assert "times in Asia/Tokyo" in text and "2026-12-02 02:20:00 JST" in text
    assert "2026-12-02 01:59:00 JST to 2026-12-02 06:40:00 JST" in ok(timed, "games")
    assert "JST" in ok(timed, "explain", "t", "Anna.pulya")


def test_time_points_in_local_time(timed: str) -> None:
    exact = json.loads(ok(timed, "settle", "t", "--json", "--time", "2026-12-01T20:20:00+03:00"))
    assert json.loads(ok(timed, "settle", "t", "--json", "--time", "2026-12-01 20:20")) == exact
    assert json.loads(ok(timed, "settle", "t", "--json", "--at", "12")) == exact
    # A date: as of its end.
    assert json.loads(ok(timed, "sheet", "t", "--json", "--time", "2026-12-01")) == \
        json.loads(ok(timed, "sheet", "t", "--json", "--deal", "2"))
    d = json.loads(ok(timed, "diff", "t", "2026-12-01 20:10", "2026-12-01", "--json"))
    assert (d["from"]["event"], d["to"]["event"]) == (8, 15)


def test_every_read_command_reads_an_export(timed: str, tmp_path: Path) -> None:
    export = write(tmp_path, "t.jsonl", ok(timed, "export", "t"))
    other = str(tmp_path / "empty.db")
    for args in (["sheet", "--json"], ["settle", "--json"], ["log", "--json"], ["log", "--verdicts"],
                 ["explain", "Boris.whists.Anna"], ["diff", "8", "deal:2"], ["settle", "--csv"],
                 ["export", "--csv", "--table", "deals"], ["export", "--csv", "--table", "sheet"],
                 ["export"], ["settle", "--at", "9"]):
        assert ok(other, *args[:1], "--file", export, *args[1:]) == ok(timed, args[0], "t", *args[1:]), args
        # The game's name may be given; it must be the file's.
        assert ok(other, args[0], "t", "--file", export, *args[1:]) == ok(timed, args[0], "t", *args[1:])
    assert "a log of 't', not of 'u'" in refused(other, "sheet", "u", "--file", export)
    games = json.loads(ok(other, "games", "--json", "--file", export))
    assert games == json.loads(ok(timed, "games", "--json"))
    # An edited export is refused, naming its line; a log without digests is judged and read.
    lines = Path(export).read_text().splitlines()
    lines[4] = lines[4].replace('"6S"', '"7S"')
    err = refused(other, "settle", "--file", write(tmp_path, "edited.jsonl", "\n".join(lines) + "\n"))
    assert "line 5" in err and "digest" in err
    assert ok(other, "sheet", "--json", "--file", write(tmp_path, "plain.jsonl", TIMED)) == ok(timed, "sheet", "t", "--json")
    bad = TIMED.replace('"bid":"7H"', '"bid":"5H"')
    assert "line 16" in refused(other, "sheet", "--file", write(tmp_path, "bad.jsonl", bad))
    # Nothing was stored in the store given.
    assert json.loads(ok(other, "games", "--json")) == []


def test_games_lists_what_each_game_is(store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    ok(store_url, "import", write(tmp_path, "timed.jsonl", TIMED))
    ok(store_url, "new", "done", "--players", "A,B,C", "--pulya", "2")
    for line in ("6S pass pass | 6S | pass pass", "pass 6S pass | 6S | pass pass", "pass pass 6S | 6S | pass pass"):
        ok(store_url, "deal", line)
    ok(store_url, "new", "quit", "--players", "A,B,C,D", "--convention", "piter")
    ok(store_url, "abandon", "--agreed-by", "a,b,c,d")
    docs = {d["game"]: d for d in json.loads(ok(store_url, "games", "--json"))}
    assert list(docs) == ["done", "quit", "t"]
    t = docs["t"]
    assert (t["players"], t["convention"], t["events"], t["deals"], t["status"]) == \
        (["Anna", "Boris", "Vera"], "sochi", 22, 3, "playing")
    assert (t["first"], t["last"]) == ("2026-12-01T19:59:00+03:00", "2026-12-02T00:40:00+03:00")
    assert (docs["done"]["status"], docs["done"]["deals"]) == ("finished", 3)
    assert (docs["quit"]["status"], docs["quit"]["convention"], len(docs["quit"]["players"])) == ("abandoned", "leningrad", 4)
    text = ok(store_url, "games")
    assert "t: Anna, Boris, Vera; sochi, pulya to 10; 22 events, 3 deals, playing; " \
           "2026-12-01 16:59:00 UTC to 2026-12-01 21:40:00 UTC" in text


def test_settle_says_who_pays_whom(timed: str) -> None:
    doc = json.loads(ok(timed, "settle", "t", "--json"))
    payments = doc["transfers"]
    # The payments settle every balance, in money too.
    balance = {p: 0 for p in doc["players"]}
    money = {p: Decimal(0) for p in doc["players"]}
    for t in payments:
        balance[t["from"]] -= t["whists"]
        balance[t["to"]] += t["whists"]
        money[t["from"]] -= Decimal(t["money"])
        money[t["to"]] += Decimal(t["money"])
    assert balance == doc["rounded"]
    assert money == {p: Decimal(v) for p, v in doc["money"].items()}
    assert len(payments) <= len(doc["players"]) - 1
    assert {p: Fraction(v) for p, v in doc["result_exact"].items()} == \
        {p: Fraction(v).limit_denominator(1000) for p, v in doc["result"].items()}
    text = ok(timed, "settle", "t")
    for t in payments:
        assert f"{t['from']} pays {t['to']} {t['whists']} whist" in text
        assert f"= {t['money']}" in text
    assert not FLOAT_ARTEFACT.search(text)


def test_money_with_two_decimals_and_no_float_artefacts(store_url: str) -> None:
    ok(store_url, "new", "m", "--players", "A,B,C", "--stake", "1")
    ok(store_url, "deal", "6S pass pass | 6S | whist whist | 6 2 2")
    doc = json.loads(ok(store_url, "settle", "m", "--json"))
    thirds = [p for p, v in doc["result_exact"].items() if Fraction(v).denominator == 3]
    assert thirds and all(isinstance(doc["result"][p], float) for p in thirds)  # the documented floats
    text = ok(store_url, "settle", "m")
    assert all(f"{Decimal(v):.2f}" in text for v in doc["money"].values())
    for args in (["settle", "m"], ["diff", "m", "1", "8"], ["explain", "m", "A.pulya"], ["sheet", "m"],
                 ["log", "m"], ["settle", "m", "--csv"], ["export", "m", "--csv", "--table", "deals"],
                 ["export", "m", "--csv", "--table", "payments"], ["games"]):
        assert not FLOAT_ARTEFACT.search(ok(store_url, *args)), args


def test_exact_values_beside_fractions(store_url: str) -> None:
    # Rostov raspasy with four players and the talon played: B and D tie for the fewest
    # tricks and write half each: 3 x 5 / 2 on A, 5 x 5 / 2 on C.
    ok(store_url, "new", "r", "--players", "A,B,C,D", "--convention", "rostov", "--rule", "raspasy_talon=true")
    out = ok(store_url, "deal", "pass pass pass | 3 1 5 1")
    assert "B whists on A +7½" in out
    sheet = json.loads(ok(store_url, "sheet", "r", "--json"))
    assert sheet["B"]["whists"] == {"A": 7.5, "C": 12.5, "D": 0}
    assert sheet["B"]["whists_exact"] == {"A": "15/2", "C": "25/2"}
    assert "whists_exact" not in sheet["A"] and "pulya_exact" not in sheet["D"]
    settle: dict[str, Any] = json.loads(ok(store_url, "settle", "r", "--json"))
    assert settle["sheet"] == sheet
    writes = json.loads(ok(store_url, "explain", "r", "B.whists.A", "--json"))["writes"]
    assert (writes[0]["amount_exact"], writes[0]["total_exact"]) == ("15/2", "15/2")
    log = json.loads(ok(store_url, "log", "r", "--json"))["events"][-1]
    assert {"player": "B", "column": "whists", "on": "A", "amount": 7.5, "amount_exact": "15/2"} in log["changes"]
    d = json.loads(ok(store_url, "diff", "r", "1", "5", "--json"))
    assert d["result_exact"] == settle["result_exact"]
    table = {row["player"]: row for row in csv_out(store_url, "settle", "r", "--csv")}
    assert [table["B"][c] for c in ("pulya", "gora", "gora after pulya", "result", "result exact", "rounded")] == \
        ["0", "0", "20", "17.50", "35/2", str(settle["rounded"]["B"])]


def test_spreadsheets(timed: str, tmp_path: Path) -> None:
    """Each table for a spreadsheet (issue 20, item 6) is one table: a header row, then a
    row per line, UTF-8 with the byte order mark, read by csv.DictReader; its numbers
    are those of the JSON documents."""
    sheet = json.loads(ok(timed, "sheet", "t", "--json"))
    rows = csv_out(timed, "export", "t", "--csv", "--table", "sheet")
    assert [r["player"] for r in rows] == ["Anna", "Boris", "Vera"]
    for row in rows:
        p = row["player"]
        assert int(row["pulya"]) == sheet[p]["pulya"] and int(row["gora"]) == sheet[p]["gora"]
        for q, v in sheet[p]["whists"].items():
            assert int(row[f"whists on {q}"]) == v
        assert row[f"whists on {p}"] == ""
    deals = csv_out(timed, "export", "t", "--csv", "--table", "deals")
    assert [d["deal"] for d in deals] == ["1", "2", "3"] and [d["dealer"] for d in deals] == ["Vera", "Anna", "Boris"]
    # The deals' writes add up to the sheet (the correction's change sits in deal 1).
    for p in sheet:
        assert sum(int(d[f"{p} pulya"] or 0) for d in deals) == sheet[p]["pulya"]
    assert deals[0]["line"] == ("Anna 6S, Boris pass, Vera pass | Anna 6S | Boris whist, Vera whist | "
                                "Anna 6, Boris 2, Vera 2")
    settled = json.loads(ok(timed, "settle", "t", "--json"))
    settlement = csv_out(timed, "export", "t", "--csv", "--table", "settlement")
    assert {r["player"]: int(r["rounded"]) for r in settlement} == settled["rounded"]
    assert {r["player"]: r["money"] for r in settlement} == {p: f"{Decimal(m):.2f}" for p, m in settled["money"].items()}
    assert {r["status"] for r in settlement} == {"finished" if settled["finished"] else "playing"}
    payments = csv_out(timed, "export", "t", "--csv", "--table", "payments")
    assert [(r["from"], r["to"], int(r["whists"])) for r in payments] == \
        [(t["from"], t["to"], t["whists"]) for t in settled["transfers"]]
    # settle --csv gives the same settlement (and who pays whom with --table payments).
    assert csv_out(timed, "settle", "t", "--csv") == settlement
    assert csv_out(timed, "settle", "t", "--csv", "--table", "payments") == payments
    # Without --table, one file a table, each the same table.
    folder = tmp_path / "sheets"
    said = ok(timed, "export", "t", "--csv", "--dir", str(folder))
    files = {name: folder / f"t-{name}.csv" for name in ("sheet", "deals", "settlement", "payments")}
    assert said == f"wrote {', '.join(str(f) for f in files.values())}\n"
    for name, expected in (("sheet", rows), ("deals", deals), ("settlement", settlement), ("payments", payments)):
        assert csv_rows(files[name].read_bytes()) == expected, name
    assert run(timed, "export", "t", "--table", "deals").exit_code == 2  # --table goes with --csv

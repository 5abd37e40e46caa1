"""A rubber of bridge on the command line, end to end through click:
recorded deal by deal and imported from JSON Lines, shown, settled, audited, traced,
compared, corrected, exported and verified with the same commands as a pulka. What the
store keeps (every event type, a rubber stored before, the same bytes out) on both
stores; the rest on SQLite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import projections.rubber as rubber_projection

from cli.main import main
from helpers import Scorer
from ledger.store.event_store import Store
from ledger.vocabulary.bridge import BridgeDeal, BridgePenalty, Honours, PassedOut, RubberStarted
from ledger.vocabulary.bridge_rules import LAWS
from ledger.vocabulary.events import EVENT_TYPES, Abandoned, Correction, ForeignEvent, encode_event
from projections.recording import merge

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "bridge"
TIMES = ["2026-11-30T19:00:00+00:00", "2026-11-30T19:10:00+00:00", "2026-11-30T19:20:00+00:00"]


def run(db: str, *args: str) -> Result:
    return CliRunner().invoke(main, [*args, "--db", db], catch_exceptions=False)


def ok(db: str, *args: str) -> str:
    result = run(db, *args)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.stdout


def refused(db: str, *args: str) -> str:
    result = run(db, *args)
    assert result.exit_code == 1, f"{args} should be refused: {result.output}"
    assert "Traceback" not in result.output
    return result.stderr


def rubber(db: str) -> None:
    """N-S: 2D (40), then E-W 3NT one down (50 to N-S), then 3H +1 (90 + 30): game;
    then 4S doubled just made (240 below, 50 insult): the rubber 2-0 (700)."""
    ok(db, "bridge", "new", "r1", "--players", "Anna,Boris,Vera,Gleb", "--stake", "0.10")
    ok(db, "bridge", "deal", "r1", "2D N 8")
    ok(db, "bridge", "deal", "r1", "3NT W -1")
    ok(db, "bridge", "deal", "r1", "3H Vera +1")
    ok(db, "bridge", "deal", "r1", "4S X N =")


@pytest.mark.sqlite_only
def test_a_rubber_recorded_deal_by_deal(store_url: str) -> None:
    rubber(store_url)
    doc = json.loads(ok(store_url, "settle", "r1", "--json"))
    # N-S: 40 + 50 + 90 + 30 + 240 + 50 + 700 = 1200 against nothing.
    assert doc["totals"] == {"NS": 1200, "EW": 0} and doc["winner"] == "NS" and doc["finished"] is True
    assert doc["money"] == {"Anna": "1.20", "Boris": "-1.20", "Vera": "1.20", "Gleb": "-1.20"}
    sheet = json.loads(ok(store_url, "sheet", "r1", "--json"))
    assert [[e["points"] for e in game] for game in sheet["we"]["below"]] == [[40, 90], [240]]
    assert [e["points"] for e in sheet["we"]["above"]] == [50, 30, 50, 700]
    assert sheet["games"] == [{"game": 1, "winner": "NS", "deal": 3}, {"game": 2, "winner": "NS", "deal": 4}]
    text = ok(store_url, "sheet", "r1")
    assert "МЫ" in text and "ВЫ" in text and "game 1: МЫ" in text and "1200" in text
    assert "N–S win by 1200 points" in ok(store_url, "settle", "r1")
    err = refused(store_url, "bridge", "deal", "r1", "1C E 7")
    assert "[Law 74]" in err and "the rubber is over" in err and "allowed:" in err


@pytest.mark.sqlite_only
def test_points_in_time_log_explain_and_diff(store_url: str) -> None:
    rubber(store_url)
    at_deal_2 = json.loads(ok(store_url, "settle", "r1", "--json", "--deal", "2"))
    # Unfinished at deal 2: the only part score (N-S 40) earns 100 [Law 80]: 40 + 50 + 100.
    assert at_deal_2["totals"] == {"NS": 190, "EW": 0} and at_deal_2["finished"] is False
    assert at_deal_2["bonuses"] == [{"side": "NS", "points": 100, "why": at_deal_2["bonuses"][0]["why"]}]
    assert json.loads(ok(store_url, "sheet", "r1", "--json", "--at", "3"))["we"]["below_total"] == 40
    log = json.loads(ok(store_url, "log", "r1", "--json"))["events"]
    assert [e["type"] for e in log] == ["rubber_started"] + ["bridge_deal"] * 4
    assert log[2]["changes"] == [{"side": "NS", "line": "above", "amount": 50}]
    explained = json.loads(ok(store_url, "explain", "r1", "we.above", "--json"))["writes"]
    assert [(w["event"], w["amount"]) for w in explained] == [(3, 50), (4, 30), (5, 50), (5, 700)]
    assert explained[-1]["total"] == 830
    assert "МЫ (N–S) above: 830" in ok(store_url, "explain", "r1", "NS.above")
    assert "SIDE.above" in refused(store_url, "explain", "r1", "Anna.pulya")
    diff = json.loads(ok(store_url, "diff", "r1", "deal:2", "deal:4", "--json"))
    assert {(c["side"], c["line"], c["change"]) for c in diff["sheet"]} == {("NS", "above", 780), ("NS", "below", 330)}
    # The settlement moved from 190 (with the unfinished premium) to 1200.
    assert diff["result"] == {"Anna": 1010, "Boris": -1010, "Vera": 1010, "Gleb": -1010}
    assert "МЫ (N–S) above: 50 -> 830 (+780)" in ok(store_url, "diff", "r1", "deal:2", "deal:4")


@pytest.mark.sqlite_only
def test_corrections_abandon_and_the_time_point(store_url: str) -> None:
    ok(store_url, "bridge", "new", "r2", "--players", "Anna,Boris,Vera,Gleb")
    ok(store_url, "bridge", "deal", "r2", "4S N 10")
    ok(store_url, "bridge", "deal", "r2", "2C E 8")
    assert "pulka bridge" in refused(store_url, "correct", "r2", "3", "tricks=9", "--yes")
    ok(store_url, "bridge", "correct", "r2", "3", "tricks=9", "--by", "Boris")
    assert json.loads(ok(store_url, "sheet", "r2", "--json"))["they"]["above_total"] == 20
    assert "effective [Law 77]" in ok(store_url, "log", "r2")
    assert "not a record of the score" in refused(store_url, "bridge", "correct", "r2", "4", "tricks=8")
    assert "all four players" in refused(store_url, "bridge", "abandon", "r2", "--agreed-by", "Anna,Boris")
    ok(store_url, "bridge", "abandon", "r2", "--agreed-by", "anna,boris,vera,gleb")
    doc = json.loads(ok(store_url, "settle", "r2", "--json"))
    # Stopped with N-S one game up and E-W the only part score: 300 and 100 [Law 80].
    assert doc["abandoned"] is True and doc["totals"] == {"NS": 120 + 300, "EW": 40 + 20 + 100}
    assert "no deal may follow" in refused(store_url, "bridge", "deal", "r2", "pass")


@pytest.mark.sqlite_only
def test_the_time_point(store_url: str, tmp_path: Path) -> None:
    lines = [
        '{"type":"rubber_started","game":"timed","players":["Anna","Boris","Vera","Gleb"],"at":"%s"}' % TIMES[0],
        '{"type":"bridge_deal","declarer":"Anna","contract":"4S","tricks":10,"at":"%s"}' % TIMES[1],
        '{"type":"bridge_deal","declarer":"Boris","contract":"3NT","tricks":9,"at":"%s"}' % TIMES[2],
    ]
    path = tmp_path / "timed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ok(store_url, "import", str(path))
    at_19_15 = json.loads(ok(store_url, "sheet", "timed", "--json", "--time", "2026-11-30T19:15:00+00:00"))
    assert at_19_15["deals"] == 1 and at_19_15["we"]["games"] == 1 and at_19_15["they"]["games"] == 0
    assert json.loads(ok(store_url, "sheet", "timed", "--json", "--time", TIMES[2]))["they"]["games"] == 1
    assert "started after" in refused(store_url, "sheet", "timed", "--time", "2026-11-30T18:00:00+00:00")


def test_import_export_verify_and_the_same_bytes(store_url: str, tmp_path: Path) -> None:
    ok(store_url, "import", str(FIXTURES / "seed_rubber_two_one.jsonl"))
    exported = ok(store_url, "export", "seed_rubber_two_one")
    path = tmp_path / "export.jsonl"
    path.write_text(exported, encoding="utf-8")
    copy = str(tmp_path / "copy.db")
    assert "created seed_rubber_two_one: 5 events" in ok(copy, "import", str(path))
    assert ok(copy, "export", "seed_rubber_two_one") == exported
    for args in (["settle", "seed_rubber_two_one", "--json"], ["sheet", "seed_rubber_two_one"],
                 ["log", "seed_rubber_two_one", "--json"]):
        assert ok(copy, *args) == ok(store_url, *args)
    assert "chain intact" in ok(store_url, "verify", "seed_rubber_two_one")
    assert "5 events, chain intact" in ok(store_url, "verify", "--file", str(path))
    # An export edited by hand is refused.
    path.write_text(exported.replace('"tricks":10', '"tricks":11'), encoding="utf-8")
    assert "digest chain breaks" in refused(tmp_path.joinpath("third.db").as_posix(), "import", str(path))


@pytest.mark.sqlite_only
def test_refusals_name_the_line_and_the_rule_and_store_nothing(store_url: str, tmp_path: Path) -> None:
    bad = (FIXTURES / "seed_rubber_two_nil.jsonl").read_text(encoding="utf-8").replace('"tricks":10', '"tricks":14')
    path = tmp_path / "bad.jsonl"
    path.write_text(bad, encoding="utf-8")
    err = refused(store_url, "import", str(path))
    assert "line 3" in err and "[seed 003]" in err and "allowed: 0 to 13" in err
    with Store(store_url) as store:
        assert store.games() == []
    ok(store_url, "bridge", "new", "r1", "--players", "Anna,Boris,Vera,Gleb")
    ok(store_url, "bridge", "deal", "r1", "2D N 8")
    before = ok(store_url, "export", "r1")
    assert "[Law 18]" in refused(store_url, "bridge", "deal", "r1", "8S N 13")
    assert "allowed: 0 to 13" in refused(store_url, "bridge", "deal", "r1", "7NT N +1")
    assert "is a rubber, not a pulka" in refused(store_url, "deal", "r1", "6S pass pass | 6S | pass pass")
    assert "is a rubber, not a pulka" in refused(store_url, "bid", "r1", "Anna", "6S")
    assert "four players" in refused(store_url, "bridge", "new", "r9", "--players", "Anna,Boris,Vera")
    assert ok(store_url, "export", "r1") == before
    ok(store_url, "new", "p1", "--players", "Anna,Boris,Vera")
    assert "is a pulka, not a rubber" in refused(store_url, "bridge", "deal", "p1", "4S N 10")


@pytest.mark.sqlite_only
def test_the_deal_line(store_url: str) -> None:
    ok(store_url, "bridge", "new", "r3", "--players", "Anna,Boris,Vera,Gleb", "--first-dealer", "Boris")
    assert ok(store_url, "bridge", "deal", "r3", "pass") == "event 2: passed out (dealt by Boris)\ndeal 2: Vera deals\n"
    said = json.loads(ok(store_url, "bridge", "deal", "r3", "3NTXX S -2 hon W 150", "--json"))
    event = said["events"][0]
    del event["at"]
    assert event == {"number": 3, "type": "bridge_deal", "declarer": "Vera", "contract": "3NT", "tricks": 7,
                     "double": "XX", "honours": {"player": "Gleb", "points": 150}, "by": "Vera", "deal": 2}
    # Two down redoubled, not vulnerable: (100 + 200) x 2 = 600 to E-W; honours 150 to E-W.
    assert said["writes"] == [{"side": "EW", "line": "above", "amount": 750}]
    assert said["next"] == "deal 3: Gleb deals" and said["over"] is False
    assert "[Law 81]" in refused(store_url, "bridge", "deal", "r3", "4H E = hon W 120")
    assert "neither a seat nor a player" in refused(store_url, "bridge", "deal", "r3", "4H Q =")
    assert "not a result" in refused(store_url, "bridge", "deal", "r3", "4H E made")
    ok(store_url, "bridge", "penalty", "r3", "EW", "100", "--reason", "revoke settled by agreement", "--by", "Anna")
    # Two down redoubled, not vulnerable: (100 + 200) x 2 = 600; honours 150; the ruling 100.
    assert json.loads(ok(store_url, "sheet", "r3", "--json"))["they"]["above_total"] == 600 + 150 + 100


def test_every_rubber_event_type_round_trips_through_the_store(store: Store) -> None:
    players = ("Anna", "Boris", "Vera", "Gleb")
    events = [
        RubberStarted(game="r", players=players, first_dealer="Anna", stake="0.10", rule_set=LAWS,
                      at=TIMES[0], by="Anna"),
        PassedOut(deal=1, by="Anna", at=TIMES[1]),
        BridgeDeal(declarer="Boris", contract="4H", double="XX", tricks=9, honours=Honours(player="Vera", points=100),
                   deal=2, by="Boris"),
        BridgePenalty(side="EW", points=50, reason="a ruling", by="arbiter:Ivanov", deal=2),
        Correction(target=3, replacement={"tricks": 10}, by="Gleb", deal=2),
        Abandoned(agreed_by=players, by="Anna", deal=2),
    ]
    assert {type(e) for e in events if isinstance(e, ForeignEvent)} == {  # every event of a rubber
        t for t in EVENT_TYPES.values() if issubclass(t, ForeignEvent) and t.__module__ == "ledger.vocabulary.bridge"}
    stored = store.append("r", events, expected=0)
    loaded = store.load("r")
    assert [s.event for s in loaded] == events and loaded == stored
    assert [encode_event(s.event) for s in loaded] == [encode_event(e) for e in events]
    assert store.verify("r") is None and store.games() == ["r"]


@pytest.mark.sqlite_only
def test_the_pulka_only_commands_refuse_a_rubber_plainly(store_url: str) -> None:
    ok(store_url, "bridge", "new", "r4", "--players", "Anna,Boris,Vera,Gleb")
    ok(store_url, "bridge", "deal", "r4", "4S N 10")
    assert "a rubber of bridge" in refused(store_url, "play", "r4")
    assert "--csv writes a pulka's sheet" in refused(store_url, "export", "r4", "--csv")
    assert "--csv writes a pulka's sheet" in refused(store_url, "settle", "r4", "--csv")
    assert "--svg draws a pulka's sheet" in refused(store_url, "sheet", "r4", "--svg")
    assert "the report draws a pulka" in refused(store_url, "report", "r4")
    assert "is a rubber, not a pulka" in refused(store_url, "undo", "r4")
    listed = json.loads(ok(store_url, "games", "--json"))
    assert listed[0]["kind"] == "rubber" and listed[0]["games"] == {"NS": 1, "EW": 0} and listed[0]["deals"] == 1


# -- issue 18: honours corrected, contracts canonical, who doubled ------------------------------------


@pytest.mark.sqlite_only
def test_correcting_honours_on_the_command_line_is_judged_and_scored(store_url: str) -> None:
    """[Law 77] The syntax ``--help`` shows (JSON) and the short one (SEAT:POINTS): each
    correction is stored, scored above the line, and every reading command works."""
    ok(store_url, "bridge", "new", "r5", "--players", "Anna,Boris,Vera,Gleb")
    ok(store_url, "bridge", "deal", "r5", "4H S = hon S 100")  # Vera (S): 120 below, 100 above
    assert '{"player":"Vera","points":100}' in run(store_url, "bridge", "correct", "--help").output
    said = json.loads(ok(store_url, "bridge", "correct", "r5", "2", 'honours={"player":"Vera","points":150}',
                         "--by", "Vera", "--json"))
    assert said["writes"] == [{"side": "NS", "line": "above", "amount": 50}]  # 100 -> 150, N-S
    assert said["verdicts"][0]["effective"] is True and said["verdicts"][0]["rule"] == "Law 77"
    said = json.loads(ok(store_url, "bridge", "correct", "r5", "2", "honours=E:100", "--json"))
    # Now four honours in Boris's (East's) hand: N-S lose 150, E-W write 100.
    assert {(w["side"], w["amount"]) for w in said["writes"]} == {("NS", -150), ("EW", 100)}
    assert json.loads(ok(store_url, "settle", "r5", "--json"))["totals"]["EW"] == 100
    assert "[Law 81]" in refused(store_url, "bridge", "correct", "r5", "2", "honours=W:120")
    ok(store_url, "bridge", "correct", "r5", "2", "honours=none")
    sheet = json.loads(ok(store_url, "sheet", "r5", "--json"))
    assert sheet["we"]["above_total"] == 0 and sheet["they"]["above_total"] == 0
    assert "chain intact" in ok(store_url, "verify", "r5")


@pytest.mark.sqlite_only
def test_a_log_with_honours_corrected_imports_and_reads(store_url: str) -> None:
    """The same corrections in a log, in time and late: imported, shown, settled and
    verified; what verify passes, the reading commands read (fixture
    laws_honours_corrected: N-S 670, E-W 180)."""
    ok(store_url, "import", str(FIXTURES / "laws_honours_corrected.jsonl"))
    doc = json.loads(ok(store_url, "settle", "laws_honours_corrected", "--json"))
    assert doc["totals"] == {"NS": 670, "EW": 180}
    assert "МЫ" in ok(store_url, "sheet", "laws_honours_corrected")
    assert "chain intact" in ok(store_url, "verify", "laws_honours_corrected")
    log = json.loads(ok(store_url, "log", "laws_honours_corrected", "--json"))["events"]
    assert [e["effective"] for e in log[4:]] == [True] * 4


@pytest.mark.sqlite_only
def test_contracts_are_stored_in_their_canonical_form(store_url: str, tmp_path: Path) -> None:
    """As typed in a log (3nt, ' 3N ', 2s, a correction's ' 1s') or on the command line
    (contract=3nt), a contract is stored and exported as 3NT, 2S, 1S."""
    ok(store_url, "import", str(FIXTURES / "laws_contracts_canonical.jsonl"))
    exported = [json.loads(line) for line in ok(store_url, "export", "laws_contracts_canonical").splitlines()]
    assert [e.get("contract") for e in exported[1:4]] == ["3NT", "3NT", "2S"]
    assert exported[4]["replacement"] == {"contract": "1S"} and exported[0]["canonical_contracts"] is True
    ok(store_url, "bridge", "correct", "laws_contracts_canonical", "4", "contract=3nt")
    last = json.loads(ok(store_url, "export", "laws_contracts_canonical").splitlines()[-1])
    assert last["replacement"] == {"contract": "3NT"}
    path = tmp_path / "again.jsonl"
    path.write_text(ok(store_url, "export", "laws_contracts_canonical"), encoding="utf-8")
    assert "chain intact" in ok(str(tmp_path / "copy.db"), "verify", "--file", str(path))


def test_a_rubber_stored_before_keeps_its_contracts_and_digests(store_url: str, tmp_path: Path) -> None:
    """An export of a rubber stored before contracts were canonical imports with its
    digests: stored as exported, verified against the file, not imported twice; it
    reads the contracts it names, and a deal added now is stored canonical."""
    path = FIXTURES / "old_typed_contracts.jsonl"
    ok(store_url, "import", str(path))
    assert ok(store_url, "export", "old_typed_contracts") == path.read_text(encoding="utf-8")
    assert "chain intact" in ok(store_url, "verify", "old_typed_contracts")
    assert "matches the saved export" in ok(store_url, "verify", "old_typed_contracts", "--against", str(path))
    assert "nothing new" in ok(store_url, "import", str(path))
    text = ok(store_url, "log", "old_typed_contracts")
    assert "3NT by Egor" in text and "4H by Sveta" in text and " 3N " not in text
    ok(store_url, "bridge", "deal", "old_typed_contracts", "2d N 8")
    assert json.loads(ok(store_url, "export", "old_typed_contracts").splitlines()[-1])["contract"] == "2D"
    assert "chain intact" in ok(store_url, "verify", "old_typed_contracts")
    # 2D: 40 below brings N-S's game 2 to 90 + 40: one game all, so no 300 any more [Law 80].
    assert json.loads(ok(store_url, "settle", "old_typed_contracts", "--json"))["totals"] == {"NS": 190, "EW": 120}


def test_who_doubled_is_recorded_shown_and_judged(tmp_path: Path) -> None:
    """[Law 19] X@SEAT and XX@SEAT on the deal line, at the rubber's desk: stored as
    doubled_by and redoubled_by, shown in the log; a double by the declaring side, a
    redouble by the defenders and a doubler named for an undoubled contract are refused,
    nothing stored."""
    with Scorer(str(tmp_path / "pulka.db"), "r6", "Anna,Boris,Vera,Gleb", rubber=True) as r:
        r.deal("4S X@E N 10")
        event = r.exported()[-1]
        assert (event["double"], event["doubled_by"], "redoubled_by" in event) == ("X", "Boris", False)
        err = r.refused("deal", "2H X@W E 8")  # Gleb is Boris's partner
        assert "[Law 19]" in err and "double only a bid made by an opponent" in err and "allowed: Anna or Vera" in err
        err = r.refused("deal", "2H X@N XX@S E 8")  # Vera defends
        assert "[Law 19]" in err and "redouble only a double made by an opponent" in err
        assert "not doubled" in r.refused("correct", 2, {"double": "none"})
        said = r.deal("2H X@N XX@W E 8")
        event = r.exported()[-1]
        assert (event["double"], event["doubled_by"], event["redoubled_by"]) == ("XX", "Anna", "Gleb")
        # Redoubled 2H made: 60 x 4 = 240 below (E-W's game) and 100 for making it [Law 81].
        writes = {line for line in said.splitlines() if line.startswith("ВЫ (E–W) ")}
        assert writes == {"ВЫ (E–W) below +240", "ВЫ (E–W) above +100"}
        log = r.log()
        assert "the double by Boris" in log and "the double by Anna, the redouble by Gleb" in log
        r.correct(2, {"doubled_by": "W"})
        assert "correction of event 2: doubled_by=Gleb" in r.log()
        r.correct(2, {"double": "none", "doubled_by": "none"})
        assert r.verified()


@pytest.mark.sqlite_only
def test_verify_scores_the_corrections_it_passes(store_url: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """verify judges a stored correction by scoring it as replay will, even one in time
    (which the fold does not score until the sheet is read): were the fold to read a
    correction otherwise than the judge checked it (as it once read honours as a bare
    mapping), verify names the correction instead of calling the rubber intact while
    its sheet cannot be read."""
    path = tmp_path / "in_time.jsonl"
    path.write_text("\n".join([
        '{"type":"rubber_started","game":"in_time","players":["Nadia","Egor","Sveta","Vadim"]}',
        '{"type":"bridge_deal","declarer":"Nadia","contract":"4S","tricks":10,"honours":{"player":"Egor","points":150}}',
        '{"type":"correction","target":2,"replacement":{"honours":{"player":"Egor","points":100}},"by":"Egor"}',
    ]) + "\n", encoding="utf-8")
    ok(store_url, "import", str(path))
    assert "chain intact" in ok(store_url, "verify", "in_time")
    # N-S 120 below and, unfinished, 300 for the game; E-W 100 for the honours as corrected.
    assert json.loads(ok(store_url, "settle", "in_time", "--json"))["totals"] == {"NS": 420, "EW": 100}
    # The fold as it was: the replacement merged as stored, honours left a mapping.
    monkeypatch.setattr(rubber_projection, "corrected", merge)
    result = run(store_url, "verify", "in_time")
    assert result.exit_code == 1 and "event 3" in result.output and "intact" not in result.output, result.output


def test_a_double_written_on_the_contract_and_again_after_it_is_refused(tmp_path: Path) -> None:
    """[Law 19] "4SX XX N 10" doubles the contract on the contract's word and again as a
    call of its own: it was read as redoubled and stored; at the rubber's desk it is
    refused, naming both and how to write it once, and nothing is stored. Once, either
    way, is read as before."""
    with Scorer(str(tmp_path / "pulka.db"), "r7", "Anna,Boris,Vera,Gleb", rubber=True) as r:
        for line, contract, call in (("4SX XX N 10", "4SX", "XX"), ("4SXX X N 10", "4SXX", "X"),
                                     ("4SX@E XX@S N 10", "4SX@E", "XX@S")):
            err = r.refused("deal", line)
            assert f"{line!r} writes the double twice: on the contract ({contract}) and as {call} [Law 19]" in err
            assert "allowed: the double once: on the contract (4SX, 4SXX) or after it (4S X, 4S X XX" in err
        assert len(r.exported()) == 1
        for line, double in (("2SX N -1", "X"), ("2S X XX N -1", "XX"), ("2SXX N -1", "XX")):
            r.deal(line)
            assert r.exported()[-1]["double"] == double

"""Issue 18 items 3, 5, 6, 7 and 8 on the command line: a newcomer in the
place of the one who left [Code 3.1.2], corrections after a join [4.2.7], a correction
that changes no number [4.2.7], an objection to a record without effect and explain
naming it [4.2.10], and a deal's numbers credited to its result [4.2.4]. The golden
fixtures hold the same cases judged without a store (code_3_1_2_newcomer_replaces,
rec_correction_after_join, rec_correction_changes_nothing, rec_objection_to_ignored)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
import pytest

from cli.main import main
from ledger.judge.kinds import judge_log
from ledger.vocabulary.logfile import parse_log
from projections.audit import explain, ignored_records
from projections.game import replay

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only


def run(db: str, *args: str) -> Result:
    return CliRunner().invoke(main, [*args, "--db", db], catch_exceptions=False)


def ok(db: str, *args: str) -> Result:
    result = run(db, *args)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result


def refused(db: str, *args: str) -> str:
    result = run(db, *args)
    assert result.exit_code == 1, f"{args} should be refused: {result.output}"
    assert "Traceback" not in result.output
    return result.stderr


def exported(db: str, game: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in ok(db, "export", game).stdout.splitlines()]


def whists(db: str, game: str, player: str) -> dict[str, Any]:
    doc = json.loads(ok(db, "sheet", game, "--json").stdout)
    found: dict[str, Any] = doc[player]["whists"]
    return found


def log_rows(db: str, game: str) -> dict[int, dict[str, Any]]:
    return {row["number"]: row for row in json.loads(ok(db, "log", game, "--json").stdout)["events"]}


def explained(db: str, game: str, cell: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(ok(db, "explain", game, cell, "--json").stdout)["writes"]
    return rows


def test_a_newcomer_in_the_place_of_one_who_left_and_the_deal_goes_round(store_url: str) -> None:
    """Item 3 [Code 3.1.2]: the issue's case. Anna, Boris, Vera, Gleb; Vera leaves after
    deal 1; Anna deals deal 2 to the three. Egor joins in Vera's place: the deal goes on
    to the left of Anna, to Boris, and Egor (between Boris and Gleb) is the forehand."""
    db = store_url
    ok(db, "new", "t", "--players", "Anna,Boris,Vera,Gleb")
    ok(db, "deal", "t", "6S pass pass | 6S | pass pass")  # Gleb deals
    ok(db, "leave", "t", "Vera", "--reason", "a train")
    ok(db, "deal", "t", "7H pass pass | 7H | pass pass")  # Anna deals: Boris, Gleb, Anna bid
    err = refused(db, "join", "t", "Egor", "--agreed-by", "Anna,Boris,Gleb", "--replaces", "Anna")
    assert "Anna did not leave the table (Vera left the table)" in err and "3.1.2" in err
    said = ok(db, "join", "t", "Egor", "--agreed-by", "Anna,Boris,Gleb", "--replaces", "vera").stdout
    assert "next: deal 3: Boris deals and sits out, Egor leads" in said
    ok(db, "deal", "t", "6D pass pass | 6D | pass pass")
    events = exported(db, "t")
    joined = [e for e in events if e["type"] == "joined"]
    assert joined[0]["replaces"] == "Vera"
    assert [e["player"] for e in events if e["type"] == "bid" and e["deal"] == 3] == ["Egor", "Gleb", "Anna"]
    assert "Egor joins in the place of Vera, who left," in ok(db, "log", "t").stdout
    # Without --replaces the newcomer sits to the left of the last dealer and deals next.
    ok(db, "new", "u", "--players", "Anna,Boris,Vera,Gleb")
    ok(db, "deal", "u", "6S pass pass | 6S | pass pass")
    ok(db, "leave", "u", "Vera")
    ok(db, "deal", "u", "7H pass pass | 7H | pass pass")
    said = ok(db, "join", "u", "Egor", "--agreed-by", "Anna,Boris,Gleb").stdout
    assert "next: deal 3: Egor deals and sits out, Boris leads" in said


def test_records_made_before_a_join_can_still_be_corrected(store_url: str) -> None:
    """Item 5 [Code 4.2.7, 3.1.2]: the correction re-judges the join as it was judged
    then; an entry and the tricks, before the newcomer has played, and he plays after."""
    db = store_url
    ok(db, "new", "c", "--players", "Anna,Boris,Vera")
    ok(db, "deal", "c", "6S pass pass | 6S | whist whist | 6 2 2")  # events 2-8
    ok(db, "entry", "c", "Boris", "whists", "4", "--on", "Anna")  # 9
    ok(db, "pencil", "c", "Boris")  # 10
    ok(db, "join", "c", "Gleb", "--agreed-by", "Anna,Boris,Vera")  # 11
    said = ok(db, "correct", "c", "9", "2", "--by", "Boris", "--yes")
    assert "Boris's first counted error: a warning" in said.output
    ok(db, "correct", "c", "8", "Anna=6", "Boris=3", "Vera=1", "--by", "Vera", "--yes")
    assert whists(db, "c", "Boris")["Anna"] == 3 * 2 + 2 and whists(db, "c", "Vera")["Anna"] == 1 * 2
    ok(db, "deal", "c", "6H pass pass | 6H | pass pass")  # Gleb deals deal 2
    assert [e["type"] for e in exported(db, "c")].count("correction") == 2
    assert ok(db, "verify", "c").exit_code == 0


def test_a_correction_that_changes_no_number_is_no_error(store_url: str) -> None:
    """Item 6 [Code 4.2.7]: on a greedy whist the lone whister writes the defence's
    tricks, whoever took them: moving a trick between the defenders changes nothing,
    costs nothing and leaves the warning for the first real error."""
    db = store_url
    ok(db, "new", "n", "--players", "Anna,Boris,Vera")
    ok(db, "deal", "n", "6S pass pass | 6S | whist pass:open | 6 3 1")  # tricks: event 8
    ok(db, "pencil", "n", "Anna")
    said = ok(db, "correct", "n", "8", "Boris=1", "Vera=3", "--by", "Boris", "--yes")
    assert "no number of the sheet changes" in said.output
    assert "verdict: free [Code 4.2.7]: corrected; no number of the sheet changes: no error" in said.output
    assert "warning" not in said.output
    said = ok(db, "correct", "n", "8", "Anna=5", "Boris=4", "Vera=1", "--by", "Boris", "--yes")
    assert "Anna's first counted error: a warning" in said.output
    rows = log_rows(db, "n")
    assert rows[10]["effective"] is True and "no error" in rows[10]["reason"]
    assert whists(db, "n", "Boris")["Anna"] == 12  # 5 tricks x 2 + consolation 2, and no penalty


def test_an_objection_to_a_record_without_effect_says_so_and_explain_names_it(store_url: str) -> None:
    """Item 7 [Code 4.2.10]: a forgotten entry after the deadline has no effect; an
    objection to it says it refuses nothing (not that the record stands), and explain of
    the number it would have changed names it with its verdict."""
    db = store_url
    ok(db, "new", "o", "--players", "Anna,Boris,Vera")
    ok(db, "deal", "o", "6S pass pass | 6S | whist whist | 6 2 2")  # events 2-8
    ok(db, "bid", "o", "Boris", "pass")  # 9: deal 2 has begun
    ok(db, "bid", "o", "Vera", "6S")  # 10
    ok(db, "bid", "o", "Anna", "pass")  # 11: its bidding has ended
    ok(db, "entry", "o", "Boris", "whists", "4", "--on", "Anna", "--deal", "1")  # 12
    ok(db, "object", "o", "Anna", "1", "--target", "12")  # 13
    rows = log_rows(db, "o")
    assert rows[12]["effective"] is False and "a forgotten record has no effect" in rows[12]["reason"]
    assert rows[13]["effective"] is False
    assert rows[13]["reason"].startswith("nothing to refuse: event 12 has no effect already")
    assert "stand" not in rows[13]["reason"]
    trace = explained(db, "o", "Boris.whists.Anna")
    assert [(r["event"], r["amount"]) for r in trace] == [(8, 4), (12, 0)]
    assert trace[-1]["ignored"] is True and trace[-1]["total"] == 4
    assert "no effect [Code 4.2.10]" in trace[-1]["why"] and "it would have written +4" in trace[-1]["why"]
    text = ok(db, "explain", "o", "Boris.whists.Anna").stdout
    assert "event 12 (deal 1, entry: Boris whists on Anna +4, recorded by Boris" in text


def test_a_game_the_defenders_let_stand_is_credited_to_its_contract(store_url: str) -> None:
    """Item 8 [Code 4.2.4]: pulya 2; Anna and Boris have closed; Vera's 8S (6 points)
    passed by both: 2 into her pulya and 4 nobody can take off her gora [Code 4.1.1].
    The numbers are Vera's game, credited to her contract and to her, not to Boris's
    pass that closed the deal."""
    db = store_url
    ok(db, "new", "k", "--players", "Anna,Boris,Vera", "--pulya", "2")
    ok(db, "deal", "k", "6S pass pass | 6S | pass pass")  # Vera deals; Anna's 6S: 2 (events 2-7)
    ok(db, "deal", "k", "6H pass pass | 6H | pass pass")  # Anna deals; Boris's 6H: 2 (8-13)
    ok(db, "deal", "k", "8S pass pass | 8S | pass pass")  # Boris deals; Vera's 8S (14-19)
    contract, closing = 17, 19
    events = exported(db, "k")
    assert events[contract - 1]["type"] == "contract" and events[contract - 1]["by"] == "Vera"
    assert events[closing - 1] == {**events[closing - 1], "type": "defence", "player": "Boris", "by": "Boris"}
    gora = explained(db, "k", "Vera.gora")
    assert [(r["event"], r["amount"]) for r in gora] == [(contract, -4)]
    assert gora[0]["recorded_by"] == "Vera" and gora[0]["event_text"] == "Vera declares 8S"
    assert gora[0]["written_at"] == closing
    pulya = explained(db, "k", "Vera.pulya")
    assert [(r["event"], r["amount"], r["recorded_by"]) for r in pulya] == [(contract, 2, "Vera")]
    text = ok(db, "explain", "k", "Vera.gora").stdout
    assert f"event {contract} (deal 3, Vera declares 8S, recorded by Vera" in text and "Boris: pass" not in text
    row = log_rows(db, "k")[closing]
    assert row["credited_to"] == contract and "recorded by Vera" in row["credit"]
    # Deal 1 likewise: Anna's 6S, credited to her contract (event 5).
    first = explained(db, "k", "Anna.pulya")
    assert [(r["event"], r["recorded_by"]) for r in first] == [(5, "Anna")]


def test_explain_names_forgotten_tricks_where_they_would_have_written() -> None:
    """Item 7 for a result (fixtures/rec_late_tricks): deal 2's tricks, 6/2/2 on C's 6S
    with A whisting alone, come after deal 3's bidding and have no effect. Before deal 2
    A and C had closed and B stood at 7, so C's 2 points would have gone to B as help
    (C writing 2 x 10 = 20 on him) and A would have written 4 x 2 = 8 on C [Code 4.2.3]:
    explain names event 21 in those three numbers, and in no other."""
    log = Path(__file__).resolve().parent.parent / "fixtures" / "rec_late_tricks.jsonl"
    state = replay(judge_log(parse_log(log.read_text(encoding="utf-8"))))
    named = {cell: [(n, str(w.exact)) for n, w in rows] for cell, rows in ignored_records(state).items()}
    assert named == {("B", "pulya", None): [(21, "2")], ("C", "whists", "B"): [(21, "20")],
                     ("A", "whists", "C"): [(21, "8")]}
    trace = explain(state, ("C", "whists", "B"))
    assert trace[-1]["event"] == 21 and trace[-1]["ignored"] is True and trace[-1]["amount"] == 0
    assert "too late" in trace[-1]["why"] and trace[-1]["why"].endswith("it would have written +20")

"""Issue 18 items 3, 5, 6, 7 and 8 at the scorer's desk: a newcomer in the place of the
one who left [Code 3.1.2], corrections after a join [4.2.7], a correction that changes
no number [4.2.7], an objection to a record without effect and explain naming it
[4.2.10], and a deal's numbers credited to its result [4.2.4]. The golden fixtures hold
the same cases judged without a store (code_3_1_2_newcomer_replaces,
rec_correction_after_join, rec_correction_changes_nothing, rec_objection_to_ignored);
the command line's options for them (``join --replaces``, ``correct --yes``, ``entry
--deal``, ``object --target``) reach the desk: the last test."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import Scorer, ok, refused
from ledger.judge.kinds import judge_log
from readings import parse_log
from projections.audit import ignored_records, pulka_explain
from projections.game import replay


def scorer(tmp_path: Path, game: str, players: str, **options: object) -> Scorer:
    return Scorer(str(tmp_path / f"{game}.db"), game, players, **options)


def test_a_newcomer_in_the_place_of_one_who_left_and_the_deal_goes_round(tmp_path: Path) -> None:
    """Item 3 [Code 3.1.2]: the issue's case. Anna, Boris, Vera, Gleb; Vera leaves after
    deal 1; Anna deals deal 2 to the three. Egor joins in Vera's place: the deal goes on
    to the left of Anna, to Boris, and Egor (between Boris and Gleb) is the forehand."""
    with scorer(tmp_path, "t", "Anna,Boris,Vera,Gleb") as t:
        t.deal("6S pass pass | 6S | pass pass")  # Gleb deals
        t.leave("Vera", reason="a train")
        t.deal("7H pass pass | 7H | pass pass")  # Anna deals: Boris, Gleb, Anna bid
        err = t.refused("join", "Egor", agreed_by="Anna,Boris,Gleb", replaces="Anna")
        assert "Anna did not leave the table (Vera left the table)" in err and "3.1.2" in err
        said = t.join("Egor", agreed_by="Anna,Boris,Gleb", replaces="vera")
        assert "next: deal 3: Boris deals and sits out, Egor leads" in said
        t.deal("6D pass pass | 6D | pass pass")
        events = t.exported()
        joined = [e for e in events if e["type"] == "joined"]
        assert joined[0]["replaces"] == "Vera"
        assert [e["player"] for e in events if e["type"] == "bid" and e["deal"] == 3] == ["Egor", "Gleb", "Anna"]
        assert "Egor joins in the place of Vera, who left," in t.log()
    # Without a place named the newcomer sits to the left of the last dealer and deals next.
    with scorer(tmp_path, "u", "Anna,Boris,Vera,Gleb") as u:
        u.deal("6S pass pass | 6S | pass pass")
        u.leave("Vera")
        u.deal("7H pass pass | 7H | pass pass")
        said = u.join("Egor", agreed_by="Anna,Boris,Gleb")
        assert "next: deal 3: Egor deals and sits out, Boris leads" in said


def test_records_made_before_a_join_can_still_be_corrected(tmp_path: Path) -> None:
    """Item 5 [Code 4.2.7, 3.1.2]: the correction re-judges the join as it was judged
    then; an entry and the tricks, before the newcomer has played, and he plays after."""
    with scorer(tmp_path, "c", "Anna,Boris,Vera") as t:
        t.deal("6S pass pass | 6S | whist whist | 6 2 2")  # events 2-8
        t.entry("Boris", "whists", 4, on="Anna")  # 9
        t.pencil("Boris")  # 10
        t.join("Gleb", agreed_by="Anna,Boris,Vera")  # 11
        said = t.correct(9, ["2"], by="Boris")
        assert "Boris's first counted error: a warning" in said
        t.correct(8, ["Anna=6", "Boris=3", "Vera=1"], by="Vera")
        doc = t.sheet()
        assert doc["Boris"]["whists"]["Anna"] == 3 * 2 + 2 and doc["Vera"]["whists"]["Anna"] == 1 * 2
        t.deal("6H pass pass | 6H | pass pass")  # Gleb deals deal 2
        assert [e["type"] for e in t.exported()].count("correction") == 2
        assert t.verified()


def test_a_correction_that_changes_no_number_is_no_error(tmp_path: Path) -> None:
    """Item 6 [Code 4.2.7]: on a greedy whist the lone whister writes the defence's
    tricks, whoever took them: moving a trick between the defenders changes nothing,
    costs nothing and leaves the warning for the first real error."""
    with scorer(tmp_path, "n", "Anna,Boris,Vera") as t:
        t.deal("6S pass pass | 6S | whist pass:open | 6 3 1")  # tricks: event 8
        t.pencil("Anna")
        said = t.correct(8, ["Boris=1", "Vera=3"], by="Boris")
        assert "no number of the sheet changes" in said
        assert "free [Code 4.2.7]: corrected; no number of the sheet changes: no error" in said
        assert "warning" not in said
        said = t.correct(8, ["Anna=5", "Boris=4", "Vera=1"], by="Boris")
        assert "Anna's first counted error: a warning" in said
        rows = t.log_rows()
        assert rows[10]["effective"] is True and "no error" in rows[10]["reason"]
        assert t.sheet()["Boris"]["whists"]["Anna"] == 12  # 5 tricks x 2 + consolation 2, and no penalty


def test_an_objection_to_a_record_without_effect_says_so_and_explain_names_it(tmp_path: Path) -> None:
    """Item 7 [Code 4.2.10]: a forgotten entry after the deadline has no effect; an
    objection to it says it refuses nothing (not that the record stands), and explain of
    the number it would have changed names it with its verdict."""
    with scorer(tmp_path, "o", "Anna,Boris,Vera") as t:
        t.deal("6S pass pass | 6S | whist whist | 6 2 2")  # events 2-8
        t.bid("Boris", "pass")  # 9: deal 2 has begun
        t.bid("Vera", "6S")  # 10
        t.bid("Anna", "pass")  # 11: its bidding has ended
        t.entry("Boris", "whists", 4, on="Anna", deal=1)  # 12
        t.object("Anna", 1, target=12)  # 13
        rows = t.log_rows()
        assert rows[12]["effective"] is False and "a forgotten record has no effect" in rows[12]["reason"]
        assert rows[13]["effective"] is False
        assert rows[13]["reason"].startswith("nothing to refuse: event 12 has no effect already")
        assert "stand" not in rows[13]["reason"]
        trace = t.explained("Boris.whists.Anna")
        assert [(r["event"], r["amount"]) for r in trace] == [(8, 4), (12, 0)]
        assert trace[-1]["ignored"] is True and trace[-1]["total"] == 4
        assert "no effect [Code 4.2.10]" in trace[-1]["why"] and "it would have written +4" in trace[-1]["why"]
        assert "event 12 (deal 1, entry: Boris whists on Anna +4, recorded by Boris" in t.explain("Boris.whists.Anna")


def test_a_game_the_defenders_let_stand_is_credited_to_its_contract(tmp_path: Path) -> None:
    """Item 8 [Code 4.2.4]: pulya 2; Anna and Boris have closed; Vera's 8S (6 points)
    passed by both: 2 into her pulya and 4 nobody can take off her gora [Code 4.1.1].
    The numbers are Vera's game, credited to her contract and to her, not to Boris's
    pass that closed the deal."""
    with scorer(tmp_path, "k", "Anna,Boris,Vera", pulya=2) as t:
        t.deal("6S pass pass | 6S | pass pass")  # Vera deals; Anna's 6S: 2 (events 2-7)
        t.deal("6H pass pass | 6H | pass pass")  # Anna deals; Boris's 6H: 2 (8-13)
        t.deal("8S pass pass | 8S | pass pass")  # Boris deals; Vera's 8S (14-19)
        contract, closing = 17, 19
        events = t.exported()
        assert events[contract - 1]["type"] == "contract" and events[contract - 1]["by"] == "Vera"
        assert events[closing - 1] == {**events[closing - 1], "type": "defence", "player": "Boris", "by": "Boris"}
        gora = t.explained("Vera.gora")
        assert [(r["event"], r["amount"]) for r in gora] == [(contract, -4)]
        assert gora[0]["recorded_by"] == "Vera" and gora[0]["event_text"] == "Vera declares 8S"
        assert gora[0]["written_at"] == closing
        pulya = t.explained("Vera.pulya")
        assert [(r["event"], r["amount"], r["recorded_by"]) for r in pulya] == [(contract, 2, "Vera")]
        text = t.explain("Vera.gora")
        assert f"event {contract} (deal 3, Vera declares 8S, recorded by Vera" in text and "Boris: pass" not in text
        row = t.log_rows()[closing]
        assert row["credited_to"] == contract and "recorded by Vera" in row["credit"]
        # Deal 1 likewise: Anna's 6S, credited to her contract (event 5).
        first = t.explained("Anna.pulya")
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
    trace = pulka_explain(state, ("C", "whists", "B"))
    assert trace[-1]["event"] == 21 and trace[-1]["ignored"] is True and trace[-1]["amount"] == 0
    assert "too late" in trace[-1]["why"] and trace[-1]["why"].endswith("it would have written +20")


def test_the_command_line_takes_a_join_in_a_place_a_late_entry_an_objection_and_a_correction(tmp_path: Path) -> None:
    """What the command line adds: ``join --replaces``, ``entry --deal``, ``object
    --target``, ``correct --by --yes`` (a correction stored without asking), their
    words and a refusal's exit status, and the --json of log and explain."""
    db = str(tmp_path / "pulka.db")
    ok(db, "new", "t", "--players", "Anna,Boris,Vera,Gleb")
    ok(db, "deal", "t", "6S pass pass | 6S | pass pass")
    ok(db, "leave", "t", "Vera", "--reason", "a train")
    assert "3.1.2" in refused(db, "join", "t", "Egor", "--agreed-by", "Anna,Boris,Gleb", "--replaces", "Anna")
    said = ok(db, "join", "t", "Egor", "--agreed-by", "Anna,Boris,Gleb", "--replaces", "vera")
    assert "next: deal 2: Anna deals and sits out, Boris leads" in said
    ok(db, "new", "o", "--players", "Anna,Boris,Vera")
    ok(db, "deal", "o", "6S pass pass | 6S | whist whist | 6 2 2")  # events 2-8
    for player, bid in (("Boris", "pass"), ("Vera", "6S"), ("Anna", "pass")):
        ok(db, "bid", "o", player, bid)  # 9-11
    ok(db, "entry", "o", "Boris", "whists", "4", "--on", "Anna", "--deal", "1")  # 12
    ok(db, "object", "o", "Anna", "1", "--target", "12")  # 13
    said = ok(db, "correct", "o", "8", "Anna=6", "Boris=3", "Vera=1", "--by", "Vera", "--yes")
    assert "stored as event 14" in said
    rows = {row["number"]: row for row in json.loads(ok(db, "log", "o", "--json"))["events"]}
    assert rows[12]["effective"] is False and rows[13]["reason"].startswith("nothing to refuse")
    trace = json.loads(ok(db, "explain", "o", "Boris.whists.Anna", "--json"))["writes"]
    assert trace[-1]["event"] == 12 and trace[-1]["ignored"] is True
    assert "event 12 (deal 1, entry: Boris whists on Anna +4" in ok(db, "explain", "o", "Boris.whists.Anna")

"""At the table, through the command line: what each recording command
says it did, the verdicts it prints, the checks of table mode (a forgotten result, a
line typed twice), the table's words, corrections in those words with their preview,
and the current game."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from helpers import FLOAT_ARTEFACT, ok, refused, run, write

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only

PLAYERS = ("Anna", "Boris", "Vera")


def sheet_of(db: str, game: str = "") -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(ok(db, "sheet", *([game] if game else []), "--json"))
    return doc


def cells(sheet: dict[str, Any]) -> dict[str, Fraction]:
    """Every number of a sheet document, exactly, named as the commands name them."""
    out = {}
    for p, row in sheet.items():
        out[f"{p} pulya"] = Fraction(row.get("pulya_exact", row["pulya"]))
        out[f"{p} gora"] = Fraction(row.get("gora_exact", row["gora"]))
        for q, v in row["whists"].items():
            out[f"{p} whists on {q}"] = Fraction(row.get("whists_exact", {}).get(q, v))
    return out


def reported(out: str) -> dict[str, Fraction]:
    """The writes a command printed: lines '  Anna pulya +2'."""
    writes = {}
    for line in out.splitlines():
        if line.startswith("  ") and line.split()[-1][:1] in "+-" and not line.lstrip()[:1].isdigit():
            name, amount = line.strip().rsplit(" ", 1)
            writes[name] = Fraction(amount)
    return writes


def difference(before: dict[str, Fraction], after: dict[str, Fraction]) -> dict[str, Fraction]:
    return {k: after[k] - before[k] for k in after if after[k] != before[k]}


def test_every_record_says_what_it_wrote_and_who_deals_next(store_url: str) -> None:
    out = ok(store_url, "new", "t", "--players", "Anna,Boris,Vera", "--pulya", "4")
    assert "Vera deals first, Anna leads" in out and "t is now the current game" in out
    lines = ["6S pass pass | 6S | whist whist | 6 2 2", "7H pass pass | 7H | whist pass | 7 2 1",
             "pass pass pass | 2 5 3", "pass 6NT pass | 6NT | pass pass"]
    dealers = ["Anna deals, Boris leads", "Boris deals, Vera leads", "Vera deals, Anna leads",
               "Anna deals, Boris leads"]
    for k, (line, next_seats) in enumerate(zip(lines, dealers), start=1):
        before = cells(sheet_of(store_url))
        out = ok(store_url, "deal", line)  # no game named: the current one
        # What the command says it wrote is exactly what changed on the sheet.
        assert reported(out) == difference(before, cells(sheet_of(store_url)))
        assert reported(out)
        assert f"deal {k} (events " in out
        assert f"next: deal {k + 1}: {next_seats}" in out
    # Event by event, each command says what the deal waits for.
    assert "deal 5 waits for a bid by Vera" in ok(store_url, "bid", "Boris", "pass")
    assert "deal 5 waits for a bid by Anna" in ok(store_url, "bid", "Vera", "7S")
    assert "deal 5 waits for the contract of Vera" in ok(store_url, "bid", "Anna", "pass")
    assert "deal 5 waits for pass or whist by Anna" in ok(store_url, "contract", "Vera", "7S")
    ok(store_url, "defence", "Anna", "whist")
    assert "deal 5 waits for its tricks" in ok(store_url, "defence", "Boris", "pass")
    out = ok(store_url, "tricks", "Vera=7", "Anna=2", "Boris=1")
    assert "deal 5: Boris pass, Vera 7S, Anna pass | Vera 7S | Anna whist, Boris pass | Boris 1, Vera 7, Anna 2" in out
    assert "the pulka has ended" in out  # every pulya at 4


def test_quiet_and_json(store_url: str) -> None:
    ok(store_url, "new", "q", "--players", "A,B,C", "--quiet")
    assert ok(store_url, "deal", "6S pass pass | 6S | whist whist | 6 2 2", "--quiet") == ""
    doc = json.loads(ok(store_url, "deal", "pass pass pass | 2 5 3", "--json"))
    assert [e["number"] for e in doc["events"]] == [9, 10, 11, 12]
    assert [e["type"] for e in doc["events"]] == ["bid", "bid", "bid", "tricks"]
    assert doc["deals"][0]["deal"] == 2 and doc["deals"][0]["line"].startswith("B pass, C pass, A pass")
    # raspasy 2/5/3 from the forehand B, amnesty 2: B 0, C 3, A 1 in gora
    assert {(w["player"], w["column"], w["amount"]) for w in doc["writes"]} == {("C", "gora", 3), ("A", "gora", 1)}
    assert doc["next"] == "next: deal 3: B deals, C leads" and doc["over"] is False and doc["verdicts"] == []


def test_verdicts_are_printed_when_recorded(store_url: str) -> None:
    ok(store_url, "new", "v", "--players", "A,B,C")
    ok(store_url, "deal", "6S pass pass | 6S | whist whist | 6 2 2")
    # A free correction: said on standard output, nothing on standard error.
    result = run(store_url, "correct", "8", "A=7", "B=2", "C=1", "--yes")
    assert result.exit_code == 0 and result.stderr == ""
    assert "verdict: free [Code 4.2.8]" in result.stdout
    # B's own entry, the pencil down, then A points out the error: B's first, a warning.
    ok(store_url, "entry", "B", "whists", "10", "--on", "A")
    ok(store_url, "pencil", "B")
    result = run(store_url, "correct", "10", "6", "--by", "A", "--yes")
    assert result.exit_code == 0
    assert "event 12: warning [Code 4.2.7]" in result.stderr and "B's first counted error" in result.stderr
    # The second counted error of B: equal for equal, on standard error too.
    ok(store_url, "entry", "B", "whists", "3", "--on", "C")
    ok(store_url, "pencil", "B")
    result = run(store_url, "correct", "13", "1", "--by", "C", "--yes")
    assert result.exit_code == 0 and "counted [Code 4.2.7]" in result.stderr and "equal for equal" in result.stderr
    # A late record after its deadline is stored, without effect, and said so.
    ok(store_url, "deal", "pass pass pass | 3 3 4")  # the bidding of deal 2 has ended
    result = run(store_url, "entry", "C", "pulya", "2", "--deal", "1")
    assert result.exit_code == 0
    assert "no effect [Code 4.2.10]" in result.stderr and "too late" in result.stderr
    # --quiet silences even those.
    result = run(store_url, "entry", "C", "pulya", "2", "--deal", "1", "--quiet")
    assert result.exit_code == 0 and result.output == ""


def test_a_forgotten_result_is_caught_at_once(store_url: str) -> None:
    ok(store_url, "new", "f", "--players", "A,B,C")
    result = run(store_url, "deal", "6S pass pass | 6S | whist whist", "--leave-open")
    assert result.exit_code == 0
    assert "deal 1 was played but its result is not recorded" in result.stderr and "4.2.10" in result.stderr
    before = ok(store_url, "export")
    err = refused(store_url, "deal", "pass pass pass | 3 3 4")
    assert "deal 1 was played but its result is not recorded" in err and "--leave-open" in err
    assert "pulka tricks" in err
    err = refused(store_url, "bid", "B", "pass")
    assert "--leave-open" in err
    assert ok(store_url, "export") == before  # nothing stored
    # The tricks come, and the game goes on; or the scorer leaves it open on purpose.
    ok(store_url, "tricks", "A=6", "B=2", "C=2")
    ok(store_url, "deal", "7S pass pass | 7S | whist whist", "--leave-open")
    result = run(store_url, "bid", "C", "pass", "--leave-open")
    assert result.exit_code == 0 and "deal 2 is left without its result" in result.stderr


def test_a_line_typed_twice_asks_for_again(store_url: str) -> None:
    ok(store_url, "new", "a", "--players", "A,B,C")
    ok(store_url, "deal", "pass pass pass | 2 5 3")
    before = ok(store_url, "export")
    err = refused(store_url, "deal", "rasp A=2 B=5 C=3")  # the same deal: the same players and tricks
    assert "this is deal 1 again" in err and "--again" in err
    assert ok(store_url, "export") == before
    ok(store_url, "deal", "rasp A=2 B=5 C=3", "--again")
    assert len(ok(store_url, "export").splitlines()) == 9
    # Another deal is not held back, though its line is the same: from the next forehand
    # the counts are other players' (C 2, A 5, B 3).
    ok(store_url, "deal", "pass pass pass | 2 5 3")


def test_the_tables_words(store_url: str) -> None:
    ok(store_url, "new", "w", "--players", "Anna,Boris,Vera", "--convention", "Ростовка", "--first-dealer", "vera")
    first = json.loads(ok(store_url, "export").splitlines()[0])
    assert first["convention"] == "rostov" and first["first_dealer"] == "Vera"
    ok(store_url, "deal", "6♠ пас пас | 6 пик | вист вист:открыто | 6 2 2")
    ok(store_url, "bid", "boris", "7бк")
    ok(store_url, "bid", "VERA", "пас")
    ok(store_url, "bid", "anna", "ПАС")
    ok(store_url, "contract", "boris", "7nt")
    ok(store_url, "defence", "vera", "пас")
    out = ok(store_url, "defence", "anna", "полвиста")  # the second defender's half-whist stands
    assert "next: deal 3" in out
    events = [json.loads(line) for line in ok(store_url, "export").splitlines()]
    words = [(e["type"], e.get("player"), e.get("bid") or e.get("contract") or e.get("call"), e.get("open"))
             for e in events[1:]]
    assert words[:7] == [("bid", "Anna", "6S", None), ("bid", "Boris", "pass", None), ("bid", "Vera", "pass", None),
                         ("contract", "Anna", "6S", None), ("defence", "Boris", "whist", None),
                         ("defence", "Vera", "whist", True), ("tricks", None, None, None)]
    assert words[7:] == [("bid", "Boris", "7NT", None), ("bid", "Vera", "pass", None), ("bid", "Anna", "pass", None),
                         ("contract", "Boris", "7NT", None), ("defence", "Vera", "pass", None),
                         ("defence", "Anna", "half_whist", None)]
    # Negative amounts need no "--"; columns in Russian; names in any case.
    ok(store_url, "entry", "vera", "висты", "-4", "--on", "BORIS")
    entry = json.loads(ok(store_url, "export").splitlines()[-1])
    assert (entry["player"], entry["column"], entry["amount"], entry["on"]) == ("Vera", "whists", -4, "Boris")
    err = refused(store_url, "bid", "Anna", "6Z")
    assert "'6Z' is not a bid" in err and "♠" in err and "пас" in err
    assert "unknown player 'Ann'" in refused(store_url, "bid", "Ann", "6S")


def test_corrections_in_the_tables_words_with_a_preview(store_url: str) -> None:
    ok(store_url, "new", "c", "--players", "Anna,Boris,Vera", "--stake", "0.10")
    ok(store_url, "deal", "6D 7S pass pass | 7S | whist whist | 3 5* 2")  # event 9: Anna 3, Boris 5, Vera 2
    before = ok(store_url, "export")
    # Not on a terminal, without --yes: the preview, then a refusal; nothing stored.
    result = run(store_url, "correct", "9", "Boris=6", "Anna=2")
    assert result.exit_code == 1 and "--yes" in result.stderr
    assert "was:    tricks Anna 3, Boris 5, Vera 2" in result.stdout
    assert "now:    tricks Anna 2, Boris 6, Vera 2" in result.stdout  # Vera, the only one left out, makes 10
    assert "verdict: free [Code 4.2.8]" in result.stdout
    assert ok(store_url, "export") == before
    # The preview is the verdict the stored correction gets, and its writes the changes.
    sheet = cells(sheet_of(store_url))
    out = ok(store_url, "correct", "9", "Boris=6", "Anna=2", "--yes")
    assert reported(out) == difference(sheet, cells(sheet_of(store_url)))
    stored = json.loads(ok(store_url, "export").splitlines()[-1])
    assert stored["replacement"] == {"tricks": {"Anna": 2, "Boris": 6, "Vera": 2}}
    log = json.loads(ok(store_url, "log", "--json", "--type", "correction"))["events"]
    assert log[-1]["effective"] is True and "in hand" in log[-1]["reason"]
    # A contract corrected by its word, once other events followed it: Vera's first error.
    out = ok(store_url, "correct", "6", "8S", "--yes")
    assert "was:    Boris declares 7S" in out and "now:    Boris declares 8S" in out
    assert "verdict: warning [Code 4.2.7]" in out
    # A bid, a call, an amount by their words.
    ok(store_url, "deal", "pass 6H pass | 6H | whist pass | 3 6* 1")
    n = len(ok(store_url, "export").splitlines())
    assert "now:    Boris: whist" in ok(store_url, "correct", str(n - 1), "вист", "--yes")
    assert "now:    Boris: pass" in ok(store_url, "correct", str(n - 1), "pass", "--yes")
    assert "now:    Anna bids 6H" in ok(store_url, "correct", "2", "6♥", "--yes")
    ok(store_url, "entry", "Boris", "gora", "3")
    n = len(ok(store_url, "export").splitlines())
    assert "now:    entry: Boris gora -2" in ok(store_url, "correct", str(n), "-2", "--yes")
    # Too late: a partner's correction after the next deal's bidding has no effect.
    ok(store_url, "deal", "pass pass pass | 3 3 4")
    result = run(store_url, "correct", "9", "Boris=7", "Anna=1", "--by", "Anna", "--yes")
    assert "verdict: no effect [Code 4.2.9]" in result.stdout and "too late" in result.stdout
    assert "no effect" in result.stderr and result.exit_code == 0
    # Trick counts given for an event that is not a deal's tricks: the event is named.
    err = refused(store_url, "correct", "2", "Boris=6", "Anna=2", "--yes")
    assert "Boris=6 is a trick count, but event 2 is a bid (Anna bids 6H)" in err and "[Code 4.2.7]" in err
    assert "allowed: a change of its bid" in err
    # No Python or msgspec wording, whatever is typed.
    for args in (["9", "amount=abc"], ["9", "Vera=x"], ["9", "7"], ["99", "Vera=6"], ["9", "tricks=[1]"],
                 ["9", "tricks={\"Anna\":\"x\"}"], ["2", "bid=7Q"], ["7", "call=maybe"], ["9", "on=Anna"]):
        result = run(store_url, "correct", *args, "--yes")
        assert result.exit_code == 1, args
        for word in ("Expected", "`int`", "$.", "Traceback", "msgspec", "NoneType"):
            assert word not in result.output, (args, result.output)
    assert not FLOAT_ARTEFACT.search(ok(store_url, "settle"))


def test_the_current_game_and_the_store_before_the_command(store_url: str, tmp_path: Path) -> None:
    ok(store_url, "new", "g1", "--players", "A,B,C")
    ok(store_url, "new", "g2", "--players", "D,E,F")
    assert "g2 (chosen by pulka use)" in ok(store_url, "use")
    ok(store_url, "use", "g1")
    ok(store_url, "deal", "6S pass pass | 6S | pass pass")
    assert sheet_of(store_url, "g1")["A"]["pulya"] == 2 and sheet_of(store_url, "g2")["D"]["pulya"] == 0
    # PULKA_GAME comes before `pulka use`.
    ok(store_url, "deal", "6S pass pass | 6S | pass pass", env={"PULKA_GAME": "g2"})
    assert sheet_of(store_url, "g2")["D"]["pulya"] == 2
    err = refused(store_url, "use", "nope")
    assert "no game named 'nope'" in err and "g1, g2" in err
    ok(store_url, "use", "--clear")
    result = run(store_url, "sheet")
    assert result.exit_code == 2 and "pulka use GAME" in result.output
    # --db before the command, for every command.
    from click.testing import CliRunner

    from cli.main import main

    result = CliRunner().invoke(main, ["--db", store_url, "sheet", "g1", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["A"]["pulya"] == 2
    other = str(tmp_path / "other.db")
    result = CliRunner().invoke(main, ["--db", other, "sheet", "g1", "--json", "--db", store_url])
    assert result.exit_code == 0  # the one after the command wins
    result = CliRunner().invoke(main, ["--db", other, "games", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout) == []


def test_undo_while_in_hand(store_url: str) -> None:
    ok(store_url, "new", "u", "--players", "A,B,C")
    empty = sheet_of(store_url)
    ok(store_url, "deal", "6S pass pass | 6S | whist whist | 6 2 2")
    out = ok(store_url, "undo")
    assert "event 9: withdrawn" in out and "events 2-8 withdrawn while in hand" in out
    assert "A pulya -2" in out and "next: deal 1: C deals, A leads" in out
    assert sheet_of(store_url) == empty
    events = [json.loads(line) for line in ok(store_url, "export").splitlines()]
    assert len(events) == 9 and events[-1]["type"] == "withdrawn" and events[-1]["first"] == 2  # nothing deleted
    # The deal is recorded again, as deal 1; then a number by hand is undone alone.
    assert "deal 1 (events 10-16)" in ok(store_url, "deal", "6S pass pass | 6S | whist whist | 6 3 1")
    after_deal = sheet_of(store_url)
    ok(store_url, "entry", "B", "gora", "2")
    assert "event 17 withdrawn" in ok(store_url, "undo")
    assert sheet_of(store_url) == after_deal
    assert "is an undo" in refused(store_url, "undo")
    # A deal entered event by event so far is undone as a whole; --from takes back less.
    ok(store_url, "bid", "B", "pass")
    ok(store_url, "bid", "C", "6S")
    assert "events 19-20 withdrawn" in ok(store_url, "undo")
    ok(store_url, "deal", "pass pass 7H | 7H | whist whist | 3 1 6*")
    n = len(ok(store_url, "export").splitlines())
    assert "deal 2 waits for its tricks" in ok(store_url, "undo", "--from", str(n))
    log = json.loads(ok(store_url, "log", "--json", "--verdicts"))["events"]
    withdrawn = [e["number"] for e in log if e["effective"] is False]
    assert withdrawn == [2, 3, 4, 5, 6, 7, 8, 17, 19, 20, n]
    assert all(e["rule"] == "4.2.8" for e in log)
    # Once the pencil is down the records are out of hand: undo says so, and names correct.
    ok(store_url, "tricks", "B=3", "C=1", "A=6")
    ok(store_url, "pencil", "C")
    before = ok(store_url, "export")
    err = refused(store_url, "undo")
    assert "pencil" in err and "pulka correct" in err and "4.2.8" in err
    assert ok(store_url, "export") == before


LIBRARY_WORDS = ("Expected", "`int`", "`str`", "$.", "Traceback", "msgspec", "NoneType", "Object ")


def test_refusals_speak_the_logs_words(store_url: str, tmp_path: Path) -> None:
    start = '{"type":"game_started","game":"w","players":["A","B","C"],"pulya":10}'
    cases = {
        '{"type":"bid","player":"A","bid":6}': "`bid` must be text in quotes, not a whole number",
        '{"type":"bid","player":"A"}': "the field `bid` is missing",
        '{"type":"tricks","tricks":{"A":"x"}}': "`tricks` must be a whole number, not text in quotes",
        '{"type":"bogus"}': "unknown event type 'bogus'",
        '{"type":"bid","player":"A","bid":"6S","x":1}': "unknown field `x`",
        "[1]": "a line must be one JSON object",
        "{bad": "not valid JSON",
        '{"type":"defence","player":"A","call":"maybe"}': "'maybe' is not a value `call` may take",
        '{"type":"entry","player":"A","column":"pulya","amount":1.5}': "`amount` must be a whole number",
    }
    for n, (line, words) in enumerate(cases.items()):
        err = refused(store_url, "import", write(tmp_path, f"bad{n}.jsonl", f"{start}\n{line}\n"))
        assert "line 2" in err and words in err, (line, err)
        assert not any(w in err for w in LIBRARY_WORDS), err
    err = refused(store_url, "new", "r", "--players", "A,B,C", "--rule", "help=maybe")
    assert "`help` must be true or false" in err and not any(w in err for w in LIBRARY_WORDS)

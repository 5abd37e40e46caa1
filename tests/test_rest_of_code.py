"""The rest of the Code on the command line: the four-player dealer's
whist in a deal line, dark bids, a scorer's --by and PULKA_BY, penalty tricks, deals
out of turn, rulings, changes of players, the talon, settling on demand; and the log
and explain showing the rule behind each number."""

from __future__ import annotations

import json

from click.testing import CliRunner, Result
import pytest

from cli.main import main

# The subject here is a rule, a command's words or a fold, not the store: on SQLite
# only (conftest.py's pytest_generate_tests); the store is tested on both.
pytestmark = pytest.mark.sqlite_only


def run(db: str, *args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, [*args, "--db", db], env=env, catch_exceptions=False)


def ok(db: str, *args: str, env: dict[str, str] | None = None) -> str:
    result = run(db, *args, env=env)
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.stdout


def refused(db: str, *args: str, env: dict[str, str] | None = None) -> str:
    result = run(db, *args, env=env)
    assert result.exit_code == 1, f"{args} should be refused: {result.output}"
    assert "Traceback" not in result.output
    return result.stderr


def exported(db: str, game: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in ok(db, "export", game).splitlines()]


def sheet(db: str, game: str) -> dict[str, dict[str, object]]:
    doc: dict[str, dict[str, object]] = json.loads(ok(db, "sheet", game, "--json"))
    return doc


def test_a_four_player_deal_line_with_the_dealers_return(store_url: str) -> None:
    """Code 3.8.8: pass, half-whist, pass, and the dealer returns with B's cards; the
    tricks section names the dealer in B's place (fixtures/code_3_8_8_dealer_returns_half_whist)."""
    ok(store_url, "new", "g4", "--players", "A,B,C,D")
    ok(store_url, "deal", "g4", "6S pass pass | 6S | pass half_whist pass whist@B pass | 5 3 2")
    events = exported(store_url, "g4")
    dealer = [e for e in events if e["type"] == "defence" and e["player"] == "D"]
    assert dealer and dealer[0]["hand"] == "B" and dealer[0]["call"] == "whist"
    tricks = [e for e in events if e["type"] == "tricks"]
    assert tricks[0]["tricks"] == {"A": 5, "D": 3, "C": 2}
    doc = sheet(store_url, "g4")
    assert doc["A"]["gora"] == 2 and doc["D"]["whists"] == {"A": 12, "B": 0, "C": 0}
    # B, whose cards D played, writes his consolation like everyone else [Code 3.8.1.2, footnote 36].
    assert doc["C"]["whists"] == {"A": 2, "B": 0, "D": 0} and doc["B"]["whists"] == {"A": 2, "C": 0, "D": 0}
    log = ok(store_url, "log", "g4")
    assert "D: whist with B's cards [Code 3.8.8]" in log


def test_a_dealer_whist_on_a_six_after_two_passes_is_refused(store_url: str) -> None:
    ok(store_url, "new", "g4", "--players", "A,B,C,D")
    err = refused(store_url, "deal", "g4", "6S pass pass | 6S | pass pass whist@B")
    assert "3.8" in err
    assert [e["type"] for e in exported(store_url, "g4")] == ["game_started"]


def test_scorer_records_with_by_and_pulka_by(store_url: str) -> None:
    """Code 4.2.4-4.2.7: a scorer who is not a player types the records; `--by` on a deal
    line, or PULKA_BY once for the session."""
    ok(store_url, "new", "s", "--players", "A,B,C", "--by", "scorer:Masha")
    ok(store_url, "deal", "s", "6S pass pass | 6S | whist pass | 6 3 1", "--by", "scorer:Masha")
    ok(store_url, "deal", "s", "pass pass pass | 2 3 5", env={"PULKA_BY": "scorer:Ivan"})
    events = exported(store_url, "s")
    assert {e["by"] for e in events[1:8]} == {"scorer:Masha"}
    assert {e["by"] for e in events[8:]} == {"scorer:Ivan"}
    err = refused(store_url, "bid", "s", "A", "6S", "--by", "Masha")
    assert "unknown recorder 'Masha'" in err and "scorer:NAME" in err


def test_penalty_tricks_option(store_url: str) -> None:
    """Code 3.4.9: the declarer looked at his discard: down two, not one (its example)."""
    ok(store_url, "new", "p", "--players", "A,B,C")
    ok(store_url, "deal", "p", "6S pass pass | 6S | whist whist", "--leave-open")
    ok(store_url, "tricks", "p", "A=5", "B=3", "C=2", "--penalty", "A=1@3.4.9")
    doc = sheet(store_url, "p")
    assert doc["A"]["gora"] == 4
    explained = ok(store_url, "explain", "p", "A.gora")
    assert "down 2" in explained and "Code 3.4.9" in explained
    ok(store_url, "deal", "p", "7S pass pass | 7S | whist whist", "--leave-open")
    err = refused(store_url, "tricks", "p", "B=7", "C=2", "A=1", "--penalty", "C=1@3.4.9")
    assert "rule 3.4.9" in err and "declarer" in err


def test_rulings_joins_talon_and_demand_on_the_command_line(store_url: str) -> None:
    db = store_url
    ok(db, "new", "r", "--players", "A,B,C", "--rule", "talon_premium=true")
    ok(db, "dealt", "r", "B")
    ok(db, "bid", "r", "C", "6S")
    ok(db, "bid", "r", "A", "6C")
    ok(db, "ruling", "r", "3.3.16.3", "--offender", "A", "--whists", "C=20", "--by", "arbiter:Petrov")
    assert sheet(db, "r")["C"]["whists"] == {"A": 20, "B": 0}
    ok(db, "deal", "r", "7S pass pass | 7S", "--leave-open")
    ok(db, "talon", "r", "premium", "A", "--tricks", "1")
    ok(db, "defence", "r", "B", "whist")
    ok(db, "defence", "r", "C", "pass")
    ok(db, "tricks", "r", "A=7", "B=2", "C=1")
    assert sheet(db, "r")["C"]["whists"] == {"A": 20 + 4, "B": 0}  # the dealer's premium, 1 x 4
    ok(db, "join", "r", "D", "--agreed-by", "A,B,C")
    assert sheet(db, "r")["D"]["pulya"] == 1  # mean of 0, 4, 0 rounded down
    ok(db, "substitute", "r", "B", "E", "--agreed-by", "A,C,D")
    ok(db, "leave", "r", "D", "--reason", "a train")
    err = refused(db, "abandon", "r", "--demanded-by", "A")
    assert "reason" in err and "5.4.18" in err
    ok(db, "abandon", "r", "--demanded-by", "A", "--reason", "fire")
    doc = json.loads(ok(db, "settle", "r", "--json"))
    assert doc["abandoned"] is True and set(doc["players"]) == {"A", "B", "C", "D"}
    log = ok(db, "log", "r")
    for text in ("[Code 3.2.14]", "[Code 3.3.16.3]", "[Code 3.4.11]", "[Code 3.1.2]", "[Code 5.4.7]",
                 "[Code 5.4.18]", "[Code 4.2.15, 5.4.18]"):
        assert text in log, text


def test_a_penalty_names_the_wronged_player(store_url: str) -> None:
    """issue 9 item 5: the wronged player writes the whists on the penalised one."""
    ok(store_url, "new", "w", "--players", "A,B,C")
    ok(store_url, "penalty", "w", "B", "whists", "10", "--wronged", "C", "--reason", "showed a card",
       "--by", "arbiter:Petrov")
    doc = sheet(store_url, "w")
    assert doc["C"]["whists"]["B"] == 10 and doc["B"]["whists"]["C"] == 0
    err = refused(store_url, "penalty", "w", "B", "gora", "0", "--reason", "?", "--by", "arbiter:Petrov")
    assert "never benefits" in err


def test_dark_bids_in_a_deal_line(store_url: str) -> None:
    """Code 3.3.19 a: a dark pass doubles the raspasy and earns a bomb; the next game of
    its holder is worth double."""
    ok(store_url, "new", "k", "--players", "A,B,C", "--convention", "classic")
    ok(store_url, "deal", "k", "pass:dark pass pass | 2 3 5")
    assert sheet(store_url, "k")["C"]["gora"] == 6  # (5 - 2) x 1 x 2
    ok(store_url, "deal", "k", "7S pass pass | 7S | pass pass")
    assert sheet(store_url, "k")["A"]["pulya"] == 8  # on his bomb
    err = refused(store_url, "deal", "k", "6S:dark pass pass | 6S | pass")
    assert "3.3.19" in err

"""The rest of the Code at the scorer's desk: the four-player dealer's whist in a deal
line, dark bids, a scorer's ``by``, penalty tricks, deals out of turn, rulings, changes
of players, the talon, settling on demand; and the log and explain showing the rule
behind each number. The command line's options for them reach the desk: the last test
(and ``PULKA_BY``, the session's recorder)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import Scorer, ok, refused, run


def scorer(tmp_path: Path, game: str, players: str, **options: object) -> Scorer:
    return Scorer(str(tmp_path / "pulka.db"), game, players, **options)


def test_a_four_player_deal_line_with_the_dealers_return(tmp_path: Path) -> None:
    """Code 3.8.8: pass, half-whist, pass, and the dealer returns with B's cards; the
    tricks section names the dealer in B's place (fixtures/code_3_8_8_dealer_returns_half_whist)."""
    with scorer(tmp_path, "g4", "A,B,C,D") as t:
        t.deal("6S pass pass | 6S | pass half_whist pass whist@B pass | 5 3 2")
        events = t.exported()
        dealer = [e for e in events if e["type"] == "defence" and e["player"] == "D"]
        assert dealer and dealer[0]["hand"] == "B" and dealer[0]["call"] == "whist"
        tricks = [e for e in events if e["type"] == "tricks"]
        assert tricks[0]["tricks"] == {"A": 5, "D": 3, "C": 2}
        doc = t.sheet()
        assert doc["A"]["gora"] == 2 and doc["D"]["whists"] == {"A": 12, "B": 0, "C": 0}
        # B, whose cards D played, writes his consolation like everyone else [Code 3.8.1.2, footnote 36].
        assert doc["C"]["whists"] == {"A": 2, "B": 0, "D": 0} and doc["B"]["whists"] == {"A": 2, "C": 0, "D": 0}
        assert "D: whist with B's cards [Code 3.8.8]" in t.log()


def test_a_dealer_whist_on_a_six_after_two_passes_is_refused(tmp_path: Path) -> None:
    with scorer(tmp_path, "g4", "A,B,C,D") as t:
        assert "3.8" in t.refused("deal", "6S pass pass | 6S | pass pass whist@B")
        assert [e["type"] for e in t.exported()] == ["game_started"]


def test_scorer_records_with_by(tmp_path: Path) -> None:
    """Code 4.2.4-4.2.7: a scorer who is not a player types the records, named with ``by``."""
    with scorer(tmp_path, "s", "A,B,C", by="scorer:Masha") as t:
        t.deal("6S pass pass | 6S | whist pass | 6 3 1", by="scorer:Masha")
        t.deal("pass pass pass | 2 3 5", by="scorer:Ivan")
        events = t.exported()
        assert {e["by"] for e in events[1:8]} == {"scorer:Masha"}
        assert {e["by"] for e in events[8:]} == {"scorer:Ivan"}
        err = t.refused("bid", "A", "6S", by="Masha")
        assert "unknown recorder 'Masha'" in err and "scorer:NAME" in err


def test_penalty_tricks(tmp_path: Path) -> None:
    """Code 3.4.9: the declarer looked at his discard: down two, not one (its example)."""
    with scorer(tmp_path, "p", "A,B,C") as t:
        t.deal("6S pass pass | 6S | whist whist", leave_open=True)
        t.tricks(["A=5", "B=3", "C=2"], penalties=["A=1@3.4.9"])
        assert t.sheet()["A"]["gora"] == 4
        explained = t.explain("A.gora")
        assert "down 2" in explained and "Code 3.4.9" in explained
        t.deal("7S pass pass | 7S | whist whist", leave_open=True)
        err = t.refused("tricks", ["B=7", "C=2", "A=1"], penalties=["C=1@3.4.9"])
        assert "rule 3.4.9" in err and "declarer" in err


def test_rulings_joins_talon_and_demand(tmp_path: Path) -> None:
    with scorer(tmp_path, "r", "A,B,C", rules={"talon_premium": True}) as t:
        t.dealt("B")
        t.bid("C", "6S")
        t.bid("A", "6C")
        t.ruling("3.3.16.3", offender="A", whists=["C=20"], by="arbiter:Petrov")
        assert t.sheet()["C"]["whists"] == {"A": 20, "B": 0}
        t.deal("7S pass pass | 7S", leave_open=True)
        t.talon("premium", "A", tricks=1)
        t.defence("B", "whist")
        t.defence("C", "pass")
        t.tricks(["A=7", "B=2", "C=1"])
        assert t.sheet()["C"]["whists"] == {"A": 20 + 4, "B": 0}  # the dealer's premium, 1 x 4
        t.join("D", agreed_by="A,B,C")
        assert t.sheet()["D"]["pulya"] == 1  # mean of 0, 4, 0 rounded down
        t.substitute("B", "E", agreed_by="A,C,D")
        t.leave("D", reason="a train")
        err = t.refused("abandon", demanded_by="A")
        assert "reason" in err and "5.4.18" in err
        t.abandon(demanded_by="A", reason="fire")
        doc = t.settlement()
        assert doc["abandoned"] is True and set(doc["players"]) == {"A", "B", "C", "D"}
        log = t.log()
        for text in ("[Code 3.2.14]", "[Code 3.3.16.3]", "[Code 3.4.11]", "[Code 3.1.2]", "[Code 5.4.7]",
                     "[Code 5.4.18]", "[Code 4.2.15, 5.4.18]"):
            assert text in log, text


def test_a_penalty_names_the_wronged_player(tmp_path: Path) -> None:
    """issue 9 item 5: the wronged player writes the whists on the penalised one."""
    with scorer(tmp_path, "w", "A,B,C") as t:
        t.penalty("B", "whists", 10, wronged="C", reason="showed a card", by="arbiter:Petrov")
        doc = t.sheet()
        assert doc["C"]["whists"]["B"] == 10 and doc["B"]["whists"]["C"] == 0
        assert "never benefits" in t.refused("penalty", "B", "gora", 0, reason="?", by="arbiter:Petrov")


def test_dark_bids_in_a_deal_line(tmp_path: Path) -> None:
    """Code 3.3.19 a: a dark pass doubles the raspasy and earns a bomb; the next game of
    its holder is worth double."""
    with scorer(tmp_path, "k", "A,B,C", convention="classic") as t:
        t.deal("pass:dark pass pass | 2 3 5")
        assert t.sheet()["C"]["gora"] == 6  # (5 - 2) x 1 x 2
        t.deal("7S pass pass | 7S | pass pass")
        assert t.sheet()["A"]["pulya"] == 8  # on his bomb
        assert "3.3.19" in t.refused("deal", "6S:dark pass pass | 6S | pass")


def test_the_command_line_takes_the_rest_of_the_code(tmp_path: Path) -> None:
    """What the command line adds: ``--by`` and ``PULKA_BY`` (the recorder for a shell
    session), ``new --rule`` and ``--convention``, ``tricks --penalty``, ``talon
    --tricks``, ``penalty --wronged``, ``abandon --demanded-by --reason``, the changes of
    players' ``--agreed-by``, and a refusal's exit status and words."""
    db = str(tmp_path / "pulka.db")
    ok(db, "new", "s", "--players", "A,B,C", "--by", "scorer:Masha")
    ok(db, "deal", "s", "6S pass pass | 6S | whist pass | 6 3 1", "--by", "scorer:Masha")
    done = run(db, "deal", "s", "pass pass pass | 2 3 5", env={"PULKA_BY": "scorer:Ivan"})
    assert done.exit_code == 0, done.output
    events = [json.loads(line) for line in ok(db, "export", "s").splitlines()]
    assert {e["by"] for e in events[1:8]} == {"scorer:Masha"} and {e["by"] for e in events[8:]} == {"scorer:Ivan"}
    assert "unknown recorder 'Masha'" in refused(db, "bid", "s", "A", "6S", "--by", "Masha")
    ok(db, "new", "r", "--players", "A,B,C", "--rule", "talon_premium=true", "--convention", "classic")
    ok(db, "deal", "r", "7S pass pass | 7S", "--leave-open")
    ok(db, "talon", "r", "premium", "A", "--tricks", "1")
    ok(db, "defence", "r", "B", "whist")
    ok(db, "defence", "r", "C", "whist")
    ok(db, "tricks", "r", "A=6", "B=2", "C=2", "--penalty", "A=1@3.4.9")
    ok(db, "penalty", "r", "B", "whists", "10", "--wronged", "C", "--reason", "showed a card", "--by", "arbiter:P")
    ok(db, "join", "r", "D", "--agreed-by", "A,B,C")
    ok(db, "substitute", "r", "B", "E", "--agreed-by", "A,C,D")
    ok(db, "leave", "r", "D", "--reason", "a train")
    assert "5.4.18" in refused(db, "abandon", "r", "--demanded-by", "A")
    ok(db, "abandon", "r", "--demanded-by", "A", "--reason", "fire")
    doc = json.loads(ok(db, "sheet", "r", "--json"))
    assert doc["C"]["whists"]["B"] == 10 and doc["A"]["gora"] > 0
    log = ok(db, "log", "r")
    for text in ("[Code 3.4.9]", "[Code 5.4.18]"):
        assert text in log, text

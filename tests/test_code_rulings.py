"""Issue 18, the Code: the rulings and corrections that could not be recorded with their
rule, at the scorer's desk. The talon exposed with one other player still bidding [Code
3.3.16.2] against two [3.3.16.3]; a change of contract after a whist where the intention
to correct was evident [3.4.8]; a disputed plan of play [3.8.5.1 a, b]; a declaration
against the rules at a misère [3.4.4]; and the consolation of the defender whose cards
the four-player dealer plays [3.8.1.2, 3.8.8]. The numbers are those of the fixtures
named in each test, worked out by hand there. The command line's options for them
(``pulka ruling``, ``pulka contract --evident-correction``) reach the desk: the last test."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import Scorer, ok, refused


def scorer(tmp_path: Path, players: str) -> Scorer:
    return Scorer(str(tmp_path / "pulka.db"), "t", players)


def test_the_talon_exposed_with_one_bidder_left_goes_to_him(tmp_path: Path) -> None:
    """6S - pass - 6C and the first hand exposes the talon: only C besides A still bids,
    so 3.3.16.3 is refused, saying why and what is allowed; 3.3.16.2 gives C the talon, his
    6C is the floor of his contract, and the log and the deal show the rule
    (fixtures/code_3_3_16_2_talon_to_the_last_bidder)."""
    with scorer(tmp_path, "A,B,C") as t:
        for player, bid in (("A", "6S"), ("B", "pass"), ("C", "6C")):
            t.bid(player, bid)
        err = t.refused("ruling", "3.3.16.3", offender="A", whists=["C=10"], by="arbiter:Petrov")
        assert "only C besides the offender A still bids" in err and "[Code 3.3.16.2]" in err
        assert "allowed: a ruling under 3.3.16.2 (offender A): C takes the talon and declares 6C or higher" in err
        said = t.ruling("3.3.16.2", offender="A", by="arbiter:Petrov")
        assert "[Code 3.3.16.2]" in said and "waits for the contract of C" in said
        assert "below C's bid 6C" in t.refused("contract", "C", "6S")
        t.contract("C", "6H")
        t.defence("A", "whist")
        t.defence("B", "pass")
        played = t.tricks(["C=7", "A=2", "B=1"])
        assert "the talon exposed by A goes to C [Code 3.3.16.2]" in played
        doc = t.sheet()
        assert doc["C"]["pulya"] == 2 and doc["A"]["whists"] == {"B": 0, "C": 6} and doc["A"]["gora"] == 2
        assert "ruled [Code 3.3.16.2]" in t.log()


def test_two_still_bidding_is_not_3_3_16_2(tmp_path: Path) -> None:
    """The Code's 3.3.16.3 example: 6S - 6C - 6D, two besides the offender still bid."""
    with scorer(tmp_path, "A,B,C") as t:
        for player, bid in (("A", "6S"), ("B", "6C"), ("C", "6D")):
            t.bid(player, bid)
        err = t.refused("ruling", "3.3.16.2", offender="A")
        assert "two players besides the offender A still bid (B and C)" in err and "a ruling under 3.3.16.3" in err
        t.ruling("3.3.16.3", offender="A", whists=["B=52", "C=7"], by="arbiter:P")
        assert t.sheet()["B"]["whists"] == {"A": 52, "C": 0}


def test_an_evident_correction_after_a_whist(tmp_path: Path) -> None:
    """Code 3.4.8's "6D - oh-oh-oh - whist! - 6H": refused without the claim (3.4.7, with
    the claim named as what is allowed), stored with it; the calls start again
    (fixtures/code_3_4_8_evident_correction)."""
    with scorer(tmp_path, "A,B,C") as t:
        t.deal("6D pass pass | 6D | whist", leave_open=True)
        err = t.refused("contract", "A", "6H")
        assert "[Code 3.4.7]" in err and "evident correction" in err and "3.4.8" in err
        said = t.contract("A", "6H", evident_correction=True)
        assert "evident correction after a whist" in said and "[Code 3.4.8]" in said
        assert "waits for pass or whist by B" in said  # the defence calls again, from the first defender
        t.defence("B", "pass")
        t.defence("C", "whist")
        played = t.tricks(["A=6", "B=1", "C=3"])
        assert "A 6H | B pass, C whist |" in played
        doc = t.sheet()
        assert doc["A"]["pulya"] == 2 and doc["C"]["whists"] == {"A": 8, "B": 0}
        t.deal("6D pass pass | 6D | pass", leave_open=True)  # deal 2: B declares, C passes
        err = t.refused("contract", "B", "6H", evident_correction=True)
        assert "nobody has whisted" in err and "allowed: the contract without evident_correction" in err


def test_agreed_compensation_for_a_plan_of_play(tmp_path: Path) -> None:
    """Code 3.8.5.1 a, its example: a misère let through by B's plan; C and the dealer D
    write the agreed 50 each on B (fixtures/code_3_8_5_1_a_agreed_compensation)."""
    with scorer(tmp_path, "A,B,C,D") as t:
        t.deal("misere pass pass | misere | 0")
        err = t.refused("ruling", "3.8.5.1", planner="B", whists=["C=50", "D=50"], agreed_by="B,C")
        assert "D did not agree" in err and "[Code 3.8.5.1]" in err
        assert "did not catch the misère" in t.refused("ruling", "3.8.5.1", planner="D", whists=["C=5"],
                                                       agreed_by="C,D")
        t.ruling("3.8.5.1", planner="B", whists=["C=50", "D=50"], agreed_by="B,C,D")
        doc = t.sheet()
        assert doc["A"]["pulya"] == 10 and doc["C"]["whists"]["B"] == 50 and doc["D"]["whists"]["B"] == 50
        assert "compensation agreed for B's plan of play [Code 3.8.5.1 a]" in t.explain("C.whists.B")


def test_the_arbiters_compensating_result(tmp_path: Path) -> None:
    """Code 3.8.5.1 b: the dissenter C gets the other plan's result, the declarer the one
    drawn by lot, the planner B the one played (fixtures/code_3_8_5_1_b_arbiter_compensating_result)."""
    with scorer(tmp_path, "A,B,C") as t:
        t.deal("6S pass pass | 6S | whist:open pass | 6 3 1")
        ruling = {"planner": "B", "compensated": "C", "declarer_result": "other"}
        assert "arbiter" in t.refused("ruling", "3.8.5.1", ["A=5", "B=3", "C=2"], **ruling, by="C")
        err = t.refused("ruling", "3.8.5.1", ["A=5", "B=3", "C=2"], planner="C", compensated="B",
                        declarer_result="other", by="arbiter:Petrov")
        assert "B whisted alone and decides the plan of play, not C" in err
        t.ruling("3.8.5.1", ["A=5", "B=3", "C=2"], **ruling, by="arbiter:Petrov")
        doc = t.sheet()
        assert doc["A"]["pulya"] == 0 and doc["A"]["gora"] == 2
        assert doc["B"]["whists"] == {"A": 8, "C": 0} and doc["C"]["whists"] == {"A": 2, "B": 0}
        assert "drawn by lot [Code 3.8.5.1 b]" in t.explain("A.gora")
        assert "ruled [Code 3.8.5.1 b]" in t.log()


def test_a_declaration_against_the_rules_at_a_misere(tmp_path: Path) -> None:
    """Code 3.4.4 where the level reached is a misère: without all is all ten tricks,
    10 x 10 to gora, no consolation (fixtures/code_3_4_4_misere_level)."""
    with scorer(tmp_path, "A,B,C") as t:
        for player, bid in (("A", "misere"), ("B", "pass"), ("C", "pass")):
            t.bid(player, bid)
        err = t.refused("contract", "A", "7S")
        assert "must declare the misère" in err and "a ruling under 3.4.4" in err
        t.ruling("3.4.4", by="arbiter:Petrov")
        doc = t.sheet()
        assert doc["A"]["gora"] == 100 and doc["B"]["whists"] == {"A": 0, "C": 0}
        assert "misère without all: 10 tricks" in t.explain("A.gora")


def test_the_defender_whose_cards_the_dealer_plays_writes_his_consolation(tmp_path: Path) -> None:
    """Issue 18's example: Anna's 8S two down, Gleb deals and whists with Boris's cards:
    Boris writes his consolation, 12, like everyone else (fixtures/code_3_8_1_2_hand_consolation)."""
    with scorer(tmp_path, "Anna,Boris,Vera,Gleb") as t:
        t.deal("8S pass pass | 8S | pass pass whist@Boris | 6 3 1")
        doc = t.sheet()
        assert doc["Anna"]["gora"] == 12
        assert doc["Boris"]["whists"]["Anna"] == 12 and doc["Vera"]["whists"]["Anna"] == 12
        assert doc["Gleb"]["whists"]["Anna"] == 36


def test_the_command_line_takes_each_ruling_and_the_evident_correction(tmp_path: Path) -> None:
    """What the command line adds: ``pulka ruling``'s options (the counts, --offender,
    --whists again and again, --planner, --compensated, --declarer-result, --agreed-by,
    --by) and ``pulka contract --evident-correction`` reach the desk, and a refusal exits
    with status 1 and its words, the rule cited."""
    db = str(tmp_path / "pulka.db")
    ok(db, "new", "t", "--players", "A,B,C")
    for player, bid in (("A", "6S"), ("B", "6C"), ("C", "6D")):
        ok(db, "bid", "t", player, bid)
    err = refused(db, "ruling", "t", "3.3.16.2", "--offender", "A")
    assert err.startswith("pulka: refused: two players besides the offender A") and "[Code 3.3.16.2]" in err
    said = ok(db, "ruling", "t", "3.3.16.3", "--offender", "A", "--whists", "B=52", "--whists", "C=7",
              "--by", "arbiter:P")
    assert "[Code 3.3.16.3]" in said
    ok(db, "new", "u", "--players", "A,B,C")
    ok(db, "deal", "u", "6S pass pass | 6S | whist:open pass | 6 3 1")
    ok(db, "ruling", "u", "3.8.5.1", "A=5", "B=3", "C=2", "--planner", "B", "--compensated", "C",
       "--declarer-result", "other", "--by", "arbiter:Petrov")
    ok(db, "new", "v", "--players", "A,B,C,D")
    ok(db, "deal", "v", "misere pass pass | misere | 0")
    ok(db, "ruling", "v", "3.8.5.1", "--planner", "B", "--whists", "C=50", "--whists", "D=50", "--agreed-by",
       "B,C,D")
    ok(db, "new", "w", "--players", "A,B,C")
    ok(db, "deal", "w", "6D pass pass | 6D | whist", "--leave-open")
    said = ok(db, "contract", "w", "A", "6H", "--evident-correction")
    assert "[Code 3.4.8]" in said
    docs = {g: json.loads(ok(db, "sheet", g, "--json")) for g in ("t", "u", "v")}
    assert docs["t"]["B"]["whists"] == {"A": 52, "C": 0} and docs["u"]["A"]["gora"] == 2
    assert docs["v"]["C"]["whists"]["B"] == 50

"""The independent scorer (``independent_scorer``) against numbers worked out by hand, and
against the ledger.

The property tests compare the ledger with the independent scorer on every generated
pulka (``scorer_agreement.assert_scored_alike``); that comparison is only worth what the
scorer is worth. Here the scorer alone is held to every golden fixture's numbers, which
were worked out by hand from the Code (fixtures/README.md), at every point a fixture
checks; and the two scorers must agree on every fixture's whole log too.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from independent_scorer import score
from ledger.judge.kinds import judge_log
from ledger.vocabulary.events import Annulled, AnyEvent, Bid, Dealt, Talon
from readings import parse_log
from scorer_agreement import assert_scored_alike, differences

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GOOD = sorted(FIXTURES.glob("*.jsonl"))


def clock() -> str:
    return "2026-11-30T20:00:00+00:00"


def judged(path: Path) -> list[AnyEvent]:
    return judge_log(parse_log(path.read_text(encoding="utf-8")), clock=clock)


def cut(events: list[AnyEvent], check: dict[str, Any]) -> list[AnyEvent]:
    """The log as of a fixture's point: the whole log, event N, or the end of deal K
    (deal K + 1 begins with its first bid, annulment, deal out of turn or talon record)."""
    if check.get("at") is not None:
        return events[: check["at"]]
    k = check.get("deal")
    if k is None:
        return events
    for i, e in enumerate(events):
        if isinstance(e, (Bid, Annulled, Dealt, Talon)) and (e.deal or 0) > k:
            return events[:i]
    return events


@pytest.mark.parametrize("path", GOOD, ids=[p.stem for p in GOOD])
def test_the_independent_scorer_gives_every_fixture_its_numbers(path: Path) -> None:
    """At every point the fixture checks, the numbers worked out by hand; and on the whole
    log, the ledger's numbers."""
    expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text())
    events = judged(path)
    assert_scored_alike(events)
    for i, check in enumerate(expected["checks"]):
        where = f"{path.stem}[{i}]"
        if "time" in check:
            continue  # a point in time is the ledger's reading of ``at``, not a rule
        scored = score(cut(events, check))
        for player, columns in check.get("sheet", {}).items():
            for column, value in columns.items():
                if column == "whists":
                    for on, amount in value.items():
                        got = scored.cells[(player, "whists", on)]
                        assert got == Fraction(amount), f"{where}: {player} on {on}: {got}, not {amount}"
                else:
                    got = scored.cells[(player, column, None)]
                    assert got == Fraction(value), f"{where}: {player}'s {column}: {got}, not {value}"
        for player, value in check.get("result", {}).items():
            assert scored.settled.result[player] == Fraction(value), f"{where}: {player}'s result"
        for player, value in check.get("rounded", {}).items():
            assert scored.settled.rounded[player] == value, f"{where}: {player}'s rounded result"
        assert not scored.mismatches, scored.mismatches


def test_the_hand_defenders_consolation_by_the_code() -> None:
    """The defender whose cards the four-player dealer plays writes his consolation like
    everyone else [Code 3.8.1.2, footnote 36; 3.8.8] (rule hand_consolation, on in every
    preset). Fixture code_3_8_8_dealer_returns_half_whist: A's 6S down one, the dealer D
    returns the whist with B's cards: B writes 1 x 2 = 2 on A as well, so A -29 - 2 = -31
    and B 5 + 2 = 7 (the gora, and with it C's 7 and D's 17, unchanged). With the rule off
    (a log stored before it), B writes nothing on A."""
    scored = score(judged(FIXTURES / "code_3_8_8_dealer_returns_half_whist.jsonl"))
    assert scored.cells[("B", "whists", "A")] == 2
    assert scored.settled.result == {"A": -31, "B": 7, "C": 7, "D": 17}
    assert scored.settled.rounded == {"A": -31, "B": 7, "C": 7, "D": 17}
    off = score(judged(FIXTURES / "conv_hand_consolation_off.jsonl"))  # A's 8S two down
    assert off.cells.get(("B", "whists", "A"), 0) == 0
    assert off.cells[("C", "whists", "A")] == 12 and off.cells[("D", "whists", "A")] == 36


# Logs of rules the generator of the property tests does not reach (an evident correction
# after a whist, a newcomer in the seat of the one who left, a ruling on the plan of play
# after the play) or reaches rarely (the talon exposed with one still bidding who has not
# bid, after a look at the talon), with a few numbers of each worked out by hand: the two
# scorers must agree on every number.
UNGENERATED = {
    # Deal 1: 6D whisted, corrected to 6H [3.4.8]: the calls again, C's half-whist stands:
    # C writes half the obligation, 4 x 2 / 2 = 4 on A. Deal 2: 8S whisted by D, corrected
    # to 8C: the calls again, both pass and the dealer A whists with C's cards [3.8.8.1]; B
    # down one: A writes (2 + 1) x 6 + 6 = 24, C (his cards played) and D their 6 each.
    "evident_corrections": ('''
{"type":"game_started","game":"e1","players":["A","B","C","D"],"convention":"sochi","pulya":20,"rules":{},"first_dealer":"D"}
{"type":"bid","player":"A","bid":"6D"}
{"type":"bid","player":"B","bid":"pass"}
{"type":"bid","player":"C","bid":"pass"}
{"type":"contract","player":"A","contract":"6D"}
{"type":"defence","player":"B","call":"whist"}
{"type":"contract","player":"A","contract":"6H","evident_correction":true}
{"type":"defence","player":"B","call":"pass"}
{"type":"defence","player":"C","call":"half_whist"}
{"type":"defence","player":"B","call":"pass"}
{"type":"bid","player":"B","bid":"8S"}
{"type":"bid","player":"C","bid":"pass"}
{"type":"bid","player":"D","bid":"pass"}
{"type":"contract","player":"B","contract":"8S"}
{"type":"defence","player":"C","call":"pass"}
{"type":"defence","player":"D","call":"whist"}
{"type":"contract","player":"B","contract":"8C","evident_correction":true}
{"type":"defence","player":"C","call":"pass"}
{"type":"defence","player":"D","call":"pass"}
{"type":"defence","player":"A","call":"whist","hand":"C"}
{"type":"tricks","tricks":{"B":7,"A":2,"D":1}}
''', {("C", "whists", "A"): 4, ("A", "whists", "B"): 24, ("C", "whists", "B"): 6, ("D", "whists", "B"): 6}),
    # Pulya 3, help. B's 7S: 3 and 1 of help to A (2, the largest below 3), 10 whists on
    # him. A leaves after dealing deal 2; B deals deal 3; E joins in A's place [3.1.2]:
    # mean pulya (3 + 2 + 0) / 3 rounded down, 1. C deals deal 4, D the forehand: D's 7H,
    # 3 and 1 of help to C (2 against E's 1), 10 on C. D deals deal 5, E the forehand: his
    # 6S made, 1 + 2 = 3; B, the lone whister, (3 + 1) x 2 = 8 on E.
    "newcomer_replaces": ('''
{"type":"game_started","game":"r1","players":["A","B","C","D"],"convention":"sochi","pulya":3,"rules":{},"first_dealer":"D"}
{"type":"bid","player":"A","bid":"6S"}
{"type":"bid","player":"B","bid":"pass"}
{"type":"bid","player":"C","bid":"pass"}
{"type":"contract","player":"A","contract":"6S"}
{"type":"defence","player":"B","call":"pass"}
{"type":"defence","player":"C","call":"pass"}
{"type":"bid","player":"B","bid":"7S"}
{"type":"bid","player":"C","bid":"pass"}
{"type":"bid","player":"D","bid":"pass"}
{"type":"contract","player":"B","contract":"7S"}
{"type":"defence","player":"C","call":"pass"}
{"type":"defence","player":"D","call":"pass"}
{"type":"left","player":"A","reason":"called away"}
{"type":"bid","player":"C","bid":"6C"}
{"type":"bid","player":"D","bid":"pass"}
{"type":"bid","player":"B","bid":"pass"}
{"type":"contract","player":"C","contract":"6C"}
{"type":"defence","player":"D","call":"pass"}
{"type":"defence","player":"B","call":"pass"}
{"type":"joined","player":"E","agreed_by":["B","C","D"],"replaces":"A"}
{"type":"bid","player":"D","bid":"7H"}
{"type":"bid","player":"E","bid":"pass"}
{"type":"bid","player":"B","bid":"pass"}
{"type":"contract","player":"D","contract":"7H"}
{"type":"defence","player":"E","call":"pass"}
{"type":"defence","player":"B","call":"pass"}
{"type":"bid","player":"E","bid":"6S"}
{"type":"bid","player":"B","bid":"pass"}
{"type":"bid","player":"C","bid":"pass"}
{"type":"contract","player":"E","contract":"6S"}
{"type":"defence","player":"B","call":"whist"}
{"type":"defence","player":"C","call":"pass"}
{"type":"tricks","tricks":{"E":6,"B":3,"C":1}}
''', {("B", "whists", "A"): 10, ("D", "whists", "C"): 10, ("E", "pulya", None): 3, ("B", "whists", "E"): 8}),
    # Deal 1: pass, pass, and B exposes the talon: C alone still bids, without a bid: he
    # takes it as the third hand [3.3.16.2, 3.3.15], 7S down one: 4 to gora, A (whist)
    # (3 + 1) x 4 + 4 = 20, B and the dealer D 4 each. Deal 2: B 6S, C looks at the talon
    # (5 to gora) and passes, D 6C; B exposes it: D alone still bids: 6NT, both pass, 2.
    "talon_exposed": ('''
{"type":"game_started","game":"s1","players":["A","B","C","D"],"convention":"sochi","pulya":20,"rules":{},"first_dealer":"D"}
{"type":"bid","player":"A","bid":"pass"}
{"type":"bid","player":"B","bid":"pass"}
{"type":"ruling","rule":"3.3.16.2","offender":"B","reason":"B turned the talon over","by":"arbiter:P"}
{"type":"contract","player":"C","contract":"7S"}
{"type":"defence","player":"A","call":"whist"}
{"type":"defence","player":"B","call":"pass"}
{"type":"tricks","tricks":{"C":6,"A":3,"B":1}}
{"type":"bid","player":"B","bid":"6S"}
{"type":"talon","kind":"peek","player":"C"}
{"type":"bid","player":"C","bid":"pass"}
{"type":"bid","player":"D","bid":"6C"}
{"type":"ruling","rule":"3.3.16.2","offender":"B","reason":"B thought all had passed","by":"arbiter:P"}
{"type":"contract","player":"D","contract":"6NT"}
{"type":"defence","player":"B","call":"pass"}
{"type":"defence","player":"C","call":"pass"}
''', {("A", "whists", "C"): 20, ("B", "whists", "C"): 4, ("C", "gora", None): 9, ("D", "pulya", None): 2}),
    # Pulya 10 with help, A 9, B 7, C 6 by hand. A's 6S made (6/3/1), then C's entry of 2
    # in pulya, then the arbiter's ruling on B's plan, C compensated [3.8.5.1 b]: the
    # ruling says how the deal's result is written, at the deal (the arbiter is called
    # before the play): A 1 and 1 of help to B (7, above C's 6 before the entry), 10 on
    # B; C 6 + 2 = 8. B writes (3 + 1) x 2 = 8 on A; C, by the other plan (A down one),
    # his consolation 2.
    "plan_ruled_after_the_play": ('''
{"type":"game_started","game":"b2","players":["A","B","C"],"convention":"sochi","pulya":10,"rules":{},"first_dealer":"C"}
{"type":"entry","player":"A","column":"pulya","amount":9}
{"type":"entry","player":"B","column":"pulya","amount":7}
{"type":"entry","player":"C","column":"pulya","amount":6}
{"type":"bid","player":"A","bid":"6S"}
{"type":"bid","player":"B","bid":"pass"}
{"type":"bid","player":"C","bid":"pass"}
{"type":"contract","player":"A","contract":"6S"}
{"type":"defence","player":"B","call":"whist","open":true}
{"type":"defence","player":"C","call":"pass"}
{"type":"tricks","tricks":{"A":6,"B":3,"C":1}}
{"type":"entry","player":"C","column":"pulya","amount":2}
{"type":"ruling","rule":"3.8.5.1","planner":"B","tricks":{"A":5,"B":3,"C":2},"compensated":["C"],"declarer_result":"played","by":"arbiter:P"}
''', {("A", "whists", "B"): 10, ("B", "pulya", None): 8, ("C", "pulya", None): 8, ("C", "whists", "A"): 2}),
}


@pytest.mark.parametrize("name", sorted(UNGENERATED))
def test_the_scorers_agree_where_the_generator_does_not_go(name: str) -> None:
    text, by_hand = UNGENERATED[name]
    events = judge_log(parse_log(text.strip() + "\n"), clock=clock)
    assert not differences(events), differences(events)
    cells = score(events).cells
    for cell, amount in by_hand.items():
        assert cells[cell] == amount, (cell, cells[cell], amount)

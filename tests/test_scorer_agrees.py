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
from ledger.command.kinds import judge_log
from ledger.vocabulary.events import Annulled, AnyEvent, Bid, Dealt, Talon
from ledger.vocabulary.logfile import parse_log
from scorer_agreement import assert_scored_alike

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

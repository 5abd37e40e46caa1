"""Every golden fixture under fixtures/ is judged, replayed and checked against the
numbers its expected file took from the seed documents (see fixtures/README.md)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from ledger.judge.stored import judged_fold
from ledger.judge.pulka import Refused
from ledger.judge.kinds import judge_log
from ledger.vocabulary.events import AnyEvent
from readings import parse_log
from projections.report import Point, settlement_doc, settlement_of, state_at

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GOOD = sorted(FIXTURES.glob("*.jsonl"))
REFUSED = sorted((FIXTURES / "refused").glob("*.jsonl"))
BRIDGE = sorted((FIXTURES / "bridge").glob("*.jsonl"))


def clock() -> str:
    return "2026-11-30T20:00:00+00:00"


def judged(path: Path) -> list[AnyEvent]:
    return judge_log(parse_log(path.read_text(encoding="utf-8")), clock=clock)


def point_of(check: dict[str, Any]) -> Point:
    return Point(at=check.get("at"), deal=check.get("deal"), time=check.get("time"))


def exact(value: Any) -> Fraction:
    return Fraction(value) if not isinstance(value, float) else Fraction(value).limit_denominator(1000)


def assert_subset(expected: Any, actual: Any, where: str) -> None:
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{where}: {key!r} missing from {actual!r}"
            assert_subset(value, actual[key], f"{where}.{key}")
    elif isinstance(expected, (int, str)) and not isinstance(expected, bool) and where.split(".")[1] in (
        "sheet",
        "result",
    ):
        assert exact(actual) == exact(expected), f"{where}: expected {expected}, got {actual}"
    else:
        assert actual == expected, f"{where}: expected {expected!r}, got {actual!r}"


@pytest.mark.parametrize("path", GOOD, ids=[p.stem for p in GOOD])
def test_fixture(path: Path) -> None:
    expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text())
    events = judged(path)
    assert expected["checks"], "a fixture must check something"
    for i, check in enumerate(expected["checks"]):
        where = f"{path.stem}[{i}]"
        state = state_at(events, point_of(check))
        doc = settlement_doc(state)
        settlement = settlement_of(state)
        for key in ("sheet", "rounded", "finished", "money", "abandoned"):
            if key in check:
                assert_subset({key: check[key]}, doc, where)
        if "result" in check:
            for player, value in check["result"].items():
                assert settlement.result[player] == Fraction(value), (
                    f"{where}.result.{player}: expected {value}, got {settlement.result[player]}"
                )
        if "result_delta" in check:
            delta = dict(check["result_delta"])
            against = settlement_of(state_at(events, point_of(delta.pop("against"))))
            for player, value in delta.items():
                moved = settlement.result[player] - against.result[player]
                assert moved == Fraction(value), f"{where}.result_delta.{player}: expected {value}, got {moved}"
        for n, want in check.get("effects", {}).items():
            effect = state.effects.get(int(n))
            assert effect is not None, f"{where}: no verdict recorded for event {n}"
            for key, value in want.items():
                if key == "reason_contains":
                    assert value.lower() in effect.reason.lower(), f"{where}: event {n}: {effect.reason!r}"
                else:
                    assert getattr(effect, key) == value, f"{where}: event {n}.{key}: {effect}"
        # Whatever the fixture states, these hold at every point.
        assert sum(settlement.result.values()) == 0
        assert sum(settlement.rounded.values()) == 0


def same_rule(expected: str, cited: str) -> bool:
    """The same rule, or one a dotted prefix of the other (fixtures/README.md):
    3.3 matches 3.3.2, but 3.3.1 does not match 3.3.10."""
    return expected == cited or cited.startswith(expected + ".") or expected.startswith(cited + ".")


@pytest.mark.parametrize("path", GOOD + BRIDGE, ids=[p.stem for p in GOOD + BRIDGE])
def test_every_event_recorded_is_judged_again_as_it_was_recorded(path: Path) -> None:
    """What ``verify`` does to a stored game: the events as the ledger records them
    (corrections, objections, late records, joins and all) pass the judge again unchanged."""
    events = judge_log(parse_log(path.read_text(encoding="utf-8")), clock=clock)
    assert judged_fold(path.stem, events, clock)[1] is None  # no event the ledger would record otherwise


def test_rule_matching_is_by_dotted_prefix() -> None:
    assert same_rule("3.3", "3.3.2") and same_rule("3.8.1", "3.8")
    assert not same_rule("3.3.1", "3.3.10") and not same_rule("3.7.6", "3.7.61")


@pytest.mark.parametrize("path", REFUSED, ids=[p.stem for p in REFUSED])
def test_refused_fixture(path: Path) -> None:
    expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text())
    with pytest.raises(Refused) as info:
        judged(path)
    refused = info.value
    assert refused.line == expected["line"], str(refused)
    assert same_rule(expected["rule"], refused.rule), f"rule {refused.rule!r} for: {refused}"
    if "message_contains" in expected:
        assert expected["message_contains"].lower() in str(refused).lower(), str(refused)

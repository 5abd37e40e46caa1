"""Every golden rubber under fixtures/bridge/ is judged, replayed and checked against
the numbers its expected file took from seed 003 and the Laws' scoring table (see
fixtures/README.md, "Rubber bridge"); every log under fixtures/bridge/refused/ is
refused at the line, and by the rule, its expected file names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ledger.judge.kinds import judge_log
from ledger.vocabulary.events import AnyEvent, event_to_dict
from readings import parse_log
from ledger.vocabulary.refusal import Refused
from projections.points import Point
from projections.rubber import RubberState
from projections.rubber_report import rubber_at, rubber_sheet_doc
from projections.rubber_settlement import settle_rubber

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "bridge"
GOOD = sorted(FIXTURES.glob("*.jsonl"))
REFUSED = sorted((FIXTURES / "refused").glob("*.jsonl"))


def clock() -> str:
    return "2026-11-30T20:00:00+00:00"


def judged(path: Path) -> list[AnyEvent]:
    return judge_log(parse_log(path.read_text(encoding="utf-8")), clock=clock)


def point_of(check: dict[str, Any]) -> Point:
    return Point(at=check.get("at"), deal=check.get("deal"))


def check_point(state: RubberState, check: dict[str, Any], where: str) -> None:
    sheet = state.sheet()
    doc = rubber_sheet_doc(state)
    s = settle_rubber(state)
    for k, want in check.get("deal_writes", {}).items():
        got = [[w.side, w.line, w.points] for w in sheet.writes if w.deal == int(k)]
        assert got == want, f"{where}: deal {k} writes {got}, expected {want}"
    if "below" in check:
        got_below = {side: [[e["points"] for e in game] for game in doc[key]["below"]]
                     for side, key in (("NS", "we"), ("EW", "they"))}
        assert got_below == check["below"], f"{where}: below the line {got_below}"
    for side in ("NS", "EW"):
        if "above" in check:
            assert sheet.total(side, "above") == check["above"][side], f"{where}: {side} above"
        if "games" in check:
            assert sheet.won(side) == check["games"][side], f"{where}: {side} games"
        if "vulnerable" in check:
            assert sheet.vulnerable(side) == check["vulnerable"][side], f"{where}: {side} vulnerable"
    if "finished" in check:
        assert state.finished == check["finished"], where
    if "abandoned" in check:
        assert (state.abandoned_at is not None) == check["abandoned"], where
    if "bonuses" in check:
        assert [[b.side, b.points] for b in s.bonuses] == check["bonuses"], f"{where}: bonuses {s.bonuses}"
    for key in ("totals", "winner", "margin", "result", "rounded"):
        if key in check:
            assert getattr(s, key) == check[key], f"{where}: {key} {getattr(s, key)}, expected {check[key]}"
    if "money" in check:
        assert s.money is not None and {p: str(v) for p, v in s.money.items()} == check["money"], where
    for n, fields in check.get("stored", {}).items():
        stored = event_to_dict(state.events[int(n) - 1])
        for key, value in fields.items():
            assert stored.get(key) == value, f"{where}: event {n} stores {key} {stored.get(key)!r}, expected {value!r}"
    for n, want in check.get("effects", {}).items():
        effect = state.effects.get(int(n))
        assert effect is not None, f"{where}: no verdict for event {n}"
        for key, value in want.items():
            if key == "reason_contains":
                assert value in effect.reason, f"{where}: event {n}: {effect.reason!r}"
            else:
                assert getattr(effect, key) == value, f"{where}: event {n}.{key}: {effect}"


@pytest.mark.parametrize("path", GOOD, ids=[p.stem for p in GOOD])
def test_rubber_fixture(path: Path) -> None:
    expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text(encoding="utf-8"))
    assert expected["checks"] and expected["source"], "a fixture must check something, from a named source"
    events = judged(path)
    for i, check in enumerate(expected["checks"]):
        state = rubber_at(events, point_of(check))
        check_point(state, check, f"{path.stem}[{i}]")
        # Whatever the fixture states, these hold at every point: each total is the sum
        # of its writes, and the results are zero-sum.
        s = settle_rubber(state)
        assert sum(s.result.values()) == 0 and sum(s.rounded.values()) == 0
        sheet = state.sheet()
        assert sheet.total("NS") + sheet.total("EW") == sum(w.points for w in sheet.writes)


@pytest.mark.parametrize("path", REFUSED, ids=[p.stem for p in REFUSED])
def test_refused_rubber(path: Path) -> None:
    expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text(encoding="utf-8"))
    with pytest.raises(Refused) as info:
        judged(path)
    refused = info.value
    assert refused.line == expected["line"], str(refused)
    assert refused.rule == expected["rule"], f"rule {refused.rule!r} for: {refused}"
    assert expected["message_contains"].lower() in str(refused).lower(), str(refused)
    assert refused.allowed or refused.rule == "event-log", f"a refusal says what is allowed: {refused}"

"""One contract suite, run over every preset: zero-sum settlement, both methods of
rule 4.2.14 agreeing, exact replay and the export/import round trip; then what a
recorded rule set means for replay, and `diff` as the difference of two settlements."""

from __future__ import annotations

import json
from fractions import Fraction

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.vocabulary import rules as rules_module
from ledger.vocabulary.events import AnyEvent, GameStarted, encode_event
from ledger.vocabulary.rules import PRESETS, resolve
from ledger.application import Ledger
from ledger.judge.kinds import judge_log as check_log
from ledger.store.event_store import Store
from projections.game import replay
from projections.kinds import PULKA
from projections.report import Point, settlement_doc, settlement_of, sheet_doc, state_at
from projections.settlement import variant_amnesty, variant_mean
from readings import adjusted_gora, exact_whists, parse_log
from strategies import legal_logs

SUITE = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(params=sorted(PRESETS))
def convention(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


def test_contract_suite(convention: str) -> None:
    @SUITE
    @given(st.one_of(legal_logs(convention=convention, max_deals=10),
                     legal_logs(convention=convention, max_deals=10, finish=True, recording=True)))
    def suite(events: list[AnyEvent]) -> None:
        first = events[0]
        assert isinstance(first, GameStarted) and first.rule_set is not None
        assert first.rule_set.convention == convention
        state = replay(events)
        s = settlement_of(state)
        assert sum(s.result.values()) == 0
        assert sum(s.rounded.values()) == 0
        gora = adjusted_gora(state.sheet())
        whists = exact_whists(state.sheet())
        n = len(s.players)  # a newcomer joins the settlement [Code 3.1.2]
        assert variant_mean(gora, whists) == variant_amnesty(gora, whists) == {p: n * v for p, v in s.result.items()}
        # exact replay: the same bytes twice
        assert json.dumps(settlement_doc(replay(events))) == json.dumps(settlement_doc(state))
        # export -> import: the same events and the same settlement
        text = "\n".join(encode_event(e).decode() for e in events)
        again = check_log(parse_log(text), clock=lambda: "2027-01-01T00:00:00+00:00")
        assert again == events
        assert settlement_doc(replay(again)) == settlement_doc(state)

    suite()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(legal_logs(max_deals=8), legal_logs(max_deals=8, recording=True)), st.data())
def test_diff_is_the_difference_of_two_settlements(events: list[AnyEvent], data: st.DataObject) -> None:
    a = data.draw(st.integers(1, len(events)))
    b = data.draw(st.integers(1, len(events)))
    d = PULKA.diff(events, Point(at=a), Point(at=b))
    ra, rb = settlement_of(state_at(events, Point(at=a))), settlement_of(state_at(events, Point(at=b)))
    # a newcomer (rule 3.1.2) has no result before he joins: 0 there
    for p in dict.fromkeys(ra.players + rb.players):
        assert Fraction(d["result"][p]).limit_denominator(10**6) == rb.result.get(p, 0) - ra.result.get(p, 0)
        assert d["rounded"][p] == rb.rounded.get(p, 0) - ra.rounded.get(p, 0)
    sa, sb = state_at(events, Point(at=a)).sheet(), state_at(events, Point(at=b)).sheet()
    changed = {(c["player"], c["column"], c.get("on")) for c in d["sheet"]}
    for p in set(sa.players) & set(sb.players):
        assert ((p, "pulya", None) in changed) == (sa.value(p, "pulya") != sb.value(p, "pulya"))
        assert ((p, "gora", None) in changed) == (sa.value(p, "gora") != sb.value(p, "gora"))


RASPASY_LOG = [
    '{"type":"game_started","game":"r1","players":["A","B","C"],"convention":"sochi","pulya":20,'
    '"rules":{"raspasy_progression":[1,3],"consolation":5}}',
    '{"type":"bid","player":"A","bid":"pass"}',
    '{"type":"bid","player":"B","bid":"pass"}',
    '{"type":"bid","player":"C","bid":"pass"}',
    '{"type":"tricks","tricks":{"A":2,"B":3,"C":5}}',
    '{"type":"bid","player":"B","bid":"pass"}',
    '{"type":"bid","player":"C","bid":"pass"}',
    '{"type":"bid","player":"A","bid":"pass"}',
    '{"type":"tricks","tricks":{"A":2,"B":3,"C":5}}',
    '{"type":"bid","player":"C","bid":"6S"}',
    '{"type":"bid","player":"A","bid":"pass"}',
    '{"type":"bid","player":"B","bid":"pass"}',
    '{"type":"contract","player":"C","contract":"6S"}',
    '{"type":"defence","player":"A","call":"whist"}',
    '{"type":"defence","player":"B","call":"whist"}',
    '{"type":"tricks","tricks":{"A":2,"B":3,"C":5}}',
]


def test_overrides_change_the_scoring_as_stated() -> None:
    events = check_log(parse_log("\n".join(RASPASY_LOG)))
    first = events[0]
    assert isinstance(first, GameStarted) and first.rule_set is not None
    assert first.rule_set == msgspec.structs.replace(PRESETS["sochi"], raspasy_progression=(1, 3), consolation=5)
    sheet = sheet_doc(replay(events).sheet())
    # raspasy x1 then x3 (amnesty 2): C 3 + 9, B 1 + 3; the 6S down one: 2 gora for C,
    # and each defender writes 5 consolation (not the price 2) beside his trick whists.
    assert (sheet["A"]["gora"], sheet["B"]["gora"], sheet["C"]["gora"]) == (0, 4, 14)
    assert sheet["A"]["whists"]["C"] == 2 * 2 + 5 and sheet["B"]["whists"]["C"] == 3 * 2 + 5
    plain = check_log(parse_log("\n".join([RASPASY_LOG[0].replace(
        '{"raspasy_progression":[1,3],"consolation":5}', "{}")] + RASPASY_LOG[1:])))
    plain_sheet = sheet_doc(replay(plain).sheet())
    assert (plain_sheet["B"]["gora"], plain_sheet["C"]["gora"]) == (1 + 2, 3 + 6 + 2)
    assert plain_sheet["A"]["whists"]["C"] == 2 * 2 + 2


def test_replay_uses_the_recorded_rule_set_not_todays_preset(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path) + "/r.db"  # type: ignore[operator]
    with Store(db) as store:
        Ledger(store).record_lines(parse_log("\n".join(RASPASY_LOG)))
    with Store(db) as store:
        before = settlement_doc(replay([s.event for s in store.load("r1")]))
    # A later release changes the Sochi preset: old pulkas must replay as they were played.
    changed = msgspec.structs.replace(PRESETS["sochi"], gora_whist_multiplier=3, help=False)
    monkeypatch.setitem(rules_module.PRESETS, "sochi", changed)
    assert resolve("sochi", {}).gora_whist_multiplier == 3
    with Store(db) as store:
        after = settlement_doc(replay([s.event for s in store.load("r1")]))
    assert after == before

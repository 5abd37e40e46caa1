"""Properties of the ledger on generated legal pulkas (see ``strategies.legal_logs``).

Every log here is played through the real command side, so it is legal by
construction; each property states something that must hold for every such log
and that a wrong projection, settlement, cut or codec would break: settlement sums
to zero, the two methods of Code 4.2.14 agree with each other and with the formula
of rules.md §7, rounding (4.2.12) stays close, replay and export/import are
deterministic, ``--deal``/``--at`` are prefix replays, every sheet number is the sum
of its writes, nothing follows the end, and help never overfills a pulya. And the numbers
themselves: on every generated pulka the sheet and the settlement are those of a scorer
written separately in the tests (``independent_scorer``, ``scorer_agreement``).
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime
from pathlib import Path
from decimal import Decimal
from fractions import Fraction

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.judge.pulka import Refused, decide
from ledger.vocabulary.events import (
    Abandoned,
    Annulled,
    AnyEvent,
    Bid,
    Contract,
    Correction,
    Dealt,
    Defence,
    Entry,
    GameStarted,
    Joined,
    Penalty,
    Ruling,
    Substituted,
    Talon,
    Tricks,
    encode_event,
)
from ledger.judge.kinds import judge_log as check_log
from projections.game import GameState, replay
from ledger.store.event_store import Store
from projections.report import Point, settlement_doc, settlement_of, sheet_doc, state_at
from projections.settlement import settle_sheet, variant_amnesty, variant_mean
from readings import adjusted_gora, exact_whists, parse_log
from projections.sheet import Sheet
from scorer_agreement import assert_scored_alike
from strategies import CONVENTIONS, legal_logs, pending_return

# The presets; a club's own overrides of any parameters; and the recording rules
# (corrections, objections, late records) on top of the presets.
# The Code's agreed options all on, four players: dark bids and bombs, the talon's
# records, a misère shared with the dealer, runs of raspasy that last.
OPTIONS = {
    "dark_bids": True, "opening_raspasy_rounds": 1, "talon_refusal_gora": 2, "talon_premium": True,
    "misere_with_dealer": True, "raspasy_run_ends": "whisted_and_made", "raspasy_exit_lasts": True,
    "raspasy_exit_climbs": True, "raspasy_unwhisted_resets": False, "dealer_consolation": False,
}
ANY_LOGS = st.one_of(
    legal_logs(), legal_logs(club_rules=True), legal_logs(recording=True),
    legal_logs(players=4, overrides=OPTIONS, recording=True),
)
ENDED_LOGS = st.one_of(
    legal_logs(max_deals=10, finish=True),
    legal_logs(max_deals=10, finish=True, club_rules=True),
    legal_logs(max_deals=10, finish=True, recording=True),
)
# PULKA_EXAMPLES=1000 makes a thorough run; the default keeps the file well under a minute.
EXAMPLES = int(os.environ.get("PULKA_EXAMPLES", "80"))
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=max(1, EXAMPLES * 5 // 8), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def clock() -> str:
    return "2026-12-01T00:00:00+00:00"


def last_deal(events: list[AnyEvent]) -> int:
    return max((e.deal or 0) for e in events)


def prefix_through_deal(events: list[AnyEvent], k: int) -> list[AnyEvent]:
    """The log up to the end of deal k: deal k+1 begins with its first bid (or its
    annulment), and everything before that belongs to deal k or earlier (rules.md §2).
    Late records name an earlier deal but are recorded later, so the boundary is read
    from the bids, not from the ``deal`` of every event."""
    for i, e in enumerate(events):
        if isinstance(e, (Bid, Annulled, Dealt, Talon)) and (e.deal or 0) > k:
            return events[:i]
    return events


def doc_bytes(state: GameState) -> str:
    return json.dumps(settlement_doc(state))


def mean_formula(sheet: Sheet) -> dict[str, Fraction]:
    """rules.md §6-§7 from the sheet's own numbers: pulya brought to the target
    (short: into gora x pulya_to_gora; over it without help: off gora the same way),
    then result_i = 10 x (mean(g) - g_i) + sum_j (W[i->j] - W[j->i])."""
    rules = sheet.rules
    g: dict[str, Fraction] = {}
    for p in sheet.players:
        short = sheet.target - sheet.value(p, "pulya")
        if short < 0 and rules.help:
            short = Fraction(0)
        g[p] = sheet.value(p, "gora") + short * rules.pulya_to_gora
    mean = sum(g.values(), Fraction(0)) / len(g)
    return {
        p: 10 * (mean - g[p])
        + sum((sheet.value(p, "whists", q) - sheet.value(q, "whists", p) for q in sheet.players if q != p),
              Fraction(0))
        for p in sheet.players
    }


# -- settlement -------------------------------------------------------------------------------


def settlement_sums_to_zero_at_the_end_and_every_deal_boundary(events: list[AnyEvent]) -> None:
    points = [Point()] + [Point(deal=k) for k in range(last_deal(events) + 1)]
    for point in points:
        s = settlement_of(state_at(events, point))
        assert sum(s.result.values(), Fraction(0)) == 0, point
        assert sum(s.rounded.values()) == 0, point
        if s.money is not None:
            assert sum(s.money.values()) == 0, point


def both_methods_of_4_2_14_agree_with_the_formula(events: list[AnyEvent]) -> None:
    for point in (Point(), Point(deal=max(0, last_deal(events) - 1))):
        sheet = state_at(events, point).sheet()
        gora = adjusted_gora(sheet)
        whists = exact_whists(sheet)
        n = len(sheet.players)
        scaled = variant_mean(gora, whists)
        assert variant_amnesty(gora, whists) == scaled
        mean = {p: v / n for p, v in scaled.items()}
        assert mean == mean_formula(sheet)
        assert settle_sheet(sheet).result == mean


@PROPERTY
@given(st.one_of(legal_logs(), legal_logs(recording=True)))
def test_rounded_results_are_integers_close_to_the_exact_ones(events: list[AnyEvent]) -> None:
    state = replay(events)
    s = settlement_of(state)
    assert all(type(v) is int for v in s.rounded.values()), s.rounded
    assert sum(s.rounded.values()) == 0
    for p in s.players:
        assert abs(s.rounded[p] - s.result[p]) <= 2, (p, s.rounded, s.result)
    if s.money is not None:
        assert state.started.stake is not None
        assert s.money == {p: Decimal(state.started.stake) * s.rounded[p] for p in s.players}
    assert_scored_alike(events)


# -- replay, export, import ---------------------------------------------------------------------


@FEW
@given(ANY_LOGS, st.data())
def test_replay_after_a_round_trip_through_the_store_gives_the_same_bytes(
    events: list[AnyEvent], data: st.DataObject
) -> None:
    """The events as the SQLite store gives them back (msgspec JSON encoded, stored,
    read and decoded again) replay to the very bytes the judged events replay to, at
    the end and at any event."""
    at = data.draw(st.integers(1, len(events)), label="at")
    with tempfile.TemporaryDirectory() as tmp, Store(str(Path(tmp) / "r.db")) as store:
        store.append("prop", [msgspec.structs.replace(events[0], game="prop"), *events[1:]], expected=0)
        loaded = [s.event for s in store.load("prop")]
    loaded[0] = msgspec.structs.replace(loaded[0], game=events[0].game)  # type: ignore[type-var]
    assert loaded is not events and loaded == events
    for point in (Point(), Point(at=at)):
        assert doc_bytes(state_at(loaded, point)) == doc_bytes(state_at(events, point))
    assert_scored_alike(events)


@PROPERTY
@given(st.one_of(legal_logs(recording=True), legal_logs(recording=True, club_rules=True)), st.data())
def test_checkpoints_and_partial_refolds_agree_with_a_fold_from_scratch(
    events: list[AnyEvent], data: st.DataObject
) -> None:
    """The game keeps a sheet per deal and re-folds only what a correction, late record,
    objection or withdrawal can change; folding every stored event again from the
    start, with the same decisions, must give the same sheet, write for write."""
    n = data.draw(st.integers(1, len(events)), label="n")
    first = events[0]
    assert isinstance(first, GameStarted)
    state = GameState.start(first)
    for event in events[1:n]:
        state.apply(event)
        state.sheet()  # as the audit does: every checkpoint exists before the next event
    incremental = (sheet_doc(state.sheet()), state.sheet().writes, state.abandoned_at, len(state.deals))
    with state.rewound(0, {}) as scratch:
        for number in range(scratch.folded + 1, n + 1):
            scratch.replay_recorded(number)
        from_scratch = (sheet_doc(scratch.sheet()), scratch.sheet().writes, scratch.abandoned_at, len(scratch.deals))
    assert from_scratch == incremental
    # and the game is as it was after the rewind
    assert (sheet_doc(state.sheet()), state.sheet().writes, state.abandoned_at, len(state.deals)) == incremental
    assert_scored_alike(events)


def export_import_round_trip(events: list[AnyEvent]) -> None:
    text = "\n".join(encode_event(e).decode("utf-8") for e in events) + "\n"
    again = check_log(parse_log(text), clock=clock)
    assert again == events
    assert doc_bytes(replay(again)) == doc_bytes(replay(events))
    # and the export of the import is the same file
    assert "\n".join(encode_event(e).decode("utf-8") for e in again) + "\n" == text


def deal_point_is_the_log_cut_after_that_deal(events: list[AnyEvent]) -> None:
    for k in range(last_deal(events) + 1):
        prefix = prefix_through_deal(events, k)
        judged = check_log(list(enumerate(prefix, start=1)), clock=clock)
        assert judged == prefix
        assert doc_bytes(state_at(events, Point(deal=k))) == doc_bytes(replay(judged)), k


@FEW
@given(ANY_LOGS)
def test_every_event_is_a_point_to_travel_to(events: list[AnyEvent]) -> None:
    """--at N for every N replays the prefix and agrees with the state folded so far;
    --time T is --at the last event recorded at or before T."""
    folded = replay(events[:1])
    docs = {}
    for n in range(1, len(events) + 1):
        if n > 1:
            folded.apply(events[n - 1])
        state = state_at(events, Point(at=n))
        assert state.folded == n
        docs[n] = settlement_doc(state)
        assert docs[n] == settlement_doc(folded), n
        assert state.sheet().writes == folded.sheet().writes, n
    times = [datetime.fromisoformat(e.at) for e in events if e.at is not None]
    assert len(times) == len(events) and times == sorted(times)
    for n, when in enumerate(times, start=1):
        through = max(i for i, t in enumerate(times, start=1) if t <= when)
        assert settlement_doc(state_at(events, Point(time=when.isoformat()))) == docs[through], n
    assert_scored_alike(events)


# -- the sheet ------------------------------------------------------------------------------------


def every_sheet_number_is_the_sum_of_its_writes(events: list[AnyEvent]) -> None:
    state = replay(events)
    sheet = state.sheet()
    players = sheet.players
    total: dict[tuple[str, str, str | None], int] = {}
    for w in sheet.writes:
        key = (w.player, w.column, w.on)
        total[key] = total.get(key, 0) + w.amount
        # every write names the event that caused it: a deal's result, a number by
        # hand (as corrected), or the penalty of a correction
        cause = state.content(w.event)
        assert w.event not in state.void, w
        assert isinstance(cause, (Tricks, Defence, Entry, Penalty, Correction, Ruling, Talon, Joined, Annulled)), (
            w, cause)
        seat = state.person_seat
        if isinstance(cause, Entry):
            on = seat[cause.on] if cause.on else None
            assert (seat[cause.player], cause.column, on, cause.amount) == (w.player, w.column, w.on, w.exact)
        if isinstance(cause, Penalty):
            # the penalised player never benefits: the wronged one writes whists on him
            if cause.wronged is not None:
                assert (seat[cause.wronged], "whists", seat[cause.player]) == (w.player, w.column, w.on), w
            else:
                assert (seat[cause.player], cause.column) == (w.player, w.column), w
            assert w.amount > 0 if w.column != "pulya" else w.amount < 0, w
        if isinstance(cause, Annulled):
            assert cause.dealer_error and w.column == "gora", w
        if isinstance(cause, Correction):
            assert w in state.penalties[w.event], w
    for p in players:
        assert sheet.pulya[p] == total.get((p, "pulya", None), 0)
        assert sheet.gora[p] == total.get((p, "gora", None), 0)
        for q in players:
            if q != p:
                assert sheet.whists[p][q] == total.get((p, "whists", q), 0)



# Generating a log through the judge costs more than most checks of it: the properties
# of any legal log are checked on the same generated logs, each on every one of them.
ANY_LOG_PROPERTIES = (
    settlement_sums_to_zero_at_the_end_and_every_deal_boundary,
    both_methods_of_4_2_14_agree_with_the_formula,
    export_import_round_trip,
    deal_point_is_the_log_cut_after_that_deal,
    every_sheet_number_is_the_sum_of_its_writes,
    assert_scored_alike,
)


@PROPERTY
@given(ANY_LOGS)
def test_the_properties_of_any_legal_log(events: list[AnyEvent]) -> None:
    for check in ANY_LOG_PROPERTIES:
        check(events)

@PROPERTY
@given(st.sampled_from([c for c in CONVENTIONS if c != "leningrad"]).flatmap(
    lambda c: legal_logs(convention=c, max_deals=12, recording=True)))
def test_with_help_no_pulya_exceeds_the_target_unless_entries_put_it_there(events: list[AnyEvent]) -> None:
    state = replay(events)
    sheet = state.sheet()
    assert sheet.rules.help
    pulya = {p: Fraction(0) for p in sheet.players}
    for w in sheet.writes:
        if w.column != "pulya":
            continue
        by_hand = isinstance(events[w.event - 1], (Entry, Penalty, Correction, Joined))
        if not by_hand:
            assert w.exact > 0, w
            assert pulya[w.player] + w.exact <= sheet.target, (w, pulya)
        pulya[w.player] += w.exact
    assert_scored_alike(events)


# -- the end ----------------------------------------------------------------------------------------


@PROPERTY
@given(ENDED_LOGS)
def test_no_deal_follows_the_end(events: list[AnyEvent]) -> None:
    state = replay(events)
    assert state.over
    for player in state.players:
        with pytest.raises(Refused) as info:
            decide(state, Bid(player=player, bid="pass"))
        assert info.value.rule in ("4.2.3", "4.2.3.3", "5.4.18"), str(info.value)
    with pytest.raises(Refused) as info:
        decide(state, Annulled(reason="misdeal"))
    assert info.value.rule in ("4.2.3", "4.2.3.3", "5.4.18"), str(info.value)
    assert_scored_alike(events)


# -- bugs found by the properties, kept as minimal examples ------------------------------------


def judge(*events: AnyEvent) -> list[AnyEvent]:
    return check_log(list(enumerate(events, start=1)), clock=clock)


def test_an_abandoned_pulka_refuses_the_return_of_a_standing_half_whist() -> None:
    """rules.md §6: after `abandoned` no deal may follow and none may be in progress.
    A standing half-whist resolves the deal, so abandoning is allowed; the first
    defender's return must then be refused (4.2.3), or it reopens the deal after the
    end: the half-whist's points vanish from the abandoned settlement and tricks can
    be recorded after the abandonment."""
    players = ("Anna", "Boris", "Vera")
    events = judge(
        GameStarted(game="hw", players=players, pulya=20, convention="sochi"),
        Bid(player="Anna", bid="6S"),
        Bid(player="Boris", bid="pass"),
        Bid(player="Vera", bid="pass"),
        Contract(player="Anna", contract="6S"),
        Defence(player="Boris", call="pass"),
        Defence(player="Vera", call="half_whist"),
        Abandoned(agreed_by=players),
    )
    state = replay(events)
    assert state.over and pending_return(state.current) is not None
    with pytest.raises(Refused) as info:
        decide(state, Defence(player="Boris", call="whist"))
    assert info.value.rule == "4.2.3", str(info.value)


def test_a_correction_folds_again_over_a_late_penalty_on_a_substitute() -> None:
    """Code 4.2.7, 4.2.10, 5.4.18: Dima takes Anna's seat after deal 2, and the arbiter's
    penalty on him for deal 1 comes late: it is written in the seat he took. Correcting
    deal 2's entry folds the game again from deal 2 and judges the substitution there;
    the sheets of the deals before it were made with a table that had not seated Dima
    yet, and the judge stopped on a KeyError. They are made before the table is
    rewound, as the game's own sheet makes them (found by test_no_deal_follows_the_end)."""
    players = ("Anna", "Boris", "Vera")
    events = judge(
        GameStarted(game="late", players=players, pulya=20, convention="sochi"),
        Bid(player="Anna", bid="6S"), Bid(player="Boris", bid="pass"), Bid(player="Vera", bid="pass"),
        Contract(player="Anna", contract="6S"), Defence(player="Boris", call="pass"),
        Defence(player="Vera", call="pass"),
        Bid(player="Boris", bid="pass"), Bid(player="Vera", bid="pass"), Bid(player="Anna", bid="pass"),
        Tricks(tricks={"Anna": 4, "Boris": 3, "Vera": 3}),
        Entry(player="Anna", column="gora", amount=1),
        Substituted(player="Anna", substitute="Dima", agreed_by=("Boris", "Vera")),
        Penalty(player="Dima", column="gora", amount=1, reason="a ruling", by="arbiter:Oleg", deal=1),
        Correction(target=12, replacement={"amount": 2}),
    )
    sheet = replay(events).sheet()
    written = {w.event: (w.player, w.column, w.exact) for w in sheet.writes if w.event in (12, 14)}
    assert written == {12: ("Anna", "gora", 2), 14: ("Anna", "gora", 1)}
    assert events[-1] == Correction(target=12, replacement={"amount": 2}, at=events[-1].at, by="Anna", deal=2)


def test_rounding_stays_within_two_whists_when_whists_are_fractions() -> None:
    """rules.md §7: rounded results stay within two whists of the exact ones, under
    any rule set. Rostov's whist raspasy with the talon played (a club override,
    4 players) writes halves (two tied for fewest) and thirds (three tied); rounding
    each pair's net toward zero, on top of the 4.2.12 adjustment, loses 13/6 whists
    for Boris here."""
    players = ("Anna", "Boris", "Vera", "Gleb")
    events = judge(
        GameStarted(game="thirds", players=players, pulya=20, convention="rostov",
                    rules={"raspasy_talon": True}),
        Bid(player="Anna", bid="pass"),
        Bid(player="Boris", bid="pass"),
        Bid(player="Vera", bid="pass"),
        Tricks(tricks={"Gleb": 0, "Anna": 1, "Boris": 0, "Vera": 9}),
        Bid(player="Boris", bid="pass"),
        Bid(player="Vera", bid="pass"),
        Bid(player="Gleb", bid="pass"),
        Tricks(tricks={"Anna": 1, "Boris": 1, "Vera": 1, "Gleb": 7}),
    )
    s = settlement_of(replay(events))
    assert sum(s.rounded.values()) == 0
    for p in players:
        assert abs(s.rounded[p] - s.result[p]) <= 2, (p, s.rounded[p], s.result[p])

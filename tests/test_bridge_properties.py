"""Properties of rubbers on generated legal logs (see ``rubber_strategies.legal_rubbers``).

Each property states something every legal rubber must satisfy and that a wrong
scoring table, fold, cut or codec would break: the totals agree with a scorer written
here from the Laws' table independently of ``projections.bridge_scoring``; line
scores, games, vulnerability and the rubber bonus are consistent; replay, judging
again and the store's export and import are exact; ``--deal K`` is the log cut after
deal K; settlements are zero-sum; an effective correction gives the sheet the log
would have had if written right.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from ledger.application import Ledger
from ledger.judge.kinds import judge_log
from ledger.store.event_store import Store
from ledger.vocabulary.bridge import BridgeDeal, PassedOut, RubberStarted
from ledger.vocabulary.events import Abandoned, AnyEvent, Correction, decode_event, encode_event
from ledger.vocabulary.logfile import export_line
from readings import parse_export, parse_log
from projections.points import Point
from projections.recording import checked_merge
from projections.rubber import RubberState, replay_rubber
from projections.rubber_report import rubber_at, rubber_audit, rubber_settlement_doc, rubber_sheet_doc
from projections.rubber_settlement import settle_rubber
from projections.trail import row_doc
from rubber_strategies import legal_rubbers

EXAMPLES = int(os.environ.get("PULKA_EXAMPLES", "80"))
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=max(1, EXAMPLES // 4), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def clock() -> str:
    return "2026-12-01T00:00:00+00:00"


def documents(state: RubberState) -> str:
    return json.dumps([rubber_sheet_doc(state), rubber_settlement_doc(state)], ensure_ascii=False)


# -- an independent scorer, from the Laws' table as printed -------------------------------------

VALUE = {"C": 20, "D": 20, "H": 30, "S": 30, "NT": 30}


def oracle(events: list[AnyEvent]) -> dict[str, object]:
    """Score a rubber without corrections or rulings, straight from the table: each
    side's points above and below the line, the games won, and whether it ended."""
    first = events[0]
    assert isinstance(first, RubberStarted)
    side_of = {p: ("NS", "EW")[i % 2] for i, p in enumerate(first.players)}
    above = {"NS": 0, "EW": 0}
    below = {"NS": 0, "EW": 0}
    games = {"NS": 0, "EW": 0}
    part = {"NS": 0, "EW": 0}
    ended = False
    for e in events[1:]:
        if isinstance(e, Abandoned):
            winners = [s for s in games if games[s]]
            if len(winners) == 1 and games[winners[0]] == 1:
                above[winners[0]] += 300
            partial = [s for s in part if part[s]]
            if len(partial) == 1:
                above[partial[0]] += 100
            continue
        if isinstance(e, PassedOut):
            continue
        assert isinstance(e, BridgeDeal) and not ended
        side = side_of[e.declarer]
        opp = "EW" if side == "NS" else "NS"
        vul = games[side] > 0
        level, den = int(e.contract[0]), e.contract[1:]
        need = 6 + level
        times = {None: 1, "X": 2, "XX": 4}[e.double]
        if e.tricks >= need:
            made = (VALUE[den] * level + (10 if den == "NT" else 0)) * times
            below[side] += made
            part[side] += made
            over = e.tricks - need
            above[side] += over * VALUE[den] if e.double is None else over * (200 if vul else 100) * times // 2
            above[side] += {None: 0, "X": 50, "XX": 100}[e.double]
            above[side] += {6: 750 if vul else 500, 7: 1500 if vul else 1000}.get(level, 0)
            if part[side] >= 100:
                games[side] += 1
                part = {"NS": 0, "EW": 0}
                if games[side] == 2:
                    above[side] += 700 if games[opp] == 0 else 500
                    ended = True
        else:
            down = need - e.tricks
            if e.double is None:
                penalty = down * (100 if vul else 50)
            elif vul:
                penalty = 200 + 300 * (down - 1)
            else:
                penalty = 100 + 200 * min(down - 1, 2) + 300 * max(down - 3, 0)
            above[opp] += penalty * (2 if e.double == "XX" else 1)
        if e.honours is not None:
            above[side_of[e.honours.player]] += e.honours.points
    return {"above": above, "below": below, "games": games, "ended": ended}


@PROPERTY
@given(legal_rubbers(extras=False))
def test_totals_agree_with_the_table_scored_independently(events: list[AnyEvent]) -> None:
    events = [e for e in events if not isinstance(e, Abandoned)] + [e for e in events if isinstance(e, Abandoned)]
    state = replay_rubber(events)
    sheet = state.sheet()
    want = oracle(events)
    assert {s: sheet.total(s, "above") for s in ("NS", "EW")} == want["above"]
    assert {s: sheet.total(s, "below") for s in ("NS", "EW")} == want["below"]
    assert {s: sheet.won(s) for s in ("NS", "EW")} == want["games"]
    assert sheet.over == want["ended"]


# -- what is stored ---------------------------------------------------------------------------------

CANONICAL = re.compile(r"[1-7](C|D|H|S|NT)")


@PROPERTY
@given(legal_rubbers())
def test_contracts_are_stored_canonical_and_doubles_name_the_right_side(events: list[AnyEvent]) -> None:
    """Whatever spelling the generator typed, a deal and a correction store ``3NT``, not
    ``3nt`` or `` 3N ``; who doubled is a defender, who redoubled the declaring side
    [Law 19], as the deal stands after every correction."""
    state = replay_rubber(events)
    side = {p: i % 2 for i, p in enumerate(state.players)}
    for e in events:
        if isinstance(e, BridgeDeal):
            assert CANONICAL.fullmatch(e.contract), e
        if isinstance(e, Correction) and "contract" in e.replacement:
            assert CANONICAL.fullmatch(e.replacement["contract"]), e
    for n in state.deals:
        deal = state.content(n)
        if isinstance(deal, BridgeDeal):
            if deal.doubled_by is not None:
                assert deal.double is not None and side[deal.doubled_by] != side[deal.declarer], deal
            if deal.redoubled_by is not None:
                assert deal.double == "XX" and side[deal.redoubled_by] == side[deal.declarer], deal


# -- the sheet's own consistency ---------------------------------------------------------------


@PROPERTY
@given(legal_rubbers())
def test_line_scores_games_and_the_rubber_bonus_are_consistent(events: list[AnyEvent]) -> None:
    state = replay_rubber(events)
    sheet = state.sheet()
    assert all(w.points > 0 for w in sheet.writes)
    played = len(sheet.games) + (0 if sheet.over else 1)
    for g in range(1, played + 1):
        below = [w for w in sheet.writes if w.line == "below" and w.game == g]
        points = {s: sum(w.points for w in below if w.side == s) for s in ("NS", "EW")}
        if g <= len(sheet.games):
            winner, deal = sheet.games[g - 1]
            loser = "EW" if winner == "NS" else "NS"
            # The game is won by the deal that first brings its side to 100.
            assert points[winner] >= 100 and points[loser] < 100, (g, points)
            assert below[-1].side == winner and below[-1].deal == deal
            assert points[winner] - below[-1].points < 100
        else:
            assert points["NS"] < 100 and points["EW"] < 100, (g, points)
            assert sheet.below == points
    for side in ("NS", "EW"):
        assert sheet.vulnerable(side) == (sheet.won(side) >= 1)
        assert sheet.won(side) <= 2
    bonuses = [w for w in sheet.writes if w.why.startswith("rubber ")]
    if sheet.over:
        winner = sheet.winner
        assert winner is not None and [w.side for w in bonuses] == [winner]
        loser = "EW" if winner == "NS" else "NS"
        assert bonuses[0].points == (700 if sheet.won(loser) == 0 else 500)
        assert bonuses[0].deal == sheet.games[-1][1] == state.current_deal_number
        assert len(sheet.games) in (2, 3)
    else:
        assert bonuses == [] and len(sheet.games) <= 2
    assert state.first_after_end() is None


@PROPERTY
@given(legal_rubbers(stake=True))
def test_settlement_is_zero_sum_and_the_margin_is_the_difference(events: list[AnyEvent]) -> None:
    deals = max((e.deal or 0) for e in events)
    for point in [Point()] + [Point(deal=k) for k in range(deals + 1)]:
        state = rubber_at(events, point)
        s = settle_rubber(state)
        sheet = state.sheet()
        assert sum(s.result.values()) == 0 and sum(s.rounded.values()) == 0
        assert s.money is not None and sum(s.money.values()) == 0
        assert s.totals == {side: sheet.total(side) + sum(b.points for b in s.bonuses if b.side == side)
                            for side in ("NS", "EW")}
        assert s.margin == abs(s.totals["NS"] - s.totals["EW"])
        assert (s.bonuses == []) or not (sheet.over or state.abandoned_at is not None)
        if s.winner is not None:
            assert s.totals[s.winner] > s.totals["EW" if s.winner == "NS" else "NS"]
            assert all(s.result[p] == (s.margin if state.side_of(p) == s.winner else -s.margin) for p in state.players)


# -- replay, judging again, the store ---------------------------------------------------------------


@PROPERTY
@given(legal_rubbers())
def test_replay_is_exact(events: list[AnyEvent]) -> None:
    decoded = [decode_event(encode_event(e)) for e in events]
    assert decoded == events
    assert documents(replay_rubber(decoded)) == documents(replay_rubber(events))
    rows = json.dumps([row_doc(r) for r in rubber_audit(decoded)], ensure_ascii=False)
    assert rows == json.dumps([row_doc(r) for r in rubber_audit(events)], ensure_ascii=False)
    text = "\n".join(encode_event(e).decode() for e in events)
    assert judge_log(parse_log(text), clock=clock) == events


@PROPERTY
@given(legal_rubbers())
def test_deal_point_is_the_log_cut_after_that_deal(events: list[AnyEvent]) -> None:
    deals = max((e.deal or 0) for e in events)
    for k in range(deals + 1):
        prefix = [e for i, e in enumerate(events) if i == 0 or (e.deal or 0) <= k]
        assert judge_log(list(enumerate(prefix, start=1)), clock=clock) == prefix
        state = rubber_at(events, Point(deal=k))
        assert state.current_deal_number == k
        assert documents(state) == documents(replay_rubber(prefix))


@FEW
@given(legal_rubbers())
def test_export_and_import_through_the_store_give_the_same_rubber(events: list[AnyEvent]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        with Store(str(Path(tmp) / "a.db")) as a:
            stored = a.append("random", events, expected=0)
            assert a.verify("random") is None
            export = "\n".join(export_line(s.event, s.digest) for s in a.load("random"))
        with Store(str(Path(tmp) / "b.db")) as b:
            lines = parse_export(export)
            Ledger(b, clock=clock).record_lines([(line.line, line.event) for line in lines])
            again = b.load("random")
            assert again == stored
            assert documents(replay_rubber([s.event for s in again])) == documents(replay_rubber(events))


# -- corrections ----------------------------------------------------------------------------------


@PROPERTY
@given(legal_rubbers())
def test_a_correction_that_counts_gives_the_sheet_of_the_log_written_right(events: list[AnyEvent]) -> None:
    state = replay_rubber(events)
    right: dict[int, AnyEvent] = {}
    for n, e in enumerate(events, start=1):
        if isinstance(e, Correction) and state.effects[n].effective:
            right[e.target] = checked_merge(right.get(e.target, events[e.target - 1]), e.replacement)
    written_right = [right.get(n, e) for n, e in enumerate(events, start=1) if not isinstance(e, Correction)]

    def lines(s: RubberState) -> list[tuple[int, str, str, int, str]]:
        return [(w.deal, w.side, w.line, w.points, w.why) for w in s.sheet().writes]

    assert lines(state) == lines(replay_rubber(written_right))

"""The tournament's arithmetic and seating, as pure functions: the cut-off function,
standings and tie-breaks, table sizes, the lot and the Swiss seating."""

from __future__ import annotations

import hashlib
import itertools
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.judge.seating import by_lot, repeats, swiss, table_sizes
from ledger.vocabulary.lot import draw_lots
from ledger.vocabulary.rules import SOCHI
from ledger.vocabulary.tournament_events import (
    CutRule,
    Disqualified,
    Removed,
    Seated,
    Segment,
    TableClosed,
    Tally,
    TieBreak,
    TourClosed,
    TournamentStarted,
)
from ledger.judge.tournament import consequences, judge_seated, seating_for
from ledger.vocabulary.refusal import Refused
from projections.tournament_state import TournamentState, standings, standings_doc, tour_points

CUT = (Segment(200, "1"), Segment(650, "1/10"), Segment(None, "0"))


@pytest.mark.parametrize(
    ("whists", "points"),
    [
        (0, Fraction(0)),
        (150, Fraction(150)),
        (200, Fraction(200)),
        (201, Fraction(2001, 10)),  # 200 + 1/10
        (300, Fraction(210)),  # 200 + 100/10
        (650, Fraction(245)),  # 200 + 450/10
        (1000, Fraction(245)),  # nothing above 650
        (-300, Fraction(-210)),  # a loss goes through the same segments
    ],
)
def test_the_cut_off_counts_marginal_segments(whists: int, points: Fraction) -> None:
    assert tour_points(whists, CUT) == points


def test_without_segments_a_result_counts_in_full_and_an_open_last_segment_goes_on() -> None:
    assert tour_points(-437, ()) == -437
    half_above = (Segment(100, "1"), Segment(None, "0.5"))
    assert tour_points(300, half_above) == 100 + 100
    assert tour_points(90, half_above) == 90


def tournament(results: list[list[dict[str, int]]], tie_breaks: tuple[TieBreak, ...] = ("whists", "tours_won", "last_tour"),
               cutoff: tuple[Segment, ...] = (Segment(20, "1"), Segment(None, "0")),
               tallies: dict[str, Tally] | None = None, lot_seed: str | None = None) -> TournamentState:
    """A tournament whose tours closed with these table results (players in order of first
    sight); ``tallies``: each player's counts for the Code's criteria, every tour."""
    players = list(dict.fromkeys(p for tour in results for table in tour for p in table))
    started = TournamentStarted(game="t", players=tuple(players), pulya=10, rule_set=SOCHI, table_size=3,
                                cutoff=cutoff, tie_breaks=tie_breaks, lot_seed=lot_seed)
    state = TournamentState.start(started)
    for tour, tables in enumerate(results, start=1):
        for k, table in enumerate(tables, start=1):
            state.apply(Seated(tour=tour, table=k, players=tuple(table)))
        state.apply(TourClosed(tour=tour, tables=tuple(
            TableClosed(table=k, game=f"t/{tour}/{k}", end="finished", deals=9, events=70, digest="0" * 64, whists=t,
                        tallies={p: (tallies or {}).get(p, Tally()) for p in t})
            for k, t in enumerate(tables, start=1))))
    return state


# P, S and Q end on 15 points each (above 20 whists nothing counts): P with 25 whists,
# S and Q with 15; each won one tour at his table; in the last tour S lost 5, Q won 20.
TIES = [
    [{"P": 30, "Q": -5, "X": -25}, {"S": 20, "Y": -10, "Z": -10}],
    [{"P": -5, "S": -5, "Y": 10}, {"Q": 20, "X": -10, "Z": -10}],
]


def order(state: TournamentState) -> list[tuple[int, str]]:
    return [(row.place, row.player) for row in standings(state).rows]


def test_points_order_the_standings_and_the_tie_breaks_their_ties_in_the_order_given() -> None:
    default = tournament(TIES)
    assert order(default) == [(1, "P"), (2, "Q"), (3, "S"), (4, "Y"), (5, "Z"), (6, "X")]
    by_last = tournament(TIES, tie_breaks=("last_tour", "whists", "tours_won"))
    assert order(by_last)[:3] == [(1, "Q"), (2, "P"), (3, "S")]


def test_players_equal_on_every_tie_break_share_their_place() -> None:
    only_tours_won = tournament(TIES, tie_breaks=("tours_won",))
    # Each won one tour: one place, shown in the order of entry (P, Q, S).
    assert order(only_tours_won)[:4] == [(1, "P"), (1, "Q"), (1, "S"), (4, "Y")]


# P, Q and S are equal on points and on every tie-break but the Code's criteria [Code
# 4.1.3]; each of those orders them its own way (more raspasy won first; fewer raspasy
# tricks, remizes and misère tricks first), over both tours.
EQUAL = [
    [{"P": 10, "X": -5, "Y": -5}, {"Q": 10, "Z": -5, "W": -5}, {"S": 10, "U": -5, "V": -5}],
    [{"P": 0, "Q": 0, "S": 0}, {"X": 0, "Y": 0, "Z": 0}, {"W": 0, "U": 0, "V": 0}],
]
COUNTS = {  # each tour's counts: the totals double them
    "P": Tally(raspasy_won=2, raspasy_tricks=9, remizes=1, misere_tricks=0),
    "Q": Tally(raspasy_won=1, raspasy_tricks=4, remizes=0, misere_tricks=3),
    "S": Tally(raspasy_won=3, raspasy_tricks=12, remizes=2, misere_tricks=1),
}


@pytest.mark.parametrize(("criterion", "expected"), [
    ("raspasy_won", ["S", "P", "Q"]),
    ("raspasy_tricks", ["Q", "P", "S"]),
    ("remizes", ["Q", "P", "S"]),
    ("misere_tricks", ["P", "S", "Q"]),
])
def test_the_codes_criteria_break_ties_each_in_its_direction(criterion: TieBreak, expected: list[str]) -> None:
    state = tournament(EQUAL, tie_breaks=("whists", "tours_won", "last_tour", criterion), tallies=COUNTS)
    assert order(state)[:3] == [(1, expected[0]), (2, expected[1]), (3, expected[2])]
    row = next(r for r in standings_doc(standings(state))["standings"] if r["player"] == expected[0])
    assert row["tie_breaks"][criterion] == 2 * getattr(COUNTS[expected[0]], criterion)
    # Without the criterion the three share the first place.
    assert order(tournament(EQUAL, tallies=COUNTS))[:3] == [(1, "P"), (1, "Q"), (1, "S")]
    assert "tie_breaks" not in standings_doc(standings(tournament(EQUAL)))["standings"][0]


def redrawn(seed: str, items: list[str]) -> list[str]:
    """The lot as the lot module's docstring writes it, drawn here again."""
    order, counter = list(items), 0
    for i in range(len(order) - 1, 0, -1):
        while True:
            x = int.from_bytes(hashlib.sha256(f"{seed}\n{counter}".encode()).digest()[:8], "big")
            counter += 1
            if x < (1 << 64) // (i + 1) * (i + 1):
                break
        j = x % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def test_the_lot_separates_every_tie_from_its_recorded_seed() -> None:
    """Equal in everything, P, Q and S take the places the lot from the seed gives them,
    the same at every replay; another seed draws another order."""
    orders = set()
    for seed in ("cup-2026", "a", "b", "c", "d"):
        state = tournament(EQUAL, tie_breaks=("whists", "raspasy_won", "lot"), lot_seed=seed)
        drawn = [p for p in redrawn(seed, list(state.players)) if p in "PQS"]
        assert order(state)[:3] == [(1, drawn[0]), (2, drawn[1]), (3, drawn[2])]
        assert order(tournament(EQUAL, tie_breaks=("whists", "raspasy_won", "lot"), lot_seed=seed)) == order(state)
        doc = standings_doc(standings(state))["standings"]
        assert [r["tie_breaks"]["lot"] for r in doc[:3]] == [redrawn(seed, list(state.players)).index(p) + 1
                                                             for p in drawn]
        orders.add(tuple(drawn))
    assert len(orders) > 1


def closed_tours(started: TournamentStarted, results: list[list[dict[str, int]]]) -> TournamentState:
    """``started`` with these tours seated and closed, each close with its consequences."""
    state = TournamentState.start(started)
    for tour, tables in enumerate(results, start=1):
        for k, table in enumerate(tables, start=1):
            state.apply(Seated(tour=tour, table=k, players=tuple(table)))
        closed = TourClosed(tour=tour, tables=tuple(
            TableClosed(table=k, game=f"t/{tour}/{k}", end="finished", deals=9, events=70, digest="0" * 64, whists=t)
            for k, t in enumerate(tables, start=1)))
        state.apply(closed)
        consequences(state, closed, None)
    return state


# Eight players; P wins big in tour 1 and loses below the threshold in tour 2. Points
# after tour 2 (20 at most a tour): C 30 (85 whists), D 30 (70), G 5, F 0 (won 2 tours),
# P 0 (won 1), E -5, A -20, B -25: P is fifth, and sits out tour 3.
EIGHT = ("P", "A", "B", "C", "D", "E", "F", "G")
TWO_TOURS = [
    [{"P": 150, "A": -75, "B": -75}, {"C": 10, "D": -5, "E": -5}, {"F": 0, "G": 0}],
    [{"P": -150, "C": 75, "D": 75}, {"A": 0, "E": 0, "F": 0}, {"B": -5, "G": 5}],
]


def eight(**rules: Any) -> TournamentStarted:
    return TournamentStarted(game="t", players=EIGHT, pulya=10, rule_set=SOCHI, table_size=3,
                             cutoff=(Segment(20, "1"), Segment(None, "0")), removal_below=-100, **rules)


def test_a_cut_passes_over_a_player_removed_for_the_next_tour() -> None:
    """A cut to six after tour 2: P, fifth by points, is removed for tour 3 by that close.
    The cut takes the next eligible player in his place, and tour 3 is seated at two
    tables of three (with P kept, five could not be seated)."""
    state = closed_tours(eight(tours=4, cuts=(CutRule(2, 6),)), TWO_TOURS)
    assert [e.player for e in state.events if isinstance(e, Removed)] == ["P"]
    cut = state.cuts[-1]
    assert cut.after_tour == 2 and cut.kept == ("C", "D", "G", "F", "E", "A")
    seated = seating_for(state, 3, None)
    assert sorted(p for s in seated for p in s.players) == sorted(cut.kept)
    assert [len(s.players) for s in seated] == [3, 3]


def test_the_final_is_the_finalists_still_in() -> None:
    """A final table of four after tour 2 seats the four the cut kept, and only them; when
    the arbiter's last card then disqualifies a finalist, the other three play it."""
    state = closed_tours(eight(tours=3, final_table=4), TWO_TOURS)
    assert state.cuts[-1].kept == ("C", "D", "G", "F")
    assert [s.players for s in seating_for(state, 3, None)] == [("C", "D", "G", "F")]
    with pytest.raises(Refused) as refused:
        judge_seated(state, Seated(tour=3, table=1, players=("C", "D", "F")))
    assert refused.value.rule == "tournament.final" and "finalists (C, D, G, F)" in str(refused.value)
    state.apply(Disqualified(player="G", tour=3, reason="yellow card 2"))
    final = seating_for(state, 3, None)
    assert [s.players for s in final] == [("C", "D", "F")]
    assert judge_seated(state, final[0]).players == ("C", "D", "F")


def test_the_standings_document_has_the_documented_shape() -> None:
    state = tournament([[{"A": 30, "B": -12, "C": -18}]], cutoff=(Segment(20, "1"), Segment(None, "1/2")))
    doc = standings_doc(standings(state))
    assert doc["tournament"] == "t" and doc["after_tour"] == 1
    first = doc["standings"][0]
    assert first["place"] == 1 and first["player"] == "A" and first["status"] == "playing"
    assert first["points"] == 25 and first["whists"] == 30  # 20 + 10/2
    assert first["tours"] == [{"tour": 1, "table": 1, "whists": 30, "points": 25}]
    last = doc["standings"][2]
    assert last["player"] == "C" and last["points"] == -18  # within the first segment: in full
    assert doc["standings"][1]["points"] == -12


def test_fractional_points_are_the_nearest_float_in_json() -> None:
    state = tournament([[{"A": 21, "B": -1, "C": -20}]], cutoff=(Segment(20, "1"), Segment(None, "1/10")))
    doc = standings_doc(standings(state))
    assert doc["standings"][0]["points"] == 20.1


# -- seating ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "usual", "sizes"),
    [(9, 3, [3, 3, 3]), (10, 3, [3, 3, 4]), (11, 3, [3, 4, 4]), (8, 4, [4, 4]), (7, 4, [4, 3]),
     (6, 4, [3, 3]), (9, 4, [3, 3, 3]), (3, 4, [3]), (4, 3, [4]), (13, 4, [4, 3, 3, 3])],
)
def test_tables_of_three_and_four_mix_when_the_count_demands(players: int, usual: int, sizes: list[int]) -> None:
    assert table_sizes(players, usual) == sizes


@pytest.mark.parametrize(("players", "usual"), [(5, 3), (5, 4), (2, 3), (2, 4), (0, 4)])
def test_some_counts_cannot_be_seated(players: int, usual: int) -> None:
    assert table_sizes(players, usual) is None


def test_the_lot_is_the_documented_shuffle_of_the_seed() -> None:
    """Redrawn here from the rule written in the lot module's docstring."""
    players = ["Anna", "Boris", "Vera", "Gleb", "Dina", "Egor"]
    order, counter = list(players), 0
    for i in range(len(order) - 1, 0, -1):
        while True:
            x = int.from_bytes(hashlib.sha256(f"seed-7\n{counter}".encode()).digest()[:8], "big")
            counter += 1
            if x < (1 << 64) // (i + 1) * (i + 1):
                break
        j = x % (i + 1)
        order[i], order[j] = order[j], order[i]
    assert draw_lots("seed-7", players) == order
    assert by_lot("seed-7", players, [3, 3]) == [tuple(order[:3]), tuple(order[3:])]
    assert draw_lots("seed-8", players) != order  # another seed, another draw


def test_swiss_seats_the_leaders_together_when_nobody_has_met() -> None:
    order = [f"p{i}" for i in range(8)]
    assert swiss(order, set(), [4, 4]) == [("p0", "p1", "p2", "p3"), ("p4", "p5", "p6", "p7")]


def test_swiss_avoids_every_repeat_when_a_seating_without_one_exists() -> None:
    """Nine players after two tours seated as the rows, then the columns, of a 3x3
    square: the diagonals still seat everybody with new opponents."""
    grid = [[3 * r + c for c in range(3)] for r in range(3)]
    rows = [tuple(f"p{x}" for x in row) for row in grid]
    columns = [tuple(f"p{grid[r][c]}" for r in range(3)) for c in range(3)]
    met = {frozenset(pair) for table in rows + columns for pair in itertools.combinations(table, 2)}
    seated = swiss([f"p{i}" for i in range(9)], met, [3, 3, 3])
    assert sorted(p for t in seated for p in t) == sorted(f"p{i}" for i in range(9))
    assert sum(repeats(t, met) for t in seated) == 0


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=6, max_value=16), st.sets(st.tuples(st.integers(0, 15), st.integers(0, 15)), max_size=40),
       st.sampled_from([3, 4]))
def test_swiss_seats_everyone_once_and_repeats_no_more_than_the_plain_order(
    n: int, pairs: set[tuple[int, int]], usual: int
) -> None:
    order = [f"p{i}" for i in range(n)]
    met = {frozenset((f"p{a}", f"p{b}")) for a, b in pairs if a != b and a < n and b < n}
    sizes = table_sizes(n, usual)
    assert sizes is not None
    seated = swiss(order, met, sizes)
    assert sorted(p for t in seated for p in t) == sorted(order)
    assert sorted(len(t) for t in seated) == sorted(sizes)
    plain, start = [], 0
    for size in sizes:
        plain.append(order[start:start + size])
        start += size
    assert sum(repeats(t, met) for t in seated) <= sum(repeats(t, met) for t in plain)

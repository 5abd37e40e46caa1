"""The tournament's arithmetic and seating, as pure functions: the cut-off function,
standings and tie-breaks, table sizes, the lot and the Swiss seating."""

from __future__ import annotations

import hashlib
import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.command.seating import by_lot, draw, repeats, swiss, table_sizes
from ledger.vocabulary.rules import SOCHI
from ledger.vocabulary.tournament import Seated, Segment, TableClosed, TieBreak, TourClosed, TournamentStarted
from projections.tournament import TournamentState, standings, standings_doc, tour_points

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
               cutoff: tuple[Segment, ...] = (Segment(20, "1"), Segment(None, "0"))) -> TournamentState:
    """A tournament whose tours closed with these table results (players in order of first sight)."""
    players = list(dict.fromkeys(p for tour in results for table in tour for p in table))
    started = TournamentStarted(game="t", players=tuple(players), pulya=10, rule_set=SOCHI, table_size=3,
                                cutoff=cutoff, tie_breaks=tie_breaks)
    state = TournamentState.start(started)
    for tour, tables in enumerate(results, start=1):
        for k, table in enumerate(tables, start=1):
            state.apply(Seated(tour=tour, table=k, players=tuple(table)))
        state.apply(TourClosed(tour=tour, tables=tuple(
            TableClosed(table=k, game=f"t/{tour}/{k}", end="finished", deals=9, events=70, digest="0" * 64, whists=t)
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
    """Redrawn here from the rule written in the seating module's docstring."""
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
    assert draw("seed-7", players) == order
    assert by_lot("seed-7", players, [3, 3]) == [tuple(order[:3]), tuple(order[3:])]
    assert draw("seed-8", players) != order  # another seed, another draw


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

"""The simulated club of ``make bench-rating`` (``bench/club_sim.py``): its pulkas are
the ledger's (tables of three and four, results of zero sum, a tournament's tables
stopped at their deal cap, some Leningrad's), the same seed plays the same club (the
benchmark's figures can be made again), and skill shows in the results, so that a
rating has something to find."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import club_sim  # noqa: E402  (bench/club_sim.py)
from rating_candidates import Average, spearman  # noqa: E402


def test_the_simulated_pulkas_are_the_ledgers_and_the_same_seed_plays_the_same_club() -> None:
    sim = club_sim.simulate(3, (8,), skill_sd=0.13, held=4)
    assert sim == club_sim.simulate(3, (8,), skill_sd=0.13, held=4)
    assert sim.history != club_sim.simulate(4, (8,), skill_sd=0.13, held=4).history
    kinds = {(p.kind, len(p.players)) for p in sim.history}
    assert {("evening", 3), ("evening", 4), ("tournament", 3)} <= kinds
    for p in sim.history:
        assert sum(p.results) == 0 and len(set(p.players)) == len(p.players) and p.deals > 0
        assert p.start_utc < p.end_utc
        if p.kind == "tournament":
            assert p.deals <= 12  # stopped at the deal cap [Code 4.2.15]
    assert {p.convention for p in sim.history} == {"sochi", "leningrad"}
    mark = sim.horizons[0]
    assert len(mark.held_out) == 4 and not set(mark.held_out) & set(sim.history)


def test_skill_shows_in_the_results() -> None:
    """With skills far apart, the plain average of forty pulkas orders the players
    nearly as their skills; with none, the same average orders them by luck alone."""
    def found(skill_sd: float) -> float:
        sim = club_sim.simulate(5, (40,), players=6, skill_sd=skill_sd, held=0)
        average = Average()
        for p in sim.history:
            average.rate(p)
        mark = sim.horizons[0]
        return spearman([average.value(i) for i in mark.rated], [mark.skill[i] for i in mark.rated])

    assert found(1.0) > 0.8
    assert found(1.0) > found(0.0) + 0.3

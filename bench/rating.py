"""Which club rating measures skill best: ratings folded over simulated clubs whose
players' skills are known (``club_sim``: every pulka played deal by deal through the
ledger, its result the Code's settlement), measured at 10, 40 and 160 pulkas a player.

    python bench/rating.py [--quick | --full] [--seeds N] [--jobs J] [--skill SD]
    python bench/rating.py --speed [...]   # the speed figures (bench/rating_speed.py)

Each seed is one club of twelve players (``club_sim.simulate``); every candidate
(``rating_candidates``) folds the same pulkas. At each horizon, two measures:

- **rho**: Spearman's rank correlation between the table the rating gives and the
  players' true skills at that moment;
- **LL**: the log-likelihood of held-out pulkas' results (pulkas the club played with
  the skills of that moment, seated at random, rated by nobody), in thousandths of a
  nat a result, above a rating that knows nothing (``explained``): each rating read
  as a prediction of a player's result per deal (in Sochi's whists: a Leningrad
  pulka's halved, its rule set doubles whists and gora), a multiple of his rating less
  his table's mean, with luck whose variance falls as the pulka's deals grow; the
  multiple and the luck fitted alike for every rating, so that LL is what the order
  and spacing of the ratings tell of results they never saw, not how well they were
  calibrated.

Every figure is a mean over the seeds with its standard deviation; the comparison of
the chosen model with each other one is paired (the same clubs), its mean difference
and that mean's standard error, and "beyond noise" when the difference exceeds twice
its standard error. Two yardsticks stand beside the ratings: the true skills (a
ceiling) and ``informed``, an information bound (what the pulkas could tell a rating
that knew more than any can), with the room each rating leaves below each. --quick: 2
seeds to 40 pulkas (a smoke run); the default: 8 seeds; --full: 48 seeds; the
README's table: --seeds 600 (about 21 minutes of two cores). --jobs: processes (the default 1).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from multiprocessing import Pool

from club_sim import Club, Horizon, Played, Simulated, simulate
from projections.rating_models import model_of
from rating_candidates import candidates, per_deal, spearman

SKILL_SD = 0.13  # the skills' spread (club_sim's units), calibrated: see calibration()


def explained(held: Sequence[Played], values: dict[int, float]) -> float:
    """How much the ratings tell of held-out results, as a log-likelihood in nats a
    result above a rating that knows nothing: the results per deal taken as normal
    about a multiple of each player's rating less his table's mean, with a variance that
    falls as the pulka's deals grow; the multiple and the variance fitted to these results
    by maximum likelihood (two numbers, for every rating alike, 0 for the multiple of the
    rating that knows nothing). At the fitted variance the log-likelihood is
    -freedom/2 (log 2 pi v + 1) less a constant, so the gain is freedom/2 log(v0 / v)."""
    rows: list[tuple[float, float, int]] = []
    freedom = 0
    for p in held:
        ratings = [values[i] for i in p.players]
        mean = sum(ratings) / len(ratings)
        rows += [(x - mean, y, p.deals) for x, y in zip(ratings, per_deal(p), strict=True)]
        freedom += len(p.players) - 1
    xx = sum(d * x * x for x, _, d in rows)
    a = sum(d * x * y for x, y, d in rows) / xx if xx else 0.0
    v = sum(d * (y - a * x) ** 2 for x, y, d in rows) / freedom
    v0 = sum(d * y * y for _, y, d in rows) / freedom
    return 0.5 * math.log(v0 / v)


def measured(job: tuple[int, float, tuple[int, ...], int]) -> dict[tuple[str, int], tuple[float, float]]:
    """One club (one seed): every candidate's (rho, LL) at each horizon."""
    seed, skill_sd, horizons, held = job
    sim = simulate(seed, horizons, skill_sd=skill_sd, held=held)
    out: dict[tuple[str, int], tuple[float, float]] = {}
    for make in candidates(model_of("whists-per-deal")):
        rating = make()
        done = 0
        for mark in sim.horizons:
            for p in sim.history[done:mark.upto]:
                rating.rate(p)
            done = mark.upto
            values = {i: rating.value(i) for i in mark.rated}
            rho = spearman([values[i] for i in mark.rated], [mark.skill[i] for i in mark.rated])
            out[(rating.name, mark.pulkas)] = (rho, 1000 * explained(mark.held_out, values))
    for mark in sim.horizons:  # the ceiling: what knowing the true skills would predict
        truth = {i: mark.skill[i] for i in mark.rated}
        out[(CEILING, mark.pulkas)] = (1.0, 1000 * explained(mark.held_out, truth))
        out[(BOUND, mark.pulkas)] = informed(sim, mark, skill_sd)
    return out


CEILING = "the true skills (a ceiling, no rating can know them)"
BOUND = "what the pulkas can tell (an information bound, from the true skills)"


def informed(sim: Simulated, mark: Horizon, skill_sd: float, draws: int = 40) -> tuple[float, float]:
    """The most a rating could know from the results it has seen, measured like one: the
    information a pulka's result carries about its player's skill (per deal, at tables of
    three and of four: the squared slope of the results on the true skills over the luck's
    variance, ``_information``) added up over each player's pulkas, ``I``;
    then a rating that knew each skill to exactly that precision, ``skill + e`` with ``e``
    of variance ``1 / I``, taken to its posterior mean (shrunk to the club's average by
    the skills' spread). It knows more than any rating can (the opponents' skills exactly,
    no drift, luck Gaussian), so it bounds from above what a rating folding these pulkas
    could reach; its rho and LL are the mean over ``draws`` draws of ``e``."""
    per_deal_info = _information(sim)
    info = {i: 0.0 for i in mark.rated}
    for p in sim.history[:mark.upto]:
        for i in p.players:
            info[i] += per_deal_info[len(p.players)] * p.deals
    rng = random.Random(sim.seed * 1000 + mark.pulkas)
    rhos, lls = [], []
    for _ in range(draws):
        known = {i: (mark.skill[i] + rng.gauss(0.0, 1 / math.sqrt(info[i]))) / (1 + 1 / (info[i] * skill_sd ** 2))
                 for i in mark.rated}
        rhos.append(spearman([known[i] for i in mark.rated], [mark.skill[i] for i in mark.rated]))
        lls.append(1000 * explained(mark.held_out, known))
    return statistics.mean(rhos), statistics.mean(lls)


def _information(sim: Simulated) -> dict[int, float]:
    """What one deal's result tells of its player's skill at a table of three and of four
    (in club_sim's units of skill, squared, inverted): the slope of the results a deal on
    the skill less the table's, squared, over the luck's variance a deal; from all the
    club's pulkas, each with the skills of the next horizon."""
    out = {}
    for seats in (3, 4):
        rows = []
        done = 0
        for mark in sim.horizons:
            for p in sim.history[done:mark.upto]:
                if len(p.players) == seats:
                    mean = sum(mark.skill[i] for i in p.players) / seats
                    rows += [(mark.skill[i] - mean, y * p.deals, p.deals)
                             for i, y in zip(p.players, per_deal(p), strict=True)]
            done = mark.upto
        slope = sum(x * r for x, r, _ in rows) / sum(x * x * d for x, _, d in rows)
        luck2 = sum((r - slope * x * d) ** 2 / d for x, r, d in rows) / len(rows) * seats / (seats - 1)
        out[seats] = slope * slope / luck2
    return out


def calibration(seeds: Sequence[int], skill_sd: float) -> list[str]:
    """What the simulated clubs are: the pulkas' lengths, how a result follows the true
    skills (whists a deal per unit of skill) and the luck around that (a result's
    standard deviation over the root of its deals), and how far a skill drifts: the
    chosen model's ``prior`` (the skills' spread in whists a deal), ``luck`` and
    ``drift`` are read off these lines, not fitted to make it win."""
    lines = []
    pooled: list[float] = []
    slopes: list[float] = []
    for kind in ("evening", "tournament"):
        for seats in (3, 4):
            deals, rows = [], []
            for seed in seeds:
                sim = simulate(seed, (40,), skill_sd=skill_sd, held=0)
                skill = _skills_at_start(seed, skill_sd)
                for p in sim.history:
                    if p.kind == kind and len(p.players) == seats:
                        deals.append(p.deals)
                        mean = sum(skill[i] for i in p.players) / seats
                        rows += [(skill[i] - mean, r, p.deals) for i, r in zip(p.players, p.results, strict=True)]
            spread = sum(x * x * d for x, _, d in rows)
            slope = sum(x * r for x, r, _ in rows) / spread if spread else 0.0
            luck = math.sqrt(sum((r - slope * x * d) ** 2 / d for x, r, d in rows) / len(rows) * seats / (seats - 1))
            pooled.append(luck)
            slopes.append(slope)
            lines.append(f"  {kind:<10} tables of {seats}: {len(deals):>4} pulkas, {statistics.mean(deals):5.1f} deals "
                         f"({min(deals)}-{max(deals)}); whists a deal per unit of skill {slope:5.1f}, luck "
                         f"{luck:5.1f} whists x root of the deals")
    lines.append(f"  the skills' spread in whists a deal (at tables of three, evenings): {slopes[0] * skill_sd:.2f}")
    days = 7 / 2  # the club meets twice a week; every skill drifts by Club.drift of the spread a meeting
    lines.append(f"  the skills' drift in whists a deal a root of a day: "
                 f"{slopes[0] * skill_sd * Club.drift / math.sqrt(days):.3f}")
    return lines


def _skills_at_start(seed: int, skill_sd: float) -> list[float]:
    return Club(seed, 12, skill_sd).skill


def summary(runs: list[dict[tuple[str, int], tuple[float, float]]], horizons: Sequence[int]) -> list[str]:
    names = list(dict.fromkeys(name for run in runs for name, _ in run))
    chosen = next(name for name in names if name.endswith("chosen)"))
    head = "| model | " + " | ".join(f"rho {h} | LL {h}" for h in horizons) + " |"
    out = [head, "|---|" + "---|---|" * len(horizons)]
    for name in names:
        cells = []
        for h in horizons:
            for k in (0, 1):
                xs = [run[(name, h)][k] for run in runs]
                sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
                cells.append(f"{statistics.mean(xs):.3f} ± {sd:.3f}" if k == 0 else
                             f"{statistics.mean(xs):+.1f} ± {sd:.1f}")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    out += ["", f"The chosen model less each other one (paired by club: mean, its standard error; * beyond "
                f"noise, the mean above twice its standard error):", ""]
    out += less_table(runs, chosen, [n for n in names if not n.startswith(chosen)], horizons)
    if CEILING in names:
        out += ["", "The ceiling less each rating: the room left above it (no rating can be ahead of another by "
                    "more than the room above that other):", ""]
        out += less_table(runs, CEILING, [n for n in names if n != CEILING], horizons)
    if BOUND in names:
        out += ["", "The information bound less each rating: the most a rating could still gain on it from the same "
                    "pulkas (the bound knows more than any rating can, so this is an upper bound):", ""]
        out += less_table(runs, BOUND, [n for n in names if n not in (BOUND, CEILING)], horizons)
    return out


def less_table(runs: list[dict[tuple[str, int], tuple[float, float]]], ahead: str, others: Sequence[str],
               horizons: Sequence[int]) -> list[str]:
    """``ahead`` less each of ``others``, paired by club, at each horizon and measure."""
    out = ["| less | " + " | ".join(f"rho {h} | LL {h}" for h in horizons) + " |", "|---|" + "---|---|" * len(horizons)]
    for name in others:
        cells = []
        for h in horizons:
            for k in (0, 1):
                d = [run[(ahead, h)][k] - run[(name, h)][k] for run in runs]
                se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else 0.0
                star = "*" if statistics.mean(d) > 2 * se else ""
                cells.append(f"{statistics.mean(d):+.3f} ({se:.3f}){star}" if k == 0 else
                             f"{statistics.mean(d):+.1f} ({se:.1f}){star}")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out


def main() -> None:
    if "--speed" in sys.argv:
        sys.argv.remove("--speed")
        import rating_speed

        rating_speed.main()
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="2 seeds, to 40 pulkas a player")
    parser.add_argument("--full", action="store_true", help="48 seeds (the README's table: --seeds 600)")
    parser.add_argument("--seeds", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--skill", type=float, default=SKILL_SD, help="the skills' spread (club_sim's units)")
    parser.add_argument("--held", type=int, default=60, help="held-out pulkas at each horizon")
    args = parser.parse_args()
    horizons = (10, 40) if args.quick else (10, 40, 160)
    seeds = args.seeds or (2 if args.quick else 48 if args.full else 8)
    began = time.perf_counter()
    print(f"{seeds} simulated clubs of 12 players (skills' spread {args.skill}), horizons {horizons} pulkas a player")
    print("\n".join(calibration(range(1, 3), args.skill)))
    jobs = [(seed, args.skill, horizons, args.held) for seed in range(1, seeds + 1)]
    if args.jobs > 1:
        with Pool(args.jobs) as pool:
            runs = pool.map(measured, jobs)
    else:
        runs = [measured(job) for job in jobs]
    print()
    print("\n".join(summary(runs, horizons)))
    print(f"\n{time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()



"""The ratings a club might use, each folded over a simulated club's pulkas
(``club_sim.Played``) in the order they ended, for ``bench/rating.py`` to measure.

Each candidate has ``rate(pulka)`` and ``value(player)``: the number its table would
sort the players by. What each one is:

- ``OpenSkillPlaces``: pulka's rating until issue 34, the ``openskill`` package's
  Plackett-Luce model with its parameters (mu 25, sigma 25/3, beta 25/6, tau 25/300,
  margin 40 whists), the results as scores; the table sorted by ``mu - 3 sigma`` as
  it showed it (``shown``) or by ``mu``.
- ``OpenSkillTM``: the package's Thurstone-Mosteller (full pairing) on the results,
  its margin off (the 6.2.0 margin inverted: issue 34): places only, from a Gaussian
  model rather than Plackett-Luce.
- ``PairwiseElo``: every two players at a table one game of Elo (a win for more
  whists, a draw for as many), K points a game, as club spreadsheets do.
- ``Average``: the plain average result per pulka, or (``per_deal``) whists per deal
  over all his pulkas (a long pulka weighs more).
- ``Performance``: the average result per pulka plus his opponents' strength (the
  mean of their average results, pulka by pulka).
- ``Kept``: a model of ``projections.rating`` (the one pulka keeps), through the same
  fold the archive uses (``rate_matches``), so that the benchmark measures the code
  the club runs.
- ``JointPosterior``: the chosen model's own assumptions solved exactly for the whole
  club at once: the Gaussian posterior of every player's skill given every pulka so
  far, his opponents' levels estimated jointly with his (a Kalman filter over all the
  players' skills with their covariance; its means at the last pulka are what a
  smoother or a least-squares fit of the whole history with the same prior and drift
  gives). It tells how much the fold loses by carrying one ``(mu, sigma)`` a player.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from club_sim import Played
from projections import rating as model
from projections.rating_models import DAY, WhistsPerDeal


class OpenSkillPlaces:
    def __init__(self, shown: bool = True) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce(mu=25.0, sigma=25 / 3, beta=25 / 6, tau=25 / 300, margin=40.0)
        self.ratings: dict[int, Any] = {}
        self.shown = shown
        self.name = "OpenSkill by places, mu - 3 sigma (until now)" if shown else "OpenSkill by places, mu"

    def rate(self, p: Played) -> None:
        teams = [[self.ratings.get(i) or self.model.rating()] for i in p.players]
        for i, team in zip(p.players, self.model.rate(teams, scores=[float(r) for r in p.results]), strict=True):
            self.ratings[i] = team[0]

    def value(self, i: int) -> float:
        r = self.ratings.get(i)
        if r is None:
            return 0.0 if self.shown else 25.0
        return float(r.mu - 3 * r.sigma if self.shown else r.mu)


class OpenSkillTM:
    name = "OpenSkill Thurstone-Mosteller by places, mu"

    def __init__(self) -> None:
        from openskill.models import ThurstoneMostellerFull

        self.model = ThurstoneMostellerFull()
        self.ratings: dict[int, Any] = {}

    def rate(self, p: Played) -> None:
        teams = [[self.ratings.get(i) or self.model.rating()] for i in p.players]
        for i, team in zip(p.players, self.model.rate(teams, scores=[float(r) for r in p.results]), strict=True):
            self.ratings[i] = team[0]

    def value(self, i: int) -> float:
        r = self.ratings.get(i)
        return 25.0 if r is None else float(r.mu)


class PairwiseElo:
    def __init__(self, k: float = 16.0) -> None:
        self.k = k
        self.elo: dict[int, float] = {}
        self.name = f"pairwise Elo per table (K {k:g} a pair)"

    def rate(self, p: Played) -> None:
        before = {i: self.elo.get(i, 1500.0) for i in p.players}
        after = dict(before)
        for a, ra in zip(p.players, p.results, strict=True):
            for b, rb in zip(p.players, p.results, strict=True):
                if a == b:
                    continue
                expected = 1 / (1 + 10 ** ((before[b] - before[a]) / 400))
                scored = 1.0 if ra > rb else 0.5 if ra == rb else 0.0
                after[a] += self.k * (scored - expected)
        self.elo.update(after)

    def value(self, i: int) -> float:
        return self.elo.get(i, 1500.0)


class Average:
    """The plain average result per pulka; ``per_deal``: whists per deal over all his
    pulkas (each pulka weighing by its deals)."""

    def __init__(self, per_deal: bool = False) -> None:
        self.name = "average whists per deal" if per_deal else "plain average per pulka"
        self.per_deal = per_deal
        self.total: dict[int, int] = {}
        self.count: dict[int, int] = {}

    def rate(self, p: Played) -> None:
        for i, r in zip(p.players, p.results, strict=True):
            self.total[i] = self.total.get(i, 0) + r
            self.count[i] = self.count.get(i, 0) + (p.deals if self.per_deal else 1)

    def value(self, i: int) -> float:
        return self.total.get(i, 0) / self.count[i] if self.count.get(i) else 0.0


class Performance:
    name = "performance (average + opponents' strength)"

    def __init__(self) -> None:
        self.average = Average()
        self.tables: dict[int, list[tuple[int, ...]]] = {}

    def rate(self, p: Played) -> None:
        self.average.rate(p)
        for i in p.players:
            self.tables.setdefault(i, []).append(tuple(j for j in p.players if j != i))

    def value(self, i: int) -> float:
        tables = self.tables.get(i)
        if not tables:
            return 0.0
        strength = sum(sum(self.average.value(j) for j in t) / len(t) for t in tables) / len(tables)
        return self.average.value(i) + strength


class Kept:
    """A model of ``projections.rating``, folded as the archive folds it."""

    def __init__(self, chosen: model.RatingModel, name: str) -> None:
        self.model = chosen
        self.name = name
        self.skills: dict[str, model.Skill] = {}
        self.last: dict[str, int] = {}

    def rate(self, p: Played) -> None:
        match = model.Match(p.game, p.end_utc, p.convention, tuple((f"P{i:02d}", r) for i, r in
                                                                   zip(p.players, p.results, strict=True)),
                            started_utc=p.start_utc, deals=p.deals, scale=scale(p))
        for change in model.rate_matches([match], lambda n: n, self.model, self.state()):
            self.skills[change.player] = change.after
            self.last[change.player] = change.finished_utc

    def state(self) -> dict[str, model.Held]:
        return {k: model.Held(s, self.last[k]) for k, s in self.skills.items()}

    def value(self, i: int) -> float:
        s = self.skills.get(f"P{i:02d}")
        return self.model.start.mu if s is None else s.mu


class JointPosterior:
    name = "exact joint posterior of the same model (whole history, opponents solved jointly)"

    def __init__(self, chosen: model.RatingModel) -> None:
        assert isinstance(chosen, WhistsPerDeal)
        self.m = chosen
        self.index: dict[int, int] = {}
        self.mu: list[float] = []
        self.cov: list[list[float]] = []
        self.now: int | None = None

    def _join(self, i: int) -> None:
        self.index[i] = len(self.mu)
        self.mu.append(0.0)
        for row in self.cov:
            row.append(0.0)
        self.cov.append([0.0] * (len(self.mu) - 1) + [self.m.prior ** 2])

    def rate(self, p: Played) -> None:
        for i in p.players:
            if i not in self.index:
                self._join(i)
        if self.now is not None and p.start_utc > self.now:  # every skill drifts while time passes
            for k in range(len(self.mu)):
                self.cov[k][k] += self.m.drift ** 2 * (p.start_utc - self.now) / DAY
        self.now = max(self.now or 0, p.start_utc)
        if p.deals <= 0:
            return
        # Seen: each result a deal less the table's mean (the table's level unknown), i.e.
        # A s + luck, A the table's players less their mean; the update with noise luck^2 / D.
        at, n = [self.index[i] for i in p.players], len(p.players)
        y = per_deal(p)
        seen = [y[j] - sum(y) / n - self.mu[a] + sum(self.mu[b] for b in at) / n for j, a in enumerate(at)]
        ca = [[row[a] - sum(row[b] for b in at) / n for a in at] for row in self.cov]  # cov A^T
        aca = [[ca[a][j] - sum(ca[b][j] for b in at) / n for j in range(n)] for a in at]
        for j in range(n):
            aca[j][j] += self.m.luck ** 2 / p.deals
        inverse = _inverse(aca)
        gain = [[sum(r[k] * inverse[k][j] for k in range(n)) for j in range(n)] for r in ca]
        self.mu = [mu + sum(g[j] * seen[j] for j in range(n)) for mu, g in zip(self.mu, gain, strict=True)]
        self.cov = [[c - sum(g[j] * ca[col][j] for j in range(n)) for col, c in enumerate(row)]
                    for row, g in zip(self.cov, gain, strict=True)]

    def value(self, i: int) -> float:
        return self.mu[self.index[i]] if i in self.index else 0.0


def _inverse(a: list[list[float]]) -> list[list[float]]:
    """A small symmetric positive definite matrix's inverse (Gauss-Jordan)."""
    n = len(a)
    m = [row[:] + [float(i == j) for j in range(n)] for i, row in enumerate(a)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[pivot] = m[pivot], m[c]
        m[c] = [x / m[c][c] for x in m[c]]
        for r in range(n):
            if r != c and m[r][c]:
                m[r] = [x - m[r][c] * y for x, y in zip(m[r], m[c], strict=True)]
    return [row[n:] for row in m]


def scale(p: Played) -> int:
    """The pulka's whists that make a whist of Sochi: its rule set's gora_whist_multiplier."""
    return 2 if p.convention == "leningrad" else 1


def per_deal(p: Played) -> list[float]:
    """Each player's result a deal, in Sochi's whists (what every LL is measured on)."""
    return [r / scale(p) / p.deals for r in p.results]


def candidates(chosen: model.RatingModel) -> list[Callable[[], Any]]:
    """Every candidate, as a maker of a fresh one (the chosen model first)."""
    return [
        lambda: Kept(chosen, f"whists per deal, Gaussian ({chosen.name}, chosen)"),
        lambda: OpenSkillPlaces(shown=True),
        lambda: OpenSkillPlaces(shown=False),
        OpenSkillTM,
        lambda: PairwiseElo(16.0),
        Average,
        lambda: Average(per_deal=True),
        Performance,
        lambda: JointPosterior(chosen),
    ]


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rank correlation (ties ranked by their mean rank)."""
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / math.sqrt(vx * vy) if vx and vy else 0.0


def _ranks(xs: list[float]) -> list[float]:
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks

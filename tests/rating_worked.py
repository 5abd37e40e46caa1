"""The club rating (``whists-per-deal``) worked out again in the tests, without pulka's
code: exact fractions and the matrix form of the update, where pulka computes the
closed form in floats.

The model (docs/conventions.md, "The club rating"): each player's skill is believed
normal, mean ``mu`` and variance ``v`` (whists a deal); a pulka of ``D`` deals over gives
each player's result per deal in Sochi's whists, ``y = r / (D x scale)``, a vector of
zero sum. As a Gaussian observation of the skills ``s``: ``y = P s + P e``, ``P`` the
centring matrix (``I - J/n``) and ``e`` independent luck of variance ``N = luck^2 / D``.
The exact conditioning: ``M = P (S + N I) P`` (``S`` the players' variances), its
pseudo-inverse ``M+ = (M + J/n)^-1 - J/n`` (``M`` has the ones as its null vector),
the gain ``K = S P M+``; the means ``mu + K (y - P mu)``, the covariance ``S - K P S``,
of which the rating keeps the diagonal (each player's own variance). Then the rule of
fairness: last with a loss, never up; first with a win, never down. Before a pulka each
player's variance grows by ``drift^2`` a day since his last pulka ended, up to
``prior^2``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

DAY = 86_400 * 10**6

# docs/conventions.md, "The club rating": the default parameters of whists-per-deal.
PRIOR = Fraction(2)
LUCK = Fraction(30)
DRIFT = Fraction(2, 100)

# Exact conditioning, pulka after pulka, multiplies the fractions' denominators: after a
# dozen pulkas they run to thousands of digits. Each belief is kept on a grid of 2^-256
# between pulkas (an error below 1e-77, far under what any test compares), so that the
# work stays exact within a pulka and small across them.
GRID = 2**256


@dataclass
class Belief:
    mu: Fraction
    variance: Fraction
    since: int | None = None  # when his last pulka ended (microseconds UTC)


@dataclass(frozen=True)
class Pulka:
    """What the rating reads of a pulka over."""

    game: str
    started: int
    ended: int
    deals: int
    scale: int
    results: tuple[tuple[str, int], ...]  # (player's key, rounded whists), in seat order


def _inverse(m: list[list[Fraction]]) -> list[list[Fraction]]:
    n = len(m)
    a = [row[:] + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(m)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[pivot] = a[pivot], a[col]
        p = a[col][col]
        a[col] = [x / p for x in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return [row[n:] for row in a]


def _mul(a: list[list[Fraction]], b: list[list[Fraction]]) -> list[list[Fraction]]:
    return [[sum((a[i][k] * b[k][j] for k in range(len(b))), Fraction(0)) for j in range(len(b[0]))]
            for i in range(len(a))]


def rate(beliefs: dict[str, Belief], pulka: Pulka, prior: Fraction = PRIOR, luck: Fraction = LUCK,
         drift: Fraction = DRIFT) -> None:
    """One pulka folded into ``beliefs`` (a newcomer starts at 0 with ``prior^2``)."""
    keys = [k for k, _ in pulka.results]
    n = len(keys)
    before = []
    for k in keys:
        b = beliefs.get(k) or Belief(Fraction(0), prior * prior)
        v = b.variance
        if b.since is not None and pulka.started > b.since:
            v = min(prior * prior, v + drift * drift * Fraction(pulka.started - b.since, DAY))
        before.append(Belief(b.mu, v))
    if pulka.deals == 0:
        for k, b in zip(keys, before):
            beliefs[k] = Belief(b.mu, b.variance, pulka.ended)
        return
    noise = luck * luck / pulka.deals
    P = [[Fraction(int(i == j)) - Fraction(1, n) for j in range(n)] for i in range(n)]
    S = [[before[i].variance if i == j else Fraction(0) for j in range(n)] for i in range(n)]
    SN = [[S[i][j] + (noise if i == j else 0) for j in range(n)] for i in range(n)]
    M = _mul(_mul(P, SN), P)
    Mplus = [[x - Fraction(1, n) for x in row] for row in _inverse([[x + Fraction(1, n) for x in row] for row in M])]
    K = _mul(_mul(S, P), Mplus)
    y = [Fraction(r, pulka.deals * pulka.scale) for _, r in pulka.results]
    mu = [b.mu for b in before]
    mean = sum(mu, Fraction(0)) / n
    surprise = [y[i] - (mu[i] - mean) for i in range(n)]
    cov = [[S[i][j] - v for j, v in enumerate(row)] for i, row in enumerate(_mul(_mul(K, P), S))]
    whists = [r for _, r in pulka.results]
    for i, k in enumerate(keys):
        move = sum((K[i][j] * surprise[j] for j in range(n)), Fraction(0))
        if whists[i] < 0 and whists[i] == min(whists):
            move = min(move, Fraction(0))
        elif whists[i] > 0 and whists[i] == max(whists):
            move = max(move, Fraction(0))
        beliefs[k] = Belief(_fine(mu[i] + move), _fine(cov[i][i]), pulka.ended)


def _fine(x: Fraction) -> Fraction:
    return Fraction(round(x * GRID), GRID)


def fold(pulkas: Sequence[Pulka], now: int | None = None) -> dict[str, tuple[Fraction, Fraction, int]]:
    """Every pulka in the rating's order: by its end, its start, its name (code points);
    each player's mu, variance and pulkas rated, the variance grown by his absence from
    his last pulka's end to ``now`` (by default the end of the last pulka)."""
    beliefs: dict[str, Belief] = {}
    played: dict[str, int] = {}
    for p in sorted(pulkas, key=lambda p: (p.ended, p.started, p.game)):
        rate(beliefs, p)
        for k, _ in p.results:
            played[k] = played.get(k, 0) + 1
    until = now if now is not None else max((p.ended for p in pulkas), default=0)
    return {k: (b.mu, grown(b, until), played[k]) for k, b in beliefs.items()}


def grown(b: Belief, now: int) -> Fraction:
    if b.since is None or now <= b.since:
        return b.variance
    return min(PRIOR * PRIOR, b.variance + DRIFT * DRIFT * Fraction(now - b.since, DAY))

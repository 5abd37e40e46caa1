"""The club rating's models: how one pulka over moves its players' ratings.

A pure part of the rating's fold (``projections.rating``): each model takes the skills
of a match's players before it and gives them after it, with what explains the move
(the result expected from the ratings before it, the share of the surprise the rating
took). The club's log names the model in effect and its parameters
(``ledger.vocabulary.club.RatingModelChosen``); without such an event it is the
default, ``whists-per-deal`` with the parameters below. Every model's numbers are
pinned by tests on known numbers (``tests/test_rating_models.py``): a change of the
arithmetic, or of a dependency's, fails a test instead of re-rating an archive.

**whists-per-deal** (chosen by ``make bench-rating``; README, "The club rating"): a
player's skill is the whists he wins a deal against the average player of the club,
believed to be ``mu`` with a standard deviation ``sigma``. A pulka of ``D`` deals over,
each player's result ``r`` (rounded [Code 4.2.12]) is taken as his skill less the
table's, ``D`` times, plus luck: ``r / D = skill - table + e``, ``e`` normal with
variance ``luck^2 / D`` (the luck of a pulka grows as the root of its length, as the
Code's settlement of simulated pulkas shows). The results are in Sochi's whists: a
rule set that doubles whists and gora (``gora_whist_multiplier`` 2, Leningrad) has its
results halved first (``scale``), so that a pulka of any convention says as much. The update is the exact Bayesian one for
that model, the table's level ``c`` integrated out (every player's prior independent
and normal):

- ``n = luck^2 / D``; each player's weight ``w = 1 / (sigma^2 + n)``;
- ``c = sum(w (mu - r/D)) / sum(w)``, the table's level the results say;
- ``k = sigma^2 / (sigma^2 + n)``: the share of the surprise the rating takes (large
  while the club is unsure of him, small for a short pulka);
- ``mu' = mu + k (r/D + c - mu)``; ``sigma'^2 = sigma^2 (1 - k) + k^2 / sum(w)``.

So a short table weighs less (``n`` grows as ``D`` falls) and a whist counts the same at
a table of three or four. Two rules of fairness bound it: a player last at his table
with a loss of whists never gains, and one first with a win never loses (a better or
worse result than expected moves the others). Between pulkas ``sigma^2`` grows by
``drift^2`` a day of absence (up to the newcomer's ``prior``): the club is less sure of
a player it has not seen. A rating is *provisional* while ``sigma`` is above
``provisional``. The rating shown is ``mu``; a newcomer starts at 0 with ``sigma`` =
``prior``.

**openskill-places** (the rating until issue 34, for comparison and for clubs that
chose it): OpenSkill's Plackett-Luce model (Weng and Lin, JMLR 12, 2011) of the
``openskill`` package, pinned at 6.2.0 (its margin changes after it), the players
ranked by their results and the results taken as scores with a margin of 40 whists;
the rating shown is ``mu - 3 sigma``; the expected place is ``1 +`` the sum of the
chances that each opponent finishes ahead (Thurstone's, from the skills before).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol

DAY = 86_400 * 10**6  # microseconds


@dataclass(frozen=True)
class Skill:
    """What the model believes of a player: his skill ``mu`` and how unsure it is."""

    mu: float
    sigma: float


@dataclass(frozen=True)
class Moved:
    """One player's move in one match: his skill after it and why it moved."""

    after: Skill
    expected: float  # the result (whists) or the place expected from the skills before
    share: float  # the share of the surprise taken into the rating: the uncertainty's share


class RatingModel(Protocol):
    """A model of the club rating, with its parameters."""

    @property
    def name(self) -> str: ...
    @property
    def parameters(self) -> dict[str, str]: ...
    @property
    def start(self) -> Skill: ...
    @property
    def expects(self) -> str: ...  # "whists" or "place"

    def shown(self, skill: Skill) -> float: ...
    def provisional(self, skill: Skill) -> bool: ...
    def grown(self, skill: Skill, micros: int) -> Skill: ...
    def rate(self, results: Sequence[int], deals: int, before: Sequence[Skill], scale: int = 1) -> list[Moved]: ...


class ParameterError(ValueError):
    """A model's parameter that is not one of it, or out of its range."""


def _number(name: str, text: str, low: Decimal, high: Decimal) -> float:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ParameterError(f"{name}={text}: not a number") from None
    if not value.is_finite() or not low <= value <= high:
        raise ParameterError(f"{name}={text}: allowed from {low} to {high}")
    return float(value)


@dataclass(frozen=True)
class WhistsPerDeal:
    """The chosen model (the module's docstring has the arithmetic)."""

    prior: float = 2.0  # a newcomer's sigma: the spread of the club's skills, whists a deal
    luck: float = 30.0  # a player's result's standard deviation over one deal, in whists
    drift: float = 0.02  # sigma's growth a day of absence, whists a deal (as a variance: drift^2 a day)
    bound: float = 1.0  # provisional while sigma is above it

    name = "whists-per-deal"
    expects = "whists"
    RANGES = {"prior": ("0.1", "20"), "luck": ("1", "200"), "drift": ("0", "1"), "provisional": ("0.05", "20")}

    @classmethod
    def of(cls, parameters: Mapping[str, str]) -> WhistsPerDeal:
        values: dict[str, float] = {}
        for key, text in parameters.items():
            if key not in cls.RANGES:
                raise ParameterError(f"{key}: not a parameter of {cls.name} (its parameters: "
                                     f"{', '.join(cls.RANGES)})")
            low, high = cls.RANGES[key]
            values["bound" if key == "provisional" else key] = _number(key, text, Decimal(low), Decimal(high))
        return cls(**values)

    @property
    def parameters(self) -> dict[str, str]:
        return {"prior": _text(self.prior), "luck": _text(self.luck), "drift": _text(self.drift),
                "provisional": _text(self.bound)}

    @property
    def start(self) -> Skill:
        return Skill(0.0, self.prior)

    def shown(self, skill: Skill) -> float:
        return skill.mu

    def provisional(self, skill: Skill) -> bool:
        return skill.sigma > self.bound

    def grown(self, skill: Skill, micros: int) -> Skill:
        """The skill after ``micros`` of absence: sigma^2 grows by drift^2 a day, up to the prior's."""
        if micros <= 0 or self.drift == 0:
            return skill
        variance = min(self.prior * self.prior, skill.sigma * skill.sigma + self.drift * self.drift * micros / DAY)
        return Skill(skill.mu, max(skill.sigma, math.sqrt(variance)))

    def rate(self, results: Sequence[int], deals: int, before: Sequence[Skill], scale: int = 1) -> list[Moved]:
        n = len(before)
        mean = sum(s.mu for s in before) / n
        if deals <= 0:  # nothing was played: nothing is learnt
            return [Moved(s, 0.0, 0.0) for s in before]
        noise = self.luck * self.luck / deals
        per_deal = [r / scale / deals for r in results]
        weights = [1.0 / (s.sigma * s.sigma + noise) for s in before]
        total = sum(weights)
        level = sum(w * (s.mu - y) for w, s, y in zip(weights, before, per_deal, strict=True)) / total
        last, first = min(results), max(results)
        out = []
        for s, y, r in zip(before, per_deal, results, strict=True):
            variance = s.sigma * s.sigma
            k = variance / (variance + noise)
            move = k * (y + level - s.mu)
            if r < 0 and r == last:
                move = min(move, 0.0)  # last with a loss: never a gain
            elif r > 0 and r == first:
                move = max(move, 0.0)  # first with a win: never a loss
            after = Skill(s.mu + move, math.sqrt(variance * (1.0 - k) + k * k / total))
            out.append(Moved(after, scale * deals * (s.mu - mean), k))
        return out


@dataclass(frozen=True)
class OpenSkillPlaces:
    """The rating until issue 34: OpenSkill's Plackett-Luce by places (``openskill`` 6.2.0)."""

    margin: float = 40.0

    name = "openskill-places"
    expects = "place"
    MU, SIGMA, BETA, TAU = 25.0, 25.0 / 3.0, 25.0 / 6.0, 25.0 / 300.0
    RANGES = {"margin": ("0", "1000")}

    @classmethod
    def of(cls, parameters: Mapping[str, str]) -> OpenSkillPlaces:
        for key in parameters:
            if key not in cls.RANGES:
                raise ParameterError(f"{key}: not a parameter of {cls.name} (its parameters: margin)")
        if "margin" in parameters:
            return cls(_number("margin", parameters["margin"], Decimal(0), Decimal(1000)))
        return cls()

    @property
    def parameters(self) -> dict[str, str]:
        return {"margin": _text(self.margin)}

    @property
    def start(self) -> Skill:
        return Skill(self.MU, self.SIGMA)

    def shown(self, skill: Skill) -> float:
        return skill.mu - 3.0 * skill.sigma

    def provisional(self, skill: Skill) -> bool:
        return False  # the model has no such mark: mu - 3 sigma is its caution

    def grown(self, skill: Skill, micros: int) -> Skill:
        return skill

    def rate(self, results: Sequence[int], deals: int, before: Sequence[Skill], scale: int = 1) -> list[Moved]:
        m = _openskill(self.margin)
        teams = [[m.rating(mu=s.mu, sigma=s.sigma)] for s in before]
        rated = m.rate(teams, scores=[float(r) for r in results])
        out = []
        for i, (s, team) in enumerate(zip(before, rated, strict=True)):
            ahead = sum(_ahead(o, s, self.BETA) for j, o in enumerate(before) if j != i)
            share = s.sigma * s.sigma / (s.sigma * s.sigma + self.BETA * self.BETA)
            out.append(Moved(Skill(team[0].mu, team[0].sigma), 1.0 + ahead, share))
        return out


def _ahead(other: Skill, me: Skill, beta: float) -> float:
    """The chance that ``other`` finishes ahead of ``me`` (Thurstone: normal performances)."""
    spread = math.sqrt(2 * beta * beta + other.sigma ** 2 + me.sigma ** 2)
    return 0.5 * math.erfc(-(other.mu - me.mu) / (spread * math.sqrt(2)))


@functools.cache
def _openskill(margin: float) -> Any:
    """The package's model; imported when first needed, so that a club that does not use
    it never loads it."""
    from openskill.models import PlackettLuce

    m = OpenSkillPlaces
    return PlackettLuce(mu=m.MU, sigma=m.SIGMA, beta=m.BETA, tau=m.TAU, margin=margin)


def _text(x: float) -> str:
    """A parameter as the log writes it: the shortest decimal that reads back the same."""
    return repr(x).removesuffix(".0") if x == int(x) else repr(x)


MODELS: dict[str, Any] = {WhistsPerDeal.name: WhistsPerDeal, OpenSkillPlaces.name: OpenSkillPlaces}
DEFAULT = WhistsPerDeal.name


def model_of(name: str, parameters: Mapping[str, str] | None = None) -> RatingModel:
    """A model by its name with its parameters (the others at their defaults)."""
    if name not in MODELS:
        raise ParameterError(f"{name}: not a rating model (the models: {', '.join(MODELS)})")
    made: RatingModel = MODELS[name].of(parameters or {})
    return made

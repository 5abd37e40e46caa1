"""A simulated club whose players' skills are known, for measuring ratings against the
truth (``bench/rating.py``, ``make bench-rating``).

Every pulka is played deal by deal through the ledger's own door for a pulka (each
deal a line of the table's words, ``ledger.words.deal_line``, judged by the Code's
rules, ``ledger.judge``) and its result is the archive's: the Code's settlement,
rounded [Code 4.2.12], as ``projections.archive.game_result`` gives it for a pulka over
(finished, abandoned, or stopped at a tournament's deal cap). No simpler model of the
settlement stands between the deals and the score: a pulka of twenty deals costs about
20 ms, so a club of twelve players to 160 pulkas each is some fifteen seconds, and the
settlement's own shape (pulya, gora and whists turned into whists at the end, mountains
of gora on a remiz, the rounding) is in every result.

What is invented is how skill meets the cards, deal by deal (``deal_line``): each of the
three players in the auction is dealt a hand of random value; the best hand declares
(the others pass) unless every hand is poor (raspasy, about one deal in five); a
misère is about one declaration in twelve. Skill then acts where it does at a table:

- the declarer's tricks: a stronger declarer against weaker defenders takes more;
- bidding: a weaker player overbids his hand more often (and goes down);
- the defence: each defender whists when he judges the defence will take what the
  whist needs; a stronger player misjudges less (a wrong pass gives the declarer his
  game, a wrong whist writes gora on the whister);
- the defenders' and the raspasy's tricks: a stronger player takes more of the
  defence's tricks and fewer on raspasy; a misère is made more often.

A player's skill is one number, the same in each of these (``skill``, drawn from a
normal law with standard deviation ``skill_sd``; 0 is the club's average); it drifts a
little between meetings (``drift``), so that a rating that forgets nothing is not
favoured.

The club meets twice a week. Two thirds of its players found it; each of the others
joins at a meeting of the first thirty weeks (a newcomer's rating is the hardest to get
right). Three meetings in four are evenings: the players who come (each comes with a
probability of his own: three players in four are regulars, 60 to 95 %, the fourth
comes now and then, 10 to 30 %, so that a rating meets players it sees rarely) are seated at random at tables
of three and four, every table a pulka to 20 (Sochi, or Leningrad one table in three).
Every fourth meeting is a tournament day: three tours of tables stopped at a deal cap
(8 or 12 deals [Code 4.2.15]), the first tour seated at random, the next by Swiss (by
the day's standings). The length of a pulka is the ledger's: a pulka to 20 of three
runs about 20 deals, of four about 30.

``simulate`` plays the club until its players have played, on average, each horizon's
pulkas (10, 40, 160), and at each horizon plays held-out pulkas (that nobody rates) with
the skills of that moment: what a rating is measured against.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from ledger.judge.judging import judge_events
from ledger.judge.kinds import PULKA, start_stream
from ledger.vocabulary.events import Abandoned, GameStarted
from ledger.words.deal_line import deal_events
from projections.archive import game_result
from projections.game import GameState

DAY = 86_400 * 10**6  # microseconds
MINUTES_A_DEAL = 4

# How the cards fall (see the module's docstring); the values give a deal mix of about
# 20 % raspasy, 7 % misère, and contracts of 6 (about half), 7, 8 and 9, one in six or
# seven going down, as a club's sheets show.
RASPASY_BELOW = 0.2  # every hand below this value: raspasy (P = 0.58^3, about a fifth)
MISERE_SHARE = 0.09
LEVEL_STEPS = (1.1, 1.7, 2.3)  # the best hand's value above RASPASY_BELOW: 7, 8, 9
WHIST_NEEDS = {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}  # the defence's tricks a whist needs (Sochi)


def logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


@dataclass(frozen=True)
class Played:
    """One pulka of the simulated club, as the archive would hold it."""

    game: str
    start_utc: int
    end_utc: int
    players: tuple[int, ...]  # the players' numbers, in seat order
    deals: int
    results: tuple[int, ...]  # rounded whists [Code 4.2.12], in seat order
    kind: str  # "evening" or "tournament"
    convention: str = "sochi"


def named(counts: dict[str, int]) -> str:
    return " ".join(f"{p}={n}" for p, n in counts.items())


def share(rng: random.Random, tricks: int, weights: dict[str, float]) -> dict[str, int]:
    """``tricks`` tricks shared one by one, each to a player with his weight's chance."""
    out = {p: 0 for p in weights}
    names, w = list(weights), list(weights.values())
    for _ in range(tricks):
        out[rng.choices(names, w)[0]] += 1
    return out


def deal_line(rng: random.Random, active: Sequence[str], skill: dict[str, float]) -> str:
    """One deal of the three players in the auction (in turn order from the forehand),
    as the table says it (``deal_line``'s outcome form, the tricks named)."""
    hand = {p: rng.gauss(0.0, 1.0) for p in active}
    best = max(active, key=lambda p: hand[p])
    if hand[best] < RASPASY_BELOW:
        return "rasp " + named(share(rng, 10, {p: math.exp(0.7 * hand[p] - 0.6 * skill[p]) for p in active}))
    k = list(active).index(best)
    first, second = active[(k + 1) % 3], active[(k + 2) % 3]  # the defender after the declarer calls first
    edge = skill[best] - (skill[first] + skill[second]) / 2
    if rng.random() < MISERE_SHARE:
        taken = 0 if rng.random() < logistic(1.6 + 1.2 * edge) else 1 + int(rng.random() < 0.3)
        return f"{best} miz {best}={taken}"
    value = hand[best] - RASPASY_BELOW
    level = 6 + sum(value > step for step in LEVEL_STEPS)
    declared = min(9, level + int(rng.random() < logistic(-2.6 - 1.5 * skill[best])))
    tricks = max(0, min(10, round(level + 0.6 + rng.gauss(0.0, 0.9) + 0.8 * edge)))
    defence = 10 - tricks
    suit = rng.choice("SCDH")
    calls = []
    for p in (first, second):
        # He judges what the defence will take; a stronger player misjudges less.
        judged = defence + rng.gauss(0.0, 1.6 * math.exp(-0.8 * skill[p]))
        calls.append("w" if judged >= WHIST_NEEDS[declared] + 0.5 * (declared == 6) else "p")
    if calls == ["p", "p"]:
        return f"{best} {declared}{suit} p p"
    split = share(rng, defence, {p: math.exp(0.4 * hand[p] + 0.5 * skill[p]) for p in (first, second)})
    return f"{best} {declared}{suit} {' '.join(calls)} {named({best: tricks, **split})}"


class Clock:
    """The events' times: a pulka's deals four minutes apart from its start."""

    def __init__(self, start_utc: int) -> None:
        self.now = start_utc

    def tick(self) -> None:
        self.now += MINUTES_A_DEAL * 60 * 10**6

    def __call__(self) -> str:
        from datetime import datetime, timezone

        return datetime.fromtimestamp(self.now / 1e6, tz=timezone.utc).isoformat(timespec="seconds")


def play(rng: random.Random, game: str, seated: Sequence[int], skill: Sequence[float], start_utc: int,
         convention: str, cap: int | None, kind: str) -> Played:
    """One pulka played to its end through the ledger: to 20, or to ``cap`` deals."""
    names = tuple(f"P{i:02d}" for i in seated)
    skills = {n: skill[i] for n, i in zip(names, seated, strict=True)}
    clock = Clock(start_utc)
    _, started = start_stream(1, GameStarted(game=game, players=names, pulya=20, convention=convention), clock)
    assert isinstance(started, GameStarted)
    state: GameState = PULKA.fold([started])
    deals = 0
    while not game_result(state, cap).over:
        if deals >= 90:  # a pulka that will not end: abandoned by agreement [Code 4.2.3]
            judge_events(state, PULKA.decide, [(None, Abandoned(agreed_by=names))], clock)
            break
        opening = state.next_deal()
        active = [opening.names[b] for b in opening.bidders]
        line = deal_line(rng, active, skills)
        judge_events(state, PULKA.decide, ((None, e) for e in deal_events(state, line)), clock)
        clock.tick()
        deals += 1
    result = game_result(state, cap)
    return Played(game, start_utc, clock.now, tuple(seated), result.deals,
                  tuple(result.whists[n] for n in names), kind, convention)


def tables_of(count: int) -> list[int]:
    """Table sizes seating ``count`` players at tables of three and four (as many fours
    as leave the rest in threes); five players: one table of four, one sits out."""
    if count < 3:
        return []
    if count == 5:
        return [4]
    fours = {0: 0, 1: 1, 2: 2}[count % 3]
    threes = (count - 4 * fours) // 3
    return [4] * fours + [3] * threes


@dataclass
class Club:
    """The club's players, their true skills now, and what they have played."""

    seed: int
    players: int = 12
    skill_sd: float = 0.5
    drift: float = 0.02  # the skills' random walk between meetings, in units of skill_sd
    rng: random.Random = field(init=False)
    skill: list[float] = field(init=False)
    attendance: list[float] = field(init=False)
    joins: list[int] = field(init=False)  # the meeting at which each player first comes
    history: list[Played] = field(default_factory=list)
    played: list[int] = field(init=False)
    meeting: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.skill = [self.rng.gauss(0.0, self.skill_sd) for _ in range(self.players)]
        # Three players in four are regulars; the others come now and then.
        self.attendance = [self.rng.uniform(0.6, 0.95) if i % 4 else self.rng.uniform(0.1, 0.3)
                           for i in range(self.players)]
        founders = self.players * 2 // 3
        self.joins = [0 if i < founders else self.rng.randrange(1, 60) for i in range(self.players)]
        self.played = [0] * self.players

    def day_utc(self) -> int:
        """Meetings twice a week (on days 0, 3, 7, 10, ...), from 2024-01-01 at 19:00 UTC."""
        return 1_704_135_600 * 10**6 + (self.meeting * 7 // 2) * DAY

    def meet(self) -> None:
        """One meeting: an evening, or (every fourth) a tournament day."""
        come = [i for i in range(self.players)
                if self.rng.random() < self.attendance[i] and self.joins[i] <= self.meeting]
        self.rng.shuffle(come)
        start = self.day_utc()
        if self.meeting % 4 == 3:
            self._tournament(come, start)
        else:
            convention = "leningrad" if self.rng.random() < 1 / 3 else "sochi"
            for t, seated in enumerate(seat(come, tables_of(len(come)))):
                self._record(play(self.rng, f"m{self.meeting}-t{t}", seated, self.skill, start, convention,
                                  None, "evening"))
        for i in range(self.players):
            self.skill[i] += self.rng.gauss(0.0, self.drift * self.skill_sd)
        self.meeting += 1

    def _tournament(self, come: list[int], start: int) -> None:
        cap = self.rng.choice((8, 12))
        standing = {i: 0 for i in come}
        order = list(come)
        for tour in range(3):
            if tour:  # Swiss: by the day's standings, the leaders together
                order = sorted(come, key=lambda i: (-standing[i], i))
            t0 = start + tour * (cap + 2) * MINUTES_A_DEAL * 60 * 10**6
            for t, seated in enumerate(seat(order, tables_of(len(order)))):
                p = play(self.rng, f"m{self.meeting}-r{tour + 1}-t{t}", seated, self.skill, t0, "sochi", cap,
                         "tournament")
                self._record(p)
                for i, r in zip(p.players, p.results, strict=True):
                    standing[i] += r

    def _record(self, p: Played) -> None:
        self.history.append(p)
        for i in p.players:
            self.played[i] += 1

    @property
    def mean_played(self) -> float:
        """The pulkas a member has played, on average over those who have joined."""
        joined = [n for i, n in enumerate(self.played) if self.joins[i] <= self.meeting]
        return sum(joined) / len(joined)


def seat(order: Sequence[int], sizes: Sequence[int]) -> Iterator[list[int]]:
    at = 0
    for size in sizes:
        yield list(order[at:at + size])
        at += size


@dataclass(frozen=True)
class Horizon:
    """The club when its players had played ``pulkas`` each on average: how many of its
    pulkas were played by then, the true skills then, and held-out pulkas."""

    pulkas: int
    upto: int  # the first ``upto`` pulkas of the history
    skill: tuple[float, ...]
    held_out: tuple[Played, ...]
    rated: tuple[int, ...]  # the players who have played by then


@dataclass(frozen=True)
class Simulated:
    seed: int
    history: tuple[Played, ...]
    horizons: tuple[Horizon, ...]


def held_out(club: Club, rated: Sequence[int], tables: int, seed: int) -> tuple[Played, ...]:
    """Pulkas of the players who have played, with the skills of now, seated at random
    (their own random numbers, so that the club's history does not depend on them), for
    nobody's rating."""
    rng = random.Random(seed)
    out = []
    start = club.day_utc() + DAY // 2
    for t in range(tables):
        size = rng.choice((3, 3, 4))
        seated = rng.sample(list(rated), size)
        cap = rng.choice((None, None, 8, 12))
        convention = "leningrad" if cap is None and rng.random() < 1 / 3 else "sochi"
        out.append(play(rng, f"held-{t}", seated, club.skill, start, convention, cap,
                        "evening" if cap is None else "tournament"))
    return tuple(out)


def simulate(seed: int, horizons: Sequence[int] = (10, 40, 160), players: int = 12, skill_sd: float = 0.5,
             held: int = 24) -> Simulated:
    """A club played to each horizon (pulkas a player, on average), with ``held``
    held-out pulkas at each."""
    club = Club(seed, players, skill_sd)
    marks = []
    for k, h in enumerate(sorted(horizons)):
        while club.mean_played < h:
            club.meet()
        rated = tuple(i for i in range(players) if club.played[i])
        marks.append(Horizon(h, len(club.history), tuple(club.skill), held_out(club, rated, held, seed * 1000 + k),
                             rated))
    return Simulated(seed, tuple(club.history), tuple(marks))

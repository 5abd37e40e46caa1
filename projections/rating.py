"""The club rating: every pulka over is one free-for-all match of its players.

A pure fold, like every projection: ``rate_matches`` takes the archive's matches in
their order and gives each player's rating change in each match; ``table`` and
``rating_history`` read those changes for ``pulka rating`` and ``pulka rating NAME``.
The matches come from the read model the command side keeps (``ledger.views.rating``)
or, for a point in time or a convention, from the archive's results as they stood
then; the fold does not care which, so the kept view can be checked against a fresh
fold of the same matches.

The model is OpenSkill's Plackett-Luce model (Weng and Lin, "A Bayesian
Approximation Method for Online Ranking", JMLR 12, 2011), from the ``openskill``
package: it rates free-for-all matches of any number of players from their order,
ties included, is deterministic (no sampling), and is not patented (TrueSkill is;
Glicko-2 rates two players at a time). Its parameters, and why (docs/conventions.md,
"The club rating"):

- ``MU`` 25 and ``SIGMA`` 25/3: the package's prior, a newcomer's skill and how unsure
  it is; ``BETA`` 25/6, how much one pulka's result varies around a player's skill
  (the package's default: a single pulka says little, cards decide much of it);
- ``TAU`` 25/300: how much a skill may drift between pulkas, so that a player's
  rating keeps moving after hundreds of pulkas (the package's default);
- ``MARGIN`` 40 whists: the players are ranked by their rounded results [Code
  4.2.12], and the model also takes the results as scores. A lead of up to
  ``MARGIN`` whists is an ordinary win; beyond it the win counts more, by the
  logarithm of the lead over ``MARGIN`` (the model's margin factor). A pulka's
  results commonly spread over some tens of whists, so that only a clear beating
  weighs more.
- The rating shown is the model's ordinal, ``mu - 3 sigma``: a skill the player has
  with 99.7 % certainty. A newcomer starts at 0 and rises as his pulkas make the model
  sure of him.

The matches are taken in the order the pulkas came to be over (the time of the event
that ended them), ties by the game's name; the same archive gives the same ratings
every time. Everyone on the sheet plays a match (a player who joined [Code 3.1.2]
too; a seat held by a substitute counts for its first player, as the archive does).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ledger.vocabulary.names import name_key
from ledger.vocabulary.rules import ALIASES
from ledger.vocabulary.wording import counted
from projections.archive import Alias, Identities, identities

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
TAU = 25.0 / 300.0
MARGIN = 40.0  # whists
Z = 3.0  # the ordinal's standard deviations



@functools.cache
def model() -> Any:
    """The model with these parameters; imported when a match is first rated, so that
    starting a game (which makes the views' tables) does not load it."""
    from openskill.models import PlackettLuce

    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, margin=MARGIN)


PARAMETERS: dict[str, Any] = {
    "model": "openskill PlackettLuce (Weng-Lin)",
    "mu": MU, "sigma": SIGMA, "beta": BETA, "tau": TAU, "margin_whists": MARGIN,
    "rating": "mu - 3 sigma",
    "order": "the time each pulka came to be over, then the game's name",
}


@dataclass(frozen=True)
class Skill:
    """What the model believes of a player: his skill ``mu`` and how unsure it is."""

    mu: float
    sigma: float

    @property
    def rating(self) -> float:
        """The ordinal shown: a skill the player has with 99.7 % certainty."""
        return self.mu - Z * self.sigma


START = Skill(MU, SIGMA)


@dataclass(frozen=True)
class Match:
    """One pulka over: its players in seat order with their rounded results."""

    game: str
    finished_utc: int  # when it came to be over, microseconds since 1970 UTC
    convention: str
    entries: tuple[tuple[str, int], ...]  # (the name as written, rounded whists)

    @property
    def key(self) -> tuple[int, str]:
        """Its place in the order of matches."""
        return self.finished_utc, self.game


@dataclass(frozen=True)
class Change:
    """One player's rating before and after one match."""

    game: str
    finished_utc: int
    player: str  # the player's key (``projections.archive.Identities``)
    name: str  # as written in that game
    whists: int
    place: int  # 1 + the number of players with more whists
    before: Skill
    after: Skill

    @property
    def key(self) -> tuple[int, str]:
        return self.finished_utc, self.game

    @property
    def delta(self) -> float:
        return self.after.rating - self.before.rating


def rate(match: Match, before: Sequence[Skill]) -> list[Skill]:
    """The players' skills after one match, from theirs before it (in seat order)."""
    m = model()
    teams = [[m.rating(mu=s.mu, sigma=s.sigma)] for s in before]
    scores = [float(whists) for _, whists in match.entries]
    rated = m.rate(teams, scores=scores)
    return [Skill(team[0].mu, team[0].sigma) for team in rated]


def changes_of(match: Match, keys: Sequence[str], before: Sequence[Skill]) -> list[Change]:
    """The rating changes of one match, its players' keys and skills before it given."""
    after = rate(match, before)
    results = [w for _, w in match.entries]
    return [
        Change(match.game, match.finished_utc, key, name, whists, 1 + sum(1 for r in results if r > whists),
               b, a)
        for (name, whists), key, b, a in zip(match.entries, keys, before, after, strict=True)
    ]


def ordered(matches: Iterable[Match]) -> list[Match]:
    return sorted(matches, key=lambda m: m.key)


def rate_matches(matches: Iterable[Match], key: Callable[[str], str],
                 start: dict[str, Skill] | None = None) -> list[Change]:
    """Every match in order, each player's skill carried from his last match (``start``:
    the skills before the first of them; a player not in it starts at ``START``)."""
    skills = dict(start or {})
    out: list[Change] = []
    for match in ordered(matches):
        keys = [key(name) for name, _ in match.entries]
        rated = changes_of(match, keys, [skills.get(k, START) for k in keys])
        for change in rated:
            skills[change.player] = change.after
        out.extend(rated)
    return out


def keys_of(aliases: Sequence[Alias]) -> Callable[[str], str]:
    """Who is who by the aliases alone: a name's key, joined by the aliases recorded."""
    return identities((), aliases).key


def select_matches(matches: Iterable[Match], convention: str | None) -> list[Match]:
    """The matches under one convention (a preset's other names accepted)."""
    if convention is None:
        return list(matches)
    wanted = ALIASES.get(convention.lower(), convention.lower())
    return [m for m in matches if m.convention.lower() == wanted]


# -- the table and a player's history ------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """A player's line of the club's table."""

    place: int
    player: str
    skill: Skill
    matches: int
    last_game: str
    trend: tuple[float, ...]  # his rating after each of his matches, oldest first


def table(changes: Sequence[Change], who: Identities) -> list[Line]:
    """The club's table: every rated player by his rating, the highest first (ties by
    name); ``who`` names each key."""
    per: dict[str, list[Change]] = {}
    for change in sorted(changes, key=lambda c: c.key):
        per.setdefault(change.player, []).append(change)
    lines = []
    for key, mine in per.items():
        last = mine[-1]
        lines.append((who.name(key), last.after, len(mine), last.game, tuple(c.after.rating for c in mine)))
    lines.sort(key=lambda x: (-x[1].rating, name_key(x[0]), x[0]))
    return [Line(i, name, skill, n, game, trend) for i, (name, skill, n, game, trend) in enumerate(lines, start=1)]


@dataclass(frozen=True)
class RatingHistory:
    player: str
    changes: tuple[Change, ...]  # oldest first


def rating_history(changes: Sequence[Change], who: Identities, name: str) -> RatingHistory | None:
    """One player's rating, match by match; None when he has played no match."""
    key = who.key(name)
    mine = tuple(sorted((c for c in changes if c.player == key), key=lambda c: c.key))
    return RatingHistory(who.name(key), mine) if mine else None


# -- documents ------------------------------------------------------------------------


def when(micros: int) -> str:
    """A match's time as ISO 8601 in UTC."""
    return datetime.fromtimestamp(micros / 1e6, tz=timezone.utc).isoformat(timespec="seconds")


def _r(x: float) -> float:
    return round(x, 3)


def table_doc(lines: Sequence[Line], describe: str) -> dict[str, Any]:
    return {
        "as_of": describe,
        "model": PARAMETERS,
        "players": [
            {"place": x.place, "player": x.player, "rating": _r(x.skill.rating), "mu": _r(x.skill.mu),
             "sigma": _r(x.skill.sigma), "matches": x.matches, "last_game": x.last_game,
             "trend": [_r(t) for t in x.trend]}
            for x in lines
        ],
    }


def rating_history_doc(h: RatingHistory, describe: str) -> dict[str, Any]:
    return {
        "player": h.player,
        "as_of": describe,
        "model": PARAMETERS,
        "matches": [
            {"game": c.game, "finished": when(c.finished_utc), "as": c.name, "whists": c.whists, "place": c.place,
             "rating_before": _r(c.before.rating), "rating": _r(c.after.rating), "change": _r(c.delta),
             "mu": _r(c.after.mu), "sigma": _r(c.after.sigma)}
            for c in h.changes
        ],
    }


TABLE_COLUMNS = ("place", "player", "rating", "mu", "sigma", "matches", "last_game")
HISTORY_COLUMNS = ("game", "finished", "as", "whists", "place", "rating_before", "rating", "change", "mu", "sigma")


def render_table(lines: Sequence[Line], describe: str) -> str:
    out = [f"club rating ({describe})", ""]
    if not lines:
        return "\n".join(out + ["no pulka over yet"]) + "\n"
    width = max(12, *(len(x.player) + 2 for x in lines))
    out.append(f"{'place':<7}{'player':<{width}}{'rating':>8}{'mu':>8}{'sigma':>7}{'pulkas':>8}  last game")
    for x in lines:
        out.append(f"{x.place:<7}{x.player:<{width}}{x.skill.rating:>8.2f}{x.skill.mu:>8.2f}{x.skill.sigma:>7.2f}"
                   f"{x.matches:>8}  {x.last_game}")
    out.append("")
    out.append("OpenSkill's Plackett-Luce model over every pulka over, in the order they ended, ranked by the "
               "rounded results [Code 4.2.12]; rating = mu - 3 sigma (docs/conventions.md, 'The club rating').")
    return "\n".join(out) + "\n"


def render_rating_history(h: RatingHistory, describe: str) -> str:
    out = [f"{h.player}: rating ({describe})", ""]
    gw = max(6, *(len(c.game) + 2 for c in h.changes))
    out.append(f"{'finished (UTC)':<27}{'game':<{gw}}{'whists':>8}{'place':>7}{'before':>9}{'after':>9}{'change':>9}")
    for c in h.changes:
        out.append(f"{when(c.finished_utc):<27}{c.game:<{gw}}{c.whists:>+8}{c.place:>7}{c.before.rating:>9.2f}"
                   f"{c.after.rating:>9.2f}{c.delta:>+9.2f}")
    last = h.changes[-1].after
    out.append("")
    out.append(f"{counted(len(h.changes), 'pulka')} rated; now {last.rating:.2f} (mu {last.mu:.2f}, sigma {last.sigma:.2f})")
    return "\n".join(out) + "\n"

"""The club rating: every pulka over is one match of its players.

A pure fold, like every projection: ``rate_matches`` takes the archive's matches in
their order and a model (``projections.rating_models``: the club's choice, by default
``whists-per-deal``) and gives each player's move in each match, with what explains it;
``table`` and ``rating_history`` read those moves for ``pulka rating`` and ``pulka
rating NAME``. The matches come from the read model the command side keeps
(``ledger.views.rating``) or, for a point in time or a convention, from the archive's
results as they stood then; the fold does not care which, so the kept view can be
checked against a fresh fold of the same matches.

The order of the matches (docs/conventions.md, "The club rating"): by the time each
pulka came to be over (the event that ended it), then by the time it started, then by
its name compared by code point; the same archive gives the same ratings every time,
on either store. Everyone on the sheet plays the match (a player who joined [Code
3.1.2] too; a seat held by a substitute counts for its first player, as the archive
does). Before each match a player's skill is grown by his absence since his last one
(the model's ``grown``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ledger.vocabulary import language
from ledger.vocabulary.names import name_key
from ledger.vocabulary.rules import ALIASES
from ledger.vocabulary.wording import spoken_count
from projections.archive import Alias, Identities, identities
from projections.rating_models import DEFAULT, RatingModel, Skill, model_of

_ = language._  # every text a person reads, in the language in effect

ORDER = "the time each pulka came to be over, then its start, then its name (by code point)"


@dataclass(frozen=True)
class Match:
    """One pulka over: its players in seat order with their rounded results."""

    game: str
    finished_utc: int  # when it came to be over, microseconds since 1970 UTC
    convention: str
    entries: tuple[tuple[str, int], ...]  # (the name as written, rounded whists)
    started_utc: int = 0
    deals: int = 0  # deals dealt and done
    scale: int = 1  # its whists that make one rating whist: the rule set's gora_whist_multiplier

    @property
    def key(self) -> tuple[int, int, str]:
        """Its place in the order of matches."""
        return self.finished_utc, self.started_utc, self.game


@dataclass(frozen=True)
class Held:
    """A player's skill after his last match, and when that match ended."""

    skill: Skill
    since_utc: int


@dataclass(frozen=True)
class Change:
    """One player's move in one match, and why."""

    game: str
    finished_utc: int
    started_utc: int
    player: str  # the player's key (``projections.archive.Identities``)
    name: str  # as written in that game
    whists: int
    place: int  # 1 + the number of players with more whists
    seats: int  # the players of the match
    deals: int
    before: Skill  # before the match, grown by his absence since his last one
    after: Skill
    expected: float  # the result (whists) or the place expected from the skills before
    opponents: float  # his opponents' mean rating before the match
    share: float  # the share of the surprise the rating took: the uncertainty's share

    @property
    def key(self) -> tuple[int, int, str]:
        return self.finished_utc, self.started_utc, self.game


def changes_of(match: Match, keys: Sequence[str], held: Sequence[Held | None], model: RatingModel) -> list[Change]:
    """The moves of one match, its players' keys and their skills after their last
    matches given (None: a newcomer). A pulka in which one person held two seats (two
    names the club's register joins) is no match between people and moves nobody: the
    register refuses such an alias, and a table seating both, since it exists [club.alias],
    but a store written before it may hold one."""
    if len(set(keys)) < len(keys):
        return []
    begins = match.started_utc or match.finished_utc
    before = [model.start if h is None else model.grown(h.skill, begins - h.since_utc) for h in held]
    results = [w for _, w in match.entries]
    moved = model.rate(results, match.deals, before, match.scale)
    shown = [model.shown(s) for s in before]
    n = len(before)
    out = []
    for i, ((name, whists), key, b, m) in enumerate(zip(match.entries, keys, before, moved, strict=True)):
        others = (sum(shown) - shown[i]) / (n - 1) if n > 1 else 0.0
        place = 1 + sum(1 for r in results if r > whists)
        out.append(Change(match.game, match.finished_utc, match.started_utc, key, name, whists, place, n,
                          match.deals, b, m.after, m.expected, others, m.share))
    return out


def ordered(matches: Iterable[Match]) -> list[Match]:
    return sorted(matches, key=lambda m: m.key)


def rate_matches(matches: Iterable[Match], key: Callable[[str], str], model: RatingModel | None = None,
                 start: Mapping[str, Held] | None = None) -> list[Change]:
    """Every match in order, each player's skill carried from his last match (``start``:
    the skills before the first of them; a player not in it is a newcomer)."""
    chosen = model or default_model()
    held: dict[str, Held] = dict(start or {})
    out: list[Change] = []
    for match in ordered(matches):
        keys = [key(name) for name, _ in match.entries]
        rated = changes_of(match, keys, [held.get(k) for k in keys], chosen)
        for change in rated:
            held[change.player] = Held(change.after, change.finished_utc)
        out.extend(rated)
    return out


def default_model() -> RatingModel:
    return model_of(DEFAULT)


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
    """A player's line of the club's table: his skill now (grown by his absence since
    his last pulka), and that pulka."""

    place: int
    player: str
    skill: Skill
    rating: float
    provisional: bool
    matches: int
    last_game: str
    last_utc: int  # when his last pulka ended
    trend: tuple[float, ...]  # his rating after each of his matches, oldest first


def table(changes: Sequence[Change], who: Identities, model: RatingModel | None = None,
          now_utc: int | None = None) -> list[Line]:
    """The club's table at ``now_utc`` (by default the end of the last match): every
    rated player by his rating, the highest first (ties by name); ``who`` names each key."""
    chosen = model or default_model()
    per: dict[str, list[Change]] = {}
    for change in sorted(changes, key=lambda c: c.key):
        per.setdefault(change.player, []).append(change)
    now = now_utc if now_utc is not None else max((c.finished_utc for c in changes), default=0)
    lines = []
    for key, mine in per.items():
        last = mine[-1]
        skill = chosen.grown(last.after, now - last.finished_utc)
        lines.append((who.name(key), skill, len(mine), last, tuple(chosen.shown(c.after) for c in mine)))
    lines.sort(key=lambda x: (-chosen.shown(x[1]), name_key(x[0]), x[0]))
    return [Line(i, name, skill, chosen.shown(skill), chosen.provisional(skill), n, last.game, last.finished_utc,
                 trend) for i, (name, skill, n, last, trend) in enumerate(lines, start=1)]


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


def model_doc(model: RatingModel) -> dict[str, Any]:
    """The model in effect as the documents name it (docs/conventions.md, "The club rating")."""
    return {"model": model.name, "parameters": model.parameters,
            "rating": "mu - 3 sigma" if model.name == "openskill-places" else "mu",
            "expected": model.expects, "order": ORDER}


def table_doc(lines: Sequence[Line], describe: str, model: RatingModel | None = None) -> dict[str, Any]:
    chosen = model or default_model()
    return {
        "as_of": describe,
        "model": model_doc(chosen),
        "players": [
            {"place": x.place, "player": x.player, "rating": _r(x.rating), "mu": _r(x.skill.mu),
             "sigma": _r(x.skill.sigma), "provisional": x.provisional, "matches": x.matches,
             "last_game": x.last_game, "last_played": when(x.last_utc)[:10], "trend": [_r(t) for t in x.trend]}
            for x in lines
        ],
    }


def rating_history_doc(h: RatingHistory, describe: str, model: RatingModel | None = None) -> dict[str, Any]:
    chosen = model or default_model()
    return {
        "player": h.player,
        "as_of": describe,
        "model": model_doc(chosen),
        "matches": [
            {"game": c.game, "finished": when(c.finished_utc), "as": c.name, "whists": c.whists, "place": c.place,
             "of": c.seats, "deals": c.deals, "expected": _r(c.expected), "opponents": _r(c.opponents),
             "share": _r(c.share), "rating_before": _r(chosen.shown(c.before)), "rating": _r(chosen.shown(c.after)),
             "change": _r(chosen.shown(c.after) - chosen.shown(c.before)), "mu": _r(c.after.mu),
             "sigma_before": _r(c.before.sigma), "sigma": _r(c.after.sigma)}
            for c in h.changes
        ],
    }


TABLE_COLUMNS = ("place", "player", "rating", "mu", "sigma", "provisional", "matches", "last_game", "last_played")
HISTORY_COLUMNS = ("game", "finished", "as", "whists", "place", "of", "deals", "expected", "opponents", "share",
                   "rating_before", "rating", "change", "mu", "sigma_before", "sigma")


def render_table(lines: Sequence[Line], describe: str, model: RatingModel | None = None) -> str:
    chosen = model or default_model()
    out = [_("club rating ({point})").format(point=describe), ""]
    if not lines:
        return "\n".join(out + [_("no pulka over yet")]) + "\n"
    width = max(12, *(len(x.player) + 4 for x in lines))
    out.append(f"{_('place'):<7}{_('player'):<{width}}{_('rating'):>8}{'σ':>7}{_('pulkas'):>8}  {_('last pulka')}")
    for x in lines:
        mark = " ?" if x.provisional else ""
        out.append(f"{x.place:<7}{x.player + mark:<{width}}{x.rating:>+8.2f}{x.skill.sigma:>7.2f}{x.matches:>8}  "
                   f"{when(x.last_utc)[:10]} {x.last_game}")
    out.append("")
    out.append(explained(chosen))
    return "\n".join(out) + "\n"


def explained(model: RatingModel) -> str:
    """What the table's numbers are, under the model in effect."""
    p = model.parameters
    if model.name == "openskill-places":
        return _("The model {model}: OpenSkill's Plackett-Luce by places (openskill 6.2.0), the results as scores "
                 "with a margin of {margin} whists; rating = mu - 3 sigma (docs/conventions.md, 'The club "
                 "rating').").format(model=model.name, margin=p["margin"])
    return _("The model {model}: the rating is the whists a player wins a deal against the club's average "
             "player, σ how unsure that is; ? marks a provisional rating (σ above {bound}); σ grows while a "
             "player is away (docs/conventions.md, 'The club rating').").format(model=model.name,
                                                                                 bound=p["provisional"])


def move_line(c: Change, model: RatingModel) -> str:
    """Why one pulka moved his rating, in one line: expected, got, the opponents, the
    uncertainty's share, the move."""
    before, after = model.shown(c.before), model.shown(c.after)
    if model.expects == "place":
        expected = _("expected place {expected:.1f}, got {place} of {seats}").format(
            expected=c.expected, place=c.place, seats=c.seats)
    else:
        expected = _("expected {expected:+d}, got {whists:+d} ({place} of {seats})").format(
            expected=round(c.expected) + 0, whists=c.whists, place=c.place, seats=c.seats)
    return _("{expected}; opponents {opponents:+.2f}; σ {sigma_before:.2f}→{sigma:.2f}, {share:.0%} taken; "
             "{before:+.2f} → {after:+.2f} ({change:+.2f})").format(
        expected=expected, opponents=c.opponents, sigma_before=c.before.sigma, sigma=c.after.sigma, share=c.share,
        before=before, after=after, change=after - before)


def render_rating_history(h: RatingHistory, describe: str, model: RatingModel | None = None) -> str:
    chosen = model or default_model()
    out = [_("{player}: rating ({point})").format(player=h.player, point=describe), ""]
    gw = max(6, *(len(c.game) + 2 for c in h.changes))
    out.append(f"{_('finished (UTC)'):<22}{_('game'):<{gw}}{_('deals'):>6}  {_('why it moved')}")
    for c in h.changes:
        out.append(f"{when(c.finished_utc)[:16].replace('T', ' '):<22}{c.game:<{gw}}{c.deals:>6}  "
                   f"{move_line(c, chosen)}")
    last = h.changes[-1].after
    out.append("")
    out.append(_("{pulkas} rated; now {rating:+.2f} (mu {mu:.2f}, σ {sigma:.2f})").format(
        pulkas=spoken_count(len(h.changes), "pulka"), rating=chosen.shown(last), mu=last.mu, sigma=last.sigma))
    return "\n".join(out) + "\n"

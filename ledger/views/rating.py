"""The club rating as a read model, kept by the archive's projection in its own
transaction (``ledger.views.archive``): the same position, the same crash safety.

Two tables beside the archive's:

- ``rating_matches``: every pulka over, with the time it came to be over and its
  players' rounded results (``projections.rating.Match``);
- ``rating_changes``: each player's skill before and after each match.

``keep`` takes the results the archive has just written, in the store's order. A pulka
that comes to be over after every match kept is rated at once from its players' last
skills: a few rows read and written, however large the archive. A pulka whose result
changes after it was rated (a correction counted late, a pulka reopened), one that ends
with an earlier time than a match kept (an old log imported) and an alias move the
matches after it: the changes from that match on are deleted and folded again in
order, exactly as a full fold would (``projections.rating.rate_matches``; a test
compares them).

The readers give the fold's inputs: the matches kept now, or as the archive's results
stood at a past time (``matches_as_of``), so that ``pulka rating --at`` is recomputed the
same way every time.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ledger.store import layout
from projections.archive import Alias, GameResult
from projections.rating import START, Change, Match, Skill, changes_of, keys_of

TABLES = layout.RATING  # the store's layout names every table of its database

CREATE = (
    "CREATE TABLE IF NOT EXISTS {rating_matches} (game {text} PRIMARY KEY, finished_utc BIGINT NOT NULL, "
    "entries {text} NOT NULL)",
    "CREATE INDEX IF NOT EXISTS rating_matches_order ON {rating_matches} (finished_utc, game)",
    "CREATE TABLE IF NOT EXISTS {rating_changes} (game {text} NOT NULL, player {text} NOT NULL, "
    "finished_utc BIGINT NOT NULL, name {text} NOT NULL, whists BIGINT NOT NULL, place BIGINT NOT NULL, "
    "mu_before DOUBLE PRECISION NOT NULL, sigma_before DOUBLE PRECISION NOT NULL, "
    "mu DOUBLE PRECISION NOT NULL, sigma DOUBLE PRECISION NOT NULL, PRIMARY KEY (game, player))",
    "CREATE INDEX IF NOT EXISTS rating_changes_player ON {rating_changes} (player, finished_utc, game)",
)

Select = Callable[..., list[tuple[Any, ...]]]  # a view's select(statement, params)


class Tx(Protocol):
    """One transaction of the view, in the view's SQL (``?`` placeholders, ``{table}``)."""

    def execute(self, statement: str, params: Sequence[Any] = ()) -> None: ...
    def query(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...


@dataclass(frozen=True)
class ArchivedResult:
    """A game's result as the archive has just written it, and whether it was over before."""

    game: str
    at_utc: int
    result: GameResult
    was_over: bool


Key = tuple[int, str]


def keep(tx: Tx, results: Sequence[ArchivedResult], aliases_changed: bool) -> None:
    """Bring the rating up to the archive's results just written."""
    if not results and not aliases_changed:
        return
    keeper = _Keeper(tx)
    if aliases_changed:
        keeper.refold_from((-(2**62), ""))
    for result in results:
        keeper.take(result)
    keeper.finish()


class _Keeper:
    def __init__(self, tx: Tx) -> None:
        self.tx = tx
        self.pending: Key | None = None  # fold again from this match on, at the end
        self.skills: dict[str, Skill] = {}
        self._key: Callable[[str], str] | None = None

    def key(self, name: str) -> str:
        if self._key is None:
            rows = self.tx.query("SELECT name, same_as FROM {archive_aliases} ORDER BY seq")
            self._key = keys_of([Alias(name, same_as) for name, same_as in rows])
        return self._key(name)

    def refold_from(self, key: Key) -> None:
        self.pending = key if self.pending is None else min(self.pending, key)

    def take(self, o: ArchivedResult) -> None:
        found = self.tx.query("SELECT finished_utc, entries FROM {rating_matches} WHERE game = ?", (o.game,))
        entries = json.dumps(list(o.result.whists.items()), ensure_ascii=False)
        if not o.result.over:
            if found:
                self.tx.execute("DELETE FROM {rating_matches} WHERE game = ?", (o.game,))
                self.refold_from((int(found[0][0]), o.game))
            return
        if found:
            if found[0][1] != entries:
                self.tx.execute("UPDATE {rating_matches} SET entries = ? WHERE game = ?", (entries, o.game))
                self.refold_from((int(found[0][0]), o.game))
            return
        self.tx.execute("INSERT INTO {rating_matches} VALUES (?, ?, ?)", (o.game, o.at_utc, entries))
        key = (o.at_utc, o.game)
        if self.pending is not None or self._later_than(key):
            self.refold_from(key)
        else:
            self.rate(Match(o.game, o.at_utc, "", tuple(o.result.whists.items())))

    def _later_than(self, key: Key) -> bool:
        return bool(self.tx.query(
            "SELECT 1 FROM {rating_matches} WHERE finished_utc > ? OR (finished_utc = ? AND game > ?) LIMIT 1",
            (key[0], key[0], key[1]),
        ))

    def skill(self, player: str) -> Skill | None:
        """The player's skill after his last match kept (before the one being rated)."""
        if player not in self.skills:
            rows = self.tx.query(
                "SELECT mu, sigma FROM {rating_changes} WHERE player = ? "
                "ORDER BY finished_utc DESC, game DESC LIMIT 1", (player,))
            if not rows:
                return None
            self.skills[player] = Skill(float(rows[0][0]), float(rows[0][1]))
        return self.skills[player]

    def rate(self, match: Match) -> None:
        keys = [self.key(name) for name, _ in match.entries]
        before = [self.skill(k) or START for k in keys]
        for c in changes_of(match, keys, before):
            self.skills[c.player] = c.after
            self.tx.execute(
                "INSERT INTO {rating_changes} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (c.game, c.player, c.finished_utc, c.name, c.whists, c.place, c.before.mu, c.before.sigma,
                 c.after.mu, c.after.sigma),
            )

    def finish(self) -> None:
        """Fold the matches from the earliest one moved on again, in order."""
        if self.pending is None:
            return
        utc, game = self.pending
        where = "finished_utc > ? OR (finished_utc = ? AND game >= ?)"
        self.tx.execute(f"DELETE FROM {{rating_changes}} WHERE {where}", (utc, utc, game))
        self.skills = {}
        rows = self.tx.query(
            f"SELECT game, finished_utc, entries FROM {{rating_matches}} WHERE {where} ORDER BY finished_utc, game",
            (utc, utc, game))
        for g, finished, entries in rows:
            self.rate(Match(g, int(finished), "", _entries(entries)))
        self.pending = None


def _entries(text: str) -> tuple[tuple[str, int], ...]:
    return tuple((str(name), int(whists)) for name, whists in json.loads(text))


# -- reading --------------------------------------------------------------------------


def kept_matches(select: Select) -> list[Match]:
    """The matches the view keeps now, with their conventions."""
    rows = select("SELECT m.game, m.finished_utc, g.convention, m.entries FROM {rating_matches} m "
                  "JOIN {archive_games} g ON g.game = m.game")
    return [Match(game, int(utc), convention, _entries(entries)) for game, utc, convention, entries in rows]


def kept_changes(select: Select) -> list[Change]:
    """Every rating change the view keeps."""
    rows = select("SELECT game, player, finished_utc, name, whists, place, mu_before, sigma_before, mu, sigma "
                  "FROM {rating_changes}")
    return [
        Change(game, int(utc), player, name, int(whists), int(place), Skill(float(mb), float(sb)),
               Skill(float(mu), float(sigma)))
        for game, player, utc, name, whists, place, mb, sb, mu, sigma in rows
    ]


def matches_as_of(select: Select, as_of: int) -> list[Match]:
    """The matches as the archive's results stood at ``as_of`` (microseconds UTC): every
    pulka over then, with its result then, as of the time it had come to be over (after
    it was last in play)."""
    rows = select(
        "SELECT g.game, g.convention, r.whists, ("
        " SELECT f.at_utc FROM {archive_results} f WHERE f.game = g.game AND f.at_utc <= ? "
        " AND f.status <> 'playing' AND f.version > COALESCE(("
        "  SELECT MAX(p.version) FROM {archive_results} p WHERE p.game = g.game AND p.at_utc <= ? "
        "  AND p.status = 'playing'), 0) ORDER BY f.version LIMIT 1) "
        "FROM {archive_games} g JOIN {archive_results} r ON r.game = g.game AND r.version = ("
        " SELECT MAX(x.version) FROM {archive_results} x WHERE x.game = g.game AND x.at_utc <= ?) "
        "WHERE r.status <> 'playing'",
        (as_of, as_of, as_of),
    )
    return [Match(game, int(utc), convention, tuple((str(p), int(w)) for p, w in json.loads(whists).items()))
            for game, convention, whists, utc in rows]

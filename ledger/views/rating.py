"""The club rating as a read model, kept by the archive's projection in its own
transaction (``ledger.views.archive``): the same position, the same crash safety.

Three tables beside the archive's:

- ``rating_pulkas``: every pulka over, with the time it came to be over and the time
  it started, its deals, the whists that make one of the rating's
  (``projections.rating.Match.scale``) and its players' rounded results;
- ``rating_moves``: each player's skill before and after each match, and what
  explains the move (``projections.rating.Change``);
- ``rating_models``: the club's choices of a model (``RatingModelChosen`` in its log),
  in the order recorded; the last one is in effect (none: the default).

``keep`` takes the results the archive has just written, in the store's order. A pulka
that comes to be over after every match kept is rated at once from its players' last
skills: a few rows read and written, however large the archive. A pulka whose result
changes after it was rated (a correction counted late, a pulka reopened), one that ends
before a match kept (an old log imported) and an alias move the matches after it: the
moves from that match on are deleted and folded again in order, exactly as a full fold
would (``projections.rating.rate_matches``; a test compares them); a change of the
model folds every match again. Every comparison of the matches' order is made here, by
code point, never by the database's collation.

The readers give the fold's inputs: the matches kept now, or as the archive's results
stood at a past time (``matches_then``: by the time the events say they were played, or
by the time the store held them), so that ``pulka rating --at`` and ``--as-known`` are
recomputed the same way every time.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ledger.store import layout
from projections.archive import Alias, GameResult
from projections.rating import Change, Held, Match, changes_of, keys_of
from projections.rating_models import DEFAULT, ParameterError, RatingModel, Skill, model_of

TABLES = layout.RATING  # the store's layout names every table of its database

CREATE = (
    "CREATE TABLE IF NOT EXISTS {rating_pulkas} (game {text} PRIMARY KEY, finished_utc BIGINT NOT NULL, "
    "started_utc BIGINT NOT NULL, deals BIGINT NOT NULL, scale BIGINT NOT NULL, entries {text} NOT NULL)",
    "CREATE INDEX IF NOT EXISTS rating_pulkas_order ON {rating_pulkas} (finished_utc)",
    "CREATE TABLE IF NOT EXISTS {rating_moves} (game {text} NOT NULL, player {text} NOT NULL, "
    "finished_utc BIGINT NOT NULL, started_utc BIGINT NOT NULL, name {text} NOT NULL, whists BIGINT NOT NULL, "
    "place BIGINT NOT NULL, seats BIGINT NOT NULL, deals BIGINT NOT NULL, "
    "mu_before DOUBLE PRECISION NOT NULL, sigma_before DOUBLE PRECISION NOT NULL, "
    "mu DOUBLE PRECISION NOT NULL, sigma DOUBLE PRECISION NOT NULL, expected DOUBLE PRECISION NOT NULL, "
    "opponents DOUBLE PRECISION NOT NULL, share DOUBLE PRECISION NOT NULL, PRIMARY KEY (game, player))",
    "CREATE INDEX IF NOT EXISTS rating_moves_player ON {rating_moves} (player, finished_utc)",
    "CREATE TABLE IF NOT EXISTS {rating_models} (seq BIGINT PRIMARY KEY, at_utc BIGINT NOT NULL, "
    "known_utc BIGINT NOT NULL, model {text} NOT NULL, parameters {text} NOT NULL)",
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


Key = tuple[int, int, str]
FIRST: Key = (-(2**62), -(2**62), "")


def keep(tx: Tx, results: Sequence[ArchivedResult], everything_moved: bool) -> None:
    """Bring the rating up to the archive's results just written; ``everything_moved``:
    an alias or a change of model, which fold every match again."""
    if not results and not everything_moved:
        return
    keeper = _Keeper(tx)
    if everything_moved:
        keeper.refold_from(FIRST)
    for result in results:
        keeper.take(result)
    keeper.finish()


class _Keeper:
    def __init__(self, tx: Tx) -> None:
        self.tx = tx
        self.pending: Key | None = None  # fold again from this match on, at the end
        self.held: dict[str, Held | None] = {}
        self._key: Callable[[str], str] | None = None
        self._model: RatingModel | None = None

    def key(self, name: str) -> str:
        if self._key is None:
            rows = self.tx.query("SELECT name, same_as FROM {archive_aliases} ORDER BY seq")
            self._key = keys_of([Alias(name, same_as) for name, same_as in rows])
        return self._key(name)

    @property
    def model(self) -> RatingModel:
        if self._model is None:
            self._model = chosen_model(self.tx.query("SELECT seq, model, parameters FROM {rating_models}"))
        return self._model

    def refold_from(self, key: Key) -> None:
        self.pending = key if self.pending is None else min(self.pending, key)

    def take(self, o: ArchivedResult) -> None:
        found = self.tx.query("SELECT finished_utc, started_utc, deals, entries FROM {rating_pulkas} WHERE game = ?",
                              (o.game,))
        entries = json.dumps(list(o.result.whists.items()), ensure_ascii=False)
        if not o.result.over:
            if found:
                self.tx.execute("DELETE FROM {rating_pulkas} WHERE game = ?", (o.game,))
                self.refold_from((int(found[0][0]), int(found[0][1]), o.game))
            return
        if found:
            if found[0][3] != entries or int(found[0][2]) != o.result.deals:
                self.tx.execute("UPDATE {rating_pulkas} SET entries = ?, deals = ? WHERE game = ?",
                                (entries, o.result.deals, o.game))
                self.refold_from((int(found[0][0]), int(found[0][1]), o.game))
            return
        started, scale = self.game(o.game)
        self.tx.execute("INSERT INTO {rating_pulkas} VALUES (?, ?, ?, ?, ?, ?)",
                        (o.game, o.at_utc, started, o.result.deals, scale, entries))
        match = Match(o.game, o.at_utc, "", tuple(o.result.whists.items()), started, o.result.deals, scale)
        if self.pending is not None or self._later_than(match.key):
            self.refold_from(match.key)
        else:
            self.rate(match)

    def game(self, game: str) -> tuple[int, int]:
        """When a game started, and the whists of it that make one of the rating's."""
        rows = self.tx.query("SELECT g.started_utc, COALESCE(r.scale, 1) FROM {archive_games} g "
                             "LEFT JOIN {archive_rules} r ON r.game = g.game WHERE g.game = ?", (game,))
        return (int(rows[0][0]), int(rows[0][1])) if rows else (0, 1)

    def _later_than(self, key: Key) -> bool:
        """Whether a match kept comes after ``key`` (compared here, by code point)."""
        rows = self.tx.query("SELECT finished_utc, started_utc, game FROM {rating_pulkas} WHERE finished_utc >= ?",
                             (key[0],))
        return any((int(f), int(s), str(g)) > key for f, s, g in rows)

    def last(self, player: str) -> Held | None:
        """The player's skill after his last match kept (before the one being rated)."""
        if player not in self.held:
            rows = self.tx.query(
                "SELECT finished_utc, started_utc, game, mu, sigma FROM {rating_moves} WHERE player = ? AND "
                "finished_utc = (SELECT MAX(finished_utc) FROM {rating_moves} WHERE player = ?)", (player, player))
            if not rows:
                self.held[player] = None
            else:
                f, _, _, mu, sigma = max(rows, key=lambda r: (int(r[0]), int(r[1]), str(r[2])))
                self.held[player] = Held(Skill(float(mu), float(sigma)), int(f))
        return self.held[player]

    def rate(self, match: Match) -> None:
        keys = [self.key(name) for name, _ in match.entries]
        for c in changes_of(match, keys, [self.last(k) for k in keys], self.model):
            self.held[c.player] = Held(c.after, c.finished_utc)
            self.tx.execute(
                "INSERT INTO {rating_moves} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (c.game, c.player, c.finished_utc, c.started_utc, c.name, c.whists, c.place, c.seats, c.deals,
                 c.before.mu, c.before.sigma, c.after.mu, c.after.sigma, c.expected, c.opponents, c.share),
            )

    def finish(self) -> None:
        """Fold the matches from the earliest one moved on again, in order."""
        if self.pending is None:
            return
        start = self.pending
        rows = self.tx.query("SELECT game, finished_utc, started_utc, deals, scale, entries FROM {rating_pulkas} "
                             "WHERE finished_utc >= ?", (start[0],))
        matches = sorted((m for m in (_match(r, "") for r in rows) if m.key >= start), key=lambda m: m.key)
        moved = self.tx.query("SELECT game, finished_utc, started_utc FROM {rating_moves} WHERE finished_utc >= ?",
                              (start[0],))
        for game in sorted({str(g) for g, f, s in moved if (int(f), int(s), str(g)) >= start}):
            self.tx.execute("DELETE FROM {rating_moves} WHERE game = ?", (game,))
        self.held = {}
        for match in matches:
            self.rate(match)
        self.pending = None


def _entries(text: str) -> tuple[tuple[str, int], ...]:
    return tuple((str(name), int(whists)) for name, whists in json.loads(text))


def _match(row: Sequence[Any], convention: str) -> Match:
    game, finished, started, deals, scale, entries = row
    return Match(str(game), int(finished), convention, _entries(entries), int(started), int(deals), int(scale))


def chosen_model(rows: Sequence[tuple[Any, ...]]) -> RatingModel:
    """The model in effect: the last choice recorded (``(seq, model, parameters)`` rows),
    else the default. A choice the ledger would refuse is never stored; one that no
    longer names a model of this ledger falls back to the default."""
    if not rows:
        return model_of(DEFAULT)
    _, name, parameters = max(rows, key=lambda r: int(r[0]))
    try:
        return model_of(str(name), json.loads(parameters))
    except ParameterError:
        return model_of(DEFAULT)


# -- reading --------------------------------------------------------------------------


def kept_matches(select: Select) -> list[Match]:
    """The matches the view keeps now, with their conventions."""
    rows = select("SELECT m.game, m.finished_utc, m.started_utc, m.deals, m.scale, m.entries, g.convention "
                  "FROM {rating_pulkas} m JOIN {archive_games} g ON g.game = m.game")
    return [_match(r[:6], str(r[6])) for r in rows]


def kept_changes(select: Select) -> list[Change]:
    """Every rating move the view keeps."""
    rows = select("SELECT game, finished_utc, started_utc, player, name, whists, place, seats, deals, mu_before, "
                  "sigma_before, mu, sigma, expected, opponents, share FROM {rating_moves}")
    return [
        Change(str(game), int(f), int(s), str(player), str(name), int(whists), int(place), int(seats), int(deals),
               Skill(float(mb), float(sb)), Skill(float(mu), float(sigma)), float(e), float(o), float(k))
        for game, f, s, player, name, whists, place, seats, deals, mb, sb, mu, sigma, e, o, k in rows
    ]


def model_then(select: Select, then: int | None, known: bool = False) -> RatingModel:
    """The model in effect now, or at ``then`` (microseconds UTC): by the time its choice
    says it was made, or (``known``) by the time the store held it."""
    if then is None:
        return chosen_model(select("SELECT seq, model, parameters FROM {rating_models}"))
    column = "known_utc" if known else "at_utc"
    return chosen_model(select(f"SELECT seq, model, parameters FROM {{rating_models}} WHERE {column} <= ?", (then,)))


def matches_then(select: Select, then: int, known: bool = False) -> list[Match]:
    """The matches as the archive's results stood at ``then`` (microseconds UTC): every
    pulka over then, with its result then, as of the time it had come to be over (after
    it was last in play). By the events' times, or (``known``) by what the store held
    then: the results whose events were stored by then (``archive_known``)."""
    if known:
        upto = ("SELECT {v}.game, {v}.version, {v}.at_utc, {v}.status, {v}.deals, {v}.whists FROM {{archive_results}} "
                "{v} JOIN {{archive_known}} k ON k.stream = {v}.game AND k.version = {v}.version "
                "WHERE k.known_utc <= ?")
    else:
        upto = ("SELECT {v}.game, {v}.version, {v}.at_utc, {v}.status, {v}.deals, {v}.whists FROM {{archive_results}} "
                "{v} WHERE {v}.at_utc <= ?")
    rows = select(upto.format(v="r"), (then,))
    games = {str(g): (int(s), str(c), int(k)) for g, s, c, k in select(
        "SELECT g.game, g.started_utc, g.convention, COALESCE(r.scale, 1) FROM {archive_games} g "
        "LEFT JOIN {archive_rules} r ON r.game = g.game")}
    per: dict[str, list[tuple[int, int, str, int, str]]] = {}
    for game, version, at, status, deals, whists in rows:
        per.setdefault(str(game), []).append((int(version), int(at), str(status), int(deals), str(whists)))
    broken = {str(name) for (name,) in select("SELECT name FROM {archive_broken}")}
    out = []
    for game, results in per.items():
        if game in broken:
            continue  # left out whole, as the archive's rows are
        results.sort()
        *_, (_, _, status, deals, whists) = results
        if status == "playing" or game not in games:
            continue
        playing = max((v for v, _, s, _, _ in results if s == "playing"), default=0)
        over_at = next(at for v, at, s, _, _ in results if v > playing and s != "playing")
        started, convention, scale = games[game]
        out.append(Match(game, over_at, convention, tuple((str(p), int(w)) for p, w in json.loads(whists).items()),
                         started, deals, scale))
    return out

"""The read models that span many streams: the club archive (every pulka's result as it
stood after each event that changed it, the tournaments' deal caps, the aliases),
kept by an ``eventsourcing.projection`` projection that follows the store's event order.

- ``ArchiveProjection`` (``ledger.views.projection``) is an
  ``eventsourcing.projection.Projection``: for each stored event it folds the event into
  its game (``projections.archive.game_result``) and writes what changed into the view,
  with the event's position, through the view's tracking recorder, in one transaction.
  After a crash nothing half-done remains, and the next runner starts after the last
  position saved.
- The views are tracking recorders (``ledger.views.recorders``: ``SQLiteArchiveView``,
  ``PostgresArchiveView``): eventsourcing's own, with the view's tables beside its
  tracking table. Every write is idempotent (rows keyed by game and event number, the
  position only moves forward), so two followers at once never corrupt the view.
- ``Views`` (here) runs the projection with eventsourcing's ``ProjectionRunner`` machinery
  (``ArchiveRunner``): ``catch_up`` brings the view up to the last stored event (what a
  read does first), ``follow`` keeps it current as events arrive (PostgreSQL's
  LISTEN/NOTIFY; SQLite, which eventsourcing 9.5.6 cannot subscribe to, is polled),
  ``rebuild`` clears it and builds it again from the first event.

The club rating (``ledger.views.rating``) is kept in the same transactions, from the
results each write brings (``recorders._ArchiveSQL.keep_rating``): the same position,
the same crash safety, and a rebuild rebuilds it too.

A game's events are counted only judged (``ArchiveProjection.judged_game``): what its
judged mark vouches for as they stand, the rest judged once as the views save them; a
game with an event the judge refuses is left out, as a broken chain is.

So are the players' counts (``archive_stats``, ``archive_stories``): what each game's
deals and records gave each person who held a seat in it, made once per game a save
touches (``ArchiveProjection.counts``), which ``pulka stats`` and a number's page add
up (``Views.counts``) instead of replaying his pulkas; and each person's numbers added
up over his pulkas (``archive_totals``, ``ledger.views.totals``), kept in the same
transactions, which the player's page reads (``Views.totals``).

The view's tables are made only when the store is initialised or a stream is created
(``ensure_views``, ``Views.create``); a read never runs DDL, and refuses on a store
whose views were never made. Views made before the rating had tables are cleared when
its tables are made, so that the next read builds them all from the first event.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal, NamedTuple
from uuid import uuid4
from weakref import WeakKeyDictionary

from eventsourcing.persistence import InfrastructureFactory, MapperDeserialisationError, PersistenceError
from eventsourcing.sqlite import SQLiteDatastore
from eventsourcing.utils import Environment, get_topic

from ledger.store import layout
from ledger.store.backend import disk_full, not_allowed, reason
from ledger.store.event_store import Store, StoreError
from ledger.store.records import LedgerApplication
from ledger.views.projection import ArchiveProjection, ArchiveRunner, StoreSource
from ledger.views.recorders import APPLICATION, SQLiteArchiveView, SubscribableSQLiteRecorder, postgres_archive_view
from ledger.vocabulary import language
from ledger.vocabulary.club import CLUB_STREAM
from projections.archive import Alias, GameResult, PulkaRow
from projections.stat_totals import Totals, add, read_totals

__all__ = ["KeptTotals", "LeftOut", "Views", "ViewsMissing", "ViewsUnwritable", "ensure_views"]

_ = language._  # every text a person reads, in the language in effect; never what a table stores
N_ = language.N_

# The games whose kept counts one statement asks for, at most (SQLite's limit of
# parameters is 32,766; a player's pulkas are asked in as many statements as it takes).
COUNTS_ASKED = 500
# A catch-up saves the view and its position every so many events (and at its end);
# a follower saves after every event.
CATCH_UP_BATCH = 1000


class ViewsMissing(StoreError):
    """The store has no views yet (made by ``pulka views rebuild`` or a new stream)."""


class ViewsUnwritable(StoreError):
    """This command cannot write the store's views (or may not read them): a role
    without the grants, a SQLite file it may not write, a full disk. A reader then folds
    the archive in memory (``Views(store, in_memory=True)``); the message says why, and
    what to grant."""


class LeftOut(NamedTuple):
    """A stream the views read only up to the event before ``version`` (a game: none of it)."""

    name: str
    version: int
    reason: str

    def __str__(self) -> str:
        # ``reason`` is stored (``archive_broken.reason``): it stays in English
        return _("{name} is left out of the archive from event {version} on, where its chain breaks: "
                 "{reason}; see `pulka verify`").format(name=repr(self.name), version=self.version, reason=self.reason)


class KeptTotals(NamedTuple):
    """What ``Views.totals`` reads: the totals of some persons; for each game asked that
    the views count, everyone who held a seat in it; and what the other games whose
    counts of those persons are in the totals gave them, added up."""

    totals: Totals
    seated: dict[str, list[str]]
    elsewhere: Totals


# What a store error of the views was doing (``Views.fault``), said as a verb.
Doing = Literal["read", "make", "write"]
DOING: dict[Doing, str] = {"read": N_("read"), "make": N_("make"), "write": N_("write")}


class Views:
    """The archive views of one store: catch up, follow, rebuild, and read.

    ``in_memory``: views of this command alone, folded from the stored events into an
    in-memory SQLite database, for a store whose views this command may not write (a
    role with the auditor's grants, a read-only SQLite file, a full disk): the same
    projection and the same readers, nothing written to the store."""

    def __init__(self, store: Store, *, in_memory: bool = False) -> None:
        env = dict(store.env)
        env["CREATE_TABLE"] = "n"  # reading never makes tables
        if env.get("PERSISTENCE_MODULE") == "eventsourcing.sqlite":
            env["APPLICATION_RECORDER_TOPIC"] = get_topic(SubscribableSQLiteRecorder)
            view_class: type[Any] = SQLiteArchiveView
        else:
            view_class = postgres_archive_view()
        self.env = env
        self.description = store.description
        self.path = env.get("SQLITE_DBNAME")
        self.in_memory = in_memory
        self.read_only = store.read_only
        self.outdated = functools.partial(layout.outdated, store.backend, store.layout)
        self.marks = store.backend.mark  # the games' judged marks: what the views need not judge again
        try:
            if in_memory:
                self.datastore = SQLiteDatastore(f"file:pulka-views-{uuid4().hex}?mode=memory&cache=shared")
                self.view: Any = SQLiteArchiveView(self.datastore)
                self.view.create()
            else:
                self.factory = InfrastructureFactory[Any].construct(env=Environment(ArchiveProjection.name, env))
                self.view = self.factory.tracking_recorder(view_class)
            self.reader = LedgerApplication(env=env)
        except PersistenceError as exc:
            raise StoreError(_("cannot open the views of {store}: {why}").format(
                store=store.description, why=reason(exc))) from None
        self.projection = ArchiveProjection(self.view, StoreSource(self.reader, self.marks))

    def fault(self, exc: BaseException, doing: Doing) -> StoreError:
        """What the database said while the views were read or written, as a store
        error: ``ViewsUnwritable`` when this command may not do it, a full disk called so."""
        full = disk_full(exc, self.path)
        verb = _(DOING[doing])
        if full is not None:
            return ViewsUnwritable(_("cannot {doing} the player views of {store}: {why}").format(
                doing=verb, store=self.description, why=full))
        if not_allowed(exc):
            return ViewsUnwritable(_(
                "this command may not {doing} the player views of {store} ({why}): "
                "a role that keeps them needs SELECT, INSERT, UPDATE and DELETE on the archive_* and rating_* "
                "tables and the views' tracking table (archive_tracking on PostgreSQL) of the store's schema, "
                "or another role keeps them current (`pulka views follow`) and this one needs SELECT on them"
            ).format(doing=verb, store=self.description, why=reason(exc)))
        return StoreError(_("cannot {doing} the player views of {store}: {why}").format(
            doing=verb, store=self.description, why=reason(exc)))

    # -- keeping the view ------------------------------------------------------------

    def exists(self) -> bool:
        try:
            return bool(self.view.exists())
        except (PersistenceError, sqlite3.Error) as exc:
            raise self.fault(exc, "read") from None

    def create(self) -> None:
        """Make the view's tables when missing (what ``pulka views rebuild`` and a new
        stream do; never a read)."""
        try:
            if not self.view.exists():
                self.view.create()
        except (PersistenceError, sqlite3.Error) as exc:
            raise self.fault(exc, "make") from None

    def require(self) -> None:
        """The views ready to read: a store without them is ``ViewsMissing``; a store of
        an earlier layout whose views are not this pulka's (``layout.outdated``) is
        ``ViewsUnwritable``, so that a reader folds the archive for itself, told what
        upgrades the store, rather than read or keep views folded otherwise."""
        outdated = None if self.in_memory else self.outdated()
        if outdated is not None:
            raise ViewsUnwritable(_("the store {store} was written by an earlier pulka: {why}; `pulka upgrade` "
                                    "brings it to this pulka's layout").format(store=self.description, why=outdated))
        if not self.exists():
            if self.read_only is not None:
                raise ViewsUnwritable(_("the store {store} has no player views yet, and it is opened read-only "
                                        "({why})").format(store=self.description, why=self.read_only))
            raise ViewsMissing(_(
                "the store {store} has no player views yet; "
                "`pulka views rebuild` makes and fills them"
            ).format(store=self.description))

    def head(self) -> int:
        """The position of the last stored event (0 for an empty store)."""
        try:
            return int(self.reader.recorder.max_notification_id() or 0)
        except (PersistenceError, sqlite3.Error) as exc:
            raise StoreError(_("cannot read {store}: {why}").format(
                store=self.description, why=disk_full(exc, self.path) or reason(exc))) from None

    def position(self) -> int:
        """The position of the last event the view has taken in (0: none)."""
        try:
            return int(self.view.max_tracking_id(APPLICATION) or 0)
        except (PersistenceError, sqlite3.Error) as exc:
            raise self.fault(exc, "read") from None

    def catch_up(self, timeout: float = 24 * 3600.0) -> int:
        """Bring the view up to the last stored event; the number of events taken in.
        A store this command may not write (``Store.read_only``) is ``ViewsUnwritable``
        as soon as there is anything to write."""
        self.require()
        head = self.head()
        if self.position() >= head:
            return 0
        if self.read_only is not None and not self.in_memory:
            raise ViewsUnwritable(_("cannot write the player views of {store}: the store is opened read-only "
                                    "({why})").format(store=self.description, why=self.read_only))
        before = self.projection.processed
        self.projection.batch, self.projection.flush_at = CATCH_UP_BATCH, head
        try:
            with ArchiveRunner(self.projection, self.view, self.env) as runner:
                runner.wait(head, timeout=timeout)
        except (StoreError, TimeoutError):
            raise
        except MapperDeserialisationError as exc:
            raise StoreError(_("the player views stopped after position {position} of {head}: a stored "
                               "event cannot be read ({why}); `pulka verify` names it").format(
                position=self.position(), head=head, why=reason(exc))) from None
        except (PersistenceError, sqlite3.Error) as exc:
            raise self.fault(exc, "write") from None
        except Exception as exc:
            # Not the store's: the projection itself failed (each stream's own events
            # that its fold cannot take are left out, ``ArchiveProjection.changes``).
            raise StoreError(_(
                "the player views stopped after position {position} of {head}: {kind}: {why}"
            ).format(position=self.position(), head=head, kind=type(exc).__name__, why=exc)) from exc
        finally:
            self.projection.batch, self.projection.flush_at = 1, None
        return self.projection.processed - before

    @contextmanager
    def follow(self) -> Iterator[ArchiveRunner]:
        """Keep the view current while the block runs (``runner.wait(position)`` waits for it)."""
        self.require()
        self.projection.batch, self.projection.flush_at = 1, None
        with ArchiveRunner(self.projection, self.view, self.env) as runner:
            yield runner

    def rebuild(self) -> int:
        """Clear the view and its position in one transaction, then take in every event."""
        self.create()
        try:
            self.view.clear()
        except (PersistenceError, sqlite3.Error) as exc:
            raise self.fault(exc, "write") from None
        self.projection = ArchiveProjection(self.view, StoreSource(self.reader, self.marks))
        return self.catch_up()

    # -- reading ---------------------------------------------------------------------

    def rows(self, as_of: int | None = None, known: bool = False) -> list[PulkaRow]:
        """Every pulka as the archive says now, or at ``as_of`` (microseconds UTC): by the
        times its events record, or (``known``) as the store held it then."""
        columns = ("SELECT g.game, g.started_at, g.started_utc, g.convention, g.players, g.tournament, "
                   "r.status, r.deals, r.whists, r.money FROM {archive_games} g JOIN {archive_results} r "
                   "ON r.game = g.game ")
        # A game whose chain broke is left out whole, whatever it said before the break.
        sound = "NOT EXISTS (SELECT 1 FROM {archive_broken} b WHERE b.name = g.game)"
        if as_of is None:
            # Each game's row of its latest result looked up (SQLite's planner, left to
            # itself, reads every result of every game instead: 8 times slower at 1,000 pulkas).
            found = self.view.select(columns.split(" FROM ")[0] + " FROM {archive_games} g CROSS JOIN "
                                     "{archive_results} r WHERE r.game = g.game AND r.version = g.latest AND " + sound)
        elif known:
            found = self.view.select(
                columns + "AND r.version = (SELECT MAX(x.version) FROM {archive_results} x JOIN {archive_known} k "
                "ON k.stream = x.game AND k.version = x.version WHERE x.game = g.game AND k.known_utc <= ?) "
                "WHERE " + sound, (as_of,))
        else:
            found = self.view.select(
                columns + "AND r.version = (SELECT MAX(version) FROM {archive_results} x "
                "WHERE x.game = g.game AND x.at_utc <= ?) WHERE g.started_utc <= ? AND " + sound,
                (as_of, as_of),
            )
        return [_row(r) for r in found]

    def known_versions(self, as_of: int) -> dict[str, int]:
        """Each stream's last event the store held at ``as_of``, as far as the views record
        it (a game's last result then, a tournament's or the register's last event)."""
        found = self.view.select("SELECT stream, MAX(version) FROM {archive_known} WHERE known_utc <= ? "
                                 "GROUP BY stream", (as_of,))
        return {str(stream): int(version) for stream, version in found}

    def counts(self, games: Sequence[str], lang: str,
               wanted: Callable[[str], bool]) -> dict[str, tuple[dict[str, str | None], str]]:
        """What the deals and records of each of ``games`` gave each person who held a
        seat in it, as the views keep it now: game -> (person ->
        ``projections.stats.counted_text``, read for the persons ``wanted`` only, the story
        of each of its deals in ``lang``, ``stories_text``). A game the views do not count
        (left out, or no game) is not there."""
        out: dict[str, tuple[dict[str, str | None], str]] = {}
        for start in range(0, len(games), COUNTS_ASKED):
            asked = list(games[start:start + COUNTS_ASKED])
            marks = ", ".join("?" * len(asked))
            stories = dict(self.view.select("SELECT game, stories FROM {archive_stories} WHERE language = ? AND "
                                            f"game IN ({marks})", [lang, *asked]))
            seated = self.view.select(f"SELECT game, person FROM {{archive_stats}} WHERE game IN ({marks})", asked)
            for game, person in seated:
                if game in stories:
                    out.setdefault(str(game), ({}, str(stories[game])))[0][str(person)] = None
            names = sorted({str(person) for _game, person in seated if wanted(str(person))})
            if not names:
                continue
            found = self.view.select(f"SELECT game, person, counted FROM {{archive_stats}} WHERE game IN ({marks}) "
                                     f"AND person IN ({', '.join('?' * len(names))})", [*asked, *names])
            for game, person, counted in found:
                if game in out:
                    out[game][0][str(person)] = str(counted)
        return out

    def totals(self, wanted: Callable[[str], bool], games: Sequence[str]) -> KeptTotals:
        """The numbers the views keep added up for the persons ``wanted`` (``archive_totals``),
        which of ``games`` they count and who held a seat in each, and the other games the
        counts of those persons hold, added up (``KeptTotals``)."""
        persons = sorted(str(p) for (p,) in self.view.select("SELECT person FROM {archive_totals}") if wanted(str(p)))
        totals: Totals = {}
        seated: dict[str, list[str]] = {}
        elsewhere: Totals = {}
        if persons:
            marks = ", ".join("?" * len(persons))
            for (text,) in self.view.select(f"SELECT totals FROM {{archive_totals}} WHERE person IN ({marks})",
                                            persons):
                add(totals, read_totals(str(text)))
            asked = set(games)
            for game, text in self.view.select(f"SELECT game, totals FROM {{archive_stats}} WHERE person IN ({marks})",
                                               persons):
                if game not in asked:
                    add(elsewhere, read_totals(str(text)))
        for start in range(0, len(games), COUNTS_ASKED):
            chunk = list(games[start:start + COUNTS_ASKED])
            for game, person in self.view.select("SELECT game, person FROM {archive_stats} WHERE game IN "
                                                 f"({', '.join('?' * len(chunk))})", chunk):
                seated.setdefault(str(game), []).append(str(person))
        return KeptTotals(totals, seated, elsewhere)

    def game_totals(self, game: str, person: str) -> Totals:
        """What the deals and records of ``game`` gave ``person``, as the views keep it,
        added up (``archive_stats.totals``; nothing: not kept)."""
        found = self.view.select("SELECT totals FROM {archive_stats} WHERE game = ? AND person = ?", (game, person))
        return read_totals(str(found[0][0])) if found else {}

    def left_out(self) -> list[LeftOut]:
        """The streams the views left out from an event on: what a reader of the views
        is told (``verify`` says more)."""
        found = self.view.select("SELECT name, version, reason FROM {archive_broken} ORDER BY name")
        return [LeftOut(name, int(version), reason) for name, version, reason in found]

    def tables(self, tournament: str, as_of: int | None = None, known: bool = False) -> dict[str, GameResult]:
        """The results of a tournament's table games, by game name."""
        return {row.game: row.result for row in self.rows(as_of, known) if row.tournament == tournament}

    def aliases(self, as_of: int | None = None, known: bool = False) -> list[Alias]:
        """The register's aliases in the order recorded: all, or those recorded by
        ``as_of`` (by their times, or as the store held them then)."""
        statement = "SELECT a.name, a.same_as FROM {archive_aliases} a"
        params: tuple[Any, ...] = ()
        if as_of is not None and known:
            statement += (" JOIN {archive_known} k ON k.stream = ? AND k.version = a.seq WHERE k.known_utc <= ?")
            params = (CLUB_STREAM, as_of)
        elif as_of is not None:
            statement += " WHERE a.at_utc <= ?"
            params = (as_of,)
        return [Alias(name, same_as) for name, same_as in self.view.select(statement + " ORDER BY a.seq", params)]

    def close(self) -> None:
        self.reader.close()
        if self.in_memory:
            self.datastore.close()
        else:
            self.factory.close()

    def __enter__(self) -> Views:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()


def _row(r: tuple[Any, ...]) -> PulkaRow:
    game, started_at, started_utc, convention, players, tournament, status, deals, whists, money = r
    result = GameResult(status, int(deals), json.loads(whists), None if money is None else json.loads(money))
    return PulkaRow(game, started_at, int(started_utc), convention, tuple(json.loads(players)), result, tournament)


def ensure_views(store: Store) -> None:
    """Make the views' tables when a stream is created (once per open store)."""
    if store in _MADE:
        return
    store.ensure_table()
    with Views(store) as views:
        views.create()
    _MADE[store] = True


_MADE: WeakKeyDictionary[Store, bool] = WeakKeyDictionary()

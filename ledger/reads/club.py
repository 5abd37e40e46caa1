"""The club's archive and rating as both faces read them (``pulka players``, ``pulka
rating``, ``pulka stats``, ``pulka tournament report``; the service's club, player and
tournament pages): the store's views brought up to its last event, the rating's
moves under the model in effect, and a player's statistics: the counts the views keep
of each of his pulkas added up, or his pulkas read with their stored events.

Two kinds of "then" (``Then``): ``at`` a time, by the times the events record (what
had been played by then, as it was recorded then), or ``known`` at a time, by what the
store held then (an old sheet imported later is not in it): ``ledger.views``
records, for every result, when the store held it.

What a reader is told on the way (a note that the views could not be written, a
warning for each stream they left out) goes to the face's ``say``; a store without
views (``ViewsMissing``) is each face's to refuse.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass

from ledger.application import Ledger
from ledger.views.archive import Views, ViewsUnwritable
from ledger.views.rating import kept_changes, kept_matches, matches_then, model_then
from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent
from ledger.vocabulary.times import utc_micros
from projections.rating import Change, Line, keys_of, rate_matches, select_matches, table
from projections.archive import Alias, Identities, PulkaRow, identities
from projections.game import replay
from projections.rating_models import RatingModel
from projections.stat_totals import add
from projections.stats import (Counted, Pulka, Stats, gathered_stats, kept_pulka, mine, player_stats, pulka_counts,
                               seated_persons)

_ = language._  # every text a person reads, in the language in effect

# What catching up says to the reader: ``say(kind, text)``, ``kind`` being ``note`` or
# ``warning`` (the command line prints ``pulka: KIND: TEXT`` on standard error).
Say = Callable[[str, str], None]


def brought_up(ledger: Ledger, say: Say) -> Views:
    """The store's views, brought up to its last event (the caller closes them); when
    this reader may not write them (or read them: a role with the auditor's grants, a
    read-only file, a full disk), the archive folded from the stored events for this
    reader alone, with a note that says why and what would keep them. Each stream the
    views left out where its chain breaks is named in a warning."""
    views = Views(ledger.store)
    try:
        try:
            views.catch_up()
        except ViewsUnwritable as exc:
            views.close()
            views = Views(ledger.store, in_memory=True)
            views.catch_up()
            say("note", _("{problem}; the archive is folded from the stored events for this command alone").format(
                problem=exc))
        for item in views.left_out():
            say("warning", str(item))
    except BaseException:
        views.close()
        raise
    return views


@contextmanager
def caught_up(ledger: Ledger, say: Say) -> Iterator[Views]:
    """``brought_up`` for the time of a ``with``: the views closed after it."""
    with closing(brought_up(ledger, say)) as views:
        yield views


@dataclass(frozen=True)
class Then:
    """A point of the archive's past: ``utc`` (microseconds), by the events' own times,
    or (``known``) by what the store held then."""

    utc: int
    known: bool = False


@dataclass(frozen=True)
class ClubRating:
    """The rating's moves under ``model``, and the archive's rows and aliases that name
    the players; ``now_utc``: the time the table stands at (None: the last pulka's end)."""

    changes: list[Change]
    rows: list[PulkaRow]
    aliases: list[Alias]
    model: RatingModel
    now_utc: int | None

    @functools.cached_property
    def who(self) -> Identities:
        return identities(self.rows, self.aliases)

    def table(self) -> list[Line]:
        return table(self.changes, self.who, self.model, self.now_utc)


def club_rating(views: Views, then: Then | None = None, convention: str | None = None,
                chosen: RatingModel | None = None,
                read: tuple[list[PulkaRow], list[Alias]] | None = None) -> ClubRating:
    """The club rating now (the kept view), or folded again: at ``then``, under one
    convention, or under another model (``chosen``) than the one the club's log names;
    ``read``: the archive's rows and aliases of now, when the caller has read them."""
    at, known = (None, False) if then is None else (then.utc, then.known)
    rows, aliases = read if read is not None and then is None else (views.rows(at, known), views.aliases(at, known))
    select = views.view.select
    kept = model_then(select, at, known)
    used = chosen or kept
    if then is None and convention is None and used == kept:
        return ClubRating(kept_changes(select), rows, aliases, kept, None)
    matches = kept_matches(select) if then is None else matches_then(select, then.utc, then.known)
    changes = rate_matches(select_matches(matches, convention), keys_of(aliases), used)
    return ClubRating(changes, rows, aliases, used, at)


def player_statistics(ledger: Ledger, views: Views, rows: list[PulkaRow], aliases: list[Alias], name: str,
                      then: Then | None = None) -> Stats | None:
    """The statistics of the player ``name`` over ``rows`` (``pulka stats``, the service's
    player page): now, what the views keep of each of his pulkas' deals and records
    added up (``Views.counts``); at ``then``, each of his pulkas' events as they stood
    then, read and counted again. None when he has no pulka among ``rows``."""
    his = mine(rows, aliases, name)
    if then is not None:
        known = views.known_versions(then.utc) if then.known else None
        return player_stats(rows, aliases, name, pulkas_with_events(ledger, his, then, known))
    who = identities(rows, aliases)
    key = who.key(name)
    kept = views.counts([row.game for row in his], language.language(), lambda person: who.key(person) == key)
    return gathered_stats(rows, aliases, name, (_kept_or_read(ledger, row, kept.get(row.game)) for row in his))


def player_totals(ledger: Ledger, views: Views, rows: list[PulkaRow], aliases: list[Alias],
                  name: str, who: Identities | None = None) -> Stats | None:
    """The statistics of the player ``name`` over ``rows`` now, every number's count and
    whists without the references behind it (the service's player page): the totals the
    views keep for each name of his (``Views.totals``), less the pulkas among them that
    are not his among ``rows``; a pulka where he held two seats under two names is
    counted again from its events (its deals once, as ``player_statistics`` counts
    them), and so is one the views do not count. None when he has no pulka among ``rows``.
    ``who``: the identities of ``rows`` and ``aliases``, when the caller has them."""
    who = who or identities(rows, aliases)
    his = mine(rows, aliases, name, who)
    key = who.key(name)
    kept = views.totals(lambda person: who.key(person) == key, [row.game for row in his])
    totals = kept.totals
    pulkas: list[Pulka] = []
    for row in his:
        persons = kept.seated.get(row.game)
        if persons is None:  # not counted by the views: counted from its events
            pulkas.append(_kept_or_read(ledger, row, None))
            continue
        names = [p for p in persons if who.key(p) == key]
        if len(names) > 1:
            for person in names:
                add(totals, views.game_totals(row.game, person), -1)
            pulkas.append(kept_pulka(row, dict.fromkeys(persons), "{}", _recounted(ledger, row.game)))
        else:
            pulkas.append((row, persons, lambda _names: []))  # in the totals already
    add(totals, kept.elsewhere, -1)
    return gathered_stats(rows, aliases, name, pulkas, totals, who)


def _recounted(ledger: Ledger, game: str) -> Callable[[Collection[str]], Counted]:
    return lambda names: pulka_counts(game, replay([s.event for s in ledger.sound(game)]), names)


def _kept_or_read(ledger: Ledger, row: PulkaRow, kept: tuple[dict[str, str | None], str] | None) -> Pulka:
    """A pulka of the player as the views keep its counts, read from its events where
    they are not kept (or where he sat under two names: ``kept_pulka``)."""

    recount = _recounted(ledger, row.game)
    if kept is None:
        events = [s.event for s in ledger.sound(row.game)]
        return row, seated_persons(events), lambda names: pulka_counts(row.game, replay(events), names)
    return kept_pulka(row, *kept, recount)


def pulkas_with_events(ledger: Ledger, rows: list[PulkaRow], then: Then | None = None,
                       known: dict[str, int] | None = None) -> Iterator[tuple[PulkaRow, list[AnyEvent]]]:
    """Each pulka of the archive with its stored events, read as the statistics ask
    (``pulka stats``; a player's page of the service too); at ``then``, each pulka's
    events as they stood: those recorded by then, or (``known``) those the store held
    then (up to the last result it held, ``known``: ``Views.known_versions``)."""
    for row in rows:
        events = [s.event for s in ledger.sound(row.game)]
        if then is not None and then.known:
            events = events[:(known or {}).get(row.game, 0)]
        elif then is not None:  # a game's times never go back: those recorded by then come first
            events = events[:sum(1 for e in events if e.at is None or utc_micros(e.at) <= then.utc)]
        yield row, events

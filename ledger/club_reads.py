"""The club's archive and rating as both faces read them (``pulka players``, ``pulka
rating``, ``pulka stats``, ``pulka tournament report``; the service's club, player and
tournament pages): the store's views brought up to its last event, the rating's
changes, and a player's pulkas with their stored events.

What a reader is told on the way (a note that the views could not be written, a
warning for each stream they left out) goes to the face's ``say``; a store without
views (``ViewsMissing``) is each face's to refuse.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager

from ledger.application import Ledger
from ledger.views.archive import Views, ViewsUnwritable
from ledger.views.rating import kept_changes, kept_matches, matches_as_of
from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent
from projections import rating as model
from projections.archive import Alias, PulkaRow

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


def club_changes(views: Views, as_of: int | None, convention: str | None) -> tuple[list[model.Change], list[PulkaRow],
                                                                                       list[Alias]]:
    """The rating changes (the kept view, or folded again for a time or a convention),
    and the archive's rows and aliases that name the players."""
    rows, aliases = views.rows(as_of), views.aliases(as_of)
    if as_of is None and convention is None:
        return kept_changes(views.view.select), rows, aliases
    matches = kept_matches(views.view.select) if as_of is None else matches_as_of(views.view.select, as_of)
    return model.rate_matches(model.select_matches(matches, convention), model.keys_of(aliases)), rows, aliases


def pulkas_with_events(ledger: Ledger, rows: list[PulkaRow]) -> Iterator[tuple[PulkaRow, list[AnyEvent]]]:
    """Each pulka of the archive with its stored events, read as the statistics ask
    (``pulka stats``; a player's page of the service too)."""
    for row in rows:
        yield row, [s.event for s in ledger.sound(row.game)]

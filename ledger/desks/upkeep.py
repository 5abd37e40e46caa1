"""The store's upkeep over the years: a store written by an earlier pulka brought up to
this one's layout (``upgraded``), a whole store copied into another, SQLite to
PostgreSQL and back (``copied``: ``pulka copy``), and a backup of a store while it is
written (``backed_up``: ``pulka backup``).

The store's own parts are ``ledger.store.layout`` (the layouts and the upgrade's one
transaction) and ``ledger.store.copy`` (the copy's one transaction, SQLite's online
backup); here what is folded from the events follows them: the player views made again
after an upgrade dropped them, and folded in a copy, and the Merkle tree's cache built
in a copy of a store that had one, so that the copy answers at once.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import NamedTuple

from ledger.proofs.tree import ClubTree
from ledger.store import layout
from ledger.store.backend import StoreError, is_postgres_url
from ledger.store.copy import Copied, CopyRefused, backup_sqlite, copy_store
from ledger.store.event_store import Store
from ledger.views.archive import Views, ensure_views
from ledger.vocabulary import language

_ = language._  # every text a person reads, in the language in effect

__all__ = ["BackedUp", "Copied", "CopyRefused", "backed_up", "copied", "upgraded"]


def upgraded(store: Store) -> layout.Upgrade | None:
    """Bring ``store`` (opened to write) to this pulka's layout: the upgrade's one
    transaction, then the player views made again when it dropped them (empty: the next
    read folds them from the events). None when the store is at this layout already."""
    try:
        done = layout.migrated(store.backend, store.layout)
    except StoreError as exc:
        raise StoreError(_("the store {store} was written by an earlier pulka (layout {was}) and this command cannot "
                           "bring it to layout {now} ({why}): run `pulka upgrade` as a role that may alter its "
                           "tables (on PostgreSQL, their owner)").format(
            store=store.description, was=store.layout, now=layout.LAYOUT, why=exc)) from None
    if done is not None:
        store.layout = done.now
        ensure_views(store)
    return done


def copied(source: str, target: str, progress: Callable[[int], None] | None = None) -> Copied:
    """Copy the store at ``source`` into the empty store at ``target`` (``copy_store``),
    then fold the copy's player views and, when the source kept the tree's cache, build
    the copy's."""
    with Store(source, create=False) as before:
        cached = before.has_events_table() and layout.TREE[0] in tables(before)
    done = copy_store(source, target, progress)
    with Store(target) as store:
        ensure_views(store)
        with Views(store) as views:
            views.catch_up()
        if cached:
            ClubTree.open(store, write=True).close()
    return done


def tables(store: Store) -> set[str]:
    """The tables of the store's database."""
    with store.backend.snapshot() as tx:
        return tx.tables()


class BackedUp(NamedTuple):
    """A backup: how it was made (``sqlite``: SQLite's online backup, every table as it
    was; ``copy``: the store's copy into a new SQLite file) and what it holds."""

    how: str
    events: int


def backed_up(source: str, target: str) -> BackedUp:
    """Back the store at ``source`` up into the new SQLite file ``target`` while it is
    written: a SQLite store by SQLite's online backup, a PostgreSQL store by a copy into
    that file (the events in store order, the kept tables; its views folded)."""
    if is_postgres_url(target):
        raise CopyRefused(_("a backup is a SQLite file, not {target}: `pulka copy` copies a store into PostgreSQL"
                            ).format(target=target))
    if os.path.exists(target):
        raise CopyRefused(_("{target} exists already: a backup goes into a new file").format(target=target))
    if is_postgres_url(source):
        return BackedUp("copy", copied(source, target).events)
    backup_sqlite(source, target)
    with Store(target, create=False) as store, store.backend.snapshot() as tx:
        found = tx.run(f"SELECT COUNT(*) FROM {tx.name(tx.events_table)}") if tx.events_table in tx.tables() else []
    return BackedUp("sqlite", int(found[0][0]) if found else 0)

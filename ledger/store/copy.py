"""A whole store copied into another (``copy_store``: SQLite to PostgreSQL and back, or
between two stores of one kind), and a SQLite store backed up into a file while it is
written (``backup_sqlite``).

A copy carries everything only the store holds: every row of the events table, in store
order (each stream's rows in their order, and the streams' rows interleaved as they were
stored: the club log's Merkle tree is over that order, so the checkpoints published from
the first store hold for the copy), the rows exactly as stored (the same bytes: the same
digests and links), and the ``KEPT`` tables (``ledger.store.layout``): the receipts of
client ids, the service's accounts (their password hashes and second factors), the
tables' tokens, the key of its cookies, its sessions and its counts of sign-in attempts,
so that the same sign-ins, links and cookies work on the copy. What
is folded from the events (the player views, the tree's cache) is not copied: the copy
folds its own. Nor are the judged marks (``pulka_judged``): a mark is the judgement of
the pulka that stored the events, and the copy trusts no judgement it did not make (the
marks would hold, their digests committing to the events, but a copy is also how a
store of unknown history is taken in): its reads judge each game whole until pulka
next stores events of it, which marks it.

The source is read in one read-only transaction that sees it as it was when the copy
began (``Backend.snapshot``), so that a store the service writes meanwhile is copied whole
as of that moment: every append whole or not at all, a receipt with its events. The
target is written in one transaction under its write lock (``Backend.writing``): its
tables made, found empty, filled and its layout recorded, or nothing at all; a SQLite
file the copy made is removed again when the copy fails. A target that holds any event,
receipt, account or token is refused before anything is written.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from typing import Any, NamedTuple
from uuid import UUID

from ledger.store import layout
from ledger.store.backend import StoreError, Transaction, is_postgres_url, store_label
from ledger.store.event_store import Store
from ledger.vocabulary import language
from ledger.vocabulary.times import now_iso
from ledger.vocabulary.wording import spoken_count

_ = language._  # every text a person reads, in the language in effect

PAGE = 5000  # rows of the events table read and written at a time


class Copied(NamedTuple):
    """What a copy stored: the events, the streams, and the rows of each kept table."""

    events: int
    streams: int
    kept: dict[str, int]


class CopyRefused(StoreError):
    """A copy that would write over something, or copy a store into itself."""


def copy_store(source_address: str, target_address: str,
               progress: Callable[[int], None] | None = None) -> Copied:
    """Copy the store at ``source_address`` into the one at ``target_address``, which
    must hold nothing yet; ``progress(events copied so far)`` after each page."""
    made_file = not is_postgres_url(target_address) and not os.path.exists(target_address)
    with Store(source_address, create=False) as source:
        if not source.has_events_table():
            raise CopyRefused(_("the store {store} holds no events: nothing to copy").format(store=source.description))
        try:
            with Store(target_address, create=True) as target:
                if target.description == source.description:
                    raise CopyRefused(_("{store} is the store being copied: name another").format(
                        store=target.description))
                with source.backend.snapshot() as read, target.backend.writing() as write:
                    return _copied(read, write, target, progress)
        except BaseException:
            if made_file:
                _remove_sqlite(target_address)
            raise


def _copied(read: Transaction, write: Transaction, target: Store, progress: Callable[[int], None] | None) -> Copied:
    for statement in target.backend.events_ddl():
        write.run(statement)
    if write.kind == "postgres":  # the lock every writer of the events takes first
        write.run(f"LOCK TABLE {write.name(write.events_table)} IN EXCLUSIVE MODE")
    for table in layout.KEPT:
        layout.create_kept(write, table)
    _refuse_unless_empty(write, target)
    events, streams = _copy_events(read, write, progress)
    present = read.tables()
    kept = {table: _copy_table(read, write, table) for table in layout.KEPT if table in present}
    layout.accounts_keyed(write)  # the accounts of an earlier layout's store, given their ids
    layout.record(write, now_iso(), layout.this_pulka())
    return Copied(events, streams, kept)


def _refuse_unless_empty(write: Transaction, target: Store) -> None:
    for table in (write.events_table, *layout.KEPT):
        found = int(write.run(f"SELECT COUNT(*) FROM {write.name(table)}")[0][0])
        if found:
            raise CopyRefused(_(
                "the store {store} is not empty ({table} holds {rows}): a copy goes into a store that holds "
                "nothing yet (a new SQLite file, or a new PostgreSQL schema: ?schema=NAME)"
            ).format(store=target.description, table=table, rows=spoken_count(found, "row")))


def _copy_events(read: Transaction, write: Transaction, progress: Callable[[int], None] | None) -> tuple[int, int]:
    """Every row of the events table in store order: the same streams, numbers, topics
    and bytes, each row after the one stored before it."""
    select = (f"SELECT {read.position}, originator_id, originator_version, topic, state "
              f"FROM {read.name(read.events_table)} WHERE {read.position} > ? ORDER BY {read.position} LIMIT ?")
    insert = (f"INSERT INTO {write.name(write.events_table)} (originator_id, originator_version, topic, state) "
              "VALUES (?, ?, ?, ?)")
    stream_id = _stream_id(write.kind)
    after, count, streams = -1, 0, set[Any]()
    while True:
        page = read.run(select, (after, PAGE))
        if not page:
            break
        rows = [(stream_id(stream), number, topic, bytes(state)) for _position, stream, number, topic, state in page]
        write.run_many(insert, rows)
        streams.update(row[0] for row in rows)
        count += len(rows)
        after = page[-1][0]
        if progress is not None:
            progress(count)
        if len(page) < PAGE:
            break
    return count, len(streams)


def _stream_id(kind: str) -> Callable[[Any], Any]:
    """A stream's id as the target's events table keeps it: a UUID in PostgreSQL, its hex
    digits in SQLite (an id that is no UUID, which only an edit makes, as it is)."""
    def convert(stream: Any) -> Any:
        try:
            found = stream if isinstance(stream, UUID) else UUID(str(stream))
        except ValueError:
            return stream
        return found if kind == "postgres" else found.hex
    return convert


def _copy_table(read: Transaction, write: Transaction, table: str) -> int:
    """The rows of a kept table, in the columns the source has (a store of an earlier
    layout lacks those a later one added: the copy's take their defaults)."""
    have = set(read.column_names(table))
    names = [column for column in layout.columns(table) if column in have]
    columns = ", ".join(names)
    rows = read.run(f"SELECT {columns} FROM {read.name(table)}")
    if rows:
        marks = ", ".join("?" * len(names))
        write.run_many(f"INSERT INTO {write.name(table)} ({columns}) VALUES ({marks})", rows)
    return len(rows)


def _remove_sqlite(path: str) -> None:
    """A SQLite file a failed copy made, and the files SQLite keeps beside it."""
    for name in (path, f"{path}-wal", f"{path}-shm", f"{path}-journal"):
        try:
            os.remove(name)
        except FileNotFoundError:
            pass


# -- a SQLite store backed up while it is written ------------------------------------------


def backup_sqlite(path: str, target: str) -> None:
    """The SQLite store ``path`` into the new file ``target`` by SQLite's online backup:
    every page as of one moment, while other connections go on writing (the backup reads
    a snapshot of the write-ahead log, which writers add to meanwhile). Written into a
    file beside the target and renamed to it once whole: a backup cut short leaves
    nothing under the target's name."""
    if os.path.exists(target):
        raise CopyRefused(_("{target} exists already: a backup goes into a new file").format(target=target))
    partial = f"{target}.partial"
    _remove_sqlite(partial)
    try:
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            destination = sqlite3.connect(partial)
            try:
                source.backup(destination)
                destination.execute("PRAGMA journal_mode=DELETE")  # one file, nothing beside it
            finally:
                destination.close()
        finally:
            source.close()
        os.replace(partial, target)
    except sqlite3.Error as exc:
        _remove_sqlite(partial)
        raise StoreError(_("cannot back up {store} into {target}: {why}").format(
            store=store_label(path), target=target, why=exc)) from None
    except BaseException:
        _remove_sqlite(partial)
        raise


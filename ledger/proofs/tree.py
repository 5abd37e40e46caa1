"""The club log's Merkle tree over the store (``merkle``), and its cache of tiles.

Every row of the events table is a leaf, in store order: eventsourcing's notification
ids (SQLite's rowid, PostgreSQL's ``notification_id``), read through the store's own
eventsourcing application recorder (``select_notifications``, as the views read it). A
leaf's index is the number of rows before it; the leaf hash is ``merkle.event_leaf`` of
the digest the row holds.

The tree's complete nodes are cached as tiles in the store's database, beside the
events: ``merkle_tiles`` (level, index, hashes) and ``merkle_state`` (how many leaves
the tiles hold, the notification id and the leaf hash of the last). A command brings
the tiles up to the last stored event by reading only the rows after the last one they
hold (``catch_up``: O(new rows + log n)); a reading command extends them in memory
without writing, and a store without the cache is read whole. The cache is checked
before use: when the row it ends at is no longer the leaf it holds at that index (rows
renumbered or changed), it is built again from the first row. ``verify`` never trusts
it: it reads every row (``ledger.proofs.afresh``, once, keeping O(log n) hashes) and
compares the cache too; ``ClubTree.fresh`` reads every row and keeps them (what
``pulka checkpoint`` writes the cache again from).

The cache's tables are made by a command that writes (``pulka checkpoint``); a reading
command never runs DDL.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from bisect import bisect_left
from contextlib import contextmanager
from typing import Any, NamedTuple, cast
from uuid import UUID

import msgspec
from eventsourcing.persistence import PersistenceError

from ledger.store import layout
from ledger.store.records import LedgerApplication
from ledger.store.event_store import Store, StoreError
from ledger.store.stored import game_id
from ledger.vocabulary import language
from ledger.vocabulary.merkle import (
    TILE_WIDTH,
    TileKey,
    TileNodes,
    consistency_proof,
    event_leaf,
    extend_tiles,
    inclusion_proof,
    leaf_hash,
    root,
)

_ = language._  # every text a person reads, in the language in effect (a database's own words stay its own)

# The cache's tables (the store's layout names every table of its database): the tiles,
# what they hold, and the store position of every 256th leaf (a leaf's index without
# counting every row).
TILES, STATE, MARKS = layout.TREE
PAGE = 20_000  # rows read per query in store order


class _Digest(msgspec.Struct):
    digest: str


_decode_digest = msgspec.json.Decoder(_Digest).decode


def row_leaf(state: bytes) -> bytes:
    """The leaf of a stored row: its digest's leaf; a row that no longer decodes (the
    database was edited: ``verify`` names it) makes a leaf of its bytes' hash."""
    try:
        return event_leaf(_decode_digest(state).digest)
    except msgspec.DecodeError:
        return leaf_hash(b"?" + hashlib.sha256(state).hexdigest().encode())


class Leaf(NamedTuple):
    """A row in store order: its notification id, stream, number and leaf hash."""

    position: int
    stream: UUID | str
    number: int
    leaf: bytes


class Cached(NamedTuple):
    """What the tiles hold: the tree's size, and the last leaf's position and hash."""

    size: int
    position: int
    leaf: bytes


class TreeDatabase:
    """SQL on the events table and the tree's cache, on either backend, through the
    store's eventsourcing application recorder and its datastore."""

    def __init__(self, store: Store) -> None:
        env = dict(store.env)
        env["CREATE_TABLE"] = "n"
        self.postgres = env.get("PERSISTENCE_MODULE") == "eventsourcing.postgres"
        self.description = store.description
        try:
            self.app = LedgerApplication(env=env)
        except PersistenceError as exc:
            raise StoreError(_("cannot open {store}: {why}").format(store=store.description, why=exc)) from None
        self.recorder: Any = cast(Any, self.app.recorder)
        self.datastore: Any = self.recorder.datastore
        self.events = self._name(self.recorder.events_table_name)
        self.id_column = "notification_id" if self.postgres else "rowid"

    def _name(self, table: str) -> str:
        return f'"{self.datastore.schema}"."{table}"' if self.postgres else table

    def _sql(self, statement: str) -> Any:
        text = statement.format(events=self.events, tiles=self._name(TILES), state=self._name(STATE),
                                marks=self._name(MARKS), id=self.id_column)
        return text.replace("?", "%s").encode() if self.postgres else text

    @contextmanager
    def _cursor(self, commit: bool = False) -> Iterator[Any]:
        try:
            with self.datastore.transaction(commit=commit) as cursor:
                yield cursor
        except PersistenceError as exc:
            raise StoreError(_("cannot read the tree of {store}: {why}").format(store=self.description, why=exc)) from None

    def _rows(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._cursor() as c:
            c.execute(self._sql(statement), tuple(params))
            return [tuple(row.values()) if isinstance(row, dict) else tuple(row) for row in c.fetchall()]

    # -- the events in store order --------------------------------------------------------

    def leaves(self, after: int | None) -> Iterator[list[Leaf]]:
        """Every row after position ``after`` (all of them for None), in store order, a
        page at a time: the notification log eventsourcing's ``select_notifications``
        reads, selected narrowly (its rows build a domain object and a UUID each, which
        cost four times the read)."""
        statement = self._sql("SELECT {id}, originator_id, originator_version, state FROM {events} "
                              "WHERE {id} > ? ORDER BY {id} LIMIT ?")
        start = -1 if after is None else after
        decode, sha256 = _decode_digest, hashlib.sha256
        new = tuple.__new__  # Leaf(...) without its Python-level __new__
        while True:
            page = self._page(statement, start)
            if not page:
                return
            out = []
            for position, stream, number, state in page:
                try:  # ``row_leaf``, in line: this runs once for every row of the store
                    leaf = sha256(b"\x00" + decode(state).digest.encode("ascii", "replace")).digest()
                except msgspec.DecodeError:
                    leaf = row_leaf(bytes(state))
                out.append(new(Leaf, (position, stream, number, leaf)))
            yield out
            if len(page) < PAGE:
                return
            start = page[-1][0]

    def leaf_pages(self) -> Iterator[tuple[list[Any], list[bytes]]]:
        """Every row in store order, a page at a time: the page's rows as read (position
        and state) and their leaf hashes (``verify``'s read: no object made per row;
        ``row_at_position`` gives the rest of a row when it is needed)."""
        statement = self._sql("SELECT {id}, state FROM {events} WHERE {id} > ? ORDER BY {id} LIMIT ?")
        start, decode, sha256 = -1, _decode_digest, hashlib.sha256
        while True:
            page = self._page(statement, start)
            if not page:
                return
            hashes = []
            for _, state in page:
                try:  # ``row_leaf``, in line: this runs once for every row of the store
                    hashes.append(sha256(b"\x00" + decode(state).digest.encode("ascii", "replace")).digest())
                except msgspec.DecodeError:
                    hashes.append(row_leaf(bytes(state)))
            yield page, hashes
            if len(page) < PAGE:
                return
            start = page[-1][0]

    def _page(self, statement: Any, start: int) -> list[Any]:
        """A page of rows after position ``start`` (``PAGE`` of them at most), as plain tuples."""
        if self.postgres:  # plain tuples, binary, as the store reads them (``ledger.store.postgres``)
            return self._tuples(statement, (start, PAGE))
        with self._cursor() as c:  # plain tuples, as ``ledger.store.sqlite`` reads them
            cursor = c.sqlite_cursor
            cursor.row_factory = None
            cursor.execute(statement, (start, PAGE))
            return list(cursor.fetchall())

    def row_at_position(self, position: int) -> Leaf | None:
        """The row at store position ``position`` as ``leaves`` gives it (None: no row)."""
        found = self.rows_from(position, 1)
        if not found or found[0][0] != position:
            return None
        _, stream, number, state = found[0]
        return Leaf(position, stream, number, row_leaf(state))

    def _tuples(self, statement: Any, params: Sequence[Any]) -> list[Any]:
        """PostgreSQL rows as plain tuples in binary, on a connection of the datastore."""
        from psycopg.rows import tuple_row

        try:
            with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row, binary=True) as cur:
                cur.execute(statement, params)
                return list(cur.fetchall())
        except PersistenceError as exc:
            raise StoreError(_("cannot read {store}: {why}").format(store=self.description, why=exc)) from None

    def rank(self, position: int, since: tuple[int, int] | None = None) -> int:
        """How many rows come before position ``position`` in store order; ``since``:
        (index, position) of a row known at or before it, from which to count."""
        if since is None:
            return int(self._rows("SELECT COUNT(*) FROM {events} WHERE {id} < ?", (position,))[0][0])
        index, start = since
        return index + int(self._rows("SELECT COUNT(*) FROM {events} WHERE {id} >= ? AND {id} < ?",
                                      (start, position))[0][0])

    def mark(self, position: int) -> tuple[int, int] | None:
        """(index, position) of the last marked leaf at or before ``position``."""
        found = self._rows("SELECT idx, position FROM {marks} WHERE position <= ? ORDER BY position DESC LIMIT 1",
                           (position,))
        return (int(found[0][0]) * TILE_WIDTH, int(found[0][1])) if found else None

    def positions(self, stream: str) -> list[tuple[int, int]]:
        """(number, position) of every row of a stream, by number."""
        key: Any = game_id(stream) if self.postgres else game_id(stream).hex
        return [(int(v), int(p)) for v, p in self._rows(
            "SELECT originator_version, {id} FROM {events} WHERE originator_id = ? ORDER BY originator_version",
            (key,))]

    def marked(self, tile: int) -> int | None:
        """The position of leaf ``tile * 256``, from the cache's marks (None: not marked)."""
        if not self.cache_exists((MARKS,)):
            return None
        found = self._rows("SELECT position FROM {marks} WHERE idx = ?", (tile,))
        return int(found[0][0]) if found else None

    def nth(self, index: int) -> int | None:
        """The position of the row with ``index`` rows before it, counted (no cache)."""
        found = self._rows("SELECT {id} FROM {events} ORDER BY {id} LIMIT 1 OFFSET ?", (index,))
        return int(found[0][0]) if found else None

    def rows_from(self, position: int, limit: int) -> list[tuple[int, Any, int, bytes]]:
        """(position, stream, number, state) of ``limit`` rows from ``position`` on."""
        return [(int(p), s, int(n), bytes(state)) for p, s, n, state in self._rows(
            "SELECT {id}, originator_id, originator_version, state FROM {events} WHERE {id} >= ? ORDER BY {id} "
            "LIMIT ?", (position, limit))]

    def row_at(self, position: int) -> bytes | None:
        found = self._rows("SELECT state FROM {events} WHERE {id} = ?", (position,))
        return bytes(found[0][0]) if found else None

    # -- the cache -------------------------------------------------------------------------

    def cache_exists(self, tables: tuple[str, ...] = (TILES, STATE, MARKS)) -> bool:
        """Whether the cache's tables (or those named) are there."""
        marks = ", ".join("?" * len(tables))
        if self.postgres:
            found = self._rows(f"SELECT count(*) FROM pg_tables WHERE schemaname = ? AND tablename IN ({marks})",
                               (self.datastore.schema, *tables))
        else:
            found = self._rows(f"SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ({marks})",
                               tables)
        return int(found[0][0]) == len(tables)

    def create_cache(self) -> None:
        blob = "BYTEA" if self.postgres else "BLOB"
        with self._cursor(commit=True) as c:
            c.execute(self._sql("CREATE TABLE IF NOT EXISTS {tiles} (level INTEGER NOT NULL, idx BIGINT NOT NULL, "
                                f"hashes {blob} NOT NULL, PRIMARY KEY (level, idx))"))
            c.execute(self._sql("CREATE TABLE IF NOT EXISTS {state} (name TEXT PRIMARY KEY, size BIGINT NOT NULL, "
                                f"position BIGINT NOT NULL, leaf {blob} NOT NULL)"))
            c.execute(self._sql("CREATE TABLE IF NOT EXISTS {marks} (idx BIGINT PRIMARY KEY, position BIGINT NOT NULL)"))
            c.execute(self._sql(f"CREATE INDEX IF NOT EXISTS {MARKS}_position ON {{marks}} (position)"))

    def cached(self) -> Cached | None:
        found = self._rows("SELECT size, position, leaf FROM {state} WHERE name = 'tree'")
        if not found:
            return None
        size, position, leaf = found[0]
        return Cached(int(size), int(position), bytes(leaf))

    def tile(self, level: int, index: int) -> bytes:
        found = self._rows("SELECT hashes FROM {tiles} WHERE level = ? AND idx = ?", (level, index))
        return bytes(found[0][0]) if found else b""

    def level_tiles(self, level: int, after: int, limit: int) -> list[tuple[int, bytes]]:
        """(index, hashes) of at most ``limit`` cached tiles of ``level`` after index
        ``after``, by index: the cache read a page at a time."""
        return [(int(k), bytes(h)) for k, h in self._rows(
            "SELECT idx, hashes FROM {tiles} WHERE level = ? AND idx > ? ORDER BY idx LIMIT ?", (level, after, limit))]

    def tiles(self) -> dict[TileKey, bytes]:
        return {(int(t), int(k)): bytes(h) for t, k, h in self._rows("SELECT level, idx, hashes FROM {tiles}")}

    def save(self, tiles: dict[TileKey, bytes], marks: list[tuple[int, int]], cached: Cached, clear: bool) -> None:
        """Write the changed tiles, the new marks and what they hold, in one transaction
        (after clearing the cache when it is built again)."""
        upsert = ("INSERT INTO {tiles} (level, idx, hashes) VALUES (?, ?, ?) "
                  "ON CONFLICT (level, idx) DO UPDATE SET hashes = excluded.hashes")
        with self._cursor(commit=True) as c:
            if clear:
                c.execute(self._sql("DELETE FROM {tiles}"))
                c.execute(self._sql("DELETE FROM {marks}"))
            if tiles:
                c.executemany(self._sql(upsert), [(level, index, hashes) for (level, index), hashes in tiles.items()])
            if marks:
                c.executemany(self._sql("INSERT INTO {marks} (idx, position) VALUES (?, ?) ON CONFLICT (idx) "
                                        "DO UPDATE SET position = excluded.position"), marks)
            c.execute(self._sql("INSERT INTO {state} (name, size, position, leaf) VALUES ('tree', ?, ?, ?) "
                                "ON CONFLICT (name) DO UPDATE SET size = excluded.size, "
                                "position = excluded.position, leaf = excluded.leaf"),
                      (cached.size, cached.position, cached.leaf))

    def close(self) -> None:
        self.app.close()


class ClubTree:
    """The tree of every stored event, its nodes read from the cached tiles and the rows
    after them (``open``), or from every row (``fresh``)."""

    def __init__(self, database: TreeDatabase, size: int, nodes: TileNodes, leaves: list[Leaf] | None,
                 base: int = 0, tail: list[int] | None = None) -> None:
        self.database = database
        self.size = size
        self.nodes = nodes
        # Every row in store order, when the tree was read whole with them kept (verify).
        self.leaves = leaves
        # The positions of the leaves from index ``base`` on, read after the cache.
        self.base = base
        self.tail = tail or []

    @classmethod
    def open(cls, store: Store, *, write: bool = False) -> ClubTree:
        """The tree up to the last stored event, from the cache and the rows after it;
        ``write`` saves the grown tiles (and makes the cache's tables when missing)."""
        database = TreeDatabase(store)
        exists = store_has_events(store) and database.cache_exists()
        if write and not exists and store_has_events(store):
            database.create_cache()
            exists = True
        cached = database.cached() if exists else None
        if cached is not None and not _still_holds(database, cached):
            cached = None  # the rows changed under the cache: build it again
        base = cached or Cached(0, 0, b"")
        read = database.tile if cached is not None else (lambda t, k: b"")
        overlay: dict[TileKey, bytes] = {}
        size, last = base.size, base
        tail: list[int] = []
        if store_has_events(store):
            for page in database.leaves(cached.position if cached is not None else None):
                overlay.update(extend_tiles(lambda t, k: overlay[(t, k)] if (t, k) in overlay else read(t, k),
                                            size, [leaf.leaf for leaf in page]))
                tail += [leaf.position for leaf in page]
                size += len(page)
                last = Cached(size, page[-1].position, page[-1].leaf)
        if write and exists and (overlay or cached is None) and size:
            marks = [((base.size + i) // TILE_WIDTH, p) for i, p in enumerate(tail) if (base.size + i) % TILE_WIDTH == 0]
            database.save(overlay, marks, last, clear=cached is None)
        return cls(database, size, TileNodes(read, overlay), None, base.size, tail)

    @classmethod
    def fresh(cls, store: Store) -> ClubTree:
        """The tree computed from every row, the cache unused, every row kept."""
        database = TreeDatabase(store)
        tiles: dict[TileKey, bytes] = {}
        kept: list[Leaf] = []
        if store_has_events(store):
            for page in database.leaves(None):
                tiles.update(extend_tiles(lambda t, k: tiles.get((t, k), b""), len(kept), [leaf.leaf for leaf in page]))
                kept += page
        return cls(database, len(kept), TileNodes(lambda t, k: b"", tiles), kept, 0, [leaf.position for leaf in kept])

    def root(self, size: int | None = None) -> bytes:
        return root(self.nodes, self.size if size is None else size)

    def inclusion(self, index: int, size: int) -> list[bytes]:
        return inclusion_proof(self.nodes, index, size)

    def consistency(self, old: int, new: int) -> list[bytes]:
        return consistency_proof(self.nodes, old, new)

    def leaf(self, index: int) -> bytes:
        return self.nodes.node(0, index)

    def position_of(self, index: int) -> int | None:
        """The store position of leaf ``index`` (None beyond the tree): among the rows
        read after the cache, in memory; a leaf that begins a tile, from the cache's
        marks; else counted."""
        if not 0 <= index < self.size:
            return None
        if self.tail and index >= self.base:
            return self.tail[index - self.base]
        found = self.database.marked(index // TILE_WIDTH) if index % TILE_WIDTH == 0 else None
        return found if found is not None else self.database.nth(index)

    def rows(self, start: int, count: int) -> list[tuple[int, Any, int, bytes]]:
        """(position, stream, number, state) of leaves ``start`` to ``start + count - 1``
        (fewer at the tree's end)."""
        position = self.position_of(start)
        if position is None:
            return []
        return self.database.rows_from(position, min(count, self.size - start))

    def index_at(self, position: int) -> int:
        """The leaf index of the row at store position ``position``: among the rows read
        after the cache, found in memory; before them, counted from the last mark at or
        before it (at most 255 rows); without marks, counted from the first row."""
        if self.tail and position >= self.tail[0]:
            return self.base + bisect_left(self.tail, position)
        mark = self.database.mark(position) if self.base else None
        return self.database.rank(position, mark)

    def index_of(self, stream: str, number: int) -> int | None:
        """The leaf index of event ``number`` of ``stream`` (None when not stored)."""
        found = dict(self.database.positions(stream)).get(number)
        return None if found is None else self.index_at(found)

    def covered(self, stream: str, size: int) -> tuple[int, int] | None:
        """(the number of the last event of ``stream`` among the first ``size`` leaves,
        its leaf index); None when its first event is not among them."""
        positions = self.database.positions(stream)
        low, high, best = 0, len(positions) - 1, None
        while low <= high:  # the events of a stream are in store order, by number
            middle = (low + high) // 2
            index = self.index_at(positions[middle][1])
            if index < size:
                best, low = (positions[middle][0], index), middle + 1
            else:
                high = middle - 1
        return best

    def cached_tiles(self) -> dict[TileKey, bytes]:
        """The tiles as the cache holds them ({} without them: what they held is gone)."""
        return self.database.tiles() if self.database.cache_exists((TILES,)) else {}

    def close(self) -> None:
        self.database.close()

    def __enter__(self) -> ClubTree:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()


def store_has_events(store: Store) -> bool:
    return store.has_events_table()


def _still_holds(database: TreeDatabase, cached: Cached) -> bool:
    """Whether the row the cache ends at is still the leaf it holds (rows renumbered, as
    SQLite's VACUUM may, or edited, make the cache be built again; rows deleted or
    slipped in before it are what ``verify`` finds, comparing the cache with the rows)."""
    state = database.row_at(cached.position)
    return state is not None and row_leaf(bytes(state)) == cached.leaf


__all__ = ["Cached", "ClubTree", "Leaf", "TreeDatabase", "row_leaf"]

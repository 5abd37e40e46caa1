"""The club log's tree computed afresh from every row, as ``pulka verify`` reads it:
once, in store order, a page of rows at a time, and nothing of the rows kept.

What verify asks of that tree is known before the rows are read: its roots at the sizes
of the checkpoints it checks (stored and published), its size, and the first leaf where
the tree's cache differs from the rows. So the leaves go through ``merkle.Frontier``
(the roots of the complete subtrees so far: O(log n) hashes), a root taken as the
count of leaves reaches each size asked; and the cache's level-0 tiles are read beside
the rows, a page of them at a time, each compared with the tile the rows make as soon
as it is complete. What it holds is one page of rows, one tile and one page of the
cache, whatever the size of the store (``ClubTree.fresh``, which ``pulka checkpoint``
uses to write the cache again, keeps every row).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any, NamedTuple

from ledger.proofs.held import Difference, tile_difference
from ledger.proofs.tree import TILES, TreeDatabase, store_has_events
from ledger.store.event_store import Store
from ledger.vocabulary.merkle import TILE_WIDTH, Frontier, ProofError

CACHE_PAGE = 256  # cached tiles read per query (256 x 8 KB)


class Afresh(NamedTuple):
    """What verify asks of the tree read from every row: its size, its root at each size
    asked that it reaches, and the first leaf where the cache differs from the rows."""

    size: int
    roots: dict[int, bytes]
    difference: Difference | None

    def root(self, size: int) -> bytes:
        """The root of the first ``size`` leaves (a size asked, at most the tree's)."""
        found = self.roots.get(size)
        if found is None:
            raise ProofError(f"the root of {size} leaves was not asked of the tree read afresh of {self.size}")
        return found


def afresh(store: Store, sizes: Iterable[int]) -> Afresh:
    """The tree of every stored row, read once: its size, its roots at ``sizes`` (those
    it reaches) and where its cache first differs from the rows."""
    wanted = deque(sorted({s for s in sizes if s >= 0}))
    frontier = Frontier()
    roots: dict[int, bytes] = {}
    _grow(frontier, [], wanted, roots)  # the root of none, when asked
    if not store_has_events(store):
        return Afresh(0, roots, None)
    database = TreeDatabase(store)
    try:
        cache = _CachedTiles(database)
        # The rows and leaf hashes of the tile being filled (none once a difference is found).
        tile: tuple[list[Any], list[bytes]] = ([], [])
        index = 0  # that tile's index
        difference = None
        for rows, hashes in database.leaf_pages():
            _grow(frontier, hashes, wanted, roots)
            if difference is not None:
                continue
            tile[0].extend(rows)
            tile[1].extend(hashes)
            full = len(tile[0]) - len(tile[0]) % TILE_WIDTH
            for start in range(0, full, TILE_WIDTH):
                difference = cache.compare(index, tile[0][start:start + TILE_WIDTH], tile[1][start:start + TILE_WIDTH])
                index += 1
                if difference is not None:
                    break
            del tile[0][:full], tile[1][:full]
        if difference is None and tile[0]:
            difference = cache.compare(index, *tile)
        if difference is None:
            difference = cache.beyond()
    finally:
        database.close()
    return Afresh(frontier.size, roots, difference)


def _grow(frontier: Frontier, leaves: list[bytes], wanted: deque[int], roots: dict[int, bytes]) -> None:
    """Add ``leaves`` to ``frontier``, taking its root at each size asked on the way."""
    taken = 0
    while wanted and wanted[0] - frontier.size <= len(leaves) - taken:
        upto = taken + wanted[0] - frontier.size
        frontier.extend(leaves[taken:upto])
        taken = upto
        roots[wanted.popleft()] = frontier.root()
    frontier.extend(leaves[taken:] if taken else leaves)


class _CachedTiles:
    """The cache's level-0 tiles (the leaves as the tree took them in), read in order of
    index a page at a time, each compared with what the rows give."""

    def __init__(self, database: TreeDatabase) -> None:
        self.database = database
        self.page: deque[tuple[int, bytes]] = deque()
        self.after = -1  # the index of the last tile read
        self.done = not database.cache_exists((TILES,))

    def _next(self) -> tuple[int, bytes] | None:
        """The next cached tile, by index (None after the last)."""
        if not self.page and not self.done:
            self.page.extend(self.database.level_tiles(0, self.after, CACHE_PAGE))
            self.done = len(self.page) < CACHE_PAGE
            if self.page:
                self.after = self.page[-1][0]
        return self.page.popleft() if self.page else None

    def _at(self, index: int) -> bytes | None:
        """The cached tile ``index`` (None when the cache has none), the tiles before it
        passed over (the rows gave those already)."""
        while True:
            if self.page and self.page[0][0] > index:
                return None
            found = self._next()
            if found is None or found[0] > index:
                if found is not None:
                    self.page.appendleft(found)
                return None
            if found[0] == index:
                return found[1]

    def compare(self, index: int, rows: list[Any], hashes: list[bytes]) -> Difference | None:
        """Where the cached tile ``index`` first differs from the rows' tile (the rows as
        read, their position first, and their leaf hashes), that row read again whole."""
        cached = self._at(index)
        if cached is None:
            return None
        at = tile_difference(b"".join(hashes), cached)
        if at is None:
            return None
        row = self.database.row_at_position(int(rows[at][0])) if at < len(rows) else None
        return Difference(index * TILE_WIDTH + at, row)

    def beyond(self) -> Difference | None:
        """The first cached tile after the rows' last: leaves the rows no longer have."""
        while (found := self._next()) is not None:
            index, cached = found
            at = tile_difference(b"", cached)
            if at is not None:
                return Difference(index * TILE_WIDTH + at, None)
        return None


__all__ = ["Afresh", "afresh"]

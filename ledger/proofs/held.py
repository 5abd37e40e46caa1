"""The log's memory, checked before it signs: the tree computed from the events
themselves (every row read, the cache unused) must still hold every checkpoint the log
stored in ``@checkpoints``, else nothing is signed and the refusal names the checkpoint
and the first event that differs (C2SP tlog-checkpoint: a log never signs a checkpoint
inconsistent with one it signed before). The tree's cache is then made to agree with
the rows: it is only a cache, and deleting it changes nothing but speed.

The first event that differs is found by comparing the rows with the tree's cache,
which holds the leaves as the tree took them in; a store whose cache is gone can only
say between which two of its checkpoints the first change lies.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

from ledger.proofs.tree import Cached, ClubTree, Leaf
from ledger.store.event_store import Store
from ledger.store.stored import game_id
from ledger.vocabulary import language
from ledger.vocabulary.merkle import HASH_SIZE, TILE_WIDTH, TileKey
from ledger.vocabulary.refusal import Refused
from projections.attested import StoredCheckpoint

_ = language._  # every text a person reads, in the language in effect

RULE = "proofs"


class Difference(NamedTuple):
    """Where the rows first differ from the leaves the tree's cache took in: the leaf's
    index, and its row (None when the rows end before it: events were deleted)."""

    leaf: int
    row: Leaf | None


def stream_names(store: Store) -> dict[str, str]:
    """Stream ids (as the rows hold them) and their names."""
    names = {}
    for name in store.games():
        stream = game_id(name)
        names[str(stream)] = names[stream.hex] = name  # as PostgreSQL and SQLite hold it
    return names


def first_difference(tree: ClubTree, cached: dict[TileKey, bytes]) -> Difference | None:
    """The first leaf where the tiles cached before differ from the rows read now
    (``tree`` is ``ClubTree.fresh``)."""
    assert tree.leaves is not None
    level0 = sorted((k, h) for (t, k), h in cached.items() if t == 0)
    for index, hashes in level0:
        at = tile_difference(tree.nodes.tile(0, index), hashes)
        if at is not None:
            leaf = index * TILE_WIDTH + at
            return Difference(leaf, tree.leaves[leaf] if leaf < len(tree.leaves) else None)
    return None


def tile_difference(fresh: bytes, cached: bytes) -> int | None:
    """Where in a tile of leaves (its offset) the hashes the cache holds first differ
    from those the rows give now (``fresh``: b"" when the rows end before the tile);
    None when the cache's are the first of the rows'."""
    if fresh[:len(cached)] == cached:
        return None
    size = HASH_SIZE
    return next(i for i in range(0, len(cached), size) if fresh[i:i + size] != cached[i:i + size]) // size


def describe_difference(difference: Difference, names: dict[str, str]) -> str:
    """The first event that differs, as a refusal names it."""
    row = difference.row
    if row is None:
        return _("the log ends before event {position} of the club log, which it held: events were deleted").format(
            position=difference.leaf + 1)
    stream = names.get(str(row.stream), f"stream {row.stream}")
    return _("the first event that differs is event {number} of {stream} (position {position} of the club log)").format(
        number=row.number, stream=repr(stream), position=difference.leaf + 1)


def broken(tree: ClubTree, stored: Sequence[StoredCheckpoint]) -> StoredCheckpoint | None:
    """The first stored checkpoint the tree no longer holds (too few events, or another
    root for its size)."""
    for cp in stored:
        if cp.size > tree.size or tree.root(cp.size) != cp.checkpoint.root:
            return cp
    return None


def refusal(tree: ClubTree, cp: StoredCheckpoint, stored: Sequence[StoredCheckpoint],
            difference: Difference | None, names: dict[str, str]) -> Refused:
    """Why nothing is signed: the checkpoint no longer held, and the first event that
    differs (or, the cache gone, between which checkpoints it lies)."""
    if difference is not None:
        where = describe_difference(difference, names)
    else:
        held = max((c.size for c in stored if c.size < cp.size and c.size <= tree.size
                    and tree.root(c.size) == c.checkpoint.root), default=0)
        where = _("the first change is among events {first} to {last} of the club log (the tree's cache, which "
                  "would name the event, is gone)").format(first=held + 1, last=cp.size)
        if held:
            where += _("; checkpoint #{held} still holds").format(held=held)
    if cp.size > tree.size:
        what = _("checkpoint #{size} of {origin} ({at}) covers {size} events, the store holds {held}").format(
            size=cp.size, origin=cp.origin, at=cp.at, held=tree.size)
    else:
        what = _("checkpoint #{size} of {origin} ({at}) no longer matches the store's first {size} events").format(
            size=cp.size, origin=cp.origin, at=cp.at)
    return Refused(RULE, _("{what}; {where}: a checkpoint signed now would fork the log, so nothing is signed").format(
        what=what, where=where), _("see `pulka verify`; the log signs only a history that extends what it signed"))


def refresh_cache(tree: ClubTree, cached: dict[TileKey, bytes]) -> None:
    """Make the tree's cache hold what ``tree`` (read from every row) holds: the tiles
    that differ written, and all of them again when the cache holds tiles the rows no
    longer give."""
    assert tree.leaves is not None
    database = tree.database
    if not tree.size:
        return
    if not database.cache_exists():
        database.create_cache()
    fresh = tree.nodes.tiles
    clear = any(k not in fresh or fresh[k][:len(h)] != h for k, h in cached.items())
    changed = fresh if clear else {k: h for k, h in fresh.items() if cached.get(k) != h}
    marks = [(i // TILE_WIDTH, leaf.position) for i, leaf in enumerate(tree.leaves) if i % TILE_WIDTH == 0]
    last = tree.leaves[-1]
    database.save(dict(changed), marks, Cached(tree.size, last.position, last.leaf), clear=clear)


@contextmanager
def checked_tree(store: Store, stored: Sequence[StoredCheckpoint], *, refresh: bool = True) -> Iterator[ClubTree]:
    """The tree read from every row, once it is seen to hold every stored checkpoint
    (else the refusal that names the first it does not and the first event that
    differs); with ``refresh``, the cache made to agree with it."""
    with ClubTree.fresh(store) as tree:
        cached = tree.cached_tiles()
        cp = broken(tree, stored)
        if cp is not None:
            raise refusal(tree, cp, stored, first_difference(tree, cached), stream_names(store))
        if refresh:
            refresh_cache(tree, cached)
        yield tree

"""The club tree as ``pulka verify`` reads it: once, leaf by leaf, in bounded memory.

``merkle.Frontier`` (the roots of the complete subtrees so far) against RFC 9162's
definition of MTH written in ``test_merkle`` and against the tiles' roots, for every
size from 0 to 300 and some large ones; that it holds O(log n) hashes while it
consumes an iterator; and ``afresh`` (the store's tree read once) against
``ClubTree.fresh`` (every row kept): the same roots at every size, the same size, the
same first leaf where the cache differs from the rows, on a store left alone and on
stores tampered with in each way the cache can show.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest

from merkle_reference import MemoryTree
from test_merkle import mth

from ledger.proofs.afresh import afresh
from ledger.proofs.held import first_difference
from ledger.proofs.tree import ClubTree
from ledger.store.event_store import Store
from ledger.vocabulary.events import Bid, GameStarted
from ledger.vocabulary.merkle import EMPTY_ROOT, Frontier, leaf_hash, streamed_root
from tests.conftest import RawEvents

AT = "2026-12-01T20:00:00+00:00"


def leaves(count: int, seed: int = 0) -> list[bytes]:
    rng = random.Random(seed)
    return [leaf_hash(rng.randbytes(rng.randrange(1, 40))) for _ in range(count)]


def test_the_streamed_root_is_mth_for_every_size_to_300() -> None:
    hashes = leaves(300)
    frontier = Frontier()
    assert frontier.root() == EMPTY_ROOT == mth([])
    tree = MemoryTree(hashes)
    for size in range(1, 301):
        frontier.extend(hashes[size - 1:size])
        assert frontier.size == size
        assert frontier.root() == mth(hashes[:size]) == tree.root(size), size
        assert streamed_root(iter(hashes[:size])) == frontier.root()


@pytest.mark.parametrize("size", [511, 512, 513, 4097, 65535, 65536, 65541, 100_003])
def test_the_streamed_root_of_large_trees_is_the_tiles_root(size: int) -> None:
    hashes = leaves(size, seed=size)
    assert streamed_root(hashes) == MemoryTree(hashes).root()


def test_leaves_added_in_uneven_batches_give_the_same_roots() -> None:
    rng = random.Random(7)
    hashes = leaves(3000, seed=7)
    tree = MemoryTree(hashes)
    frontier = Frontier()
    while frontier.size < len(hashes):
        step = rng.choice([0, 1, 2, 3, 255, 256, 257, 700])
        frontier.extend(hashes[frontier.size:frontier.size + step])
        assert frontier.root() == tree.root(frontier.size) if frontier.size else frontier.root() == EMPTY_ROOT


def test_the_frontier_holds_one_hash_for_each_bit_of_its_size() -> None:
    # An iterator of 200,000 leaves, read as it goes: at every leaf the frontier holds
    # as many hashes as the size has bits set (at most 18 here), never the leaves.
    frontier = Frontier()
    most = 0

    def watched(count: int) -> Iterator[bytes]:
        nonlocal most
        for i in range(count):
            # the i leaves before this one are in, each taken as it came: nothing kept
            assert len(frontier.nodes) == i.bit_count()
            most = max(most, len(frontier.nodes))
            yield leaf_hash(i.to_bytes(4, "big"))

    frontier.extend(watched(200_000))
    assert frontier.size == 200_000
    assert len(frontier.nodes) == (200_000).bit_count()
    assert most == 17 <= (200_000).bit_length()


# -- the store's tree read once, against the tree read with every row kept --------------------


def fill(db: str, streams: int = 3, per_stream: int = 300) -> None:
    """Rows enough for several tiles (256 leaves each), the streams interleaved."""
    with Store(db) as store:
        for s in range(streams):
            store.append(f"g{s}", [GameStarted(game=f"g{s}", players=("Anna", "Boris", "Vera"), pulya=10, at=AT)],
                         expected=0)
        for k in range(1, per_stream, 50):
            for s in range(streams):
                store.append(f"g{s}", [Bid(player="Anna", bid="6S", at=AT)] * 50, expected=k)


def agree(db: str) -> None:
    """``afresh`` gives what ``ClubTree.fresh`` and ``first_difference`` give."""
    with Store(db) as store:
        with ClubTree.fresh(store) as fresh:
            sizes = list(range(fresh.size + 3))
            read = afresh(store, sizes)
            assert read.size == fresh.size
            assert read.roots == {n: fresh.root(n) for n in range(fresh.size + 1)}
            assert read.difference == first_difference(fresh, fresh.cached_tiles())


def cached(db: str) -> None:
    with Store(db) as store, ClubTree.open(store, write=True):
        pass


def edit_digest(raw: RawEvents, game: str, number: int) -> None:
    _, state = raw.row(game, number)
    raw.set(game, number, state=state.replace(b'"digest":"', b'"digest":"0'))


TAMPERINGS: dict[str, Callable[[RawEvents], None]] = {
    "nothing": lambda raw: None,
    "a digest edited": lambda raw: edit_digest(raw, "g1", 200),
    "a row that no longer decodes": lambda raw: raw.set("g2", 120, state=b"{not json"),
    "a row deleted in the middle": lambda raw: raw.delete("g0", 3),
    "the last rows deleted": lambda raw: [raw.delete("g2", n) for n in range(252, 302)],
    "every row deleted": lambda raw: raw.execute("DELETE FROM {table}"),
}


@pytest.mark.parametrize("tampering", TAMPERINGS)
def test_the_tree_read_once_agrees_with_the_tree_kept_whole(store_url: str, tampering: str) -> None:
    fill(store_url)
    agree(store_url)  # no cache yet
    cached(store_url)
    raw = RawEvents(store_url)
    try:
        TAMPERINGS[tampering](raw)
    finally:
        raw.close()
    agree(store_url)
    with Store(store_url) as store:
        found = afresh(store, [900]).difference
    if tampering == "nothing":
        assert found is None
    else:
        assert found is not None  # the cache, made before, names where the rows changed


def test_the_tree_read_once_names_rows_gone_past_the_cache(store_url: str) -> None:
    fill(store_url)
    cached(store_url)
    raw = RawEvents(store_url)
    try:
        for n in range(1, 302):
            raw.delete("g2", n)  # every row of g2: the tree loses 301 leaves
    finally:
        raw.close()
    with Store(store_url) as store:
        read = afresh(store, [903, 602])
    assert read.size == 602 and 903 not in read.roots and 602 in read.roots
    # g2's start was leaf 2 (the three starts first): the first leaf the rows no longer give
    assert read.difference is not None and read.difference.leaf == 2 and read.difference.row is not None

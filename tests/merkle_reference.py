"""A reference for the tests of the club log's tree: RFC 9162's check of an inclusion
proof (the ledger only makes proofs; a player checks them with ``pulka_verify``) and a
tree held in memory as its tiles, to hold the store's tree against.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ledger.vocabulary.merkle import HASH_SIZE, TileKey, TileNodes, extend_tiles, node_hash
from ledger.vocabulary.merkle import root as tree_root


def verify_inclusion(leaf: bytes, index: int, size: int, proof: Sequence[bytes], expected: bytes) -> bool:
    """RFC 9162 2.1.3.2: whether ``proof`` leads leaf hash ``leaf`` at ``index`` to the
    root ``expected`` of a tree of ``size`` leaves (the ledger only proves inclusion; a
    player checks a proof with ``pulka_verify``)."""
    if not 0 <= index < size or len(leaf) != HASH_SIZE or any(len(p) != HASH_SIZE for p in proof):
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == expected


class MemoryTree:
    """A tree held in memory as its tiles, built from leaf hashes: the tiles and nodes
    of ``merkle`` without a store."""

    def __init__(self, leaves: Iterable[bytes] = ()) -> None:
        self.tiles: dict[TileKey, bytes] = {}
        self.size = 0
        self.append(list(leaves))

    def append(self, leaves: Sequence[bytes]) -> None:
        self.tiles.update(extend_tiles(lambda t, k: self.tiles.get((t, k), b""), self.size, leaves))
        self.size += len(leaves)

    def node(self, level: int, index: int) -> bytes:
        return TileNodes(lambda t, k: self.tiles.get((t, k), b""), None).node(level, index)

    def root(self, size: int | None = None) -> bytes:
        return tree_root(self, self.size if size is None else size)

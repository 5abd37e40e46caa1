"""The club log as a Merkle tree: RFC 9162's tree hash, inclusion and consistency
proofs, over the store's events in store order, and the tiles that keep its levels.

Every event the store holds, of every stream, is a leaf, in the order the store
recorded them (eventsourcing's notification ids). The leaf is defined from the event's
existing chain digest (``chain``), which already binds the stream's name, the event's
number, its content and every event before it in its stream, so that stores written
before the tree existed need no rewrite::

    leaf input  = the digest as its 64 ASCII hex digits
    leaf hash   = SHA-256(0x00 || leaf input)             [RFC 9162 2.1.1]
    node hash   = SHA-256(0x01 || left || right)
    MTH(D[n])   = the root of the first n leaves; SHA-256("") for none

The proofs are RFC 9162's PATH (2.1.3.1) and PROOF (2.1.4.1), computed from the
hashes of complete subtrees (``Nodes.node``: level h, index i covers leaves
[i * 2^h, (i + 1) * 2^h)); any other range is split as MTH splits it, so a root or a
proof costs O(log n) complete nodes whatever the size. The verifier of consistency
is RFC 9162's algorithm (2.1.4.2); an inclusion proof is checked by the player who
holds it (``pulka_verify.py``).

The complete nodes are kept in *tiles* (after C2SP tlog-tiles): tile (t, k) holds the
hashes of the nodes of tree level 8t numbered 256k to 256k + 255, as 32-byte hashes
one after the other (fewer at the right edge, only complete nodes). A node of level h
is read from the one tile of level h // 8 that holds its 2^(h % 8) descendants there,
and hashed up at most 7 levels. Appending k leaves rewrites the right-edge tile of each
level and adds the tiles filled: O(k + log n) hashes (``extend_tiles``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

HASH_SIZE = 32
TILE_HEIGHT = 8
TILE_WIDTH = 1 << TILE_HEIGHT  # hashes in a full tile
EMPTY_ROOT = hashlib.sha256(b"").digest()


class ProofError(ValueError):
    """A proof asked of sizes or indexes that the tree does not have."""


def leaf_hash(data: bytes) -> bytes:
    """RFC 9162's hash of a leaf: SHA-256(0x00 || data)."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 9162's hash of an inner node: SHA-256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def event_leaf(digest: str) -> bytes:
    """The leaf hash of a stored event, from its chain digest (what the row holds,
    hashed as ASCII: a digest edited into something else still makes a leaf)."""
    return leaf_hash(digest.encode("ascii", "replace"))


class Nodes(Protocol):
    """Where the hashes of complete subtrees are read."""

    def node(self, level: int, index: int) -> bytes: ...


def _split(size: int) -> int:
    """The largest power of two smaller than ``size`` (size >= 2): where MTH splits."""
    return 1 << ((size - 1).bit_length() - 1)


def range_hash(nodes: Nodes, start: int, end: int) -> bytes:
    """MTH of leaves [start, end), for a range that MTH's own splitting makes (its start
    a multiple of a power of two at least its length): complete subtrees are read,
    the rest hashed as MTH splits it."""
    size = end - start
    if size & (size - 1) == 0 and start % size == 0:
        level = size.bit_length() - 1
        return nodes.node(level, start >> level)
    k = _split(size)
    return node_hash(range_hash(nodes, start, start + k), range_hash(nodes, start + k, end))


def root(nodes: Nodes, size: int) -> bytes:
    """MTH of the first ``size`` leaves."""
    if size < 0:
        raise ProofError(f"a tree has no size {size}")
    return EMPTY_ROOT if size == 0 else range_hash(nodes, 0, size)


def inclusion_proof(nodes: Nodes, index: int, size: int) -> list[bytes]:
    """RFC 9162 PATH(index, D[size]): the hashes that lead leaf ``index`` to the root
    of the first ``size`` leaves, from the leaf up."""
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of {size} leaves")
    path: list[bytes] = []
    start, end = 0, size
    while end - start > 1:
        k = _split(end - start)
        if index < start + k:
            path.append(range_hash(nodes, start + k, end))
            end = start + k
        else:
            path.append(range_hash(nodes, start, start + k))
            start += k
    path.reverse()
    return path


def consistency_proof(nodes: Nodes, old: int, new: int) -> list[bytes]:
    """RFC 9162 PROOF(old, D[new]): the hashes that show the first ``old`` leaves of
    the tree of ``new`` leaves are the tree of ``old`` leaves (empty when equal)."""
    if not 0 < old <= new:
        raise ProofError(f"no consistency proof from a tree of {old} leaves to one of {new}")
    proof: list[bytes] = []
    start, end, m, whole = 0, new, old, True
    while True:
        if m == end - start:
            if not whole:
                proof.append(range_hash(nodes, start, end))
            break
        k = _split(end - start)
        if m <= k:
            proof.append(range_hash(nodes, start + k, end))
            end = start + k
        else:
            proof.append(range_hash(nodes, start, start + k))
            start, m, whole = start + k, m - k, False
    proof.reverse()
    return proof


def verify_consistency(old: int, new: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]) -> bool:
    """RFC 9162 2.1.4.2: whether ``proof`` shows that the tree of ``old`` leaves with
    root ``old_root`` is the start of the tree of ``new`` leaves with root ``new_root``."""
    if not 0 < old <= new:
        return False
    if old == new:
        return not proof and old_root == new_root
    if any(len(p) != HASH_SIZE for p in proof):
        return False
    path = list(proof)
    if old & (old - 1) == 0:
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return fr == old_root and sr == new_root and sn == 0



class Frontier:
    """MTH of the leaves so far, taken one at a time and let go of: the right edge of the
    tree, the roots of its complete subtrees (one for each bit of the size, the largest
    and leftmost first), which is all a root needs; O(log n) hashes, whatever n.

    Adding a leaf pushes it as a subtree of one leaf, then merges the last two subtrees
    while they are of one size (as many times as the new size has trailing zero bits).
    The root folds them right to left: for sizes 2^a + 2^b + ... (a > b > ...), MTH
    splits at k = 2^a, the largest power of two below the size (RFC 9162 2.1.1), so the
    root is HASH(0x01 || subtree a || MTH of the rest), and the rest splits the same way.
    """

    __slots__ = ("nodes", "size")

    def __init__(self) -> None:
        self.size = 0
        self.nodes: list[bytes] = []  # the complete subtrees' roots, largest first

    def extend(self, leaves: Iterable[bytes]) -> None:
        """Add leaf hashes, in order (an iterator is read as it goes, nothing of it kept;
        a list, from an even size, two at a time: each pair is a complete subtree)."""
        if isinstance(leaves, list) and not self.size & 1 and len(leaves) > 1:
            even = len(leaves) & ~1
            sha256 = hashlib.sha256
            self._push([sha256(b"\x01" + a + b).digest() for a, b in zip(leaves[0:even:2], leaves[1:even:2])], 1)
            leaves = leaves[even:]
        self._push(leaves, 0)

    def _push(self, subtrees: Iterable[bytes], level: int) -> None:
        """Add complete subtrees of 2^level leaves each (the size a multiple of that)."""
        nodes, size, sha256 = self.nodes, self.size >> level, hashlib.sha256
        push, pop = nodes.append, nodes.pop
        try:
            for node in subtrees:
                size += 1
                carry = size
                while not carry & 1:  # node_hash, in line: this runs for every leaf of the store
                    node = sha256(b"\x01" + pop() + node).digest()
                    carry >>= 1
                push(node)
        finally:
            self.size = size << level

    def root(self) -> bytes:
        """MTH of the leaves added so far (SHA-256 of nothing for none)."""
        if not self.nodes:
            return EMPTY_ROOT
        node = self.nodes[-1]
        for left in reversed(self.nodes[:-1]):
            node = node_hash(left, node)
        return node


def streamed_root(leaves: Iterable[bytes]) -> bytes:
    """MTH of ``leaves`` (leaf hashes), read once, in O(log n) memory."""
    frontier = Frontier()
    frontier.extend(leaves)
    return frontier.root()

# -- tiles -------------------------------------------------------------------------------

TileKey = tuple[int, int]  # (tile level, tile index)
ReadTile = Callable[[int, int], bytes]  # the stored hashes of a tile (b"" for none)


def hash_up(hashes: bytes, levels: int) -> bytes:
    """The root of a perfect subtree given its 2^levels nodes, one after the other."""
    row = [hashes[i:i + HASH_SIZE] for i in range(0, len(hashes), HASH_SIZE)]
    for _ in range(levels):
        row = [node_hash(row[i], row[i + 1]) for i in range(0, len(row), 2)]
    assert len(row) == 1, len(row)
    return row[0]


def extend_tiles(read: ReadTile, size: int, leaves: Sequence[bytes]) -> dict[TileKey, bytes]:
    """The tiles that change when ``leaves`` (leaf hashes) are appended to a tree of
    ``size`` leaves whose tiles ``read`` gives: the right-edge tile of each level,
    grown, and every tile that the new nodes fill or begin."""
    changed: dict[TileKey, bytes] = {}
    nodes: list[bytes] = list(leaves)
    start = size  # nodes of tree level 8t before the new ones
    level = 0
    while nodes:
        first = start // TILE_WIDTH
        kept = read(level, first)
        offset = start % TILE_WIDTH
        if len(kept) != offset * HASH_SIZE:
            raise ProofError(f"tile {level}/{first} holds {len(kept) // HASH_SIZE} hashes, not the {offset} "
                             "a tree of this size has")
        row = kept + b"".join(nodes)
        width = TILE_WIDTH * HASH_SIZE
        for i in range(0, len(row), width):
            changed[(level, first + i // width)] = row[i:i + width]
        end = start + len(nodes)
        # Each tile filled by the new nodes is one node of tree level 8(t + 1).
        nodes = [hash_up(changed[(level, k)], TILE_HEIGHT) for k in range(first, end // TILE_WIDTH)]
        start = first
        level += 1
    return changed


ENTRIES = -1  # the "level" of entry bundles in a tile's path (tile/entries/N)


def tile_path(level: int, index: int, width: int = TILE_WIDTH) -> str:
    """C2SP tlog-tiles' path of a tile (``ENTRIES``: of an entry bundle): the level, the
    index in 3-digit elements all but the last beginning with ``x``, and ``.p/W`` for a
    partial one (``tile/0/x001/x234/067.p/8``)."""
    digits = f"{index:03d}"
    digits = "0" * (-len(digits) % 3) + digits
    parts = [digits[i:i + 3] for i in range(0, len(digits), 3)]
    name = "/".join([*("x" + p for p in parts[:-1]), parts[-1]])
    head = "entries" if level == ENTRIES else str(level)
    return f"tile/{head}/{name}" + (f".p/{width}" if width != TILE_WIDTH else "")


def parse_tile_path(path: str) -> tuple[int, int, int]:
    """(level, index, width) of a C2SP tile's path (``tile/…``; ``ENTRIES`` for an entry
    bundle), or ProofError when it is not one, written as the spec writes it."""
    parts = path.split("/")
    if len(parts) < 3 or parts[0] != "tile":
        raise ProofError(f"not a tile: {path[:80]!r}")
    head, rest = parts[1], parts[2:]
    width = TILE_WIDTH
    if len(rest) >= 2 and rest[-2].endswith(".p"):
        width_text = rest.pop()
        rest[-1] = rest[-1][:-2]
        if not width_text.isascii() or not width_text.isdigit() or width_text.startswith("0") or not 0 < int(
                width_text) < TILE_WIDTH:
            raise ProofError(f"a partial tile's width is 1 to 255: {path[:80]!r}")
        width = int(width_text)
    if head == "entries":
        level = ENTRIES
    elif head.isascii() and head.isdigit() and (head == "0" or not head.startswith("0")) and int(head) < 64:
        level = int(head)
    else:
        raise ProofError(f"a tile's level is 0 to 63 or entries: {path[:80]!r}")
    ok = all(len(p) == 4 and p[0] == "x" for p in rest[:-1]) and len(rest[-1]) == 3
    digits = "".join(p[1:] for p in rest[:-1]) + rest[-1]
    if not ok or not digits.isascii() or not digits.isdigit():
        raise ProofError(f"a tile's index is written in 3-digit elements, x before all but the last: {path[:80]!r}")
    index = int(digits)
    if tile_path(level, index, width) != path:
        raise ProofError(f"not a tile's path as C2SP writes it: {path[:80]!r}")
    return level, index, width


class TileNodes:
    """Complete nodes read from tiles: ``read`` gives a stored tile, ``overlay`` the
    tiles changed since (what ``extend_tiles`` returned); tiles read are kept."""

    def __init__(self, read: ReadTile, overlay: Mapping[TileKey, bytes] | None = None) -> None:
        self._read = read
        self.tiles: dict[TileKey, bytes] = dict(overlay or {})

    def tile(self, level: int, index: int) -> bytes:
        key = (level, index)
        found = self.tiles.get(key)
        if found is None:
            found = self.tiles[key] = self._read(level, index)
        return found

    def node(self, level: int, index: int) -> bytes:
        up = level % TILE_HEIGHT
        first = index << up  # its first descendant at tree level 8 * (level // 8)
        tile = self.tile(level // TILE_HEIGHT, first // TILE_WIDTH)
        offset = (first % TILE_WIDTH) * HASH_SIZE
        hashes = tile[offset:offset + (HASH_SIZE << up)]
        if len(hashes) != HASH_SIZE << up:
            raise ProofError(f"node {level}/{index} is not in the tiles: the tree is smaller")
        return hash_up(hashes, up) if up else hashes

"""The club log as its service publishes it to anyone (``pulka serve``, ``/log/…``), after
C2SP tlog-tiles: the latest checkpoint with every signature; the tiles of the tree's
hashes; the entry bundles (each leaf's input: the event's digest, as 64 ASCII hex
digits, length-prefixed); beside them, at their own address, the events themselves
(each leaf's stream, number and row as stored, one JSON line each), from which a
monitor recomputes every digest and every sheet; and the proofs on request.

Each answer is bounded: a tile or a bundle is 256 leaves at most, a proof O(log n)
hashes. A tile or a bundle is given for any width the tree holds (a partial one is the
start of the full one, and never changes); None when the tree does not hold it.
"""

from __future__ import annotations

import hashlib
from threading import Lock

import msgspec

from ledger.proofs.checkpoints import Attestations
from ledger.proofs.held import stream_names
from ledger.proofs.tree import ClubTree
from ledger.store.event_store import Store
from ledger.vocabulary.merkle import ENTRIES, HASH_SIZE, TILE_WIDTH, ProofError

_names: dict[str, str] = {}  # stream ids (as rows hold them) and names, kept between requests
_names_lock = Lock()


class _Digest(msgspec.Struct):
    digest: str


_decode_digest = msgspec.json.Decoder(_Digest).decode


def served_checkpoint(store: Store) -> str | None:
    """The latest stored checkpoint's signed note, every signature on it."""
    if not store.has_events_table():
        return None
    found = Attestations(store).checkpoints()
    return str(found[-1].note()) if found else None


def served_tile(store: Store, level: int, index: int, width: int) -> bytes | None:
    """The hashes of a tile (``ENTRIES``: an entry bundle) of ``width`` hashes."""
    if not store.has_events_table():
        return None
    with ClubTree.open(store) as tree:
        if (index * TILE_WIDTH + width) * TILE_WIDTH ** max(level, 0) > tree.size:
            return None
        if level == ENTRIES:
            return b"".join(_entry(state) for _p, _s, _n, state in tree.rows(index * TILE_WIDTH, width))
        try:
            hashes = tree.nodes.tile(level, index)
        except ProofError:
            return None
    return hashes[:width * HASH_SIZE] if len(hashes) >= width * HASH_SIZE else None


def _entry(state: bytes) -> bytes:
    """A leaf's input, length-prefixed (big-endian uint16): the row's digest, or for a
    row that no longer decodes, what ``tree.row_leaf`` hashes."""
    try:
        data = _decode_digest(state).digest.encode("ascii", "replace")
    except msgspec.DecodeError:
        data = b"?" + hashlib.sha256(state).hexdigest().encode()
    return len(data).to_bytes(2, "big") + data


def served_events(store: Store, index: int, width: int) -> bytes | None:
    """The events of the leaves of tile ``index`` (``width`` of them), one JSON line
    each: ``{"stream": NAME, "number": N, "row": THE ROW AS STORED}``."""
    if not store.has_events_table():
        return None
    with ClubTree.open(store) as tree:
        if index * TILE_WIDTH + width > tree.size:
            return None
        rows = tree.rows(index * TILE_WIDTH, width)
    names = _stream_names(store, {str(stream) for _p, stream, _n, _s in rows})
    return b"".join(b'{"stream":%b,"number":%d,"row":%b}\n' % (msgspec.json.encode(names.get(str(stream), "?")),
                                                              number, state) for _p, stream, number, state in rows)


def _stream_names(store: Store, wanted: set[str]) -> dict[str, str]:
    with _names_lock:
        if not wanted <= _names.keys():
            _names.update(stream_names(store))
        return dict(_names)


def served_consistency(store: Store, old: int, new: int) -> list[bytes] | None:
    """RFC 9162 PROOF(old, D[new]) from the store (None: sizes the tree does not have)."""
    if not store.has_events_table():
        return None
    with ClubTree.open(store) as tree:
        if not 0 < old <= new <= tree.size:
            return None
        return [] if old == new else tree.consistency(old, new)


def served_inclusion(store: Store, index: int, size: int) -> list[bytes] | None:
    """RFC 9162 PATH(index, D[size]) from the store (None: not in the tree)."""
    if not store.has_events_table():
        return None
    with ClubTree.open(store) as tree:
        if not 0 <= index < size <= tree.size:
            return None
        return tree.inclusion(index, size)


__all__ = ["served_checkpoint", "served_consistency", "served_events", "served_inclusion", "served_tile"]

"""The club log's tree (``ledger.vocabulary.merkle``) and the standalone verifier's own
implementation of its checks (``pulka_verify``), against published test vectors and
against a tree written here from RFC 9162's definitions, independently of both.

Published vectors: the RFC 6962 reference tree of Certificate Transparency's test
suites (eight leaf inputs and the root of every prefix) and the proofs of
transparency-dev/merkle's testdata (happy paths of inclusion and consistency; their
mutations are made here the way that suite makes its own: a bit flipped, a hash added,
removed or moved, an index or a size shifted).
"""

from __future__ import annotations

import base64
import hashlib
import random
from typing import Any

import pytest

from merkle_reference import MemoryTree, verify_inclusion

import pulka_verify
from ledger.vocabulary.merkle import (
    EMPTY_ROOT,
    ProofError,
    consistency_proof,
    event_leaf,
    extend_tiles,
    inclusion_proof,
    leaf_hash,
    node_hash,
    verify_consistency,
)

# transparency-dev/merkle, testonly/constants.go (the RFC 6962 reference tree)
LEAF_INPUTS = [bytes.fromhex(h) for h in (
    "", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f")]
ROOTS = [bytes.fromhex(h) for h in (
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
)]

# transparency-dev/merkle, testdata/inclusion/{0..4}/happy-path.json
INCLUSION = [
    (0, 1, "bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0=", "bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0=", []),
    (0, 8, "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=", "bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0=",
     ["lqKW0iTyhcZ77pPDD4owkVfw2qNdxbh+QQt4YwoJz8c=", "Xwg/ChozygdqlSeYMlgNs+DvRYS9/x9UyKNg9Q3jAx4=",
      "a0eq8p7jwq+a+Im8H7klTavTEXfxYjLdaqsDXKOb9uQ="]),
    (5, 8, "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=", "QnGia+DYqE8L1UyMMC58s6O10fpngKQLzOKHNHfatlg=",
     ["vBoGQ7EuTS18d5GPROD095qDi2z57FtcKD4fTYhZnms=", "yoVOoSjtBQtBs1/8G4e46yveRh6eO1WW7Oa51ZdaCuA=",
      "037kGJdt2VdTwcc4Yrk5j6Kiz5tP8P3+izDNlSCWFLc="]),
    (2, 3, "rra8/idLcKFPsGel5VeCZNsPqbUa9eC6FZFY8yngbnc=", "ApjRIpBtz8EIkstTpzmS/FufST6kybrbJ7eRtBJ6f+c=",
     ["+sVCA+fMaWzw38tCySodnbr3CtnmIfS9jZhmLwDjwSU="]),
    (1, 5, "Tju7H3tHjc/nH7YxYxUZo7yhLJrvyhYSv85ME6hiZNQ=", "lqKW0iTyhcZ77pPDD4owkVfw2qNdxbh+QQt4YwoJz8c=",
     ["bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0=", "Xwg/ChozygdqlSeYMlgNs+DvRYS9/x9UyKNg9Q3jAx4=",
      "vBoGQ7EuTS18d5GPROD095qDi2z57FtcKD4fTYhZnms="]),
]

# transparency-dev/merkle, testdata/consistency/{0..4}/happy-path.json
CONSISTENCY = [
    (1, 1, "bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0=", "bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0=", []),
    (1, 8, "bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0=", "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=",
     ["lqKW0iTyhcZ77pPDD4owkVfw2qNdxbh+QQt4YwoJz8c=", "Xwg/ChozygdqlSeYMlgNs+DvRYS9/x9UyKNg9Q3jAx4=",
      "a0eq8p7jwq+a+Im8H7klTavTEXfxYjLdaqsDXKOb9uQ="]),
    (6, 8, "duZ9rbzfHhDht03cYIq9L5jfsW+851J3tSMqEn8gh+8=", "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=",
     ["DrxdNDf74tsVi58Sah0RjjCBgQMdCpSfje3t68VY72o=", "yoVOoSjtBQtBs1/8G4e46yveRh6eO1WW7Oa51ZdaCuA=",
      "037kGJdt2VdTwcc4Yrk5j6Kiz5tP8P3+izDNlSCWFLc="]),
    (2, 5, "+sVCA+fMaWzw38tCySodnbr3CtnmIfS9jZhmLwDjwSU=", "Tju7H3tHjc/nH7YxYxUZo7yhLJrvyhYSv85ME6hiZNQ=",
     ["Xwg/ChozygdqlSeYMlgNs+DvRYS9/x9UyKNg9Q3jAx4=", "vBoGQ7EuTS18d5GPROD095qDi2z57FtcKD4fTYhZnms="]),
    (6, 7, "duZ9rbzfHhDht03cYIq9L5jfsW+851J3tSMqEn8gh+8=", "3bib5AOAnjJXUNPSY814kpwpQreUKjS3fhIslZSnTIw=",
     ["DrxdNDf74tsVi58Sah0RjjCBgQMdCpSfje3t68VY72o=", "sIaT7C5yFZcTBkHoIR5+7cy0wmQTlj7ubB4u0W/7Gl8=",
      "037kGJdt2VdTwcc4Yrk5j6Kiz5tP8P3+izDNlSCWFLc="]),
]


def b64(text: str) -> bytes:
    return base64.b64decode(text)


# -- an implementation of RFC 9162 2.1 written here, from its recursive definitions --------


def mth(leaves: list[bytes]) -> bytes:
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + mth(leaves[:k]) + mth(leaves[k:])).digest()


def path(m: int, leaves: list[bytes]) -> list[bytes]:
    if len(leaves) == 1:
        return []
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    if m < k:
        return path(m, leaves[:k]) + [mth(leaves[k:])]
    return path(m - k, leaves[k:]) + [mth(leaves[:k])]


def subproof(m: int, leaves: list[bytes], whole: bool) -> list[bytes]:
    if m == len(leaves):
        return [] if whole else [mth(leaves)]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    if m <= k:
        return subproof(m, leaves[:k], whole) + [mth(leaves[k:])]
    return subproof(m - k, leaves[k:], False) + [mth(leaves[:k])]


def test_the_hashes_of_rfc_6962_leaves_and_nodes() -> None:
    # transparency-dev/merkle rfc6962_test.go
    assert EMPTY_ROOT.hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert leaf_hash(b"").hex() == "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
    assert leaf_hash(b"L123456").hex() == "395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56"
    assert node_hash(b"N123", b"N456").hex() == "aa217fe888e47007fa15edab33c2b492a722cb106c64667fc2b044444de66bbb"
    assert pulka_verify.leaf_hash(b"L123456") == leaf_hash(b"L123456")
    assert pulka_verify.node_hash(b"N123", b"N456") == node_hash(b"N123", b"N456")


def test_the_roots_of_the_reference_tree() -> None:
    tree = MemoryTree([leaf_hash(x) for x in LEAF_INPUTS])
    assert [tree.root(n) for n in range(9)] == ROOTS
    # grown one leaf at a time, the tiles give the same roots
    grown = MemoryTree()
    for n, data in enumerate(LEAF_INPUTS, start=1):
        grown.append([leaf_hash(data)])
        assert grown.root() == ROOTS[n]


@pytest.mark.parametrize("index, size, root, leaf, proof", INCLUSION)
def test_published_inclusion_proofs(index: int, size: int, root: str, leaf: str, proof: list[str]) -> None:
    hashes = [b64(p) for p in proof]
    assert verify_inclusion(b64(leaf), index, size, hashes, b64(root))
    assert pulka_verify.included(b64(leaf), index, size, hashes, b64(root))
    tree = MemoryTree([leaf_hash(x) for x in LEAF_INPUTS])
    assert inclusion_proof(tree, index, size) == hashes
    for bad in mutated_inclusions(index, size, b64(root), b64(leaf), hashes):
        assert not verify_inclusion(*bad), bad
        assert not pulka_verify.included(*bad), bad


@pytest.mark.parametrize("old, new, old_root, new_root, proof", CONSISTENCY)
def test_published_consistency_proofs(old: int, new: int, old_root: str, new_root: str, proof: list[str]) -> None:
    hashes = [b64(p) for p in proof]
    assert verify_consistency(old, new, b64(old_root), b64(new_root), hashes)
    assert pulka_verify.consistent(old, new, b64(old_root), b64(new_root), hashes)
    tree = MemoryTree([leaf_hash(x) for x in LEAF_INPUTS])
    assert consistency_proof(tree, old, new) == hashes
    for bad in mutated_consistencies(old, new, b64(old_root), b64(new_root), hashes):
        assert not verify_consistency(*bad), bad
        assert not pulka_verify.consistent(*bad), bad


def flipped(hashes: list[bytes], i: int) -> list[bytes]:
    out = list(hashes)
    out[i] = bytes([out[i][0] ^ 0x10]) + out[i][1:]
    return out


def mutated_inclusions(index: int, size: int, root: bytes, leaf: bytes, proof: list[bytes]) -> list[tuple[Any, ...]]:
    junk = hashlib.sha256(b"garbage").digest()
    cases: list[tuple[Any, ...]] = [
        (leaf, index, size, proof, junk), (junk, index, size, proof, root), (leaf, index, size, proof + [junk], root),
        (leaf, index, size, [junk] + proof, root), (leaf, index, size, proof + [root], root),
        (leaf, index + 1, size, proof, root), (leaf, index, size * 2, proof, root),
        (leaf, index ^ 2, size, proof, root),
    ]
    if index > 0:
        cases.append((leaf, index - 1, size, proof, root))
    if size > 1:
        cases.append((leaf, index, size // 2, proof, root))
    cases += [(leaf, index, size, flipped(proof, i), root) for i in range(len(proof))]
    if proof:
        cases += [(leaf, index, size, proof[:-1], root), (leaf, index, size, proof[1:], root)]
    return cases


def mutated_consistencies(old: int, new: int, r1: bytes, r2: bytes, proof: list[bytes]) -> list[tuple[Any, ...]]:
    junk = hashlib.sha256(b"garbage").digest()
    cases: list[tuple[Any, ...]] = [
        (old, new, junk, r2, proof), (old, new, r1, junk, proof), (old, new, r1, r2, proof + [junk]),
        (old, new, r1, r2, [junk] + proof), (0, new, r1, r2, proof), (old, new * 2, r1, r2, proof),
        (new + 1, new, r1, r2, proof),
    ]
    if old != new or r1 != r2:
        cases.append((old, new, r2, r1, proof))
    cases += [(old, new, r1, r2, flipped(proof, i)) for i in range(len(proof))]
    if proof:
        cases.append((old, new, r1, r2, proof[:-1]))
    return cases


# -- against the implementation written here ---------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_roots_and_proofs_of_random_trees_match_the_definitions(seed: int) -> None:
    rng = random.Random(seed)
    leaves = [leaf_hash(rng.randbytes(rng.randrange(40))) for _ in range(rng.randrange(300, 1100))]
    tree = MemoryTree()
    start = 0
    while start < len(leaves):  # grown in uneven batches across tile boundaries
        step = rng.choice([1, 3, 255, 256, 257, 600])
        tree.append(leaves[start:start + step])
        start += step
    for size in {1, 2, 255, 256, 257, 511, 512, 513, len(leaves), rng.randrange(1, len(leaves))}:
        if size > len(leaves):
            continue
        assert tree.root(size) == mth(leaves[:size])
        for index in rng.sample(range(size), min(size, 8)):
            proof = inclusion_proof(tree, index, size)
            assert proof == path(index, leaves[:size])
            assert verify_inclusion(leaves[index], index, size, proof, tree.root(size))
            assert pulka_verify.included(leaves[index], index, size, proof, tree.root(size))
        for old in rng.sample(range(1, size + 1), min(size, 8)):
            proof = consistency_proof(tree, old, size)
            assert proof == subproof(old, leaves[:size], True)
            assert verify_consistency(old, size, mth(leaves[:old]), mth(leaves[:size]), proof)
            assert pulka_verify.consistent(old, size, mth(leaves[:old]), mth(leaves[:size]), proof)


def test_a_tree_of_three_tile_levels_matches_the_definition() -> None:
    # 2^16 + 5 leaves: full tiles at levels 0 and 1, a partial one at level 2
    leaves = [leaf_hash(i.to_bytes(4, "big")) for i in (range(65541))]
    tree = MemoryTree(leaves[:40000])
    tree.append(leaves[40000:])
    assert {t for t, _ in tree.tiles} == {0, 1, 2}
    assert tree.root() == mth(leaves)
    assert tree.root(65536) == mth(leaves[:65536])
    assert inclusion_proof(tree, 65540, 65541) == path(65540, leaves)
    assert consistency_proof(tree, 1000, 65541) == subproof(1000, leaves, True)


def test_tiles_refuse_to_grow_from_the_wrong_size() -> None:
    tree = MemoryTree([leaf_hash(b"a"), leaf_hash(b"b")])
    with pytest.raises(ProofError):
        extend_tiles(lambda t, k: tree.tiles.get((t, k), b""), 3, [leaf_hash(b"c")])
    with pytest.raises(ProofError):
        inclusion_proof(tree, 2, 2)
    with pytest.raises(ProofError):
        consistency_proof(tree, 0, 2)


def test_an_events_leaf_is_its_digest_as_ascii() -> None:
    digest = hashlib.sha256(b"an event").hexdigest()
    assert event_leaf(digest) == hashlib.sha256(b"\x00" + digest.encode()).digest()

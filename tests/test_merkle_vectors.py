"""The published vectors of the formats, through pulka's verifiers and the player's.

- transparency-dev/merkle's 196 inclusion and consistency proof vectors (RFC 9162 2.1.3.2
  and 2.1.4.2; ``tests/data/transparency-dev``, with their source and licence): each
  accepted by both verifiers exactly when the vector says it must be;
- the examples of C2SP's specifications: a tile's path (tlog-tiles: index 1234067 is
  ``x001/x234/067``; a tree of 70,000 leaves has 273 full level-0 tiles, a partial one
  of 112, a full level-1 tile, a partial one of 17 and a partial level-2 tile of 1);
  the message a witness signs (tlog-cosignature); the body of an ``add-checkpoint``
  request (tlog-witness), parsed as the spec writes it.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from merkle_reference import verify_inclusion

import pulka_verify
from ledger.proofs.witness import parse_request
from ledger.vocabulary.merkle import (
    ENTRIES,
    ProofError,
    parse_tile_path,
    tile_path,
    verify_consistency,
)
from ledger.vocabulary.notes import cosignature_message

VECTORS = Path(__file__).resolve().parent / "data" / "transparency-dev"


def b64(text: str) -> bytes:
    return base64.b64decode(text)


def cases(kind: str) -> list[Any]:
    return [pytest.param(json.loads(path.read_text()), id=str(path.relative_to(VECTORS / kind)))
            for path in sorted((VECTORS / kind).rglob("*.json"))]


def test_every_vector_is_here() -> None:
    assert len(cases("inclusion")) == 98 and len(cases("consistency")) == 98


@pytest.mark.parametrize("case", cases("inclusion"))
def test_inclusion_vectors(case: dict[str, Any]) -> None:
    leaf, proof, root = b64(case["leafHash"]), [b64(p) for p in case["proof"] or []], b64(case["root"])
    want = not case["wantErr"]
    assert verify_inclusion(leaf, case["leafIdx"], case["treeSize"], proof, root) is want, case["desc"]
    assert pulka_verify.included(leaf, case["leafIdx"], case["treeSize"], proof, root) is want, case["desc"]


@pytest.mark.parametrize("case", cases("consistency"))
def test_consistency_vectors(case: dict[str, Any]) -> None:
    proof = [b64(p) for p in case["proof"] or []]
    old, new, old_root, new_root = case["size1"], case["size2"], b64(case["root1"]), b64(case["root2"])
    want = not case["wantErr"]
    assert verify_consistency(old, new, old_root, new_root, proof) is want, case["desc"]
    assert pulka_verify.consistent(old, new, old_root, new_root, proof) is want, case["desc"]


def test_the_tile_paths_of_c2sp_tlog_tiles() -> None:
    assert tile_path(0, 1234067) == "tile/0/x001/x234/067"
    assert tile_path(0, 5) == "tile/0/005" and tile_path(3, 1000, 7) == "tile/3/x001/000.p/7"
    assert tile_path(ENTRIES, 1234067, 12) == "tile/entries/x001/x234/067.p/12"
    assert parse_tile_path("tile/0/x001/x234/067") == (0, 1234067, 256)
    assert parse_tile_path("tile/entries/000.p/255") == (ENTRIES, 0, 255)
    for bad in ("tile/0/1234067", "tile/0/x1/234", "tile/00/000", "tile/64/000", "tile/0/000.p/256",
                "tile/0/000.p/0", "tile/0/000.p/07", "tile/0/001/002", "tile/a/000", "tiles/0/000", "tile/0/x000/001"):
        with pytest.raises(ProofError):
            parse_tile_path(bad)


def tiles_of(size: int) -> list[tuple[int, int, int]]:
    """The tiles (level, index, width) a tree of ``size`` leaves is served as."""
    found = []
    level = 0
    while size >= 256 ** level:
        nodes = size // 256 ** level  # complete nodes of this tile level's bottom row
        found += [(level, i, 256) for i in range(nodes // 256)]
        if nodes % 256:
            found.append((level, nodes // 256, nodes % 256))
        level += 1
    return found


def test_the_tiles_of_a_tree_of_70000_leaves_as_c2sp_counts_them() -> None:
    tiles = tiles_of(70_000)
    assert sum(1 for t in tiles if t[0] == 0 and t[2] == 256) == 273
    assert (0, 273, 112) in tiles and (1, 0, 256) in tiles and (1, 1, 17) in tiles and (2, 0, 1) in tiles
    assert len(tiles) == 273 + 4
    assert tiles_of(256) == [(0, 0, 256), (1, 0, 1)]


def test_the_message_a_witness_signs() -> None:
    text = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
    assert cosignature_message(text, 1679315147) == (
        b"cosignature/v1\ntime 1679315147\nexample.com/behind-the-sofa\n20852163\n"
        b"CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n")


def test_the_add_checkpoint_request_of_c2sp_tlog_witness() -> None:
    body = ("old 20852014\n"
            "PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\n"
            "jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=\n"
            "5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=\n"
            "/6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=\n"
            "\n"
            "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n"
            "— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo"
            "+zyWE+xeMcTOAYQ8=\n"
            "— example.com/behind-the-sofa opLqBQsREYCgu6xQkYQwJr9fo45a62DN9EdmHXnZdXNqlcVGlCum2Wks+49/V6267UEjw6QUXTS5"
            "Rovnzv++qbSzm9Q=\n")
    request = parse_request(body.encode())
    assert request.old == 20852014 and len(request.proof) == 4 and len(request.note.signatures) == 2
    for bad in (body.replace("old 20852014", "old 020852014"), body.replace("old ", "old  "),
                body.replace("\n\nexample", "\nexample"), "old 1\n" + "AAAA\n" + body.split("\n", 1)[1],
                body.replace("old 20852014", "old ２")):
        with pytest.raises(ValueError):
            parse_request(bad.encode())

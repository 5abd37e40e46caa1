"""Every field of a bundle, of a checkpoint and of a consistency proof, mutated one at a
time, through the player's verifier (``pulka_verify``) with the club's trust file and
a memory of an earlier checkpoint: each mutation the specifications reject is refused
(exit 1, a reason, never a traceback nor an unreadable-file exit), and the few they
accept are accepted: a field that no signature covers and that the verifier does not
rely on (``stored``, a decision's ``what`` and ``keys``, an event's ``digest`` left
out: it is recomputed), a signature line of a key no one trusts, a decision's
signature or a consistency proof given twice, the list of the key's rotations left
out when there was none.
"""

from __future__ import annotations

import base64
import copy
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import pulka_verify
from ledger.vocabulary.notes import Signer, sign_note
from tests.helpers import ok
from tests.test_trust import Club, club  # noqa: F401 (the fixture)

Path_ = tuple[Any, ...]

# Mutations the specifications accept: (path prefix, what was done).
ACCEPTED = [
    (("stored",), None),
    (("signatures", 0, "what"), None),
    (("signatures", 0, "keys"), None),
    (("events", "*", "digest"), "removed"),
    (("signatures",), "an element twice"),
    (("consistency",), "an element twice"),
    (("rotations",), "removed"),  # there was none: the log's key is the trust file's
]


def leaves(doc: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    """Every value of a JSON document with its path, containers included."""
    yield path, doc
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from leaves(value, (*path, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            yield from leaves(value, (*path, index))


def mutations(value: Any) -> list[tuple[str, Any]]:
    """What a value may be changed into: another of its kind, and another kind."""
    if isinstance(value, bool):
        return [("negated", not value)]
    if isinstance(value, int):
        return [("plus one", value + 1), ("minus one", value - 1), ("a string", str(value)), ("null", None)]
    if isinstance(value, str):
        found = [("emptied", ""), ("a number", 7)]
        if value:
            i = len(value) // 2
            found.append(("a character changed", value[:i] + ("B" if value[i] != "B" else "C") + value[i + 1:]))
            found.append(("its last character dropped", value[:-1]))
        return found
    if isinstance(value, list):
        found = [("a string", "x")]
        if value:
            found += [("its last element dropped", value[:-1]), ("an element twice", [*value, value[0]]),
                      ("emptied", [])]
        return found
    if isinstance(value, dict):
        return [("a list", [])]
    return [("a string", "x")]


def put(doc: Any, path: Path_, value: Any, remove: bool = False) -> Any:
    out = copy.deepcopy(doc)
    target = out
    for step in path[:-1]:
        target = target[step]
    if remove:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


def accepted(path: Path_, what: str) -> bool:
    """Whether the specs accept ``what`` done at ``path``: anything within a field of
    ``ACCEPTED`` listed with None, else that one change to that very field."""
    for prefix, done in ACCEPTED:
        within = len(path) >= len(prefix) if done is None else (len(path) == len(prefix) and done == what)
        if within and all(p in ("*", q) for p, q in zip(prefix, path)):
            return True
    return False


def every_mutation(doc: dict[str, Any]) -> Iterator[tuple[Path_, str, Any]]:
    for path, value in leaves(doc):
        if not path:
            continue
        for what, changed in mutations(value):
            yield path, what, put(doc, path, changed)
        if isinstance(path[-1], str):
            yield path, "removed", put(doc, path, None, remove=True)


def verdict(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    status = pulka_verify.main(argv)
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return status, out.out + out.err


@pytest.fixture
def later(club: Club) -> dict[str, Any]:  # noqa: F811
    """A player who saw the first checkpoint; the bundle of a later one, cosigned."""
    assert club.check(club.bundle(), state="seen").returncode == 0
    ok(club.db, "deal", "t1", "pass pass pass | 2 5 3")
    ok(club.db, "checkpoint", "--key", club.key("club"))
    club.cosign_as_witness()
    return club.bundle()


def test_every_field_of_a_bundle_mutated(club: Club, later: dict[str, Any], capsys: pytest.CaptureFixture[str],  # noqa: F811
                                         tmp_path: Path) -> None:
    seen = club.folder / "seen"

    def check(bundle: dict[str, Any]) -> tuple[int, str]:
        memory = tmp_path / "memory"
        shutil.rmtree(memory, ignore_errors=True)
        shutil.copytree(seen, memory)  # the player's memory as it was, for each mutation
        path = tmp_path / "bundle.json"
        path.write_text(json.dumps(bundle))
        return verdict(capsys, [str(path), "--trust", str(club.trust), "--state", str(memory), "--no-recompute"])

    status, said = check(later)
    assert status == 0, said
    wrong: list[str] = []
    count = 0
    for path, what, bundle in every_mutation(later):
        count += 1
        status, said = check(bundle)
        expected = 0 if accepted(path, what) else 1
        if status != expected:
            wrong.append(f"{path} {what}: exit {status}, expected {expected}: {said[-300:]}")
    assert not wrong, "\n".join(wrong)
    assert count > 300


def note_mutations(note: str) -> Iterator[tuple[str, str, bool]]:
    """A signed checkpoint changed line by line: (what, the note, whether accepted)."""
    text, _, lines = note.partition("\n\n")
    body = text.split("\n")
    for i, line in enumerate(body):
        for what, changed in mutations(line):
            if isinstance(changed, str):
                yield f"line {i + 1} {what}", "\n".join([*body[:i], changed, *body[i + 1:]]) + "\n\n" + lines, False
    signatures = lines.rstrip("\n").split("\n")
    for i, line in enumerate(signatures):
        rest = [s for j, s in enumerate(signatures) if j != i]
        yield f"signature {i + 1} dropped", text + "\n\n" + "\n".join(rest) + "\n", False
        name, sig = line.rsplit(" ", 1)
        raw = base64.b64decode(sig)
        flipped = base64.b64encode(raw[:-1] + bytes([raw[-1] ^ 1])).decode()
        yield f"signature {i + 1} changed", note.replace(line, f"{name} {flipped}"), False
    stranger = Signer.generate("stranger.example/key")
    extra = sign_note(text + "\n", [stranger]).signatures[0].line()
    yield "a stranger's signature added", note + extra, True
    yield "the final newline dropped", note[:-1], False


def test_every_line_of_the_checkpoint_mutated(club: Club, later: dict[str, Any],  # noqa: F811
                                              capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    wrong = []
    for what, note, ok_ in note_mutations(later["checkpoint"]):
        path = tmp_path / "bundle.json"
        path.write_text(json.dumps(dict(later, checkpoint=note)))
        status, said = verdict(capsys, [str(path), "--trust", str(club.trust), "--no-state", "--no-recompute"])
        if status != (0 if ok_ else 1):
            wrong.append(f"{what}: exit {status}: {said[-300:]}")
    assert not wrong, "\n".join(wrong)


def test_every_field_of_a_consistency_proof_mutated(club: Club, later: dict[str, Any],  # noqa: F811
                                                    capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    old = tmp_path / "old.txt"
    old.write_text(ok(club.db, "checkpoint", "--size", str(club.bundle()["consistency"][0]["size"])))
    new = tmp_path / "new.txt"
    new.write_text(later["checkpoint"])
    proof: dict[str, Any] = json.loads(ok(club.db, "prove", "--consistency", str(old), str(new)))
    path = tmp_path / "proof.json"
    path.write_text(json.dumps(proof))
    status, said = verdict(capsys, ["--consistency", str(path), "--key", club.pub("club"), "--no-state"])
    assert status == 0, said
    wrong = []
    for field, what, changed in every_mutation(proof):
        path.write_text(json.dumps(changed))
        status, said = verdict(capsys, ["--consistency", str(path), "--key", club.pub("club"), "--no-state"])
        if status != 1:
            wrong.append(f"{field} {what}: exit {status}: {said[-300:]}")
    assert not wrong, "\n".join(wrong)

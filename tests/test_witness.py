"""A witness of its own (``ledger.proofs.witness``, ``pulka witness``): C2SP tlog-witness's
``add-checkpoint`` answered as the spec says for every case, a cosignature/v1
(timestamped) only for a checkpoint consistent with the last one it cosigned, and its
state unchanged by anything it refuses; then a real ``pulka witness`` process, which
holds no club's database, asked by the club (``pulka checkpoint --trust``), refusing a
club whose store was rewritten and forged, so that the player's verifier, which
requires its cosignature, refuses the forgery too.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from cli.main import main
from ledger.proofs.witness import SIZE_TYPE, FollowedLog, Witness, add_checkpoint_body, origin_hash
from ledger.vocabulary.merkle import consistency_proof, leaf_hash
from merkle_reference import MemoryTree
from ledger.vocabulary.notes import (
    COSIGNATURE_V1,
    Checkpoint,
    Note,
    Signer,
    cosignature_time,
    open_note,
    parse_note,
    sign_note,
)
from tests.conftest import RawEvents
from tests.helpers import ok, run
from tests.serving import PULKA, ROOT, START, free_port

ORIGIN = "club.example/pulka"
NOW = 1_800_000_000


class Log:
    """A log in memory, its key, and the checkpoints it signs."""

    def __init__(self, key: Signer, leaves: int, salt: bytes = b"") -> None:
        self.key = key
        self.tree = MemoryTree([leaf_hash(salt + str(i).encode()) for i in range(leaves)])

    def grow(self, leaves: int, salt: bytes = b"") -> None:
        start = self.tree.size
        self.tree.append([leaf_hash(salt + str(start + i).encode()) for i in range(leaves)])

    def note(self, size: int | None = None, signers: list[Signer] | None = None, origin: str = ORIGIN) -> Note:
        size = self.tree.size if size is None else size
        return sign_note(Checkpoint(origin, size, self.tree.root(size)).text(), signers or [self.key])

    def body(self, old: int, size: int | None = None) -> bytes:
        size = self.tree.size if size is None else size
        proof = [] if old in (0, size) else consistency_proof(self.tree, old, size)
        return add_checkpoint_body(old, proof, self.note(size))


@pytest.fixture
def keys() -> dict[str, Signer]:
    return {"club": Signer.generate(ORIGIN), "witness": Signer.generate("w1.example/witness", COSIGNATURE_V1),
            "arbiter": Signer.generate("arbiter:Oleg")}


@pytest.fixture
def witness(keys: dict[str, Signer], tmp_path: Path) -> Witness:
    return Witness(keys["witness"], [FollowedLog(ORIGIN, (keys["club"].verifier,))], tmp_path / "w" / "state.json",
                   clock=lambda: NOW)


def state(witness: Witness) -> dict[str, object]:
    found: dict[str, object] = json.loads(witness.state.path.read_text())
    return found


def test_a_witness_cosigns_the_first_checkpoint_and_each_consistent_one(witness: Witness, keys: dict[str, Signer]) -> None:
    log = Log(keys["club"], 5)
    answer = witness.add_checkpoint(log.body(0))
    assert answer.status == 200, answer
    cosigned = parse_note(log.note().text + "\n" + answer.body)
    opened = open_note(cosigned, [keys["witness"].verifier])
    assert [s.name for s in opened.verified] == ["w1.example/witness"]
    assert cosignature_time(opened.verified[0]) == NOW  # cosignature/v1: timestamped
    log.grow(7)
    assert witness.add_checkpoint(log.body(5)).status == 200
    assert state(witness)[ORIGIN]["size"] == 12  # type: ignore[index]
    same = witness.add_checkpoint(log.body(12))  # the same checkpoint again: cosigned again
    assert same.status == 200
    served = witness.checkpoint(origin_hash(ORIGIN))
    assert served.status == 200 and parse_note(served.body).text == log.note().text
    assert len(parse_note(served.body).signatures) == 2  # the log's, and its own
    assert witness.checkpoint(origin_hash("other.example")).status == 404


def test_a_witness_refuses_what_the_spec_refuses_and_keeps_its_state(witness: Witness, keys: dict[str, Signer]) -> None:
    log = Log(keys["club"], 5)
    assert witness.add_checkpoint(log.body(0)).status == 200
    kept = witness.state.path.read_bytes()
    fork = Log(keys["club"], 9, salt=b"another history ")  # the same key, other events
    stale = witness.add_checkpoint(log.body(0))
    cases = {
        "another old size": (log.body(3), 409),
        "a fork, with a proof of its own": (fork.body(5), 422),
        "the same size, another root": (fork.body(5, size=5), 422),
        "an unknown origin": (add_checkpoint_body(5, [], log.note(origin="other.example/log")), 404),
        "signed by the witness's own key": (add_checkpoint_body(5, [], log.note(signers=[keys["witness"]])), 403),
        "signed by an arbiter, not the log": (add_checkpoint_body(5, [], log.note(signers=[keys["arbiter"]])), 403),
        "an old size above the checkpoint's": (add_checkpoint_body(9, [], log.note()), 400),
        "malformed": (b"old 5\n\nnot a checkpoint\n", 400),
        "no empty line": (b"old 5\n" + str(log.note()).encode(), 400),
    }
    for name, (body, status) in cases.items():
        answer = witness.add_checkpoint(body)
        assert answer.status == status, (name, answer)
        assert witness.state.path.read_bytes() == kept, name  # nothing it refuses changes its state
    assert stale.status == 409 and stale.body == "5\n" and stale.content_type == SIZE_TYPE
    # a changed signature of the log: refused, as the spec says (403)
    note = str(log.note())
    raw = base64.b64decode(note.rsplit(" ", 1)[1])
    forged = note.rsplit(" ", 1)[0] + " " + base64.b64encode(raw[:-1] + bytes([raw[-1] ^ 1])).decode() + "\n"
    assert witness.add_checkpoint(b"old 5\n\n" + forged.encode()).status == 403
    assert witness.state.path.read_bytes() == kept


def test_a_new_witness_takes_no_proof_from_size_0_and_no_empty_tree_with_a_root(keys: dict[str, Signer],
                                                                                  tmp_path: Path) -> None:
    fresh = Witness(keys["witness"], [FollowedLog(ORIGIN, (keys["club"].verifier,))], tmp_path / "state.json")
    log = Log(keys["club"], 5)
    assert fresh.add_checkpoint(add_checkpoint_body(0, [bytes(32)], log.note())).status == 422
    empty = sign_note(Checkpoint(ORIGIN, 0, bytes(32)).text(), [keys["club"]])
    assert fresh.add_checkpoint(add_checkpoint_body(0, [], empty)).status == 422
    assert not fresh.state.path.exists()


def test_a_witness_is_no_log_and_no_arbiter(keys: dict[str, Signer], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cosignature/v1"):
        Witness(keys["club"], [], tmp_path / "state.json")


# -- a real witness process, asked by the club ----------------------------------------------------


class Witnessing:
    """``pulka witness`` on a free port, its output in a file."""

    def __init__(self, folder: Path, key: Path, trust: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.state = folder / "witness-state.json"
        self.out = open(folder / "witness.log", "ab")
        self.proc = subprocess.Popen([*PULKA, "witness", "--key", str(key), "--log", str(trust), "--state",
                                      str(self.state), "--port", str(self.port)], stdout=self.out,
                                     stderr=subprocess.STDOUT, cwd=ROOT, env=dict(os.environ))
        deadline = time.monotonic() + START
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, (folder / "witness.log").read_text()
            try:
                httpx.get(f"{self.url}/{origin_hash(ORIGIN)}/checkpoint", timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.05)  # a poll of a condition, bounded by the deadline
        raise AssertionError("pulka witness did not answer in time")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(20)
        self.out.close()


def keygen(name: str, out: Path, *flags: str) -> None:
    result = CliRunner().invoke(main, ["keygen", name, "--out", str(out), *flags])
    assert result.exit_code == 0, result.output


@pytest.fixture
def evening(tmp_path: Path) -> Iterator[tuple[str, Witnessing, Path]]:
    """A club's evening, its log key, a witness process its trust file names."""
    db = str(tmp_path / "club.db")
    ok(db, "new", "t1", "--players", "Anna,Boris,Vera", "--pulya", "10")
    ok(db, "deal", "t1", "6S pass pass | 6S | whist whist | 6 2 2")
    keygen(ORIGIN, tmp_path / "club.key")
    keygen("w1.example/witness", tmp_path / "w1.key", "--witness")
    ok(db, "checkpoint", "--key", str(tmp_path / "club.key"))
    port_trust = tmp_path / "club.trust"
    port_trust.write_text(ok(db, "trust", "--witness", str(tmp_path / "w1.pub"), "-"))
    served = Witnessing(tmp_path, tmp_path / "w1.key", port_trust)
    trust = tmp_path / "club-with-url.trust"
    trust.write_text(ok(db, "trust", "--witness", str(tmp_path / "w1.pub"), served.url))
    try:
        yield db, served, trust
    finally:
        served.stop()


def verify(folder: Path, bundle: str, trust: Path, *more: str) -> subprocess.CompletedProcess[str]:
    path = folder / "bundle.json"
    path.write_text(bundle)
    return subprocess.run([PULKA[0], str(ROOT / "pulka_verify.py"), str(path), "--trust", str(trust), "--no-recompute",
                           *more], capture_output=True, text=True)


def test_the_club_asks_its_witness_and_the_player_requires_its_cosignature(evening: tuple[str, Witnessing, Path],
                                                                          tmp_path: Path) -> None:
    db, served, trust = evening
    bare = verify(tmp_path, ok(db, "prove", "t1"), trust, "--no-state")
    assert bare.returncode == 1 and "0 of the trust file's witnesses cosigned" in bare.stdout, bare.stdout
    done = run(db, "checkpoint", "--trust", str(trust))
    assert done.exit_code == 0 and "witness w1.example/witness: cosigned" in done.stderr, done.output
    assert "\u2014 w1.example/witness " in done.stdout
    checked = verify(tmp_path, ok(db, "prove", "t1"), trust, "--state", str(tmp_path / "me"))
    assert checked.returncode == 0, checked.stdout
    assert "cosigned by the witness w1.example/witness" in checked.stdout
    assert "1 of 1 witnesses cosigned (the trust file requires 1)" in checked.stdout
    # the store grows; the witness is given the consistency proof from what it cosigned
    ok(db, "deal", "t1", "pass pass pass | 2 5 3")
    done = run(db, "checkpoint", "--key", str(tmp_path / "club.key"), "--trust", str(trust))
    assert done.exit_code == 0, done.output
    assert json.loads(served.state.read_text())[ORIGIN]["size"] == int(done.stdout.split("\n")[1])
    assert verify(tmp_path, ok(db, "prove", "t1"), trust, "--state", str(tmp_path / "me")).returncode == 0
    ok(db, "verify")  # the witness's cosignatures are checked with the key stored beside them


def test_a_rewritten_and_forged_log_gets_no_cosignature_and_the_player_refuses_it(
        evening: tuple[str, Witnessing, Path], tmp_path: Path) -> None:
    db, served, trust = evening
    ok(db, "checkpoint", "--trust", str(trust))
    before = served.state.read_bytes()
    raw = RawEvents(db)
    try:  # the club rewrites a deal, drops the tree's cache, and forges what pulka would not sign
        raw.rechain("t1", 5, lambda event: event.update(player="Boris"))
        raw.execute("DROP TABLE merkle_tiles")
    finally:
        raw.close()
    assert "would fork the log" in run(db, "checkpoint", "--key", str(tmp_path / "club.key")).output
    forged = forge_checkpoint(db, tmp_path / "club.key")
    asked = run(db, "checkpoint", "--trust", str(trust))
    assert asked.exit_code == 1 and "refused (422)" in asked.stderr, asked.output
    assert "1 witness(es) cosigned" not in asked.output and "players will not accept" in asked.output
    assert served.state.read_bytes() == before  # the witness's state is as it was
    assert forged.size > 0
    done = verify(tmp_path, ok(db, "prove", "t1"), trust, "--no-state")
    assert done.returncode == 1 and "0 of the trust file's witnesses cosigned" in done.stdout, done.stdout


def forge_checkpoint(db: str, key: Path) -> Checkpoint:
    """What a club that bypasses pulka's refusal stores: a checkpoint of the rewritten rows."""
    from ledger.proofs.tree import ClubTree
    from ledger.store.event_store import Store
    from ledger.vocabulary.attestation import CHECKPOINTS_STREAM, CheckpointMade, NoteSignature

    signer = Signer.parse(key.read_text())
    with Store(db) as store:
        with ClubTree.fresh(store) as tree:
            checkpoint = Checkpoint(ORIGIN, tree.size, tree.root())
        note = sign_note(checkpoint.text(), [signer])
        stored = store.load(CHECKPOINTS_STREAM)
        store.append(CHECKPOINTS_STREAM, [CheckpointMade(
            size=checkpoint.size, root=checkpoint.root_b64, at="2026-12-01T21:00:00+00:00",
            signatures=(NoteSignature(signer.verifier.text(), note.signatures[0].base64),))],
            expected=len(stored), previous=stored[-1].digest)
    return checkpoint

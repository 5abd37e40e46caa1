"""What the club log's tree and its signed checkpoints catch (issue 22, item 5), on both
stores: a rewrite, a deletion, an insertion or a reordering of stored events before a
checkpoint (whatever was chained anew), a forked history, a bundle whose events, proof,
checkpoint or signature was changed, a checkpoint signed by an unknown key, a proof for
another game. And that a player checks a bundle with the standalone verifier alone: a
separate Python process in which only the standard library and the ``cryptography``
library (with cffi, its own dependency) can be imported, nothing of pulka.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cli.main import main
from ledger.proofs.checkpoints import Attestations
from ledger.store.event_store import Store
from ledger.proofs.tree import ClubTree
from ledger.vocabulary.attestation import CHECKPOINTS_STREAM, CheckpointMade, NoteSignature
from ledger.vocabulary.notes import Checkpoint, Signer, parse_note, sign_note
from tests.conftest import RawEvents
from tests.helpers import ok, run

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Club:
    db: str
    folder: Path
    club_key: Path
    club_pub: Path
    arbiter_key: Path
    arbiter_pub: Path
    published: Path  # the checkpoint as printed and kept outside the store

    def verify(self, *args: str) -> tuple[int, str]:
        result = run(self.db, "verify", *args)
        return result.exit_code, result.output


def keygen(name: str, out: Path) -> None:
    result = CliRunner().invoke(main, ["keygen", name, "--out", str(out)])
    assert result.exit_code == 0, result.output


@pytest.fixture
def club(store_url: str, tmp_path: Path) -> Club:
    """Two tables of an evening, an arbiter's penalty signed by him, a checkpoint
    signed by the club and cosigned by the arbiter, published to a file."""
    db = store_url
    for game in ("t1", "t2"):
        ok(db, "new", game, "--players", "Anna,Boris,Vera", "--pulya", "10")
        ok(db, "deal", game, "6S pass pass | 6S | whist whist | 6 2 2")
    ok(db, "penalty", "t1", "Boris", "gora", "4", "--reason", "late", "--by", "arbiter:Oleg")
    ok(db, "deal", "t2", "7H pass pass | 7H | whist pass | 7 2 1")
    keygen("club.example/pulka", tmp_path / "club.key")
    keygen("arbiter:Oleg", tmp_path / "oleg.key")
    ok(db, "sign", "t1", "9", "--key", str(tmp_path / "oleg.key"))
    published = tmp_path / "published.txt"
    ok(db, "checkpoint", "--key", str(tmp_path / "club.key"))
    published.write_text(ok(db, "cosign", "--key", str(tmp_path / "oleg.key")), encoding="utf-8")
    return Club(db, tmp_path, tmp_path / "club.key", tmp_path / "club.pub", tmp_path / "oleg.key",
                tmp_path / "oleg.pub", published)


@pytest.fixture
def tamper(club: Club) -> Iterator[RawEvents]:
    raw = RawEvents(club.db)
    yield raw
    raw.close()


def checkpoint_size(club: Club) -> int:
    return int(club.published.read_text(encoding="utf-8").split("\n")[1])


def shift_positions(raw: RawEvents, start: int, by: int) -> None:
    """Move every row from store position ``start`` on ``by`` places later (through a
    large offset, so that no two rows share a position on the way)."""
    column = "notification_id" if raw.postgres else "rowid"
    raw.execute(f"UPDATE {{table}} SET {column} = {column} + 1000000 WHERE {column} >= ?", (start,))
    raw.execute(f"UPDATE {{table}} SET {column} = {column} - 1000000 + ? WHERE {column} >= 1000000", (by,))


def positions(raw: RawEvents, game: str) -> list[int]:
    column = "notification_id" if raw.postgres else "rowid"
    return [r[0] for r in raw.execute(f"SELECT {column} FROM {{table}} WHERE originator_id = ? "
                                      "ORDER BY originator_version", (raw._stream(game),))]


def set_position(raw: RawEvents, game: str, version: int, position: int) -> None:
    column = "notification_id" if raw.postgres else "rowid"
    raw.execute(f"UPDATE {{table}} SET {column} = ? WHERE originator_id = ? AND originator_version = ?",
                (position, raw._stream(game), version))


# -- the store: verify against the checkpoints ---------------------------------------------------


def test_an_untouched_store_verifies_with_its_checkpoints(club: Club) -> None:
    status, output = club.verify("--key", str(club.club_pub), "--key", str(club.arbiter_pub),
                                 "--checkpoint", str(club.published))
    assert status == 0, output
    assert "1 checkpoint(s)" in output and "club log:" not in output


def test_a_rewrite_before_the_checkpoint_chained_anew_is_caught(club: Club, tamper: RawEvents) -> None:
    def lighter(event: dict[str, Any]) -> None:
        event["amount"] = 2  # the arbiter's penalty, 4 → 2: a penalty the judge allows

    tamper.rechain("t1", 9, lighter)
    status, output = club.verify()
    assert status == 1
    assert "t1: 9 events, chain intact" in output  # the chain alone sees nothing
    size = checkpoint_size(club)
    assert f"checkpoint #{size}" in output and "does not match the store" in output
    assert "event 9 of 't1'" in output  # named by the tree's cache, made before
    assert "no longer the one signed" in output  # the arbiter's signature
    status, output = club.verify("--checkpoint", str(club.published))
    assert status == 1 and f"the checkpoint given (#{size}) does not match the store" in output


def drop_cache(tamper: RawEvents, tables: tuple[str, ...] = ("merkle_state", "merkle_tiles", "merkle_marks")) -> None:
    for table in tables:
        tamper.execute(f"DROP TABLE {table}" if not tamper.postgres else f'DROP TABLE "{tamper.schema}".{table}')


@pytest.mark.parametrize("dropped", [("merkle_state",), ("merkle_state", "merkle_tiles", "merkle_marks")])
def test_a_rewritten_store_whose_cache_is_deleted_signs_no_checkpoint(club: Club, tamper: RawEvents,
                                                                      dropped: tuple[str, ...]) -> None:
    tamper.rechain("t1", 9, lambda event: event.update(amount=2))
    # a thorough forger drops the tree's cache (it remembers the leaves as they were
    # taken in), so that the tree is computed from the rewritten rows
    drop_cache(tamper, dropped)
    size = checkpoint_size(club)
    refused = run(club.db, "checkpoint", "--key", str(club.club_key))
    assert refused.exit_code == 1, refused.output
    assert f"checkpoint #{size} of club.example/pulka" in refused.output
    assert "would fork the log, so nothing is signed" in refused.output
    if len(dropped) == 1:  # the tiles still hold the leaves as taken in: the event is named
        assert "the first event that differs is event 9 of 't1'" in refused.output, refused.output
    else:  # nothing left to compare with: the range between the checkpoints
        assert f"among events 1 to {size}" in refused.output, refused.output
    with Store(club.db) as store:
        assert len(Attestations(store).checkpoints()) == 1  # nothing stored
    keygen("arbiter:Ivan", club.folder / "ivan.key")  # nor does a cosigner sign it
    assert "would fork the log" in run(club.db, "cosign", "--key", str(club.folder / "ivan.key")).output


def test_the_tree_cache_is_only_a_cache(club: Club, tamper: RawEvents) -> None:
    """Deleting it changes nothing but speed: the next checkpoint, the same."""
    ok(club.db, "deal", "t1", "pass pass pass | 2 5 3")
    drop_cache(tamper)
    new = ok(club.db, "checkpoint", "--key", str(club.club_key))
    with Store(club.db) as store, ClubTree.fresh(store) as fresh:
        assert parse_note(new).text.split("\n")[2] == base64.b64encode(fresh.root(int(new.split("\n")[1]))).decode()
    status, output = club.verify()
    assert status == 0, output


def test_a_forged_consistency_proof_of_a_rewritten_store_is_refused(club: Club, tamper: RawEvents) -> None:
    tamper.rechain("t1", 9, lambda event: event.update(amount=2))
    drop_cache(tamper)
    # a club that signs the rewritten store anyway, bypassing pulka's refusal
    with Store(club.db) as store, ClubTree.fresh(store) as tree:
        size = tree.size
        new_note = sign_note(Checkpoint("club.example/pulka", size, tree.root()).text(), [Signer.parse(
            club.club_key.read_text())])
        proof = tree.consistency(checkpoint_size(club), size)
    refused = run(club.db, "prove", "--consistency", str(club.published), str(club.folder / "new.txt"))
    assert refused.exit_code != 0
    forged = club.folder / "forged.json"
    forged.write_text(json.dumps({"format": "pulka-consistency/v1", "old": club.published.read_text(),
                                  "new": str(new_note), "proof": [base64.b64encode(h).decode() for h in proof]}))
    done = standalone(club.folder, "--consistency", str(forged), "--key", str(club.club_pub), "--no-state")
    assert done.returncode == 1 and "does not extend" in done.stdout, done.stdout


def test_the_published_checkpoint_extends_to_the_next_one_when_nothing_was_rewritten(club: Club) -> None:
    ok(club.db, "deal", "t1", "pass pass pass | 2 5 3")
    new = club.folder / "new.txt"
    new.write_text(ok(club.db, "checkpoint", "--key", str(club.club_key)), encoding="utf-8")
    proof = club.folder / "proof.json"
    proof.write_text(ok(club.db, "prove", "--consistency", str(club.published), str(new)))
    done = standalone(club.folder, "--consistency", str(proof), "--key", str(club.club_pub), "--no-state")
    assert done.returncode == 0 and "extends checkpoint" in done.stdout, done.stdout


def test_a_deletion_before_the_checkpoint_is_caught(club: Club, tamper: RawEvents) -> None:
    tamper.delete("t2", tamper.versions("t2")[-1])  # t2's last deal gone: its chain is still whole
    status, output = club.verify()
    assert status == 1 and "does not match the store" in output
    assert "t2: 14 events, chain intact" in output
    ok(club.db, "deal", "t1", "pass pass pass | 2 5 3")  # the store grows past the checkpoint again
    ok(club.db, "deal", "t1", "pass pass pass | 3 5 2")
    status, output = club.verify()
    assert status == 1 and "does not match the store" in output
    assert "TAMPERED" not in "".join(line for line in output.splitlines() if line.startswith("t2:"))


def test_an_insertion_before_the_checkpoint_is_caught(club: Club, tamper: RawEvents) -> None:
    ok(club.db, "new", "t3", "--players", "Anna,Boris,Vera", "--pulya", "10")  # a whole game, chained
    first = positions(tamper, "t1")[3]
    moved = positions(tamper, "t3")
    shift_positions(tamper, first, len(moved))
    for version, _ in enumerate(moved, start=1):  # slipped in among t1's events, before the checkpoint
        set_position(tamper, "t3", version, first + version - 1)
    status, output = club.verify()
    assert status == 1 and "does not match the store" in output
    assert "t3: 1 event, chain intact" in output


def test_a_reordering_before_the_checkpoint_is_caught(club: Club, tamper: RawEvents) -> None:
    one, two = positions(tamper, "t1")[-1], positions(tamper, "t2")[0]
    set_position(tamper, "t1", 9, -1)
    set_position(tamper, "t2", 1, one)
    set_position(tamper, "t1", 9, two)  # every stream's chain as it was, in another store order
    status, output = club.verify()
    assert status == 1 and "does not match the store" in output
    assert "t1: 9 events, chain intact" in output


def test_a_forked_history_is_caught(club: Club) -> None:
    size = checkpoint_size(club)
    signer = Signer.parse(club.club_key.read_text())
    other = Checkpoint("club.example/pulka", size, hashlib.sha256(b"another history").digest())
    note = sign_note(other.text(), [signer])
    with Store(club.db) as store:
        stored = store.load(CHECKPOINTS_STREAM)
        store.append(CHECKPOINTS_STREAM, [CheckpointMade(
            size=size, root=other.root_b64, at="2026-12-01T20:00:00+00:00",
            signatures=(NoteSignature(signer.verifier.text(), note.signatures[0].base64),))],
            expected=len(stored))
    status, output = club.verify()
    assert status == 1 and f"fork: checkpoints #{size}" in output
    forked = club.folder / "forked.txt"
    forked.write_text(str(note), encoding="utf-8")
    done = standalone(club.folder, "--same-log", str(club.published), str(forked), "--key", str(club.club_pub),
                      "--no-state")
    assert done.returncode == 1 and "fork" in done.stdout, done.stdout


def test_verify_with_a_key_that_signed_nothing_says_so_and_calls_nothing_tampered(club: Club, tmp_path: Path) -> None:
    keygen("club.example/pulka", tmp_path / "impostor.key")
    status, output = club.verify("--key", str(tmp_path / "impostor.pub"))
    assert status == 1 and "none of them a key given" in output
    assert "a key not among those given" in output  # the arbiter's signature on t1's penalty
    assert "TAMPERED" not in output and ": tampered" not in output and "nothing was found tampered" in output


# -- a bundle, checked by the player ----------------------------------------------------------------


def standalone(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pulka_verify.py in a process of its own that can import the standard library and
    the cryptography library alone."""
    import cffi  # type: ignore[import-untyped]
    import cryptography

    libs = folder / "only-crypto"
    if not libs.exists():
        libs.mkdir()
        for package in (cryptography, cffi):
            (libs / package.__name__).symlink_to(Path(package.__file__).parent)
        for backend in Path(cffi.__file__).parent.parent.glob("_cffi_backend*"):
            (libs / backend.name).symlink_to(backend)
    script = folder / "pulka_verify.py"
    shutil.copy(ROOT / "pulka_verify.py", script)
    probe = subprocess.run([sys.executable, "-S", "-c", "import importlib.util as u; print([n for n in "
                            "('ledger', 'projections', 'cli', 'msgspec', 'eventsourcing', 'click') if u.find_spec(n)])"],
                           cwd=folder, env={"PYTHONPATH": str(libs)}, capture_output=True, text=True)
    assert probe.stdout.strip() == "[]", probe
    return subprocess.run([sys.executable, "-S", str(script), *args], cwd=folder, env={"PYTHONPATH": str(libs)},
                          capture_output=True, text=True, encoding="utf-8")


def bundle_of(club: Club, game: str) -> dict[str, Any]:
    result = run(club.db, "prove", game)
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def check(club: Club, bundle: dict[str, Any], *keys: Path) -> subprocess.CompletedProcess[str]:
    path = club.folder / "bundle.json"
    path.write_text(json.dumps(bundle), encoding="utf-8")
    args = [a for k in (keys or (club.club_pub, club.arbiter_pub)) for a in ("--key", str(k))]
    return standalone(club.folder, str(path), *args, "--no-state")


def test_a_player_checks_his_tables_bundle_alone(club: Club) -> None:
    done = check(club, bundle_of(club, "t1"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "signed by club.example/pulka (the log's key)" in done.stdout
    assert "also signed by arbiter:Oleg (not the log, not a witness: not counted)" in done.stdout
    assert "events 1-9, their hash chain recomputed: intact" in done.stdout
    assert "event 9 (penalty): signed by arbiter:Oleg" in done.stdout
    assert "pulka is not installed here" in done.stdout


def test_with_pulka_installed_the_verifier_recomputes_the_sheet_and_settlement(club: Club) -> None:
    path = club.folder / "bundle.json"
    path.write_text(json.dumps(bundle_of(club, "t1")), encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "pulka_verify.py"), str(path), "--key", str(club.club_pub),
                           "--no-state"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    settled = ok(club.db, "settle", "t1")
    assert settled.strip() in done.stdout
    assert "event 9 (penalty): no key you gave signed it; also by arbiter:Oleg+" in done.stdout
    assert "no key of arbiter:Oleg given: his signature not checked" in done.stdout


def edited_event(bundle: dict[str, Any]) -> None:
    event = json.loads(bundle["events"][-1]["event"])
    event["amount"] = 2
    bundle["events"][-1]["event"] = json.dumps(event, separators=(",", ":"))
    bundle["events"][-1].pop("digest")


def edited_proof(bundle: dict[str, Any]) -> None:
    first = base64.b64decode(bundle["head"]["proof"][0])
    bundle["head"]["proof"][0] = base64.b64encode(bytes([first[0] ^ 1]) + first[1:]).decode()


def edited_checkpoint(bundle: dict[str, Any]) -> None:
    lines = bundle["checkpoint"].split("\n")
    lines[1] = str(int(lines[1]) + 1)
    bundle["checkpoint"] = "\n".join(lines)


def edited_signature(bundle: dict[str, Any]) -> None:
    note = bundle["signatures"][0]["note"]
    text, _, line = note.rpartition("\n\u2014 ")
    name, sig = line.rstrip("\n").split(" ")
    raw = base64.b64decode(sig)
    bundle["signatures"][0]["note"] = f"{text}\n\u2014 {name} {base64.b64encode(raw[:-1] + bytes([raw[-1] ^ 1])).decode()}\n"


def dropped_events(bundle: dict[str, Any]) -> None:
    del bundle["events"][-1]


@pytest.mark.parametrize("change, why", [
    (edited_event, "digest"),
    (edited_proof, "not in the log under this checkpoint"),
    (edited_checkpoint, "does not verify"),
    (edited_signature, "does not verify"),
    (dropped_events, "not of the bundle's last event"),
])
def test_a_changed_bundle_fails(club: Club, change: Any, why: str) -> None:
    bundle = bundle_of(club, "t1")
    change(bundle)
    done = check(club, bundle)
    assert done.returncode == 1, done.stdout
    assert why in done.stdout, done.stdout


def test_a_bundle_signed_by_an_unknown_key_fails(club: Club, tmp_path: Path) -> None:
    keygen("club.example/pulka", tmp_path / "impostor.key")  # the club's name, another key
    done = check(club, bundle_of(club, "t1"), tmp_path / "impostor.pub")
    assert done.returncode == 1 and "not the log's: no signature of the log's key" in done.stdout, done.stdout


def test_a_proof_for_another_game_fails(club: Club) -> None:
    mine, theirs = bundle_of(club, "t1"), bundle_of(club, "t2")
    mine["head"] = dict(theirs["head"], number=mine["head"]["number"])
    done = check(club, mine)
    assert done.returncode == 1 and "not in the log under this checkpoint" in done.stdout, done.stdout


def test_a_checkpoint_that_does_not_cover_a_game_is_refused(club: Club) -> None:
    ok(club.db, "new", "later", "--players", "Anna,Boris,Vera", "--pulya", "10")
    refused = run(club.db, "prove", "later")
    assert refused.exit_code == 1 and "does not cover 'later'" in refused.output
    ok(club.db, "deal", "t1", "pass pass pass | 2 5 3")
    bundle = bundle_of(club, "t1")  # t1 went on after the checkpoint: the bundle stops at it
    with Store(club.db) as store:
        assert len(bundle["events"]) == 9 and bundle["stored"] == store.count("t1") == 13


def test_the_tree_cache_follows_the_store_and_agrees_with_a_fresh_tree(club: Club) -> None:
    for line in ("pass pass pass | 2 5 3", "pass pass pass | 3 5 2"):
        ok(club.db, "deal", "t2", line)
    with Store(club.db) as store:
        with ClubTree.open(store, write=True) as cached, ClubTree.fresh(store) as fresh:
            assert cached.size == fresh.size
            assert cached.root() == fresh.root()
            assert [cached.root(n) for n in range(1, fresh.size + 1)] == [fresh.root(n) for n in range(1, fresh.size + 1)]
        attest = Attestations(store)
        assert attest.covering("t1", 9) is not None and attest.covering("t2", 30) is None
        assert parse_note(str(attest.stored().note())).text == club.published.read_text().split("\n\n")[0] + "\n"

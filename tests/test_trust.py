"""Keys with roles, and a player who pins the club's trust file (``pulka trust``,
``pulka_verify.py --trust``): the log's key alone makes a checkpoint the log's (an
arbiter's or a witness's forgery is refused), k of n witnesses as the file says, the
log's key rotated (signed by the old key and the new) and a retired key refused after
its size, the player's memory of the last checkpoint per origin (a fork refused, an
older or a larger one told apart), decisions that stay signed (a stripped, replaced or
relabelled signature refused; ``prove`` refuses to drop one), and ``--same-log`` on
two sizes.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import pulka_verify
from cli.main import main
from ledger.proofs.checkpoints import Attestations
from ledger.store.event_store import Store
from ledger.vocabulary.attestation import NoteSignature
from ledger.vocabulary.notes import Checkpoint, Signer, parse_note, sign_note, signature_of
from ledger.vocabulary.trust import TrustError, parse_trust
from tests.conftest import RawEvents
from tests.helpers import ok, refused

ROOT = Path(__file__).resolve().parent.parent
ORIGIN = "club.example/pulka"


def keygen(name: str, out: Path, *flags: str) -> Signer:
    result = CliRunner().invoke(main, ["keygen", name, "--out", str(out), *flags])
    assert result.exit_code == 0, result.output
    return Signer.parse(out.read_text())


@dataclass
class Club:
    db: str
    folder: Path
    club: Signer
    oleg: Signer
    witness: Signer
    trust: Path  # the club's trust file: its log's key, its witness (quorum 1), its arbiter

    def key(self, name: str) -> str:
        return str(self.folder / f"{name}.key")

    def pub(self, name: str) -> str:
        return str(self.folder / f"{name}.pub")

    def cosign_as_witness(self) -> None:
        """The witness's cosignature on the latest checkpoint, as its service returns it."""
        with Store(self.db) as store:
            attest = Attestations(store)
            cp = attest.stored()
            line = signature_of(self.witness, cp.checkpoint.text())
            attest.add_signature(cp, NoteSignature(self.witness.verifier.text(), line.base64))

    def bundle(self, game: str = "t1") -> dict[str, Any]:
        doc: dict[str, Any] = json.loads(ok(self.db, "prove", game))
        return doc

    def check(self, bundle: dict[str, Any], *args: str, state: str | None = None) -> subprocess.CompletedProcess[str]:
        path = self.folder / "bundle.json"
        path.write_text(json.dumps(bundle), encoding="utf-8")
        memory = ["--state", str(self.folder / state)] if state else ["--no-state"]
        return subprocess.run([sys.executable, str(ROOT / "pulka_verify.py"), str(path), "--no-recompute", *memory,
                               *(args or ("--trust", str(self.trust)))], capture_output=True, text=True)


@pytest.fixture
def club(tmp_path: Path) -> Club:
    db = str(tmp_path / "club.db")
    ok(db, "new", "t1", "--players", "Anna,Boris,Vera", "--pulya", "10")
    ok(db, "deal", "t1", "6S pass pass | 6S | whist whist | 6 2 2")
    ok(db, "penalty", "t1", "Boris", "gora", "4", "--reason", "late", "--by", "arbiter:Oleg")
    signers = {name: keygen(key, tmp_path / f"{name}.key", *flags) for name, key, flags in (
        ("club", ORIGIN, ()), ("oleg", "arbiter:Oleg", ()), ("w1", "w1.example/witness", ("--witness",)))}
    ok(db, "sign", "t1", "9", "--key", str(tmp_path / "oleg.key"))
    ok(db, "checkpoint", "--key", str(tmp_path / "club.key"))
    trust = tmp_path / "club.trust"
    trust.write_text(ok(db, "trust", "--witness", str(tmp_path / "w1.pub"), "-", "--arbiter", str(tmp_path / "oleg.pub")))
    found = Club(db, tmp_path, signers["club"], signers["oleg"], signers["w1"], trust)
    found.cosign_as_witness()
    return found


# -- the trust file ----------------------------------------------------------------------------------


def test_the_trust_file_names_each_key_in_its_role(club: Club) -> None:
    trust = parse_trust(club.trust.read_text())
    assert trust.origin == ORIGIN and trust.log == (club.club.verifier,) and trust.quorum == 1
    assert [w.key for w in trust.witnesses] == [club.witness.verifier] and trust.arbiters == (club.oleg.verifier,)
    assert parse_trust(trust.text()) == trust
    policy = pulka_verify.Policy.from_file(club.trust.read_text(), [])
    assert policy.origin == ORIGIN and policy.quorum == 1 and [k.name for k in policy.arbiters] == ["arbiter:Oleg"]


def key_of(text: str, word: str) -> str:
    """The key of the first ``word`` statement of a trust file."""
    return next(line.split()[1] for line in text.splitlines() if line.startswith(word + " "))


@pytest.mark.parametrize("edit, why", [
    (lambda t: t.replace("witness w1", "log w1"), "witness's key"),
    (lambda t: t + f"witness {key_of(t, 'log')}\n", "cosignature/v1 key"),
    (lambda t: t.replace("quorum 1", "quorum 2"), "more than the witnesses"),
    (lambda t: t.replace("quorum 1\n", ""), "how many must cosign"),
    (lambda t: t + f"arbiter {key_of(t, 'arbiter')}\n", "in two roles"),
    (lambda t: t + "trust me\n", "line 7"),
    (lambda t: t.replace("origin club.example/pulka", "origin a b"), "takes 1 value"),
    (lambda t: "\n".join(line for line in t.splitlines() if not line.startswith("log ")), "log's key"),
])
def test_a_trust_file_that_mixes_the_roles_is_refused(club: Club, edit: Any, why: str) -> None:
    with pytest.raises(TrustError, match=why):
        parse_trust(edit(club.trust.read_text()))
    with pytest.raises(ValueError):
        pulka_verify.Policy.from_file(edit(club.trust.read_text()), [])


def test_the_player_checks_a_bundle_with_the_trust_file(club: Club) -> None:
    done = club.check(club.bundle())
    assert done.returncode == 0, done.stdout
    assert "signed by club.example/pulka (the log's key)" in done.stdout
    assert "1 of 1 witnesses cosigned (the trust file requires 1)" in done.stdout
    assert "event 9 (penalty): signed by arbiter:Oleg" in done.stdout


# -- no one but the log signs as the log ----------------------------------------------------------


def forged_bundle(club: Club, signers: list[Signer]) -> dict[str, Any]:
    """The bundle with its checkpoint replaced by one of another root, signed by ``signers``."""
    bundle = club.bundle()
    text = parse_note(bundle["checkpoint"]).text
    size = int(text.split("\n")[1])
    forged = sign_note(Checkpoint(ORIGIN, size, bytes(32)).text(), signers)
    bundle["checkpoint"] = str(forged)
    return bundle


@pytest.mark.parametrize("who", ["oleg", "witness", "both"])
def test_a_checkpoint_forged_by_an_arbiter_or_a_witness_is_refused(club: Club, who: str) -> None:
    signers = {"oleg": [club.oleg], "witness": [club.witness], "both": [club.oleg, club.witness]}[who]
    done = club.check(forged_bundle(club, signers))
    assert done.returncode == 1 and "the checkpoint is not the log's: no signature of the log's key" in done.stdout, \
        done.stdout
    # without a trust file, an arbiter's key given is still no log's key
    done = club.check(forged_bundle(club, [club.oleg]), "--key", club.pub("club"), "--key", club.pub("oleg"))
    assert done.returncode == 1 and "not the log's" in done.stdout, done.stdout


def test_an_arbiters_origin_is_no_log(club: Club) -> None:
    bundle = club.bundle()
    bundle["checkpoint"] = str(sign_note(Checkpoint("arbiter:Oleg", 3, bytes(32)).text(), [club.oleg]))
    done = club.check(bundle, "--key", club.pub("oleg"))
    assert done.returncode == 1 and "an arbiter never signs as the log" in done.stdout, done.stdout


def test_the_quorum_of_witnesses_is_required(club: Club) -> None:
    ok(club.db, "deal", "t1", "pass pass pass | 2 5 3")
    ok(club.db, "checkpoint", "--key", club.key("club"))  # not yet cosigned
    done = club.check(club.bundle())
    assert done.returncode == 1 and "0 of the trust file's witnesses cosigned" in done.stdout, done.stdout
    club.cosign_as_witness()
    assert club.check(club.bundle()).returncode == 0


def test_the_store_refuses_a_witnesss_or_an_arbiters_key_as_the_log(club: Club) -> None:
    assert "witness's key" in refused(club.db, "checkpoint", "--key", club.key("w1"))
    assert "none of the keys given is the log's" in refused(club.db, "checkpoint", "--key", club.key("oleg"))
    assert "witness's key" in refused(club.db, "cosign", "--key", club.key("w1"))


# -- the log's key rotated -------------------------------------------------------------------------


def test_the_logs_key_rotated_and_the_retired_key_refused_after_it(club: Club) -> None:
    new = keygen(ORIGIN, club.folder / "club2.key")
    size = club.bundle()["head"]["tree_size"]
    said = ok(club.db, "rotate", "--key", club.key("club"), "--new", club.key("club2"))
    assert f"after #{size}" in said
    assert "retired" in refused(club.db, "checkpoint", "--key", club.key("club"))
    ok(club.db, "deal", "t1", "pass pass pass | 2 5 3")
    ok(club.db, "checkpoint", "--key", club.key("club2"))
    club.cosign_as_witness()
    ok(club.db, "verify")
    # a player with the old trust file follows the rotation the bundle carries
    done = club.check(club.bundle())
    assert done.returncode == 0 and f"handed over to {new.verifier.text()[:40]}" in done.stdout, done.stdout
    # the new trust file names the new key and the old one, retired at its size
    renewed = club.folder / "club2.trust"
    renewed.write_text(ok(club.db, "trust", "--witness", club.pub("w1"), "-"))
    assert f"retired {club.club.verifier.text()} {size}" in renewed.read_text()
    assert club.check(club.bundle(), "--trust", str(renewed)).returncode == 0
    # the retired key cannot sign a checkpoint beyond its size (a stolen old key forges nothing)
    bundle = club.bundle()
    later = parse_note(bundle["checkpoint"]).text
    bundle["checkpoint"] = str(sign_note(later, [club.club, club.witness]))
    for trust in (club.trust, renewed):
        done = club.check(bundle, "--trust", str(trust))
        assert done.returncode == 1 and "a log key retired before" in done.stdout, done.stdout


def test_a_rotation_the_new_key_did_not_sign_is_refused(club: Club) -> None:
    ok(club.db, "rotate", "--key", club.key("club"), "--new", str(keygen(ORIGIN, club.folder / "n.key") and
                                                                      club.folder / "n.key"))
    ok(club.db, "deal", "t1", "pass pass pass | 2 5 3")
    ok(club.db, "checkpoint", "--key", str(club.folder / "n.key"))
    club.cosign_as_witness()
    bundle = club.bundle()
    rotation = bundle["rotations"][0]
    bundle["rotations"] = [rotation.rsplit("\u2014 ", 1)[0]]  # the new key's signature dropped
    done = club.check(bundle)
    assert done.returncode == 1, done.stdout


# -- the player's memory -----------------------------------------------------------------------------


def test_the_player_remembers_the_last_checkpoint_and_refuses_a_fork(club: Club) -> None:
    first = club.bundle()
    assert club.check(first, state="me").returncode == 0
    remembered = list((club.folder / "me").glob("*.checkpoint"))
    assert len(remembered) == 1 and remembered[0].read_text() == first["checkpoint"]
    # the same size, another root: a fork, even signed by the log's key and its witness
    forked = forged_bundle(club, [club.club, club.witness])
    done = club.check(forked, state="me")
    assert done.returncode == 1 and "fork: the log club.example/pulka showed you another root" in done.stdout, done.stdout
    # a later checkpoint: its consistency proof from the one remembered is in the bundle
    ok(club.db, "deal", "t1", "pass pass pass | 2 5 3")
    ok(club.db, "checkpoint", "--key", club.key("club"))
    club.cosign_as_witness()
    later = club.bundle()
    done = club.check(later, state="me")
    assert done.returncode == 0 and "no fork since" in done.stdout, done.stdout
    assert remembered[0].read_text() == later["checkpoint"]
    # an older bundle checked afterwards: made before the larger checkpoint, it holds no
    # proof to it, and cannot be told apart from a fork; made again under the same
    # (older) checkpoint now, it carries the proof, and is consistent with the larger
    done = club.check(first, state="me")
    assert done.returncode == 1 and "cannot tell whether the log forked" in done.stdout, done.stdout
    older = club.folder / "older.txt"
    older.write_text(first["checkpoint"])
    again: dict[str, Any] = json.loads(ok(club.db, "prove", "t1", "--checkpoint", str(older)))
    assert again["checkpoint"] == first["checkpoint"]
    done = club.check(again, state="me")
    assert done.returncode == 0 and "consistent with #" in done.stdout, done.stdout
    assert remembered[0].read_text() == later["checkpoint"]  # the larger is kept
    # a later bundle without the proof from the one remembered cannot be told: refused
    stripped = dict(later, consistency=[])
    (club.folder / "me2").mkdir()
    (club.folder / "me2" / remembered[0].name).write_text(first["checkpoint"])
    done = club.check(stripped, state="me2")
    assert done.returncode == 1 and "cannot tell whether the log forked" in done.stdout, done.stdout


def test_a_rewritten_history_shown_to_a_player_who_saw_the_old_is_a_fork(club: Club) -> None:
    ok(club.db, "new", "t2", "--players", "Gleb,Dina,Egor", "--pulya", "10")
    ok(club.db, "deal", "t2", "6S pass pass | 6S | whist whist | 6 2 2")
    ok(club.db, "checkpoint", "--key", club.key("club"))
    club.cosign_as_witness()
    assert club.check(club.bundle(), state="me").returncode == 0
    raw = RawEvents(club.db)
    try:  # another table's deal, a minute later: a rewrite the rules allow, chained anew
        raw.rechain("t2", 3, lambda event: event.update(at="2026-12-01T20:01:00+00:00"))
        raw.execute("DROP TABLE merkle_tiles")
    finally:
        raw.close()
    ok(club.db, "deal", "t1", "pass pass pass | 2 5 3")
    from tests.test_witness import forge_checkpoint

    forge_checkpoint(club.db, club.folder / "club.key")  # what pulka refuses to sign, signed by hand
    club.cosign_as_witness()  # even by a witness that cosigns without checking (not pulka's)
    done = club.check(club.bundle(), state="me")
    assert done.returncode == 1 and "is not consistent with" in done.stdout and "fork" in done.stdout, done.stdout


# -- decisions that stay signed ------------------------------------------------------------------------


def test_a_stripped_or_replaced_arbiters_signature_is_refused(club: Club) -> None:
    bundle = club.bundle()
    stripped = dict(bundle, signatures=[])
    done = club.check(stripped)
    assert done.returncode == 1 and "carries no good signature of his" in done.stdout, done.stdout
    ivan = keygen("arbiter:Ivan", club.folder / "ivan.key")
    replaced = json.loads(json.dumps(bundle))
    note = parse_note(replaced["signatures"][0]["note"])
    replaced["signatures"][0]["note"] = str(sign_note(note.text, [ivan]))
    done = club.check(replaced)
    assert done.returncode == 1 and "carries no good signature of his" in done.stdout, done.stdout
    # without his key, the player is told the signature is not checked (and nothing passes for checked)
    done = club.check(stripped, "--key", club.pub("club"))
    assert done.returncode == 0 and "no key of arbiter:Oleg given" in done.stdout, done.stdout


def test_the_decisions_type_is_inside_the_signed_text(club: Club) -> None:
    bundle = club.bundle()
    note = parse_note(bundle["signatures"][0]["note"])
    assert note.text.endswith("\npenalty\n")
    relabelled = json.loads(json.dumps(bundle))
    relabelled["signatures"][0]["note"] = str(sign_note(note.text.replace("\npenalty\n", "\nruling\n"), [club.oleg]))
    done = club.check(relabelled)
    assert done.returncode == 1 and "not over that event's digest and type" in done.stdout, done.stdout


def test_prove_refuses_to_drop_a_signature_that_no_longer_verifies(club: Club) -> None:
    raw = RawEvents(club.db)
    try:
        raw.rechain("t1", 9, lambda event: event.update(amount=2))
    finally:
        raw.close()
    said = refused(club.db, "prove", "t1")
    assert "the signature of arbiter:Oleg on event 9 of 't1' no longer verifies" in said


# -- two checkpoints, the second seen later --------------------------------------------------------


def test_same_log_on_two_sizes_needs_a_consistency_proof_and_a_smaller_later_one_is_refused(club: Club) -> None:
    first = club.folder / "a.txt"
    first.write_text(ok(club.db, "checkpoint"))
    ok(club.db, "deal", "t1", "pass pass pass | 2 5 3")
    second = club.folder / "b.txt"
    second.write_text(ok(club.db, "checkpoint", "--key", club.key("club")))
    proof = club.folder / "proof.json"
    proof.write_text(ok(club.db, "prove", "--consistency", str(first), str(second)))

    def same_log(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(ROOT / "pulka_verify.py"), "--same-log", *args, "--key",
                               club.pub("club"), "--no-state"], capture_output=True, text=True)

    done = same_log(str(first), str(second))
    assert done.returncode == 1 and "only a consistency proof between them tells" in done.stdout, done.stdout
    done = same_log(str(first), str(second), "--consistency", str(proof))
    assert done.returncode == 0 and "no fork" in done.stdout, done.stdout
    done = same_log(str(second), str(first), "--consistency", str(proof))
    assert done.returncode == 1 and "a log never shrinks" in done.stdout, done.stdout


def test_full_width_digits_and_short_hashes_are_refused() -> None:
    root = base64.b64encode(bytes(32)).decode()
    with pytest.raises(pulka_verify.Failed):
        pulka_verify.parse_checkpoint(f"a\n\uff11\uff12\n{root}\n")
    with pytest.raises(pulka_verify.Failed):
        pulka_verify.parse_checkpoint(f"a\n12\n{base64.b64encode(bytes(31)).decode()}\n")
    assert not pulka_verify.included(bytes(31), 0, 1, [], bytes(31))
    assert not pulka_verify.consistent(1, 2, bytes(32), bytes(32), [bytes(33)])


def test_without_cryptography_the_verifier_says_so_without_a_traceback(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-S", str(ROOT / "pulka_verify.py"), "--help"], capture_output=True,
                          text=True, cwd=tmp_path, env={"PYTHONPATH": ""})
    assert done.returncode == 2 and "needs the cryptography library" in done.stderr
    assert "Traceback" not in done.stderr
